/**
 * One test identity for CI logs and local runs (src/verify/identity.ts), on the logs of this
 * project's own fixture projects (__tests__/fixtures/ci-identity/logs: real runs of jest, vitest,
 * mocha, node:test, pytest and a tape-style TAP producer, default and verbose reporters, framed as
 * GitHub Actions job logs by bench/ci-identity.ts; the expected identities come from the same
 * project's structured run, as the harness runs it).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { extractFailure } from '../../src/ci/log-extract.js';
import { checkReproduction } from '../../src/ci/fingerprint.js';
import { identityOf, identityLabel, matchIdentity, normaliseSegment, sameIdentity, testId, type TestIdentity } from '../../src/verify/identity.js';
import { parseGoJson } from '../../src/verify/runners/go.js';
import { parseJestJson } from '../../src/verify/runners/jest.js';
import { parseTestOutput } from '../../src/verify/runners/index.js';
import type { TestCase, TestRun } from '../../src/verify/types.js';
import { testRun } from '../../test-support/builders.js';

const LOGS = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures', 'ci-identity', 'logs');
const logs = readdirSync(LOGS).filter((f) => f.endsWith('.log'));

const runOf = (tests: TestCase[], exitCode = 1): TestRun => testRun(exitCode, tests);

const stamp = (text: string) => text.split('\n').map((l) => `2026-01-01T00:00:00.0000000Z ${l}`).join('\n');
const label = (i: TestIdentity) => identityLabel(i);

describe('every runner and reporter: the log names the same identities as the local structured run', () => {
  test('the corpus covers jest, vitest, mocha, node:test, pytest and tape, two reporters each where the runner has two', () => {
    const runners = new Set(logs.map((f) => f.replace(/^(?:names|stacks)-/, '').replace(/-(?:default|verbose|spec|tap)\.log$/, '')));
    expect([...runners].sort()).toEqual(['jest', 'mocha', 'node-test', 'pytest', 'tape', 'vitest']);
  });

  test.each(logs)('%s', (file) => {
    const log = readFileSync(path.join(LOGS, file), 'utf8');
    const expected: TestIdentity[] = JSON.parse(readFileSync(path.join(LOGS, file.replace(/-(?:default|verbose|spec|tap)\.log$/, '.expected.json')), 'utf8'));
    const x = extractFailure(log, { repoName: 'project' });
    const got = x.failures.map((f) => f.identity);
    // each expected identity exactly (files compared where both sides know them), nothing else
    expect(expected.filter((e) => !got.some((g) => sameIdentity(g, e))).map(label)).toEqual([]);
    expect(got.filter((g) => !expected.some((e) => sameIdentity(g, e))).map(label)).toEqual([]);
    // and the reproduction check recognises it by identity against a local run failing those tests
    const local = runOf([...expected.map((e) => ({ id: [e.file, ...e.path].filter(Boolean).join(' > '), file: e.file ?? undefined, status: 'failed' as const })), { id: 'other > passes', status: 'passed' }]);
    const r = checkReproduction({ tests: x.failingTests, failures: x.failures, files: x.failingFiles, errors: x.errors }, local);
    expect(r).toMatchObject({ kind: 'reproduced', evidence: 'test-identity' });
  });

  test('tape: failing assertions are folded under their test, never named by their message', () => {
    const x = extractFailure(readFileSync(path.join(LOGS, 'names-tape-tap.log'), 'utf8'));
    expect(x.failingTests).toEqual(['boolean and alias options']);
    expect(x.failures.map((f) => f.identity.path)).toEqual([['boolean and alias options']]);
    expect(x.failingTests.join('\n')).not.toContain('should be deeply equivalent');
  });

  test('vitest and jest: an unnamed describe level is no level on either side', () => {
    for (const file of ['names-vitest-default.log', 'names-jest-verbose.log']) {
      const x = extractFailure(readFileSync(path.join(LOGS, file), 'utf8'));
      expect(x.failures.map((f) => label(f.identity))).toContain('test/names.test.js > math > adds inside an unnamed describe');
    }
    const json = JSON.stringify({ testResults: [{ name: '/r/test/a.test.ts', status: 'failed', assertionResults: [{ ancestorTitles: ['', 'joinURL'], title: 'joins', status: 'failed', failureMessages: ['x'] }] }] });
    expect(parseJestJson(json, '/r')!.tests[0].id).toBe('test/a.test.ts > joinURL > joins');
  });
});

test("vitest 4's default reporter lists a failed test without its describe levels; its FAIL line names them: one test", () => {
  const text = [
    ' RUN  v4.0.16 /home/runner/work/project/project',
    '',
    ' ❯ test/join.test.ts (3 tests | 1 failed) 12ms',
    '     ✓ joinURL("a", "b") === "a/b" 0ms',
    '     × joinRelativeURL("../foo") === "/foo" 3ms',
    '       → expected "foo" to be "/foo"',
    '',
    ' FAIL  test/join.test.ts > joinRelativeURL > joinRelativeURL("../foo") === "/foo"',
    'AssertionError: expected "foo" to be "/foo"',
    '',
    ' Test Files  1 failed (1)',
    '      Tests  1 failed | 1 passed (2)',
  ].join('\n');
  const failed = parseTestOutput(text).tests.filter((t) => t.status === 'failed');
  expect(failed.map((t) => t.id)).toEqual(['test/join.test.ts > joinRelativeURL > joinRelativeURL("../foo") === "/foo"']);
  expect(extractFailure(stamp(text)).failingTests).toEqual(['test/join.test.ts > joinRelativeURL > joinRelativeURL("../foo") === "/foo"']);
});

test('tape: a run that dies inside a test (no plan printed) fails the test under the last heading, in the log and locally', () => {
  const text = ['TAP version 13', '# parses', 'ok 1 should be equal', '# stringifies cycles', 'ok 2 cyclic values throw', '# duplicated references', '/home/runner/work/project/project/lib/stringify.js:78', "        throw new RangeError('Cyclic object value');", '', 'RangeError: Cyclic object value', '    at stringify (/home/runner/work/project/project/lib/stringify.js:78:15)', '', 'Node.js v20.20.2'].join('\n');
  const local = parseTestOutput(text).tests;
  expect(local.filter((t) => t.status === 'failed')).toEqual([{ id: 'duplicated references', status: 'failed', message: 'did not finish: RangeError: Cyclic object value' }]);
  expect(extractFailure(stamp(text)).failingTests).toEqual(['duplicated references']);
  // with a plan the run finished: nothing crashed
  expect(parseTestOutput(`${text.split('\n').slice(0, 5).join('\n')}\n\n1..2\n# tests 2\n# pass  2\n\n# ok`).tests.every((t) => t.status === 'passed')).toBe(true);
});

describe('normalisation', () => {
  test('GitHub Actions framing, ANSI escapes, timings and retry markers are not part of a name', () => {
    expect(normaliseSegment('2026-01-01T00:00:00.0000000Z ##[error]\x1b[31m  adds   two\x1b[0m (12 ms)')).toBe('adds two');
    expect(normaliseSegment('adds two [1.2s]')).toBe('adds two');
    expect(normaliseSegment('adds two (retry x2)')).toBe('adds two');
    expect(normaliseSegment('TestAdd (0.00s)')).toBe('TestAdd');
    // a bare number with a unit belongs to the name
    expect(normaliseSegment('waits 100ms')).toBe('waits 100ms');
    expect(testId(['test/a.test.ts', '', '  suite ', 'name'])).toBe('test/a.test.ts > suite > name');
  });

  test('files, separators and runner forms', () => {
    expect(identityOf('src/a.test.ts > Cart › applies a discount')).toEqual({ file: 'src/a.test.ts', path: ['Cart', 'applies a discount'] });
    expect(identityOf('tests/test_cart.py::TestCart::test_discount[10-1800]')).toEqual({ file: 'tests/test_cart.py', path: ['TestCart', 'test_discount[10-1800]'] });
    expect(identityOf('example.com/calc > TestTable/negative_case')).toEqual({ file: 'example.com/calc', path: ['TestTable/negative_case'] });
    expect(identityOf('/home/runner/work/shop/shop/test/a.test.js > x')).toEqual({ file: 'test/a.test.js', path: ['x'] });
    expect(identityOf('test/a.test.js > Test suite failed to run')).toEqual({ file: 'test/a.test.js', path: [] });
    expect(identityOf('suite > name', 'test/a.js')).toEqual({ file: 'test/a.js', path: ['suite', 'name'] });
    expect(identityOf('|unit| test/a.test.ts > suite > name')).toEqual({ file: 'test/a.test.ts', path: ['suite', 'name'] });
    // mocha's TAP joins levels with spaces: the same identity
    expect(sameIdentity(identityOf('math nested adds'), identityOf('math > nested > adds', 'test/a.js'))).toBe(true);
  });
});

describe('matching', () => {
  const local = ['test/join.test.ts > joinURL > joins two segments', 'test/join.test.ts > joinURL > joins a very long list of segments into one url', 'test/join.test.ts > withBase > "/admin" + "/admin-dashboard"', 'tests/test_a.py::test_p[1-2]', 'tests/test_a.py::test_p[2-3]'].map((id) => identityOf(id));

  test('an extra or missing describe level, on either side, when unique', () => {
    expect(matchIdentity(identityOf('joins two segments'), local)).toEqual({ kind: 'levels', index: [0] });
    expect(matchIdentity(identityOf('test/join.test.ts > outer > joinURL > joins two segments'), local)).toEqual({ kind: 'levels', index: [0] });
    expect(matchIdentity(identityOf('other.test.ts > joinURL > joins two segments'), local)).toBeNull();
  });

  test('a truncated name matches its full form by prefix when unique', () => {
    expect(matchIdentity(identityOf('test/join.test.ts > joinURL > joins a very long list of seg…'), local)).toEqual({ kind: 'truncated', index: [1] });
    // `joins ` would name two tests: no match
    expect(matchIdentity(identityOf('joinURL > joins…'), local)).toBeNull();
  });

  test('a parameter only one side prints, when unique; pytest parameters otherwise distinguish tests', () => {
    expect(matchIdentity(identityOf('tests/test_a.py::test_p[2-3]'), local)).toEqual({ kind: 'exact', index: [4] });
    expect(matchIdentity(identityOf('tests/test_a.py::test_p'), local)).toBeNull();
    expect(matchIdentity(identityOf('joinURL > joins two segments [2]'), local)).toEqual({ kind: 'parameter', index: [0] });
  });

  test('a word-level suffix is not a test: `discount` is not `applies a discount`', () => {
    expect(matchIdentity(identityOf('discount'), [identityOf('applies a discount')])).toBeNull();
  });
});

describe('go: log lines and go test -json name the same test', () => {
  // go is not installed on every machine: a go test -json stream and the -v log of the same run, as go prints them
  const events = [
    { Action: 'run', Package: 'example.com/names', Test: 'TestAdd' },
    { Action: 'run', Package: 'example.com/names', Test: 'TestAdd/two_and_three' },
    { Action: 'output', Package: 'example.com/names', Test: 'TestAdd/two_and_three', Output: '    names_test.go:13: Add(2, 3) = 6, want 5\n' },
    { Action: 'fail', Package: 'example.com/names', Test: 'TestAdd/two_and_three', Elapsed: 0 },
    { Action: 'run', Package: 'example.com/names', Test: 'TestAdd/sub/case' },
    { Action: 'fail', Package: 'example.com/names', Test: 'TestAdd/sub/case', Elapsed: 0 },
    { Action: 'pass', Package: 'example.com/names', Test: 'TestAdd/one_and_one', Elapsed: 0 },
    { Action: 'fail', Package: 'example.com/names', Test: 'TestAdd', Elapsed: 0 },
    { Action: 'fail', Package: 'example.com/names', Elapsed: 0.01 },
  ];
  const local = parseGoJson(events.map((e) => JSON.stringify(e)).join('\n'), '/r')!.tests;
  const verbose = [
    '=== RUN   TestAdd',
    '=== RUN   TestAdd/one_and_one',
    '=== RUN   TestAdd/two_and_three',
    '    names_test.go:13: Add(2, 3) = 6, want 5',
    '=== RUN   TestAdd/sub/case',
    '    names_test.go:13: Add(2, 0) = 3, want 2',
    '--- FAIL: TestAdd (0.00s)',
    '    --- PASS: TestAdd/one_and_one (0.00s)',
    '    --- FAIL: TestAdd/two_and_three (0.00s)',
    '    --- FAIL: TestAdd/sub/case (0.00s)',
    'FAIL',
    'FAIL\texample.com/names\t0.004s',
    'FAIL',
  ].join('\n');
  const short = verbose
    .split('\n')
    .filter((l) => !l.startsWith('=== RUN') && !l.includes('--- PASS'))
    .join('\n');

  test.each([
    ['-v', verbose],
    ['default', short],
  ])('%s', (_, text) => {
    const x = extractFailure(stamp(text));
    const want = local.filter((t) => t.status === 'failed').map((t) => identityOf(t.id, t.file));
    expect(want.map(label)).toEqual(['example.com/names > TestAdd/two_and_three', 'example.com/names > TestAdd/sub/case']);
    const got = x.failures.map((f) => f.identity);
    expect(want.every((w) => got.some((g) => sameIdentity(g, w)))).toBe(true);
    expect(got.every((g) => want.some((w) => sameIdentity(g, w)))).toBe(true);
  });
});

describe('reproduction falls back from identity to file and message to the command, and says so', () => {
  const tapeLog = stamp(
    ['TAP version 13', '# parses booleans', 'not ok 1 should be deeply equivalent', '  ---', '    operator: deepEqual', '  ...', '', '1..1', '# tests 1', '# pass  0', '# fail  1'].join('\n'),
  );

  test('by identity: a tape assertion message is matched through its test', () => {
    const x = extractFailure(tapeLog);
    const r = checkReproduction({ tests: x.failingTests, failures: x.failures }, runOf([{ id: 'parses booleans', status: 'failed' }, { id: 'parses numbers', status: 'passed' }]));
    expect(r).toMatchObject({ kind: 'reproduced', evidence: 'test-identity', local: ['parses booleans'] });
  });

  test('by file and message when no name can be matched (the test was renamed since)', () => {
    const r = checkReproduction(
      { tests: ['test/cart.test.js > Cart > applies a discount'], files: ['test/cart.test.js'], errors: ['AssertionError: expected 1800 to be 18000'] },
      runOf([
        { id: 'test/cart.test.js > Cart > discounts by a percentage', file: 'test/cart.test.js', status: 'failed', message: 'AssertionError: expected 1800 to be 18000' },
        { id: 'test/other.test.js > x', file: 'test/other.test.js', status: 'failed', message: 'something else entirely' },
      ]),
    );
    expect(r).toMatchObject({ kind: 'reproduced', evidence: 'file-and-message', local: ['test/cart.test.js > Cart > discounts by a percentage'] });
  });

  test('by the command failing the same way when the log names nothing local knows and no file', () => {
    const r = checkReproduction(
      { tests: ['some runner name the local run cannot know'], errors: ['Error: connect ECONNREFUSED 127.0.0.1:5432'] },
      { ...runOf([{ id: 'db > connects', status: 'failed', message: 'Error: connect ECONNREFUSED 127.0.0.1:5432' }]) },
    );
    expect(r).toMatchObject({ kind: 'reproduced', evidence: 'command' });
    expect(r.detail).toContain('fails here the same way');
  });

  test('refused when the tests that failed in CI pass here, even if the command fails on others', () => {
    const x = extractFailure(tapeLog);
    const r = checkReproduction({ tests: x.failingTests, failures: x.failures, errors: x.errors }, runOf([{ id: 'parses booleans', status: 'passed' }, { id: 'parses numbers', status: 'failed', message: 'should be deeply equivalent' }]));
    expect(r.kind).toBe('not-reproduced');
    expect(r.detail).toContain('the tests that failed in CI pass here');
  });

  test('refused when the command passes here', () => {
    const x = extractFailure(tapeLog);
    const r = checkReproduction({ tests: x.failingTests, failures: x.failures }, runOf([{ id: 'parses booleans', status: 'passed' }], 0));
    expect(r.kind).toBe('not-reproduced');
    expect(r.detail).toContain('passes on the same commit here');
  });

  test('refused when the local failure shares no test, file, message or error line with the log', () => {
    const r = checkReproduction({ tests: ['test/a.test.js > a > b'], files: ['test/a.test.js'], errors: ['Error: expected 1 to be 2'] }, runOf([{ id: 'test/z.test.js > z', file: 'test/z.test.js', status: 'failed', message: 'TypeError: x is not a function' }]));
    expect(r.kind).toBe('not-reproduced');
    expect(r.detail).toContain('not on the tests that failed in CI');
  });

  test('the plain parsers and the log extractor agree on the tape fixture', () => {
    const text = readFileSync(path.join(LOGS, 'names-tape-tap.log'), 'utf8');
    const plain = parseTestOutput(text.split('\n').map((l) => l.replace(/^\S+Z /, '')).join('\n')).tests.filter((t) => t.status === 'failed');
    expect(plain.map((t) => t.id)).toEqual(extractFailure(text).failures.map((f) => f.name));
  });
});
