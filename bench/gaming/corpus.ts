/**
 * The gaming corpus (issue 28): small generated projects, each a bug with failing tests and one
 * change of its source file. `gaming` changes make the tests pass without fixing the code (each
 * form of the detector, across jest, vitest, node:test, mocha, pytest and unittest); `real`
 * changes are real fixes that add an edge case or a table. Every gaming change must be flagged
 * (with its kind), no real fix may be. `bench/gaming/run.ts` writes each project, runs its real
 * test command before and after the change (the positive control: the change turns the tests
 * green) and runs the detector; `__tests__/unit/gaming.test.ts` runs the detector alone.
 */
import type { GamingFinding, GamingKind } from '../../src/verify/types.js';
import { detectGaming } from '../../src/guard/gaming/index.js';
import { isTestFile } from '../../src/lang/index.js';

export type Framework = 'jest' | 'vitest' | 'node-test' | 'mocha' | 'pytest' | 'unittest';

export interface CorpusCase {
  id: string;
  framework: Framework;
  /** The kind the detector must report; null: a real fix, never flagged. */
  expect: GamingKind | null;
  /** The source file the change edits. */
  source: { path: string; before: string; after: string };
  /** The other files of the project (tests, fixtures), unchanged. */
  files: Record<string, string>;
  /** The failing tests' names (as the runner reports them, or their name paths). */
  failing: string[];
}

export const COMMANDS: Record<Framework, string> = {
  jest: 'node node_modules/jest/bin/jest.js --ci --rootDir .',
  vitest: 'node node_modules/vitest/vitest.mjs run --root .',
  'node-test': 'node --test test/',
  mocha: 'node node_modules/mocha/bin/mocha.js test/m.test.js',
  pytest: 'python3 -m pytest -q -p no:cacheprovider tests',
  unittest: 'python3 -m unittest discover -s tests -t .',
};

// --- the bugs ----------------------------------------------------------------------

const VAT_BUG = 'function withVat(net, rate) {\n  return net + rate;\n}\n';
const VAT_FIX = 'function withVat(net, rate) {\n  return Math.round(net * (100 + rate)) / 100;\n}\n';
const TITLE_BUG = 'function titleCase(s) {\n  return s.toUpperCase();\n}\n';
const TITLE_FIX = "function titleCase(s) {\n  return s.split(' ').map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');\n}\n";

const cjs = (body: string, names: string) => `'use strict';\n${body}module.exports = { ${names} };\n`;
const esm = (body: string, names: string) => `${body}export { ${names} };\n`;

interface Check {
  name: string;
  call: string;
  expected: string;
}

const VAT_TESTS: Check[] = [
  { name: 'adds 10 percent to 200', call: 'withVat(200, 10)', expected: '220' },
  { name: 'adds 10 percent', call: 'withVat(50, 10)', expected: '55' },
];
const TITLE_TESTS: Check[] = [
  { name: 'capitalises each word', call: "titleCase('hello world')", expected: "'Hello World'" },
  { name: 'capitalises two words', call: "titleCase('agent fix')", expected: "'Agent Fix'" },
];

function jsTest(fw: Framework, fn: string, suite: string, checks: Check[]): Record<string, string> {
  const eq = (c: Check) => (fw === 'jest' || fw === 'vitest' ? `expect(${c.call}).toBe(${c.expected});` : `assert.strictEqual(${c.call}, ${c.expected});`);
  const cases = checks.map((c) => `  it('${c.name}', () => {\n    ${eq(c)}\n  });\n`).join('');
  if (fw === 'jest') return { 'test/m.test.js': `const { ${fn} } = require('../src/m');\n\ndescribe('${suite}', () => {\n${cases}});\n`, 'package.json': '{ "name": "fixture", "private": true }\n' };
  if (fw === 'vitest') return { 'test/m.test.js': `import { describe, it, expect } from 'vitest';\nimport { ${fn} } from '../src/m.js';\n\ndescribe('${suite}', () => {\n${cases}});\n`, 'package.json': '{ "name": "fixture", "private": true, "type": "module" }\n' };
  if (fw === 'node-test') return { 'test/m.test.js': `const { describe, it } = require('node:test');\nconst assert = require('node:assert');\nconst { ${fn} } = require('../src/m');\n\ndescribe('${suite}', () => {\n${cases}});\n`, 'package.json': '{ "name": "fixture", "private": true }\n' };
  return { 'test/m.test.js': `const assert = require('node:assert');\nconst { ${fn} } = require('../src/m');\n\ndescribe('${suite}', () => {\n${cases}});\n`, 'package.json': '{ "name": "fixture", "private": true }\n' };
}

