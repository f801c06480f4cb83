/**
 * The sandbox of the repository's own commands (setup, tests, type and lint checkers): model-written
 * code runs in the tests, so everything they start is treated as hostile.
 *
 * One mechanism: util-linux's `unshare` for the namespaces, then a launcher inside that does the
 * mounts and drops the capabilities, in one perl process where perl is (PERL_LAUNCH; perl-base is
 * Essential on Debian and Ubuntu), else in `sh` with util-linux's `mount` and `setpriv` (LAUNCH):
 *
 *   unshare --user --map-root-user --mount --pid --fork --kill-child --mount-proc
 *           --propagation private [--net] -- perl -e PERL_LAUNCH <arch> <paths> -- <command>
 *
 * - a user namespace even when agent-fix runs as root (the command is "root" only inside it, and
 *   every mount it inherits is locked: a nested namespace cannot unmount or remount them);
 * - a PID namespace with its own `/proc`: no other process's `environ`, `root` or `ns` is visible,
 *   and when the command (PID 1 there) ends, the kernel kills everything it started (`setsid`
 *   daemons included); `--kill-child` does the same when agent-fix kills the wrapper on a timeout;
 * - a mount namespace where LAUNCH (below) gives the command a private `/tmp`, `/var/tmp` and
 *   `/dev/shm`, a private HOME mounted over the real one (`~/.gitconfig`, `~/.git-credentials`,
 *   `~/.ssh` ... are out of sight), binds the repository back writable, makes its `.git`
 *   read-only, covers the files holding the checkout's credential with an empty file, and makes
 *   every other mount read-only (runner temp, file-command files, `_actions`, the event file, the
 *   transcript and bundle locations, the tool caches);
 * - a network namespace with only loopback for the tests (setup keeps the network by default);
 * - `/dev` with only null, zero, full, random, urandom and tty; `/run` empty (no daemon's socket:
 *   docker, systemd, dbus); `/proc` and `/sys` read-only (no sysctl, no sysrq-trigger: as root the
 *   command's uid is the real root's, so only read-only mounts and hidden sockets keep it from
 *   what root owns);
 * - then no_new_privs and every capability dropped (bounding, inheritable, ambient, effective,
 *   permitted): no `umount`, no `mount`, no `nsenter`, no way back through a set-uid program.
 *
 * What commands may write: the repository's working tree (not `.git`), the private temp and the
 * private HOME (both persist across the commands of one run, so setup can fill package caches for
 * the tests, and are deleted when agent-fix exits). Nothing agent-fix trusts is read from them:
 * its git uses its own configuration (adapters/git.ts) and what is published is the model's bytes
 * (fix.ts restores the tree after each test run).
 *
 * Where this cannot be had (no user namespaces, a container without the privilege, macOS), the
 * mode is `none`, the report and the log say so, and the policy key `sandbox.require-sandbox`
 * decides whether model code may run at all. On GitHub-hosted Ubuntu 24.04 runners, where AppArmor
 * restricts unprivileged user namespaces, agent-fix first lifts the restriction with
 * `sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (only there: the VM is thrown
 * away after the job; self-hosted runners are never reconfigured).
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export type SandboxMode = 'namespaces' | 'none';

export type Launcher = 'perl' | 'sh';

export interface SandboxProbe {
  mode: SandboxMode;
  /** What does the mounts inside (PERL_LAUNCH, else LAUNCH); absent: 'sh'. */
  launcher?: Launcher;
  /** argv prefix of the probe's command (kept for callers that only need to know it works); empty for 'none'. */
  wrapper: string[];
  /** Human description for the report. */
  description: string;
}

/** Brings loopback up (tests often listen on 127.0.0.1); needs the namespace's capabilities, so before they are dropped. */
const LO_UP = 'if [ "$net" = 1 ]; then ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null || true; fi';

/**
 * Runs as root of the new user namespace, before any capability is dropped.
 * Arguments: net repo private-home private-tmp real-home(or '') cover-file... -- command...
 * /tmp, /var/tmp and /dev/shm become empty tmpfs; the private HOME is bound over the real one; the
 * private temp and the repository are bound back at their own paths (agent-fix hands paths in its
 * temp to the commands: reporter files, checker output). The sources are opened first (fds 7-9)
 * and bound through /proc/self/fd, since the places they live in are covered before.
 */
