/**
 * The language registry (src/lang/): each language's patterns classify a table of paths, a checker
 * of each language reads a real output sample, and a language added in a test (a folder's worth:
 * one `Language` value) is picked up by test-file classification, related-test selection and
 * localization without any other edit — with the same calls before it is registered as the control.
 */
import { isRepoPath } from '../../src/ci/log/recognise.js';
import { checkers, isCrashHeader, isTestConfig, isTestFile, isTestFileByName, knownFiles, languageOfFile, languages, registerLanguage, resolveImport, type Language } from '../../src/lang/index.js';
import { allRunners } from '../../src/verify/runners/index.js';
import { testFilesNamedAfter } from '../../src/verify/session.js';
import { rankFiles } from '../../src/context/rank.js';
import type { MapFile, RepoMap } from '../../src/context/map.js';
import type { Signals } from '../../src/context/signals.js';
import { parseTscOutput } from '../../src/lang/javascript/tsc.js';
import { parseEslintJson } from '../../src/lang/javascript/eslint.js';
import { parseMypyOutput } from '../../src/lang/python/mypy.js';
import { parseRuffJson } from '../../src/lang/python/ruff.js';
import type { FileChecker } from '../../src/diagnostics/checker.js';
import type { CheckerSetup } from '../../src/lang/index.js';
import { detectCheckers } from '../../src/diagnostics/detect.js';

describe('the registry', () => {
  test('is the only list: languages in order, their runners then make, their checkers', () => {
    expect(languages().map((l) => l.id)).toEqual(['javascript', 'python', 'go', 'rust']);
    expect(allRunners().map((r) => r.id)).toEqual(['vitest', 'jest', 'mocha', 'node-test', 'tap', 'pytest', 'go', 'cargo', 'make']);
    expect(checkers().map((c) => c.id)).toEqual(['tsc', 'eslint', 'mypy', 'pyright', 'ruff']);
  });

  test.each([
    // path, language, test by name, test by name or place, test configuration
    ['src/math.ts', 'javascript', false, false, false],
    ['src/math.test.ts', 'javascript', true, true, false],
    ['web/App.spec.jsx', 'javascript', true, true, false],
    ['test/helpers.cjs', 'javascript', false, true, false],
    ['jest.config.mjs', 'javascript', false, false, true],
    ['pkg/cart.py', 'python', false, false, false],
    ['tests/test_cart.py', 'python', true, true, false],
    ['pkg/cart_test.py', 'python', true, true, false],
    ['tests/helpers.py', 'python', false, true, false],
    ['tests/conftest.py', 'python', false, true, true],
    ['calc/calc.go', 'go', false, false, false],
    ['calc/calc_test.go', 'go', true, true, false],
    ['tests/integration.rs', 'rust', false, true, false],
    ['src/lib.rs', 'rust', false, false, false],
    ['README.md', undefined, false, false, false],
    ['Makefile', undefined, false, false, true],
  ] as const)('%s: %s, by name %s, test file %s, test config %s', (p, lang, byName, test, config) => {
    expect(languageOfFile(p)?.id).toBe(lang);
    expect(isTestFileByName(p)).toBe(byName);
    expect(isTestFile(p)).toBe(test);
    expect(isTestConfig(p)).toBe(config);
  });

  test('imports resolve by the language of the importing file', () => {
    const files = knownFiles(['src/b.ts', 'src/c/index.js', 'src/pkg/__init__.py', 'src/pkg/keys.py', 'src/pkg/core.py']);
    expect(resolveImport('src/a.ts', './b.js', files)).toBe('src/b.ts');
    expect(resolveImport('src/a.ts', './c', files)).toBe('src/c/index.js');
    expect(resolveImport('src/a.ts', 'react', files)).toBeNull();
    expect(resolveImport('src/pkg/core.py', '.keys', files)).toBe('src/pkg/keys.py');
    expect(resolveImport('tests/test_keys.py', 'pkg.keys', files)).toBe('src/pkg/keys.py');
    expect(resolveImport('tests/test_keys.py', 'os', files)).toBeNull();
  });
});

describe("a checker of each language reads the checker's real output", () => {
  test('tsc (javascript)', () => {
    const out = "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\nerror TS5083: Cannot read file '/r/tsconfig.base.json'.\n";
    expect(parseTscOutput(out, '/r')).toEqual([
      { checker: 'tsc', file: 'src/a.ts', line: 3, column: 7, code: 'TS2322', message: "Type 'string' is not assignable to type 'number'." },
      { checker: 'tsc', file: '', line: 0, column: 0, code: 'TS5083', message: "Cannot read file '/r/tsconfig.base.json'." },
    ]);
  });

  test('ESLint (javascript)', () => {
    const json = JSON.stringify([{ filePath: '/r/src/a.js', messages: [{ ruleId: 'no-undef', severity: 2, message: "'x' is not defined.", line: 2, column: 9 }, { ruleId: 'semi', severity: 1, message: 'Missing semicolon.', line: 3, column: 1 }] }]);
    expect(parseEslintJson(json, '/r')).toEqual([{ checker: 'eslint', file: 'src/a.js', line: 2, column: 9, code: 'no-undef', message: "'x' is not defined." }]);
  });

  test('mypy (python)', () => {
    const out = 'pkg/a.py:3:7: error: Incompatible types in assignment (expression has type "str", variable has type "int")  [assignment]\npkg/a.py:4:1: note: See https://mypy.rtfd.io\n';
    expect(parseMypyOutput(out, '/r')).toEqual([{ checker: 'mypy', file: 'pkg/a.py', line: 3, column: 7, code: 'assignment', message: 'Incompatible types in assignment (expression has type "str", variable has type "int")' }]);
  });

  test('ruff (python)', () => {
    const json = JSON.stringify([{ code: 'F821', filename: '/r/pkg/a.py', message: 'Undefined name `x`', location: { row: 2, column: 5 }, end_location: { row: 2, column: 6 }, fix: null, noqa_row: 2, url: 'https://docs.astral.sh/ruff/rules/undefined-name' }]);
    expect(parseRuffJson(json, '/r')).toEqual([{ checker: 'ruff', file: 'pkg/a.py', line: 2, column: 5, code: 'F821', message: 'Undefined name `x`' }]);
  });
});

