/** The outcome of one fix (fix.ts): everything the report renderers need, produced once at the end of a run. */
import type { FileChange } from '../ports/git.js';
import type { Task } from '../task/types.js';
import type { TestIntel, TestRun } from '../verify/types.js';
import type { Attempt, Reason, TokenUsage } from '../agent/types.js';
import type { DiagnosticsStats } from '../diagnostics/watch.js';

export type Outcome = 'fixed' | 'not-fixed' | 'skipped' | 'error';

/** Everything the report renderers need; produced once at the end of a run. */
export interface RunReport {
  status: Outcome;
  reason: Reason;
  /** Human explanation of the reason, one or two sentences. */
  detail: string;
  task: Task;
  model: string;
  scripted?: boolean;
  setupCommand: string | null;
  testCommand: string | null;
  baseline: TestRun | null;
  final: TestRun | null;
  summary: string;
  iterations: number;
  maxIterations: number;
  attempts: Attempt[];
  changes: FileChange[];
  diff: string;
  usage: TokenUsage;
  durationMs: number;
  branch?: string;
  /** The commit at the tip of `branch` after delivery. */
  headSha?: string;
  /** What delivery did to the pull request. */
  prOperation?: 'created' | 'updated';
  prNumber?: number;
  prUrl?: string;
  runUrl?: string;
  /** Test intelligence: runner, commands run, the fail-to-pass proof (the accepted attempt's), guard refusals. */
  tests?: TestIntel;
  /** Type and lint checks after the model's edits (the repository's own tsc/ESLint): how many ran, how many new errors were fed back. */
  diagnostics?: DiagnosticsStats;
  /** Safety facts for the report: which policy applied, how commands were isolated, what the budget was. */
  safety?: SafetyFacts;
  /** A run stopped on its budget: where its best attempt is kept for `/agent-fix continue` (run/continue.ts). */
  keptAttempt?: { branch: string; baseSha: string };
}

export interface SafetyFacts {
  policy: string;
  /** One line per command kind: e.g. "tests: no network (unshare)". */
  isolation: string[];
  /** e.g. "tokens 1234/2000000, cost ~$0.01/$5.00, wall 1 min/60 min". */
  budget: string;
  /** Set when the run stopped on a budget: which one. */
  budgetStop?: string;
  costUsd?: number | null;
}