export const LAUNCH = [
  'set -e',
  'net=$1 repo=$2 phome=$3 ptmp=$4 home=$5 cwd=$(pwd); shift 5',
  'keep=; while [ "$1" != "--" ]; do keep="$keep $1"; shift; done; shift',
  'rw=$repo; case "$net" in *r) rw=; net=${net%r};; esac',
  'exec 5</dev 7<"$repo" 8<"$phome" 9<"$ptmp"',
  'if [ -n "$home" ]; then exec 4<"$home"; fi',
  'if [ -d /run/systemd/resolve ]; then exec 6</run/systemd/resolve; fi',
  'bind() { mkdir -p "$2" 2>/dev/null || true; mount --no-canonicalize --bind "$1" "$2"; }',
  // Empty: the temps, /run (daemons' sockets: docker, systemd, dbus), the cgroup tree; /dev holds only the harmless devices.
  'for d in /tmp /var/tmp /run /sys/fs/cgroup; do if [ -d "$d" ] && [ ! -L "$d" ]; then mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs "$d"; fi; done',
  'mount -t tmpfs -o nosuid,noexec,mode=755 tmpfs /dev',
  'for n in null zero full random urandom tty; do : > "/dev/$n"; mount --no-canonicalize --bind "/proc/self/fd/5/$n" "/dev/$n"; done',
  'mkdir /dev/shm /dev/pts; mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs /dev/shm',
  'ln -s /proc/self/fd /dev/fd; ln -s /proc/self/fd/0 /dev/stdin; ln -s /proc/self/fd/1 /dev/stdout; ln -s /proc/self/fd/2 /dev/stderr',
  'if [ -e /proc/self/fd/6 ]; then bind /proc/self/fd/6 /run/systemd/resolve; fi',
  // the toolchains kept from the real HOME (read-only below) are bound from a staging mount of it, dropped right after
  'if [ -n "$home" ] && [ -n "$keep" ]; then mkdir /tmp/.agent-fix-home; mount --no-canonicalize --bind /proc/self/fd/4 /tmp/.agent-fix-home; fi',
  'if [ -n "$home" ]; then bind /proc/self/fd/8 "$home"; else bind /proc/self/fd/8 "$phome"; fi',
  'if [ -n "$home" ] && [ -n "$keep" ]; then for k in $keep; do bind "/tmp/.agent-fix-home${k#"$home"}" "$k"; done; umount -l /tmp/.agent-fix-home; rmdir /tmp/.agent-fix-home; fi',
  'bind /proc/self/fd/9 "$ptmp"',
  'bind /proc/self/fd/7 "$repo"',
  'exec 4<&- 5<&- 6<&- 7<&- 8<&- 9<&-',
  'if [ -e "$repo/.git" ]; then mount --bind "$repo/.git" "$repo/.git"; fi',
  'while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mount --bind /dev/null "$1"; shift; done; shift',
  // Every other mount read-only (/proc too: no sysctl, no sysrq-trigger), keeping the flags the kernel locks.
  // A mount point that is gone or hidden under a cover is skipped; one that stays writable stops the sandbox.
  'w=" /tmp /var/tmp /dev/shm $home $phome $ptmp $rw "',
  'while read -r _ _ _ _ mp opts _; do',
  '  case "$mp" in *\\\\*) mp=$(printf "%b" "$mp");; esac',
  '  case "$mp" in /proc/*|/dev/?*) continue;; esac',
  '  case "$w" in *" $mp "*) continue;; esac',
  '  case ",$opts," in *,ro,*) continue;; esac',
  '  fl=; IFS=,; for o in $opts; do case "$o" in nosuid|nodev|noexec|noatime|nodiratime|relatime|strictatime|nosymfollow) fl="$fl,$o";; esac; done; IFS=" "',
  '  mount -o "remount,bind,ro$fl" "$mp" 2>/dev/null || [ ! -w "$mp" ] || { echo "agent-fix sandbox: could not make $mp read-only" >&2; exit 125; }',
  'done < /proc/self/mountinfo',
  LO_UP,
  // the working directory again, through the new mounts (the inherited one still points into the old ones)
  'cd "$cwd"',
  'exec setpriv --no-new-privs --inh-caps=-all --bounding-set=-all -- "$@"',
].join('\n');

