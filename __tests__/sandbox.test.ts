import { createServer } from 'node:http';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { filesFromShowOrigin, hidingWorks, hidingWrapper } from '../src/sandbox/credentials.js';
import { chooseSandbox, isolationFor, nonLoopbackInterfaces, probeSandbox, wrapperFor, type ProbeEnv } from '../src/sandbox/sandbox.js';
import { makeShell } from '../src/adapters/shell.js';
import { childEnv } from '../src/verify/env.js';
import { mainWorld, FIX_STEPS, botComments } from '../test-support/run-main.js';
import { cleanupFixtures } from '../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

const PROC_LO = 'Inter-|   Receive\n face |bytes\n    lo: 0 0\n';
const PROC_ETH = `${PROC_LO}  eth0: 1 2\n`;

function env(works: Partial<Record<string, boolean>>, over: Partial<ProbeEnv> = {}): ProbeEnv & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    isRoot: false,
    githubHosted: false,
    run(argv) {
      calls.push(argv);
      const key = argv[0] === 'sudo' ? argv.slice(0, 3).join(' ') : argv.includes('--user') ? 'userns' : argv[0];
      if (key === 'sudo -n true') return { code: works.sudo ? 0 : 1, stdout: '' };
      if (key === 'sudo -n sysctl') {
        works.userns = works.sysctlFixes;
        return { code: 0, stdout: '' };
      }
      return works[key] ? { code: 0, stdout: PROC_LO } : { code: 1, stdout: '' };
    },
    ...over,
  };
}

