/**
 * The sandbox of the repository's own commands (setup, tests, type and lint checkers): model-written
 * code runs in the tests, so everything they start is treated as hostile.
 *
 * One mechanism: util-linux's `unshare` for the namespaces, then one launcher inside (launch.pl, a
 * real file bundled as text; perl-base is Essential on Debian and Ubuntu) that carries out a plan of
 * mounts computed here (plan.ts), drops every capability and executes the command:
 *
 *   unshare --user --map-root-user --mount --pid --fork --kill-child --mount-proc
 *           --propagation private [--net] -- perl -e <launch.pl> <arch> <plan...> -- <command>
 *
 * - a user namespace even when agent-fix runs as root (the command is "root" only inside it, and
 *   every mount it inherits is locked: a nested namespace cannot unmount or remount them);
 * - a PID namespace with its own `/proc`: no other process's `environ`, `root` or `ns` is visible,
 *   and when the command (PID 1 there) ends, the kernel kills everything it started;
 * - a mount namespace where every command starts from the same state: the checkout as the model's
 *   edits left it and what setup installed. A test run or checker sees the checkout, HOME's kept
 *   directories and the private HOME through overlayfs with a fresh upper layer in a private tmpfs,
 *   and a fresh /tmp: whatever it writes (tracked, ignored, `.git`, temp) is gone when it ends.
 *   Setup writes the checkout, and its git use goes to a layer of its own over `.git` (plan.ts);
 * - a private HOME over the real one: credentials stay out of sight; caches and toolchains are
 *   shown copy-on-write (home.ts); the files holding the checkout's credential are covered (outside
 *   `.git`) or shown without it (inside, in the setup layer); every other mount is read-only;
 * - a network namespace with only loopback for the tests (setup keeps the network by default);
 * - `/dev` with only null, zero, full, random, urandom and tty; `/run` empty (no daemon's socket);
 *   `/proc` and `/sys` read-only;
 * - then no_new_privs and every capability dropped: no `umount`, no `mount`, no `nsenter`.
 *
 * Where this cannot be had (see platform.ts: a container job, macOS, Windows, act, a kernel without
 * user namespaces), the mode is `none`, the report and the log say why and what to change, and the
 * policy key `sandbox.require-sandbox` decides whether model code may run at all. On GitHub-hosted
 * Ubuntu 24.04 runners, where AppArmor restricts unprivileged user namespaces, agent-fix first lifts
 * the restriction with `sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (only
 * there: the VM is thrown away after the job; self-hosted runners are never reconfigured).
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import LAUNCHER from './launch.pl';
import { launchPlan, sandboxArgv, statePaths, unsafePath, type CommandKind, type SandboxLayout } from './plan.js';
import { keptDirs, keptSecrets } from './home.js';
import { stripCredential } from './credentials.js';
import { platformWithoutSandbox } from './platform.js';

export type { CommandKind } from './plan.js';

export type SandboxMode = 'namespaces' | 'none';

export interface SandboxProbe {
  mode: SandboxMode;
  /** Human description for the report. */
  description: string;
}

/**
 * The real HOME to hide: an existing directory that is not `/` and does not hold the repository's
 * parent chain in a way that would hide it for good (the repository is mounted back, so a repository
 * under HOME is fine; a HOME inside the repository is left alone). Pure.
 */
export function homeToHide(home: string | undefined, repo: string, isDir: (p: string) => boolean): string {
  if (!home || !path.isAbsolute(home)) return '';
  const h = path.resolve(home);
  if (h === '/' || h === repo || h.startsWith(`${repo}/`)) return '';
  return isDir(h) ? h : '';
}

/**
 * AGENT_FIX_SANDBOX_READ: directories outside the checkout that the workflow author lets the
 * commands read (a shared dependency cache, a `node_modules` the checkout links to), colon-separated.
 * Each must be an absolute path to an existing directory; anything else is refused with the reason.
 * Pure but for `isDir` and `real`.
 */
export function extraReadable(value: string | undefined, isDir: (p: string) => boolean, real: (p: string) => string): { dirs: string[]; refused: string[] } {
  const dirs: string[] = [];
  const refused: string[] = [];
  for (const raw of (value ?? '').split(':').filter(Boolean)) {
    if (!path.isAbsolute(raw) || unsafePath(raw)) refused.push(`${raw} (not an absolute path)`);
    else if (!isDir(raw)) refused.push(`${raw} (not a directory)`);
    else dirs.push(real(raw));
  }
  return { dirs: [...new Set(dirs)], refused };
}

