/**
 * Network isolation of the repository's commands (model-written code runs in the tests).
 *
 * A command runs inside a fresh network namespace (only a loopback interface, brought up)
 * when the platform allows it, in order of preference:
 *   1. `unshare --net` when agent-fix runs as root;
 *   2. `bwrap --unshare-net` (bubblewrap) when installed and working;
 *   3. `unshare --user --map-root-user --net` (unprivileged user namespaces);
 *   4. on GitHub-hosted runners (Ubuntu 24.04 restricts unprivileged user namespaces with
 *      AppArmor): `sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`, then 3.
 *      Only there: the VM is thrown away after the job. Self-hosted runners are never changed.
 * Otherwise commands run with the network, and the report says so.
 *
 * The wrapper only adds namespaces; the command stays in agent-fix's process group handling
 * (unshare and bwrap exec or wait for the command), so timeouts and kills work unchanged.
 * Each mode is probed for real once per process: it must start and see only `lo`.
 */
import { spawnSync } from 'node:child_process';

export type SandboxMode = 'unshare-root' | 'bwrap' | 'unshare-userns' | 'none';

export interface SandboxProbe {
  mode: SandboxMode;
  /** argv prefix for the shell; empty for 'none'. */
  wrapper: string[];
  /** Human description for the report. */
  description: string;
}

/** Brings loopback up inside the namespace (tests often listen on 127.0.0.1), then runs "$@". */
const LO_UP = 'ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null || true; exec "$@"';

export function wrapperFor(mode: SandboxMode): string[] {
  switch (mode) {
    case 'unshare-root':
      return ['unshare', '--net', '--', 'sh', '-c', LO_UP, 'agent-fix-sandbox'];
    case 'unshare-userns':
      return ['unshare', '--user', '--map-root-user', '--net', '--', 'sh', '-c', LO_UP, 'agent-fix-sandbox'];
    case 'bwrap':
      return ['bwrap', '--dev-bind', '/', '/', '--unshare-net', '--die-with-parent', '--'];
    case 'none':
      return [];
  }
}

const DESCRIPTIONS: Record<SandboxMode, string> = {
  'unshare-root': 'a private network namespace (unshare --net, as root)',
  bwrap: 'a private network namespace (bubblewrap --unshare-net)',
  'unshare-userns': 'a private network namespace (unshare --user --net)',
  none: 'no isolation available',
};

export interface ProbeEnv {
  /** Runs argv, returns exit code and stdout. */
  run(argv: string[]): { code: number | null; stdout: string };
  isRoot: boolean;
  githubHosted: boolean;
  log?: (m: string) => void;
}

/** Interfaces other than lo in /proc/net/dev (per network namespace). */
export function nonLoopbackInterfaces(procNetDev: string): string[] {
  return procNetDev
    .split('\n')
    .slice(2)
    .map((l) => l.split(':')[0]?.trim())
    .filter((n): n is string => !!n && n !== 'lo');
}

function works(env: ProbeEnv, mode: SandboxMode): boolean {
  const r = env.run([...wrapperFor(mode), 'cat', '/proc/net/dev']);
  return r.code === 0 && r.stdout.includes('lo:') && nonLoopbackInterfaces(r.stdout).length === 0;
}

/** Pure decision given a probe environment (tests inject one). */
export function chooseSandbox(env: ProbeEnv): SandboxProbe & { notes: string[] } {
  const notes: string[] = [];
  const pick = (mode: SandboxMode) => ({ mode, wrapper: wrapperFor(mode), description: DESCRIPTIONS[mode], notes });
  if (env.isRoot) {
    if (works(env, 'unshare-root')) return pick('unshare-root');
    notes.push('unshare --net failed as root');
  }
  if (works(env, 'bwrap')) return pick('bwrap');
  notes.push('bubblewrap unavailable or not working');
  if (works(env, 'unshare-userns')) return pick('unshare-userns');
  notes.push('unprivileged user namespaces unavailable');
  if (env.githubHosted && !env.isRoot && env.run(['sudo', '-n', 'true']).code === 0) {
    const r = env.run(['sudo', '-n', 'sysctl', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0']);
    env.log?.(`sandbox: allowing unprivileged user namespaces on this GitHub-hosted runner (sysctl exit ${r.code})`);
    if (r.code === 0 && works(env, 'unshare-userns')) return pick('unshare-userns');
    notes.push('sudo sysctl did not enable user namespaces');
  }
  return { ...pick('none'), description: `no network isolation (${notes.join('; ')})` };
}

let cached: SandboxProbe | null = null;

/** Probes the real system once per process. */
export function probeSandbox(log?: (m: string) => void): SandboxProbe {
  if (cached) return cached;
  const env: ProbeEnv = {
    run(argv) {
      try {
        const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
        return { code: r.error ? null : r.status, stdout: r.stdout ?? '' };
      } catch {
        return { code: null, stdout: '' };
      }
    },
    isRoot: typeof process.getuid === 'function' && process.getuid() === 0,
    githubHosted: process.env.RUNNER_ENVIRONMENT === 'github-hosted',
    log,
  };
  const { notes: _notes, ...probe } = process.platform === 'linux' ? chooseSandbox(env) : { ...{ mode: 'none' as const, wrapper: [], description: `no network isolation (${process.platform} has no network namespaces)` }, notes: [] };
  cached = probe;
  return probe;
}

export interface CommandIsolation {
  wrapper: string[] | undefined;
  /** "tests: no network (…)" */
  line: string;
  /** Network wanted off but no isolation available. */
  unavailable: boolean;
}

/** What to wrap one kind of command with, given whether it may use the network. */
export function isolationFor(kind: 'setup' | 'tests', networkAllowed: boolean, probe: SandboxProbe): CommandIsolation {
  if (networkAllowed) return { wrapper: undefined, line: `${kind}: network allowed by the policy`, unavailable: false };
  if (probe.mode === 'none') return { wrapper: undefined, line: `${kind}: NOT isolated from the network: ${probe.description}`, unavailable: true };
  return { wrapper: probe.wrapper, line: `${kind}: no network, ${probe.description}`, unavailable: false };
}
