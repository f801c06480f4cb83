/**
 * What the launcher (launch.pl) does for one command, as a list of steps: pure, so every mount of
 * every kind of command can be read and tested without running it.
 *
 * One run's state (`state`) holds what setup leaves for later commands, outside the checkout:
 *   home/            the private HOME (setup writes it; every later command sees it copy-on-write)
 *   keep/N/{upper,work}  setup's writes to the N-th directory kept from the real HOME
 *   setup/layer/.git setup's writes to `.git` (its index, hooks, config, submodules), and the
 *                    checkout's git config without the push credential
 *   setup/work       overlayfs's work directory for that layer
 *   out/             where agent-fix hands files to the commands (reporter output, checker files)
 *
 * - setup: the checkout writable (it installs dependencies there), `.git` copy-on-write into
 *   setup/layer/.git (so `git checkout -- file`, `git submodule update --init`, hook installers
 *   work and agent-fix's own `.git` never changes), HOME and the kept directories writable into
 *   the run's state: setup keeps what it installs.
 * - tests (and checkers): everything writable is a copy-on-write view over what setup and the
 *   model's edits left, with a fresh upper layer in a private tmpfs: the checkout (tracked,
 *   untracked, ignored files and `.git`), HOME, the kept directories, /tmp. Whatever the command
 *   writes is gone when it ends, so no test run can prepare the next one's verdict.
 */
import path from 'node:path';

export type CommandKind = 'setup' | 'tests';

export interface SandboxLayout {
  /** The checkout (absolute, real path). */
  repo: string;
  /** `.git`: a directory, the file of a worktree or submodule, or none. */
  git: 'dir' | 'file' | 'none';
  /** The run's state directory (absolute, real path). */
  state: string;
  /** The real HOME the private one is mounted over; '' when there is none to hide. */
  home: string;
  /** Directories under the real HOME seen copy-on-write (caches, toolchains; home.ts). */
  kept: string[];
  /** Directories elsewhere seen read-only at their own paths (AGENT_FIX_SANDBOX_READ). */
  readable: string[];
  /** Files covered with /dev/null: credentials outside the checkout's `.git`, and inside kept directories. */
  coverFiles: string[];
  /** `/run/systemd/resolve` exists (the resolver's stub file, bound back into the empty /run). */
  resolver: boolean;
  /**
   * Files of the checkout a test run writes for agent-fix (a runner's own report file, e.g. jest's
   * `--outputFile=.jest-result.json`): repo-relative, each bound to out/exports/<i> so it outlives the
   * layer that holds everything else the command writes.
   */
  exports: string[];
}

/** The state's parts, by the layout above. */
export const statePaths = (state: string) => ({
  home: path.join(state, 'home'),
  out: path.join(state, 'out'),
  exported: (i: number) => path.join(state, 'out', 'exports', String(i)),
  setup: path.join(state, 'setup'),
  gitLayer: path.join(state, 'setup', 'layer', '.git'),
  keep: (i: number) => path.join(state, 'keep', String(i)),
});

/** A path the launcher cannot carry (its steps are TAB-separated, one argument each). */
export function unsafePath(p: string): boolean {
  return /[\t\n\0]/.test(p);
}

const step = (...fields: string[]) => fields.join('\t');

/** The temps made empty for every command (and /run: no daemon's socket; the cgroup tree). */
const EMPTIED = ['/tmp', '/var/tmp', '/run', '/sys/fs/cgroup'];

/** The launcher's steps for one command of `kind`, with or without the network. Pure. */
export function launchPlan(l: SandboxLayout, kind: CommandKind, network: boolean): string[] {
  const s = statePaths(l.state);
  const fresh = kind === 'tests';
  const homeAt = l.home || s.home;
  const steps: string[] = [step('fd', 'repo', l.repo), step('fd', 'home', s.home), step('fd', 'out', s.out)];
  if (l.git === 'dir') steps.push(step('fd', 'setup', s.setup));
  l.kept.forEach((k, i) => steps.push(step('fd', `k${i}`, k), step('fd', `ku${i}`, s.keep(i))));
  l.readable.forEach((d, i) => steps.push(step('fd', `r${i}`, d)));
  if (l.resolver) steps.push(step('fd', 'resolve', '/run/systemd/resolve'));
  for (const d of EMPTIED) steps.push(step('tmpfs', d, '1777'));
  steps.push('dev');
  if (fresh) steps.push('stage');
  if (l.resolver) steps.push(step('bind', '@resolve', '/run/systemd/resolve'));
  // HOME, then the kept directories inside it (the real ones under the run's layer)
  steps.push(fresh ? step('overlay', homeAt, '@home', '-', '-') : step('bind', '@home', homeAt), step('writable', homeAt));
  l.kept.forEach((k, i) => {
    steps.push(fresh ? step('overlay', k, `@ku${i}/upper,@k${i}`, '-', '-') : step('overlay', k, `@k${i}`, `@ku${i}/upper`, `@ku${i}/work`), step('writable', k));
  });
  l.readable.forEach((d, i) => steps.push(step('bind', `@r${i}`, d)));
  steps.push(step('bind', '@out', s.out), step('writable', s.out));
  // the checkout last: it may live under HOME or the temp
  if (fresh) {
    steps.push(step('overlay', l.repo, l.git === 'dir' ? '@setup/layer,@repo' : '@repo', '-', '-'), step('writable', l.repo));
    l.exports.forEach((rel, i) => {
      const at = path.join(l.repo, rel);
      steps.push(step('bind-file', `@out/exports/${i}`, at), step('writable', at));
    });
  } else {
    steps.push(step('bind', '@repo', l.repo), step('writable', l.repo));
    const git = path.join(l.repo, '.git');
    // a `.git` file (worktree, submodule) points agent-fix's git elsewhere: kept read-only
    if (l.git === 'dir') steps.push(step('overlay', git, '@repo/.git', '@setup/layer/.git', '@setup/work'), step('writable', git));
    if (l.git === 'file') steps.push(step('bind', git, git));
  }
  for (const f of l.coverFiles) steps.push(step('cover-file', f));
  if (fresh) steps.push('unstage');
  steps.push('readonly');
  if (!network) steps.push('loopback');
  return steps;
}

/** The argv prefix of one command: the namespaces, then the launcher and its plan. Pure. */
export function sandboxArgv(launcher: string, plan: string[], network: boolean, arch: string): string[] {
  return [
    'unshare', '--user', '--map-root-user', '--mount', '--pid', '--fork', '--kill-child', '--mount-proc', '--propagation', 'private',
    ...(network ? [] : ['--net']),
    '--', 'perl', '-e', launcher, arch, ...plan, '--',
  ];
}
