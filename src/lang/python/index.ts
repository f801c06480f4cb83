/**
 * Python: `test_*.py` / `*_test.py` and `tests/` files, conftest.py and the pytest configuration,
 * module imports (graph and localization), pytest (unittest suites run under it), and the
 * checkers mypy, pyright and ruff.
 */
import { pytest } from '../../verify/runners/pytest.js';
import type { Language } from '../types.js';
import { PY_SKIP_MARKERS, PY_SOURCE, PY_TEST_CONFIG, PY_TEST_DECLARATIONS, PY_TEST_NAMES, PY_TEST_PLACES, PY_TEST_SUPPORT, pyTestStem, pythonTestSubject } from './files.js';
import { pyTestSpan } from './spans.js';
import { pyDependencies, pyImportCandidates, resolvePyImport } from './imports.js';
import { mypy } from './mypy.js';
import { pyright } from './pyright.js';
import { ruff } from './ruff.js';

export const python = {
  id: 'python',
  sources: PY_SOURCE,
  testNames: PY_TEST_NAMES,
  testPlaces: PY_TEST_PLACES,
  testConfig: PY_TEST_CONFIG,
  testSupport: PY_TEST_SUPPORT,
  testDeclarations: PY_TEST_DECLARATIONS,
  skipMarkers: PY_SKIP_MARKERS,
  stemOfTest: pyTestStem,
  testSubject: pythonTestSubject,
  testSpan: pyTestSpan,
  resolveImport: resolvePyImport,
  importCandidates: pyImportCandidates,
  dependencies: pyDependencies,
  crashHeaders: ['Traceback ', 'AssertionError', 'assert '],
  dependencyPaths: ['site-packages'],
  runners: [pytest],
  checkers: [mypy, pyright, ruff],
} as const satisfies Language;