/**
 * The same as LAUNCH in one perl process (perl-base is Essential on Debian and Ubuntu): every
 * mount, the loopback interface, the capability drop and no_new_privs are system calls, not a
 * `mount`/`setpriv` process each, which is most of LAUNCH's start-up time (BENCHMARKS.md).
 * Arguments: arch (node's process.arch) net repo private-home private-tmp real-home cover... -- command.
 */
export const PERL_LAUNCH = [
  'use strict; use warnings; use Fcntl qw(O_RDONLY O_DIRECTORY);',
  'my $arm = shift(@ARGV) eq \'arm64\';',
  'my ($net, $repo, $phome, $ptmp, $home) = splice(@ARGV, 0, 5);',
  'my @keep; while (@ARGV && $ARGV[0] ne \'--\') { push @keep, shift @ARGV } shift @ARGV;',
  'my @cover; while (@ARGV && $ARGV[0] ne \'--\') { push @cover, shift @ARGV } shift @ARGV;',
  'my ($SYS_mount, $SYS_prctl, $SYS_capset) = $arm ? (40, 167, 91) : (165, 157, 126);',
  'my %F = (ro => 1, nosuid => 2, nodev => 4, noexec => 8, remount => 32, bind => 4096, noatime => 1024, nodiratime => 2048, relatime => 1 << 21, strictatime => 1 << 24, nosymfollow => 256);',
  'sub fail { print STDERR "agent-fix sandbox: $_[0]: $!\\n"; exit 125 }',
  'sub mnt { my ($src, $dst, $type, $flags, $data) = @_; syscall($SYS_mount, $src, $dst, $type // 0, $flags, $data // 0) == 0 }',
  'sub mkp { my $p = \'\'; for (grep { length } split m{/}, $_[0]) { $p .= "/$_"; mkdir $p } }',
  'sub dirfd { sysopen(my $h, $_[0], O_RDONLY | O_DIRECTORY) or fail("open $_[0]"); $h }',
  'sub bindfd { my ($h, $dst) = @_; mkp($dst); mnt(\'/proc/self/fd/\' . fileno($h), $dst, undef, $F{bind}) or fail("bind $dst") }',
  'my $cwd = readlink("/proc/self/cwd") // fail("cwd");',
  'my ($dev, $r, $ph, $pt) = map { dirfd($_) } (\'/dev\', $repo, $phome, $ptmp);',
  'my @kept = map { [dirfd($_), $_] } @keep;',
  'my $resolve = -d \'/run/systemd/resolve\' ? dirfd(\'/run/systemd/resolve\') : undef;',
  'for my $d (\'/tmp\', \'/var/tmp\', \'/run\', \'/sys/fs/cgroup\') { next unless -d $d && !-l $d; mnt(\'tmpfs\', $d, \'tmpfs\', $F{nosuid} | $F{nodev}, \'mode=1777\') or fail("tmpfs $d") }',
  'mnt(\'tmpfs\', \'/dev\', \'tmpfs\', $F{nosuid} | $F{noexec}, \'mode=755\') or fail(\'tmpfs /dev\');',
  'for my $n (qw(null zero full random urandom tty)) { open(my $f, \'>\', "/dev/$n") or fail("/dev/$n"); close $f; mnt(\'/proc/self/fd/\' . fileno($dev) . "/$n", "/dev/$n", undef, $F{bind}) or fail("bind /dev/$n") }',
  'mkdir \'/dev/shm\'; mkdir \'/dev/pts\'; mnt(\'tmpfs\', \'/dev/shm\', \'tmpfs\', $F{nosuid} | $F{nodev}, \'mode=1777\') or fail(\'tmpfs /dev/shm\');',
  'symlink(\'/proc/self/fd\', \'/dev/fd\'); symlink(\'/proc/self/fd/0\', \'/dev/stdin\'); symlink(\'/proc/self/fd/1\', \'/dev/stdout\'); symlink(\'/proc/self/fd/2\', \'/dev/stderr\');',
  'bindfd($resolve, \'/run/systemd/resolve\') if $resolve;',
  'bindfd($ph, $home ne \'\' ? $home : $phome);',
  'bindfd(@$_) for @kept; close $_->[0] for @kept;',
  'bindfd($pt, $ptmp);',
  'bindfd($r, $repo);',
  'close $_ for grep { defined } ($dev, $r, $ph, $pt, $resolve);',
  'if (-e "$repo/.git") { mnt("$repo/.git", "$repo/.git", undef, $F{bind}) or fail(\'bind .git\') }',
  'for my $c (@cover) { mnt(\'/dev/null\', $c, undef, $F{bind}) or fail("cover $c") }',
  'my $rorepo = $net =~ s/r$//;',
  'my %w = map { $_ => 1 } (\'/tmp\', \'/var/tmp\', \'/dev/shm\', $home, $phome, $ptmp, $rorepo ? () : ($repo));',
  'open(my $mi, \'<\', \'/proc/self/mountinfo\') or fail(\'mountinfo\');',
  'for my $line (<$mi>) {',
  '  my (undef, undef, undef, undef, $mp, $opts) = split / /, $line;',
  '  $mp =~ s/\\\\([0-7]{3})/chr(oct($1))/ge;',
  '  next if $mp =~ m{^/proc/} || $mp =~ m{^/dev/.} || $w{$mp};',
  '  my @o = split /,/, $opts;',
  '  next if grep { $_ eq \'ro\' } @o;',
  '  my $fl = $F{remount} | $F{bind} | $F{ro};',
  '  $fl |= $F{$_} for grep { $F{$_} && $_ ne \'ro\' } @o;',
  '  next if mnt(0, $mp, undef, $fl);',
  '  fail("could not make $mp read-only") if -w $mp;',
  '}',
  'close $mi;',
  'if ($net eq \'1\' && socket(my $s, 2, 2, 0)) { my $req = pack(\'a16 s x22\', \'lo\'); if (ioctl($s, 0x8913, $req)) { my $flags = unpack(\'x16 s\', $req) | 1 | 0x40; my $set = pack(\'a16 s x22\', \'lo\', $flags); ioctl($s, 0x8914, $set) } }',
  'chdir $cwd or fail("cd $cwd");',
  'for (my $c = 0; $c < 64; $c++) { last if syscall($SYS_prctl, 24, $c, 0, 0, 0) != 0 && $c > 40 }',
  'syscall($SYS_prctl, 47, 4, 0, 0, 0);',
  'syscall($SYS_prctl, 38, 1, 0, 0, 0) == 0 or fail(\'no_new_privs\');',
  'my ($hdr, $data) = (pack(\'LL\', 0x20080522, 0), pack(\'L6\', 0, 0, 0, 0, 0, 0)); syscall($SYS_capset, $hdr, $data) == 0 or fail(\'capset\');',
  'exec { $ARGV[0] } @ARGV or fail("exec $ARGV[0]");'
].join('\n');

