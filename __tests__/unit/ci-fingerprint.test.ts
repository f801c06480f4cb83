import { baseJobName, checkReproduction, ciFingerprint, failureSignature, normalizeError, sameTest } from '../../src/ci/fingerprint.js';
import type { TestRun } from '../../src/verify/types.js';
import { testRun } from '../../test-support/builders.js';

const job = (name: string, failingTests: string[], errors: string[] = [], failedSteps = ['Run tests']) => ({ name, failingTests, errors, failedSteps });

describe('ciFingerprint', () => {
  test('the same cause in another run (durations, matrix leg, order, spacing) gives the same fingerprint', () => {
    const a = ciFingerprint('CI@main', [job('test (ubuntu-latest, 20)', ['applies a discount (0.95ms)', 'cart > totals  (3 ms)'])]);
    const b = ciFingerprint('CI@main', [job('test (ubuntu-latest, 22)', ['Cart › totals', 'applies a discount (1.20ms)']), job('test (windows-latest, 22)', ['applies a discount'])]);
    expect(a).toMatch(/^[0-9a-f]{12}$/);
    expect(b).toBe(a);
  });

  test('another failing test, job, workflow or branch is another failure', () => {
    const base = ciFingerprint('CI@main', [job('test', ['applies a discount'])]);
    expect(ciFingerprint('CI@main', [job('test', ['formats cents'])])).not.toBe(base);
    expect(ciFingerprint('CI@main', [job('lint', ['applies a discount'])])).not.toBe(base);
    expect(ciFingerprint('Nightly@main', [job('test', ['applies a discount'])])).not.toBe(base);
    expect(ciFingerprint('CI@feature', [job('test', ['applies a discount'])])).not.toBe(base);
  });

  test('without test names it rests on the normalized errors, then on the failed steps', () => {
    const e1 = ciFingerprint('CI@main', [job('build', [], ["src/a.ts(7,9): error TS2322: Type 'string' is not assignable to type 'number'."])]);
    const e2 = ciFingerprint('CI@main', [job('build', [], ["src/a.ts(12,3): error TS2322: Type 'string' is not assignable to type 'number'."])]);
    expect(e2).toBe(e1);
    expect(failureSignature('CI', [job('build', [], ['x'])]).basis).toBe('errors');
    expect(failureSignature('CI', [job('build', [], [])]).basis).toBe('steps');
    expect(normalizeError('at /tmp/abc123/x.js:12:4 sha 0123abcd9')).toBe('at <tmp>:#:# sha <hex>');
    expect(baseJobName('test (ubuntu, 20)')).toBe('test');
    expect(baseJobName('build / lint')).toBe('build / lint');
  });
});

function run(p: Partial<TestRun> & { failing?: string[]; passing?: string[] }): TestRun {
  const tests = [...(p.failing ?? []).map((id) => ({ id, status: 'failed' as const })), ...(p.passing ?? []).map((id) => ({ id, status: 'passed' as const }))];
  return testRun(p.exitCode ?? (p.failing?.length ? 1 : 0), tests, { durationMs: 10, succeeded: p.succeeded ?? !(p.failing?.length || p.exitCode), parsedFrom: tests.length ? 'jest' : 'none' });
}

describe('checkReproduction', () => {
  test('a green baseline does not reproduce (flaky or environment-only)', () => {
    const r = checkReproduction(['applies a discount'], run({ passing: ['applies a discount'] }));
    expect(r.kind).toBe('not-reproduced');
    expect(r.detail).toMatch(/flaky or specific to the CI environment.*no code was changed/);
  });

  test('a red baseline failing one of the CI tests reproduces, whatever the id format', () => {
    const r = checkReproduction(['Cart › applies a discount'], run({ failing: ['src/cart.test.js > Cart > applies a discount'] }));
    // the local ids of the CI failures are what the repair must make pass (other local failures may predate it)
    expect(r).toMatchObject({ kind: 'reproduced', matched: ['Cart › applies a discount'], local: ['src/cart.test.js > Cart > applies a discount'] });
    expect(sameTest('test_discount', 'tests/test_cart.py::test_discount')).toBe(true);
    expect(sameTest('discount', 'applies a discount')).toBe(false);
  });

  test('a red baseline failing only other tests is another problem', () => {
    const r = checkReproduction(['applies a discount'], run({ failing: ['formats cents'] }));
    expect(r.kind).toBe('not-reproduced');
    expect(r.detail).toContain('not on the tests that failed in CI');
  });

  test('without test names on either side, a failing command is enough', () => {
    expect(checkReproduction([], run({ failing: ['x'] })).kind).toBe('reproduced');
    expect(checkReproduction(['x'], run({ exitCode: 2, succeeded: false })).kind).toBe('reproduced');
  });
});

test('a green baseline without failing tests in the log hints at the test-command input', () => {
  const green: TestRun = { command: 'npm test', exitCode: 0, timedOut: false, durationMs: 1, succeeded: true, tests: [], counts: { passed: 3, failed: 0, skipped: 0 }, parsedFrom: 'none', outputTail: '' };
  const r = checkReproduction([], green, { failedSteps: ['Run lint'] });
  expect(r.kind).toBe('not-reproduced');
  expect(r.detail).toContain('the failed step ("Run lint") may run something other than `npm test`');
  expect(r.detail).toContain('`test-command` input');
});
