/**
 * Jest runs the TypeScript sources directly: esbuild strips the types file by file
 * (test-support/esbuild-transform.cjs, ESM). Type checking is `npm run typecheck`, the tree's lint
 * `npm run lint`; `npm test` runs all three.
 *
 * Three projects, chosen by folder:
 * - `__tests__/unit/`: pure modules (no git, no process, no server, no temporary files); seconds
 *   on their own, without building anything: `npm run test:unit`.
 * - `__tests__/integration/`: one module against real things (git, test commands, loopback
 *   servers, the file system): `npm run test:integration`.
 * - `__tests__/e2e/`: the whole action or CLI, issue or CI run to pull request, against the fake
 *   GitHub API and the scripted model: `npm run test:e2e`.
 */
const project = {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': '<rootDir>/test-support/esbuild-transform.cjs', '^.+\\.pl$': '<rootDir>/scripts/text-transform.cjs' },
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json', 'pl'],
  setupFiles: ['<rootDir>/test-support/jest-env.cjs'],
};

export default {
  testTimeout: 120000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/scripts/summary-reporter.cjs'],
  projects: ['unit', 'integration', 'e2e'].map((name) => ({
    ...project,
    displayName: name,
    testMatch: [`<rootDir>/__tests__/${name}/**/*.test.ts`],
  })),
};
