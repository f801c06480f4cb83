import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseTestOutput } from '../../src/verify/runners/index.js';
import { stripAnsi } from '../../src/verify/runners/text.js';
import type { TestCase } from '../../src/verify/types.js';

const FIXTURES = path.join(process.cwd(), '__tests__', 'fixtures', 'verify');
const fixture = (name: string) => readFileSync(path.join(FIXTURES, name), 'utf8');
const statuses = (tests: TestCase[]) => Object.fromEntries(tests.map((t) => [t.id, t.status]));
const byId = (tests: TestCase[], id: string) => tests.find((t) => t.id === id);

/** What the node fixture suite (fixtures/verify/node-suite) contains. */
const NODE_SUITE = {
  'adds numbers': 'passed',
  'subtracts numbers': 'failed',
  'strings > concatenates': 'passed',
  'strings > nested > uppercases': 'failed',
  'strings > nested > lowercases': 'passed',
  'strings > skipped one': 'skipped',
  'parent with subtests > child ok': 'passed',
  'parent with subtests > child bad': 'failed',
  'other passes': 'passed',
};

const temps: string[] = [];
function tempCopy(from: string): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-parse-'));
  temps.push(dir);
  cpSync(from, dir, { recursive: true });
  return dir;
}
afterAll(() => {
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

function run(cmd: string, args: string[], cwd: string): string {
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' };
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', timeout: 60_000 });
  return `${r.stdout}${r.stderr}`;
}

describe('node test runner', () => {
  test.each(['node20-spec.txt', 'node24-spec.txt', 'node20-tap.txt', 'node24-tap.txt'])('captured %s', (name) => {
    const parsed = parseTestOutput(fixture(name));
    expect(parsed.parsedFrom).toBe('node-test');
    expect(statuses(parsed.tests)).toEqual(NODE_SUITE);
    expect(byId(parsed.tests, 'subtracts numbers')?.message).toMatch(/strictly equal.*2 !== 1/);
    expect(byId(parsed.tests, 'parent with subtests > child bad')?.message).toMatch(/child exploded/);
  });

  test('live: spec and TAP reporters give the same ids, stable across runs', () => {
    const dir = tempCopy(path.join(FIXTURES, 'node-suite'));
    const spec1 = parseTestOutput(run(process.execPath, ['--test', '--test-reporter=spec'], dir));
    const spec2 = parseTestOutput(run(process.execPath, ['--test', '--test-reporter=spec'], dir));
    const tap = parseTestOutput(run(process.execPath, ['--test', '--test-reporter=tap'], dir));
    expect(statuses(spec1.tests)).toEqual(NODE_SUITE);
    expect(spec1.tests.map((t) => t.id)).toEqual(spec2.tests.map((t) => t.id));
    expect(statuses(tap.tests)).toEqual(NODE_SUITE);
    expect(tap.parsedFrom).toBe('node-test');
    for (const t of spec1.tests) expect(t.id).not.toMatch(/\d+(\.\d+)?ms/);
  });

  test('plain TAP without test names: each assertion, with directives and repeated names', () => {
    const out = ['TAP version 13', 'ok 1 should be equal', 'not ok 2 should be equal', '  ---', "    message: 'expected 3'", '  ...', 'ok 3 later # SKIP not ready', 'not ok 4 wip # TODO', '1..4'].join('\n');
    const parsed = parseTestOutput(out);
    expect(parsed.parsedFrom).toBe('tap');
    expect(statuses(parsed.tests)).toEqual({
      'should be equal': 'passed',
      'should be equal [2]': 'failed',
      later: 'skipped',
      wip: 'skipped',
    });
    expect(byId(parsed.tests, 'should be equal [2]')?.message).toBe('expected 3');
  });

  test('tape: each `# name` is a test made of the assertions under it; the closing counts are not tests', () => {
    const out = [
      'TAP version 13',
      '# math',
      'ok 1 should be equal',
      'not ok 2 should be equal',
      '  ---',
      "    message: 'expected 3'",
      '  ...',
      '# later things',
      'ok 3 later # SKIP not ready',
      '# strings',
      'ok 4 trims',
      '# math',
      'ok 5 should be equal',
      '',
      '1..5',
      '# tests 5',
      '# pass  3',
      '# skip 1',
      '# fail  1',
    ].join('\n');
    const parsed = parseTestOutput(out);
    expect(parsed.parsedFrom).toBe('tap');
    expect(statuses(parsed.tests)).toEqual({ math: 'failed', 'later things': 'skipped', strings: 'passed', 'math [2]': 'passed' });
    expect(byId(parsed.tests, 'math')?.message).toBe('should be equal: expected 3');
  });
});

describe('jest', () => {
  const VERBOSE = {
    'src/math.test.js > top level fails': 'failed',
    'src/math.test.js > math > adds': 'passed',
    'src/math.test.js > math > subtracts': 'failed',
    'src/math.test.js > math > nested group > multiplies': 'passed',
    'src/math.test.js > math > nested group > divides': 'skipped',
    'src/math.test.js > math > nested group > modulo': 'skipped',
    'src/broken.test.js > Test suite failed to run': 'failed',
    'src/ok.test.js > all good': 'passed',
  };

  test('captured verbose output', () => {
    const parsed = parseTestOutput(fixture('jest-verbose.txt'));
    expect(parsed.parsedFrom).toBe('jest');
    expect(statuses(parsed.tests)).toEqual(VERBOSE);
    expect(byId(parsed.tests, 'src/math.test.js > math > subtracts')?.message).toMatch(/toBe\(expected\).*Expected: 1.*Received: 2/);
    expect(byId(parsed.tests, 'src/broken.test.js > Test suite failed to run')?.message).toMatch(/Cannot find module/);
    expect(parsed.totals).toEqual({ passed: 3, failed: 2, skipped: 2 });
  });

  test('captured default (multi-file) output: failures from the ● headers, counts from the summary', () => {
    const parsed = parseTestOutput(fixture('jest-multi.txt'));
    expect(parsed.parsedFrom).toBe('jest');
    expect(statuses(parsed.tests)).toEqual({
      'src/math.test.js > math > subtracts': 'failed',
      'src/math.test.js > top level fails': 'failed',
      'src/broken.test.js > Test suite failed to run': 'failed',
    });
    expect(byId(parsed.tests, 'src/math.test.js > top level fails')?.message).toBe('boom at top');
    expect(parsed.totals).toEqual({ passed: 3, failed: 2, skipped: 2 });
  });

  test('live: jest on the fixture suite, ids match between default and verbose runs', () => {
    const dir = tempCopy(path.join(FIXTURES, 'jest-suite'));
    writeFileSync(path.join(dir, 'package.json'), '{ "name": "jest-fixture", "private": true }\n');
    const jest = path.join(process.cwd(), 'node_modules', '.bin', 'jest');
    const verbose = parseTestOutput(run(jest, ['--ci', '--verbose', '--rootDir', dir], dir));
    expect(statuses(verbose.tests)).toEqual(VERBOSE);
    const plain = parseTestOutput(run(jest, ['--ci', '--rootDir', dir], dir));
    for (const t of plain.tests) expect(verbose.tests.find((v) => v.id === t.id)?.status).toBe(t.status);
    expect(plain.tests.length).toBeGreaterThanOrEqual(3);
  }, 60_000);
});

describe('vitest', () => {
  test('default reporter sample', () => {
    const parsed = parseTestOutput(fixture('vitest-default.txt'));
    expect(parsed.parsedFrom).toBe('vitest');
    expect(statuses(parsed.tests)).toEqual({
      'src/math.test.ts > math > adds': 'passed',
      'src/math.test.ts > math > subtracts': 'failed',
      'src/math.test.ts > math > skipped one': 'skipped',
      'src/math.test.ts > math > nested > multiplies': 'passed',
      'src/math.test.ts > top level fails': 'failed',
    });
    expect(byId(parsed.tests, 'src/math.test.ts > math > subtracts')?.message).toBe('expected 2 to be 1 // Object.is equality');
    expect(parsed.totals).toEqual({ passed: 4, failed: 2, skipped: 1 });
  });

  test('verbose reporter sample with ANSI colors', () => {
    const raw = fixture('vitest-verbose-ansi.txt');
    expect(raw).toContain('\x1b[');
    const parsed = parseTestOutput(raw);
    expect(parsed.parsedFrom).toBe('vitest');
    expect(statuses(parsed.tests)).toEqual({
      'src/ok.test.ts > ok > works': 'passed',
      'src/ok.test.ts > ok > works too': 'passed',
      'src/math.test.ts > math > subtracts': 'failed',
      'src/math.test.ts > math > skipped one': 'skipped',
    });
  });
});

describe('mocha', () => {
  test('spec reporter sample', () => {
    const parsed = parseTestOutput(fixture('mocha-spec.txt'));
    expect(parsed.parsedFrom).toBe('mocha');
    expect(statuses(parsed.tests)).toEqual({
      'math > adds': 'passed',
      'math > subtracts': 'failed',
      'math > nested group > multiplies': 'passed',
      'math > nested group > divides': 'skipped',
      'top-level > fails hard': 'failed',
      'top-level > works': 'passed',
    });
    expect(byId(parsed.tests, 'math > subtracts')?.message).toMatch(/strictly equal: 2 !== 1/);
    expect(byId(parsed.tests, 'top-level > fails hard')?.message).toBe('Error: boom');
    expect(parsed.totals).toEqual({ passed: 3, failed: 2, skipped: 1 });
  });
});

describe('pytest', () => {
  const ALL = {
    'tests/test_calc.py::test_add': 'passed',
    'tests/test_calc.py::test_sub': 'failed',
    'tests/test_calc.py::test_skipped': 'skipped',
    'tests/test_calc.py::test_param[1-1]': 'passed',
    'tests/test_calc.py::test_param[2-3]': 'failed',
    'tests/test_calc.py::TestThing::test_method': 'passed',
    'tests/test_calc.py::test_uses_broken': 'failed',
    'tests/test_calc.py::test_xfail': 'skipped',
  };

  test('captured -v output', () => {
    const parsed = parseTestOutput(fixture('pytest-v.txt'));
    expect(parsed.parsedFrom).toBe('pytest');
    expect(statuses(parsed.tests)).toEqual(ALL);
    expect(byId(parsed.tests, 'tests/test_calc.py::test_sub')?.message).toBe('AssertionError: subtraction is wrong');
    expect(parsed.totals).toEqual({ passed: 3, failed: 3, skipped: 2 });
  });

  test('captured default output: failures from the short summary', () => {
    const parsed = parseTestOutput(fixture('pytest-q.txt'));
    expect(statuses(parsed.tests)).toEqual({
      'tests/test_calc.py::test_sub': 'failed',
      'tests/test_calc.py::test_param[2-3]': 'failed',
      'tests/test_calc.py::test_uses_broken': 'failed',
    });
    expect(parsed.totals).toEqual({ passed: 3, failed: 3, skipped: 2 });
  });

  const hasPytest = spawnSync('python3', ['-m', 'pytest', '--version'], { encoding: 'utf8' }).status === 0;
  (hasPytest ? test : test.skip)('live: pytest -v on a fixture suite', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-pytest-'));
    temps.push(dir);
    writeFileSync(path.join(dir, 'test_live.py'), 'def test_ok():\n    assert True\n\ndef test_bad():\n    assert 1 == 2, "nope"\n');
    const parsed = parseTestOutput(run('python3', ['-m', 'pytest', '-v', '-p', 'no:cacheprovider'], dir));
    expect(statuses(parsed.tests)).toEqual({ 'test_live.py::test_ok': 'passed', 'test_live.py::test_bad': 'failed' });
    expect(byId(parsed.tests, 'test_live.py::test_bad')?.message).toContain('nope');
  });
});

describe('go test', () => {
  test('-v sample: leaves only, package-qualified ids, build failures', () => {
    const parsed = parseTestOutput(fixture('go-v.txt'));
    expect(parsed.parsedFrom).toBe('go');
    expect(statuses(parsed.tests)).toEqual({
      'example.com/calc > TestAdd': 'passed',
      'example.com/calc > TestSub': 'failed',
      'example.com/calc > TestTable/positive': 'passed',
      'example.com/calc > TestTable/negative': 'failed',
      'example.com/calc > TestSkip': 'skipped',
      'example.com/calc/other > TestOther': 'passed',
      'example.com/calc/broken > [build failed]': 'failed',
    });
    expect(byId(parsed.tests, 'example.com/calc > TestSub')?.message).toBe('calc_test.go:12: Sub(3, 1) = 2; want 1');
    expect(byId(parsed.tests, 'example.com/calc > TestTable/negative')?.message).toBe('calc_test.go:25: got -1, want 1');
    expect(byId(parsed.tests, 'example.com/calc/broken > [build failed]')?.message).toContain('undefined: missingThing');
  });

  test('non-verbose sample: same ids for failures, a panicking package reported', () => {
    const parsed = parseTestOutput(fixture('go-short.txt'));
    expect(statuses(parsed.tests)).toEqual({
      'example.com/calc > TestSub': 'failed',
      'example.com/calc > TestTable/negative': 'failed',
      'example.com/calc/crash': 'failed',
    });
    expect(byId(parsed.tests, 'example.com/calc > TestTable/negative')?.message).toBe('calc_test.go:25: got -1, want 1');
    expect(byId(parsed.tests, 'example.com/calc/crash')?.message).toMatch(/^panic: runtime error/);
  });
});

describe('parseTestOutput in general', () => {
  test('unknown output gives no tests and parsedFrom none', () => {
    expect(parseTestOutput('building...\ndone in 3s\nok\n')).toEqual({ tests: [], parsedFrom: 'none' });
    expect(parseTestOutput('')).toEqual({ tests: [], parsedFrom: 'none' });
  });

  test('npm preamble, CRLF and carriage-return progress lines do not disturb parsing', () => {
    const out = '\r\n> x@1.0.0 test\r\n> pytest -v\r\n\r\nloading 10%\rloading 100%\r\ntests/test_a.py::test_one PASSED   [100%]\r\n==== 1 passed in 0.01s ====\r\n';
    const parsed = parseTestOutput(out);
    expect(statuses(parsed.tests)).toEqual({ 'tests/test_a.py::test_one': 'passed' });
  });

  test('stripAnsi removes colors and OSC sequences', () => {
    expect(stripAnsi('\x1b[32m✓\x1b[39m ok \x1b]8;;http://x\x07link\x1b]8;;\x07')).toBe('✓ ok link');
    // cursor and line control, OSC ended by ST, charset switches, DEC save/restore, C1 CSI
    expect(stripAnsi('\x1b[2K\x1b[1G\x1b[?25lPASS\x1b[?25h')).toBe('PASS');
    expect(stripAnsi('\x1b]0;jest\x1b\\done')).toBe('done');
    expect(stripAnsi('\x1b(Bplain\x1b7 saved\x1b8')).toBe('plain saved');
    expect(stripAnsi('\u009b31mred\u009b0m')).toBe('red');
    expect(stripAnsi('no escapes: 100% [ok]')).toBe('no escapes: 100% [ok]');
  });

  test('a large output parses in one pass', () => {
    const lines: string[] = [];
    for (let i = 0; i < 50_000; i++) lines.push(`ok ${i + 1} - test number ${i}`);
    lines.push('not ok 50001 - the bad one');
    const parsed = parseTestOutput(lines.join('\n'));
    expect(parsed.tests).toHaveLength(50_001);
    expect(parsed.tests.filter((t) => t.status === 'failed').map((t) => t.id)).toEqual(['the bad one']);
  });
});

describe('hostile input', () => {
  test('pathological lines do not make the parsers crawl', () => {
    const long = 'x'.repeat(1_000_000);
    const out = [
      'ℹ tests 1',
      `✔ ${' '.repeat(500_000)}x`,
      `ok 1 ${' -'.repeat(200_000)} #`,
      `PASS a.js`,
      `  ✓${' '.repeat(300_000)}(`,
      `a.py::b${' PASSED'.repeat(50_000)}`,
      `--- FAIL: ${long}`,
      'not ok 2 - real one',
    ].join('\n');
    const parsed = parseTestOutput(out);
    expect(parsed.tests.some((t) => t.id === 'real one' && t.status === 'failed')).toBe(true);
  });
});
