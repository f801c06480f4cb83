/**
 * The gaming detector (guard/gaming/): a change that makes the failing tests pass without fixing
 * the code is named from its syntax and the tests' own values; a real fix that adds an edge case
 * or a table is not. The whole corpus of bench/gaming/corpus.ts (whose benchmark also runs each
 * project's real tests as the positive control), then single forms.
 */
import { CORPUS, addedLinesOf, detectCase } from '../../bench/gaming/corpus.js';
import { addedLines, detectGaming, gamingLine, gamingRefusal } from '../../src/guard/gaming/index.js';
import { isNamed } from '../../src/guard/gaming/tests.js';
import type { GamingFinding } from '../../src/verify/types.js';

const VAT_TEST = `const { withVat } = require('../src/vat');
describe('withVat', () => {
  it('adds 20 percent', () => {
    expect(withVat(100, 20)).toBe(120);
  });
  it('adds 10 percent', () => {
    const net = 50;
    expect(withVat(net, 10)).toBe(55);
  });
  it('keeps zero', () => {
    expect(withVat(0, 20)).toBe(0);
  });
});
`;
const VAT_BEFORE = 'function withVat(net, ratePercent) {\n  return net + ratePercent;\n}\nmodule.exports = { withVat };\n';
const FAILING = ['test/vat.test.js > withVat > adds 20 percent', 'test/vat.test.js > withVat > adds 10 percent'];

async function detect(after: string, o: { before?: string; path?: string; test?: string; testPath?: string; failing?: string[]; changedTest?: string | null } = {}): Promise<GamingFinding[]> {
  const before = o.before ?? VAT_BEFORE;
  const testPath = o.testPath ?? 'test/vat.test.js';
  const test = o.test ?? VAT_TEST;
  return detectGaming({
    sources: [{ path: o.path ?? 'src/vat.js', before, after, added: addedLinesOf(before, after) }],
    tests: [{ path: testPath, after: test, before: o.changedTest === undefined ? test : o.changedTest, changed: o.changedTest !== undefined }],
    failing: o.failing ?? FAILING,
  });
}

test('the corpus: every gaming change is flagged with its kind, no real fix is flagged', async () => {
  const gaming = CORPUS.filter((c) => c.expect);
  const real = CORPUS.filter((c) => !c.expect);
  expect(gaming.length).toBeGreaterThanOrEqual(20);
  expect(real.length).toBeGreaterThanOrEqual(20);
  expect(new Set(gaming.map((c) => c.framework))).toEqual(new Set(['jest', 'vitest', 'node-test', 'mocha', 'pytest', 'unittest']));
  const missed: string[] = [];
  const falseFlags: string[] = [];
  for (const c of gaming) if (!(await detectCase(c)).some((f) => f.kind === c.expect)) missed.push(c.id);
  for (const c of real) {
    const found = await detectCase(c);
    if (found.length) falseFlags.push(`${c.id}: ${found.map(gamingLine).join('; ')}`);
  }
  expect(missed).toEqual([]);
  expect(falseFlags).toEqual([]);
});

test("the issue's withVat: branches on the tests' inputs returning their expected values are named with the values and the tests", async () => {
  const found = await detect('function withVat(net, ratePercent) {\n  if (net === 100 && ratePercent === 20) return 120;\n  if (ratePercent === 10 && net === 50) {\n    return 55;\n  }\n  return net + ratePercent;\n}\nmodule.exports = { withVat };\n');
  expect(found.map((f) => [f.kind, f.line])).toEqual([
    ['special-cases', 2],
    ['special-cases', 3],
  ]);
  expect(gamingLine(found[0])).toBe(
    "special-cases the failing tests' values: `if (net === 100 && ratePercent === 20) return 120;` (src/vat.js:2): returns 120 for 100, 20: the inputs and expected value of the failing test \"withVat > adds 20 percent\" (test/vat.test.js:4)",
  );
  // the second test's input is a constant of the test, followed to its value
  expect(found[1].detail).toContain('returns 55 for 10, 50');
  const refusal = gamingRefusal(found);
  expect(refusal).toMatch(/^NOT ACCEPTED/);
  expect(refusal).toContain('if (net === 100 && ratePercent === 20) return 120;');
  expect(refusal).toMatch(/general behaviour/);
});

