/** JavaScript and TypeScript files: sources, tests by name and by place, test configuration and support. Leaf module. */
import { isSnapshotFile, TEST_DIRS } from '../files.js';

export const JS_SOURCE = /\.[cm]?[jt]sx?$/;
export const JS_TEST_NAMES = [/\.(?:test|spec)\.[cm]?[jt]sx?$/];
export const JS_TEST_PLACES = [/(?:^|\/)tests?\/.*\.[cm]?[jt]sx?$/, /(?:^|\/)spec\/.*\.[cm]?[jt]sx?$/];

export const JS_TEST_CONFIG = [
  /(?:^|\/)jest\.config\.[cm]?[jt]s(?:on)?$/,
  /(?:^|\/)vitest\.(?:config|workspace)\.[cm]?[jt]s$/,
  /(?:^|\/)vite\.config\.[cm]?[jt]s$/,
  /(?:^|\/)\.mocharc(?:\.[a-z]+)?$/,
  /(?:^|\/)package\.json$/,
  /(?:^|\/)\.nycrc(?:\.json)?$/,
];

export const JS_TEST_SUPPORT = [
  /(?:^|\/)(?:setupTests|jest\.setup|vitest\.setup|test-setup|test\.setup)\.[cm]?[jt]sx?$/,
  /(?:^|\/)(?:karma|ava|wdio|playwright|cypress)\.config\.[cm]?[jt]s$/,
  /(?:^|\/)\.(?:c8rc|nycrc|taprc|babelrc)(?:\.json)?$/,
];

/** `it('name', …)`, `test.each(…)('name', …)`, `specify('name', …)`: the name captured second. */
export const JS_TEST_DECLARATIONS = [/\b(?:it|test|specify)\s*(?:\.\w+\s*)?\(\s*(['"`])(.+?)\1/];

/** Skip, focus and todo markers of jest, vitest, mocha, node:test and tap. */
export const JS_SKIP_MARKERS = [
  /\b(?:describe|it|test|context|suite|specify)\.(?:skip|only|todo|skipIf|runIf)\b/,
  /\b(?:xit|xdescribe|xtest|xcontext|fit|fdescribe|ftest)\s*\(/,
  /\{\s*skip\s*:\s*(?!false)/,
  /\bthis\.skip\s*\(/,
  /\bt\.(?:skip|todo)\s*\(/,
];

/** A JavaScript or TypeScript test file (by name, or under `__tests__/`, `test/`, `spec/`). */
export function isJsTestFile(p: string): boolean {
  return JS_SOURCE.test(p) && (JS_TEST_NAMES.some((re) => re.test(p)) || TEST_DIRS.test(p) || JS_TEST_PLACES.some((re) => re.test(p))) && !isSnapshotFile(p);
}

/** The source a test file is named after: `test/plugin/duration.test.js` → `duration`, `test_math.spec.ts` → `math`. */
export function jsTestStem(p: string): string | null {
  return /(?:^|\/)(?:test_)?([^/]+?)(?:[._-](?:test|spec))?(?:_test)?\.[cm]?[jt]sx?$/.exec(p)?.[1] ?? null;
}