/** The environment a sandboxed command gets on top of the allow-listed one: its HOME and its own temp. Pure. */
export function sandboxEnv(env: Record<string, string>, layout: Pick<SandboxLayout, 'home' | 'state'>): Record<string, string> {
  return { ...env, TMPDIR: '/tmp', TMP: '/tmp', TEMP: '/tmp', HOME: layout.home || statePaths(layout.state).home };
}

export interface ProbeEnv {
  /** Runs argv, returns exit code and stdout. */
  run(argv: string[]): { code: number | null; stdout: string };
  isRoot: boolean;
  githubHosted: boolean;
  /** AGENT_FIX_SANDBOX=off: the workflow author turned the sandbox off (the report says so). */
  disabled?: boolean;
  /** Why namespaces cannot be had on this platform, with what to change (platform.ts); '' on a plain Linux host. */
  platform?: string;
  log?: (m: string) => void;
}

/** What the probe's command prints inside a working sandbox (see `works`). */
export function sandboxHolds(out: string): boolean {
  return /^CapEff:\s*0+$/m.test(out) && /^NoNewPrivs:\s*1$/m.test(out) && /^PID1 /m.test(out) && /^RO$/m.test(out) && /^NET lo\s*$/m.test(out) && /^LAYER$/m.test(out);
}

/** Inside: no capability, PID 1 of its own, read-only /etc, only loopback, and the checkout a fresh copy-on-write layer. */
const PROBE_CMD = 'grep -E "^(CapEff|NoNewPrivs):" /proc/self/status; echo "PID1 $(cat /proc/1/comm)"; touch /etc/.agent-fix-probe 2>/dev/null && echo RW || echo RO; echo "NET $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\\n" " ")"; grep -q " overlay " /proc/self/mountinfo && touch probe-layer && echo LAYER';

const WHO = (root: boolean) => (root ? 'as root' : 'unprivileged');

/** Pure decision given a probe environment (tests inject one) and the probe command's wrapper. */
export function chooseSandbox(env: ProbeEnv, wrapper: string[]): SandboxProbe & { notes: string[] } {
  const notes: string[] = [];
  const works = () => {
    const r = env.run([...wrapper, 'sh', '-c', PROBE_CMD]);
    return r.code === 0 && sandboxHolds(r.stdout);
  };
  const ok = (): SandboxProbe & { notes: string[] } => ({
    mode: 'namespaces',
    description: `its own user, PID, mount and network namespaces, no capabilities, the filesystem read-only outside the repository, every test run on a throwaway copy-on-write layer (unshare + perl, ${WHO(env.isRoot)})`,
    notes,
  });
  const none = (why: string) => ({ mode: 'none' as const, description: `NOT sandboxed: ${why}`, notes });
  if (env.disabled) return none("turned off by AGENT_FIX_SANDBOX=off; the repository's commands run with agent-fix's own user, its processes, files and network");
  if (works()) return ok();
  notes.push('user namespaces with overlayfs (unshare --user, Linux 5.11 or newer) unavailable or not working');
  if (env.githubHosted && !env.isRoot && !env.platform && env.run(['sudo', '-n', 'true']).code === 0) {
    const r = env.run(['sudo', '-n', 'sysctl', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0']);
    env.log?.(`sandbox: allowing unprivileged user namespaces on this GitHub-hosted runner (sysctl exit ${r.code})`);
    if (r.code === 0 && works()) return ok();
    notes.push('sudo sysctl did not enable user namespaces');
  }
  const where = env.platform ? `${env.platform}. ` : '';
  return none(`${where}The repository's commands run with agent-fix's own user, its processes, files and network (${notes.join('; ')})`);
}

let cached: SandboxProbe | null = null;

/** One run's state (plan.ts's layout), removed when the process exits. */
function stateDir(gitDir: boolean): string {
  const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'agent-fix-sandbox-')));
  const s = statePaths(dir);
  mkdirSync(s.home, { mode: 0o700 });
  mkdirSync(s.out);
  if (gitDir) {
    mkdirSync(s.gitLayer, { recursive: true });
    mkdirSync(path.join(s.setup, 'work'));
  }
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function gitKind(repo: string): SandboxLayout['git'] {
  try {
    return lstatSync(path.join(repo, '.git')).isDirectory() ? 'dir' : 'file';
  } catch {
    return 'none';
  }
}

