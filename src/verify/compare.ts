/**
 * The gate: compares the test run after the model's change with the baseline run taken
 * before it. Pure.
 *
 * - ok: the current command succeeded (exit 0, no timeout) and no test that did not fail
 *   at baseline fails now. When the baseline recognised passing tests but the current run
 *   recognises none at all, it is not ok either (the suite stopped running, or the test
 *   command was emptied).
 * - newlyFailing: failing now, and passed, was skipped or did not exist at baseline.
 * - nowPassing: failed at baseline and passes now; also failed at baseline and no longer
 *   listed while the current run succeeded (runners such as jest or go list only failures
 *   unless verbose).
 * - stillFailing: failed in both runs.
 * When neither run yielded tests, the decision rests on the exit codes alone.
 * - flaky: tests whose result differed between two runs of the same code (`flaky` of
 *   either run). A flaky failure is never newly failing and does not block: a run whose
 *   only failures are flaky is ok.
 */
import type { TestRun, TestStatus, Verdict } from '../types.js';

function exitLabel(run: TestRun): string {
  if (run.timedOut) return 'timeout';
  return run.exitCode === null ? 'killed' : String(run.exitCode);
}

export function compareRuns(baseline: TestRun, current: TestRun): Verdict {
  const before = new Map<string, TestStatus>(baseline.tests.map((t) => [t.id, t.status]));
  const after = new Map<string, TestStatus>(current.tests.map((t) => [t.id, t.status]));

  const newlyFailing: string[] = [];
  const nowPassing: string[] = [];
  const stillFailing: string[] = [];
  const flakySet = new Set([...(baseline.flaky ?? []), ...(current.flaky ?? [])]);
  const flaky: string[] = [];
  for (const [id, status] of after) {
    if (status !== 'failed') continue;
    if (flakySet.has(id)) flaky.push(id);
    else if (before.get(id) === 'failed') stillFailing.push(id);
    else newlyFailing.push(id);
  }
  for (const [id, status] of before) {
    if (status !== 'failed') continue;
    const now = after.get(id);
    if (now === 'passed' || (now === undefined && current.succeeded)) nowPassing.push(id);
  }

  const baselinePassing = baseline.tests.some((t) => t.status === 'passed');
  const lostTests = baselinePassing && current.tests.length === 0;
  const onlyFlakyFailures =
    flaky.length > 0 &&
    stillFailing.length === 0 &&
    !current.timedOut &&
    !(current.loadErrors?.length) &&
    current.consistency !== 'exit-nonzero-without-failing-test';
  const ok = (current.succeeded || onlyFlakyFailures) && newlyFailing.length === 0 && !lostTests;

  const parsedAny = baseline.tests.length > 0 || current.tests.length > 0 || baseline.parsedFrom !== 'none' || current.parsedFrom !== 'none';
  const parts: string[] = [];
  if (parsedAny) {
    parts.push(
      `${baseline.counts.passed} passing → ${current.counts.passed} passing, ` +
        `${baseline.counts.failed} failing → ${current.counts.failed} failing`,
    );
  } else {
    parts.push('no individual tests recognised');
  }
  let summary = `${parts.join('')}; exit ${exitLabel(baseline)} → ${exitLabel(current)}`;
  if (newlyFailing.length) summary += `; ${newlyFailing.length} newly failing`;
  if (lostTests) summary += '; no tests recognised in the new run';
  if (flaky.length) summary += `; ${flaky.length} flaky (not blocking)`;
  const verdict: Verdict = { ok, newlyFailing, nowPassing, stillFailing, summary };
  if (flaky.length) verdict.flaky = flaky;
  return verdict;
}
