/** Live progress: the checklist (pure), the rate-limited comment, the loop's attempt phases, and the sticky comment of a real run. */
import { applyProgress, EMPTY_CHECKLIST, renderChecklist, type Checklist } from '../../src/report/progress.js';
import { LiveComment, type Clock } from '../../src/run/live-comment.js';
import { loopProgress, type ProgressEvent } from '../../src/fix/progress.js';
import { TerminalProgress } from '../../src/report/terminal-progress.js';
import { groupedProgress } from '../../src/run/action-progress.js';
import { mainWorld, FIX_STEPS, botComments } from '../../test-support/run-main.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

/** A clock the test moves by hand: timers run when the test says so. */
function manualClock() {
  let now = 0;
  const timers: { at: number; fn: () => void; id: number }[] = [];
  let ids = 0;
  const clock: Clock = {
    now: () => now,
    setTimeout: (fn, ms) => {
      const t = { at: now + ms, fn, id: ++ids };
      timers.push(t);
      return t.id;
    },
    clearTimeout: (h) => {
      const i = timers.findIndex((t) => t.id === h);
      if (i >= 0) timers.splice(i, 1);
    },
  };
  return {
    clock,
    pending: () => timers.map((t) => t.at),
    /** Moves the time to `to` and runs the timers due by then. */
    async advance(to: number) {
      now = to;
      for (let t = timers.find((x) => x.at <= now); t; t = timers.find((x) => x.at <= now)) {
        timers.splice(timers.indexOf(t), 1);
        t.fn();
        await new Promise((r) => setImmediate(r));
      }
    },
  };
}

describe('LiveComment', () => {
  test('at most one write per interval, the latest body wins, and stop() drops what is pending', async () => {
    const c = manualClock();
    const written: string[] = [];
    const live = new LiveComment(async (b) => void written.push(b), 10_000, () => undefined, c.clock);
    live.wrote(); // the start comment, at t=0
    live.show('A');
    expect(c.pending()).toEqual([10_000]);
    live.show('B');
    live.show('C');
    expect(c.pending()).toEqual([10_000]); // one timer, not three
    await c.advance(9_999);
    expect(written).toEqual([]);
    await c.advance(10_000);
    expect(written).toEqual(['C']);
    live.show('D');
    expect(c.pending()).toEqual([20_000]);
    await c.advance(25_000);
    expect(written).toEqual(['C', 'D']);
    live.show('E'); // D went out at 25 s (when its timer ran): E waits for 35 s
    expect(c.pending()).toEqual([35_000]);
    live.show('F');
    await live.stop();
    await c.advance(100_000);
    expect(written).toEqual(['C', 'D']);
    live.show('G'); // after stop: ignored
    expect(c.pending()).toEqual([]);
  });

  test('a failed write is logged and the next update still goes out; writes never overlap', async () => {
    const c = manualClock();
    const logs: string[] = [];
    let inFlight = 0;
    let overlap = false;
    const written: string[] = [];
    let fail = true;
    const live = new LiveComment(
      async (b) => {
        inFlight++;
        overlap ||= inFlight > 1;
        await new Promise((r) => setImmediate(r));
        inFlight--;
        if (fail) {
          fail = false;
          throw new Error('HTTP 502');
        }
        written.push(b);
      },
      0,
      (m) => logs.push(m),
      c.clock,
    );
    live.show('A');
    await c.advance(0);
    live.show('B');
    await c.advance(0);
    await live.stop();
    expect(logs).toEqual(['Could not update the progress comment: HTTP 502']);
    expect(written).toEqual(['B']);
    expect(overlap).toBe(false);
  });
});

test('LiveComment: once the comment is no longer ours (a newer claim, a stop request), no update overwrites it', async () => {
  const c = manualClock();
  const written: string[] = [];
  let ours = true;
  const live = new LiveComment(
    async (b) => {
      if (!ours) return false;
      written.push(b);
      return true;
    },
    0,
    () => undefined,
    c.clock,
  );
  live.show('A');
  await c.advance(0);
  ours = false; // e.g. `/agent-fix stop` wrote its marker into the comment
  live.show('B');
  await c.advance(0);
  ours = true;
  live.show('C');
  await c.advance(0);
  expect(written).toEqual(['A']);
  expect(c.pending()).toEqual([]);
});

