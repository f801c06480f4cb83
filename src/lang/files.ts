/**
 * What the registry knows about test files whatever their language: `__tests__/` holds tests,
 * snapshots are data (not tests), and the directories that hold test support. Leaf module: the
 * language modules and their runners may import it.
 */

/** Anything under `__tests__/` (or `__test__/`) is a test file. */
export const TEST_DIRS = /(?:^|\/)(?:__tests__|__test__)\//;

/**
 * Test places of languages without a module yet (Ruby: `test/`, `tests/`, `spec/`), kept so the
 * classification stays what it was; a Ruby module would take them over.
 */
export const UNMODULED_TEST_PLACES = [/(?:^|\/)tests?\/.*\.rb$/, /(?:^|\/)spec\/.*\.rb$/];

/** Directories that hold test support (helpers, fixtures, mocks, setup files). */
export const SUPPORT_DIRS = /(?:^|\/)(?:tests?|__tests__|__test__|spec|specs|__fixtures__|fixtures?|__mocks__|testdata|test-support|test-utils|test-helpers|testing)\//;

/** Make's test target: configures the test run in any language. */
export const NEUTRAL_TEST_CONFIG = [/(?:^|\/)(?:Makefile|makefile|GNUmakefile)$/];

/** Snapshots (`.snap`, `__snapshots__/`, syrupy's `.ambr`, `.golden`) are data the guard treats on their own, not test files. */
export function isSnapshotFile(p: string): boolean {
  return /\.snap$|(?:^|\/)__snapshots__\/|\.ambr$|\.golden$|(?:^|\/)snapshots\/.*\.snap\.new$/.test(p);
}
