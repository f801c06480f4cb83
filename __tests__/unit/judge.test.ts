/**
 * The attempt judge (verify/judge.ts): one ordered list of named checks, the first refusal
 * decides with a message for the model and a reason for the report. The checks' inputs are
 * plain values and functions here (the runs a session would return), no doubles of modules.
 */
import { attemptChecks, createJudge, type JudgeDeps } from '../../src/verify/judge.js';
import { draftFor } from '../../src/run/draft.js';
import { parsePolicy } from '../../src/policy/schema.js';
import { applyPolicy } from '../../src/policy/apply.js';
import type { FileChange } from '../../src/ports/git.js';
import type { GamingFinding, TestProof, TestRun, TestStatus, Verdict } from '../../src/verify/types.js';
import { runOfTests } from '../../test-support/builders.js';
import type { IntegrityFinding } from '../../src/guard/test-integrity.js';
import type { SettingsInput } from '../../src/settings/types.js';

const BUDGET = { maxTokens: 2_000_000, maxCostUsd: 5, maxWallMs: 60 * 60_000, prices: {} };

const run = (tests: [string, TestStatus][]): TestRun => runOfTests(tests);
const ok = (summary = '1 passing'): Verdict => ({ ok: true, newlyFailing: [], nowPassing: [], stillFailing: [], summary });
const change = (p: string, lines = 2): FileChange => ({ path: p, status: 'modified', additions: lines / 2, deletions: lines / 2 }) as FileChange;
const skipMarker: IntegrityFinding = { category: 'skip', file: 'a.test.js', line: "t.test('x', { skip: 'why' })", reason: 'adds a skip/only/xfail marker in a.test.js', judgedBy: 'skipped-tests' };

function deps(over: Partial<JudgeDeps> = {}): JudgeDeps & { calls: string[] } {
  const calls: string[] = [];
  const baseline = run([['a', 'passed'], ['b', 'skipped']]);
  return {
    calls,
    limits: { maxChangedFiles: 5, maxChangedLines: 100 },
    baseline,
    runTests: async () => {
      calls.push('tests');
      return { run: run([['a', 'passed'], ['new', 'passed'], ['b', 'skipped']]), verdict: ok() };
    },
    guard: async () => {
      calls.push('guard');
      return { refusal: null, deferred: [] };
    },
    prove: async (): Promise<TestProof> => {
      calls.push('prove');
      return { status: 'proven', detail: '1 test fails before the fix and passes after it.', testFiles: ['a.test.js'], tests: [{ id: 'new', before: 'failed', after: 'passed' }], withoutFix: run([['new', 'failed']]) };
    },
    originalTests: async (_tree, _run, _verdict, proof) => {
      calls.push('original');
      await proof();
      return { refusal: null, changedExpectations: [{ test: 'a', before: '1', now: '2' }] };
    },
    ...over,
  };
}

const attempt = { iteration: 1, tree: 't1', changes: [change('src/a.js'), change('a.test.js')] };

test('the checks, in order, by name', () => {
  expect(attemptChecks(deps()).map((c) => c.name)).toEqual(['size', 'budget', 'test-integrity', 'tests', 'skipped-tests', 'moved-tests', 'games-the-tests', 'original-tests', 'follow-up', 'proof', 'test-edits-alone', 'shows-the-problem']);
});

test('an accepted attempt: every check passes, the proof is made once, the changed expectations come with it', async () => {
  const d = deps();
  const j = await createJudge(d)(attempt);
  expect(j).toMatchObject({ outcome: 'accepted', message: 'Verified: 1 passing; the new test fails without the fix. 1 existing expectation(s) changed with the fix (listed in the report): a.', changedExpectations: [{ test: 'a', before: '1', now: '2' }] });
  expect(d.calls).toEqual(['guard', 'tests', 'original', 'prove']);
});

test('the first refusal decides: nothing after it runs', async () => {
  const big = deps();
  const tooBig = await createJudge(big)({ ...attempt, changes: [change('src/a.js', 400)] });
  expect(tooBig).toMatchObject({ outcome: 'refused', check: 'size', reason: 'diff over the size limits' });
  expect(big.calls).toEqual([]);
  const guarded = deps({ guard: async () => ({ refusal: 'REFUSED by the test-integrity guard: …', deferred: [] }) });
  expect(await createJudge(guarded)(attempt)).toMatchObject({ outcome: 'refused', check: 'test-integrity', message: 'REFUSED by the test-integrity guard: …' });
  expect(guarded.calls).toEqual([]);
  const budget = deps({ budget: { exceeded: () => ({ message: 'the cost cap ($1.00) is reached' }) } });
  expect(await createJudge(budget)(attempt)).toMatchObject({ outcome: 'refused', check: 'budget', stop: 'budget-exhausted', stopDetail: 'the cost cap ($1.00) is reached' });
});