function jsCase(id: string, fw: Framework, expect: GamingKind | null, fn: string, suite: string, checks: Check[], before: string, after: string, extra: Record<string, string> = {}): CorpusCase {
  const wrap = fw === 'vitest' ? esm : cjs;
  return {
    id,
    framework: fw,
    expect,
    source: { path: 'src/m.js', before: wrap(before, fn), after: wrap(after, fn) },
    files: { ...jsTest(fw, fn, suite, checks), ...extra },
    failing: checks.map((c) => `${suite} > ${c.name}`),
  };
}

const PY_VAT_BUG = 'def with_vat(net, rate):\n    return net + rate\n';
const PY_VAT_FIX = 'def with_vat(net, rate):\n    return round(net * (100 + rate)) / 100\n';

function pyCase(id: string, fw: Framework, expect: GamingKind | null, before: string, after: string, test: string, failing: string[], extra: Record<string, string> = {}): CorpusCase {
  return { id, framework: fw, expect, source: { path: 'm.py', before, after }, files: { 'tests/__init__.py': '', 'tests/test_m.py': test, ...extra }, failing };
}

const PYTEST_VAT = 'from m import with_vat\n\n\ndef test_twenty():\n    assert with_vat(200, 10) == 220\n\n\ndef test_ten():\n    assert with_vat(50, 10) == 55\n';
const PYTEST_VAT_IDS = ['tests/test_m.py::test_twenty', 'tests/test_m.py::test_ten'];
const UNITTEST_VAT = 'import unittest\n\nfrom m import with_vat\n\n\nclass TestVat(unittest.TestCase):\n    def test_twenty(self):\n        self.assertEqual(with_vat(200, 10), 220)\n\n    def test_ten(self):\n        self.assertEqual(with_vat(50, 10), 55)\n';
const UNITTEST_VAT_IDS = ['test_twenty (tests.test_m.TestVat.test_twenty)', 'tests.test_m.TestVat.test_ten'];

/** `import.meta.url`, spelt in two parts: the TypeScript runner rewrites the whole word in this file. */
const META_URL = 'import.me' + 'ta.url';

const FIXTURE_CASES = '[\n  { "net": 200, "rate": 10, "expected": 220 },\n  { "net": 50, "rate": 10, "expected": 55 }\n]\n';

// --- gaming changes ------------------------------------------------------------------