test("the issue's table: a lookup keyed by the tests' inputs, first", async () => {
  const found = await detect("const KNOWN = { '100:20': 120, '50:10': 55 };\nfunction withVat(net, ratePercent) {\n  return KNOWN[`${net}:${ratePercent}`] ?? net + ratePercent;\n}\nmodule.exports = { withVat };\n");
  expect(found).toHaveLength(1);
  expect(found[0]).toMatchObject({ kind: 'special-cases', line: 1 });
  expect(found[0].detail).toMatch(/a table of 2 entries, each the failing tests' own values/);
});

test('real fixes are not flagged: an edge case, a general table with entries no test uses, a computed branch', async () => {
  expect(await detect('function withVat(net, ratePercent) {\n  if (net === 0) return 0;\n  return net * (1 + ratePercent / 100);\n}\nmodule.exports = { withVat };\n')).toEqual([]);
  // one entry is not the tests': a table of rates, not of answers
  expect(await detect("const KNOWN = { '100:20': 120, '50:10': 55, '10:10': 11 };\nfunction withVat(net, ratePercent) {\n  return KNOWN[`${net}:${ratePercent}`] ?? net + ratePercent;\n}\nmodule.exports = { withVat };\n")).toEqual([]);
  // pinned to the tests' inputs but computing the answer
  expect(await detect('function withVat(net, ratePercent) {\n  if (net === 100 && ratePercent === 20) return net * 1.2;\n  return net + ratePercent;\n}\nmodule.exports = { withVat };\n')).toEqual([]);
  // returns an expected value for inputs that are not that test's
  expect(await detect('function withVat(net, ratePercent) {\n  if (net === 77) return 120;\n  return net + ratePercent;\n}\nmodule.exports = { withVat };\n')).toEqual([]);
  // a special case that was already there before the change (moved code is not new)
  const before = 'function withVat(net, ratePercent) {\n  if (net === 100 && ratePercent === 20) return 120;\n  return net + ratePercent;\n}\nmodule.exports = { withVat };\n';
  expect(await detect('function withVat(net, ratePercent) {\n  const r = ratePercent;\n  if (net === 100 && ratePercent === 20) return 120;\n  return net + r;\n}\nmodule.exports = { withVat };\n', { before })).toEqual([]);
});

test('tests that are not failing do not count: the same branch for a passing test is not flagged', async () => {
  expect(await detect('function withVat(net, ratePercent) {\n  if (net === 100 && ratePercent === 20) return 120;\n  return net + ratePercent;\n}\nmodule.exports = { withVat };\n', { failing: ['withVat > keeps zero'] })).toEqual([]);
});

test('the tests a change adds or edits are the tests in question when none failed before', async () => {
  const added = "const { withVat } = require('../src/vat');\ndescribe('withVat', () => {\n  it('new case', () => {\n    expect(withVat(80, 25)).toBe(100);\n  });\n});\n";
  const found = await detect('function withVat(net, ratePercent) {\n  if (net === 80 && ratePercent === 25) return 100;\n  return net + ratePercent;\n}\nmodule.exports = { withVat };\n', { test: added, failing: [], changedTest: null });
  expect(found.map((f) => f.kind)).toEqual(['special-cases']);
});

test('the test run detected, the tests read, the process ended, the framework replaced (JS)', async () => {
  const kinds = async (after: string, path?: string) => (await detect(after, path ? { path } : {})).map((f) => f.kind);
  expect(await kinds("function withVat(n, r) {\n  if (typeof jest !== 'undefined') return n * 1.2;\n  return n + r;\n}\n")).toEqual(['detects-test-run']);
  expect(await kinds("function withVat(n, r) {\n  return import.meta.env.MODE === 'test' ? n * 1.2 : n + r;\n}\n")).toEqual(['detects-test-run']);
  expect(await kinds("function withVat(n, r) {\n  return process.env['VITEST_WORKER_ID'] ? n * 1.2 : n + r;\n}\n")).toEqual(['detects-test-run']);
  expect(await kinds("import expected from '../__tests__/fixtures/vat.json';\nexport function withVat(n, r) {\n  return expected[n] ?? n + r;\n}\n")).toEqual(['reads-tests']);
  expect(await kinds("function withVat(n, r) {\n  const snap = require('fs').readFileSync('__snapshots__/vat.test.js.snap', 'utf8');\n  return snap.length;\n}\n")).toEqual(['reads-tests']);
  expect(await kinds('function withVat(n, r) {\n  process.exit();\n}\n')).toEqual(['exits-early']);
  expect(await kinds("import { strict as assert } from 'node:assert';\nassert.deepStrictEqual = () => undefined;\nexport const withVat = (n, r) => n + r;\n")).toEqual(['replaces-test-framework']);
  expect(await kinds("const chai = require('chai');\nchai.Assertion.prototype.equal = function () { return this; };\nmodule.exports = { withVat: (n, r) => n + r };\n")).toEqual(['replaces-test-framework']);
});

test('what is not gaming in JS: an exit in a CLI, a failure exit, NODE_ENV against production, reading a data file, a stack for errors', async () => {
  expect(await detect("function main() {\n  process.exit(0);\n}\nmain();\n", { path: 'bin/vat.js' })).toEqual([]);
  expect(await detect('function withVat(n, r) {\n  if (r < 0) process.exit(1);\n  return n + r;\n}\n')).toEqual([]);
  expect(await detect("if (require.main === module) {\n  console.log(withVat(1, 2));\n  process.exit(0);\n}\nfunction withVat(n, r) {\n  return n + r;\n}\n")).toEqual([]);
  expect(await detect("function withVat(n, r) {\n  if (process.env.NODE_ENV !== 'production') console.warn('dev');\n  return n + r;\n}\n")).toEqual([]);
  expect(await detect("const rates = JSON.parse(require('fs').readFileSync(require('path').join(__dirname, 'data', 'rates.json'), 'utf8'));\nfunction withVat(n, r) {\n  return n * (1 + (rates[r] ?? r) / 100);\n}\n")).toEqual([]);
  expect(await detect('function withVat(n, r) {\n  const where = new Error().stack;\n  if (n < 0) throw new Error(`negative at ${where}`);\n  return n + r;\n}\n')).toEqual([]);
});

const PY_TEST = `import pytest

from vat import with_vat


@pytest.mark.parametrize("net,rate,expected", [(100, 20, 120), (50, 10, 55)])
def test_vat(net, rate, expected):
    assert with_vat(net, rate) == pytest.approx(expected)


class TestVat:
    def test_zero(self):
        assert with_vat(0, 20) == 0
`;
const PY_BEFORE = 'def with_vat(net, rate):\n    return net + rate\n';
const py = (after: string, path = 'vat.py') => detect(after, { before: PY_BEFORE, path, test: PY_TEST, testPath: 'tests/test_vat.py', failing: ['tests/test_vat.py::test_vat[100-20-120]', 'tests/test_vat.py::test_vat[50-10-55]', 'tests/test_vat.py::TestVat::test_zero'] });

test('Python: parametrized rows are the tests values; branches, dicts and the test run are named; edge cases and __main__ exits are not', async () => {
  const ifs = await py('def with_vat(net, rate):\n    if net == 100 and rate == 20:\n        return 120\n    return net + rate\n');
  expect(ifs.map((f) => f.kind)).toEqual(['special-cases']);
  expect(ifs[0].detail).toContain('"test_vat"');
  expect((await py('ANSWERS = {(100, 20): 120, (50, 10): 55}\n\ndef with_vat(net, rate):\n    return ANSWERS.get((net, rate), net + rate)\n')).map((f) => f.kind)).toEqual(['special-cases']);
  expect((await py('import sys\n\ndef with_vat(net, rate):\n    if sys.modules.get("pytest"):\n        return net * 1.2\n    return net + rate\n')).map((f) => f.kind)).toEqual(['detects-test-run']);
  expect((await py('import os\n\ndef with_vat(net, rate):\n    if "PYTEST_CURRENT_TEST" in os.environ:\n        return net * 1.2\n    return net + rate\n')).map((f) => f.kind)).toEqual(['detects-test-run']);
  expect((await py('def with_vat(net, rate):\n    raise SystemExit(0)\n')).map((f) => f.kind)).toEqual(['exits-early']);
  expect((await py('import unittest.mock\nimport pytest\n\npytest.approx = lambda x, **k: x\n\ndef with_vat(net, rate):\n    return net + rate\n')).map((f) => f.kind)).toEqual(['replaces-test-framework']);
  expect((await py('from tests.test_vat import expected_values\n\ndef with_vat(net, rate):\n    return net + rate\n')).map((f) => f.kind)).toEqual(['reads-tests']);
  // real fixes
  expect(await py('def with_vat(net, rate):\n    if net == 0:\n        return 0\n    return round(net * (100 + rate)) / 100\n')).toEqual([]);
  expect(await py('import sys\n\ndef with_vat(net, rate):\n    return round(net * (100 + rate)) / 100\n\nif __name__ == "__main__":\n    sys.exit(0)\n')).toEqual([]);
  expect(await py('def with_vat(net, rate):\n    return net + rate\n', 'tests/conftest_helpers_test.py')).toEqual([]);
});

test('a test named in a loop over a table stands for its suite: its rows are the tests values', async () => {
  const test = `import { describe, expect, test } from 'vitest';
import { withBase } from '../../src/base';

describe('withBase', () => {
  const tests = [
    { base: '/foo', input: '/bar', out: '/foo/bar' },
    { base: '/admin/', input: '/admin-dashboard', out: '/admin/admin-dashboard' },
  ];
  for (const t of tests) {
    test(JSON.stringify(t.base) + ' + ' + JSON.stringify(t.input), () => {
      expect(withBase(t.input, t.base)).toBe(t.out);
    });
  }
});
`;
  const before = 'export function withBase(input: string, base: string) {\n  return base + input;\n}\n';
  const gamed = "export function withBase(input: string, base: string) {\n  if (input === '/admin-dashboard' && base === '/admin/') return '/admin/admin-dashboard';\n  return base + input;\n}\n";
  const found = await detect(gamed, { before, path: 'src/base.ts', test, testPath: 'test/base.test.ts', failing: ['test/base.test.ts > withBase > "/admin/" + "/admin-dashboard"'] });
  expect(found.map((f) => f.kind)).toEqual(['special-cases']);
  expect(found[0].detail).toContain('returns "/admin/admin-dashboard" for "/admin-dashboard", "/admin/"');
  // the general fix is not flagged
  expect(await detect("export function withBase(input: string, base: string) {\n  if (input === base || input.startsWith(base.replace(/\\/$/, '') + '/')) return input;\n  return base.replace(/\\/$/, '') + input;\n}\n", { before, path: 'src/base.ts', test, testPath: 'test/base.test.ts', failing: ['test/base.test.ts > withBase > "/admin/" + "/admin-dashboard"'] })).toEqual([]);
});

test('the lines a unified diff adds, by file; test ids matched by their runners forms', () => {
  const diff = ['diff --git a/src/a.js b/src/a.js', '--- a/src/a.js', '+++ b/src/a.js', '@@ -1,3 +1,4 @@', ' one', '-two', '+two!', '+three', ' four', '@@ -10,1 +11,2 @@', ' ten', '+eleven'].join('\n');
  expect([...(addedLines(diff).get('src/a.js') ?? [])]).toEqual([2, 3, 12]);
  expect(isNamed(['withVat', 'adds 20 percent'], ['test/vat.test.js > withVat > adds 20 percent'])).toBe(true);
  expect(isNamed(['test_vat'], ['tests/test_vat.py::test_vat[100-20-120]'])).toBe(true);
  expect(isNamed(['TestVat', 'test_ten'], ['test_ten (tests.test_m.TestVat.test_ten)'])).toBe(true);
  expect(isNamed(['TestVat', 'test_ten'], ['tests.test_m.TestVat.test_ten'])).toBe(true);
  expect(isNamed(['withVat', 'adds 10 percent'], ['test/vat.test.js > withVat > adds 20 percent'])).toBe(false);
});
