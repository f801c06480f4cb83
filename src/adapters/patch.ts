/**
 * PatchGit on the git command line, isolated from the checkout it serves.
 *
 * A bundle's patch is untrusted, and so is everything a repository carries that git could turn
 * into a command: hooks (`post-index-change` runs on index writes), filter and diff drivers named
 * by `.gitattributes`, `core.fsmonitor`, `core.hooksPath` set by an earlier step. So no command
 * here runs inside the checkout's own git directory. Each one runs with:
 * - `GIT_DIR` = a private, empty git directory (no config, no hooks, no refs) made per adapter,
 *   `GIT_OBJECT_DIRECTORY` = the checkout's object store (objects are read from it and the
 *   blobs of an applied patch are written to it, so the tree can be pushed later);
 * - no system or global configuration (`GIT_CONFIG_NOSYSTEM`, `GIT_CONFIG_GLOBAL=/dev/null`,
 *   `HOME` = the private directory), so no filter, diff or fsmonitor command is defined at all;
 *   and `-c core.hooksPath=/dev/null -c core.fsmonitor=false` on top;
 * - the current directory = an empty private work tree, and only `--cached` operations:
 *   `git apply --cached` reads and writes blobs of a private index (GIT_INDEX_FILE), it never
 *   converts through a filter and never checks anything out.
 * Every other GIT_* variable of the environment is dropped; messages are forced to English.
 */
import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ApplyResult, PatchGit, PatchPaths, TreeChange } from '../ports/patch.js';

const CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.quotepath=false'];
const SHA_RE = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

export class PatchGitError extends Error {
  override readonly name = 'PatchGitError';
}

interface Run {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

/** Opens the object store of the checkout at `root` for isolated patch operations. */
export async function openPatchGit(root: string): Promise<PatchGit & { dispose(): Promise<void> }> {
  const probe = await execa('git', [...CONFIG, 'rev-parse', '--path-format=absolute', '--git-path', 'objects'], {
    cwd: root,
    env: cleanEnv(),
    extendEnv: false,
    reject: false,
  });
  if (probe.exitCode !== 0) throw new PatchGitError(`not a git repository: ${root}`);
  const objects = String(probe.stdout).trim();
  const home = await mkdtemp(path.join(tmpdir(), 'agent-fix-patch-'));
  const gitDir = path.join(home, 'git');
  const work = path.join(home, 'work');
  await mkdir(path.join(gitDir, 'refs'), { recursive: true });
  await mkdir(path.join(gitDir, 'objects'), { recursive: true });
  await mkdir(work, { recursive: true });
  await writeFile(path.join(gitDir, 'HEAD'), 'ref: refs/heads/main\n');
  const exitHook = () => rmSync(home, { recursive: true, force: true });
  process.once('exit', exitHook);
  let seq = 0;

  const env = (extra: Record<string, string> = {}) => ({
    ...cleanEnv(),
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_DIR: gitDir,
    GIT_WORK_TREE: work,
    GIT_OBJECT_DIRECTORY: objects,
    GIT_INDEX_FILE: path.join(home, 'index-default'),
    ...extra,
  });

  async function git(args: string[], o: { input?: Buffer; ok?: number[]; env?: Record<string, string> } = {}): Promise<Run> {
    const r = await execa('git', [...CONFIG, ...args], {
      cwd: work,
      env: env(o.env),
      extendEnv: false,
      reject: false,
      encoding: 'buffer',
      stripFinalNewline: false,
      input: o.input ?? Buffer.alloc(0),
      maxBuffer: 256 * 1024 * 1024,
    });
    const stdout = Buffer.from(r.stdout as Uint8Array);
    const stderr = Buffer.from(r.stderr as Uint8Array).toString('utf8');
    const exitCode = typeof r.exitCode === 'number' ? r.exitCode : -1;
    if (!(o.ok ?? [0]).includes(exitCode)) {
      throw new PatchGitError(`git ${args[0]} failed (exit ${exitCode}): ${stderr.trim() || (r.failed ? (r.shortMessage ?? '') : '')}`);
    }
    return { stdout, stderr, exitCode };
  }

  async function withIndex<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
    const file = path.join(home, `index-${++seq}`);
    try {
      return await fn({ GIT_INDEX_FILE: file });
    } finally {
      await rm(file, { force: true });
    }
  }

