/**
 * Changed expectations told apart from tests edited to pass (verify/expectation.ts), on the
 * runs a real gate makes: the old test on the original code, the old test on the fix, the
 * edited test on the original code and on the fix. Pure: runs as values, diffs as `git diff` prints them.
 */
import { describeChangedExpectations, expectedReceived, judgeExpectations, loosened, relatedToTask, snapshotOwner, type ExpectationInput } from '../../src/verify/expectation.js';
import { newlySkipped, parseUnifiedDiff, checkTestIntegrity } from '../../src/guard/test-integrity.js';
import type { TestRun, TestStatus } from '../../src/verify/types.js';
import { runOfTests } from '../../test-support/builders.js';

const run = (tests: [string, TestStatus, string?][], parsedFrom: TestRun['parsedFrom'] = 'jest'): TestRun =>
  runOfTests(tests.map(([id, status, details]) => ({ id, status, ...(details ? { details, message: details.split('\n')[0] } : {}) })), { parsedFrom });

const ID = 'test/plugin/duration.test.js > Parse ISO string > ISO string with week';
const DIFF = `diff --git a/test/plugin/duration.test.js b/test/plugin/duration.test.js
index eec20b1..7c6c699 100644
--- a/test/plugin/duration.test.js
+++ b/test/plugin/duration.test.js
@@ -92,8 +92,9 @@ describe('Parse ISO string', () => {
   it('ISO string with week', () => {
     const d = dayjs.duration('P2M3W4D')
     expect(d.toISOString()).toBe('P2M25D')
-    expect(d.asDays()).toBe(85)
-    expect(d.asWeeks()).toBe(12.142857142857142)
+    expect(d.asDays()).toBe(85.83333333333333)
+    expect(d.asWeeks()).toBe(12.261904761904763)
+    expect(d.asMonths()).toBe(2.8219178082191783)
   })
`;
const JEST_FAILURE = 'expect(received).toBe(expected) // Object.is equality\n\nExpected: 85\nReceived: 85.83333333333333\n\n  at Object.<anonymous> (test/plugin/duration.test.js:95:25)';

function input(over: Partial<ExpectationInput> = {}): ExpectationInput {
  return {
    candidates: [ID],
    baseline: run([[ID, 'passed'], ['test/plugin/duration.test.js > other', 'passed']]),
    original: run([[ID, 'failed', JEST_FAILURE], ['test/plugin/duration.test.js > other', 'passed']]),
    withoutFix: run([[ID, 'failed'], ['test/plugin/duration.test.js > other', 'passed']]),
    fixRun: run([[ID, 'passed'], ['test/plugin/duration.test.js > other', 'passed']]),
    testDiff: parseUnifiedDiff(DIFF),
    taskText: 'fix: duration plugin - MILLISECONDS_A_MONTH const calculation\nA month is counted as 30 days in asDays().',
    targets: [],
    policy: 'draft',
    ...over,
  };
}

