/**
 * The registry of languages: the only list of them. Everything the tree knows about a language
 * (test files, test configuration, imports, runners, checkers) is asked here, never of a language
 * module directly. A new language is a folder `src/lang/<id>/` with an index.ts exporting its
 * `Language`, and one entry in `BUILTIN`.
 */
import path from 'node:path';
import type { Checker } from '../diagnostics/checker.js';
import type { TestRunner } from '../verify/runners/runner.js';
import { isSnapshotFile, NEUTRAL_TEST_CONFIG, SUPPORT_DIRS, TEST_DIRS, UNMODULED_TEST_PLACES } from './files.js';
import { go } from './go/index.js';
import { javascript } from './javascript/index.js';
import { python } from './python/index.js';
import { rust } from './rust/index.js';
import type { KnownFiles, Language } from './types.js';

export type { Dependencies, GraphFiles, KnownFiles, Language } from './types.js';
export { isSnapshotFile } from './files.js';

/** The languages, in order of precedence (their runners' order is the runner registry's). */
const BUILTIN: readonly Language[] = [javascript, python, go, rust];

const registered: Language[] = [...BUILTIN];
/** Bumped when the list changes, so what is gathered from it is gathered again. */
let registryVersion = 0;

/** The languages the tree knows. */
export function languages(): readonly Language[] {
  return registered;
}

/** Adds a language after the others (tests: a language module is all a new language needs); returns its removal. */
export function registerLanguage(lang: Language): () => void {
  registered.push(lang);
  registryVersion++;
  return () => {
    const i = registered.indexOf(lang);
    if (i >= 0) registered.splice(i, 1);
    registryVersion++;
  };
}

/** Every language's crash headers and dependency path parts, gathered once per registry change (CI log lines are many). */
let logWords: { crash: readonly string[]; deps: readonly string[]; of: number } | undefined;
function gatheredLogWords(): { crash: readonly string[]; deps: readonly string[] } {
  if (logWords?.of !== registryVersion) {
    logWords = { crash: registered.flatMap((l) => l.crashHeaders ?? []), deps: registered.flatMap((l) => l.dependencyPaths ?? []), of: registryVersion };
  }
  return logWords;
}

/** Does a CI log line open an uncaught error's report in one of the languages (`Traceback `, `panic: `)? */
export function isCrashHeader(line: string): boolean {
  return gatheredLogWords().crash.some((h) => line.startsWith(h));
}

/** Is a path an installed dependency of one of the languages (`node_modules`, `site-packages`, `/go/pkg/mod/`)? */
export function isDependencyPath(p: string): boolean {
  return gatheredLogWords().deps.some((d) => p.includes(d));
}

/** The language of a file by its name, or undefined. */
export function languageOfFile(p: string): Language | undefined {
  return registered.find((l) => l.sources.test(p));
}

// ------------------------------------------------------------------------- test files

/**
 * The one answer to "is this a test file?" by its name alone (where it lives does not count):
 * `*.test.js` / `*.spec.ts`, `test_*.py`, `*_test.go`, … as each language names them.
 */
export function isTestFileByName(p: string): boolean {
  return registered.some((l) => l.testNames.some((re) => re.test(p))) && !isSnapshotFile(p);
}

/** A test file by its name or by where it lives (`__tests__/`, a language's `test/`, `tests/`, `spec/`). Snapshots are not test files. */
export function isTestFile(p: string): boolean {
  const hit = TEST_DIRS.test(p) || UNMODULED_TEST_PLACES.some((re) => re.test(p)) || registered.some((l) => l.testNames.some((re) => re.test(p)) || l.testPlaces.some((re) => re.test(p)));
  return hit && !isSnapshotFile(p);
}

/** A file that configures the test run (a runner's config, package.json, pytest.ini, conftest.py, a Makefile). */
export function isTestConfig(p: string): boolean {
  return NEUTRAL_TEST_CONFIG.some((re) => re.test(p)) || registered.some((l) => l.testConfig?.some((re) => re.test(p)));
}

/** Test support that is neither a test nor configuration: helpers, fixtures, mocks, setup files. */
export function isTestSupportFile(p: string): boolean {
  return SUPPORT_DIRS.test(p) || registered.some((l) => l.testSupport?.some((re) => re.test(p)));
}

/** Every language's test-case declarations, in the registry's order (the guard names a removed test by them). */
export function testDeclarations(): RegExp[] {
  return registered.flatMap((l) => l.testDeclarations ?? []);
}

/** A line that adds a skip, focus or expected-failure marker in any language. */
export function isSkipMarker(line: string): boolean {
  return registered.some((l) => l.skipMarkers?.some((re) => re.test(line)));
}

/** The name of the source a test file is named after, within its language; null when it names none. */
export function stemOfTest(p: string): { language: string; stem: string } | null {
  const lang = languageOfFile(p);
  const stem = lang?.stemOfTest?.(p);
  return lang && stem ? { language: lang.id, stem } : null;
}

// ------------------------------------------------------------------------- imports (localization)

/** The tracked files as the import resolvers see them, with a per-set memo for a language's tables. */
export function knownFiles(all: Iterable<string>): KnownFiles {
  const set: ReadonlySet<string> = new Set(all);
  const memo = new Map<string, unknown>();
  return {
    all: set,
    has: (f) => set.has(f),
    memo<T>(key: string, make: (all: ReadonlySet<string>) => T): T {
      if (!memo.has(key)) memo.set(key, make(set));
      return memo.get(key) as T;
    },
  };
}

/**
 * The tracked file an import specifier written in `from` points to, or null: a language's own
 * syntax first (Python's `.x`, `..core.base`, `pkg.mod`), else a relative path (`./x`, `../x`)
 * resolved with each language's file names for it (`./b` → `b.ts`, `b/index.js`, `b.py`).
 */
export function resolveImport(from: string, spec: string, files: KnownFiles): string | null {
  for (const l of registered) {
    const own = l.resolveImport?.(from, spec, files);
    if (own !== undefined) return own;
  }
  if (!/^\.\.?(?:\/|$)/.test(spec)) return null;
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const cand of [base, ...registered.flatMap((l) => l.importCandidates?.(base) ?? [])]) if (files.has(cand)) return cand;
  return null;
}

/** Localization: the span of a test declared in a language's own way (Python's `def test_x(`), the first language's that finds it; null when none does. */
export function declaredTestSpan(lines: string[], name: string): { start: number; end: number } | null {
  for (const l of registered) {
    const span = l.testSpan?.(lines, name);
    if (span) return span;
  }
  return null;
}

/** Localization: the module a test file is named after, with its language (`tests/test_cached.py` → python `cached`); null when none. */
export function testSubject(p: string): { language: string; subject: string } | null {
  for (const l of registered) {
    const subject = l.testSubject?.(p);
    if (subject) return { language: l.id, subject };
  }
  return null;
}

// ------------------------------------------------------------------------- runners and checkers

/** Every language's test runners, in the registry's order. */
export function languageRunners(): TestRunner[] {
  return registered.flatMap((l) => l.runners);
}

/** Every language's checkers, in the registry's order. */
export function checkers(): Checker[] {
  return registered.flatMap((l) => l.checkers);
}

type BuiltinChecker = (typeof javascript.checkers)[number] | (typeof python.checkers)[number];

/** The checkers a repository has, by id, with what each found (the built-in ones typed). */
export type CheckerSetup = { [C in BuiltinChecker as C['id']]?: C extends Checker<string, infer S> ? S : never } & Record<string, unknown>;