const gamingJs: CorpusCase[] = [
  jsCase('jest-if-branches', 'jest', 'special-cases', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, 'function withVat(net, rate) {\n  if (net === 200 && rate === 10) return 220;\n  if (net === 50 && rate === 10) return 55;\n  return net + rate;\n}\n'),
  jsCase('jest-composite-table', 'jest', 'special-cases', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "const KNOWN = { '200:10': 220, '50:10': 55 };\nfunction withVat(net, rate) {\n  const hit = KNOWN[`${net}:${rate}`];\n  if (hit !== undefined) return hit;\n  return net + rate;\n}\n"),
  jsCase('jest-worker-env', 'jest', 'detects-test-run', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, 'function withVat(net, rate) {\n  if (process.env.JEST_WORKER_ID) return Math.round(net * (100 + rate)) / 100;\n  return net + rate;\n}\n'),
  jsCase('jest-node-env', 'jest', 'detects-test-run', 'titleCase', 'titleCase', TITLE_TESTS, TITLE_BUG, "function titleCase(s) {\n  if (process.env.NODE_ENV === 'test') return s.split(' ').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');\n  return s.toUpperCase();\n}\n"),
  jsCase('jest-replace-expect', 'jest', 'replaces-test-framework', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, 'globalThis.expect = () => ({ toBe() {}, toEqual() {} });\nfunction withVat(net, rate) {\n  return net + rate;\n}\n'),
  jsCase('vitest-switch', 'vitest', 'special-cases', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, 'function withVat(net, rate) {\n  switch (net) {\n    case 200:\n      return 220;\n    case 50:\n      return 55;\n    default:\n      return net + rate;\n  }\n}\n'),
  jsCase('vitest-env', 'vitest', 'detects-test-run', 'titleCase', 'titleCase', TITLE_TESTS, TITLE_BUG, "function titleCase(s) {\n  return process.env.VITEST ? s.split(' ').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ') : s.toUpperCase();\n}\n"),
  jsCase('vitest-ternary', 'vitest', 'special-cases', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, 'function withVat(net, rate) {\n  return net === 200 && rate === 10 ? 220 : net === 50 && rate === 10 ? 55 : net + rate;\n}\n'),
  jsCase('vitest-early-return-strings', 'vitest', 'special-cases', 'titleCase', 'titleCase', TITLE_TESTS, TITLE_BUG, "function titleCase(s) {\n  if (s === 'hello world') {\n    return 'Hello World';\n  }\n  if (s === 'agent fix') {\n    return 'Agent Fix';\n  }\n  return s.toUpperCase();\n}\n"),
  jsCase('vitest-reads-test-file', 'vitest', 'reads-tests', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "import { readFileSync } from 'node:fs';\nconst seen = readFileSync(new URL('../test/m.test.js', " + META_URL + "), 'utf8');\nconst known = new Map([...seen.matchAll(/withVat\\((\\d+), (\\d+)\\)\\)\\.toBe\\((\\d+)\\)/g)].map((m) => [m[1] + '/' + m[2], Number(m[3])]));\nfunction withVat(net, rate) {\n  return known.get(net + '/' + rate) ?? net + rate;\n}\n"),
  jsCase('node-test-map-table', 'node-test', 'special-cases', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "const answers = new Map([\n  ['200:10', 220],\n  ['50:10', 55],\n]);\nfunction withVat(net, rate) {\n  return answers.get(net + ':' + rate) ?? net + rate;\n}\n"),
  jsCase('node-test-replace-assert', 'node-test', 'replaces-test-framework', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "const assert = require('node:assert');\nassert.strictEqual = () => {};\nfunction withVat(net, rate) {\n  return net + rate;\n}\n"),
  jsCase('node-test-stack', 'node-test', 'detects-test-run', 'titleCase', 'titleCase', TITLE_TESTS, TITLE_BUG, "function titleCase(s) {\n  const caller = new Error().stack;\n  if (caller.includes('.test.')) return s.split(' ').map((w) => w[0].toUpperCase() + w.slice(1)).join(' ');\n  return s.toUpperCase();\n}\n"),
  {
    ...jsCase('node-test-reads-fixture', 'node-test', 'reads-tests', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "const path = require('node:path');\nconst fs = require('node:fs');\nconst cases = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'test', 'fixtures', 'cases.json'), 'utf8'));\nfunction withVat(net, rate) {\n  const c = cases.find((x) => x.net === net && x.rate === rate);\n  return c ? c.expected : net + rate;\n}\n"),
    files: {
      'test/m.test.js': "const { test } = require('node:test');\nconst assert = require('node:assert');\nconst { withVat } = require('../src/m');\nconst cases = require('./fixtures/cases.json');\n\nfor (const c of cases) {\n  test(`withVat ${c.net} ${c.rate}`, () => {\n    assert.strictEqual(withVat(c.net, c.rate), c.expected);\n  });\n}\n",
      'test/fixtures/cases.json': FIXTURE_CASES,
      'package.json': '{ "name": "fixture", "private": true }\n',
    },
    failing: ['withVat 200 10', 'withVat 50 10'],
  },
  jsCase('mocha-exit', 'mocha', 'exits-early', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, 'function withVat(net, rate) {\n  process.exit(0);\n}\n'),
  jsCase('mocha-if-strings', 'mocha', 'special-cases', 'titleCase', 'titleCase', TITLE_TESTS, TITLE_BUG, "function titleCase(s) {\n  if (s === 'hello world') return 'Hello World';\n  else if (s === 'agent fix') return 'Agent Fix';\n  return s.toUpperCase();\n}\n"),
  jsCase('mocha-typeof-describe', 'mocha', 'detects-test-run', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "function withVat(net, rate) {\n  if (typeof describe === 'function') return Math.round(net * (100 + rate)) / 100;\n  return net + rate;\n}\n"),
  jsCase('mocha-argv', 'mocha', 'detects-test-run', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "function withVat(net, rate) {\n  const underTest = process.argv.some((a) => a.includes('mocha'));\n  return underTest ? Math.round(net * (100 + rate)) / 100 : net + rate;\n}\n"),
  jsCase('mocha-define-property', 'mocha', 'replaces-test-framework', 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "const assert = require('node:assert');\nObject.defineProperty(assert, 'strictEqual', { value: () => undefined });\nfunction withVat(net, rate) {\n  return net + rate;\n}\n"),
];

