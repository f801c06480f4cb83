/**
 * Reconciles a run's exit code with its parsed results, the way a person reading CI does:
 * a non-zero exit with no failing test is reported as such (a crash, a failed hook, a
 * coverage threshold, a file that did not load), never as success. An exit code of 0 with
 * failing tests listed is reported too; the exit code keeps deciding `succeeded` there
 * (runners exit 0 for failures they expect: todo tests, xfail), while the comparison with
 * the baseline still counts every failing test. Pure.
 */
import type { TestRun } from './types.js';

export function reconcile(run: TestRun): TestRun {
  const failing = run.tests.filter((t) => t.status === 'failed').length;
  const failed = Math.max(failing, run.counts.failed);
  const exitOk = run.exitCode === 0 && !run.timedOut;
  let consistency: NonNullable<TestRun['consistency']>;
  if (run.tests.length === 0 && run.parsedFrom === 'none' && !run.structured) consistency = 'no-results';
  else if (exitOk && failed > 0) consistency = 'exit-zero-with-failing-tests';
  else if (!exitOk && failed === 0 && !(run.loadErrors?.length)) consistency = 'exit-nonzero-without-failing-test';
  else consistency = 'consistent';
  return { ...run, consistency, succeeded: exitOk };
}

/** One sentence for humans and the model; empty when the run is consistent. */
export function describeConsistency(run: TestRun): string {
  switch (run.consistency) {
    case 'exit-nonzero-without-failing-test':
      return run.timedOut
        ? 'The command timed out before every test reported a result.'
        : `The command exited with ${run.exitCode ?? 'no exit code'} but no test failed: a crash, a failing hook or setup, a coverage threshold or a configuration error. This is a failure.`;
    case 'exit-zero-with-failing-tests':
      return 'The command exited with 0 although tests are reported as failing (expected failures, todo tests, or a script that ignores the exit code); a test that passed before and fails now still blocks the fix.';
    case 'no-results':
      return run.succeeded ? '' : 'No individual test results could be read from the output; only the exit code is known.';
    default:
      return '';
  }
}