describe('the checklist', () => {
  const fold = (events: ProgressEvent[], times: number[]): Checklist => events.reduce((l, e, i) => applyProgress(l, e, times[i]), EMPTY_CHECKLIST);

  test('phases in order with their verdicts and durations; what is ahead greyed; outside text escaped', () => {
    const list = fold(
      [
        { type: 'phase', phase: { kind: 'model' }, state: 'running' },
        { type: 'phase', phase: { kind: 'model' }, state: 'done', detail: 'answered' },
        { type: 'phase', phase: { kind: 'setup' }, state: 'skipped', detail: 'no setup command' },
        { type: 'phase', phase: { kind: 'baseline' }, state: 'running', detail: 'npm test' },
        { type: 'phase', phase: { kind: 'baseline' }, state: 'done', detail: 'npm test | tee log: fails (exit 1; 1 passed, 1 failed)' },
        { type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'running' },
        { type: 'tool', attempt: 1, name: 'read_file', display: 'read_file a.js', ok: true },
        { type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'failed', detail: 'rejected: 1 failing: ping @octo/team ![x](http://e/x.png) <b>' },
        { type: 'phase', phase: { kind: 'attempt', n: 2 }, state: 'running' },
      ],
      [0, 400, 400, 500, 3_500, 3_600, 4_000, 64_000, 64_100],
    );
    const md = renderChecklist(list, 94_100);
    expect(md.split('\n')).toEqual([
      '- ✅ Model check: answered (400 ms)',
      '- ➖ Setup: no setup command (0 ms)',
      '- ✅ Baseline: npm test \\| tee log: fails (exit 1; 1 passed, 1 failed) (3.0 s)',
      '- ❌ Attempt 1: rejected: 1 failing: ping `@octo/team` \\!\\[x\\](`http://e/x.png`) &lt;b&gt; (1 min 0 s)',
      '- ⏳ **Attempt 2** (running for 30.0 s)',
      '- ⬜ Publish',
      '',
      '_1 tool call(s) by the model so far._',
    ]);
  });

  test('before the first attempt, the attempts and the publish step are shown ahead', () => {
    const md = renderChecklist(fold([{ type: 'phase', phase: { kind: 'baseline' }, state: 'running', detail: 'npm test' }], [0]), 1_000);
    expect(md).toBe('- ⏳ **Baseline**: npm test (running for 1.0 s)\n- ⬜ Attempts (the model edits, the harness verifies)\n- ⬜ Publish');
  });
});

test("the loop's events become attempt phases: started by the model's first request, ended by the verdict", () => {
  const seen: ProgressEvent[] = [];
  const lp = loopProgress((e) => seen.push(e));
  const verdict = (ok: boolean) => ({ ok, newlyFailing: [], nowPassing: [], stillFailing: [], summary: ok ? '1 now passing' : '1 still failing' });
  lp.onLoop({ type: 'model-request', turn: 1, newMessages: [] });
  lp.onLoop({ type: 'tool', turn: 1, name: 'edit_file', arguments: '{}', ok: true, display: 'edit_file a.js', result: '' });
  lp.onLoop({ type: 'verifying', iteration: 1 });
  lp.onLoop({ type: 'attempt', attempt: { iteration: 1, summary: '', verdict: verdict(false), changedFiles: ['a.js'], rolledBack: true } });
  lp.onLoop({ type: 'model-request', turn: 2, newMessages: [] });
  lp.end('stopped: budget-exhausted');
  lp.end('again'); // nothing open: nothing said
  expect(seen.filter((e) => e.type === 'phase')).toEqual([
    { type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'running' },
    { type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'failed', detail: 'rejected: 1 still failing; rolled back' },
    { type: 'phase', phase: { kind: 'attempt', n: 2 }, state: 'running' },
    { type: 'phase', phase: { kind: 'attempt', n: 2 }, state: 'failed', detail: 'stopped: budget-exhausted' },
  ]);
  expect(seen).toContainEqual({ type: 'tool', attempt: 1, name: 'edit_file', display: 'edit_file a.js', ok: true });
  expect(seen).toContainEqual({ type: 'waiting', on: 'the tests (verifying the change)' });
});

