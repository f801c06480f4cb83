/** Shared by the benchmarks that read `../shared/bench/dev-tasks.json`: the task record, flag reading, a task's checkout and its fix's hunks. */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { parseScript, type Script } from '../src/scripted/script.js';
import { extractFailure } from '../src/ci/log-extract.js';

/** One real bug of the dev-tasks corpus (the fields the benchmarks use). */
export interface DevTask {
  id: string;
  test_framework: string;
  repo: string;
  buggy_sha: string;
  fix_sha: string;
  issue_title: string;
  issue_body: string;
  fix_files: string[];
  test_files: string[];
  install_command: string;
  test_command: string;
  fail_to_pass: string[];
}

/** The value after `--<name>` on the command line, or `dflt`. */
export function arg(name: string, dflt?: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
}

/** git in `cwd`, its output trimmed. */
export function benchGit(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'advice.detachedHead=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).trim();
}

/**
 * Every tracked file of a mirror at a commit, outside .github/ and up to 2 MB each (the fake remote
 * of a CI-mode run is made from them): UTF-8 text, and the other files as bytes; `ignore` is added
 * to the .gitignore (what the bench's install writes).
 */
export function treeAt(mirror: string, sha: string, ignore: string[]): { text: Record<string, string>; binary: Record<string, Buffer> } {
  const text: Record<string, string> = {};
  const binary: Record<string, Buffer> = {};
  // -z: names as they are (a quoted, escaped `emoji-\360….vue` is no path `git show` knows)
  for (const f of benchGit(mirror, 'ls-tree', '-r', '-z', '--name-only', sha).split('\0')) {
    if (!f || f.startsWith('.github/')) continue;
    const buf = execFileSync('git', ['show', `${sha}:${f}`], { cwd: mirror, maxBuffer: 64 << 20 });
    if (buf.length > 2_000_000) continue;
    const asText = buf.toString('utf8');
    if (buf.includes(0) || !Buffer.from(asText, 'utf8').equals(buf)) binary[f] = buf;
    else text[f] = asText;
  }
  text['.gitignore'] = `${text['.gitignore'] ?? ''}\n${ignore.map((p) => `${p}\n`).join('')}`;
  return { text, binary };
}

/**
 * A clone of the task's mirror at the buggy commit, installed by the task's own command. With
 * `withTest` (the default) the fix commit's tests are committed on top, as a maintainer's
 * reproduction would be; without, the issue alone, as filed (`dev-tasks.ts --variant no-test`).
 */
