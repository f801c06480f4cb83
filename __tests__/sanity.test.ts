import type { TestRun } from '../src/types.js';

test('toolchain runs TypeScript ESM tests', () => {
  const run: Pick<TestRun, 'succeeded'> = { succeeded: true };
  expect(run.succeeded).toBe(true);
});