test('failing tests go back to the loop as they are (its best state and rollback decide)', async () => {
  const failing = deps({ runTests: async () => ({ run: run([['a', 'failed']]), verdict: { ...ok('1 failing'), ok: false, newlyFailing: ['a'] } }) });
  expect(await createJudge(failing)(attempt)).toMatchObject({ outcome: 'tests-failed', verdict: { newlyFailing: ['a'] } });
});

test('a skip marker is judged by what the runner reports: a reason changed skips nothing new; a test skipped that ran before refuses', async () => {
  const reason = deps({ guard: async () => ({ refusal: null, deferred: [skipMarker] }) });
  expect((await createJudge(reason)(attempt)).outcome).toBe('accepted');
  const skipping = deps({
    guard: async () => ({ refusal: null, deferred: [skipMarker] }),
    runTests: async () => ({ run: run([['a', 'skipped'], ['b', 'skipped']]), verdict: ok() }),
  });
  const j = await createJudge(skipping)(attempt);
  expect(j).toMatchObject({ outcome: 'refused', check: 'skipped-tests' });
  expect(j.outcome === 'refused' && j.message).toMatch(/^REFUSED by the test-integrity guard[\s\S]*the runner reports 1 test\(s\) skipped that ran before: a/);
});

test('an updated snapshot stands only as a proven changed expectation of its own test file', async () => {
  const snapshot: IntegrityFinding = { category: 'snapshot', file: 'src/__snapshots__/b.test.js.snap', reason: 'updates the snapshot file', judgedBy: 'changed-expectation' };
  const unproven = deps({ guard: async () => ({ refusal: null, deferred: [snapshot] }) });
  expect(await createJudge(unproven)(attempt)).toMatchObject({ outcome: 'refused', check: 'original-tests', reason: 'refused by the test-integrity guard (snapshot)' });
  const proven = deps({
    guard: async () => ({ refusal: null, deferred: [snapshot] }),
    originalTests: async () => ({ refusal: null, changedExpectations: [{ test: 'src/b.test.js > renders', file: 'src/b.test.js', before: 'x', now: 'y' }] }),
  });
  expect(await createJudge(proven)(attempt)).toMatchObject({ outcome: 'accepted', cleared: [snapshot] });
});

test('a passing baseline needs the proof: without a proven test the attempt is refused with why', async () => {
  const unproven = deps({ prove: async () => ({ status: 'not-proven', detail: 'No fail-to-pass proof: the changed tests already pass on the base code.', testFiles: ['a.test.js'], tests: [], withoutFix: run([['a', 'passed']]) }) });
  const j = await createJudge(unproven)(attempt);
  expect(j).toMatchObject({ outcome: 'refused', check: 'shows-the-problem', reason: 'no test shows the problem' });
  expect(j.outcome === 'refused' && j.message).toMatch(/also pass on the original code without your source change/);
});

test('policy: gate.changed-expectations sets the settings; a changed expectation keeps the pull request a draft unless ready', () => {
  const base = { draft: false, protectedPaths: [], maxIterations: 5, maxChangedFiles: 10, maxChangedLines: 400, budget: BUDGET } as unknown as SettingsInput;
  expect(applyPolicy(base, parsePolicy(''), 'p').changedExpectations).toBe('draft');
  expect(applyPolicy(base, parsePolicy('gate:\n  changed-expectations: forbid\n'), 'p').changedExpectations).toBe('forbid');
  expect(() => parsePolicy('gate:\n  changed-expectations: sometimes\n')).toThrow(/field "gate\.changed-expectations"/);
  const changed = { tests: { runner: 'jest', commands: [], refusals: [], original: { ok: true, testFiles: [], missing: [], failing: [], passing: [], detail: '', counts: { passed: 1, failed: 0, skipped: 0 }, exitCode: 0, changedExpectations: [{ test: 'a', before: '1', now: '2' }] } } };
  expect(draftFor({ draft: false, changedExpectations: 'draft' }, changed)).toBe(true);
  expect(draftFor({ draft: false, changedExpectations: 'ready' }, changed)).toBe(false);
  expect(draftFor({ draft: false, changedExpectations: 'draft' }, {})).toBe(false);
  expect(draftFor({ draft: true, changedExpectations: 'ready' }, changed)).toBe(true);
});