/** What one run's commands are given; the same for setup and tests but for the network. */
export interface SandboxSpec {
  /** The repository's working tree (absolute, real path): the only writable place besides the private ones. */
  repo: string;
  /** Per-run private directory holding `home/` and `tmp/` (see openSandbox). */
  state: string;
  /** The real HOME to hide behind the private one; '' when there is none to hide. */
  home: string;
  /** Files covered with an empty file (the checkout's credential). */
  cover: string[];
  /**
   * Directories seen read-only at their own paths: toolchains under the real HOME (toolchainDirs) and
   * AGENT_FIX_SANDBOX_READ's (extraReadable; anywhere, with the perl launcher only).
   */
  keep?: string[];
}

/** The argv prefix for one command. Pure. */
export function sandboxArgv(spec: SandboxSpec, network: boolean, launcher: Launcher = 'sh', arch: string = process.arch, readOnlyRepo = false): string[] {
  return [
    'unshare', '--user', '--map-root-user', '--mount', '--pid', '--fork', '--kill-child', '--mount-proc', '--propagation', 'private',
    ...(network ? [] : ['--net']),
    '--', ...(launcher === 'perl' ? ['perl', '-e', PERL_LAUNCH, arch] : ['sh', '-c', LAUNCH, 'agent-fix-sandbox']),
    `${network ? '0' : '1'}${readOnlyRepo ? 'r' : ''}`, spec.repo, path.join(spec.state, 'home'), path.join(spec.state, 'tmp'), spec.home,
    ...(spec.keep ?? []), '--',
    ...spec.cover, '--',
  ];
}

/**
 * The real HOME to hide: an existing directory that is not `/` and does not contain-or-equal the
 * repository's parent chain in a way that would hide it for good (the repository is bound back, so
 * a repository under HOME is fine; a HOME inside the repository is left alone). Pure.
 */
