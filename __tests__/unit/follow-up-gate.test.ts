import type { TestCase, TestRun, TestStatus } from '../../src/verify/types.js';
import { testRun as build } from '../../test-support/builders.js';
import type { RunReport } from '../../src/fix/types.js';
import { asksForTest, judgeFollowUp, parseProofMarker, proofMarker, proofTests, requiredOriginal, withoutProofMarker, withProofMarker, type FollowUpGate } from '../../src/fix/follow-up-gate.js';

function testRun(exitCode: number, tests: Record<string, TestStatus>, files: Record<string, string> = {}): TestRun {
  const list: TestCase[] = Object.entries(tests).map(([id, status]) => ({ id, status, ...(files[id] ? { file: files[id] } : {}) }));
  return build(exitCode, list, { durationMs: 10 });
}

const gate = (over: Partial<FollowUpGate> = {}): FollowUpGate => ({ original: [], originalFiles: [], source: 'test', wantsTest: false, ...over });

describe('the follow-up gate', () => {
  const head = testRun(0, { 'cart > quantity': 'passed', 'cart > discount': 'passed', 'fmt > cents': 'passed' });

  test('a follow-up that keeps the original fix\'s tests is accepted without a fail-to-pass proof', () => {
    expect(judgeFollowUp(head, head, ['src/cart.js'], gate({ original: ['cart > quantity', 'cart > discount'] }))).toBeNull();
  });

  test('an original test that vanished (deleted or renamed) or fails is refused, by name', () => {
    const after = testRun(0, { 'cart > discount': 'passed', 'fmt > cents': 'passed', 'cart > qty renamed': 'passed' });
    const why = judgeFollowUp(head, after, ['test/cart.test.js'], gate({ original: ['cart > quantity', 'cart > discount'] }));
    expect(why).toContain('cart > quantity (missing)');
    expect(why).not.toContain('cart > discount');
    const failing = testRun(1, { 'cart > quantity': 'failed', 'cart > discount': 'passed', 'fmt > cents': 'passed' });
    expect(judgeFollowUp(head, failing, ['src/cart.js'], gate({ original: ['cart > quantity'] }))).toContain('cart > quantity (failed)');
  });

  test('only the original tests that pass on the PR head must hold (a human may have changed the others)', () => {
    const headWithout = testRun(0, { 'cart > discount': 'passed' });
    expect(requiredOriginal(headWithout, gate({ original: ['cart > quantity', 'cart > discount'] }))).toEqual(['cart > discount']);
  });

  test('without a marker, the tests of the test files the branch changed must hold', () => {
    const withFiles = testRun(0, { 'a > x': 'passed', 'b > y': 'passed' }, { 'a > x': 'test/a.test.js', 'b > y': 'test/b.test.js' });
    expect(requiredOriginal(withFiles, gate({ originalFiles: ['test/a.test.js'] }))).toEqual(['a > x']);
    const after = testRun(0, { 'b > y': 'passed' }, { 'b > y': 'test/b.test.js' });
    expect(judgeFollowUp(withFiles, after, ['test/a.test.js'], gate({ originalFiles: ['test/a.test.js'] }))).toContain('a > x (missing)');
  });

  test('a request for a test needs a new or changed test that passes', () => {
    const g = gate({ wantsTest: true });
    expect(judgeFollowUp(head, head, ['src/cart.js'], g)).toContain('asks for a test');
    const added = testRun(0, { ...Object.fromEntries(head.tests.map((t) => [t.id, t.status])), 'cart > empty cart': 'passed' }, { 'cart > empty cart': 'test/cart.test.js' });
    expect(judgeFollowUp(head, added, ['src/cart.js', 'test/cart.test.js'], g)).toBeNull();
    // a test file touched, but its new test fails: no
    const failingNew = testRun(1, { 'cart > quantity': 'passed', 'cart > empty cart': 'failed' }, { 'cart > empty cart': 'test/cart.test.js' });
    expect(judgeFollowUp(head, failingNew, ['test/cart.test.js'], g)).toContain('asks for a test');
  });

  test.each([
    ['Please add a test for the empty cart.', true],
    ['Can you cover this with a unit test?', true],
    ['write tests for formatCents', true],
    ['This needs a test case for negative prices', true],
    ['Use a named constant instead of 100.', false],
    ['The tests look fine, rename the variable.', false],
    ['Rename `latest` to `newest`', false],
  ])('asksForTest(%j) is %s', (text, expected) => {
    expect(asksForTest(text)).toBe(expected);
  });
});

describe('the proof marker of a first fix', () => {
  test('round-trips test ids, also ones that hold comment terminators', () => {
    const ids = ['a --> b', 'x > y', 'ünïcode'];
    const body = `report\n\n${proofMarker(ids)}\n`;
    expect(body.match(/-->/g)).toHaveLength(1);
    expect(parseProofMarker(body)).toEqual(ids);
    expect(withoutProofMarker(body).trim()).toBe('report');
  });

  test('a missing or damaged marker reads as none', () => {
    expect(parseProofMarker('no marker')).toBeNull();
    expect(parseProofMarker('<!-- agent-fix:proof bm90IGpzb24 -->')).toBeNull();
  });

  test('stays small whatever the number of tests', () => {
    const ids = Array.from({ length: 500 }, (_, i) => `suite > a rather long test name number ${i}`);
    const marker = proofMarker(ids);
    expect(marker.length).toBeLessThan(4_200);
    expect(parseProofMarker(marker)!.length).toBeGreaterThan(10);
  });

  test('names what the first fix made pass: the gate\'s now-passing tests and the proof\'s tests', () => {
    const report = {
      status: 'fixed',
      attempts: [{ iteration: 1, summary: '', changedFiles: [], rolledBack: false, verdict: { ok: true, newlyFailing: [], nowPassing: ['cart > quantity'], stillFailing: [], summary: '' } }],
      tests: { runner: 'jest', commands: [], refusals: [], proof: { status: 'proven', detail: '', testFiles: ['t.test.js'], tests: [{ id: 'cart > new', before: 'failed', after: 'passed' }, { id: 'cart > old', before: 'passed', after: 'passed' }] } },
    } as unknown as RunReport;
    expect(proofTests(report).sort()).toEqual(['cart > new', 'cart > quantity']);
    expect(withProofMarker('body', report)).toContain('<!-- agent-fix:proof ');
    expect(proofTests({ ...report, status: 'not-fixed' })).toEqual([]);
    expect(withProofMarker('body', { ...report, status: 'not-fixed' })).toBe('body');
  });
});
