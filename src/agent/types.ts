/** What the agent loop reports: why it stopped, its attempts, its usage (agent/loop.ts). */
import type { TestProof, TestRun, Verdict } from '../verify/types.js';

export type Reason =
  | 'verified'
  | 'tests-still-failing'
  | 'budget-exhausted'
  | 'model-gave-up'
  | 'baseline-already-passes'
  | 'no-changes'
  | 'human-commits-on-branch'
  | 'push-rejected'
  | 'unauthorized'
  | 'not-applicable'
  | 'setup-failed'
  | 'model-error'
  | 'secret-in-change'
  | 'superseded'
  /** `/agent-fix stop`, or a newer run took the task over, seen at a checkpoint of the loop. */
  | 'stopped'
  | 'not-reproduced'
  /** The tests pass, but the change games them (guard/gaming/): never called a fix. */
  | 'games-the-tests'
  | 'internal-error';

export interface Attempt {
  iteration: number;
  summary: string;
  verdict: Verdict;
  changedFiles: string[];
  rolledBack: boolean;
  /**
   * The fail-to-pass proof of an attempt the gate accepted (loop.ts, made once): with a passing
   * baseline the attempt is accepted only when it is proven; the accepted attempt's proof is the report's.
   */
  proof?: TestProof;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  requests: number;
  /** The largest single request's prompt tokens (as the endpoint reported them); absent in reports of older versions. */
  peakPromptTokens?: number;
  /** The per-request input limit the run worked within (max-input-tokens, or the lower limit a 413 named); absent: none. */
  inputLimit?: number;
}

export interface LoopResult {
  reason: Reason;
  /** Model's summary of the accepted change (or the last attempt). */
  summary: string;
  iterations: number;
  attempts: Attempt[];
  final: TestRun | null;
  usage: TokenUsage;
}