test('terminal progress: plain lines without a TTY, an erased and redrawn live line with one', () => {
  const plain: string[] = [];
  const p = new TerminalProgress({ write: (t: string) => plain.push(t) }, { now: () => 0 });
  p.event({ type: 'phase', phase: { kind: 'baseline' }, state: 'running', detail: 'npm test' });
  p.event({ type: 'waiting', on: 'the tests' });
  p.event({ type: 'tool', attempt: 1, name: 'read_file', display: 'read_file a.js', ok: true });
  p.event({ type: 'phase', phase: { kind: 'baseline' }, state: 'done', detail: 'fails' });
  p.stop();
  expect(plain.join('')).toBe('▸ Baseline: npm test\n✓ Baseline: fails (0:00)\n');

  const tty: string[] = [];
  let tick: (() => void) | null = null;
  let now = 0;
  const t = new TerminalProgress(
    { write: (s: string) => tty.push(s), isTTY: true, columns: 60 },
    { verbose: true, now: () => now, every: (_ms, fn) => ((tick = fn), () => (tick = null)) },
  );
  t.event({ type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'running' });
  now = 65_000;
  tick!();
  t.event({ type: 'tool', attempt: 1, name: 'read_file', display: 'read_file a.js', ok: true });
  t.log('a log line');
  t.event({ type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'done', detail: 'verified' });
  expect(tick).toBeNull(); // the timer stops with the last phase
  const out = tty.join('');
  expect(out).toContain('\r\x1b[2K⠙ Attempt 1 1:05');
  expect(out).toContain('\r\x1b[2K    read_file a.js\n');
  expect(out).toContain('\r\x1b[2K· a log line\n');
  expect(out.endsWith('\r\x1b[2K✓ Attempt 1: verified (1:05)\n')).toBe(true);
});

test('action log: one group per phase, closed before the next opens', () => {
  const lines: string[] = [];
  const g = groupedProgress({ info: (m) => lines.push(m), startGroup: (n) => lines.push(`>> ${n}`), endGroup: () => lines.push('<<') }, (t) => t.replace('sekrit', '***'));
  g({ type: 'phase', phase: { kind: 'baseline' }, state: 'running', detail: 'TOKEN=sekrit npm test' });
  g({ type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'running' });
  g({ type: 'tool', attempt: 1, name: 'read_file', display: 'read_file a.js', ok: false });
  g({ type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'done', detail: 'verified' });
  g({ type: 'phase', phase: { kind: 'publish' }, state: 'skipped', detail: 'nothing to publish' });
  g({ type: 'phase', phase: { kind: 'publish' }, state: 'running' });
  g.close();
  expect(lines).toEqual(['>> agent-fix: Baseline: TOKEN=*** npm test', '<<', '>> agent-fix: Attempt 1', '  (failed) read_file a.js', '✓ Attempt 1: verified', '<<', '– Publish: nothing to publish', '>> agent-fix: Publish', '<<']);
});

test('a real run: the sticky comment is a live checklist until the final report replaces it', async () => {
  const w = await mainWorld({ steps: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'src/add.js' } }] }, ...FIX_STEPS] });
  try {
    const r = await w.run({ overrides: { progressIntervalMs: 0 } });
    expect(r.rt.outputs.status).toBe('fixed');
    const [comment] = botComments(w.github);
    const bodies = w.github.requests
      .filter((q) => q.method === 'PATCH' && q.path === `/repos/octo/adder/issues/comments/${comment.id}`)
      .map((q) => (q.body as { body: string }).body);
    const first = w.github.requests.find((q) => q.method === 'POST' && q.path.endsWith('/issues/7/comments'));
    const all = [(first?.body as { body: string }).body, ...bodies];
    // every state of the comment carries the marker; the progress states come before the final report
    expect(all.every((b) => b.includes('<!-- agent-fix:issue-7 -->'))).toBe(true);
    const progress = all.slice(0, -1);
    expect(progress.length).toBeGreaterThan(1);
    expect(progress.slice(1).every((b) => b.includes('is working on this'))).toBe(true);
    expect(progress.some((b) => /- ✅ Baseline: node test\.js: fails \(exit 1;/.test(b))).toBe(true);
    expect(progress.some((b) => /- ✅ Attempt 1: verified: /.test(b))).toBe(true);
    // the order of what the comment showed is the order of the run
    const firstIndex = (re: RegExp) => progress.findIndex((b) => re.test(b));
    expect(firstIndex(/✅ Baseline/)).toBeLessThanOrEqual(firstIndex(/Attempt 1/));
    expect(all[all.length - 1]).toBe(comment.body);
    expect(comment.body).toContain('opened');
    expect(comment.body).not.toContain('is working on this');
    w.github.assertNoViolations();
  } finally {
    await w.close();
  }
});
