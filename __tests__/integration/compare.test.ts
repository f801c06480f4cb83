import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { CommandResult } from '../../src/ports/shell.js';
import { Redactor } from '../../src/redact.js';
import type { TestRun, TestStatus } from '../../src/verify/types.js';
import { testRun as build } from '../../test-support/builders.js';
import { compareRuns, describeTaskFailures, taskTargets, type GateRule } from '../../src/verify/compare.js';
import type { TestLinks } from '../../src/verify/tolerance.js';
import { failureFeedback, toTestRun } from '../../src/verify/test-run.js';

function testRun(exitCode: number | null, tests: Record<string, TestStatus>, over: Partial<TestRun> = {}): TestRun {
  return build(exitCode, tests, { durationMs: 1000, parsedFrom: Object.keys(tests).length ? 'jest' : 'none', ...over });
}

describe('compareRuns', () => {
  const baseline = testRun(1, { a: 'passed', b: 'passed', c: 'passed', d: 'failed' });

  test('the fix: the failing test passes, nothing else breaks', () => {
    const v = compareRuns(baseline, testRun(0, { a: 'passed', b: 'passed', c: 'passed', d: 'passed', e: 'passed' }));
    expect(v.ok).toBe(true);
    expect(v.nowPassing).toEqual(['d']);
    expect(v.newlyFailing).toEqual([]);
    expect(v.stillFailing).toEqual([]);
    expect(v.summary).toBe('3 passing → 5 passing, 1 failing → 0 failing; exit 1 → 0');
  });

  test('a regression: fixed one, broke another', () => {
    const v = compareRuns(baseline, testRun(1, { a: 'failed', b: 'passed', c: 'passed', d: 'passed' }));
    expect(v.ok).toBe(false);
    expect(v.newlyFailing).toEqual(['a']);
    expect(v.nowPassing).toEqual(['d']);
    expect(v.summary).toContain('1 newly failing');
  });

  test('still failing', () => {
    const v = compareRuns(baseline, testRun(1, { a: 'passed', b: 'passed', c: 'passed', d: 'failed' }));
    expect(v.ok).toBe(false);
    expect(v.stillFailing).toEqual(['d']);
    expect(v.newlyFailing).toEqual([]);
  });

  test('a new failing test, or a skipped one that now fails, is newly failing', () => {
    const v = compareRuns(testRun(1, { a: 'passed', s: 'skipped', d: 'failed' }), testRun(1, { a: 'passed', s: 'failed', d: 'passed', n: 'failed' }));
    expect(v.newlyFailing).toEqual(['s', 'n']);
  });

  test('a failing run is never ok even without failing tests (crash, timeout)', () => {
    expect(compareRuns(baseline, testRun(1, { a: 'passed', b: 'passed', c: 'passed', d: 'passed' })).ok).toBe(false);
    const timedOut = testRun(null, { a: 'passed' }, { timedOut: true, succeeded: false });
    const v = compareRuns(baseline, timedOut);
    expect(v.ok).toBe(false);
    expect(v.summary).toContain('exit 1 → timeout');
  });

  test('failures only listed (jest/go non-verbose): a vanished failure counts as passing when the run succeeds', () => {
    const base = testRun(1, { 'f.test.js > x': 'failed' });
    const v = compareRuns(base, testRun(0, {}, { parsedFrom: 'jest' }));
    expect(v.ok).toBe(true);
    expect(v.nowPassing).toEqual(['f.test.js > x']);
    const stillBroken = compareRuns(base, testRun(1, { 'g.test.js > y': 'failed' }));
    expect(stillBroken.nowPassing).toEqual([]);
    expect(stillBroken.newlyFailing).toEqual(['g.test.js > y']);
  });

  test('passing tests at baseline and none recognised now is not ok', () => {
    const v = compareRuns(baseline, testRun(0, {}));
    expect(v.ok).toBe(false);
    expect(v.summary).toContain('no tests recognised');
  });

  test('nothing parsed on either side: exit codes decide', () => {
    const fixed = compareRuns(testRun(2, {}), testRun(0, {}));
    expect(fixed.ok).toBe(true);
    expect(fixed.summary).toBe('no individual tests recognised; exit 2 → 0');
    expect(compareRuns(testRun(2, {}), testRun(2, {})).ok).toBe(false);
  });
});

function result(over: Partial<CommandResult>): CommandResult {
  return { command: 'npm test', exitCode: 1, signal: null, timedOut: false, durationMs: 1234, output: '', truncated: false, ...over };
}