export function homeToHide(home: string | undefined, repo: string, isDir: (p: string) => boolean): string {
  if (!home || !path.isAbsolute(home)) return '';
  const h = path.resolve(home);
  if (h === '/' || h === repo || h.startsWith(`${repo}/`)) return '';
  return isDir(h) ? h : '';
}

/** Toolchains that live in HOME on common runners (rustup's on ubuntu-latest, nvm, pyenv, ...). */
const HOME_TOOLCHAINS = ['.cargo', '.rustup', '.nvm', '.pyenv', '.rbenv', '.volta', '.bun', '.deno', '.dotnet', '.sdkman', '.local/bin', '.local/share/pnpm'];
const TOOLCHAIN_VARS = ['RUNNER_TOOL_CACHE', 'AGENT_TOOLSDIRECTORY', 'CARGO_HOME', 'RUSTUP_HOME', 'NVM_DIR', 'PYENV_ROOT', 'RBENV_ROOT', 'VOLTA_HOME', 'BUN_INSTALL', 'DENO_INSTALL', 'DOTNET_ROOT', 'SDKMAN_DIR', 'PNPM_HOME', 'GOROOT', 'JAVA_HOME'];

/**
 * The directories under the real HOME a command still sees (read-only) through its private HOME:
 * the usual toolchain directories, the toolchain variables' values and PATH entries under HOME,
 * existing, without one nested in another. Paths with white space are left out (the sh launcher
 * splits on it). Pure but for `isDir`.
 */
export function toolchainDirs(home: string, env: Record<string, string | undefined>, isDir: (p: string) => boolean): string[] {
  if (!home) return [];
  const under = (p: string) => path.isAbsolute(p) && path.resolve(p).startsWith(`${home}/`);
  const candidates = [
    ...HOME_TOOLCHAINS.map((d) => path.join(home, d)),
    ...TOOLCHAIN_VARS.map((v) => env[v] ?? ''),
    ...(env.PATH ?? '').split(':'),
  ].filter((p) => p && under(p) && !/\s/.test(p)).map((p) => path.resolve(p));
  const dirs = [...new Set(candidates)].filter(isDir).sort();
  return dirs.filter((d) => !dirs.some((o) => o !== d && d.startsWith(`${o}/`)));
}

/**
 * AGENT_FIX_SANDBOX_READ: directories outside the checkout that the workflow author lets the
 * commands read (a shared dependency cache, a `node_modules` the checkout links to), colon-separated.
 * Each must be an absolute path to an existing directory without white space; anything else is
 * refused with the reason. Pure but for `isDir` and `real`.
 */
export function extraReadable(value: string | undefined, isDir: (p: string) => boolean, real: (p: string) => string): { dirs: string[]; refused: string[] } {
  const dirs: string[] = [];
  const refused: string[] = [];
  for (const raw of (value ?? '').split(':').filter(Boolean)) {
    if (!path.isAbsolute(raw) || /\s/.test(raw)) refused.push(`${raw} (not an absolute path without white space)`);
    else if (!isDir(raw)) refused.push(`${raw} (not a directory)`);
    else dirs.push(real(raw));
  }
  return { dirs: [...new Set(dirs)], refused };
}

/** Credentials inside kept toolchain directories, covered like the checkout's. */
const TOOLCHAIN_SECRETS = ['.cargo/credentials', '.cargo/credentials.toml'];

/** The environment a sandboxed command gets on top of the allow-listed one: its HOME and temp. Pure. */
export function sandboxEnv(env: Record<string, string>, spec: SandboxSpec): Record<string, string> {
  const tmp = path.join(spec.state, 'tmp');
  return { ...env, TMPDIR: tmp, TMP: tmp, TEMP: tmp, HOME: spec.home || path.join(spec.state, 'home') };
}

export interface ProbeEnv {
  /** Runs argv, returns exit code and stdout. */
  run(argv: string[]): { code: number | null; stdout: string };
  isRoot: boolean;
  githubHosted: boolean;
  /** AGENT_FIX_SANDBOX=off: the workflow author turned the sandbox off (the report says so). */
  disabled?: boolean;
  log?: (m: string) => void;
}

/** What the probe's command prints inside a working sandbox (see `works`). */
export function sandboxHolds(out: string): boolean {
  return /^CapEff:\s*0+$/m.test(out) && /^NoNewPrivs:\s*1$/m.test(out) && /^PID1 /m.test(out) && /^RO$/m.test(out) && /^NET lo\s*$/m.test(out);
}

