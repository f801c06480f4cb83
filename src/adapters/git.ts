/**
 * GitPort on the git command line (spawned with execa; every call is one plumbing command).
 *
 * Design notes:
 * - The ambient environment is cleaned of variables that would redirect git elsewhere
 *   (GIT_DIR, GIT_INDEX_FILE, ...) or inject an identity; messages are forced to English
 *   (LC_ALL=C) so rejections can be recognised; prompts are disabled.
 * - Hooks and an fsmonitor never run: every command gets `-c core.hooksPath=/dev/null -c core.fsmonitor=false` (a setup script run by the
 *   harness could otherwise install hooks, e.g. husky) and push gets `--no-verify`.
 * - Filter drivers never run either: `.gitattributes` can route files through `filter.<name>.clean`,
 *   `.smudge` or `.process`, commands that a setup script (or the model's tests) can define in
 *   `.git/config`, and `add -A` (snapshot), `checkout-index` (restore), `update-index --refresh`
 *   and `checkout` would run them. Before each snapshot and checkout the defined drivers are read
 *   (`git config --list --show-origin`, again only when a file the configuration comes from changed:
 *   the checkout's, the global, the system and every included file, by stat) and every one is
 *   blanked through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`
 *   (`filter.x.clean` = ``, ...; an empty command is no filter to git; the environment form, unlike
 *   `-c`, takes a driver name holding `=` verbatim), except Git LFS's own exact commands (`git-lfs
 *   clean -- %f`, ...), whose files the guard protects anyway (workspace/repo-state.ts).
 * - Error messages are redacted: `scheme://user:pass@host` becomes `scheme://***@host`.
 * - Tree arguments accept any tree-ish (`<commit>^{tree}` works too).
 */
import { execa } from 'execa';
import { mkdtemp, rm, copyFile, unlink, rmdir, lstat, readFile, stat, utimes } from 'node:fs/promises';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';
import type { CommitInfo, FileChange, GitPort, Identity, PushResult, ReplayResult } from '../ports/git.js';
import { CONFIG_LIST_ARGS, configSources, defaultConfigFiles, filterOverrides, withConfig } from '../ports/git-filters.js';

export { filterOverrides };

export interface OpenGitOptions {
  log?: (m: string) => void;
  /**
   * The token agent-fix fetches and pushes with (the `github-token` input), given to git only for
   * those commands, through GIT_CONFIG_COUNT (never in a file), for `serverUrl` (https) only.
   * Without it the checkout's own credential is used (actions/checkout with persist-credentials).
   */
  auth?: { token: string; serverUrl: string };
}

/** Thrown for git failures; the message is already redacted. */
export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitCommandError';
  }
}

/** Replaces credentials embedded in URLs (`https://user:token@host`) with `***`. */
export function redactUrls(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@');
}

const UNSAFE_ENV = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_EXTERNAL_DIFF',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_PAGER',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_PROXY_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_PARAMETERS',
]);

/** The action's own secrets never reach a git process (nor anything git starts). */
const SECRET_ENV = /^(INPUT_|ACTIONS_)|^GITHUB_TOKEN$/i;
/** Names that hold secrets by convention (redact.ts's SECRET_NAME; adapters import nothing above them). */
const SECRET_NAME = /TOKEN|SECRET|PASSW(?:OR)?D|API[_-]?KEY|PRIVATE|CREDENTIAL|AUTH(?!OR)/i;

/** Temp of agent-fix's own git (indexes, the global configuration's copy), as it was at start: never the sandbox's. */
const PRIVATE_TMP = tmpdir();

let globalCopy: string | null = null;
/**
 * agent-fix's git reads no system configuration and, as global configuration, a copy of the user's
 * made the first time agent-fix's git runs (before any repository command): a `~/.gitconfig` a
 * command wrote later (`url.<x>.insteadOf`, `core.sshCommand`, a credential helper) is never read.
 */
function globalConfigCopy(): string {
  if (globalCopy) return globalCopy;
  const home = process.env.HOME || homedir();
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  const text = [path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig')]
    .filter((f) => existsSync(f))
    .map((f) => {
      try {
        return readFileSync(f, 'utf8');
      } catch {
        return '';
      }
    })
    .join('\n');
  const dir = mkdtempSync(path.join(PRIVATE_TMP, 'agent-fix-gitconfig-'));
  globalCopy = path.join(dir, 'global');
  writeFileSync(globalCopy, text, { mode: 0o600 });
  removeAtExit(dir);
  return globalCopy;
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || UNSAFE_ENV.has(k.toUpperCase()) || SECRET_ENV.test(k) || SECRET_NAME.test(k)) continue;
    env[k] = v;
  }
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_PAGER = 'cat';
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_CONFIG_GLOBAL = globalConfigCopy();
  return env;
}

/**
 * What agent-fix's fetch and push may use: https, and file only for a local remote (tests); no
 * ssh, no `ext::`, no other transport, whatever `url.<x>.insteadOf` says; no credential helper,
 * askpass or ssh command from any configuration. Pure.
 */
