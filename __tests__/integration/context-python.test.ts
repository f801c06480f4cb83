/**
 * The repository map and localization on a Python project (issue 22 §1): module names and
 * absolute imports (`from pkg.mod import x`, `import pkg`), `from . import x`, a test file and the
 * module it is named after (`tests/test_cached.py` <-> `src/pkg/_cached.py`), pytest node ids as
 * the failing tests (their file, their function's span by indentation), stubs beside modules.
 * Real tree-sitter parsing and real git (makeRepo).
 */
import { prepareContext } from '../../src/context/index.js';
import { knownFiles, resolveImport } from '../../src/lang/index.js';
import { pythonModules } from '../../src/lang/python/imports.js';
import { pythonTestSubject } from '../../src/lang/python/files.js';
import { testName } from '../../src/context/signals.js';
import { testSpan } from '../../src/context/localize.js';
import { makeRepo, cleanupFixtures } from '../../test-support/git-fixture.js';
import type { TestRun } from '../../src/verify/types.js';

afterAll(() => cleanupFixtures());

const FILES = [
  'src/pkg/__init__.py',
  'src/pkg/_cached.py',
  'src/pkg/keys.py',
  'src/pkg/sub/__init__.py',
  'src/pkg/sub/deep.py',
  'src/pkg/keys.pyi',
  'tests/__init__.py',
  'tests/test_cached.py',
  'scripts/tool.py',
  'setup.py',
];

test('Python module names: packages from their __init__.py up, the src/ layout, files outside packages by path', () => {
  const m = pythonModules(FILES);
  expect(m.get('pkg')).toBe('src/pkg/__init__.py');
  expect(m.get('pkg._cached')).toBe('src/pkg/_cached.py');
  expect(m.get('pkg.sub.deep')).toBe('src/pkg/sub/deep.py');
  expect(m.get('tests.test_cached')).toBe('tests/test_cached.py');
  expect(m.get('scripts.tool')).toBe('scripts/tool.py');
  expect(m.get('setup')).toBe('setup.py');
  expect([...m.values()]).not.toContain('src/pkg/keys.pyi');
  const known = knownFiles(FILES);
  expect(resolveImport('tests/test_cached.py', 'pkg._cached', known)).toBe('src/pkg/_cached.py');
  expect(resolveImport('tests/test_cached.py', 'pkg', known)).toBe('src/pkg/__init__.py');
  expect(resolveImport('tests/test_cached.py', 'os', known)).toBeNull();
  // relative forms: `.keys`, `..keys`, and `from . import x` (the package itself)
  expect(resolveImport('src/pkg/_cached.py', '.keys', known)).toBe('src/pkg/keys.py');
  expect(resolveImport('src/pkg/sub/deep.py', '..keys', known)).toBe('src/pkg/keys.py');
  expect(resolveImport('tests/test_cached.py', '.', known)).toBe('tests/__init__.py');
  // JavaScript is unchanged: a bare specifier is a package, not a file of the repository
  expect(resolveImport('src/a.js', 'pkg', knownFiles(['pkg.js']))).toBeNull();
  expect(resolveImport('src/a.js', './b', knownFiles(['src/b.ts']))).toBe('src/b.ts');
});

test("test subjects, pytest ids' names, and a Python test's span by indentation", () => {
  expect(pythonTestSubject('tests/test_cached.py')).toBe('cached');
  expect(pythonTestSubject('pkg/keys_test.py')).toBe('keys');
  expect(pythonTestSubject('tests/conftest.py')).toBeNull();
  expect(pythonTestSubject('test/cached.test.js')).toBeNull();
  expect(testName('tests/test_x.py::TestY::test_z[a b-1]')).toBe('test_z');
  expect(testName('tests/test_x.py::test_plain')).toBe('test_plain');
  expect(testName('src/a.test.js > suite > adds')).toBe('adds');
  const lines = ['class TestY:', '    @pytest.mark.parametrize("a", [1, 2])', '    def test_z(self, a):', '        x = f(', '            a)', '', '        assert x == a', '', '    def test_other(self):', '        pass'];
  expect(testSpan(lines, 'test_z')).toEqual({ start: 2, end: 7 });
  expect(testSpan(lines, 'test_other')).toEqual({ start: 9, end: 10 });
});

test('a failing pytest test points at the module it is named after and the modules it imports; the stub beside a module stays out of the way', async () => {
  const pad = (n: number) => Array.from({ length: n }, (_, i) => `# line ${i}`).join('\n');
  const repo = makeRepo({
    'pyproject.toml': '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    'src/pkg/__init__.py': 'from .keys import hashkey\nfrom ._cached import cached\n',
    'src/pkg/keys.py': `${pad(5)}\ndef hashkey(*args):\n    return tuple(args)\n`,
    'src/pkg/keys.pyi': 'def hashkey(*args: object) -> tuple: ...\n',
    'src/pkg/_cached.py': `${pad(70)}\ndef cached(cache):\n    def wrap(fn):\n        return fn\n    return wrap\n\n\ndef cache_info(cache):\n    return len(cache)\n`,
    'src/pkg/other.py': 'def unrelated():\n    return 1\n',
    'tests/__init__.py': '',
    'tests/test_cached.py': `import pytest\n\nfrom pkg import cached\n\n\nclass TestCached:\n    @pytest.mark.parametrize("n", [1, 2])\n    def test_wraps(self, n):\n        c = cached({})\n        assert c(lambda: n)() == n\n`,
  });
  // the baseline as the pytest runner reports it: node ids, no separate file field
  const baseline: TestRun = {
    command: '.venv/bin/python -m pytest',
    exitCode: 1,
    timedOut: false,
    durationMs: 1,
    succeeded: false,
    tests: [{ id: 'tests/test_cached.py::TestCached::test_wraps[1]', status: 'failed', message: 'assert 0 == 1' }],
    counts: { passed: 0, failed: 1, skipped: 0 },
    parsedFrom: 'pytest',
    outputTail: '',
  };
  const ctx = await prepareContext(repo.dir, 'CI failure', baseline, { cacheDir: null });
  expect(ctx.signals.testFiles).toEqual(['tests/test_cached.py']);
  const top = ctx.localization.ranked.filter((r) => !r.file.path.startsWith('tests/'));
  expect(top[0].file.path).toBe('src/pkg/_cached.py');
  expect(top[0].why).toContain('named like a failing test');
  expect(ctx.localization.ranked.find((r) => r.file.path === 'src/pkg/__init__.py')?.why).toContain('imported by a failing test');
  // the stub ranks below its module
  const rankOf = (p: string) => ctx.localization.ranked.findIndex((r) => r.file.path === p);
  expect(rankOf('src/pkg/keys.pyi')).toBeGreaterThan(rankOf('src/pkg/keys.py'));
  // the failing test's own code, from its decorator to the end of its body
  expect(ctx.localization.tests).toEqual([{ file: 'tests/test_cached.py', start: 7, end: 10, label: 'test "test_wraps"', score: 1 }]);
  // and what it calls, in the module's region
  expect(ctx.localization.regions.find((r) => r.file === 'src/pkg/_cached.py')?.label).toBe('cached');
});
