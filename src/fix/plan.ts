/**
 * What a kind asks of the fix, as a value (run/*.ts build it, fix.ts runs the phases over it):
 * where the change comes from, how the baseline is judged, the extra gate, the cost cap. A new
 * kind says what it needs here; the phases never learn which kind asked.
 */
import type { Reason } from '../agent/types.js';
import type { TestRun } from '../verify/types.js';
import type { FollowUpGate } from './follow-up-gate.js';

/** Where the change to verify comes from. */
export type ChangeSource =
  /** The model edits the checkout (an issue, a CI failure, a follow-up). */
  | { by: 'model'; from: 'checkout' }
  /**
   * The model starts from `tree`, not the checkout (run/rebase.ts: the merge with the base,
   * conflict markers in the conflicting files). The baseline is still the checkout's; the
   * published change is the start's files plus the model's edits.
   */
  | { by: 'model'; from: 'tree'; tree: string }
  /**
   * `/agent-fix continue`: the model resumes from an earlier run's best attempt, `tree` (the
   * checkout's commit plus the attempt), with `note` (what was tried) in its first message.
   */
  | { by: 'model'; from: 'attempt'; tree: string; note: string }
  /** A change made without the model (run/rebase.ts: the branch rebased or merged onto its base), verified as one attempt. */
  | { by: 'candidate'; tree: string; summary: string };

/** Accepts the baseline as a start (optionally naming the tests the task is about), or refuses it: the run ends as skipped. */
export type BaselinePolicy = (baseline: TestRun) => { ok: true; targets?: string[] | 'all' } | { ok: false; reason: Reason; detail: string };

export interface FixPlan {
  change: ChangeSource;
  /** CI repair: the baseline must reproduce the failure; absent: every baseline is a start. */
  acceptBaseline?: BaselinePolicy;
  /**
   * A follow-up on agent-fix's own verified pull request (fix/follow-up-gate.ts): on top of the
   * gate, the original fix's tests must hold; a passing baseline needs no fail-to-pass proof.
   */
  followUp?: FollowUpGate;
  /** The cost cap of this run (`continue budget=$N`); absent: the settings' budget. */
  maxCostUsd?: number;
}

/** The plan of a first fix: the model edits the checkout, every baseline is a start, the plain gate. */
export const FIX_FROM_CHECKOUT: FixPlan = { change: { by: 'model', from: 'checkout' } };

/** The change is the model's own edits of the checkout (not a rebase's candidate or merge, which carry the base's changes). */
export function madeByModel(plan: FixPlan): boolean {
  return plan.change.by === 'model' && plan.change.from !== 'tree';
}

/** Why this plan asks no fail-to-pass proof (a verified pull request's own gate applies), or undefined. */
export function proofNotAsked(plan: FixPlan): string | undefined {
  if (plan.change.by === 'candidate') return 'a rebase or merge of a verified pull request: the tests that passed on its head must still pass on the updated branch';
  if (plan.followUp) return "a follow-up on a verified pull request: nothing that passed on its head may fail, and the original fix's tests must still pass";
  return undefined;
}