// ------------------------------------------------------------------------- a language added in a test

/** A checker of the new language: one value; `detect` finds it without looking at any disk. */
const exlint: FileChecker<'exlint', { bin: string }> = {
  id: 'exlint',
  scope: 'file',
  title: 'exlint',
  label: 'lint (exlint)',
  reads: /\.exs?$/,
  lints: /\.exs?$/,
  detect: () => ({ bin: '/bin/true' }),
  lint: async () => ({ ok: true, diagnostics: [] }),
};

/** Elixir, as small as a language can be: its files, its tests, its imports (`alias Calc` → lib/calc.ex), a checker. */
const elixir: Language = {
  id: 'elixir',
  sources: /\.exs?$/,
  testNames: [/_test\.exs$/],
  testPlaces: [],
  stemOfTest: (p) => /(?:^|\/)([^/]+)_test\.exs$/.exec(p)?.[1] ?? null,
  testSubject: (p) => /(?:^|\/)(\w+)_test\.exs$/.exec(p)?.[1] ?? null,
  resolveImport: (from, spec, files) => {
    if (!/\.exs?$/.test(from)) return undefined;
    const file = `lib/${spec.replace(/([a-z])([A-Z])/g, '$1_$2').toLowerCase()}.ex`;
    return files.has(file) ? file : null;
  },
  crashHeaders: ['** (ExUnit.AssertionError)'],
  dependencyPaths: ['/deps/'],
  runners: [],
  checkers: [exlint],
};

const mapFile = (path: string, imports: string[] = []): MapFile => ({ path, language: 'javascript', lines: 10, defs: [], refs: {}, imports }) as MapFile;
const MAP: RepoMap = {
  files: [mapFile('lib/calc.ex'), mapFile('lib/other.ex'), mapFile('lib/tax_rate.ex'), mapFile('test/calc_test.exs', ['Calc', 'TaxRate'])],
  stats: { tracked: 4, mapped: 4, parsed: 4, cached: 0, skipped: 0, ms: 0, threads: 1 },
};
const SIGNALS: Signals = { files: new Map(), idents: new Map(), kebab: new Set(), frames: [], testFiles: ['test/calc_test.exs'], testNames: [] };
const ALL = ['lib/calc.ex', 'lib/other.ex', 'lib/tax_rate.ex', 'test/calc_test.exs'];

/** What the tree says about an Elixir repository: test files, related tests, localization's reasons, the checkers found. */
function observed() {
  const ranked = rankFiles(MAP, SIGNALS);
  const why = (p: string) => ranked.find((r) => r.file.path === p)?.why ?? [];
  return {
    testFile: isTestFile('test/calc_test.exs'),
    byName: isTestFileByName('test/calc_test.exs'),
    related: testFilesNamedAfter(['lib/calc.ex'], ALL),
    imported: resolveImport('test/calc_test.exs', 'TaxRate', knownFiles(ALL)),
    calc: why('lib/calc.ex'),
    taxRate: why('lib/tax_rate.ex'),
    checkers: Object.keys(detectCheckers('/nonexistent-agent-fix-lang-test') as CheckerSetup),
    crash: isCrashHeader('** (ExUnit.AssertionError) Assertion with == failed'),
    repoFrame: isRepoPath('deps/decimal/lib/decimal.ex') && isRepoPath('app/deps/decimal/lib/decimal.ex'),
  };
}

describe('adding a language is local: one Language value registered, nothing else edited', () => {
  test('before it is registered (the control), the tree knows nothing of Elixir', () => {
    expect(observed()).toEqual({ testFile: false, byName: false, related: [], imported: null, calc: [], taxRate: [], checkers: [], crash: false, repoFrame: true });
  });

  test('registered, it is picked up by test-file classification, related tests, localization and the checkers', () => {
    const unregister = registerLanguage(elixir);
    try {
      const seen = observed();
      expect(seen).toMatchObject({ testFile: true, byName: true, related: ['test/calc_test.exs'], imported: 'lib/tax_rate.ex', checkers: ['exlint'], crash: true, repoFrame: false });
      expect(seen.calc).toEqual(expect.arrayContaining(['imported by a failing test', 'named like a failing test']));
      expect(seen.taxRate).toEqual(['imported by a failing test']);
    } finally {
      unregister();
    }
    expect(observed().testFile).toBe(false);
  });
});

describe('what a runner module says of its reports', () => {
  test('the parsers that name skipped tests, and those whose counts are test cases', async () => {
    const { parserTells } = await import('../../src/verify/runners/index.js');
    const ids = ['jest', 'vitest', 'mocha', 'node-test', 'tap', 'pytest', 'go', 'cargo', 'none'];
    expect(ids.filter((id) => parserTells(id).reportsSkips)).toEqual(['jest', 'vitest', 'mocha', 'node-test', 'tap', 'pytest', 'go']);
    expect(ids.filter((id) => parserTells(id).countsTests)).toEqual(['jest', 'vitest', 'mocha', 'node-test', 'pytest']);
  });
});
