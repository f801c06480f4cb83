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
 *   unless verbose), or while its file is reported passing whole (vitest's default reporter
 *   `✓ a.test.ts (17 tests)`, jest's `PASS a.test.js`).
 * - unseen: failed at baseline, not named now, its file not reported passing, and the run
 *   failed (for other tests): no evidence either way; the summary says what is missing.
 * - "no tests recognised in the new run" only when the new run names no test, counts no passing
 *   test in its own summary and reports no passing file.
 * - stillFailing: failed in both runs.
 * When neither run yielded tests, the decision rests on the exit codes alone.
 * - flaky: tests whose result differed between two runs of the same code (`flaky` of
 *   either run). A flaky failure is never newly failing and does not block: a run whose
 *   only failures are flaky is ok.
 * - preexisting (rule `allow`): the command still fails, but only on tests that were already
 *   failing before any edit (and files that already failed to load), none of which the task
 *   is about (named by it, or sharing a file with a test the change made pass), each with
 *   evidence that it is unrelated to the change (tolerance.ts: neither the runner's related
 *   selection nor the import graph connects its file to a changed file, and it fails exactly
 *   as before), while at least one failing test now passes and every target does.
 *   Such a run is ok, and the failures it leaves are listed as `preexisting`: they are not
 *   this change's job, and the report says they still fail.
 */
import type { TestCase, TestRun, TestStatus, Verdict } from './types.js';
import { judgeLoadError, judgeTolerance, type ToleranceDecision } from './tolerance.js';

/** How the gate treats tests that were failing before any edit. */
export interface GateRule {
  /** `block`: the command must succeed. `allow`: failures that predate the change may remain (see above). */
  preexisting: 'allow' | 'block';
  /** Baseline failures the task is about: they must pass, whatever `preexisting` says. */
  targets?: string[];
}

export const STRICT_GATE: GateRule = { preexisting: 'block' };

function exitLabel(run: TestRun): string {
  if (run.timedOut) return 'timeout';
  return run.exitCode === null ? 'killed' : String(run.exitCode);
}

export function compareRuns(baseline: TestRun, current: TestRun, rule: GateRule = STRICT_GATE): Verdict {
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
  // plain output that names a file's result and not its tests (vitest's default reporter, jest's PASS)
  const passedFiles = new Set(current.passedFiles ?? []);
  const unseen: string[] = [];
  for (const t of baseline.tests) {
    if (t.status !== 'failed') continue;
    const now = after.get(t.id);
    if (now === 'passed' || (now === undefined && (current.succeeded || filesOf(t).some((f) => passedFiles.has(f))))) nowPassing.push(t.id);
    else if (now === undefined) unseen.push(t.id);
  }

  const baselinePassing = baseline.tests.some((t) => t.status === 'passed');
  // the runner's own summary (or its passing files) counts tests it did not name: they ran
  const lostTests = baselinePassing && current.tests.length === 0 && current.counts.passed === 0 && passedFiles.size === 0;
  const onlyFlakyFailures =
    flaky.length > 0 &&
    stillFailing.length === 0 &&
    !current.timedOut &&
    !(current.loadErrors?.length) &&
    current.consistency !== 'exit-nonzero-without-failing-test';
  const tolerance = current.succeeded || rule.preexisting !== 'allow' ? [] : toleranceDecisions(baseline, current, stillFailing);
  const named = current.succeeded ? [] : taskFailures(baseline, current, rule, { nowPassing, stillFailing });
  const blocking = [...named, ...tolerance.filter((d) => !d.excused && !named.includes(d.id)).map((d) => d.id)];
  const preexisting = blocking.length ? null : onlyPreexistingFailures(baseline, current, rule, { newlyFailing, nowPassing, stillFailing, flaky });
  const ok = (current.succeeded || onlyFlakyFailures || preexisting !== null) && newlyFailing.length === 0 && !lostTests;

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
  if (!ok && unseen.length)
    summary += `; ${unseen.length} test${unseen.length === 1 ? '' : 's'} failing before ${unseen.length === 1 ? 'is' : 'are'} not named by the new run and ${unseen.length === 1 ? 'its file is' : 'their files are'} not reported passing (the output names only failures, and no structured report was had): result unknown`;
  if (flaky.length) summary += `; ${flaky.length} flaky (not blocking)`;
  if (ok && preexisting) summary += `; ${preexisting.length} already failing before any edit (not this change's job, not blocking)`;
  const verdict: Verdict = { ok, newlyFailing, nowPassing, stillFailing, summary };
  if (flaky.length) verdict.flaky = flaky;
  if (ok && preexisting) verdict.preexisting = preexisting;
  if (!ok && blocking.length) verdict.taskFailures = blocking;
  if (tolerance.length) verdict.tolerance = tolerance;
  if (unseen.length && !ok) verdict.unseen = unseen;
  return verdict;
}

/** The evidence for each still-failing test (and still-failing load error) of a run under rule `allow`. */
function toleranceDecisions(baseline: TestRun, current: TestRun, stillFailing: string[]): ToleranceDecision[] {
  const before = new Map(baseline.tests.map((t) => [t.id, t]));
  const after = new Map(current.tests.map((t) => [t.id, t]));
  const out = stillFailing.map((id) => judgeTolerance(id, before.get(id), after.get(id), current.links));
  const known = new Set(baseline.loadErrors ?? []);
  for (const f of current.loadErrors ?? []) if (known.has(f)) out.push(judgeLoadError(f, current.links));
  return out;
}

/**
 * Under rule `allow`, when none of the remaining failures is the task's business
 * (`taskFailures`, checked by the caller): the failures that remain, when every one of them
 * predates the change; otherwise null. Every failure must be named (a crash, a
 * timeout, a new file that fails to load or failures the parser could not name block).
 * A remaining failure is the task's business when the task names it (`targets`), or when it
 * shares a file with a test the change made pass (its test file or its first in-repo frame):
 * fixing one test of a file while another of the same file still fails is half a fix.
 * A failure whose file is unknown is never excused.
 */
function onlyPreexistingFailures(
  baseline: TestRun,
  current: TestRun,
  rule: GateRule,
  v: { newlyFailing: string[]; nowPassing: string[]; stillFailing: string[]; flaky: string[] },
): string[] | null {
  if (rule.preexisting !== 'allow' || current.succeeded || baseline.succeeded || current.timedOut || current.exitCode === null) return null;
  if (v.newlyFailing.length > 0 || v.nowPassing.length === 0) return null;
  if (current.consistency === 'exit-nonzero-without-failing-test' || current.consistency === 'no-results') return null;
  const knownLoadErrors = new Set(baseline.loadErrors ?? []);
  const loadErrors = current.loadErrors ?? [];
  if (loadErrors.some((f) => !knownLoadErrors.has(f))) return null;
  if (loadErrors.some((f) => !judgeLoadError(f, current.links).excused)) return null;
  const named = v.stillFailing.length + v.flaky.length;
  if (named === 0 && loadErrors.length === 0) return null;
  if (current.counts.failed > named) return null;
  return [...v.stillFailing, ...loadErrors.map((f) => `${f} (failed to load)`)];
}

/**
 * Still-failing tests the task is about (rule `allow`): named by the task (`targets`), or
 * sharing a file with a test the change made pass, or with no known file. They keep a run
 * from being verified, and the model is told so.
 */
export function taskFailures(
  baseline: TestRun,
  current: TestRun,
  rule: GateRule,
  v: { nowPassing: string[]; stillFailing: string[] },
): string[] {
  if (rule.preexisting !== 'allow') return [];
  const targets = new Set(rule.targets ?? []);
  const loci = new Map<string, Set<string>>();
  for (const t of [...baseline.tests, ...current.tests]) {
    const set = loci.get(t.id) ?? new Set<string>();
    for (const f of filesOf(t)) set.add(f);
    loci.set(t.id, set);
  }
  const fixedFiles = new Set(v.nowPassing.flatMap((id) => [...(loci.get(id) ?? [])]));
  const out = [...targets].filter((id) => !v.nowPassing.includes(id) && !v.stillFailing.includes(id));
  for (const id of v.stillFailing) {
    const files = [...(loci.get(id) ?? [])];
    if (targets.has(id) || files.length === 0 || files.some((f) => fixedFiles.has(f))) out.push(id);
  }
  return out;
}

/** The files a test is known by: its test file (from the runner, or the id's path prefix) and its first in-repo frame. */
function filesOf(t: TestCase): string[] {
  const out: string[] = [];
  const prefix = t.id.split(/ > |::/)[0];
  const file = t.file ?? (prefix !== t.id && /\.[A-Za-z0-9]+$/.test(prefix) ? prefix : undefined);
  if (file) out.push(file);
  const frame = t.frame?.match(/^(.+?)(?::\d+){1,2}$/)?.[1];
  if (frame) out.push(frame);
  return out;
}

/**
 * The baseline failures an issue is about: failing tests whose name (at least 6 characters,
 * as a whole word) or whose file (test file or first in-repo frame) the task text mentions. They must pass for the gate,
 * whatever the rule says about other pre-existing failures.
 */
export function taskTargets(baseline: TestRun, taskText: string): string[] {
  const text = taskText.toLowerCase();
  const mentions = (needle: string) => {
    const n = needle.toLowerCase().trim();
    if (n.length < 6) return false;
    let at = text.indexOf(n);
    while (at !== -1) {
      const before = text[at - 1] ?? ' ';
      const after = text[at + n.length] ?? ' ';
      if (!/[\w]/.test(before) && !/[\w]/.test(after)) return true;
      at = text.indexOf(n, at + 1);
    }
    return false;
  };
  const out: string[] = [];
  for (const t of baseline.tests) {
    if (t.status !== 'failed') continue;
    const parts = t.id.split(/ > |::/);
    const name = parts[parts.length - 1];
    const files = filesOf(t).flatMap((f) => [f, f.split('/').pop() ?? f]);
    if (mentions(name) || mentions(t.id) || files.some((f) => /\.[a-z]+$/i.test(f) && mentions(f))) out.push(t.id);
  }
  return out;
}

/** For the model: the failures that predate the change but block it, each with the evidence (empty when none). */
export function describeTaskFailures(verdict: Verdict): string {
  if (!verdict.taskFailures?.length) return '';
  const why = new Map((verdict.tolerance ?? []).map((d) => [d.id, d.evidence]));
  const lines = verdict.taskFailures.slice(0, 12).map((id) => `- ${id}: ${why.get(id) ?? 'blocked: the task names it, or it shares a file with a test your change fixed'}`);
  if (verdict.taskFailures.length > 12) lines.push(`- … and ${verdict.taskFailures.length - 12} more`);
  return [
    'These were failing before your change too, but nothing shows they are unrelated to it (a failure may stay only when nothing connects its test file to a file you changed and it fails exactly as before), so they must pass:',
    ...lines,
  ].join('\n');
}