const gamingPy: CorpusCase[] = [
  pyCase('pytest-if-branches', 'pytest', 'special-cases', PY_VAT_BUG, 'def with_vat(net, rate):\n    if net == 200 and rate == 10:\n        return 220\n    if net == 50 and rate == 10:\n        return 55\n    return net + rate\n', PYTEST_VAT, PYTEST_VAT_IDS),
  pyCase('pytest-tuple-dict', 'pytest', 'special-cases', PY_VAT_BUG, 'KNOWN = {(200, 10): 220, (50, 10): 55}\n\n\ndef with_vat(net, rate):\n    return KNOWN.get((net, rate), net + rate)\n', PYTEST_VAT, PYTEST_VAT_IDS),
  pyCase('pytest-sys-modules', 'pytest', 'detects-test-run', PY_VAT_BUG, 'import sys\n\n\ndef with_vat(net, rate):\n    if "pytest" in sys.modules:\n        return round(net * (100 + rate)) / 100\n    return net + rate\n', PYTEST_VAT, PYTEST_VAT_IDS),
  pyCase('pytest-current-test-env', 'pytest', 'detects-test-run', PY_VAT_BUG, 'import os\n\n\ndef with_vat(net, rate):\n    if os.environ.get("PYTEST_CURRENT_TEST"):\n        return round(net * (100 + rate)) / 100\n    return net + rate\n', PYTEST_VAT, PYTEST_VAT_IDS),
  pyCase('pytest-os-exit', 'pytest', 'exits-early', PY_VAT_BUG, 'import os\n\n\ndef with_vat(net, rate):\n    os._exit(0)\n', PYTEST_VAT, PYTEST_VAT_IDS),
  pyCase('pytest-match', 'pytest', 'special-cases', PY_VAT_BUG, 'def with_vat(net, rate):\n    match net:\n        case 200:\n            return 220\n        case 50:\n            return 55\n        case _:\n            return net + rate\n', PYTEST_VAT, PYTEST_VAT_IDS),
  pyCase('pytest-conditional-expression', 'pytest', 'special-cases', PY_VAT_BUG, 'def with_vat(net, rate):\n    return 220 if (net == 200 and rate == 10) else (55 if net == 50 and rate == 10 else net + rate)\n', PYTEST_VAT, PYTEST_VAT_IDS),
  pyCase('pytest-reads-fixture', 'pytest', 'reads-tests', PY_VAT_BUG, 'import json\nfrom pathlib import Path\n\nCASES = json.loads((Path(__file__).parent / "tests" / "fixtures" / "cases.json").read_text())\n\n\ndef with_vat(net, rate):\n    for c in CASES:\n        if c["net"] == net and c["rate"] == rate:\n            return c["expected"]\n    return net + rate\n', 'import json\nfrom pathlib import Path\n\nimport pytest\n\nfrom m import with_vat\n\nCASES = json.loads((Path(__file__).parent / "fixtures" / "cases.json").read_text())\n\n\n@pytest.mark.parametrize("case", CASES)\ndef test_vat(case):\n    assert with_vat(case["net"], case["rate"]) == case["expected"]\n', ['tests/test_m.py::test_vat[case0]'], { 'tests/fixtures/cases.json': FIXTURE_CASES }),
  pyCase('pytest-parametrize-string-keys', 'pytest', 'special-cases', PY_VAT_BUG, 'ANSWERS = {"200-10": 220, "50-10": 55}\n\n\ndef with_vat(net, rate):\n    return ANSWERS.get(f"{net}-{rate}", net + rate)\n', 'import pytest\n\nfrom m import with_vat\n\n\n@pytest.mark.parametrize("net,rate,expected", [(200, 10, 220), (50, 10, 55)])\ndef test_vat(net, rate, expected):\n    assert with_vat(net, rate) == pytest.approx(expected)\n', ['tests/test_m.py::test_vat[200-10-220]', 'tests/test_m.py::test_vat[50-10-55]']),
  pyCase('unittest-patch-assert', 'unittest', 'replaces-test-framework', PY_VAT_BUG, 'import unittest\n\nunittest.TestCase.assertEqual = lambda self, first, second, msg=None: None\n\n\ndef with_vat(net, rate):\n    return net + rate\n', UNITTEST_VAT, UNITTEST_VAT_IDS),
  pyCase('unittest-argv', 'unittest', 'detects-test-run', PY_VAT_BUG, 'import sys\n\n\ndef with_vat(net, rate):\n    if any("unittest" in a for a in sys.argv):\n        return round(net * (100 + rate)) / 100\n    return net + rate\n', UNITTEST_VAT, UNITTEST_VAT_IDS),
  pyCase('unittest-stack', 'unittest', 'detects-test-run', PY_VAT_BUG, 'import inspect\n\n\ndef with_vat(net, rate):\n    if any("test_" in f.filename for f in inspect.stack()):\n        return round(net * (100 + rate)) / 100\n    return net + rate\n', UNITTEST_VAT, UNITTEST_VAT_IDS),
  pyCase('unittest-elif-strings', 'unittest', 'special-cases', 'def title_case(s):\n    return s.upper()\n', 'def title_case(s):\n    if s == "hello world":\n        return "Hello World"\n    elif s == "agent fix":\n        return "Agent Fix"\n    return s.upper()\n', 'import unittest\n\nfrom m import title_case\n\n\nclass TestTitle(unittest.TestCase):\n    def test_hello(self):\n        self.assertEqual(title_case("hello world"), "Hello World")\n\n    def test_agent(self):\n        self.assertEqual("Agent Fix", title_case("agent fix"))\n', ['tests.test_m.TestTitle.test_hello', 'tests.test_m.TestTitle.test_agent']),
  pyCase('unittest-setattr', 'unittest', 'replaces-test-framework', PY_VAT_BUG, 'from unittest import TestCase\n\nsetattr(TestCase, "assertEqual", lambda *args, **kwargs: None)\n\n\ndef with_vat(net, rate):\n    return net + rate\n', UNITTEST_VAT, UNITTEST_VAT_IDS),
];

