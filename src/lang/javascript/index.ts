/**
 * JavaScript and TypeScript: `*.test.*` / `*.spec.*` and `test/`, `spec/` files, the runners'
 * configuration files, imports resolved like Node and TypeScript, the runners vitest, jest, mocha,
 * node:test and TAP, and the checkers tsc and ESLint.
 */
import { jest } from '../../verify/runners/jest.js';
import { mocha } from '../../verify/runners/mocha.js';
import { nodeTest } from '../../verify/runners/node-test.js';
import { tap } from '../../verify/runners/tap.js';
import { vitest } from '../../verify/runners/vitest.js';
import type { Language } from '../types.js';
import { eslint } from './eslint.js';
import { JS_SKIP_MARKERS, JS_SOURCE, JS_TEST_CONFIG, JS_TEST_DECLARATIONS, JS_TEST_NAMES, JS_TEST_PLACES, JS_TEST_SUPPORT, jsTestStem } from './files.js';
import { jsDependencies, jsImportCandidates } from './imports.js';
import { tsc } from './tsc.js';

export const javascript = {
  id: 'javascript',
  sources: JS_SOURCE,
  testNames: JS_TEST_NAMES,
  testPlaces: JS_TEST_PLACES,
  testConfig: JS_TEST_CONFIG,
  testSupport: JS_TEST_SUPPORT,
  testDeclarations: JS_TEST_DECLARATIONS,
  skipMarkers: JS_SKIP_MARKERS,
  stemOfTest: jsTestStem,
  importCandidates: jsImportCandidates,
  dependencies: jsDependencies,
  crashHeaders: ['AssertionError'],
  dependencyPaths: ['node_modules'],
  runners: [vitest, jest, mocha, nodeTest, tap],
  checkers: [tsc, eslint],
} as const satisfies Language;
