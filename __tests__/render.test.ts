import { commentMarker, describeRun, renderFinalComment, renderPrBody, renderStartComment, renderTerminal } from '../src/report/render.js';
import type { RunReport } from '../src/fix/types.js';
import type { TestRun } from '../src/verify/types.js';

const run = (over: Partial<TestRun>): TestRun => ({
  command: 'npm test',
  exitCode: 0,
  timedOut: false,
  durationMs: 1200,
  succeeded: true,
  tests: [],
  counts: { passed: 4, failed: 0, skipped: 0 },
  parsedFrom: 'node-test',
  outputTail: '',
  ...over,
});

const base: RunReport = {
  status: 'fixed',
  reason: 'verified',
  detail: 'The test command `npm test` failed before and passes now, and nothing that passed before fails.',
  task: { key: 'issue-7', title: 'Cart total is wrong', goal: '...', issueNumber: 7 },
  model: 'openai/gpt-4.1',
  setupCommand: 'npm ci',
  testCommand: 'npm test',
  baseline: run({ exitCode: 1, succeeded: false, counts: { passed: 2, failed: 2, skipped: 0 } }),
  final: run({}),
  summary: 'Multiply price by quantity.',
  iterations: 2,
  maxIterations: 5,
  attempts: [
    { iteration: 1, summary: 'half', verdict: { ok: false, newlyFailing: [], nowPassing: ['a'], stillFailing: ['b'], summary: '2 failing → 1 failing' }, changedFiles: ['src/cart.js'], rolledBack: false },
    { iteration: 2, summary: 'all', verdict: { ok: true, newlyFailing: [], nowPassing: ['a', 'b'], stillFailing: [], summary: '2 failing → 0 failing' }, changedFiles: ['src/cart.js'], rolledBack: false },
  ],
  changes: [{ path: 'src/cart.js', status: 'modified', additions: 2, deletions: 2, binary: false }],
  diff: 'diff --git a/src/cart.js b/src/cart.js\n-old\n+new\n',
  usage: { promptTokens: 1000, completionTokens: 200, requests: 7 },
  durationMs: 4500,
  runUrl: 'https://github.com/o/r/actions/runs/1',
};

test('describeRun says pass/FAIL, the exit and the counts, or that nothing was parsed', () => {
  expect(describeRun(base.baseline)).toBe('FAIL (exit 1; 2 passed, 2 failed)');
  expect(describeRun(run({ timedOut: true, succeeded: false, exitCode: null }))).toBe('FAIL (timed out; 4 passed, 0 failed)');
  expect(describeRun(run({ parsedFrom: 'none' }))).toBe('pass (exit 0; no per-test results parsed)');
  expect(describeRun(null)).toBe('not run');
});

test('the PR body: marker, Fixes #N, summary, files, before/after, attempts and cost', () => {
  const body = renderPrBody(base);
  expect(body.startsWith(commentMarker('issue-7'))).toBe(true);
  expect(body).toContain('Fixes #7');
  expect(body).toContain('Multiply price by quantity.');
  expect(body).toContain('`src/cart.js` (modified, +2/-2)');
  expect(body).toContain('| before (baseline, untouched code) | `npm test` | FAIL (exit 1; 2 passed, 2 failed) |');
  expect(body).toContain('| after (final gate) | `npm test` | pass (exit 0; 4 passed, 0 failed) |');
  expect(body).toContain('| setup | `npm ci` |');
  expect(body).toContain('1. rejected: 2 failing → 1 failing.');
  expect(body).toContain('2 of 5 iteration(s) · 7 model request(s) · 1200 tokens');
  expect(body).toContain('4.5 s');
  expect(body).not.toContain('SCRIPTED');
});

test('a scripted session is labelled as such everywhere', () => {
  expect(renderPrBody({ ...base, scripted: true })).toContain('SCRIPTED');
  expect(renderTerminal({ ...base, scripted: true })).toContain('SCRIPTED');
});

test('the final comment links the PR when fixed, and explains a failure with the last output otherwise', () => {
  expect(renderFinalComment({ ...base, prUrl: 'https://github.com/o/r/pull/9' })).toContain('opened https://github.com/o/r/pull/9 for review');
  const failed = renderFinalComment({
    ...base,
    status: 'not-fixed',
    reason: 'tests-still-failing',
    detail: 'No attempt passed verification in 5 iteration(s); no pull request was opened.',
    final: run({ exitCode: 1, succeeded: false, outputTail: 'not ok 3 - applies a percentage discount' }),
  });
  expect(failed).toContain('finished: not fixed. No attempt passed verification');
  expect(failed).toContain('not ok 3 - applies a percentage discount');
  expect(failed.startsWith(commentMarker('issue-7'))).toBe(true);
});

test('fences survive backticks in the output', () => {
  const md = renderFinalComment({ ...base, status: 'not-fixed', final: run({ succeeded: false, exitCode: 1, outputTail: 'a ```` b' }) });
  expect(md).toContain('`````\na ```` b\n`````');
});

test('the start comment carries the marker and the run link', () => {
  expect(renderStartComment(base.task, 'https://x/run')).toMatch(/^<!-- agent-fix:issue-7 -->\n\*\*agent-fix\*\* is working on this \(\[run\]\(https:\/\/x\/run\)\)/);
});

test('the terminal report shows the outcome, before/after, attempts, changes and the diff', () => {
  const t = renderTerminal({ ...base, branch: 'agent-fix/cart' });
  expect(t).toContain('outcome:    fixed (verified)');
  expect(t).toContain('before:   FAIL (exit 1; 2 passed, 2 failed)');
  expect(t).toContain('branch:     agent-fix/cart');
  expect(t).toContain('modified src/cart.js (+2/-2)');
  expect(t).toContain('+new');
});