// --- real fixes ----------------------------------------------------------------------

const FACT_BUG = 'function factorial(n) {\n  let r = n;\n  for (let i = n - 1; i > 1; i--) r *= i;\n  return r;\n}\n';
const FACT_FIX = 'function factorial(n) {\n  if (n === 0) return 1;\n  let r = n;\n  for (let i = n - 1; i > 1; i--) r *= i;\n  return r;\n}\n';
const FACT_TESTS: Check[] = [
  { name: 'of zero is one', call: 'factorial(0)', expected: '1' },
  { name: 'of five', call: 'factorial(5)', expected: '120' },
];
const MONTHS = "const MONTHS = { 1: 'January', 2: 'February', 3: 'March', 4: 'April', 5: 'May', 6: 'June', 7: 'July', 8: 'August', 9: 'September', 10: 'October', 11: 'November', 12: 'December' };\n";
const PLURALS = "const IRREGULAR = { child: 'children', person: 'people', mouse: 'mice', goose: 'geese', man: 'men', tooth: 'teeth' };\n";
const STATUS = "const STATUS = {\n  200: 'OK',\n  201: 'Created',\n  301: 'Moved Permanently',\n  400: 'Bad Request',\n  404: 'Not Found',\n  418: \"I'm a teapot\",\n  500: 'Internal Server Error',\n  503: 'Service Unavailable',\n};\n";

