/**
 * Real-git fixtures for tests: temporary repositories with a bare `file://` remote.
 * Independent of the global git config: identities are passed explicitly on every command,
 * signing and hooks are disabled, the default branch is named explicitly.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface Identity {
  name: string;
  email: string;
}

export const HUMAN: Identity = { name: 'Hana Human', email: 'hana@example.com' };
export const BOT: Identity = { name: 'agent-fix[bot]', email: 'agent-fix[bot]@users.noreply.github.com' };

export type GitRunner = (...args: string[]) => string;

export interface RepoFixture {
  /** Work tree of the clone. */
  dir: string;
  /** The bare repository behind `origin`. */
  remoteDir: string;
  /** `file://` URL of the bare repository. */
  remoteUrl: string;
  /** Initial commit (also `main` on the remote). */
  sha: string;
  /** Runs git in `dir` as HUMAN; returns trimmed stdout. */
  git: GitRunner;
}

export interface MakeRepoOptions {
  /** Default `main`. */
  branch?: string;
  /** Author and committer of the initial commit. Default HUMAN. */
  identity?: Identity;
  /** Extra `.gitignore` lines (committed with the initial files). */
  gitignore?: string[];
  message?: string;
}

const created: string[] = [];

function env(identity: Identity): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env };
  for (const k of Object.keys(e)) if (/^GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|COMMON_DIR)$/.test(k)) delete e[k];
  return {
    ...e,
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
    GIT_TERMINAL_PROMPT: '0',
    LC_ALL: 'C',
  };
}

const SAFE = ['-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', '-c', 'core.hooksPath=/dev/null', '-c', 'init.defaultBranch=main', '-c', 'protocol.file.allow=always'];

/** Runs git in `cwd` with `identity` as author and committer. */
export function gitIn(cwd: string, identity: Identity = HUMAN): GitRunner {
  return (...args: string[]) =>
    execFileSync('git', [...SAFE, ...args], { cwd, env: env(identity), encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 * 1024 * 1024 }).trim();
}

export function tempDir(prefix = 'agent-fix-test-'): string {
  const d = mkdtempSync(path.join(tmpdir(), prefix));
  created.push(d);
  return d;
}

/** Removes every directory created by this module (call from afterAll). */
export function cleanupFixtures(): void {
  for (const d of created.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Writes files (null deletes) relative to `dir`, creating parent directories. */
export function writeFiles(dir: string, files: Record<string, string | null>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = path.join(dir, rel);
    if (content === null) {
      rmSync(abs, { force: true, recursive: true });
    } else {
      mkdirSync(path.dirname(abs), { recursive: true });
      writeFileSync(abs, content);
    }
  }
}

/** A repository with one commit of `files` by a fixed human identity, and a bare `origin` holding `main`. */
export function makeRepo(files: Record<string, string>, opts: MakeRepoOptions = {}): RepoFixture {
  const branch = opts.branch ?? 'main';
  const identity = opts.identity ?? HUMAN;
  const root = tempDir();
  const dir = path.join(root, 'work');
  const remoteDir = path.join(root, 'remote.git');
  const remoteUrl = pathToFileURL(remoteDir).href;
  execFileSync('git', [...SAFE, 'init', '-q', '--bare', '-b', branch, remoteDir], { env: env(identity) });
  execFileSync('git', [...SAFE, 'init', '-q', '-b', branch, dir], { env: env(identity) });
  const git = gitIn(dir, identity);
  const all: Record<string, string> = { ...files };
  if (opts.gitignore) all['.gitignore'] = opts.gitignore.join('\n') + '\n';
  writeFiles(dir, all);
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', opts.message ?? 'initial commit');
  git('remote', 'add', 'origin', remoteUrl);
  git('push', '-q', 'origin', `${branch}:refs/heads/${branch}`);
  git('fetch', '-q', 'origin');
  git('branch', '-q', `--set-upstream-to=origin/${branch}`, branch);
  return { dir, remoteDir, remoteUrl, sha: git('rev-parse', 'HEAD'), git };
}

/** A depth-1 clone of `remoteUrl` (what actions/checkout does by default). */
export function cloneShallow(remoteUrl: string, opts: { branch?: string; depth?: number } = {}): { dir: string; git: GitRunner } {
  const dir = path.join(tempDir('agent-fix-shallow-'), 'work');
  const args = ['clone', '-q', '--no-tags', `--depth=${opts.depth ?? 1}`];
  if (opts.branch) args.push('--branch', opts.branch);
  execFileSync('git', [...SAFE, ...args, remoteUrl, dir], { env: env(HUMAN), stdio: 'ignore' });
  return { dir, git: gitIn(dir) };
}

/** A full clone of `remoteUrl`. */
export function cloneFull(remoteUrl: string): { dir: string; git: GitRunner } {
  const dir = path.join(tempDir('agent-fix-clone-'), 'work');
  execFileSync('git', [...SAFE, 'clone', '-q', remoteUrl, dir], { env: env(HUMAN), stdio: 'ignore' });
  return { dir, git: gitIn(dir) };
}

/** Writes `files` (null deletes), stages everything and commits as `identity`; returns the new sha. */
export function commitAs(dir: string, identity: Identity, files: Record<string, string | null>, message: string): string {
  writeFiles(dir, files);
  const git = gitIn(dir, identity);
  git('add', '-A');
  git('commit', '-q', '--allow-empty', '-m', message);
  return git('rev-parse', 'HEAD');
}

/** Every file below `dir` as `{ relative/path: text }` (e.g. to seed makeRepo from a folder). */
export function readTree(dir: string, base = dir): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir)) {
    const abs = path.join(dir, name);
    if (statSync(abs).isDirectory()) Object.assign(out, readTree(abs, base));
    else out[path.relative(base, abs)] = readFileSync(abs, 'utf8');
  }
  return out;
}

/** The tree the checkout would have with `files` written into it; the work tree is put back as it was. */
export async function treeOf(git: { snapshot(): Promise<string>; restore(tree: string): Promise<void> }, dir: string, files: Record<string, string>): Promise<string> {
  const pristine = await git.snapshot();
  writeFiles(dir, files);
  const tree = await git.snapshot();
  await git.restore(pristine);
  return tree;
}