describe('toTestRun', () => {
  const jestOut = readFileSync(path.join(process.cwd(), '__tests__', 'fixtures', 'verify', 'jest-verbose.txt'), 'utf8');

  test('parses, counts and keeps a redacted tail', () => {
    const secret = 'ghs_supersecretvalue123';
    const run = toTestRun(result({ output: `${jestOut}\nleaked ${secret}\n` }), new Redactor([secret]), 200);
    expect(run.parsedFrom).toBe('jest');
    expect(run.succeeded).toBe(false);
    expect(run.counts).toEqual({ passed: 3, failed: 3, skipped: 2 });
    expect(run.tests.filter((t) => t.status === 'failed')).toHaveLength(3);
    expect(run.outputTail.length).toBeLessThanOrEqual(200);
    expect(run.outputTail).toContain('leaked ***');
    expect(run.outputTail).not.toContain(secret);
  });

  test('succeeded only with exit 0 and no timeout', () => {
    expect(toTestRun(result({ exitCode: 0 }), new Redactor()).succeeded).toBe(true);
    expect(toTestRun(result({ exitCode: 0, timedOut: true }), new Redactor()).succeeded).toBe(false);
    expect(toTestRun(result({ exitCode: null, signal: 'SIGKILL' }), new Redactor()).succeeded).toBe(false);
  });

  test('secrets in failure messages are redacted too, and a spawn error is shown', () => {
    const secret = 'sk-live-abcdefgh12345';
    const out = `not ok 1 - calls the api\n  ---\n  error: 'bad key ${secret}'\n  ...\n`;
    const run = toTestRun(result({ output: out, spawnError: undefined }), new Redactor([secret]));
    expect(run.tests[0].message).toBe('bad key ***');
    const failed = toTestRun(result({ exitCode: null, spawnError: 'ENOENT: bash' }), new Redactor());
    expect(failed.outputTail).toContain('could not start the command: ENOENT: bash');
  });
});

describe('failureFeedback', () => {
  test('command, exit, failing tests with messages, then the output tail, capped', () => {
    const run = toTestRun(result({ output: `${'noise line\n'.repeat(2000)}FINAL LINE\n`, exitCode: 1 }), new Redactor());
    run.tests = [
      { id: 'a > one', status: 'failed', message: 'expected 1 to be 2' },
      { id: 'a > two', status: 'passed' },
    ];
    run.counts = { passed: 1, failed: 1, skipped: 0 };
    const text = failureFeedback(run, 1500);
    expect(text.length).toBeLessThanOrEqual(1500);
    expect(text).toContain('Test command: npm test');
    expect(text).toContain('exit code 1');
    expect(text).toContain('- a > one: expected 1 to be 2');
    expect(text).not.toContain('a > two');
    expect(text.trimEnd().endsWith('FINAL LINE\n```')).toBe(true); // the tail is fenced as untrusted data
  });

  test('mentions a timeout', () => {
    const run = toTestRun(result({ exitCode: null, timedOut: true, durationMs: 600_000, output: 'hanging...' }), new Redactor());
    expect(failureFeedback(run)).toMatch(/timed out after 600 s/);
  });

  test('a huge list of failures stays within the budget', () => {
    const run = toTestRun(result({ output: 'x' }), new Redactor());
    run.tests = Array.from({ length: 500 }, (_, i) => ({ id: `suite > test ${i}`, status: 'failed' as const, message: 'm'.repeat(300) }));
    const text = failureFeedback(run, 3000);
    expect(text.length).toBeLessThanOrEqual(3000);
    expect(text).toContain('suite > test 0');
  });
});