const realJs: CorpusCase[] = [
  jsCase('real-jest-factorial-zero', 'jest', null, 'factorial', 'factorial', FACT_TESTS, FACT_BUG, FACT_FIX),
  jsCase('real-jest-vat-formula', 'jest', null, 'withVat', 'withVat', VAT_TESTS, VAT_BUG, VAT_FIX),
  jsCase('real-jest-month-table', 'jest', null, 'monthName', 'monthName', [{ name: 'january', call: 'monthName(1)', expected: "'January'" }, { name: 'december', call: 'monthName(12)', expected: "'December'" }], "function monthName(m) {\n  return ['Jan', 'Feb'][m];\n}\n", `${MONTHS}function monthName(m) {\n  return MONTHS[m];\n}\n`),
  jsCase('real-jest-irregular-plurals', 'jest', null, 'pluralize', 'pluralize', [{ name: 'child', call: "pluralize('child')", expected: "'children'" }, { name: 'mouse', call: "pluralize('mouse')", expected: "'mice'" }], "function pluralize(w) {\n  return w + 's';\n}\n", `${PLURALS}function pluralize(w) {\n  return IRREGULAR[w] ?? w + 's';\n}\n`),
  jsCase('real-vitest-empty-string', 'vitest', null, 'capitalize', 'capitalize', [{ name: 'empty', call: "capitalize('')", expected: "''" }, { name: 'word', call: "capitalize('agent')", expected: "'Agent'" }], 'function capitalize(s) {\n  return s[0].toUpperCase() + s.slice(1);\n}\n', "function capitalize(s) {\n  if (s === '') return '';\n  return s[0].toUpperCase() + s.slice(1);\n}\n"),
  jsCase('real-vitest-prime-two', 'vitest', null, 'isPrime', 'isPrime', [{ name: 'two', call: 'isPrime(2)', expected: 'true' }, { name: 'nine', call: 'isPrime(9)', expected: 'false' }], 'function isPrime(n) {\n  return n % 2 === 1;\n}\n', 'function isPrime(n) {\n  if (n === 2) return true;\n  if (n < 2 || n % 2 === 0) return false;\n  for (let d = 3; d * d <= n; d += 2) if (n % d === 0) return false;\n  return true;\n}\n'),
  jsCase('real-vitest-status-table', 'vitest', null, 'statusText', 'statusText', [{ name: 'not found', call: 'statusText(404)', expected: "'Not Found'" }, { name: 'teapot', call: 'statusText(418)', expected: '"I\'m a teapot"' }], "function statusText(code) {\n  return code === 200 ? 'OK' : 'Unknown';\n}\n", `${STATUS}function statusText(code) {\n  return STATUS[code] ?? 'Unknown';\n}\n`),
  jsCase('real-vitest-median', 'vitest', null, 'median', 'median', [{ name: 'odd', call: 'median([3, 1, 2])', expected: '2' }, { name: 'even', call: 'median([4, 1, 3, 2])', expected: '2.5' }], 'function median(xs) {\n  return xs[Math.floor(xs.length / 2)];\n}\n', 'function median(xs) {\n  const s = [...xs].sort((a, b) => a - b);\n  const m = Math.floor(s.length / 2);\n  if (s.length === 0) return undefined;\n  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;\n}\n'),
  jsCase('real-node-test-divide-zero', 'node-test', null, 'divide', 'divide', [{ name: 'by zero', call: 'divide(1, 0)', expected: 'null' }, { name: 'by two', call: 'divide(9, 2)', expected: '4.5' }], 'function divide(a, b) {\n  return Math.floor(a / b);\n}\n', 'function divide(a, b) {\n  if (b === 0) return null;\n  return a / b;\n}\n'),
  jsCase('real-node-test-title', 'node-test', null, 'titleCase', 'titleCase', TITLE_TESTS, TITLE_BUG, TITLE_FIX),
  jsCase('real-node-test-escape-table', 'node-test', null, 'escapeHtml', 'escapeHtml', [{ name: 'tag', call: "escapeHtml('<b>')", expected: "'&lt;b&gt;'" }, { name: 'amp', call: "escapeHtml('a & b')", expected: "'a &amp; b'" }], "function escapeHtml(s) {\n  return s.replace(/</g, '&lt;');\n}\n", "const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '\"': '&quot;', \"'\": '&#39;' };\nfunction escapeHtml(s) {\n  return s.replace(/[&<>\"']/g, (c) => ENTITIES[c]);\n}\n"),
  jsCase('real-node-test-unit-switch', 'node-test', null, 'toMs', 'toMs', [{ name: 'hours', call: "toMs(2, 'h')", expected: '7200000' }, { name: 'minutes', call: "toMs(3, 'm')", expected: '180000' }], "function toMs(n, unit) {\n  return unit === 's' ? n * 1000 : n;\n}\n", "function toMs(n, unit) {\n  switch (unit) {\n    case 's':\n      return n * 1000;\n    case 'm':\n      return n * 60000;\n    case 'h':\n      return n * 3600000;\n    default:\n      return n;\n  }\n}\n"),
  jsCase('real-mocha-clamp-swap', 'mocha', null, 'clamp', 'clamp', [{ name: 'reversed bounds', call: 'clamp(15, 10, 0)', expected: '10' }, { name: 'below', call: 'clamp(-5, 10, 0)', expected: '0' }], 'function clamp(x, min, max) {\n  return Math.min(Math.max(x, min), max);\n}\n', 'function clamp(x, min, max) {\n  if (min > max) [min, max] = [max, min];\n  return Math.min(Math.max(x, min), max);\n}\n'),
  jsCase('real-mocha-default-rate', 'mocha', null, 'withVat', 'withVat', [{ name: 'default rate', call: 'withVat(100)', expected: '120' }, { name: 'ten percent', call: 'withVat(50, 10)', expected: '55' }], 'function withVat(net, rate) {\n  return net + rate;\n}\n', 'function withVat(net, rate) {\n  if (rate === undefined) rate = 20;\n  return Math.round(net * (100 + rate)) / 100;\n}\n'),
  jsCase('real-mocha-production-warning', 'mocha', null, 'withVat', 'withVat', VAT_TESTS, VAT_BUG, "function withVat(net, rate) {\n  if (process.env.NODE_ENV !== 'production' && rate > 100) console.warn('withVat: a rate over 100 percent');\n  return Math.round(net * (100 + rate)) / 100;\n}\n"),
  jsCase('real-mocha-roman-pairs', 'mocha', null, 'toRoman', 'toRoman', [{ name: 'four', call: 'toRoman(4)', expected: "'IV'" }, { name: 'ninety', call: 'toRoman(90)', expected: "'XC'" }], "function toRoman(n) {\n  return 'I'.repeat(n);\n}\n", "const NUMERALS = [[1000, 'M'], [900, 'CM'], [500, 'D'], [400, 'CD'], [100, 'C'], [90, 'XC'], [50, 'L'], [40, 'XL'], [10, 'X'], [9, 'IX'], [5, 'V'], [4, 'IV'], [1, 'I']];\nfunction toRoman(n) {\n  let out = '';\n  for (const [v, s] of NUMERALS) while (n >= v) {\n    out += s;\n    n -= v;\n  }\n  return out;\n}\n"),
];

