/** Python files: sources, tests by name and by place, test configuration and support. Leaf module. */

export const PY_SOURCE = /\.py$/;
export const PY_TEST_NAMES = [/(?:^|\/)test_[^/]*\.py$/, /_test\.py$/];
export const PY_TEST_PLACES = [/(?:^|\/)tests?\/.*\.py$/];
export const PY_TEST_CONFIG = [/(?:^|\/)(?:pytest\.ini|tox\.ini|setup\.cfg|pyproject\.toml|conftest\.py)$/];
export const PY_TEST_SUPPORT = [/(?:^|\/)conftest\.py$/];

export const PY_TEST_DECLARATIONS = [/^\s*(?:async\s+)?def\s+(test_\w+)\s*\(/];

/**
 * pytest's and unittest's skip and expected-failure markers, with pytest's other forms: a module-level
 * `pytestmark = pytest.mark.skip`, `pytest.param(…, marks=pytest.mark.xfail)`, `pytest.importorskip(…)`,
 * unittest's `self.skipTest(…)` / `raise SkipTest`.
 */
export const PY_SKIP_MARKERS = [
  /@pytest\.mark\.(?:skip|skipif|xfail)\b/,
  /\bpytest\.(?:skip|xfail)\s*\(/,
  /@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b/,
  /\bpytest\.mark\.(?:skip|skipif|xfail)\b/,
  /\bpytest\.importorskip\s*\(/,
  /\bself\.skipTest\s*\(/,
  /\braise\s+(?:unittest\.)?SkipTest\b/,
];

/** A Python test file by its name (`test_*.py`, `*_test.py`). */
export function isPyTestFileByName(p: string): boolean {
  return PY_SOURCE.test(p) && PY_TEST_NAMES.some((re) => re.test(p));
}

/** The module a test file is named after, as written: `tests/test_math.py`, `math_test.py` → `math`. */
export function pyTestStem(p: string): string | null {
  const m = /(?:^|\/)test_([^/]+)\.py$/.exec(p) ?? /(?:^|\/)([^/]+)_test\.py$/.exec(p);
  return m?.[1] ?? null;
}

/** Localization: a Python test file's subject, `tests/test_cached.py`, `cached_test.py` -> `cached`; otherwise null. */
export function pythonTestSubject(p: string): string | null {
  const m = /(?:^|\/)(?:test_(\w+)|(\w+)_test)\.py$/.exec(p);
  return m ? (m[1] ?? m[2]).toLowerCase() : null;
}
