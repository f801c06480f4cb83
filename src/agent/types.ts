/** What the agent loop reports: why it stopped, its attempts, its usage (agent/loop.ts). */
import type { TestRun, Verdict } from '../verify/types.js';

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
  | 'internal-error';

export interface Attempt {
  iteration: number;
  summary: string;
  verdict: Verdict;
  changedFiles: string[];
  rolledBack: boolean;
  /** When the baseline passed: the test command run on the original code plus only the test changes. */
  proof?: FailToPassProof;
}

/** Evidence that the change fixes something the tests can see although they passed before. */
export interface FailToPassProof {
  testFiles: string[];
  /** The run with the test changes on the original code: it must fail. */
  withoutFix: TestRun;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  requests: number;
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