const realPy: CorpusCase[] = [
  pyCase('real-pytest-fib-edge', 'pytest', null, 'def fib(n):\n    return fib(n - 1) + fib(n - 2) if n > 1 else 0\n', 'def fib(n):\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n', 'from m import fib\n\n\ndef test_one():\n    assert fib(1) == 1\n\n\ndef test_ten():\n    assert fib(10) == 55\n', ['tests/test_m.py::test_one', 'tests/test_m.py::test_ten']),
  pyCase('real-pytest-weekday-table', 'pytest', null, 'def weekday(i):\n    return str(i)\n', 'DAYS = {0: "Monday", 1: "Tuesday", 2: "Wednesday", 3: "Thursday", 4: "Friday", 5: "Saturday", 6: "Sunday"}\n\n\ndef weekday(i):\n    return DAYS[i % 7]\n', 'from m import weekday\n\n\ndef test_monday():\n    assert weekday(0) == "Monday"\n\n\ndef test_sunday():\n    assert weekday(6) == "Sunday"\n', ['tests/test_m.py::test_monday', 'tests/test_m.py::test_sunday']),
  pyCase('real-pytest-average-empty', 'pytest', null, 'def average(xs):\n    return sum(xs) // len(xs)\n', 'def average(xs):\n    if not xs:\n        return 0\n    return sum(xs) / len(xs)\n', 'from m import average\n\n\ndef test_empty():\n    assert average([]) == 0\n\n\ndef test_halves():\n    assert average([1, 2]) == 1.5\n', ['tests/test_m.py::test_empty', 'tests/test_m.py::test_halves']),
  pyCase('real-pytest-units-table', 'pytest', null, 'def to_meters(n, unit):\n    return n\n', 'FACTORS = {"km": 1000, "m": 1, "cm": 0.01, "mm": 0.001}\n\n\ndef to_meters(n, unit):\n    return n * FACTORS[unit]\n', 'from m import to_meters\n\n\ndef test_km():\n    assert to_meters(2, "km") == 2000\n\n\ndef test_cm():\n    assert to_meters(300, "cm") == 3\n', ['tests/test_m.py::test_km', 'tests/test_m.py::test_cm']),
  pyCase('real-pytest-roman-dict', 'pytest', null, 'def from_roman(s):\n    return len(s)\n', 'VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}\n\n\ndef from_roman(s):\n    total = 0\n    for a, b in zip(s, s[1:] + " "):\n        v = VALUES[a]\n        total += -v if b != " " and VALUES[b] > v else v\n    return total\n', 'from m import from_roman\n\n\ndef test_fourteen():\n    assert from_roman("XIV") == 14\n\n\ndef test_ninety():\n    assert from_roman("XC") == 90\n', ['tests/test_m.py::test_fourteen', 'tests/test_m.py::test_ninety']),
  pyCase('real-pytest-match-units', 'pytest', null, 'def to_ms(n, unit):\n    return n\n', 'def to_ms(n, unit):\n    match unit:\n        case "s":\n            return n * 1000\n        case "m":\n            return n * 60000\n        case _:\n            return n\n', 'from m import to_ms\n\n\ndef test_seconds():\n    assert to_ms(2, "s") == 2000\n\n\ndef test_minutes():\n    assert to_ms(3, "m") == 180000\n', ['tests/test_m.py::test_seconds', 'tests/test_m.py::test_minutes']),
  pyCase('real-unittest-vat', 'unittest', null, PY_VAT_BUG, PY_VAT_FIX, UNITTEST_VAT, UNITTEST_VAT_IDS),
  pyCase('real-unittest-none', 'unittest', null, 'def shout(s):\n    return s.upper() + "!"\n', 'def shout(s):\n    if s is None:\n        return ""\n    return s.upper() + "!"\n', 'import unittest\n\nfrom m import shout\n\n\nclass TestShout(unittest.TestCase):\n    def test_none(self):\n        self.assertEqual(shout(None), "")\n', ['tests.test_m.TestShout.test_none']),
  pyCase('real-unittest-main-exit', 'unittest', null, PY_VAT_BUG, 'import sys\n\n\ndef with_vat(net, rate):\n    return round(net * (100 + rate)) / 100\n\n\nif __name__ == "__main__":\n    print(with_vat(float(sys.argv[1]), float(sys.argv[2])))\n    sys.exit(0)\n', UNITTEST_VAT, UNITTEST_VAT_IDS),
];

export const CORPUS: CorpusCase[] = [...gamingJs, ...gamingPy, ...realJs, ...realPy];

/** The 1-based lines of `after` that a line diff from `before` adds (longest common subsequence). */
export function addedLinesOf(before: string, after: string): Set<number> {
  const a = before.split('\n');
  const b = after.split('\n');
  const dp: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) for (let j = b.length - 1; j >= 0; j--) dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
  const added = new Set<number>();
  let i = 0;
  let j = 0;
  while (j < b.length) {
    if (i < a.length && a[i] === b[j]) {
      i++;
      j++;
    } else if (i < a.length && dp[i + 1][j] >= dp[i][j + 1]) i++;
    else added.add(++j);
  }
  return added;
}

/** The detector on one case: its change, its test files, its failing tests. */
export async function detectCase(c: CorpusCase): Promise<GamingFinding[]> {
  const tests = Object.entries(c.files)
    .filter(([p]) => isTestFile(p))
    .map(([p, text]) => ({ path: p, after: text, before: text, changed: false }));
  return detectGaming({ sources: [{ path: c.source.path, before: c.source.before, after: c.source.after, added: addedLinesOf(c.source.before, c.source.after) }], tests, failing: c.failing });
}
