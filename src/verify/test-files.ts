/**
 * The one answer to "is this a test file?" (the guard, the proof, the loop, related-test
 * selection and command detection all ask it). Pure.
 *
 * - by name: `*.test.js` / `*.spec.ts` (any JS/TS flavour), `test_*.py`, `*_test.py`, `*_test.go`;
 * - by place: anything under `__tests__/`, JS/TS/Python/Rust/Ruby files under `test/` or `tests/`,
 *   JS/TS/Ruby files under `spec/`;
 * - snapshots (`.snap`, `__snapshots__/`, `.ambr`, `.golden`) are not test files: they are data
 *   the guard treats on their own.
 */
const BY_NAME = [/\.(?:test|spec)\.[cm]?[jt]sx?$/, /(?:^|\/)test_[^/]*\.py$/, /_test\.py$/, /_test\.go$/];

const BY_PLACE = [
  /(?:^|\/)(?:__tests__|__test__)\//,
  /(?:^|\/)tests?\/.*\.(?:[cm]?[jt]sx?|py|rs|rb)$/,
  /(?:^|\/)spec\/.*\.(?:[cm]?[jt]sx?|rb)$/,
];

/** A test file by its name alone (where it lives does not count). */
export function isTestFileByName(p: string): boolean {
  return BY_NAME.some((re) => re.test(p)) && !isSnapshotFile(p);
}

/** A test file by its name or by where it lives. */
export function isTestFile(p: string): boolean {
  return (BY_NAME.some((re) => re.test(p)) || BY_PLACE.some((re) => re.test(p))) && !isSnapshotFile(p);
}

export function isSnapshotFile(p: string): boolean {
  return /\.snap$|(?:^|\/)__snapshots__\/|\.ambr$|\.golden$|(?:^|\/)snapshots\/.*\.snap\.new$/.test(p);
}