export function prepareTask(t: DevTask, mirrors: string, work: string, withTest = true, install = true): string {
  const mirror = path.join(mirrors, t.repo.replace('/', '+'), 'repo');
  if (!existsSync(mirror)) throw new Error(`no mirror for ${t.repo} at ${mirror}`);
  const dir = path.join(work, t.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync('git', ['clone', '-q', '--no-checkout', mirror, dir]);
  benchGit(dir, 'checkout', '-q', t.buggy_sha);
  if (withTest) {
    benchGit(dir, 'checkout', t.fix_sha, '--', ...t.test_files);
    benchGit(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'bench: failing test from the fix commit');
  }
  // `install = false`: the run's own setup command installs (in its sandbox), as a workflow would
  if (!install) return dir;
  execFileSync('bash', ['-c', t.install_command], { cwd: dir, stdio: 'ignore', env: { ...process.env, CI: 'true' } });
  // the install may leave untracked files (lockfiles); the CLI refuses a dirty checkout, so
  // commit them on a throwaway local commit the way a CI checkout would already contain them
  if (benchGit(dir, 'status', '--porcelain')) {
    benchGit(dir, 'add', '-A');
    benchGit(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'bench: install artifacts');
  }
  return dir;
}

/** One hunk of the upstream fix: its old side's place in the buggy file, and both sides' text. */
export interface FixHunk {
  file: string;
  oldStart: number;
  oldLines: number;
  old: string;
  new: string;
}

/** The hunks of `git diff -U2 buggy fix` over the task's fixed files. */
export function fixHunks(dir: string, t: DevTask): FixHunk[] {
  const diff = benchGit(dir, 'diff', '-U2', t.buggy_sha, t.fix_sha, '--', ...t.fix_files);
  const out: FixHunk[] = [];
  let file = '';
  let cur: { file: string; oldStart: number; oldLines: number; old: string[]; new: string[] } | null = null;
  const flush = () => {
    if (cur) out.push({ file: cur.file, oldStart: cur.oldStart, oldLines: cur.oldLines, old: cur.old.join('\n'), new: cur.new.join('\n') });
    cur = null;
  };
  for (const line of diff.split('\n')) {
    const f = /^\+\+\+ b\/(.+)$/.exec(line);
    if (f) {
      flush();
      file = f[1];
      continue;
    }
    const h = /^@@ -(\d+)(?:,(\d+))? /.exec(line);
    if (h) {
      flush();
      cur = { file, oldStart: Number(h[1]), oldLines: h[2] === undefined ? 1 : Number(h[2]), old: [], new: [] };
      continue;
    }
    if (!cur || line.startsWith('---') || line.startsWith('\\')) continue;
    if (line.startsWith('-')) cur.old.push(line.slice(1));
    else if (line.startsWith('+')) cur.new.push(line.slice(1));
    else if (line.startsWith(' ')) {
      cur.old.push(line.slice(1));
      cur.new.push(line.slice(1));
    }
  }
  flush();
  return out;
}

/** A scripted model session that writes these files (path → content), one per step, then finishes with `label`. */
export function writesScript(label: string, writes: Record<string, string>): Script {
  const steps: Script['steps'] = Object.entries(writes).map(([p, content]) => ({ toolCalls: [{ name: 'write_file', arguments: { path: p, content } }] }));
  steps.push({ toolCalls: [{ name: 'finish', arguments: { summary: label } }] });
  return parseScript({ label, steps });
}

/** A real model's way through the task: find, read the fixed and the test files whole, fix (the upstream hunks, in one reply), test, finish. */
export function oracle(dir: string, t: DevTask): { script: Script; writes: number } {
  const stem = path.basename(t.fix_files[0]).replace(/\.[^.]+$/, '');
  const name = stem === 'index' ? path.basename(path.dirname(t.fix_files[0])) : stem;
  const steps: Script['steps'] = [{ toolCalls: [{ name: 'search', arguments: { pattern: name } }] }];
  for (const f of [...t.fix_files, ...t.test_files]) steps.push({ toolCalls: [{ name: 'read_file', arguments: { path: f } }] });
  const calls: { name: string; arguments: Record<string, unknown> }[] = [];
  let writes = 0;
  for (const f of t.fix_files) {
    const text = benchGit(dir, 'show', `${t.buggy_sha}:${f}`);
    const hs = fixHunks(dir, t).filter((h) => h.file === f);
    if (hs.every((h) => h.old.length > 0 && text.split(h.old).length === 2)) calls.push(...hs.map((h) => ({ name: 'edit_file', arguments: { path: f, old_string: h.old, new_string: h.new } })));
    else {
      writes++;
      calls.push({ name: 'write_file', arguments: { path: f, content: `${benchGit(dir, 'show', `${t.fix_sha}:${f}`)}\n` } });
    }
  }
  steps.push({ toolCalls: calls });
  steps.push({ toolCalls: [{ name: 'run_tests', arguments: {} }] });
  steps.push({ toolCalls: [{ name: 'finish', arguments: { summary: `upstream fix ${t.fix_sha.slice(0, 8)}` } }] });
  return { script: parseScript({ label: `oracle ${t.id}`, steps }), writes };
}

/** The task as a CI run shows it: the test command's output at the buggy commit, extracted as the action does. */
export function ciText(dir: string, t: DevTask): string {
  const r = spawnSync('bash', ['-c', `${t.test_command} 2>&1`], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, CI: 'true', FORCE_COLOR: '0' } });
  benchGit(dir, 'checkout', '-q', '--', '.');
  benchGit(dir, 'clean', '-q', '-fdx', '-e', 'node_modules');
  return `CI failure: \`${t.test_command}\` failed\n\n${extractFailure(r.stdout ?? '').text}`;
}