  return {
    async binaryPatch(fromTree, toTree) {
      return (
        await git(['diff-tree', '-r', '-p', '--binary', '--full-index', '--no-renames', '--no-color', '--no-ext-diff', '--no-textconv', fromTree, toTree])
      ).stdout;
    },

    async patchPaths(patch): Promise<PatchPaths> {
      if (patch.length === 0) return { ok: true, paths: [] };
      const r = await git(['apply', '--numstat', '-z', '-'], { input: patch, ok: [0, 1, 128] });
      if (r.exitCode !== 0) return { ok: false, error: firstLines(r.stderr) || `git apply could not read the patch (exit ${r.exitCode})` };
      return { ok: true, paths: parseNumstatPaths(r.stdout.toString('utf8')) };
    },

    async applyToTree(baseTree, patch): Promise<ApplyResult> {
      return withIndex(async (ix) => {
        await git(['read-tree', baseTree], { env: ix });
        if (patch.length > 0) {
          const r = await git(['apply', '--cached', '--whitespace=nowarn', '-'], { input: patch, env: ix, ok: [0, 1, 128] });
          if (r.exitCode !== 0) return { ok: false, error: firstLines(r.stderr) || `git apply failed (exit ${r.exitCode})` };
        }
        const tree = (await git(['write-tree'], { env: ix })).stdout.toString('utf8').trim();
        return { ok: true, tree };
      });
    },

    async treeChanges(fromTree, toTree) {
      const raw = (await git(['diff-tree', '-r', '--no-renames', '-z', '--raw', fromTree, toTree])).stdout.toString('utf8');
      const num = (await git(['diff-tree', '-r', '--no-renames', '-z', '--numstat', fromTree, toTree])).stdout.toString('utf8');
      return joinChanges(raw, num);
    },

    async readBlob(tree, file) {
      return (await git(['cat-file', 'blob', `${tree}:${file}`])).stdout;
    },

    async hasCommit(sha) {
      if (!SHA_RE.test(sha)) return false;
      return (await git(['cat-file', '-e', `${sha}^{commit}`], { ok: [0, 1, 128] })).exitCode === 0;
    },

    async dispose() {
      process.off('exit', exitHook);
      await rm(home, { recursive: true, force: true });
    },
  };
}

function cleanEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^GIT_/i.test(k)) continue;
    env[k] = v;
  }
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  return env;
}

function firstLines(text: string, max = 5): string {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .slice(0, max)
    .join('; ');
}

/** `git apply --numstat -z`: `a\td\tpath\0`, or for a rename/copy `a\td\t\0old\0new\0`. */
function parseNumstatPaths(out: string): string[] {
  const t = out.split('\0');
  const paths: string[] = [];
  for (let i = 0; i < t.length; i++) {
    const rec = t[i];
    if (!rec) continue;
    const parts = rec.split('\t');
    if (parts.length < 3) continue;
    const p = parts.slice(2).join('\t');
    if (p === '') {
      if (t[i + 1] !== undefined) paths.push(t[i + 1]);
      if (t[i + 2] !== undefined) paths.push(t[i + 2]);
      i += 2;
    } else {
      paths.push(p);
    }
  }
  return paths;
}

function joinChanges(raw: string, num: string): TreeChange[] {
  const stats = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  for (const rec of num.split('\0')) {
    if (!rec) continue;
    const [a, d, ...rest] = rec.split('\t');
    const p = rest.join('\t');
    const binary = a === '-' && d === '-';
    stats.set(p, { additions: binary ? 0 : Number(a), deletions: binary ? 0 : Number(d), binary });
  }
  const t = raw.split('\0');
  const changes: TreeChange[] = [];
  for (let i = 0; i < t.length; i++) {
    const head = t[i];
    if (!head || !head.startsWith(':')) continue;
    const [oldMode, newMode, , , statusField] = head.slice(1).split(' ');
    const p = t[i + 1];
    i += 1;
    const s = stats.get(p) ?? { additions: 0, deletions: 0, binary: false };
    const code = statusField.charAt(0);
    const status: TreeChange['status'] = code === 'A' ? 'added' : code === 'D' ? 'deleted' : code === 'T' ? 'type-changed' : 'modified';
    changes.push({ path: p, status, oldMode, newMode, ...s });
  }
  return changes;
}
