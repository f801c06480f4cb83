/**
 * What the tree knows about one programming language, behind one interface: which files are its
 * sources and its tests, how its imports resolve (localization's ranking and the test session's
 * import graph), which test runners run it and which checkers check it. Each language is one
 * folder, `src/lang/<id>/`, whose index.ts exports its `Language`; the registry (`src/lang/index.ts`)
 * is the only list of them. Callers ask the registry, never a language directly.
 */
import type { Checker } from '../diagnostics/checker.js';
import type { TestRunner } from '../verify/runners/runner.js';

/** The tracked files of a repository, as an import resolver for localization sees them. */
export interface KnownFiles {
  has(file: string): boolean;
  /** Every tracked file (repo-relative, '/'). */
  readonly all: ReadonlySet<string>;
  /** A value computed once from the files (a language's module table), kept for this set of files. */
  memo<T>(key: string, make: (all: ReadonlySet<string>) => T): T;
}

/** The repository as the test session's import graph reads it. */
export interface GraphFiles {
  /** Every tracked file (repo-relative, '/'). */
  readonly files: ReadonlySet<string>;
  /** The file's text, or null when it cannot be read. */
  read(file: string): Promise<string | null>;
  /** A value computed once per graph (the package.json's name, go.mod's module path). */
  memo<T>(key: string, make: () => Promise<T>): Promise<T>;
}

/** The files one file depends on directly; `unresolved`: imports of the repository that could not be followed. */
export interface Dependencies {
  deps: string[];
  unresolved: string[];
}

export interface Language {
  /** 'javascript', 'python', 'go', … */
  id: string;
  /** Its source files (tests included), by name. */
  sources: RegExp;
  /** Test files by name alone (`*.test.ts`, `test_*.py`, `*_test.go`). */
  testNames: readonly RegExp[];
  /** Test files by where they live (`tests/**\/*.py`). */
  testPlaces: readonly RegExp[];
  /** Files that configure the test run rather than hold tests (`conftest.py`, `jest.config.js`): run as they were with the original tests. */
  testSupport?: readonly RegExp[];
  /** Files that configure its test runs (`jest.config.js`, `pytest.ini`): a change to them is a change to the tests' setup. */
  testConfig?: readonly RegExp[];
  /**
   * The source name a test file is named after (`test/plugin/duration.test.js` → `duration`,
   * `tests/test_math.py` → `math`): changed sources select the tests named after them (a source's
   * name is its file name, or its directory's for an `index` file), within the language; null when none.
   */
  stemOfTest?(file: string): string | null;
  /** A line that declares a test case, the name captured (`it('adds', …)`, `def test_adds(`); first match wins, in the registry's order. */
  testDeclarations?: readonly RegExp[];
  /** A line that skips, focuses or expects failure of tests (`it.skip`, `@pytest.mark.xfail`, `t.Skip(`). */
  skipMarkers?: readonly RegExp[];
  /**
   * Localization: the module a test file is named after, matched against the stems of the
   * language's sources (`tests/test_cached.py` → `cached` finds `pkg/_cached.py`); null when none.
   */
  testSubject?(file: string): string | null;
  /** Localization: the lines of a test named `name` when it is declared in this language's own way (`def test_x(`); null otherwise. */
  testSpan?(lines: string[], name: string): { start: number; end: number } | null;
  /** Localization: the tracked file an import written in `from` names; null: none of the repository; undefined: not this language's syntax (the shared path resolution applies). */
  resolveImport?(from: string, spec: string, files: KnownFiles): string | null | undefined;
  /** Localization: the file names a path written in an import may stand for (`./b` → `./b.ts`, `./b/index.ts`), in order. */
  importCandidates?(base: string): string[];
  /** The test session's import graph: the repository files `file` (this language's) depends on. */
  dependencies?(file: string, text: string, repo: GraphFiles): Promise<Dependencies>;
  /** A CI log line starting with one of these opens an uncaught error's report (`Traceback `, `panic: `): the failure's text. */
  crashHeaders?: readonly string[];
  /** A path containing one of these is an installed dependency or the toolchain, not the repository (`node_modules`, `site-packages`). */
  dependencyPaths?: readonly string[];
  /** Its test runners, in order of precedence (detection, output parsers). */
  runners: readonly TestRunner[];
  /** Its type checkers and linters. */
  checkers: readonly Checker[];
}
