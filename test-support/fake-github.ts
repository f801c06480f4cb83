/** The fake GitHub REST API (test-support/fake-github/); this path kept for its importers. */
export * from './fake-github/index.js';