describe('failures that predate the change (gate rule)', () => {
  const allow: GateRule = { preexisting: 'allow' };
  // two bugs: the cart test the task is about, and an unrelated legacy test; frames tell the files apart
  const withFiles = (run: TestRun, files: Record<string, string>): TestRun => ({
    ...run,
    tests: run.tests.map((t) => (files[t.id] ? { ...t, file: files[t.id].startsWith('test/') ? files[t.id] : undefined, frame: `${files[t.id]}:3:9`, message: t.status === 'failed' ? `expected 2 to be 3 (${t.id})` : undefined } : t)),
    consistency: 'consistent',
  });
  const FILES = { total: 'test/cart.test.js', discount: 'test/cart.test.js', legacy: 'test/legacy.test.js' };
  const baseline = withFiles(testRun(1, { empty: 'passed', total: 'failed', discount: 'failed', legacy: 'failed' }), FILES);
  // the evidence the session gathers: nothing connects test/legacy.test.js to the changed src/cart.js
  const unrelated: TestLinks = {
    changed: ['src/cart.js'],
    files: {
      'test/legacy.test.js': { runner: 'not-selected', graph: 'not-connected', detail: 'its 1 imported file(s) of the repository include no changed file' },
      'test/old.test.js': { runner: 'none', graph: 'not-connected', detail: 'its 0 imported file(s) of the repository include no changed file' },
      'test/cart.test.js': { runner: 'selected', graph: 'connected', detail: 'imports src/cart.js' },
    },
  };
  const fixed = { ...withFiles(testRun(1, { empty: 'passed', total: 'passed', discount: 'passed', legacy: 'failed' }), FILES), links: unrelated };

  test('block (the default): the command must succeed', () => {
    const v = compareRuns(baseline, fixed);
    expect(v.ok).toBe(false);
    expect(v.stillFailing).toEqual(['legacy']);
    expect(v.preexisting).toBeUndefined();
  });

  test('allow: an unrelated failure that predates the change does not block, and is named', () => {
    const v = compareRuns(baseline, fixed, allow);
    expect(v.ok).toBe(true);
    expect(v.nowPassing).toEqual(['total', 'discount']);
    expect(v.preexisting).toEqual(['legacy']);
    expect(v.summary).toContain('1 already failing before any edit (not this change\'s job, not blocking)');
  });

  test('allow: half a fix is not a fix (a failure in the same file as a test the change made pass)', () => {
    const half = { ...withFiles(testRun(1, { empty: 'passed', total: 'passed', discount: 'failed', legacy: 'failed' }), FILES), links: unrelated };
    const v = compareRuns(baseline, half, allow);
    expect(v.ok).toBe(false);
    // the model is told which still-failing tests are its job
    expect(v.taskFailures).toEqual(['discount']);
    // the same by the first in-repo frame: both failed inside src/cart.js
    const srcFrames = { total: 'src/cart.js', discount: 'src/cart.js', legacy: 'test/legacy.test.js' };
    expect(compareRuns(withFiles(baseline, srcFrames), { ...withFiles(half, srcFrames), links: unrelated }, allow).ok).toBe(false);
  });

  test('allow: the tests the task names must pass', () => {
    expect(compareRuns(baseline, fixed, { preexisting: 'allow', targets: ['legacy'] })).toMatchObject({ ok: false, taskFailures: ['legacy'] });
    expect(compareRuns(baseline, fixed, { preexisting: 'allow', targets: ['total'] }).ok).toBe(true);
  });

  test('allow: no progress, a new failure, an unnamed failure, a crash or a new load error still block', () => {
    // nothing the change did made a failing test pass
    expect(compareRuns(baseline, baseline, allow).ok).toBe(false);
    // a regression
    const regression = { ...withFiles(testRun(1, { empty: 'failed', total: 'passed', discount: 'passed', legacy: 'failed' }), { ...FILES, empty: 'test/cart.test.js' }), links: unrelated };
    expect(compareRuns(baseline, regression, allow).ok).toBe(false);
    // the runner counts more failures than it names
    expect(compareRuns(baseline, { ...fixed, counts: { ...fixed.counts, failed: 2 } }, allow).ok).toBe(false);
    // a failure whose file is unknown is never excused
    const anonymous = testRun(1, { empty: 'passed', total: 'failed', legacy: 'failed' });
    const anonymousAfter = { ...testRun(1, { empty: 'passed', total: 'passed', legacy: 'failed' }), consistency: 'consistent' as const, links: unrelated };
    expect(compareRuns(anonymous, anonymousAfter, allow)).toMatchObject({ ok: false, taskFailures: ['legacy'] });
    expect(compareRuns(anonymous, anonymousAfter, allow).tolerance?.[0].evidence).toMatch(/test file is unknown/);
    // exit code without a failing test to explain it, or a timeout
    expect(compareRuns(baseline, { ...fixed, consistency: 'exit-nonzero-without-failing-test' }, allow).ok).toBe(false);
    expect(compareRuns(baseline, { ...fixed, timedOut: true }, allow).ok).toBe(false);
    // a file that did not load before and does now fail to load is excused; a new one is not
    const loadBefore = { ...baseline, loadErrors: ['test/old.test.js'] };
    expect(compareRuns(loadBefore, { ...fixed, loadErrors: ['test/old.test.js'] }, allow).preexisting).toEqual(['legacy', 'test/old.test.js (failed to load)']);
    expect(compareRuns(loadBefore, { ...fixed, loadErrors: ['test/new.test.js'] }, allow).ok).toBe(false);
  });

  test('allow: a pre-existing failure stays only with evidence that it is unrelated', () => {
    // excused: the evidence is in the verdict
    const ok = compareRuns(baseline, fixed, allow);
    expect(ok.tolerance).toEqual([expect.objectContaining({ id: 'legacy', excused: true, evidence: expect.stringContaining("the runner's related-test selection does not select it") })]);
    // half a fix across two test files that both import the changed module: the other file's failure is refused
    const twoFiles = { total: 'test/format.test.js', legacy: 'test/locale.test.js' };
    const base2 = withFiles(testRun(1, { total: 'failed', legacy: 'failed' }), twoFiles);
    const linked: TestLinks = { changed: ['src/format.js'], files: { 'test/locale.test.js': { runner: 'none', graph: 'connected', detail: 'imports src/index.js → src/format.js' } } };
    const half = compareRuns(base2, { ...withFiles(testRun(1, { total: 'passed', legacy: 'failed' }), twoFiles), links: linked }, allow);
    expect(half).toMatchObject({ ok: false, taskFailures: ['legacy'] });
    expect(half.tolerance?.[0].evidence).toBe('blocked: test/locale.test.js imports src/index.js → src/format.js');
    // the runner's own selection connects it, whatever the import graph says
    const selected: TestLinks = { changed: ['src/format.js'], files: { 'test/locale.test.js': { runner: 'selected', graph: 'not-connected', detail: 'x' } } };
    expect(compareRuns(base2, { ...withFiles(testRun(1, { total: 'passed', legacy: 'failed' }), twoFiles), links: selected }, allow).tolerance?.[0].evidence).toMatch(/related-test selection .* selects test\/locale.test.js/);
    // unrelated by the graph, but its failure message changed with the change: refused
    const changedMsg = { ...fixed, tests: fixed.tests.map((t) => (t.id === 'legacy' ? { ...t, message: 'expected 2 to be 4 (legacy)' } : t)) };
    const v = compareRuns(baseline, changedMsg, allow);
    expect(v.ok).toBe(false);
    expect(v.tolerance?.[0].evidence).toMatch(/^blocked: its failure changed with the change \(before: expected 2 to be 3 \(legacy\) @ test\/legacy.test.js:3:9; now: expected 2 to be 4/);
    // timing noise is not a change
    const timing = { ...fixed, tests: fixed.tests.map((t) => (t.id === 'legacy' ? { ...t, message: 'expected 2 to be 3 (legacy) (12 ms)' } : t)) };
    expect(compareRuns(baseline, timing, allow).ok).toBe(true);
    // no evidence gathered, an import graph that cannot tell, no failure output: refused
    expect(compareRuns(baseline, { ...fixed, links: undefined }, allow).tolerance?.[0].evidence).toMatch(/no relatedness evidence/);
    const unsure: TestLinks = { ...unrelated, files: { ...unrelated.files, 'test/legacy.test.js': { runner: 'none', graph: 'unknown', detail: '1 import(s) of the repository could not be resolved (test/legacy.test.js: ./gone)' } } };
    expect(compareRuns(baseline, { ...fixed, links: unsure }, allow).tolerance?.[0].evidence).toMatch(/cannot tell .*\.\/gone/);
    const silent = (r: TestRun): TestRun => ({ ...r, tests: r.tests.map((t) => ({ ...t, message: undefined, frame: undefined })) });
    expect(compareRuns(silent(baseline), silent(fixed), allow).tolerance?.[0].evidence).toMatch(/no failure output was recorded/);
    // the model is told which evidence blocked each one
    expect(describeTaskFailures(v)).toContain('- legacy: blocked: its failure changed with the change');
  });

  test('taskTargets: the failing tests an issue names by name or by file', () => {
    const run: TestRun = {
      ...testRun(1, {}),
      tests: [
        { id: 'test/cart.test.js > cart > applies a percentage discount', status: 'failed' },
        { id: 'tests/test_io.py::test_reads_unicode_paths', status: 'failed' },
        { id: 'legacy layout', status: 'failed', frame: 'src/legacy/export.js:4:1' },
        { id: 'pkg > TestParse', status: 'failed' },
        { id: 'adds', status: 'failed' },
        { id: 'test/other.test.js > passes', status: 'passed' },
      ],
    };
    expect(taskTargets(run, 'The discount is wrong: see "applies a percentage discount".')).toEqual(['test/cart.test.js > cart > applies a percentage discount']);
    expect(taskTargets(run, 'test_reads_unicode_paths fails on Windows')).toEqual(['tests/test_io.py::test_reads_unicode_paths']);
    expect(taskTargets(run, 'The crash is in export.js')).toEqual(['legacy layout']);
    expect(taskTargets(run, 'cart.test.js fails since 2.0')).toEqual(['test/cart.test.js > cart > applies a percentage discount']);
    // too short to be a name, or only part of a word: not a mention
    expect(taskTargets(run, 'it adds wrong; TestParser is slow')).toEqual([]);
    expect(taskTargets(run, 'TestParse fails')).toEqual(['pkg > TestParse']);
  });
});
