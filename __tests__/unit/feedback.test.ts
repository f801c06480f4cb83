/**
 * The failure context the model reads (src/verify/feedback.ts): grouping of failures that
 * differ only in numbers, compact naming of every failing test, go noise (`=== RUN`,
 * `--- PASS`, per-package timings, passing tests' log lines) and output-tail lines that only
 * repeat what the failures already show.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestCase, TestRun } from '../../src/verify/types.js';
import { compactIds, packFeedback, stripNoise } from '../../src/verify/feedback.js';
import { goJsonToText } from '../../src/verify/runners/go.js';
import { toTestRun } from '../../src/verify/test-run.js';
import { Redactor } from '../../src/redact.js';

const STRUCTURED = path.join(process.cwd(), '__tests__', 'fixtures', 'verify', 'structured');

/** Non-verbose `go test ./...` output: 2 packages, 3 tests failing the same way (numbers aside). */
const GO_PLAIN = [
  '--- FAIL: TestCase0 (0.00s)',
  '    g0_test.go:10: total(items of case 0) = 1, want 0',
  '--- FAIL: TestCase13 (0.00s)',
  '    g0_test.go:101: total(items of case 13) = 40, want 39',
  'FAIL',
  'FAIL\texample.com/shop/g0\t0.008s',
  '--- FAIL: TestCase9 (0.00s)',
  '    g1_test.go:73: total(items of case 9) = 28, want 27',
  'FAIL',
  'FAIL\texample.com/shop/g1\t0.004s',
  'ok  \texample.com/shop/g2\t0.003s',
  '?   \texample.com/shop/cmd\t[no test files]',
  'FAIL',
  '',
].join('\n');

function goRun(output: string): TestRun {
  return toTestRun({ command: 'go test ./...', exitCode: 1, signal: null, timedOut: false, durationMs: 5, output, truncated: false }, new Redactor());
}

describe('go failures in the feedback', () => {
  test('failures differing only in numbers are one group; the first keeps its real text, every id is named once, compactly', () => {
    const run = goRun(GO_PLAIN);
    expect(run.tests.filter((t) => t.status === 'failed').map((t) => t.id)).toEqual([
      'example.com/shop/g0 > TestCase0',
      'example.com/shop/g0 > TestCase13',
      'example.com/shop/g1 > TestCase9',
    ]);
    const text = packFeedback(run);
    expect(text).toContain('Failing tests (3, 1 distinct failure):');
    expect(text).toContain('- example.com/shop/g0 > TestCase0: g0_test.go:10: total(items of case 0) = 1, want 0');
    expect(text).toContain('(same failure in 2 more, under example.com/shop/: g0 > TestCase13; g1 > TestCase9)');
    // The others' own numbers are not repeated: not in the failures, not in the output's end.
    expect(text).not.toContain('case 13) = 40');
    expect(text).not.toContain('case 9) = 28');
    // go's per-package lines and timings are noise.
    expect(text).not.toMatch(/0\.00\ds/);
    expect(text).not.toContain('[no test files]');
    expect(text).not.toContain('End of the output');
  });

  test('an output line the failures do not show stays in the output end (a panic is never folded away)', () => {
    const output = GO_PLAIN.replace('FAIL\n\n', '').concat('panic: runtime error: index out of range [3] with length 3\n\ngoroutine 7 [running]:\nexample.com/shop/g3.TestIndex(0xc000)\n\t/repo/g3/g3_test.go:9 +0x1d\nFAIL\texample.com/shop/g3\t0.004s\n');
    const text = packFeedback(goRun(output));
    expect(text).toContain('End of the output');
    expect(text).toContain('panic: runtime error: index out of range [3] with length 3');
    expect(text).toContain('g3_test.go:9');
  });

  test('a block naming a failing test is dropped from the output end only when every line repeats (numbers aside) a shown line', () => {
    const run: TestRun = {
      command: 'go test ./...',
      exitCode: 1,
      timedOut: false,
      durationMs: 5,
      succeeded: false,
      parsedFrom: 'go',
      counts: { passed: 0, failed: 2, skipped: 0 },
      tests: [
        { id: 'example.com/shop/g0 > TestA', status: 'failed', message: 'a_test.go:5: got 1, want 2', details: 'a_test.go:5: got 1, want 2' },
        { id: 'example.com/shop/g0 > TestB', status: 'failed', message: 'a_test.go:9: got 3, want 4', details: 'a_test.go:9: got 3, want 4' },
      ],
      outputTail: ['--- FAIL: TestA (0.00s)', '    a_test.go:5: got 1, want 2', '--- FAIL: TestB (0.00s)', '    a_test.go:9: got 3, want 4', '    a_test.go:10: the cache was cold', 'FAIL'].join('\n'),
    };
    const text = packFeedback(run);
    expect(text).toContain('(same failure in 1 more: example.com/shop/g0 > TestB)');
    const tail = text.slice(text.indexOf('End of the output'));
    expect(tail).not.toContain('--- FAIL: TestA');
    expect(tail).toContain('--- FAIL: TestB (0.00s)'); // kept whole: it has a line not shown above
    expect(tail).toContain('a_test.go:10: the cache was cold');
  });

  test('-v text rebuilt from go test -json: progress, passing and skipped tests go, the failure reads header first', () => {
    const text = goJsonToText(readFileSync(path.join(STRUCTURED, 'go.jsonl'), 'utf8'));
    expect(text).toContain('=== RUN   TestTable/skipped'); // what the fixture holds
    expect(stripNoise(text)).toBe(['FAIL\texample.com/fx/broken [build failed]', '--- FAIL: TestSub (0.00s)', '    calc_test.go:13: Sub(3, 1) = 2, want 3'].join('\n'));
  });

  test('-v subtests: the failing subtest keeps its lines under its header, the passing one goes', () => {
    const v = [
      '=== RUN   TestTotal',
      '=== RUN   TestTotal/empty',
      '    total_test.go:8: checking empty',
      '=== RUN   TestTotal/three',
      '    total_test.go:12: got 5, want 6',
      '--- FAIL: TestTotal (0.00s)',
      '    --- PASS: TestTotal/empty (0.00s)',
      '    --- FAIL: TestTotal/three (0.00s)',
      'FAIL',
      'FAIL\texample.com/shop/total\t0.002s',
    ].join('\n');
    expect(stripNoise(v)).toBe(['--- FAIL: TestTotal (0.00s)', '    --- FAIL: TestTotal/three (0.00s)', '    total_test.go:12: got 5, want 6'].join('\n'));
  });

  test('-v parallel tests: a passing test interleaved with another one keeps the other test\'s lines', () => {
    const v = [
      '=== RUN   TestA',
      '=== PAUSE TestA',
      '=== RUN   TestB',
      '=== PAUSE TestB',
      '=== CONT  TestA',
      '=== CONT  TestB',
      '    b_test.go:7: boom',
      '--- PASS: TestA (0.01s)',
      '--- FAIL: TestB (0.01s)',
    ].join('\n');
    const out = stripNoise(v);
    expect(out).toContain('b_test.go:7: boom');
    expect(out).toContain('--- FAIL: TestB (0.01s)');
    expect(out).not.toContain('TestA');
  });

  test('an output end that starts inside a passing test: its lines go with it', () => {
    const tail = ['    g8_test.go:162: checking case 22 of group 8', '--- PASS: TestCase22 (0.00s)', '=== RUN   TestCase23', '    g8_test.go:170: got 70, want 69', '--- FAIL: TestCase23 (0.00s)'].join('\n');
    expect(stripNoise(tail)).toBe(['--- FAIL: TestCase23 (0.00s)', '    g8_test.go:170: got 70, want 69'].join('\n'));
  });
});

