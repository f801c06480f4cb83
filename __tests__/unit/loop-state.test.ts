/** LoopState (src/agent/loop-state.ts): the one owner of what a run of the agent loop changes. */
import { LoopState } from '../../src/agent/loop-state.js';
import type { AttemptOutcome } from '../../src/agent/attempt.js';
import type { Verdict } from '../../src/verify/types.js';
import { run } from '../../test-support/sample-reports.js';

const failing = (failed: number) => run({ exitCode: 1, succeeded: false, counts: { passed: 1, failed, skipped: 0 } });
const verdict = (summary: string): Verdict => ({ ok: false, newlyFailing: [], nowPassing: [], stillFailing: [], summary });
const outcome = (iteration: number, over: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  attempt: { iteration, summary: 's', verdict: verdict('v'), changedFiles: ['a.ts'], rolledBack: false },
  message: 'm',
  tree: `tree-${iteration}`,
  ...over,
});

test('starts at the baseline (or an earlier attempt) as the best state, its score the failures', () => {
  const fresh = new LoopState({ tree: 'base', run: failing(3) });
  expect(fresh.best).toEqual({ tree: 'base', score: 3 });
  expect(fresh.touched).toEqual([]);
  expect(fresh.iteration).toBe(0);
  const resumed = new LoopState({ tree: 'kept', run: failing(1), touched: ['src/a.ts'] });
  expect(resumed.best).toEqual({ tree: 'kept', score: 1 });
  expect(resumed.touched).toEqual(['src/a.ts']);
  expect(new LoopState({ tree: 't', run: run({}) }).best.score).toBe(0);
  expect(new LoopState({ tree: 't', run: { ...failing(2), timedOut: true } }).best.score).toBe(1002);
});

test('usage adds up per reply, with the largest prompt and the input limit when there is one', () => {
  const s = new LoopState({ tree: 'base', run: failing(1) });
  s.recordUsage({ promptTokens: 100, completionTokens: 10 }, Number.POSITIVE_INFINITY);
  s.recordUsage({ promptTokens: 300, completionTokens: 20 }, 8000);
  s.recordUsage({ promptTokens: 200, completionTokens: 5 }, 8000);
  expect(s.usage).toEqual({ promptTokens: 600, completionTokens: 35, requests: 3, peakPromptTokens: 300, inputLimit: 8000 });
  expect(s.tokens()).toBe(635);
});

test('edits: touched files in order of first touch; the unchecked ones taken once, with the last edit message', () => {
  const s = new LoopState({ tree: 'base', run: failing(1) });
  expect(s.takeUnchecked()).toBeNull();
  s.edited('b.ts', 4);
  s.edited('a.ts', 6);
  s.edited('b.ts', 8);
  expect(s.touched).toEqual(['b.ts', 'a.ts']);
  expect(s.takeUnchecked()).toEqual({ at: 8, files: ['b.ts', 'a.ts', 'b.ts'] });
  expect(s.takeUnchecked()).toBeNull();
});

test('nudges count; giving up keeps an earlier summary, else takes the last words', () => {
  const s = new LoopState({ tree: 'base', run: failing(1) });
  expect([s.nudged(), s.nudged(), s.nudged(), s.nudged()]).toEqual([1, 2, 3, 4]);
  s.giveUp('I cannot');
  expect(s.lastSummary).toBe('I cannot');
  s.attempted('fixed the loop', outcome(1));
  s.giveUp('later words');
  expect(s.lastSummary).toBe('fixed the loop');
});

test('an attempt moves the state on: iteration, summary, record, and the best state, last run and stop detail only when given', () => {
  const s = new LoopState({ tree: 'base', run: failing(2) });
  s.attempted('first', outcome(1));
  expect(s.iteration).toBe(1);
  expect(s.best).toEqual({ tree: 'base', score: 2 });
  const final = failing(1);
  s.attempted('second', outcome(2, { best: { tree: 'tree-2', score: 1 }, final, stopDetail: 'why' }));
  expect(s.iteration).toBe(2);
  expect(s.best).toEqual({ tree: 'tree-2', score: 1 });
  const out = s.output('tests-still-failing', 'tree-2', { runs: 1 } as never);
  expect(out).toMatchObject({ reason: 'tests-still-failing', summary: 'second', iterations: 2, final, tree: 'tree-2', stopDetail: 'why', diagnostics: { runs: 1 } });
  expect(out.attempts.map((a) => a.iteration)).toEqual([1, 2]);
});

test('the output: no diagnostics key without a checker; a stop detail set by the loop', () => {
  const s = new LoopState({ tree: 'base', run: failing(1) });
  const plain = s.output('model-gave-up', 'base');
  expect('diagnostics' in plain).toBe(false);
  expect(plain).toMatchObject({ reason: 'model-gave-up', iterations: 0, final: null, attempts: [], touched: [], stopDetail: undefined });
  s.stopWith('the model request cap (3) ran out');
  expect(s.output('budget-exhausted', 'base').stopDetail).toBe('the model request cap (3) ran out');
});
