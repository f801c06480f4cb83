import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CappedOutput, makeShell } from '../../src/adapters/shell.js';
import type { RunOptions } from '../../src/ports/shell.js';
import { childEnv } from '../../src/verify/env.js';

const shell = makeShell();
let dir: string;

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-shell-'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

function opts(over: Partial<RunOptions> = {}): RunOptions {
  return { cwd: dir, timeoutMs: 60_000, env: childEnv(process.env), maxOutputChars: 100_000, ...over };
}

/** Alive = exists and is not a zombie (an orphan's zombie may linger if PID 1 does not reap). */
function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

function pidsIn(output: string, label: string): number[] {
  return [...output.matchAll(new RegExp(`${label}:(\\d+)`, 'g'))].map((m) => Number(m[1]));
}

describe('makeShell().run', () => {
  test('reports exit codes and interleaves stdout and stderr in order', async () => {
    const ok = await shell.run('echo one; echo two >&2; echo three', opts());
    expect(ok.exitCode).toBe(0);
    expect(ok.signal).toBeNull();
    expect(ok.timedOut).toBe(false);
    expect(ok.truncated).toBe(false);
    expect(ok.output).toBe('one\ntwo\nthree\n');
    expect(ok.command).toBe('echo one; echo two >&2; echo three');
    expect(ok.spawnError).toBeUndefined();

    const bad = await shell.run('echo failing; exit 3', opts());
    expect(bad.exitCode).toBe(3);
    expect(bad.output).toBe('failing\n');
  });

  test('runs in the given cwd with bash', async () => {
    const r = await shell.run('pwd; echo "${BASH_VERSION:+bash}"; [[ 1 == 1 ]] && echo double-brackets', opts());
    expect(r.output.split('\n')[0]).toBe(dir);
    expect(r.output).toContain('bash\n');
    expect(r.output).toContain('double-brackets');
  });

  test('a missing command exits 127 with the shell message, without throwing', async () => {
    const r = await shell.run('definitely-not-a-command-agent-fix', opts());
    expect(r.exitCode).toBe(127);
    expect(r.output).toMatch(/definitely-not-a-command-agent-fix: (command )?not found/);
  });

  test('a missing working directory is a spawnError, not an exception', async () => {
    const r = await shell.run('echo hi', opts({ cwd: path.join(dir, 'does', 'not', 'exist') }));
    expect(r.spawnError).toMatch(/does not exist/);
    expect(r.exitCode).toBeNull();
  });

  test('reports the signal that killed the command', async () => {
    const r = await shell.run('echo before; kill -9 $$', opts());
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe('SIGKILL');
    expect(r.timedOut).toBe(false);
    expect(r.output).toContain('before');
  });

  test('the child sees only the given environment', async () => {
    process.env.AGENT_FIX_SHELL_TEST_SECRET = 'super-secret-value-123';
    process.env.AGENT_FIX_PLAIN = 'plain';
    try {
      const r = await shell.run('echo "[$AGENT_FIX_SHELL_TEST_SECRET][$AGENT_FIX_PLAIN][$CI]"; env', opts());
      expect(r.output).toContain('[][][true]');
      expect(r.output).not.toContain('super-secret-value-123');
      const explicit = await shell.run('echo "[$ONLY_THIS][$HOME]"', opts({ env: { ONLY_THIS: 'x', PATH: process.env.PATH ?? '' } }));
      expect(explicit.output).toBe('[x][]\n');
    } finally {
      delete process.env.AGENT_FIX_SHELL_TEST_SECRET;
      delete process.env.AGENT_FIX_PLAIN;
    }
  });

  test('stdin is closed', async () => {
    const r = await shell.run('cat; echo "read:$?"', opts());
    expect(r.output).toBe('read:0\n');
  });

  test('a hang is killed on timeout, with the children it spawned', async () => {
    const r = await shell.run('sleep 1000 & echo child:$!; sleep 1000', opts({ timeoutMs: 1000 }));
    expect(r.timedOut).toBe(true);
    expect(r.exitCode).toBeNull();
    expect(r.signal).toBe('SIGTERM');
    const [child] = pidsIn(r.output, 'child');
    expect(child).toBeGreaterThan(0);
    expect(isAlive(child)).toBe(false);
  });

  test('processes that ignore SIGTERM are killed with SIGKILL after the grace period', async () => {
    const r = await shell.run("trap '' TERM; sleep 1000 & echo child:$!; wait", opts({ timeoutMs: 1000 }));
    expect(r.timedOut).toBe(true);
    const [child] = pidsIn(r.output, 'child');
    expect(isAlive(child)).toBe(false);
  });

  test('background processes left behind are killed when the command exits', async () => {
    const r = await shell.run('sleep 1000 & echo bg:$!; (sleep 1000 & echo bg:$!); echo done', opts());
    expect(r.exitCode).toBe(0);
    expect(r.timedOut).toBe(false);
    const pids = pidsIn(r.output, 'bg');
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(isAlive(pid)).toBe(false);
  });

  test('a process that escaped the group does not keep the run waiting for its output pipe', async () => {
    const r = await shell.run('setsid sleep 3 & echo started', opts());
    expect(r.exitCode).toBe(0);
    expect(r.output).toContain('started');
  });

  test('an output flood is capped: head and tail kept, the middle counted', async () => {
    const r = await shell.run(
      'echo FIRST-LINE; yes 0123456789 | head -c 50000000; echo; echo LAST-LINE',
      opts({ maxOutputChars: 10_000 }),
    );
    expect(r.exitCode).toBe(0);
    expect(r.truncated).toBe(true);
    expect(r.output.startsWith('FIRST-LINE\n')).toBe(true);
    expect(r.output.endsWith('LAST-LINE\n')).toBe(true);
    const marker = /\[\.\.\. (\d+) chars omitted \.\.\.\]/.exec(r.output);
    expect(marker).not.toBeNull();
    expect(Number(marker?.[1])).toBeGreaterThan(49_000_000);
    expect(r.output.length).toBeLessThan(10_000 + 100);
  });

  test('multi-byte characters survive chunk boundaries', async () => {
    const r = await shell.run("for i in $(seq 1 20000); do printf 'é✓'; done", opts({ maxOutputChars: 1_000_000 }));
    expect(r.output).toBe('é✓'.repeat(20000));
  });
});

describe('CappedOutput', () => {
  test('keeps everything under the cap', () => {
    const c = new CappedOutput(100);
    c.push('hello ');
    c.push('world');
    expect(c.truncated).toBe(false);
    expect(c.toString()).toBe('hello world');
  });

  test('keeps 20% head and 80% tail over the cap', () => {
    const c = new CappedOutput(100);
    const text = Array.from({ length: 1000 }, (_, i) => String(i % 10)).join('');
    for (let i = 0; i < text.length; i += 7) c.push(text.slice(i, i + 7));
    expect(c.truncated).toBe(true);
    expect(c.omitted).toBe(900);
    expect(c.toString()).toBe(`${text.slice(0, 20)}\n[... 900 chars omitted ...]\n${text.slice(-80)}`);
  });
});
