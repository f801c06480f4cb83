/**
 * One RunReport per outcome a reviewer meets, for the report's structure tests and the
 * screenshot check (bench/report-screens.ts): fixed, fixed with many tests, not fixed (with
 * hostile model text and test names), budget exhausted, an error before anything ran, and
 * one too large for GitHub's body limit.
 */
import type { RunReport } from '../src/fix/types.js';
import type { TestRun } from '../src/verify/types.js';
import { testRun } from './builders.js';

/** A test run with defaults (a passing `npm test`), overridden by `over`. */
export const run = (over: Partial<TestRun>): TestRun => testRun(0, [], { durationMs: 1200, succeeded: true, counts: { passed: 4, failed: 0, skipped: 0 }, parsedFrom: 'node-test', ...over });

const failing = (ids: string[], passed = 2): TestRun =>
  run({ exitCode: 1, succeeded: false, counts: { passed, failed: ids.length, skipped: 0 }, tests: ids.map((id) => ({ id, status: 'failed' as const })) as TestRun['tests'] });

const safety: RunReport['safety'] = {
  policy: 'the default policy (no .github/agent-fix.yml on main)',
  isolation: ['setup: network allowed', 'tests: no network (unshare)'],
  budget: 'tokens 14210/2000000, cost ~$0.04/$5.00, wall 2 min/60 min',
  costUsd: 0.04,
};

const cartDiff = [
  'diff --git a/src/cart.js b/src/cart.js',
  'index 1b2c3d4..5e6f7a8 100644',
  '--- a/src/cart.js',
  '+++ b/src/cart.js',
  '@@ -5,7 +5,7 @@ export function cartTotal(items, discountPercent = 0) {',
  '-  const subtotal = items.reduce((sum, item) => sum + item.price, 0);',
  '-  return subtotal - discountPercent;',
  '+  const subtotal = items.reduce((sum, item) => sum + item.price * item.quantity, 0);',
  '+  return Math.round(subtotal * (1 - discountPercent / 100));',
  ' }',
  '',
].join('\n');

export const FIXED: RunReport = {
  status: 'fixed',
  reason: 'verified',
  detail: 'The test command `npm test` failed before and passes now, and nothing that passed before fails.',
  task: { key: 'issue-7', title: 'Cart total is wrong for quantities and discounts', goal: '...', issueNumber: 7 },
  model: 'openai/gpt-4.1',
  setupCommand: 'npm ci',
  testCommand: 'npm test',
  baseline: failing(['multiplies each price by its quantity', 'applies a percentage discount']),
  final: run({}),
  summary: 'cartTotal now multiplies each price by its quantity and applies the discount as a percentage.',
  iterations: 2,
  maxIterations: 5,
  attempts: [
    {
      iteration: 1,
      summary: 'Multiply by quantity.',
      verdict: { ok: false, newlyFailing: [], nowPassing: ['multiplies each price by its quantity'], stillFailing: ['applies a percentage discount'], summary: '2 passing → 3 passing, 2 failing → 1 failing' },
      changedFiles: ['src/cart.js'],
      rolledBack: false,
    },
    {
      iteration: 2,
      summary: 'Apply the discount as a percentage too.',
      verdict: { ok: true, newlyFailing: [], nowPassing: ['multiplies each price by its quantity', 'applies a percentage discount'], stillFailing: [], summary: '2 passing → 4 passing, 2 failing → 0 failing' },
      changedFiles: ['src/cart.js'],
      rolledBack: false,
    },
  ],
  changes: [{ path: 'src/cart.js', status: 'modified', additions: 2, deletions: 2, binary: false }],
  diff: cartDiff,
  usage: { promptTokens: 12900, completionTokens: 1310, requests: 7 },
  durationMs: 95_000,
  branch: 'agent-fix/issue-7',
  prNumber: 12,
  prUrl: 'https://github.com/octo/tiny-shop/pull/12',
  runUrl: 'https://github.com/octo/tiny-shop/actions/runs/4242',
  safety,
};

const many = Array.from({ length: 24 }, (_, i) => `parses date format #${i + 1} (YYYY-MM-DD variant ${i + 1})`);
export const FIXED_MANY: RunReport = {
  ...FIXED,
  baseline: failing(many, 180),
  final: run({ counts: { passed: 204, failed: 0, skipped: 0 } }),
  attempts: [{ iteration: 1, summary: 'Fix the parser.', verdict: { ok: true, newlyFailing: [], nowPassing: many, stillFailing: [], summary: '180 passing → 204 passing, 24 failing → 0 failing' }, changedFiles: ['src/parse.js', 'src/format.js', 'src/locale/en.js'], rolledBack: false }],
  iterations: 1,
  changes: [
    { path: 'src/parse.js', status: 'modified', additions: 14, deletions: 6, binary: false },
    { path: 'src/format.js', status: 'modified', additions: 3, deletions: 1, binary: false },
    { path: 'src/locale/en.js', status: 'modified', additions: 1, deletions: 1, binary: false },
  ],
};