const PROBE_CMD = 'grep -E "^(CapEff|NoNewPrivs):" /proc/self/status; echo "PID1 $(cat /proc/1/comm)"; touch /etc/.agent-fix-probe 2>/dev/null && echo RW || echo RO; echo "NET $(tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | tr "\\n" " ")"';

function works(env: ProbeEnv, wrapper: string[]): boolean {
  const r = env.run([...wrapper, 'sh', '-c', PROBE_CMD]);
  return r.code === 0 && sandboxHolds(r.stdout);
}

/**
 * Pure decision given a probe environment (tests inject one) and the probe sandboxes to try, in
 * order of preference (the perl launcher, then the shell one).
 */
export function chooseSandbox(env: ProbeEnv, candidates: { launcher: Launcher; wrapper: string[] }[]): SandboxProbe & { notes: string[] } {
  const notes: string[] = [];
  const who = env.isRoot ? 'as root' : 'unprivileged';
  const ok = (c: { launcher: Launcher; wrapper: string[] }): SandboxProbe & { notes: string[] } => ({
    mode: 'namespaces',
    launcher: c.launcher,
    wrapper: c.wrapper,
    description: `its own user, PID, mount and network namespaces, no capabilities, a read-only filesystem outside the repository (unshare + ${c.launcher === 'perl' ? 'perl' : 'setpriv'}, ${who})`,
    notes,
  });
  const none = (why: string) => ({ mode: 'none' as const, wrapper: [], description: `NOT sandboxed: ${why}`, notes });
  if (env.disabled) return none('turned off by AGENT_FIX_SANDBOX=off');
  const first = () => candidates.find((c) => works(env, c.wrapper));
  let found = first();
  if (found) return ok(found);
  notes.push('user namespaces (unshare --user) unavailable or not working');
  if (env.githubHosted && !env.isRoot && env.run(['sudo', '-n', 'true']).code === 0) {
    const r = env.run(['sudo', '-n', 'sysctl', '-w', 'kernel.apparmor_restrict_unprivileged_userns=0']);
    env.log?.(`sandbox: allowing unprivileged user namespaces on this GitHub-hosted runner (sysctl exit ${r.code})`);
    found = r.code === 0 ? first() : undefined;
    if (found) return ok(found);
    notes.push('sudo sysctl did not enable user namespaces');
  }
  return none(`the repository's commands run with agent-fix's own user, its processes, files and network (${notes.join('; ')})`);
}

let cached: SandboxProbe | null = null;
/** The temp directory before any run's sandbox set TMPDIR (openSandbox). */
const ORIGINAL_TMP = os.tmpdir();

/** Private directories of one sandbox (HOME, temp), removed when the process exits. */
function stateDir(): string {
  const dir = mkdtempSync(path.join(ORIGINAL_TMP, 'agent-fix-sandbox-'));
  mkdirSync(path.join(dir, 'home'), { mode: 0o700 });
  mkdirSync(path.join(dir, 'tmp'));
  chmodSync(path.join(dir, 'tmp'), 0o1777);
  chmodSync(dir, 0o755);
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

/** Probes the real system once per process. */
export function probeSandbox(log?: (m: string) => void): SandboxProbe {
  if (cached) return cached;
  const state = stateDir();
  const repo = path.join(state, 'tmp', 'probe-repo');
  mkdirSync(repo);
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
    log,
  };
  if (process.platform !== 'linux') {
    cached = { mode: 'none', wrapper: [], description: `NOT sandboxed: ${process.platform} has no Linux namespaces; the repository's commands run with agent-fix's own user, processes, files and network` };
    return cached;
  }
  const spec: SandboxSpec = { repo, state, home: '', cover: [] };
  const perl = process.arch === 'x64' || process.arch === 'arm64' ? [{ launcher: 'perl' as const, wrapper: sandboxArgv(spec, false, 'perl') }] : [];
  const { notes: _notes, ...probe } = chooseSandbox(env, [...perl, { launcher: 'sh', wrapper: sandboxArgv(spec, false, 'sh') }]);
  cached = probe;
  return probe;
}

/** One run's sandbox: the same private HOME and temp for all its commands. */
export interface RunSandbox {
  mode: SandboxMode;
  /** Wrapper for a command with or without the network (and the checkout read-only too); undefined when not sandboxed. */
  wrapper(network: boolean, readOnlyRepo?: boolean): string[] | undefined;
  /** The command's environment inside the sandbox (HOME, TMPDIR). */
  env(base: Record<string, string>): Record<string, string>;
  /** How many files holding the checkout's credential are covered. */
  covered: number;
}