test('a skip marker on a failing test is refused as a skip, not reported as a failing run', async () => {
  const d = deps({
    baseline: run([['a', 'failed'], ['b', 'skipped']]),
    guard: async () => ({ refusal: null, deferred: [skipMarker] }),
    runTests: async () => ({ run: run([['a', 'skipped'], ['b', 'skipped']]), verdict: { ...ok('a skipped'), ok: false, stillFailing: ['a'] } }),
  });
  const j = await createJudge(d)(attempt);
  expect(j).toMatchObject({ outcome: 'refused', check: 'tests', reason: 'refused by the test-integrity guard (skipped tests)' });
  expect(j.outcome === 'refused' && j.message).toMatch(/^REFUSED by the test-integrity guard/);
});

test('a moved test stands only when the runner reports it passing at its new place', async () => {
  const moved: IntegrityFinding = { category: 'remove-test', file: 'test/a.test.js', line: "it('tz', () => {", reason: 'moves the test case "tz"', judgedBy: 'moved-test', movedTo: { file: 'test/b.test.js', test: ['UTC', 'tz'] } };
  const withRun = (tests: [string, TestStatus][]) =>
    deps({ guard: async () => ({ refusal: null, deferred: [moved] }), runTests: async () => ({ run: { ...run(tests), tests: run(tests).tests.map((t) => ({ ...t, file: t.id.split(' > ')[0] })) }, verdict: ok() }) });
  // positive control: the test runs and passes in its new file
  expect(await createJudge(withRun([['test/a.test.js > other', 'passed'], ['test/b.test.js > UTC > tz', 'passed']]))(attempt)).toMatchObject({ outcome: 'accepted', cleared: [moved] });
  // skipped at its new place, absent, or only under another file: refused, with what the runner said
  const skipped = await createJudge(withRun([['test/b.test.js > UTC > tz', 'skipped']]))(attempt);
  expect(skipped).toMatchObject({ outcome: 'refused', check: 'moved-tests' });
  expect(skipped.outcome === 'refused' && skipped.message).toMatch(/"UTC > tz" in test\/b\.test\.js: skipped/);
  const missing = await createJudge(withRun([['test/c.test.js > UTC > tz', 'passed']]))(attempt);
  expect(missing.outcome === 'refused' && missing.message).toMatch(/not reported by the test runner/);
});

test('a moved test with a runner that gives counts only: the passing count must grow by the tests the change adds, none more skipped', async () => {
  const moved: IntegrityFinding = { category: 'remove-test', file: 'test/a.test.js', line: "it('tz', () => {", reason: 'moves the test case "tz"', judgedBy: 'moved-test', movedTo: { file: 'test/b.test.js', test: ['tz'] } };
  const counts = (passed: number, skipped: number): TestRun => ({ ...run([]), counts: { passed, failed: 0, skipped } });
  const judged = (after: TestRun, testDelta = 1) =>
    createJudge({ ...deps({ guard: async () => ({ refusal: null, deferred: [moved], testDelta }), runTests: async () => ({ run: after, verdict: ok() }) }), baseline: counts(38, 0) })(attempt);
  // dayjs b575c81a: one test moved, one added: 38 → 39 passing
  expect((await judged(counts(39, 0))).outcome).toBe('accepted');
  // the moved test skipped, or no longer run: refused with the counts
  const skipped = await judged(counts(38, 1));
  expect(skipped).toMatchObject({ outcome: 'refused', check: 'moved-tests' });
  expect(skipped.outcome === 'refused' && skipped.message).toMatch(/38 → 38 passing, 0 → 1 skipped, while the change adds 1 test case\(s\) net/);
  expect((await judged(counts(38, 0))).outcome).toBe('refused');
});