describe('choosing the sandbox (pure)', () => {
  test('root: unshare --net', () => {
    expect(chooseSandbox(env({ unshare: true }, { isRoot: true })).mode).toBe('unshare-root');
  });
  test('bubblewrap, then unprivileged user namespaces', () => {
    expect(chooseSandbox(env({ bwrap: true, userns: true })).mode).toBe('bwrap');
    expect(chooseSandbox(env({ userns: true })).mode).toBe('unshare-userns');
  });
  test('GitHub-hosted Ubuntu 24.04: sudo sysctl lifts the AppArmor restriction, then user namespaces', () => {
    const e = env({ sudo: true, sysctlFixes: true }, { githubHosted: true });
    expect(chooseSandbox(e).mode).toBe('unshare-userns');
    expect(e.calls.some((c) => c.join(' ') === 'sudo -n sysctl -w kernel.apparmor_restrict_unprivileged_userns=0')).toBe(true);
  });
  test('self-hosted runners are never reconfigured; no isolation is said plainly', () => {
    const e = env({ sudo: true, sysctlFixes: true }, { githubHosted: false });
    const p = chooseSandbox(e);
    expect(p.mode).toBe('none');
    expect(e.calls.some((c) => c[0] === 'sudo')).toBe(false);
    expect(p.description).toMatch(/^no network isolation \(/);
    expect(isolationFor('tests', false, p)).toMatchObject({ unavailable: true, line: expect.stringContaining('NOT isolated') });
  });
  test('a namespace that still shows a real interface does not count', () => {
    expect(nonLoopbackInterfaces(PROC_ETH)).toEqual(['eth0']);
    expect(nonLoopbackInterfaces(PROC_LO)).toEqual([]);
  });
  test('network allowed: no wrapper', () => {
    expect(isolationFor('setup', true, { mode: 'unshare-root', wrapper: wrapperFor('unshare-root'), description: 'x' })).toEqual({ wrapper: undefined, line: 'setup: network allowed by the policy', unavailable: false });
  });
});

describe('on this machine', () => {
  const probe = probeSandbox();
  const shell = makeShell();
  const opts = { cwd: process.cwd(), timeoutMs: 20_000, env: childEnv(process.env), maxOutputChars: 10_000 };

  test('the probe says what it found', () => {
    expect(['unshare-root', 'bwrap', 'unshare-userns', 'none']).toContain(probe.mode);
    expect(probe.description.length).toBeGreaterThan(5);
  });

  // every mode that works on this machine (root: unshare; bubblewrap when installed; user namespaces)
  const runnable = (['unshare-root', 'bwrap', 'unshare-userns'] as const).filter((mode) => {
    const r = spawnSync(wrapperFor(mode)[0], [...wrapperFor(mode).slice(1), 'cat', '/proc/net/dev'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
    return r.status === 0 && nonLoopbackInterfaces(r.stdout ?? '').length === 0;
  });

  (runnable.length === 0 ? test.skip : test).each(runnable.length ? runnable : ['none'])('%s: no route out, loopback works, exit codes and kills still work', async (mode) => {
    const wrapper = wrapperFor(mode as 'bwrap');
    let hits = 0;
    const server = createServer((_q, s) => {
      hits++;
      s.end('x');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    const port = (server.address() as { port: number }).port;
    try {
      const script = [
        `node -e "fetch('http://127.0.0.1:${port}').then(()=>console.log('OUT OPEN'),()=>console.log('OUT BLOCKED'))"`,
        `node -e "const s=require('http').createServer((q,r)=>r.end('in')).listen(0,'127.0.0.1',()=>fetch('http://127.0.0.1:'+s.address().port).then(r=>r.text()).then(t=>{console.log('LOOPBACK '+t);s.close()}))"`,
        'exit 3',
      ].join('; ');
      const r = await shell.run(script, { ...opts, wrapper });
      expect(r.output).toContain('OUT BLOCKED');
      expect(r.output).toContain('LOOPBACK in');
      expect(r.exitCode).toBe(3);
      expect(hits).toBe(0);
      const hang = await shell.run('sleep 30 & sleep 30', { ...opts, timeoutMs: 300, wrapper });
      expect(hang.timedOut).toBe(true);
    } finally {
      server.close();
    }
  });

  (runnable.length === 0 ? test.skip : test).each(runnable.length ? runnable : ['none'])('%s: a credential file is covered inside, untouched outside', async (mode) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-hide-'));
    const secretFile = path.join(dir, 'config');
    writeFileSync(secretFile, '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic c2VjcmV0\n');
    try {
      const wrapper = hidingWrapper(mode as 'bwrap', [secretFile])!;
      expect(hidingWorks(wrapper, secretFile)).toBe(true);
      const r = await shell.run(`wc -c < ${secretFile}; curl -sS -m 2 http://example.com >/dev/null 2>&1 || echo NO NET`, { ...opts, wrapper });
      expect(r.output).toMatch(/^0\s/);
      expect(r.output).toContain('NO NET');
      expect(readFileSync(secretFile, 'utf8')).toContain('extraheader');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('git config --show-origin parsing', () => {
    expect(filesFromShowOrigin('file:.git/config\thttp.https://github.com/.extraheader AUTHORIZATION: basic x\nfile:/tmp/creds.config\thttp.https://github.com/.extraheader y\n')).toEqual(['.git/config', '/tmp/creds.config']);
  });

  test('memory limit: a command allocating beyond it fails, within it succeeds', async () => {
    const alloc = (mb: number) => `python3 -c "x = bytearray(${mb} * 1024 * 1024); print('ALLOC OK')"`;
    const small = await shell.run(alloc(10), { ...opts, memoryMb: 256 });
    if (!small.output.includes('ALLOC OK')) return; // no python3 here: nothing to measure with
    const big = await shell.run(alloc(512), { ...opts, memoryMb: 256 });
    expect(big.exitCode).not.toBe(0);
    expect(big.output).toMatch(/MemoryError/);
  });
});

describe('require-isolation', () => {
  test('with no isolation available, the run stops before running anything', async () => {
    const w = await mainWorld({ steps: FIX_STEPS });
    try {
      w.github.setFile('.github/agent-fix.yml', 'sandbox:\n  require-isolation: true\n');
      const r = await w.run({ overrides: { sandbox: { mode: 'none', wrapper: [], description: 'no network isolation (test)' } } });
      expect(r.rt.outputs.status).toBe('error');
      expect(w.model.requests).toHaveLength(0);
      expect(botComments(w.github)[0].body).toContain('requires network isolation (sandbox.require-isolation) but none is available here');
    } finally {
      await w.close();
    }
  });
});
