/** The agent loop's contract: what it needs (LoopDeps), what it emits (LoopEvent), what it returns (LoopOutput). */
import type { ChatMessage, ChatModel, ModelReply } from '../ports/llm.js';
import type { Attempt, LoopResult } from './types.js';
import type { JudgedRun, TestRun, Verdict } from '../verify/types.js';
import type { ToolBox } from './tools.js';
import type { GitPort } from '../ports/git.js';
import type { RepoContext } from '../context/index.js';
import type { GateRule } from '../verify/compare.js';
import type { AttemptJudge } from '../verify/judge.js';
import type { DiagnosticsStats, DiagnosticsWatcher } from '../diagnostics/watch.js';

export type LoopEvent =
  | { type: 'model-request'; turn: number; newMessages: ChatMessage[] }
  | { type: 'model-reply'; turn: number; reply: ModelReply }
  | { type: 'tool'; turn: number; name: string; arguments: string; ok: boolean; display: string; result: string }
  | { type: 'test-run'; purpose: 'run_tests' | 'verify'; iteration: number; run: TestRun; verdict?: Verdict }
  | { type: 'rollback'; iteration: number; toTree: string; reason: string }
  /** The model called finish: the harness verifies attempt `iteration`. */
  | { type: 'verifying'; iteration: number }
  /** The verdict on an attempt, as recorded. */
  | { type: 'attempt'; attempt: Attempt }
  /** The repository's own tsc/ESLint after an edit batch: how many new errors, how many were shown to the model. */
  | { type: 'diagnostics'; turn: number; ran: string[]; found: number; shown: number; ms: number; text: string }
  | { type: 'note'; message: string };

export interface LoopLimits {
  maxIterations: number;
  maxChangedFiles: number;
  maxChangedLines: number;
  /** Model requests in total (a guard against a model that never calls finish). */
  maxTurns: number;
  /** Prompt+completion tokens in total; 0 = unlimited. */
  maxTokens: number;
}

export interface LoopDeps {
  model: ChatModel;
  tools: ToolBox;
  git: GitPort;
  /**
   * Runs the repository's test command (the harness's own run) and returns it with the gate's
   * verdict against the baseline (verify/session.ts judges once; the loop never judges again).
   */
  runTests: () => Promise<JudgedRun>;
  baseline: TestRun;
  baselineTree: string;
  /**
   * The attempt judge (verify/judge.ts: guard, tests, skipped tests, original tests with changed
   * expectations, follow-up gate, proof, test edits alone, a passing baseline's proof), built by
   * fix.ts. Absent: the judge of the tests alone (`runTests`, the size limits and the budget).
   */
  judge?: AttemptJudge;
  /** How the gate treats tests failing before any edit (default: the command must succeed); for the first message. */
  gate?: GateRule;
  limits: LoopLimits;
  /** Applied to every message before it leaves the process. */
  redact: (text: string) => string;
  emit?: (e: LoopEvent) => void;
  /** Failure context for the model (default: failureFeedback). */
  feedback?: (run: TestRun, verdict?: Verdict) => string;
  /** Token / cost / wall-time caps (safety/budget.ts), checked before every model request and test run. */
  budget?: LoopBudget;
  /** Repository map and localization for the first message, fitted to `contextTokens` (whole first request). */
  context?: RepoContext;
  contextTokens?: number;
  /** The conversation is compacted once it passes this many tokens (default: twice the context budget, at least 12,000). */
  compactTokens?: number;
  /**
   * The endpoint's input limit per request (GitHub Models' free use: 8,000): before every request
   * the conversation is fitted to it (system prompt, tool schemas and every message counted), tool
   * results are sized to the room left, and a 413 that names a lower limit is learnt and the turn
   * retried. Absent: no per-request limit (only `compactTokens` applies).
   */
  maxInputTokens?: number;
  /** The reply's cap per request (`max_tokens`, sent by the adapter), for the model's rules; 0 or absent: the endpoint's default. */
  maxOutputTokens?: number;
  /** Waits out a short 429 (default: a timer); the clock of a quota's reset time (default Date.now). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /**
   * The repository's own tsc/ESLint (src/diagnostics): after each batch of edits, the errors the edits
   * introduced are appended to the last edit's result; a run_tests or finish in the same batch as
   * edits that introduced errors is answered with them instead of running the tests.
   */
  diagnostics?: Pick<DiagnosticsWatcher, 'warmUp' | 'check' | 'stats'>;
  /**
   * The story's checkpoint: called before every model request (`turn`, cheap: the caller rate-limits
   * its API reads) and at each attempt (`attempt`: read while the attempt's tests run, decided
   * before its outcome is used); a sentence ends the loop with reason `stopped` (a `/agent-fix
   * stop`, a newer run that took the task over) and the attempt counts for nothing.
   */
  interrupt?: (at: 'turn' | 'attempt') => Promise<string | null>;
  /** Resume from an earlier best attempt instead of the untouched code. */
  start?: LoopStart;
  /**
   * Repairs of what an endpoint refused (message order, tool-call ids, arguments that are not JSON,
   * a failed generation), the reading of silent truncations (model-caller.ts) and of tool calls
   * written as text (conversation.ts); default on. Off
   * shows what a run does without them.
   */
  recover?: boolean;
}

/** Where a resumed run starts (`/agent-fix continue`): an earlier best attempt, already in the working tree. */
export interface LoopStart {
  /** Snapshot of the working tree with the attempt applied: the best state so far. */
  tree: string;
  /** The harness's test run on it. */
  run: TestRun;
  /** The files the attempt changed (they belong to the change like files the model writes). */
  touched: string[];
  /** For the model, after the task: what was tried and what still fails. */
  note: string;
}

export interface LoopBudget {
  record(usage: { promptTokens: number; completionTokens: number }): void;
  exceeded(): { kind: string; message: string } | null;
  /** Milliseconds left of the wall-time budget (a 429's wait must fit in it); absent or Infinity: no cap. */
  remainingMs?(): number;
}

export interface LoopOutput extends LoopResult {
  /** The tree of the accepted fix (reason 'verified') or of the best attempt. */
  tree: string;
  /** Files the model wrote (repo-relative), in order of first touch. */
  touched: string[];
  /** Why the loop stopped early, for reasons 'budget-exhausted' and 'model-error' (one sentence, redacted). */
  stopDetail?: string;
  /** Type and lint checks after edits, when the repository has tsc or ESLint. */
  diagnostics?: DiagnosticsStats;
}

/** The best state so far: its tree and its score (fewer failures is better). */