describe('compact test ids', () => {
  test('ids share their parent, and a long prefix every parent shares is written once', () => {
    expect(compactIds(['example.com/shop/cart > TestTotal', 'example.com/shop/cart > TestTax', 'example.com/shop/order > TestSum'])).toEqual({
      prefix: 'example.com/shop/',
      text: 'cart > TestTotal, TestTax; order > TestSum',
    });
  });
  test('no prefix for one parent or a short one; pytest ids keep ::, ids without a parent stay whole', () => {
    expect(compactIds(['test/a.test.js > cart > adds', 'test/a.test.js > cart > taxes'])).toEqual({ prefix: '', text: 'test/a.test.js > cart > adds, taxes' });
    expect(compactIds(['tests/test_a.py::test_x', 'tests/test_b.py::test_y'])).toEqual({ prefix: '', text: 'tests/test_a.py::test_x; tests/test_b.py::test_y' });
    expect(compactIds(['t1', 't2'])).toEqual({ prefix: '', text: 't1, t2' });
  });

  test('new / still failing lists: one line per parent', () => {
    const base: TestRun = { command: 'go test ./...', exitCode: 1, timedOut: false, durationMs: 5, succeeded: false, parsedFrom: 'go', counts: { passed: 2, failed: 1, skipped: 0 }, outputTail: '', tests: [] };
    const t = (id: string, status: TestCase['status'], message?: string): TestCase => ({ id, status, ...(message ? { message } : {}) });
    const baseline = { ...base, tests: [t('example.com/shop/g0 > TestOld', 'failed', 'old'), t('example.com/shop/g0 > TestA', 'passed'), t('example.com/shop/g1 > TestB', 'passed')] };
    const now = { ...base, tests: [t('example.com/shop/g0 > TestOld', 'failed', 'old'), t('example.com/shop/g0 > TestA', 'failed', 'a'), t('example.com/shop/g0 > TestC', 'failed', 'c'), t('example.com/shop/g1 > TestB', 'failed', 'b')] };
    const text = packFeedback(now, { baseline });
    expect(text).toContain('NEW failures (passing or absent before your change; fix these):\n  - example.com/shop/g0 > TestA, TestC\n  - example.com/shop/g1 > TestB\n');
    expect(text).toContain('Still failing (already failing before any edit):\n  - example.com/shop/g0 > TestOld');
  });
});

describe('what ran', () => {
  test("the harness's reporter flags and report file are not shown; a related selection is", () => {
    const base: TestRun = { command: 'go test ./...', exitCode: 1, timedOut: false, durationMs: 5, succeeded: false, parsedFrom: 'go', counts: { passed: 0, failed: 1, skipped: 0 }, outputTail: '', tests: [{ id: 'p > TestA', status: 'failed', message: 'boom' }] };
    expect(packFeedback({ ...base, executed: 'go test -json ./... > /tmp/agent-fix-tests-x/report-1.jsonl' })).not.toContain('Executed');
    expect(packFeedback({ ...base, executed: 'go test -json ./cart > /tmp/agent-fix-tests-x/report-2.jsonl', scope: 'related' })).toContain('Executed: go test ./cart\n');
  });

  test('the output tail starts at a line, not in the middle of one', () => {
    const output = `${'x'.repeat(50)}\n${'line\n'.repeat(10)}`;
    const run = toTestRun({ command: 'go test ./...', exitCode: 1, signal: null, timedOut: false, durationMs: 5, output, truncated: false }, new Redactor(), 60);
    expect(run.outputTail).toBe('line\n'.repeat(10));
  });
});
