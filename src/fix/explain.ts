/**
 * The fix's last phase: what the loop's outcome means for the report, as a value (status, reason,
 * the detail sentence, whether the tree is published or kept for `/agent-fix continue`). Pure.
 */
import type { Reason } from '../agent/types.js';
import type { LoopOutput } from '../agent/loop.js';
import type { RunReport } from './types.js';
import type { GamingFinding, TestProof, TestRun } from '../verify/types.js';
import { gamingKinds } from '../guard/gaming/index.js';
import { requiredOriginal, type FollowUpGate } from './follow-up-gate.js';

export interface Explained {
  status: RunReport['status'];
  reason: Reason;
  detail: string;
  /** The verified tree is the one to publish. */
  publish?: true;
  /** The best attempt is kept (a budget stop), when the change is not empty. */
  keep?: true;
}

export interface ExplainFacts {
  testCommand: string;
  baseline: TestRun;
  /** Files in the publishable change. */
  changes: number;
  /** A change verified without the model (a rebase or merge). */
  candidate: boolean;
  followUp?: FollowUpGate;
  /** The accepted attempt's proof. */
  proof?: TestProof;
  /** Existing expectations the accepted change changed (verify/expectation.ts). */
  changedExpectations?: number;
  /** "no pull request was opened" or the CLI's words. */
  nothingPublished: string;
  /** Why a proof's test edits alone refuse the change, or null (verify/intel.ts). */
  testEditsAlone: (proof: TestProof) => string | null;
  /** What in the published change games the tests (guard/gaming/): the change is never called fixed. */
  gaming?: GamingFinding[];
}

export function explainOutcome(loop: Pick<LoopOutput, 'reason' | 'attempts' | 'iterations' | 'stopDetail' | 'usage'>, f: ExplainFacts): Explained {
  const nothing = f.nothingPublished;
  if (loop.reason === 'verified' && f.changes === 0) {
    return { status: 'not-fixed', reason: 'no-changes', detail: 'Verification passed but no file differs from the checkout; nothing to publish.' };
  }
  const last = loop.attempts[loop.attempts.length - 1];
  switch (loop.reason) {
    case 'verified': {
      if (f.gaming?.length) {
        return { status: 'not-fixed', reason: 'games-the-tests', detail: `The tests pass, but the change games them instead of fixing the code (${gamingKinds(f.gaming)}), so it is not called a fix: the pull request is a draft for a human to judge.`, publish: true };
      }
      const changed = f.changedExpectations ? ` The fix changes ${f.changedExpectations} existing test expectation(s), each proven by the tests and listed for review.` : '';
      return { status: 'fixed', reason: 'verified', detail: `${verifiedDetail(f, last?.verdict)}${changed}`, publish: true };
    }
    case 'tests-still-failing': {
      // The last attempt passed the gate, but its test edits alone made the failing tests pass.
      const alone = last?.proof ? f.testEditsAlone(last.proof) : null;
      if (alone) return { status: 'not-fixed', reason: loop.reason, detail: `The fail-to-pass proof refused the change; ${nothing}.\n${alone}` };
      return { status: 'not-fixed', reason: loop.reason, detail: `No attempt passed verification in ${loop.iterations} iteration(s); ${nothing}.` };
    }
    case 'budget-exhausted':
      // The best state reached is kept for `/agent-fix continue` (the caller decides where).
      return { status: 'not-fixed', reason: loop.reason, detail: `Stopped because ${loop.stopDetail ?? 'the budget ran out'}, after ${loop.usage.requests} model request(s) and ${loop.iterations} attempt(s), without a verified fix; ${nothing}. The report below is partial.`, keep: true };
    case 'model-error':
      return { status: 'not-fixed', reason: loop.reason, detail: `Stopped because the model could not be reached or answered with an error (after retries): ${loop.stopDetail ?? 'unknown error'}. No verified fix was found before that; ${nothing}.` };
    case 'model-gave-up':
      return { status: 'not-fixed', reason: loop.reason, detail: `The model stopped calling tools without a verified fix; ${nothing}.` };
    case 'no-changes':
      return { status: 'not-fixed', reason: loop.reason, detail: `The model made no change; ${nothing}.` };
    case 'stopped':
      return { status: 'not-fixed', reason: loop.reason, detail: `Stopped because ${loop.stopDetail ?? 'the run was stopped'}, after ${loop.iterations} attempt(s), without a verified fix; ${nothing}.` };
    default:
      return { status: 'not-fixed', reason: loop.reason, detail: `Stopped: ${loop.reason}.` };
  }
}

function verifiedDetail(f: ExplainFacts, verdict: LoopOutput['attempts'][number]['verdict'] | undefined): string {
  const cmd = `\`${f.testCommand}\``;
  if (f.candidate) {
    const held = f.followUp ? requiredOriginal(f.baseline, f.followUp).length : 0;
    return `The updated branch was verified: the test command ${cmd} ran on the pull request's head (before) and on the updated branch (after), and nothing that passed before fails${held ? `; the ${held} test(s) of the original fix are present and pass` : ''}.`;
  }
  if (f.followUp) return followUpDetail(f.testCommand, f.baseline, f.followUp);
  if (f.baseline.succeeded && f.proof?.withoutFix) {
    const extra = f.proof.notEvidence?.length ? ` Not counted as evidence: ${f.proof.notEvidence.length} new test(s) that assert nothing or pass on the original code too (${f.proof.notEvidence.slice(0, 3).join('; ')}${f.proof.notEvidence.length > 3 ? '; …' : ''}).` : '';
    return `The test command ${cmd} passed before any edit, so the change proves itself with a test: with only ${f.proof.testFiles.map((p) => `\`${p}\``).join(', ')} applied to the original code the command fails (${failing(f.proof.withoutFix)}), and with the fix it passes.${extra}`;
  }
  if (verdict?.preexisting?.length) {
    return `The test command ${cmd} still fails, but only on ${verdict.preexisting.length} test(s) that were already failing before any edit, each with evidence that it is unrelated to the change (listed below with that evidence). The change makes ${verdict.nowPassing.length} failing test(s) pass, and nothing that passed before fails.`;
  }
  return `The test command ${cmd} failed before and passes now, and nothing that passed before fails.`;
}

/** What a verified follow-up showed, in one or two sentences. */
function followUpDetail(testCommand: string, baseline: TestRun, gate: FollowUpGate): string {
  const held = requiredOriginal(baseline, gate);
  const before = baseline.succeeded ? "passed on the pull request's head before the follow-up and passes after it" : "failed on the pull request's head before the follow-up and passes now";
  const original = held.length ? `, and the ${held.length} test(s) of the original fix (${gate.source}) are present and pass` : '';
  return `The test command \`${testCommand}\` ${before}; nothing that passed before fails${original}.${gate.wantsTest ? ' The request asked for a test: a new or changed test passes.' : ''}`;
}

/** How a run failed, in a few words: `2 failing`, or its exit when no test was counted. */
function failing(run: TestRun): string {
  if (run.counts.failed > 0) return `${run.counts.failed} failing`;
  return run.timedOut ? 'timed out' : `exit ${run.exitCode ?? 'none'}`;
}