/** Sets up the per-run state of the sandbox for the repository at `root`, hiding `cover` and HOME. */
export function openSandbox(probe: SandboxProbe, root: string, cover: string[], home = process.env.HOME, log?: (m: string) => void): RunSandbox {
  if (probe.mode === 'none') return { mode: 'none', wrapper: () => undefined, env: (b) => b, covered: 0 };
  const repo = realpathSync(root);
  const hidden = homeToHide(home, repo, isDir);
  const secrets = hidden ? TOOLCHAIN_SECRETS.map((f) => path.join(hidden, f)) : [];
  const spec: SandboxSpec = {
    repo,
    state: stateDir(),
    home: hidden,
    cover: [...cover, ...secrets].filter((f) => existsSync(f)),
    keep: [],
  };
  // Extra readable directories anywhere need the perl launcher (it binds them from descriptors opened
  // before /tmp is covered); the sh one reaches only those under the hidden HOME.
  const extra = extraReadable(process.env.AGENT_FIX_SANDBOX_READ, isDir, realpathSync);
  // HOME itself (or a directory holding it) would show the credentials the private HOME hides.
  const holdsHome = (d: string) => d === '/' || (hidden !== '' && (d === hidden || hidden.startsWith(`${d}/`)));
  for (const d of extra.dirs.filter(holdsHome)) extra.refused.push(`${d} (holds HOME, whose credentials stay hidden: list the directory inside it)`);
  const reachable = extra.dirs.filter((d) => !holdsHome(d) && (probe.launcher === 'perl' || (hidden !== '' && d.startsWith(`${hidden}/`))));
  for (const d of extra.dirs.filter((x) => !holdsHome(x) && !reachable.includes(x))) extra.refused.push(`${d} (outside HOME: needs perl for the sandbox's launcher)`);
  if (extra.refused.length > 0) log?.(`sandbox: AGENT_FIX_SANDBOX_READ: left out ${extra.refused.join('; ')}`);
  const kept = [...toolchainDirs(hidden, process.env, isDir), ...reachable].filter((d) => d !== repo && !repo.startsWith(`${d}/`) && !d.startsWith(`${repo}/`));
  spec.keep = [...new Set(kept)].sort().filter((d, _i, all) => !all.some((o) => o !== d && d.startsWith(`${o}/`)));
  // What agent-fix hands to the commands through its temp (reporter files, checker output) must be
  // where they can write it: the run's private temp, bound at the same path inside. agent-fix's own
  // git keeps its indexes in the temp it started with (adapters/git.ts), hidden from the commands.
  process.env.TMPDIR = path.join(spec.state, 'tmp');
  return { mode: probe.mode, wrapper: (network, readOnlyRepo) => sandboxArgv(spec, network, probe.launcher ?? 'sh', process.arch, readOnlyRepo), env: (b) => sandboxEnv(b, spec), covered: spec.cover.length };
}

export interface CommandIsolation {
  wrapper: string[] | undefined;
  /** "tests: no network (…)" */
  line: string;
  /** Network wanted off but no isolation available. */
  unavailable: boolean;
}

/** What to wrap one kind of command with, given whether it may use the network. */
export function isolationFor(kind: 'setup' | 'tests', networkAllowed: boolean, probe: SandboxProbe, run?: RunSandbox): CommandIsolation {
  if (probe.mode === 'none') {
    return { wrapper: undefined, line: `${kind}: ${probe.description}`, unavailable: !networkAllowed };
  }
  const wrapper = run?.wrapper(networkAllowed) ?? probe.wrapper;
  const net = networkAllowed ? 'network allowed by the policy' : 'no network';
  const cover = run && run.covered > 0 ? `; the push credential in ${run.covered} git config file(s) is hidden from them` : '';
  return { wrapper, line: `${kind}: sandboxed (${probe.description}), ${net}${cover}`, unavailable: false };
}

export type RequireSandbox = 'always' | 'github-hosted' | 'never';

/** Whether the policy refuses to run the repository's commands here. Pure. */
export function sandboxRefused(require: RequireSandbox, mode: SandboxMode, githubHosted: boolean): boolean {
  if (mode !== 'none') return false;
  return require === 'always' || (require === 'github-hosted' && githubHosted);
}
