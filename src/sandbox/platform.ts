/**
 * Where the sandbox cannot be had, why, and what the maintainer can change: one sentence per
 * platform for the report and the log (docs/security.md has the same table). Pure but for the
 * facts it is given.
 */
export interface PlatformFacts {
  platform: string;
  arch: string;
  env: Record<string, string | undefined>;
  exists: (p: string) => boolean;
  read: (p: string) => string;
}

const RISK = 'or set `sandbox.require-sandbox: never` in .github/agent-fix.yml to run the repository\'s commands unsandboxed (model-written code then runs with the job\'s user, its files, its network and any secret in its environment or on disk)';

/** The job runs in a container: Docker's or Podman's marker, or a container runtime in PID 1's cgroup. */
export function inContainer(f: PlatformFacts): string {
  if (f.env.ACT === 'true') return 'act';
  if (f.exists('/.dockerenv')) return 'docker';
  if (f.exists('/run/.containerenv')) return 'podman';
  const cgroup = f.read('/proc/1/cgroup');
  if (/docker|containerd|kubepods|libpod/.test(cgroup)) return 'container';
  return '';
}

/** Why this platform gives no sandbox, with what to change; '' for a plain Linux host (the probe decides). */
export function platformWithoutSandbox(f: PlatformFacts): string {
  if (f.platform === 'darwin') return `this is macOS, which has no Linux namespaces: run the job on \`ubuntu-latest\` (or another Linux runner), ${RISK}`;
  if (f.platform === 'win32') return `this is Windows, which has no Linux namespaces: run the job on \`ubuntu-latest\` (or another Linux runner), ${RISK}`;
  if (f.platform !== 'linux') return `${f.platform} has no Linux namespaces: run the job on a Linux runner, ${RISK}`;
  if (f.arch !== 'x64' && f.arch !== 'arm64') return `the sandbox's launcher knows the system calls of x64 and arm64, not ${f.arch}: run the job on an x64 or arm64 Linux runner, ${RISK}`;
  const container = inContainer(f);
  if (container === 'act') return `this job runs under act, in a Docker container whose default seccomp and AppArmor profiles refuse user namespaces and mounts: give act \`--container-options "--privileged"\` (or \`--security-opt seccomp=unconfined --security-opt apparmor=unconfined\`), ${RISK}`;
  if (container) return `this job runs in a container (${container}) whose default seccomp and AppArmor profiles refuse user namespaces and mounts: add \`options: --privileged\` (or \`--security-opt seccomp=unconfined --security-opt apparmor=unconfined\`) to the job's \`container:\`, run the job on the runner itself, ${RISK}`;
  return '';
}
