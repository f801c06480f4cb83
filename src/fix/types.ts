/** The outcome of one fix (fix.ts): everything the report renderers need, produced once at the end of a run. */
import type { FileChange } from '../ports/git.js';
import type { Task } from '../task/types.js';
import type { TestIntel, TestRun } from '../verify/types.js';
import type { Attempt, Reason, TokenUsage } from '../agent/types.js';
import type { DiagnosticsStats } from '../diagnostics/watch.js';
import type { GitPort } from '../ports/git.js';
import type { Shell, CommandResult } from '../ports/shell.js';
import type { ChatModel } from '../ports/llm.js';
import type { Settings } from '../settings/types.js';
import type { Redactor } from '../redact.js';
import type { LoopEvent } from '../agent/loop.js';
import type { SandboxProbe } from '../sandbox/sandbox.js';
import type { Wording } from '../settings/wording.js';
import type { ProgressSink } from './progress.js';

/** What the fix runs with: the ports and the run's surfaces; what differs by kind is the plan (plan.ts). */
export interface FixDeps {
  git: GitPort;
  shell: Shell;
  model: ChatModel;
  settings: Settings;
  redactor: Redactor;
  /** Environment the child processes derive from (filtered by childEnv). */
  parentEnv: NodeJS.ProcessEnv;
  log: (message: string) => void;
  emit?: (event: FixEvent) => void;
  scripted?: boolean;
  /** Network isolation to use (default: probed on this machine). */
  sandbox?: SandboxProbe;
  /** Where the run says what it is doing (phases, attempts, tool calls); absent: nowhere. */
  progress?: ProgressSink;
  /** How messages name settings and what was not published (default: the action's words). */
  wording?: Wording;
  /** The story's checkpoint inside the loop (a stop request, a newer run): why to stop now, or null (see LoopDeps.interrupt). */
  checkpoint?: (at: 'turn' | 'attempt') => Promise<string | null>;
}

/** What the transcript records of a fix: the loop's events and each repository command. */
export type FixEvent = LoopEvent | { type: 'command'; purpose: string; result: Omit<CommandResult, 'output'> & { outputTail: string } };

export interface FixResult {
  report: RunReport;
  /** Tree to publish (checkout + the verified fix) when status is 'fixed'. */
  tree: string | null;
  /** sha the fix is based on. */
  baseSha: string;
  /** The checkout as it was before the run (to put the working tree back). */
  pristineTree: string;
  /**
   * A run that stopped on its budget: its best attempt (the base plus the model's change of the
   * best state reached, as a tree) for `/agent-fix continue` to resume from; absent otherwise.
   */
  bestAttempt?: { tree: string };
}

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