describe('a changed expectation is accepted only when the tests prove it', () => {
  test('the old test passes on the original code, the edited one fails there and passes with the fix: accepted, old → new from the failure', () => {
    const j = judgeExpectations(input());
    expect(j.refused).toEqual([]);
    expect(j.accepted).toEqual([{ test: ID, file: 'test/plugin/duration.test.js', before: '85', now: '85.83333333333333' }]);
    expect(describeChangedExpectations(j.accepted)).toEqual([`${ID}: expected 85 → now 85.83333333333333`]);
  });

  test('the edited test passes on the original code too (the expected value set to the buggy output): refused', () => {
    const j = judgeExpectations(input({ withoutFix: run([[ID, 'passed']]) }));
    expect(j.accepted).toEqual([]);
    expect(j.refused[0].why).toMatch(/passes on the original code as well/);
  });

  test('the edited test no longer runs (renamed, skipped, moved): refused', () => {
    expect(judgeExpectations(input({ withoutFix: run([]) })).refused[0].why).toMatch(/did not run on the original code \(missing\)/);
    expect(judgeExpectations(input({ withoutFix: run([[ID, 'skipped']]) })).refused[0].why).toMatch(/did not run on the original code \(skipped\)/);
    expect(judgeExpectations(input({ withoutFix: undefined })).refused[0].why).toMatch(/no run of the edited test on the original code/);
  });

  test('a test that failed before any edit is no changed expectation: it is a failure the task must fix', () => {
    expect(judgeExpectations(input({ baseline: run([[ID, 'failed']]) })).refused[0].why).toMatch(/did not pass on the original code/);
  });

  test('an assertion loosened (an exact value replaced by a range, or negated): refused', () => {
    const range = DIFF.replace('+    expect(d.asDays()).toBe(85.83333333333333)', '+    expect(d.asDays()).toBeGreaterThan(85)').replace('+    expect(d.asMonths()).toBe(2.8219178082191783)\n', '');
    expect(judgeExpectations(input({ testDiff: parseUnifiedDiff(range) })).refused[0].why).toMatch(/assertions are weaker: .*1 exact assertion\(s\) fewer/);
    const negated = DIFF.replace('+    expect(d.asDays()).toBe(85.83333333333333)', '+    expect(d.asDays()).not.toBe(85)').replace('+    expect(d.asMonths()).toBe(2.8219178082191783)\n', '');
    expect(judgeExpectations(input({ testDiff: parseUnifiedDiff(negated) })).refused[0].why).toMatch(/weaker/);
  });

  test('a test the task is not about: refused, however well proven', () => {
    const j = judgeExpectations(input({ taskText: 'The relative time plugin says "in a few seconds" for past dates.' }));
    expect(j.accepted).toEqual([]);
    expect(j.refused[0].why).toMatch(/the task is not about this test/);
  });

  test('the policy forbids changed expectations: refused', () => {
    expect(judgeExpectations(input({ policy: 'forbid' })).refused[0].why).toMatch(/policy forbids changed expectations \(gate\.changed-expectations: forbid\)/);
  });

  test('two tests in two files, each judged on its own file', () => {
    const other = 'test/calendar.test.js > a week is seven days of a duration';
    const twoFiles = `${DIFF}diff --git a/test/calendar.test.js b/test/calendar.test.js
--- a/test/calendar.test.js
+++ b/test/calendar.test.js
@@ -1,3 +1,3 @@
 it('a week is seven days of a duration', () => {
-  expect(weeks(dayjs.duration('P2M'))).toBe(8.571428571428571)
+  expect(weeks(dayjs.duration('P2M'))).toBeDefined()
 })
`;
    const j = judgeExpectations(
      input({
        candidates: [ID, other],
        baseline: run([[ID, 'passed'], [other, 'passed']]),
        original: run([[ID, 'failed', JEST_FAILURE], [other, 'failed']]),
        withoutFix: run([[ID, 'failed'], [other, 'failed']]),
        fixRun: run([[ID, 'passed'], [other, 'passed']]),
        testDiff: parseUnifiedDiff(twoFiles),
      }),
    );
    expect(j.accepted.map((c) => c.test)).toEqual([ID]);
    expect(j.refused).toEqual([{ test: other, why: expect.stringMatching(/^the assertions are weaker: test\/calendar\.test\.js has 1 exact assertion/) }]);
  });
});