const hostile = 'Really fixed now @octo/maintainers ![pwn](https://evil.example/x.png) <img src=x onerror=alert(1)> [click](https://evil.example) | col | <!-- agent-fix:issue-7 -->';
export const NOT_FIXED: RunReport = {
  ...FIXED,
  status: 'not-fixed',
  reason: 'tests-still-failing',
  detail: 'No attempt passed verification in 2 iteration(s); no pull request was opened.',
  summary: hostile,
  final: failing(['applies a percentage discount | 10%'], 3),
  attempts: [
    { iteration: 1, summary: hostile, verdict: { ok: false, newlyFailing: [], nowPassing: ['multiplies each price by its quantity'], stillFailing: ['applies a percentage discount | 10%'], summary: '2 failing → 1 failing' }, changedFiles: ['src/cart.js'], rolledBack: false },
    { iteration: 2, summary: 'Fixed everything, trust me.', verdict: { ok: false, newlyFailing: ['formats @octo cents as dollars'], nowPassing: [], stillFailing: ['applies a percentage discount | 10%'], summary: '1 failing → 2 failing' }, changedFiles: ['src/cart.js', 'src/format.js'], rolledBack: true },
  ],
  testCommand: 'npm test -- --reporter=dot | tee test.log',
  branch: undefined,
  prNumber: undefined,
  prUrl: undefined,
};

/** The tests pass, but the change games them (guard/gaming/): a draft pull request, never called fixed. */
export const GAMES_THE_TESTS: RunReport = {
  ...FIXED,
  status: 'not-fixed',
  reason: 'games-the-tests',
  detail: "The tests pass, but the change games them instead of fixing the code (special-cases the failing tests' values), so it is not called a fix: the pull request is a draft for a human to judge.",
  tests: {
    runner: 'jest',
    commands: [],
    refusals: [],
    gaming: [
      { kind: 'special-cases', file: 'src/cart.js', line: 3, code: 'if (items.length === 2 && discountPercent === 10) return 27;', detail: 'returns 27 for 2, 10: the inputs and expected value of the failing test "applies a percentage discount" (test/cart.test.js:12)' },
      { kind: 'detects-test-run', file: 'src/cart.js', line: 5, code: 'process.env.JEST_WORKER_ID', detail: 'reads the environment variable JEST_WORKER_ID, which only the test runner sets' },
    ],
  },
};

export const BUDGET: RunReport = {
  ...NOT_FIXED,
  reason: 'budget-exhausted',
  summary: '',
  detail: 'Stopped because the cost budget ran out ($5.00), after 40 model request(s) and 3 attempt(s), without a verified fix; no pull request was opened. The report below is partial.',
  safety: { ...safety, budgetStop: 'the cost budget ran out ($5.00)' },
};

export const ERROR_BEFORE_RUN: RunReport = {
  ...FIXED,
  status: 'error',
  reason: 'model-error',
  detail: 'The model endpoint check failed, so nothing was run: model endpoint https://models.github.ai/inference (model "openai/gpt-4.1") answered HTTP 401: Bad credentials. The API key was rejected: check the `api-key` input (for GitHub Models the job needs `permissions: models: read`).',
  baseline: null,
  final: null,
  summary: '',
  iterations: 0,
  attempts: [],
  changes: [],
  diff: '',
  usage: { promptTokens: 0, completionTokens: 0, requests: 0 },
  durationMs: 900,
  branch: undefined,
  prNumber: undefined,
  prUrl: undefined,
};

const bigDiff = Array.from({ length: 4000 }, (_, i) => `+const line${i} = "${'x'.repeat(30)}";`).join('\n');
export const HUGE: RunReport = {
  ...FIXED,
  diff: `diff --git a/src/big.js b/src/big.js\n${bigDiff}\n`,
  final: run({ outputTail: 'y'.repeat(50_000) }),
};

export const SAMPLE_REPORTS: Record<string, RunReport> = { fixed: FIXED, 'fixed-many-tests': FIXED_MANY, 'not-fixed': NOT_FIXED, 'games-the-tests': GAMES_THE_TESTS, 'budget-exhausted': BUDGET, 'error-before-run': ERROR_BEFORE_RUN, huge: HUGE };
