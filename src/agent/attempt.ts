/**
 * One attempt judged: the model called finish, the change is checked (verify/judge.ts) and the
 * outcome is a value (the attempt's record, the message for the model, whether the loop stops,
 * the new best state). Rolls the working tree back when the attempt is not kept.
 */
import type { Attempt, Reason } from './types.js';
import type { TestRun, Verdict } from '../verify/types.js';
import { describeTaskFailures } from '../verify/compare.js';
import type { AttemptJudge, Judgement } from '../verify/judge.js';
import type { LoopDeps, LoopEvent } from './loop-types.js';

/** The best state so far: its tree and its score (fewer failures is better). */
export interface Best {
  tree: string;
  score: number;
}

/** What one verified attempt leads to (see verifyAttempt). */
export interface AttemptOutcome {
  attempt: Attempt;
  /** For the model. */
  message: string;
  /** Set when the loop ends with this attempt. */
  stop?: Reason;
  tree: string;
  /** Set when the attempt ran the tests. */
  final?: TestRun;
  /** Set when the attempt is the new best state. */
  best?: Best;
  stopDetail?: string;
}

export function score(run: TestRun): number {
  if (run.succeeded) return 0;
  return Math.max(1, run.counts.failed) + (run.timedOut ? 1000 : 0);
}

/** What verifying an attempt reads of the loop: its dependencies, events, judge, feedback and the files the model touched. */
export interface AttemptContext {
  readonly deps: LoopDeps;
  readonly emit: (e: LoopEvent) => void;
  readonly judge: AttemptJudge;
  readonly feedback: (run: TestRun, verdict?: Verdict) => string;
  readonly touched: readonly string[];
}

/**
 * Verifies one attempt (the model called finish) and says what follows, as a value: the
 * attempt's record, the message for the model, whether the loop stops, and the new best
 * state, last test run or stop detail when they change. Reads the loop's state, never writes it
 * (LoopState.attempted does, with this value).
 */
export async function verifyAttempt(run: AttemptContext, iteration: number, lastSummary: string, best: Best): Promise<AttemptOutcome> {
  const { deps, emit } = run;
  const { git, limits } = deps;
  const tree = await git.snapshot();
  const changes = (await git.changes(deps.baselineTree, tree)).filter((c) => run.touched.includes(c.path) || (c.oldPath !== undefined && run.touched.includes(c.oldPath)));
  const changedFiles = changes.map((c) => c.path);
  const outOfAttempts = iteration >= limits.maxIterations;
  const record = (verdict: Verdict, extra: Partial<Attempt> = {}): Attempt => ({ iteration, summary: lastSummary, verdict, changedFiles, rolledBack: false, ...extra });
  if (changes.length === 0) {
    const attempt = record(noVerdict('no changes'));
    if (outOfAttempts) return { attempt, message: 'No changes.', stop: 'no-changes', tree: best.tree };
    return { attempt, message: 'You have not changed any file yet, so there is nothing to verify. Edit the code, then call finish.', tree };
  }
  // Every check of the attempt, in one place (verify/judge.ts); the loop keeps its own state.
  const j: Judgement = await run.judge({ iteration, tree, changes });
  const final = j.run ? { final: j.run } : {};
  if (j.outcome === 'accepted') return { ...final, attempt: record(j.verdict, j.proof ? { proof: j.proof } : {}), message: j.message, stop: 'verified', tree };
  if (j.outcome === 'refused') {
    const verdict = j.verdict ? { ...j.verdict, ok: false, summary: `${j.verdict.summary}; ${j.reason}` } : noVerdict(j.reason);
    if (j.stop) {
      await git.restore(best.tree);
      return { ...final, attempt: record(verdict, { rolledBack: true }), message: j.message, stop: j.stop, tree: best.tree, ...(j.stopDetail ? { stopDetail: j.stopDetail } : {}) };
    }
    const attempt = record(verdict, j.proof ? { proof: j.proof } : {});
    // A refused attempt: the message goes back to the model and the tree stays; out of attempts, the loop ends at the best state.
    if (!outOfAttempts) return { ...final, attempt, message: j.message, tree };
    await git.restore(best.tree);
    return { ...final, attempt, message: j.message, stop: 'tests-still-failing', tree: best.tree };
  }
  const { run: tests, verdict } = j;
  const s = score(tests);
  let newBest: Best | undefined;
  let note: string;
  if (s < best.score) {
    newBest = { tree, score: s };
    note = 'This attempt is the best so far (fewer failures than before), so your edits are kept; continue from here.';
  } else {
    await git.restore(best.tree);
    emit({ type: 'rollback', iteration, toTree: best.tree, reason: 'attempt did not improve on the best state' });
    note = 'This attempt did not improve on the best state so far, so the working tree was ROLLED BACK to it: re-read files before editing them again.';
  }
  const attempt = record(verdict, { rolledBack: !newBest });
  const kept = { ...final, attempt, ...(newBest ? { best: newBest } : {}) };
  if (outOfAttempts) return { ...kept, message: `Verification failed: ${verdict.summary}`, stop: 'tests-still-failing', tree: (newBest ?? best).tree };
  const msg = [
    `Verification FAILED (attempt ${iteration} of ${limits.maxIterations}): ${verdict.summary}`,
    verdict.newlyFailing.length ? `Tests that passed before and fail now: ${verdict.newlyFailing.join(', ')}` : '',
    verdict.stillFailing.length ? `Still failing: ${verdict.stillFailing.join(', ')}` : '',
    describeTaskFailures(verdict),
    run.feedback(tests, verdict),
    note,
  ]
    .filter(Boolean)
    .join('\n\n');
  return { ...kept, message: msg, tree };
}

export const noVerdict = (summary: string): Verdict => ({ ok: false, newlyFailing: [], nowPassing: [], stillFailing: [], summary });

export function parseSummary(raw: string): string {
  try {
    const v = JSON.parse(raw) as { summary?: unknown };
    return typeof v.summary === 'string' ? v.summary : '';
  } catch {
    return raw.slice(0, 2000);
  }
}