describe('the pieces', () => {
  test('old and new values from the runners\' failure messages', () => {
    expect(expectedReceived(JEST_FAILURE)).toEqual({ expected: '85', received: '85.83333333333333' });
    expect(expectedReceived("---\n  operator: equal\n  expected: 'a[b]=c%2Cd'\n  actual:   'a[b]=c,d'\n  ...")).toEqual({ expected: "'a[b]=c%2Cd'", received: "'a[b]=c,d'" });
    expect(expectedReceived('AssertionError: expected 85.8 to be 85 // Object.is equality')).toEqual({ expected: '85', received: '85.8' });
    expect(expectedReceived('boom')).toBeNull();
  });

  test('the task is about a test when a word of its name or file is in the task, or the task names a test of its file', () => {
    expect(relatedToTask('test/plugin/minMax.test.js > Return current time if no argument', 'test/plugin/minMax.test.js', 'fix: fix minMax plugin parsing empty array bug', [])).toBe(true);
    expect(relatedToTask('stringifies a nested array value', undefined, '[Fix] `stringify`: avoid encoding arrayformat comma when `encodeValuesOnly = true`', [])).toBe(true);
    expect(relatedToTask('test/format.test.js > formats a price', 'test/format.test.js', 'asDays counts a month as 30 days', [])).toBe(false);
    expect(relatedToTask('test/a.test.js > x', 'test/a.test.js', 'nothing shared', ['test/a.test.js > y'])).toBe(true);
  });

  test('qs-5dbeeb4: assertions un-skipped and a buggy one replaced are not weaker; a skip reason changed is no new skip marker for the runner', () => {
    const qs = `diff --git a/test/stringify.js b/test/stringify.js
--- a/test/stringify.js
+++ b/test/stringify.js
@@ -134,8 +134,7 @@ test('stringify()', function (t) {
-        st.equal(qs.stringify({ a: { b: ['c', 'd'] } }, { encodeValuesOnly: true, arrayFormat: 'comma' }), 'a[b]=c%2Cd');
-        st.equal(qs.stringify({ a: { b: ['c', 'd'] } }, { encodeValuesOnly: true, arrayFormat: 'comma' }), 'a[b]=c,d', '(pending issue #378)', { skip: true });
+        st.equal(qs.stringify({ a: { b: ['c', 'd'] } }, { encodeValuesOnly: true, arrayFormat: 'comma' }), 'a[b]=c,d');
@@ -157,22 +156,13 @@ test('stringify()', function (t) {
-        st.equal(
-            qs.stringify(
-                { a: { b: ['c', 'd'] } },
-                { allowDots: true, encodeValuesOnly: true, arrayFormat: 'comma' }
-            ),
-            'a.b=c%2Cd',
-            'comma: stringifies with dots + comma'
-        );
         st.equal(
-            'comma: stringifies with dots + comma (pending issue #378)',
-            { skip: true }
+            'comma: stringifies with dots + comma'
         );
@@ -237,8 +227,8 @@ test('stringify()', function (t) {
-            'brackets => brackets (pending issue #378)',
-            { skip: true }
+            'brackets => brackets',
+            { skip: 'TODO: figure out what this should do' }
         );
`;
    const files = parseUnifiedDiff(qs);
    expect(loosened(files[0])).toBeNull();
    const findings = checkTestIntegrity(files);
    expect(findings.map((f) => [f.category, f.judgedBy])).toEqual([['skip', 'skipped-tests']]);
    // the runner reports what is skipped: the same number, none of them ran before
    const before = run([['stringifies a nested array value', 'passed'], ['brackets => brackets (pending issue #378)', 'skipped']], 'tap');
    const after = run([['stringifies a nested array value', 'passed'], ['brackets => brackets', 'skipped']], 'tap');
    expect(newlySkipped(before, after)).toEqual([]);
  });

  test('skips the runner reports: a test that ran before and is skipped now, or more skipped tests; a runner that cannot tell', () => {
    const before = run([['a', 'passed'], ['b', 'passed']]);
    expect(newlySkipped(before, run([['a', 'passed'], ['b', 'skipped']]))).toEqual(['b']);
    expect(newlySkipped(before, run([['a', 'passed'], ['b', 'passed'], ['c', 'skipped']]))).toEqual(['c']);
    expect(newlySkipped(run([], 'none'), run([], 'none'))).toBeNull();
    // `.only` selects tests: the line decides, whatever the runner reports
    const only = checkTestIntegrity("diff --git a/a.test.js b/a.test.js\n--- a/a.test.js\n+++ b/a.test.js\n@@ -1 +1 @@\n-it('x', () => {})\n+it.only('x', () => {})\n");
    expect(only.map((f) => [f.category, f.judgedBy])).toEqual([['skip', undefined]]);
  });

  test('a snapshot belongs to its test file', () => {
    expect(snapshotOwner('src/__snapshots__/a.test.js.snap')).toBe('src/a.test.js');
    expect(snapshotOwner('test/__snapshots__/clamp.json')).toBeNull();
  });
});