test('new tests that assert nothing or pass on the original code are not evidence: shown, never counted', async () => {
  const vacuous = [{ file: 'a.test.js', test: ['vacuous one'], why: 'it has no assertion' }];
  const proveBoth = async (): Promise<TestProof> => ({
    status: 'proven',
    detail: '2 test(s) in a.test.js fail before the fix and pass after it.',
    testFiles: ['a.test.js'],
    tests: [
      { id: 'a.test.js > real one', before: 'failed', after: 'passed' },
      { id: 'a.test.js > vacuous one', before: 'failed', after: 'passed' },
      { id: 'a.test.js > already passing', before: 'passed', after: 'passed' },
    ],
    withoutFix: run([['a.test.js > real one', 'failed']]),
  });
  const next = deps({ guard: async () => ({ refusal: null, deferred: [], vacuous }), prove: proveBoth });
  const j = await createJudge(next)(attempt);
  expect(j).toMatchObject({ outcome: 'accepted', proof: { status: 'proven', detail: '1 test(s) in a.test.js fail before the fix and pass after it.' } });
  expect(j.outcome === 'accepted' && j.proof?.notEvidence).toEqual(['vacuous one (a.test.js): it has no assertion', 'a.test.js > already passing: passes on the original code too']);
  // the only fail-to-pass test asserts nothing: no proof, refused with why
  const only = deps({
    guard: async () => ({ refusal: null, deferred: [], vacuous }),
    prove: async () => ({ status: 'proven', detail: '1 test', testFiles: ['a.test.js'], tests: [{ id: 'a.test.js > vacuous one', before: 'failed', after: 'passed' }], withoutFix: run([['a.test.js > vacuous one', 'failed']]) }),
  });
  // a baseline that gives counts only names no test, so none is called new (dayjs b575c81a's jest command)
  const countsOnly = await createJudge({ ...next, baseline: { ...run([]), counts: { passed: 38, failed: 0, skipped: 0 } } })(attempt);
  expect(countsOnly.outcome === 'accepted' && countsOnly.proof?.notEvidence).toEqual(['vacuous one (a.test.js): it has no assertion']);
  const refused = await createJudge(only)(attempt);
  expect(refused).toMatchObject({ outcome: 'refused', check: 'shows-the-problem' });
  expect(refused.outcome === 'refused' && refused.message).toMatch(/the only tests that fail before and pass after assert nothing \(vacuous one\)/);
});

const special: GamingFinding = { kind: 'special-cases', file: 'src/vat.js', line: 2, code: 'if (net === 100 && rate === 20) return 120;', detail: 'returns 120 for 100, 20: the inputs and expected value of the failing test "adds 20%" (test/vat.test.js:3)' };

test('a change that games the tests: told once, naming the construct and the values; kept, it is accepted (and never called fixed by the outcome)', async () => {
  const judge = createJudge(deps({ gaming: { find: async () => [special], policy: 'draft' } }));
  const first = await judge(attempt);
  expect(first.outcome).toBe('refused');
  if (first.outcome !== 'refused') return;
  expect(first.check).toBe('games-the-tests');
  expect(first.reason).toBe("games the tests: special-cases the failing tests' values");
  expect(first.message).toContain('if (net === 100 && rate === 20) return 120;');
  expect(first.message).toContain('returns 120 for 100, 20');
  expect(first.message).toMatch(/general behaviour/);
  // the model was told: the same construct again is accepted here; fix/explain.ts does not call it fixed
  expect((await judge(attempt)).outcome).toBe('accepted');
  // a new construct is told again
  const other = createJudge(deps({ gaming: { find: async () => [special], policy: 'draft' } }));
  expect((await other(attempt)).outcome).toBe('refused');
});

test('policy gate.gaming: refuse refuses a gaming attempt every time; no finding passes; a gaming change is a draft whatever the inputs say', async () => {
  const strict = createJudge(deps({ gaming: { find: async () => [special], policy: 'refuse' } }));
  expect((await strict(attempt)).outcome).toBe('refused');
  const again = await strict(attempt);
  expect(again.outcome === 'refused' && again.message).toMatch(/gate\.gaming: refuse/);
  expect((await createJudge(deps({ gaming: { find: async () => [], policy: 'refuse' } }))(attempt)).outcome).toBe('accepted');
  const base = { draft: false, protectedPaths: [], maxIterations: 5, maxChangedFiles: 10, maxChangedLines: 400, budget: BUDGET } as unknown as SettingsInput;
  expect(applyPolicy(base, parsePolicy(''), 'p').gaming).toBe('draft');
  expect(applyPolicy(base, parsePolicy('gate:\n  gaming: refuse\n'), 'p').gaming).toBe('refuse');
  expect(() => parsePolicy('gate:\n  gaming: sometimes\n')).toThrow(/field "gate\.gaming"/);
  expect(draftFor({ draft: false, changedExpectations: 'ready' }, { reason: 'games-the-tests', tests: { runner: 'jest', commands: [], refusals: [], gaming: [special] } })).toBe(true);
});
