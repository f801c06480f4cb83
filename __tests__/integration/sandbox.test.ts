/**
 * The sandbox of the repository's commands (src/sandbox/sandbox.ts): the pure choice, then the
 * real thing on this machine through the shell adapter (each attack once with the sandbox and
 * once without it, which shows the attack itself works). End to end through the bundle, as root
 * and as an unprivileged user: __tests__/e2e/e2e-sandbox.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filesFromShowOrigin } from '../../src/sandbox/credentials.js';
import { chooseSandbox, homeToHide, isolationFor, openSandbox, probeSandbox, sandboxHolds, sandboxRefused, type ProbeEnv } from '../../src/sandbox/sandbox.js';
import { keptDirs, keptSecrets } from '../../src/sandbox/home.js';
import { inContainer, platformWithoutSandbox, type PlatformFacts } from '../../src/sandbox/platform.js';
import { launchPlan, type SandboxLayout } from '../../src/sandbox/plan.js';
import { makeShell } from '../../src/adapters/shell.js';
import { childEnv } from '../../src/verify/env.js';
import { mainWorld, FIX_STEPS, botComments } from '../../test-support/run-main.js';
import { cleanupFixtures, cloneShallow, makeRepo } from '../../test-support/git-fixture.js';
import { authConfig, openGit, transportConfig } from '../../src/adapters/git.js';
import { withConfig } from '../../src/ports/git-filters.js';

afterAll(() => cleanupFixtures());

const HOLDS = 'CapEff:\t0000000000000000\nNoNewPrivs:\t1\nPID1 sh\nRO\nNET lo \nLAYER\n';

function env(works: { ns?: boolean; sudo?: boolean; sysctlFixes?: boolean }, over: Partial<ProbeEnv> = {}): ProbeEnv & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    isRoot: false,
    githubHosted: false,
    run(argv) {
      calls.push(argv);
      const key = argv[0] === 'sudo' ? argv.slice(0, 3).join(' ') : argv[0];
      if (key === 'sudo -n true') return { code: works.sudo ? 0 : 1, stdout: '' };
      if (key === 'sudo -n sysctl') {
        works.ns = works.sysctlFixes;
        return { code: 0, stdout: '' };
      }
      return works.ns ? { code: 0, stdout: HOLDS } : { code: 1, stdout: '' };
    },
    ...over,
  };
}

describe('choosing the sandbox (pure)', () => {
  test('namespaces when they work, as root and unprivileged', () => {
    expect(chooseSandbox(env({ ns: true }, { isRoot: true }), ['unshare']).description).toMatch(/as root\)$/);
    expect(chooseSandbox(env({ ns: true }), ['unshare']).mode).toBe('namespaces');
  });
  test('GitHub-hosted Ubuntu 24.04: sudo sysctl lifts the AppArmor restriction, then namespaces', () => {
    const e = env({ sudo: true, sysctlFixes: true }, { githubHosted: true });
    expect(chooseSandbox(e, ['unshare']).mode).toBe('namespaces');
    expect(e.calls.some((c) => c.join(' ') === 'sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0')).toBe(true);
  });
  test('self-hosted runners are never reconfigured; no sandbox is said plainly', () => {
    const e = env({ sudo: true, sysctlFixes: true });
    const p = chooseSandbox(e, ['unshare']);
    expect(p.mode).toBe('none');
    expect(e.calls.some((c) => c[0] === 'sudo')).toBe(false);
    expect(p.description).toMatch(/^NOT sandboxed: .*agent-fix's own user/);
    expect(isolationFor('tests', false, p)).toMatchObject({ unavailable: true, line: expect.stringContaining('NOT sandboxed') });
  });
  test('AGENT_FIX_SANDBOX=off turns it off, and says so', () => {
    expect(chooseSandbox(env({ ns: true }, { disabled: true }), ['unshare']).description).toContain('turned off by AGENT_FIX_SANDBOX=off');
  });
  test('a sandbox that starts but keeps a capability, a writable root or a network interface does not count', () => {
    expect(sandboxHolds(HOLDS)).toBe(true);
    expect(sandboxHolds(HOLDS.replace('CapEff:\t0000000000000000', 'CapEff:\t000001ffffffffff'))).toBe(false);
    expect(sandboxHolds(HOLDS.replace('RO', 'RW'))).toBe(false);
    expect(sandboxHolds(HOLDS.replace('NET lo ', 'NET lo eth0 '))).toBe(false);
    expect(sandboxHolds(HOLDS.replace('NoNewPrivs:\t1', 'NoNewPrivs:\t0'))).toBe(false);
    expect(sandboxHolds(HOLDS.replace('LAYER\n', ''))).toBe(false);
  });
  test('the policy refuses where it must', () => {
    expect(sandboxRefused('github-hosted', 'none', true)).toBe(true);
    expect(sandboxRefused('github-hosted', 'none', false)).toBe(false);
    expect(sandboxRefused('always', 'none', false)).toBe(true);
    expect(sandboxRefused('never', 'none', true)).toBe(false);
    expect(sandboxRefused('always', 'namespaces', true)).toBe(false);
  });
  test('which HOME is hidden', () => {
    const dir = () => true;
    expect(homeToHide('/home/runner', '/home/runner/work/r/r', dir)).toBe('/home/runner');
    expect(homeToHide('/', '/repo', dir)).toBe('');
    expect(homeToHide('/repo/sub', '/repo', dir)).toBe('');
    expect(homeToHide('/nonexistent', '/repo', () => false)).toBe('');
    expect(homeToHide(undefined, '/repo', dir)).toBe('');
  });
  test('caches and toolchains kept from HOME: the usual directories, the variables, PATH entries under HOME; none nested, none holding a credential', () => {
    const dirs = new Set(['/h/.cargo', '/h/.rustup', '/h/.cargo/bin', '/h/tools/bin', '/opt/x/bin', '/h/my dir', '/h/.cache', '/h/setup-pnpm', '/h/.ssh', '/h/.config']);
    const isDir = (p: string) => dirs.has(p);
    expect(keptDirs('/h', { PATH: '/h/.cargo/bin:/h/tools/bin:/opt/x/bin:/usr/bin:/h/.ssh', RUSTUP_HOME: '/h/.rustup', PNPM_HOME: '/h/my dir', X: '/h/.config' }, isDir)).toEqual(['/h/.cache', '/h/.cargo', '/h/.rustup', '/h/my dir', '/h/setup-pnpm', '/h/tools/bin']);
    expect(keptDirs('', { PATH: '/h/.cargo/bin' }, isDir)).toEqual([]);
  });
  test('credentials inside kept directories are covered', () => {
    expect(keptSecrets('/h', ['/h/.cargo', '/h/.cache'], (f) => f !== '/h/.cargo/credentials')).toEqual(['/h/.cargo/credentials.toml', '/h/.cache/huggingface/token', '/h/.cache/huggingface/stored_tokens']);
    expect(keptSecrets('/h', ['/h/.rustup'], () => true)).toEqual([]);
  });
  test('each platform without a sandbox says why and what to change', () => {
    const facts = (over: Partial<PlatformFacts>): PlatformFacts => ({ platform: 'linux', arch: 'x64', env: {}, exists: () => false, read: () => '', ...over });
    expect(platformWithoutSandbox(facts({}))).toBe('');
    expect(platformWithoutSandbox(facts({ platform: 'darwin' }))).toMatch(/^this is macOS.*`ubuntu-latest`.*require-sandbox: never.*the job's user, its files, its network/);
    expect(platformWithoutSandbox(facts({ platform: 'win32' }))).toMatch(/^this is Windows/);
    expect(platformWithoutSandbox(facts({ arch: 'ia32' }))).toContain('not ia32');
    const docker = platformWithoutSandbox(facts({ exists: (p) => p === '/.dockerenv' }));
    expect(docker).toMatch(/runs in a container \(docker\).*`options: --privileged`.*run the job on the runner itself.*require-sandbox: never/);
    expect(inContainer(facts({ read: () => '0::/kubepods/burstable/pod1' }))).toBe('container');
    expect(inContainer(facts({ exists: (p) => p === '/run/.containerenv' }))).toBe('podman');
    expect(platformWithoutSandbox(facts({ env: { ACT: 'true' }, exists: () => true }))).toMatch(/^this job runs under act.*--container-options "--privileged"/);
  });
  test('the reason of the platform reaches the refusal', () => {
    const p = chooseSandbox(env({ ns: false }, { githubHosted: true, platform: 'this job runs in a container (docker) whose ...: add `options: --privileged`' }), ['unshare']);
    expect(p.mode).toBe('none');
    expect(p.description).toMatch(/^NOT sandboxed: this job runs in a container \(docker\).*--privileged`\. The repository's commands run/);
  });
  test('the launcher plan: setup writes the checkout and its own .git layer; a test run gets fresh layers over everything writable', () => {
    const layout: SandboxLayout = { repo: '/w/r', git: 'dir', state: '/s', home: '/h', kept: ['/h/.cache'], readable: ['/opt/shared'], coverFiles: ['/rt/git-credentials.config'], resolver: false, exports: ['.jest-result.json'] };
    const setup = launchPlan(layout, 'setup', true);
    expect(setup).toEqual(expect.arrayContaining(['bind\t@repo\t/w/r', 'overlay\t/w/r/.git\t@repo/.git\t@setup/layer/.git\t@setup/work', 'bind\t@home\t/h', 'overlay\t/h/.cache\t@k0\t@ku0/upper\t@ku0/work', 'bind\t@r0\t/opt/shared', 'cover-file\t/rt/git-credentials.config', 'readonly']));
    expect(setup).not.toContain('loopback');
    expect(setup).not.toContain('stage');
    const tests = launchPlan(layout, 'tests', false);
    expect(tests).toEqual(expect.arrayContaining(['stage', 'overlay\t/w/r\t@setup/layer,@repo\t-\t-', 'overlay\t/h\t@home\t-\t-', 'overlay\t/h/.cache\t@ku0/upper,@k0\t-\t-', 'unstage', 'loopback']));
    expect(tests.some((t) => t.startsWith('bind\t@repo'))).toBe(false);
    // a runner's own report file in the checkout outlives the layer, writable, and only that file
    expect(tests).toEqual(expect.arrayContaining(['bind-file\t@out/exports/0\t/w/r/.jest-result.json', 'writable\t/w/r/.jest-result.json']));
    expect(setup.some((t) => t.startsWith('bind-file'))).toBe(false);
    // the checkout is mounted after HOME (it may live under it), the covers after both, then read-only
    const at = (x: string) => tests.findIndex((t) => t.startsWith(x));
    expect(at('overlay\t/h\t')).toBeLessThan(at('overlay\t/w/r\t'));
    expect(at('overlay\t/w/r\t')).toBeLessThan(at('cover-file'));
    expect(at('cover-file')).toBeLessThan(at('readonly'));
    // a worktree's .git file stays read-only for setup
    expect(launchPlan({ ...layout, git: 'file' }, 'setup', true)).toContain('bind\t/w/r/.git\t/w/r/.git');
    expect(launchPlan({ ...layout, git: 'file' }, 'tests', false)).toContain('overlay\t/w/r\t@repo\t-\t-');
  });
  test('git config --show-origin parsing', () => {
    expect(filesFromShowOrigin('file:.git/config\thttp.https://github.com/.extraheader AUTHORIZATION: basic x\nfile:/tmp/creds.config\thttp.https://github.com/.extraheader y\n')).toEqual(['.git/config', '/tmp/creds.config']);
  });
});

describe("agent-fix's own git: a configuration no command can write", () => {
  test('transport, URL and token (pure)', () => {
    expect(transportConfig('https://github.com/o/r')).toContain('protocol.file.allow=never');
    expect(transportConfig('file:///tmp/r.git')).toContain('protocol.file.allow=always');
    expect(transportConfig(null)).toEqual(expect.arrayContaining(['protocol.allow=never', 'protocol.https.allow=always', 'credential.helper=', 'core.askPass=']));
    const auth = { token: 'ghs_x', serverUrl: 'https://github.com' };
    expect(authConfig(auth, 'https://github.com/o/r')).toEqual([
      ['http.https://github.com/.extraheader', ''],
      ['http.https://github.com/.extraheader', `AUTHORIZATION: basic ${Buffer.from('x-access-token:ghs_x').toString('base64')}`],
    ]);
    expect(authConfig(auth, 'https://evil.example/o/r')).toEqual([]);
    expect(authConfig(auth, 'file:///tmp/r.git')).toEqual([]);
    expect(withConfig({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'a', GIT_CONFIG_VALUE_0: 'b' }, [['c', 'd']])).toEqual({ GIT_CONFIG_COUNT: '2', GIT_CONFIG_KEY_0: 'a', GIT_CONFIG_VALUE_0: 'b', GIT_CONFIG_KEY_1: 'c', GIT_CONFIG_VALUE_1: 'd' });
  });

  test('a ~/.gitconfig written after agent-fix started is not read; a changed .git/config stops fetch and push', async () => {
    const home = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'agent-fix-home-')));
    const saved = process.env.HOME;
    process.env.HOME = home;
    try {
      const repo = makeRepo({ 'a.txt': 'a\n' });
      const checkout = cloneShallow(repo.remoteUrl).dir;
      const git = await openGit(checkout);
      const marker = path.join(home, 'pwned');
      const transport = `[protocol "ext"]\n\tallow = always\n[url "ext::sh -c touch% ${marker}% >&2% "]\n\tinsteadOf = file://\n[credential]\n\thelper = !touch ${marker}-helper\n`;
      // control: git itself follows that configuration
      writeFileSync(path.join(home, '.gitconfig'), transport);
      spawnSync('git', ['ls-remote', repo.remoteUrl], { cwd: checkout, env: { ...process.env, HOME: home }, stdio: 'ignore' });
      expect(existsSync(marker)).toBe(true);
      rmSync(marker);
      // agent-fix's git: the copy taken before, no ext transport, the fetch works
      expect(await git.fetchBranch('origin', 'main')).toBe(repo.sha);
      expect(existsSync(marker)).toBe(false);
      appendFileSync(path.join(checkout, '.git', 'config'), transport);
      await expect(git.fetchBranch('origin', 'main')).rejects.toThrow(/git configuration .* changed since agent-fix started/);
      expect(existsSync(marker)).toBe(false);
    } finally {
      process.env.HOME = saved;
    }
  });
});

describe('on this machine', () => {
  const probe = probeSandbox();
  const shell = makeShell();
  const sandboxed = probe.mode === 'namespaces' ? test : test.skip;

  function world() {
    const base = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'agent-fix-sbx-')));
    const repo = path.join(base, 'repo');
    const home = path.join(base, 'home');
    mkdirSync(path.join(repo, '.git'), { recursive: true });
    mkdirSync(home);
    writeFileSync(path.join(repo, '.git', 'config'), '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n');
    writeFileSync(path.join(home, '.git-credentials'), 'https://x:ghp_HOMESECRET@github.com\n');
    mkdirSync(path.join(home, '.cargo', 'bin'), { recursive: true });
    writeFileSync(path.join(home, '.cargo', 'bin', 'tool'), 'TOOLCHAIN\n');
    writeFileSync(path.join(home, '.cargo', 'credentials.toml'), '[registry]\ntoken = "cio_CARGOSECRET"\n');
    writeFileSync(path.join(base, 'outside.txt'), 'trusted\n');
    const box = openSandbox(probe, repo, [path.join(repo, '.git', 'config')], home);
    const opts = (kind: 'setup' | 'tests', network = kind === 'setup') => ({ cwd: repo, timeoutMs: 20_000, env: box.env(childEnv({ ...process.env, HOME: home })), maxOutputChars: 20_000, wrapper: box.wrapper(kind, network) });
    return { base, repo, home, opts };
  }

  test('the probe says what it found', () => {
    expect(['namespaces', 'none']).toContain(probe.mode);
    expect(probe.description.length).toBeGreaterThan(5);
  });

  sandboxed('inside: no capability, own PID namespace, read-only outside the repository, private HOME, credential covered; all of it readable without', async () => {
    const w = world();
    const script = [
      'grep CapEff /proc/self/status',
      'echo "pids $(ls /proc | grep -c "^[0-9]")"',
      `cat ${w.home}/.git-credentials 2>/dev/null || echo "no home secret"`,
      'cat .git/config 2>/dev/null | grep -c extraheader || true',
      `echo hacked >> ${w.base}/outside.txt 2>/dev/null || echo "outside read-only"`,
      'echo hacked > .git/pre-push && echo "git layer writable"',
      'echo built > build.txt && echo "repo writable"',
      'echo x > "$TMPDIR/t" && echo "temp writable"',
      'umount .git/config 2>/dev/null || echo "no umount"',
      '[ -w /proc/sys/kernel/core_pattern ] && echo "sysctl writable" || echo "sysctl read-only"',
      'echo "devices: $(ls /dev | tr "\\n" " ")"',
      'echo "run: $(ls /run 2>/dev/null | tr "\\n" " ")"',
      `cat ${w.home}/.cargo/bin/tool; cat ${w.home}/.cargo/credentials.toml`,
      `echo x >> ${w.home}/.cargo/bin/tool && echo "toolchain layer writable"`,
      'exit 3',
    ].join('; ');
    const r = await shell.run(script, w.opts('setup', false));
    expect(r.exitCode).toBe(3);
    expect(r.output).toMatch(/CapEff:\s*0+\n/);
    expect(Number(/pids (\d+)/.exec(r.output)?.[1])).toBeLessThan(6);
    expect(r.output).toContain('no home secret');
    expect(r.output).toMatch(/^0$/m);
    expect(r.output).toContain('git layer writable');
    expect(existsSync(path.join(w.repo, '.git', 'pre-push'))).toBe(false);
    expect(r.output).toContain('repo writable');
    expect(r.output).toContain('temp writable');
    expect(r.output).toContain('no umount');
    expect(r.output).toContain('sysctl read-only');
    expect(r.output).toContain('TOOLCHAIN');
    expect(r.output).toContain('toolchain layer writable');
    expect(readFileSync(path.join(w.home, '.cargo', 'bin', 'tool'), 'utf8')).toBe('TOOLCHAIN\n');
    expect(r.output).not.toContain('cio_CARGOSECRET');
    expect(r.output).toContain('devices: fd full null pts random shm stderr stdin stdout tty urandom zero');
    expect(r.output).not.toMatch(/run: .*(dbus|docker|user)/);
    expect(readFileSync(path.join(w.base, 'outside.txt'), 'utf8')).toBe('trusted\n');
    expect(readFileSync(path.join(w.repo, 'build.txt'), 'utf8')).toBe('built\n');
    // a test run (or checker) writes its own copy-on-write layer: gone when it ends
    const checker = await shell.run('echo x >> build.txt && echo y > "$TMPDIR/report.json" && echo "layer writable"', w.opts('tests'));
    expect(checker.output).toContain('layer writable');
    expect(readFileSync(path.join(w.repo, 'build.txt'), 'utf8')).toBe('built\n');
    // control: the same script without the sandbox reads and writes all of it
    const open = await shell.run(script, { ...w.opts('setup', false), wrapper: undefined, env: childEnv({ ...process.env, HOME: w.home }) });
    expect(open.output).toContain('ghp_HOMESECRET');
    expect(open.output).toMatch(/^1$/m);
    if (process.getuid?.() === 0) expect(open.output).toContain('sysctl writable');
    if (existsSync('/run/dbus')) expect(open.output).toMatch(/run: .*dbus/);
    expect(readFileSync(path.join(w.base, 'outside.txt'), 'utf8')).toBe('trusted\nhacked\n');
  });

  sandboxed('AGENT_FIX_SANDBOX_READ: a directory outside the checkout (a node_modules it links to, under /tmp) is read-only and readable only when listed', async () => {
    const w = world();
    const shared = path.join(w.base, 'shared-modules');
    mkdirSync(path.join(shared, 'dep'), { recursive: true });
    writeFileSync(path.join(shared, 'dep', 'index.js'), 'SHARED\n');
    symlinkSync(shared, path.join(w.repo, 'node_modules'));
    const script = 'cat node_modules/dep/index.js 2>/dev/null || echo "not visible"; echo x >> node_modules/dep/index.js 2>/dev/null || echo "read-only"';
    const saved = process.env.AGENT_FIX_SANDBOX_READ;
    const logs: string[] = [];
    try {
      process.env.AGENT_FIX_SANDBOX_READ = `${shared}:relative/dir:${path.join(w.base, 'missing')}:${w.home}:${w.base}`;
      const box = openSandbox(probe, w.repo, [], w.home, (m) => logs.push(m));
      const r = await shell.run(script, { ...w.opts('tests'), wrapper: box.wrapper('tests', false), env: box.env(childEnv({ ...process.env, HOME: w.home })) });
      expect(r.output).toContain('SHARED');
      expect(r.output).toContain('read-only');
      // HOME, and a directory holding it, are refused: the home secret stays hidden
      const home = await shell.run(`cat ${w.home}/.git-credentials 2>/dev/null || echo "no home secret"`, { ...w.opts('tests'), wrapper: box.wrapper('tests', false), env: box.env(childEnv({ ...process.env, HOME: w.home })) });
      expect(home.output).toContain('no home secret');
    } finally {
      if (saved === undefined) delete process.env.AGENT_FIX_SANDBOX_READ;
      else process.env.AGENT_FIX_SANDBOX_READ = saved;
    }
    expect(logs.join('\n')).toMatch(/left out relative\/dir \(not an absolute path.*missing \(not a directory\)/);
    expect(logs.join('\n')).toContain(`${w.home} (holds HOME`);
    expect(logs.join('\n')).toContain(`${w.base} (holds HOME`);
    expect(readFileSync(path.join(shared, 'dep', 'index.js'), 'utf8')).toBe('SHARED\n');
    // control: not listed, the sandbox's empty /tmp hides it
    const hidden = await shell.run(script, w.opts('tests'));
    expect(hidden.output).toContain('not visible');
  });

  sandboxed("a runner's own report file in the checkout reaches agent-fix; nothing else the run wrote does", async () => {
    const w = world();
    const box = openSandbox(probe, w.repo, [], w.home);
    const exported = box.exportFile('.jest-result.json');
    expect(exported.startsWith(w.repo)).toBe(false);
    const run = (cmd: string) => shell.run(cmd, { ...w.opts('tests'), wrapper: box.wrapper('tests', false), env: box.env(childEnv({ ...process.env, HOME: w.home })) });
    await run('echo \'{"numTotalTests":1}\' > .jest-result.json && echo other > other.json');
    expect(readFileSync(exported, 'utf8')).toBe('{"numTotalTests":1}\n');
    expect(existsSync(path.join(w.repo, '.jest-result.json'))).toBe(false);
    expect(existsSync(path.join(w.repo, 'other.json'))).toBe(false);
    // the file outlives the run at that host path only; agent-fix empties it before each run (verify/session.ts)
    const next = await run('echo "size $(wc -c < .jest-result.json)"');
    expect(next.output).toContain('size 20');
    // a path outside the checkout or into .git is not exported
    expect(box.exportFile('../x.json')).toBe(path.join(w.base, 'x.json'));
    expect(box.exportFile('.git/config')).toBe(path.join(w.repo, '.git', 'config'));
  });

  sandboxed('nothing outlives the command: a setsid daemon dies with it; a timeout kills the namespace', async () => {
    const w = world();
    const marker = path.join(w.repo, 'daemon.txt');
    const r = await shell.run(`setsid sh -c 'sleep 1; echo alive > ${marker}' >/dev/null 2>&1 < /dev/null & sleep 0.3; echo started`, w.opts('tests'));
    expect(r.output).toContain('started');
    const hang = await shell.run('sleep 30 & sleep 30', { ...w.opts('tests'), timeoutMs: 300 });
    expect(hang.timedOut).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(() => readFileSync(marker)).toThrow();
    // control: without the sandbox the daemon survives the command
    await shell.run(`setsid sh -c 'sleep 1; echo alive > ${marker}' >/dev/null 2>&1 < /dev/null & sleep 0.3; echo started`, { ...w.opts('tests'), wrapper: undefined });
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(readFileSync(marker, 'utf8')).toBe('alive\n');
  });

  sandboxed('the network: none for tests (loopback works), kept for setup', async () => {
    const w = world();
    const out = await shell.run('tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort | tr "\\n" " "', w.opts('tests'));
    expect(out.output.trim()).toBe('lo');
    const loop = await shell.run(`node -e "const s=require('http').createServer((q,r)=>r.end('in')).listen(0,'127.0.0.1',()=>fetch('http://127.0.0.1:'+s.address().port).then(r=>r.text()).then(t=>{console.log('LOOPBACK '+t);s.close()}))"`, w.opts('tests'));
    expect(loop.output).toContain('LOOPBACK in');
    const setup = await shell.run('tail -n +3 /proc/net/dev | cut -d: -f1 | tr -d " " | sort | tr "\\n" " "', w.opts('setup'));
    expect(setup.output.trim()).not.toBe('lo');
  });
});

describe('require-isolation', () => {
  test('with no isolation available, the run stops before running anything', async () => {
    const w = await mainWorld({ steps: FIX_STEPS });
    try {
      w.github.setFile('.github/agent-fix.yml', 'sandbox:\n  require-isolation: true\n');
      const r = await w.run({ overrides: { sandbox: { mode: 'none', description: 'NOT sandboxed (test)' } } });
      expect(r.rt.outputs.status).toBe('error');
      expect(w.model.requests).toHaveLength(0);
      expect(botComments(w.github)[0].body).toContain('requires network isolation (sandbox.require-isolation) but none is available here');
    } finally {
      await w.close();
    }
  });
  test('require-sandbox: always refuses to run model code without the sandbox', async () => {
    const w = await mainWorld({ steps: FIX_STEPS });
    try {
      w.github.setFile('.github/agent-fix.yml', 'sandbox:\n  require-sandbox: always\n');
      const r = await w.run({ overrides: { sandbox: { mode: 'none', description: 'NOT sandboxed: test' } } });
      expect(r.rt.outputs.status).toBe('error');
      expect(w.model.requests).toHaveLength(0);
      expect(botComments(w.github)[0].body).toContain('sandbox.require-sandbox: always');
    } finally {
      await w.close();
    }
  });
});
