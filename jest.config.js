/** Jest runs the TypeScript sources directly (ts-jest, ESM). Type checking is `npm run typecheck`. */
export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': ['ts-jest', { useESM: true, diagnostics: false }] },
  testMatch: ['<rootDir>/__tests__/**/*.test.ts'],
  testTimeout: 120000,
  maxWorkers: 2,
  reporters: ['default', '<rootDir>/scripts/summary-reporter.cjs'],
};
