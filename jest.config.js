/**
 * Jest runs the TypeScript sources directly (ts-jest, ESM). Type checking is `npm run typecheck`.
 *
 * Two projects over `__tests__/`: `unit` (pure modules: no git, no process, no server; seconds
 * on their own, `npm run test:unit`) and `integration` (real git, real test commands, loopback
 * servers, the bundle under node 24: `npm run test:integration`). A test file is a unit test
 * unless it uses one of the things below, so a new file lands in the right project by itself.
 * `npm test` runs both.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(fileURLToPath(import.meta.url));
const dir = path.join(root, '__tests__');
/** What makes a test slower than a pure function call: real git, processes, servers, the bundle, the file system's fixtures. */
const INTEGRATION = /test-support\/|scripted\/server|adapters\/(?:shell|git|github|openai)|child_process|TestSession|makeShell|openGit|node24|\bspawn|\bexecFile|worker_threads/;
const files = readdirSync(dir).filter((f) => f.endsWith('.test.ts'));
const unit = files.filter((f) => !INTEGRATION.test(readFileSync(path.join(dir, f), 'utf8')));
const integration = files.filter((f) => !unit.includes(f));

const project = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }], '^.+\\.pl$': '<rootDir>/scripts/text-transform.cjs' },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json', 'pl'],
  setupFiles: ['<rootDir>/test-support/jest-env.cjs'],
};

export default {
  testTimeout: 120000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/scripts/summary-reporter.cjs'],
  projects: [
    { ...project, displayName: 'unit', testMatch: unit.map((f) => `<rootDir>/__tests__/${f}`) },
    { ...project, displayName: 'integration', testMatch: integration.map((f) => `<rootDir>/__tests__/${f}`) },
  ],
};
