/** When the change adds no test, the existing tests that failed at baseline and pass now are the proof. */
import { proveFailToPass, type ProofDeps } from '../../src/verify/proof.js';
import type { TestRun } from '../../src/verify/types.js';
import { testRun } from '../../test-support/builders.js';

const run = (succeeded: boolean, tests: [string, 'passed' | 'failed'][]): TestRun => testRun(succeeded ? 0 : 1, tests, { durationMs: 10, succeeded, parsedFrom: 'node-test' });

// No test file changed: proveFailToPass answers before touching git or running anything.
const deps = (baselineRun: TestRun | null, finalRun: TestRun | null): ProofDeps =>
  ({ git: null, session: null, pristineTree: 't0', fixTree: 't1', changes: [{ path: 'src/cart.js', status: 'modified' }], finalRun, baselineRun }) as unknown as ProofDeps;

test('failing tests at baseline that pass with the fix prove it', async () => {
  const proof = await proveFailToPass(deps(run(false, [['a', 'passed'], ['b', 'failed']]), run(true, [['a', 'passed'], ['b', 'passed']])));
  expect(proof.status).toBe('proven');
  expect(proof.tests).toEqual([{ id: 'b', before: 'failed', after: 'passed' }]);
  expect(proof.detail).toContain('1 existing test(s) failed on the original code');
});

test('a passing baseline, or no per-test results, is no proof', async () => {
  expect((await proveFailToPass(deps(run(true, [['a', 'passed']]), run(true, [['a', 'passed']])))).status).toBe('no-test-changed');
  expect((await proveFailToPass(deps(run(false, []), run(true, [])))).status).toBe('no-test-changed');
  expect((await proveFailToPass(deps(null, run(true, [['a', 'passed']])))).status).toBe('no-test-changed');
});