const ARCHES = ['x64', 'arm64'];

/** Probes the real system once per process: a test-kind command on a throwaway checkout. */
export function probeSandbox(log?: (m: string) => void): SandboxProbe {
  if (cached) return cached;
  const state = stateDir(true);
  const repo = path.join(state, 'probe-repo');
  mkdirSync(path.join(repo, '.git'), { recursive: true });
  const env: ProbeEnv = {
    run(argv) {
      try {
        const r = spawnSync(argv[0], argv.slice(1), { cwd: repo, encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
        if (r.status !== 0 && r.stderr) log?.(`sandbox probe: ${r.stderr.trim().split('\n').slice(-2).join(' ')}`);
        return { code: r.error ? null : r.status, stdout: r.stdout ?? '' };
      } catch {
        return { code: null, stdout: '' };
      }
    },
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    githubHosted: process.env.RUNNER_ENVIRONMENT === 'github-hosted',
    disabled: process.env.AGENT_FIX_SANDBOX === 'off',
    platform: platformWithoutSandbox({ platform: process.platform, arch: process.arch, env: process.env, exists: existsSync, read: (f) => readIfAny(f) }),
    log,
  };
  if (process.platform !== 'linux' || !ARCHES.includes(process.arch)) {
    cached = { mode: 'none', description: `NOT sandboxed: ${env.platform}. The repository's commands run with agent-fix's own user, processes, files and network` };
    return cached;
  }
  const layout: SandboxLayout = { repo, git: 'dir', state, home: '', kept: [], readable: [], coverFiles: [], resolver: false, exports: [] };
  const { notes: _notes, ...probe } = chooseSandbox(env, sandboxArgv(LAUNCHER, launchPlan(layout, 'tests', false), false, process.arch));
  // the probe's write stayed in its layer
  if (probe.mode === 'namespaces' && existsSync(path.join(repo, 'probe-layer'))) {
    cached = { mode: 'none', description: 'NOT sandboxed: the copy-on-write layer of the checkout did not hold (a test write reached the disk)' };
    return cached;
  }
  cached = probe;
  return probe;
}

function readIfAny(f: string): string {
  try {
    return readFileSync(f, 'utf8');
  } catch {
    return '';
  }
}

/** One run's sandbox: setup's state kept for all its commands, a fresh layer for each test run. */
export interface RunSandbox {
  mode: SandboxMode;
  /** Wrapper for a command of `kind` with or without the network; undefined when not sandboxed. */
  wrapper(kind: CommandKind, network: boolean): string[] | undefined;
  /** The command's environment inside the sandbox (HOME, TMPDIR). */
  env(base: Record<string, string>): Record<string, string>;
  /** Where agent-fix puts files a command writes for it (reporter output, checker files): writable inside. */
  scratch: string;
  /** How many files holding the checkout's credential are covered or shown without it. */
  covered: number;
  /** The real HOME hidden behind the private one ('' when none). */
  home: string;
  /** The directories of the real HOME the commands see (copy-on-write). */
  kept: string[];
  /**
   * A file of the checkout that test runs write for agent-fix (a runner's own report file): where it
   * is to be read after a run. Sandboxed, the file outlives the run's layer at that host path; else
   * it is the file in the checkout.
   */
  exportFile(rel: string): string;
}

/** Sets up the per-run state of the sandbox for the repository at `root`, hiding `cover` and HOME. */
export function openSandbox(probe: SandboxProbe, root: string, cover: string[], home = process.env.HOME, log?: (m: string) => void): RunSandbox {
  if (probe.mode === 'none') return { mode: 'none', wrapper: () => undefined, env: (b) => b, scratch: os.tmpdir(), covered: 0, home: '', kept: [], exportFile: (rel) => path.resolve(root, rel) };
  const repo = realpathSync(root);
  const git = gitKind(repo);
  const state = stateDir(git === 'dir');
  const hidden = homeToHide(home, repo, isDir);
  const kept = keptDirs(hidden, process.env, isDir).filter((d) => d !== repo && !repo.startsWith(`${d}/`) && !d.startsWith(`${repo}/`));
  kept.forEach((_d, i) => {
    mkdirSync(path.join(statePaths(state).keep(i), 'upper'), { recursive: true });
    mkdirSync(path.join(statePaths(state).keep(i), 'work'));
  });
  // The checkout's credential: inside `.git`, the setup layer holds the file without it (git can
  // still write it); anywhere else the file is covered with an empty one.
  const gitDir = path.join(repo, '.git');
  const covers = cover.filter((f) => existsSync(f));
  const inGit = git === 'dir' ? covers.filter((f) => f.startsWith(`${gitDir}/`)) : [];
  for (const f of inGit) {
    const copy = path.join(statePaths(state).gitLayer, path.relative(gitDir, f));
    mkdirSync(path.dirname(copy), { recursive: true });
    copyFileSync(f, copy);
    stripCredential(copy);
  }
  const extra = extraReadable(process.env.AGENT_FIX_SANDBOX_READ, isDir, realpathSync);
  // HOME itself (or a directory holding it) would show the credentials the private HOME hides.
  const holdsHome = (d: string) => d === '/' || (hidden !== '' && (d === hidden || hidden.startsWith(`${d}/`)));
  for (const d of extra.dirs.filter(holdsHome)) extra.refused.push(`${d} (holds HOME, whose credentials stay hidden: list the directory inside it)`);
  if (extra.refused.length > 0) log?.(`sandbox: AGENT_FIX_SANDBOX_READ: left out ${extra.refused.join('; ')}`);
  const readable = extra.dirs.filter((d) => !holdsHome(d) && d !== repo && !repo.startsWith(`${d}/`) && !d.startsWith(`${repo}/`) && !kept.some((k) => d === k || d.startsWith(`${k}/`)));
  const layout: SandboxLayout = {
    repo,
    git,
    state,
    home: hidden,
    kept: kept.filter((d) => !unsafePath(d)),
    readable,
    coverFiles: [...covers.filter((f) => !inGit.includes(f)), ...keptSecrets(hidden, kept, existsSync)],
    resolver: isDir('/run/systemd/resolve'),
    exports: [],
  };
  return {
    mode: probe.mode,
    wrapper: (kind, network) => sandboxArgv(LAUNCHER, launchPlan(layout, kind, network), network, process.arch),
    env: (b) => sandboxEnv(b, layout),
    scratch: statePaths(state).out,
    covered: covers.length,
    home: hidden,
    kept: layout.kept,
    exportFile(rel) {
      const abs = path.resolve(repo, rel);
      const inside = path.relative(repo, abs);
      if (inside.startsWith('..') || path.isAbsolute(inside) || inside.split(path.sep).includes('.git') || unsafePath(inside)) return abs;
      let i = layout.exports.indexOf(inside);
      if (i < 0) {
        i = layout.exports.push(inside) - 1;
        mkdirSync(path.dirname(statePaths(state).exported(i)), { recursive: true });
        writeFileSync(statePaths(state).exported(i), '');
      }
      return statePaths(state).exported(i);
    },
  };
}

export interface CommandIsolation {
  /** "tests: no network (…)" */
  line: string;
  /** Network wanted off but no isolation available. */
  unavailable: boolean;
}

/** What the report says of one kind of command's isolation (the wrapper itself is made per command: RunSandbox.wrapper). */
export function isolationFor(kind: CommandKind, networkAllowed: boolean, probe: SandboxProbe, run?: RunSandbox): CommandIsolation {
  if (probe.mode === 'none' || !run) {
    return { line: `${kind}: ${probe.description}`, unavailable: !networkAllowed };
  }
  const net = networkAllowed ? 'network allowed by the policy' : 'no network';
  const cover = run.covered > 0 ? `; the push credential in ${run.covered} git config file(s) is hidden from them` : '';
  // the same for both kinds: said once, on the tests' line
  const shown = run.kept.map((d) => `~/${path.relative(run.home, d)}`);
  const kept = kind === 'tests' && shown.length > 0 ? `; HOME hidden but for ${shown.length} cache and toolchain director${shown.length === 1 ? 'y' : 'ies'} (${shown.slice(0, 6).join(', ')}${shown.length > 6 ? ', …' : ''})` : '';
  return { line: `${kind}: sandboxed (${probe.description}), ${net}${cover}${kept}`, unavailable: false };
}

export type RequireSandbox = 'always' | 'github-hosted' | 'never';

/** Whether the policy refuses to run the repository's commands here. Pure. */
export function sandboxRefused(require: RequireSandbox, mode: SandboxMode, githubHosted: boolean): boolean {
  if (mode !== 'none') return false;
  return require === 'always' || (require === 'github-hosted' && githubHosted);
}