export function transportConfig(remoteUrl: string | null): string[] {
  const local = remoteUrl !== null && (remoteUrl.startsWith('file://') || remoteUrl.startsWith('/'));
  return [
    '-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', `protocol.file.allow=${local ? 'always' : 'never'}`,
    '-c', 'credential.helper=', '-c', 'core.askPass=', '-c', 'core.sshCommand=false',
  ];
}

/** The header pair for the push token, resetting any extraheader a configuration carries for that server. Pure. */
export function authConfig(auth: { token: string; serverUrl: string } | undefined, remoteUrl: string | null): [string, string][] {
  if (!auth || !auth.token || !remoteUrl) return [];
  const server = auth.serverUrl.replace(/\/+$/, '');
  if (!/^https:\/\//.test(server) || !remoteUrl.startsWith(`${server}/`)) return [];
  const key = `http.${server}/.extraheader`;
  return [[key, ''], [key, `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${auth.token}`).toString('base64')}`]];
}

// core.fsmonitor names a command git runs on index reads: a setup script could set it like a hook.
const GLOBAL_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.quotepath=false'];

interface RunOptions {
  env?: Record<string, string>;
  input?: string;
  /** Exit codes that are not failures (default: [0]). */
  ok?: number[];
}

interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

const SHA_RE = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

const indexDirs = new Set<string>();
/** Snapshot indexes live as long as the process; one exit hook removes them all. */
function removeAtExit(dir: string): void {
  if (indexDirs.size === 0) process.once('exit', () => indexDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  indexDirs.add(dir);
}

/** The command-line GitPort, with how often it read the configuration (the filter drivers). */
export type CliGitPort = GitPort & { readonly configReads: number };

/** The oldest git that honours `GIT_CONFIG_COUNT`, which keeps the checkout's filter drivers from running. */
export const MIN_GIT_VERSION: readonly [number, number] = [2, 31];

/** Thrown by openGit when git is missing or older than MIN_GIT_VERSION; the message says what to do. */
export class GitVersionError extends Error {
  override name = 'GitVersionError';
}

/** `git version` output (`git version 2.39.5`, `2.45.1.windows.1`, `2.39.3 (Apple Git-145)`) as [major, minor], or null. */
export function parseGitVersion(out: string): [number, number] | null {
  const m = /^git version (\d+)\.(\d+)/m.exec(out.trim());
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** Why this `git version` output cannot serve (missing, unreadable, older than MIN_GIT_VERSION), or null. Pure. */
export function gitVersionProblem(out: string): string | null {
  const v = parseGitVersion(out);
  const [major, minor] = MIN_GIT_VERSION;
  if (!v) return `git could not be run or did not say its version (${out.trim() || 'no output'}); agent-fix needs git ${major}.${minor} or later on PATH.`;
  if (v[0] > major || (v[0] === major && v[1] >= minor)) return null;
  return `git ${v[0]}.${v[1]} is too old: agent-fix needs git ${major}.${minor} or later (GIT_CONFIG_COUNT, with which its own git calls keep the checkout's filter drivers from running). Install a newer git on the runner (e.g. from the git-core PPA on Ubuntu), or use a current GitHub-hosted runner.`;
}

let gitChecked: Promise<void> | null = null;

/** Once per process: a git too old to blank the filter drivers is refused before any git call on the checkout. */
function checkGitVersion(): Promise<void> {
  gitChecked ??= (async () => {
    const r = await execa('git', ['version'], { env: baseEnv(), extendEnv: false, reject: false }).catch(() => null);
    const problem = gitVersionProblem(r && r.exitCode === 0 ? String(r.stdout) : '');
    if (problem) throw new GitVersionError(problem);
  })();
  return gitChecked;
}

export async function openGit(root: string, opts: OpenGitOptions = {}): Promise<CliGitPort> {
  await checkGitVersion();
  const dir = path.resolve(root);
  let top: string;
  try {
    const inside = await execa('git', [...GLOBAL_CONFIG, 'rev-parse', '--is-inside-work-tree'], {
      cwd: dir,
      env: baseEnv(),
      extendEnv: false,
      reject: false,
    });
    if (inside.exitCode !== 0 || String(inside.stdout).trim() !== 'true') throw new Error('no');
    const t = await execa('git', [...GLOBAL_CONFIG, 'rev-parse', '--show-toplevel'], {
      cwd: dir,
      env: baseEnv(),
      extendEnv: false,
      reject: false,
    });
    if (t.exitCode !== 0) throw new Error('no');
    top = String(t.stdout).trim();
  } catch {
    throw new Error(`not a git repository: ${dir}`);
  }
  const git = new CliGit(top, opts.log ?? (() => {}), opts.auth);
  await git.pinConfig();
  return git;
}

class CliGit implements GitPort {
  /** Remote of the last fetchBranch; used to deepen a shallow clone. */
  private lastRemote = 'origin';
  /** Configuration blanking the filter drivers defined when last looked (refreshFilters), on every command. */
  private filterOff: Record<string, string> = {};

  constructor(
    readonly root: string,
    private readonly log: (m: string) => void,
    private readonly auth?: { token: string; serverUrl: string },
  ) {}

  /** The repository's configuration file and its digest when the adapter was opened, and origin's URL then. */
  private pinned: { file: string; digest: string; originUrl: string | null } | null = null;

  /** Remembers `.git/config` and origin's URL before any repository command runs. */
  async pinConfig(): Promise<void> {
    const file = path.resolve(this.root, await this.out(['rev-parse', '--git-path', 'config']));
    const url = await this.run(['config', '--local', '--get', 'remote.origin.url'], { ok: [0, 1] });
    this.pinned = { file, digest: fileDigest(file), originUrl: url.exitCode === 0 ? url.stdout.trim() || null : null };
  }

  /**
   * Before a fetch or a push: `.git/config` must be as it was when agent-fix started (a command
   * could have added a transport, a proxy or an insteadOf there); the arguments and environment
   * that pin the transport, the URL (origin's, as it was then) and the token for this command.
   */
  private async network(remote: string, withAuth: boolean): Promise<{ args: string[]; url: string; env: Record<string, string> }> {
    const p = this.pinned;
    if (p && fileDigest(p.file) !== p.digest) {
      throw new GitCommandError(`the repository's git configuration (${p.file}) changed since agent-fix started (a setup or test command wrote it): agent-fix does not fetch or push with it`, null, '');
    }
    const url = remote === 'origin' && p?.originUrl ? p.originUrl : remote;
    const pairs = withAuth ? authConfig(this.auth, url) : [];
    return { args: transportConfig(p?.originUrl ?? null), url, env: withConfig(this.filterOff, pairs) };
  }

  // ------------------------------------------------------------------ plumbing
  private async run(args: string[], o: RunOptions = {}): Promise<RunResult> {
    const env = { ...baseEnv(), ...this.filterOff, ...(o.env ?? {}) };
    let r;
    try {
      r = await execa('git', [...GLOBAL_CONFIG, ...args], {
        cwd: this.root,
        env,
        extendEnv: false,
        reject: false,
        stripFinalNewline: false,
        input: o.input ?? '',
        maxBuffer: 512 * 1024 * 1024,
      });
    } catch (e) {
      throw new GitCommandError(redactUrls(`git ${args[0]} could not start: ${(e as Error).message}`), null, '');
    }
    const stdout = String(r.stdout ?? '');
    const stderr = String(r.stderr ?? '');
    const exitCode = typeof r.exitCode === 'number' ? r.exitCode : -1;
    if (!(o.ok ?? [0]).includes(exitCode)) {
      const why = r.failed && exitCode === -1 ? (r.shortMessage ?? 'failed') : stderr.trim() || stdout.trim();
      throw new GitCommandError(
        redactUrls(`git ${args.join(' ')} failed (exit ${exitCode}): ${why}`),
        exitCode,
        redactUrls(stderr),
      );
    }
    return { stdout, stderr, exitCode };
  }

  private async out(args: string[], o: RunOptions = {}): Promise<string> {
    return (await this.run(args, o)).stdout.trim();
  }

  /** Runs `fn` with a private index file (GIT_INDEX_FILE) seeded by `seed`; the real index is never touched. */
  private async withTempIndex<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(PRIVATE_TMP, 'agent-fix-index-'));
    try {
      return await fn({ GIT_INDEX_FILE: path.join(dir, 'index') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  private async hasHead(): Promise<boolean> {
    const r = await this.run(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { ok: [0, 1, 128] });
    return r.exitCode === 0;
  }

  // ------------------------------------------------------------------ GitPort
  async headSha(): Promise<string> {
    return this.out(['rev-parse', '--verify', 'HEAD^{commit}']);
  }

  /**
   * A snapshot is `add -A` + `write-tree` on a private index that lives as long as this object:
   * seeded once from HEAD (through the real index, whose stat cache spares re-hashing unchanged
   * files), then kept in step with the working tree, so each later snapshot costs two git calls.
   */
  async snapshot(): Promise<string> {
    await this.refreshFilters();
    const env = await this.snapshotIndex();
    await this.run(['add', '-A', '--', '.', ...(await this.gitlinkExcludes(env))], { env });
    const tree = await this.out(['write-tree'], { env });
    this.knownTrees.add(tree);
    return tree;
  }

  /**
   * Reads the filter drivers defined now (a setup script or a test may have added one since) and
   * blanks them. Skipped when none of the files git reads its configuration from (the checkout's,
   * the global and system ones, every file a value came from or an include names) changed since
   * the last read: a write changes a file's ctime, an atomic replace its inode.
   */
  private async refreshFilters(): Promise<void> {
    const watched = this.filterWatch;
    if (watched && watched.state !== 'racy' && (await fileStates(watched.files)) === watched.state) return;
    const defaults = await this.defaultConfigFiles();
    const stated = [...new Set([...defaults, ...(watched?.files ?? [])])];
    // stated before the read: a write during the read shows as a change next time
    const before = await fileStates(stated);
    // the configuration as defined (files, includes), without the blanks of the last look
    const r = await this.run(CONFIG_LIST_ARGS, { ok: [0, 1], env: { GIT_CONFIG_COUNT: '0' } });
    const sources = configSources(r.stdout, this.root, process.env.HOME);
    this.filterOff = filterOverrides(sources.filters);
    const added = sources.files.filter((f) => !stated.includes(f));
    const after = await fileStates(added);
    this.filterWatch = { files: [...stated, ...added], state: before === 'racy' || after === 'racy' ? 'racy' : [before, after].filter(Boolean).join('\n') };
    this.configReads++;
  }

  /** How often the configuration was read (refreshFilters); for the tests. */
  configReads = 0;
  private filterWatch: { files: string[]; state: string } | null = null;
  private configFiles: string[] | null = null;

  private async defaultConfigFiles(): Promise<string[]> {
    if (this.configFiles) return this.configFiles;
    const [gitDir, commonDir] = (await this.out(['rev-parse', '--absolute-git-dir', '--git-common-dir'])).split('\n');
    const execPath = await this.out(['--exec-path']);
    this.configFiles = defaultConfigFiles({ gitDir, commonDir: path.resolve(this.root, commonDir), execPath, env: process.env });
    return this.configFiles;
  }

  private snapshotEnv: Record<string, string> | null = null;
  /** Trees this object wrote: restore() need not verify them. */
  private readonly knownTrees = new Set<string>();

  /**
   * Submodules stay as HEAD records them: a setup's `git submodule update --init` checks one out
   * with its git directory in the sandbox's layer over `.git` (sandbox/plan.ts), which agent-fix's
   * own git never reads, so `add` would fail on it; and no change of agent-fix's moves a submodule.
   */
  private async gitlinkExcludes(env: Record<string, string>): Promise<string[]> {
    if (this.gitlinks === null) {
      const staged = (await this.run(['ls-files', '-s', '-z'], { env })).stdout.split('\0');
      this.gitlinks = staged.filter((e) => e.startsWith('160000 ')).map((e) => e.slice(e.indexOf('\t') + 1));
    }
    return this.gitlinks.map((p) => `:(exclude,literal,top)${p}`);
  }

  private gitlinks: string[] | null = null;

  private async snapshotIndex(): Promise<Record<string, string>> {
    if (this.snapshotEnv) return this.snapshotEnv;
    const dir = await mkdtemp(path.join(PRIVATE_TMP, 'agent-fix-index-'));
    removeAtExit(dir);
    const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
    if (await this.hasHead()) {
      const realIndex = path.resolve(this.root, await this.out(['rev-parse', '--git-path', 'index']));
      let seeded = false;
      try {
        await copyFile(realIndex, env.GIT_INDEX_FILE);
        // Keep the index's own mtime: git's racy-clean check compares file mtimes with it, and a
        // fresh mtime would make a same-size edit made in the same second as the checkout look
        // unchanged (the edit would be lost from the snapshot). __tests__/integration/git-racy.test.ts
        const st = await stat(realIndex);
        await utimes(env.GIT_INDEX_FILE, st.atime, st.mtime);
        // content equal to HEAD whatever the user staged; the stat cache is what we keep
        await this.run(['read-tree', '-m', 'HEAD'], { env });
        seeded = true;
      } catch {
        seeded = false;
      }
      if (!seeded) {
        await rm(env.GIT_INDEX_FILE, { force: true });
        await this.run(['read-tree', 'HEAD'], { env });
      }
    } else {
      await this.run(['read-tree', '--empty'], { env });
    }
    this.snapshotEnv = env;
    return env;
  }

  async restore(tree: string): Promise<void> {
    const target = this.knownTrees.has(tree) ? tree : await this.out(['rev-parse', '--verify', `${tree}^{tree}`]);
    const current = await this.snapshot();
    if (current === target) return;
    const raw = await this.out(['diff-tree', '-r', '--no-renames', '-z', current, target]);
    const toDelete: string[] = [];
    const toWrite: string[] = [];
    for (const e of parseRaw(raw)) {
      if (!isSafeRelPath(e.path)) throw new Error(`refusing to restore unsafe path ${JSON.stringify(e.path)}`);
      if (e.status === 'D') {
        if (e.srcMode !== '160000') toDelete.push(e.path);
      } else if (e.status === 'T' && e.srcMode === '160000') {
        // a submodule became a file: leave the directory alone, cannot be written safely
        continue;
      } else if (e.dstMode !== '160000') {
        toWrite.push(e.path);
      }
    }
    const dirs = new Set<string>();
    for (const p of toDelete) {
      const abs = path.join(this.root, p);
      await unlink(abs).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      for (let d = path.posix.dirname(p); d !== '.' && d !== '/'; d = path.posix.dirname(d)) dirs.add(d);
    }
    // Remove directories left empty, deepest first (rmdir fails on non-empty ones: ignored files survive).
    for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
      await rmdir(path.join(this.root, d)).catch(() => {});
    }
    if (toWrite.length > 0) {
      await this.withTempIndex(async (env) => {
        await this.run(['read-tree', target], { env });
        // A file being replaced by a directory (or the reverse) must go first.
        for (const p of toWrite) await this.clearPathConflicts(p);
        await this.run(['checkout-index', '-f', '-q', '-z', '--stdin'], { env, input: toWrite.join('\0') + '\0' });
      });
    }
    // Refresh stat info of the real index only (never changes what is staged).
    await this.run(['update-index', '-q', '--refresh'], { ok: [0, 1] }).catch(() => {});
  }

  /** If a parent of `p` exists as a non-directory, remove it so the file can be written. */
  private async clearPathConflicts(p: string): Promise<void> {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const abs = path.join(this.root, ...parts.slice(0, i));
      const st = await lstat(abs).catch(() => null);
      if (!st) return;
      if (!st.isDirectory()) {
        await unlink(abs);
        return;
      }
    }
  }

  async diff(fromTree: string, toTree: string): Promise<string> {
    return (
      await this.run(['diff-tree', '-r', '-p', '-M', '--no-color', '--no-ext-diff', '--no-textconv', fromTree, toTree])
    ).stdout;
  }

  async changes(fromTree: string, toTree: string): Promise<FileChange[]> {
    const { raw, numstat } = parseRawNumstat((await this.run(['diff-tree', '-r', '-M', '-z', '--raw', '--numstat', fromTree, toTree])).stdout);
    const stats = parseNumstat(numstat);
    const result: FileChange[] = [];
    for (const e of parseRaw(raw)) {
      const s = stats.get(e.path) ?? { additions: 0, deletions: 0, binary: false };
      const status: FileChange['status'] =
        e.status === 'A' || e.status === 'C'
          ? 'added'
          : e.status === 'D'
            ? 'deleted'
            : e.status === 'R'
              ? 'renamed'
              : 'modified';
      const change: FileChange = { path: e.path, status, additions: s.additions, deletions: s.deletions, binary: s.binary };
      if (e.oldPath !== undefined) change.oldPath = e.oldPath;
      result.push(change);
    }
    return result;
  }

  async listFiles(): Promise<string[]> {
    const all = splitZ((await this.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard'])).stdout);
    const deleted = new Set(splitZ((await this.run(['ls-files', '-z', '--deleted'])).stdout));
    const set = new Set<string>();
    for (const f of all) if (!deleted.has(f)) set.add(f.split(path.sep).join('/'));
    return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async isIgnored(rel: string): Promise<boolean> {
    return (await this.run(['check-ignore', '-q', '--', rel], { ok: [0, 1] })).exitCode === 0;
  }

  async commitTree(tree: string, parent: string | string[], message: string, author: Identity): Promise<string> {
    const env = {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: author.name,
      GIT_COMMITTER_EMAIL: author.email,
    };
    const msg = message.endsWith('\n') ? message : `${message}\n`;
    const parents = (Array.isArray(parent) ? parent : [parent]).flatMap((p) => ['-p', p]);
    return this.out(['-c', 'commit.gpgsign=false', 'commit-tree', '--no-gpg-sign', tree, ...parents], {
      env,
      input: msg,
    });
  }

  async fetchBranch(remote: string, branch: string): Promise<string | null> {
    await this.checkBranchName(branch);
    this.lastRemote = remote;
    const dst = trackingRef(remote, branch);
    const net = await this.network(remote, true);
    const r = await this.run(
      [...net.args, 'fetch', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', net.url, `+refs/heads/${branch}:${dst}`],
      { ok: [0, 1, 128], env: net.env },
    );
    if (r.exitCode !== 0) {
      if (/couldn't find remote ref|could not find remote ref/i.test(r.stderr)) {
        // The branch is gone on the remote: drop a stale tracking ref so nobody trusts it.
        await this.run(['update-ref', '-d', dst], { ok: [0, 1, 128] });
        return null;
      }
      throw new GitCommandError(
        redactUrls(`could not fetch branch ${branch} from ${remote} (exit ${r.exitCode}): ${r.stderr.trim()}`),
        r.exitCode,
        redactUrls(r.stderr),
      );
    }
    return this.out(['rev-parse', '--verify', `${dst}^{commit}`]);
  }

  async commitsBetween(base: string, tip: string): Promise<CommitInfo[]> {
    await this.ensureHistory(base, tip, async () => {
      if (!(await this.hasCommits(base, tip))) return false;
      const rows = await this.revListParents(tip, base);
      // A parentless commit here is either a shallow boundary (history cut) or a root commit
      // that base's truncated history could not exclude: either way the answer is not reliable.
      return rows.every((r) => r.parents.length > 0);
    });
    const fmt = '%H%x1f%an%x1f%ae%x1f%ce%x1f%s%x1e';
    const out = (await this.run(['log', `--format=${fmt}`, tip, `^${base}`, '--'])).stdout;
    const commits: CommitInfo[] = [];
    for (const rec of out.split('\x1e')) {
      const [sha, authorName, authorEmail, committerEmail, subject] = rec.replace(/^\n+/, '').split('\x1f');
      if (!sha || subject === undefined) continue;
      commits.push({ sha, authorName, authorEmail, committerEmail, subject });
    }
    return commits;
  }

  async readCommit(sha: string): Promise<CommitInfo & { message: string }> {
    // The message comes last and is taken whole (it may contain the separator).
    const out = (await this.run(['log', '-1', '--format=%H%x1f%an%x1f%ae%x1f%ce%x1f%B', sha, '--'])).stdout;
    const [id, authorName, authorEmail, committerEmail, ...rest] = out.split('\x1f');
    const message = rest.join('\x1f').replace(/\n+$/, '');
    return { sha: id, authorName, authorEmail, committerEmail, subject: message.split('\n')[0], message };
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const ask = async () =>
      (await this.run(['merge-base', '--is-ancestor', ancestor, descendant], { ok: [0, 1] })).exitCode === 0;
    await this.ensureHistory(ancestor, descendant, async () => {
      if (!(await this.hasCommits(ancestor, descendant))) return false;
      if (await ask()) return true; // a local path is a real path
      // "no" is only trustworthy if the walk from `descendant` was not cut by a shallow boundary
      const shallow = await this.shallowSet();
      const rows = await this.revListParents(descendant, ancestor);
      return rows.every((row) => !shallow.has(row.sha));
    });
    return ask();
  }

  async push(remote: string, sha: string, branch: string, expected: string | null): Promise<PushResult> {
    await this.checkBranchName(branch);
    const ref = `refs/heads/${branch}`;
    const lease = `--force-with-lease=${ref}:${expected ?? ''}`;
    const net = await this.network(remote, true);
    const r = await this.run([...net.args, 'push', '--porcelain', '--no-verify', lease, net.url, `${sha}:${ref}`], {
      ok: [0, 1, 128],
      env: net.env,
    });
    const refLine = r.stdout.split('\n').find((l) => l.includes(`\t${sha}:${ref}\t`) || l.includes(`:${ref}\t`));
    if (r.exitCode === 0 && !(refLine && refLine.startsWith('!'))) {
      await this.run(['update-ref', trackingRef(remote, branch), sha], { ok: [0, 1, 128] });
      return { kind: 'pushed', sha };
    }
    if (refLine && refLine.startsWith('!')) {
      const summary = refLine.split('\t').slice(2).join(' ').trim();
      const remoteLines = r.stderr
        .split('\n')
        .filter((l) => /^remote:/.test(l) || /^(error|hint):/.test(l))
        .map((l) => l.trim())
        .filter((l) => l && l !== 'remote:');
      const reason = redactUrls([summary, ...remoteLines].filter(Boolean).join('\n'));
      this.log(`push of ${branch} rejected: ${summary}`);
      return { kind: 'rejected', reason: reason || 'rejected by the remote' };
    }
    throw new GitCommandError(
      redactUrls(`could not push ${branch} to ${remote} (exit ${r.exitCode}): ${r.stderr.trim()}`),
      r.exitCode,
      redactUrls(r.stderr),
    );
  }

  async replayCommits(p: { from: string; to: string; onto: string; identity: Identity }): Promise<ReplayResult> {
    await this.ensureHistory(p.from, p.to, async () => this.hasCommits(p.from, p.to));
    const dir = await mkdtemp(path.join(PRIVATE_TMP, 'agent-fix-replay-'));
    const env = { GIT_COMMITTER_NAME: p.identity.name, GIT_COMMITTER_EMAIL: p.identity.email, GIT_LFS_SKIP_SMUDGE: '1' };
    try {
      await this.run(['worktree', 'add', '--detach', '--quiet', dir, p.onto], { env });
      const inTree = (args: string[], ok: number[] = [0]) =>
        execa('git', [...GLOBAL_CONFIG, '-c', 'commit.gpgsign=false', ...args], { cwd: dir, env: { ...baseEnv(), ...env }, extendEnv: false, reject: false }).then((r) => {
          if (!ok.includes(r.exitCode ?? -1)) throw new GitCommandError(`git ${args[0]} failed (exit ${r.exitCode}): ${String(r.stderr).trim()}`, r.exitCode ?? null, String(r.stderr));
          return r;
        });
      const picked = await inTree(['cherry-pick', '--allow-empty', '--keep-redundant-commits', `${p.from}..${p.to}`], [0, 1]);
      if (picked.exitCode !== 0) {
        const files = String((await inTree(['diff', '--name-only', '--diff-filter=U'])).stdout).split('\n').filter(Boolean);
        const at = String((await inTree(['log', '-1', '--format=%s', 'CHERRY_PICK_HEAD'], [0, 128])).stdout).trim();
        await inTree(['cherry-pick', '--abort'], [0, 128]);
        return { kind: 'conflict', files, at };
      }
      return { kind: 'done', sha: String((await inTree(['rev-parse', 'HEAD'])).stdout).trim() };
    } finally {
      await this.run(['worktree', 'remove', '--force', dir], { ok: [0, 1, 128] });
      await this.run(['worktree', 'prune'], { ok: [0, 1, 128] });
      await rm(dir, { recursive: true, force: true });
    }
  }

  async mergeCommit(p: { ours: string; theirs: string; message: string; identity: Identity }): Promise<ReplayResult> {
    await this.ensureHistory(p.ours, p.theirs, async () => (await this.localMergeBase(p.ours, p.theirs)) !== null);
    const r = await this.run(['merge-tree', '--write-tree', '--name-only', '--no-messages', p.ours, p.theirs], { ok: [0, 1] });
    const [tree, ...files] = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    if (r.exitCode === 1) return { kind: 'conflict', files: [...new Set(files)], at: `merge of ${p.theirs.slice(0, 12)}` };
    const env = { GIT_AUTHOR_NAME: p.identity.name, GIT_AUTHOR_EMAIL: p.identity.email, GIT_COMMITTER_NAME: p.identity.name, GIT_COMMITTER_EMAIL: p.identity.email };
    const msg = p.message.endsWith('\n') ? p.message : `${p.message}\n`;
    const sha = await this.out(['-c', 'commit.gpgsign=false', 'commit-tree', '--no-gpg-sign', tree, '-p', p.ours, '-p', p.theirs], { env, input: msg });
    return { kind: 'done', sha };
  }

  async mergeTree(ours: string, theirs: string): Promise<{ tree: string; conflicts: string[] }> {
    await this.ensureHistory(ours, theirs, async () => (await this.localMergeBase(ours, theirs)) !== null);
    const r = await this.run(['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs], { ok: [0, 1] });
    const [tree, ...files] = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    return { tree, conflicts: r.exitCode === 1 ? [...new Set(files)] : [] };
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    // A shallow clone may hold too little history to see the fork point: fetch more first (a
    // history that stays unrelated after unshallowing is simply unrelated).
    await this.ensureHistory(a, b, async () => (await this.localMergeBase(a, b)) !== null).catch(() => undefined);
    return this.localMergeBase(a, b);
  }

  private async localMergeBase(a: string, b: string): Promise<string | null> {
    const r = await this.run(['merge-base', a, b], { ok: [0, 1] });
    return r.exitCode === 0 ? r.stdout.trim() : null;
  }

  async setLocalBranch(branch: string, sha: string): Promise<void> {
    await this.checkBranchName(branch);
    const ref = `refs/heads/${branch}`;
    const head = await this.run(['symbolic-ref', '-q', 'HEAD'], { ok: [0, 1, 128] });
    if (head.exitCode === 0 && head.stdout.trim() === ref) {
      throw new Error(`refusing to move ${branch}: it is the checked-out branch`);
    }
    const commit = await this.out(['rev-parse', '--verify', `${sha}^{commit}`]);
    await this.run(['update-ref', '-m', 'agent-fix: publish', ref, commit]);
  }

  async localBranchSha(branch: string): Promise<string | null> {
    await this.checkBranchName(branch);
    const r = await this.run(['rev-parse', '-q', '--verify', `refs/heads/${branch}^{commit}`], { ok: [0, 1, 128] });
    return r.exitCode === 0 ? r.stdout.trim() : null;
  }

  async checkoutDetached(remote: string, sha: string): Promise<void> {
    if (!SHA_RE.test(sha)) throw new Error(`not a full commit id: ${JSON.stringify(sha)}`);
    if (!(await this.hasCommits(sha))) {
      this.lastRemote = remote;
      // A shallow clone (actions/checkout's default) fetches just that commit; a full one its history.
      const depth = (await this.isShallow()) ? ['--depth=1'] : [];
      const net = await this.network(remote, true);
      const r = await this.run([...net.args, 'fetch', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', ...depth, net.url, sha], { ok: [0, 1, 128], env: net.env });
      if (r.exitCode !== 0 || !(await this.hasCommits(sha))) {
        throw new GitCommandError(
          redactUrls(`could not fetch commit ${sha} from ${remote} (exit ${r.exitCode}): ${r.stderr.trim() || 'not found'}. It may have been force-pushed away; re-run the failed workflow on the current branch head.`),
          r.exitCode,
          redactUrls(r.stderr),
        );
      }
    }
    await this.refreshFilters();
    const r = await this.run(['-c', 'advice.detachedHead=false', 'checkout', '-q', '--detach', sha, '--'], { ok: [0, 1, 128] });
    if (r.exitCode !== 0) {
      throw new GitCommandError(redactUrls(`could not check out ${sha} (exit ${r.exitCode}): ${r.stderr.trim()}. The checkout must be clean.`), r.exitCode, redactUrls(r.stderr));
    }
    // HEAD moved: the next snapshot seeds its index from the new HEAD.
    this.snapshotEnv = null;
  }

  // ------------------------------------------------------------------ helpers
  private async checkBranchName(branch: string): Promise<void> {
    const r = await this.run(['check-ref-format', '--branch', branch], { ok: [0, 1, 128] });
    if (r.exitCode !== 0 || branch.startsWith('-')) throw new Error(`invalid branch name: ${JSON.stringify(branch)}`);
  }

  private async hasCommits(...shas: string[]): Promise<boolean> {
    for (const s of shas) {
      const r = await this.run(['cat-file', '-e', `${s}^{commit}`], { ok: [0, 1, 128] });
      if (r.exitCode !== 0) return false;
    }
    return true;
  }

  private async isShallow(): Promise<boolean> {
    return (await this.out(['rev-parse', '--is-shallow-repository'])) === 'true';
  }

  private async shallowSet(): Promise<Set<string>> {
    const file = path.resolve(this.root, await this.out(['rev-parse', '--git-path', 'shallow']));
    const text = await readFile(file, 'utf8').catch(() => '');
    return new Set(text.split('\n').map((s) => s.trim()).filter(Boolean));
  }

  private async revListParents(tip: string, base: string): Promise<{ sha: string; parents: string[] }[]> {
    const out = await this.out(['rev-list', '--parents', tip, `^${base}`, '--']);
    return out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, ...parents] = l.trim().split(' ');
        return { sha, parents };
      });
  }

  /**
   * In a shallow clone, deepens history until `reliable()` holds (or the clone is complete).
   * Steps: --deepen by growing amounts (wanting the two commits, else the configured refspec),
   * then --unshallow.
   */
  private async ensureHistory(a: string, b: string, reliable: () => Promise<boolean>): Promise<void> {
    for (const depth of [50, 500, 0]) {
      if (!(await this.isShallow())) return;
      if (await reliable()) return;
      const remote = this.lastRemote;
      const flag = depth > 0 ? `--deepen=${depth}` : '--unshallow';
      this.log(`shallow clone: fetching more history (${flag}) from ${remote}`);
      const wants = [a, b].filter((x) => SHA_RE.test(x));
      const withShas = await this.run(['fetch', '--no-tags', '--no-write-fetch-head', flag, remote, ...wants], {
        ok: [0, 1, 128],
      });
      if (withShas.exitCode !== 0 || wants.length === 0) {
        await this.run(['fetch', '--no-tags', flag, remote]);
      }
    }
    if (await this.isShallow()) {
      if (!(await reliable())) {
        throw new Error('shallow clone: could not fetch enough history to compare commits');
      }
    }
  }
}

function fileDigest(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return 'absent';
  }
}

function trackingRef(remote: string, branch: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(remote) ? `refs/remotes/${remote}/${branch}` : `refs/agent-fix/fetched/${branch}`;
}

/** A repo-relative path that stays inside the work tree and outside `.git`. */
function isSafeRelPath(p: string): boolean {
  if (!p || p.startsWith('/') || p.includes('\0')) return false;
  return p.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && part.toLowerCase() !== '.git');
}

function splitZ(s: string): string[] {
  return s.split('\0').filter((x) => x.length > 0);
}

interface RawEntry {
  srcMode: string;
  dstMode: string;
  status: string;
  path: string;
  oldPath?: string;
}

/** Parses `diff-tree -z --raw` output. */
function parseRaw(out: string): RawEntry[] {
  const t = out.split('\0');
  const entries: RawEntry[] = [];
  let i = 0;
  while (i < t.length) {
    const head = t[i];
    if (!head || !head.startsWith(':')) {
      i++;
      continue;
    }
    const [srcMode, dstMode, , , statusField] = head.slice(1).split(' ');
    const status = statusField.charAt(0);
    if (status === 'R' || status === 'C') {
      entries.push({ srcMode, dstMode, status, oldPath: t[i + 1], path: t[i + 2] });
      i += 3;
    } else {
      entries.push({ srcMode, dstMode, status, path: t[i + 1] });
      i += 2;
    }
  }
  return entries;
}

/** Splits `diff-tree -z --raw --numstat` output: the raw records (each `:<modes> <shas> <status>` then one or two paths) come first. */
function parseRawNumstat(out: string): { raw: string; numstat: string } {
  const t = out.split('\0');
  let i = 0;
  while (i < t.length && /^:\d{6} \d{6} [0-9a-f]+ [0-9a-f]+ [A-Z]\d*$/.test(t[i])) i += /^[RC]/.test(t[i].split(' ')[4]) ? 3 : 2;
  return { raw: t.slice(0, i).join('\0'), numstat: t.slice(i).join('\0') };
}

/**
 * Each file's state (inode, size, change and modification times), or `-` when it does not exist,
 * in one string; `racy` when a file changed within the last 2 s on a file system with whole-second
 * timestamps (a second write in the same tick could keep all four), which never equals a later state.
 */
async function fileStates(files: string[]): Promise<string> {
  const recent = (BigInt(Date.now()) - 2000n) * 1_000_000n;
  let racy = false;
  const states = await Promise.all(
    files.map(async (f) => {
      const st = await stat(f, { bigint: true }).catch(() => null);
      if (st && st.ctimeNs >= recent && st.ctimeNs % 1_000_000_000n === 0n) racy = true;
      return st ? `${f}:${st.ino}:${st.size}:${st.ctimeNs}:${st.mtimeNs}` : `${f}:-`;
    }),
  );
  return racy ? 'racy' : states.join('\n');
}

/** Parses `diff-tree -z --numstat` output, keyed by the new path. */
function parseNumstat(out: string): Map<string, { additions: number; deletions: number; binary: boolean }> {
  const t = out.split('\0');
  const m = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  let i = 0;
  while (i < t.length) {
    const rec = t[i];
    if (!rec) {
      i++;
      continue;
    }
    // added, deleted, path: the path may hold tabs itself (-z leaves it unquoted)
    const [a, d] = rec.split('\t', 2);
    const p = rec.split('\t').slice(2).join('\t');
    const binary = a === '-' && d === '-';
    const stat = { additions: binary ? 0 : Number(a), deletions: binary ? 0 : Number(d), binary };
    if (p === '') {
      // rename/copy: "a\td\t" NUL old NUL new
      m.set(t[i + 2], stat);
      i += 3;
    } else {
      m.set(p, stat);
      i += 1;
    }
  }
  return m;
}
