/** Domain types shared by the modules of the story (see README, Architecture). */
import type { FileChange } from './ports/git.js';

// ---------------------------------------------------------------- settings
export interface Settings {
  githubToken: string;
  apiKey: string;
  baseUrl: string;
  model: string;
  /** null: detect from the repository. */
  testCommand: string | null;
  setupCommand: string | null;
  label: string;
  maxIterations: number;
  maxChangedFiles: number;
  maxChangedLines: number;
  draft: boolean;
  /** Timeout of one setup or test command. */
  commandTimeoutMs: number;
  /** Glob patterns the model may never edit (always includes .github/workflows/**). */
  protectedPaths: string[];
  /** Test intelligence (optional: defaults apply when absent). */
  /** Token budget of the failure context given to the model (default 3,000). */
  feedbackTokens?: number;
  /** Run the tests related to the changed files first inside the loop (default true). */
  relatedTestsFirst?: boolean;
  /** Tests failing before any edit, which the task is not about: `allow` (default) lets them still fail at the gate, `block` requires the command to succeed. */
  preexistingFailures?: 'allow' | 'block';
  /** Test-integrity categories a maintainer allows when the issue explicitly asks (default none). */
  testIntegrityAllow?: string[];
  /** CI repair: names of the workflows whose failed runs count (empty or absent: all). */
  workflows?: string[];
  /** Safety settings (see docs/security.md); absent in older callers: no budget beyond maxIterations. */
  budget?: BudgetLimits;
  /** When non-empty, the only globs the model may change (policy paths.allowed). */
  allowedPaths?: string[];
  sandbox?: SandboxSettings;
  /** Which policy applied, for the report. */
  policySource?: string;
}

/** Hard caps of one run; 0 means no cap. */
export interface BudgetLimits {
  maxTokens: number;
  maxCostUsd: number;
  /** Wall time of the whole run from its start. */
  maxWallMs: number;
  /** Model name -> USD per million tokens, overriding the built-in table. */
  prices: Record<string, { input: number; output: number }>;
}

export interface SandboxSettings {
  setupNetwork: boolean;
  testNetwork: boolean;
  requireIsolation: boolean;
  /** Address-space limit per command in MiB; 0: none. */
  memoryMb: number;
}

// ---------------------------------------------------------------- triggers
export type Trigger =
  | {
      kind: 'issue';
      via: 'label' | 'comment' | 'dispatch';
      issueNumber: number;
      actor: string;
      extraInstructions: string;
      triggeredAt: string;
      /** The issue body as the webhook payload carried it at trigger time (absent for dispatch). */
      issueBodyAtTrigger?: string;
    }
  | CiTrigger
  | { kind: 'skip'; reason: string };

/** A failed `workflow_run` to repair (see src/ci/). Parsed from the event payload; re-checked against the API. */
export interface CiTrigger {
  kind: 'ci';
  runId: number;
  runAttempt: number;
  workflowName: string;
  workflowId: number | null;
  /** Commit the run tested: the fix starts from it. */
  headSha: string;
  /** Branch the run tested: the fix PR targets it. */
  headBranch: string;
  /** Event that started the run (push, pull_request, ...). */
  event: string;
  /** Who triggered the run (re-runs: who re-ran it); must have write permission. */
  actor: string;
  runUrl: string;
  runNumber: number | null;
  /** Same-repository pull requests the run belongs to. */
  pullRequests: { number: number; headRef: string; baseRef: string }[];
  createdAt: string;
  /** Started by hand (workflow_dispatch with a `run-id`): the run's details are read from the API first. */
  dispatched?: boolean;
}

// ---------------------------------------------------------------- task
export interface Task {
  /** Stable identity of the task: `issue-42`. Names the branch and the comment marker. */
  key: string;
  title: string;
  /** Sanitized goal text for the model (untrusted text already cleaned). */
  goal: string;
  issueNumber?: number;
  issueUrl?: string;
  /** CI repair: the failed run this task repairs (src/ci/context.ts). */
  ci?: import('./ci/context.js').CiFailure;
}

// ---------------------------------------------------------------- verification
export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface TestCase {
  /** Stable id: `file > suite > name` or the runner's own full name. */
  id: string;
  status: TestStatus;
  message?: string;
  durationMs?: number;
  /** Repo-relative test file, when the runner reports it. */
  file?: string;
  /** First stack frame inside the repository (`src/a.js:12:5`), when known. */
  frame?: string;
  /** Longer failure text (assertion diff), capped; `message` is its one-line form. */
  details?: string;
}

export type ParsedFrom = 'jest' | 'vitest' | 'node-test' | 'tap' | 'mocha' | 'pytest' | 'go' | 'cargo' | 'none';

export interface TestRun {
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  /** Exit code 0, not timed out. */
  succeeded: boolean;
  tests: TestCase[];
  counts: { passed: number; failed: number; skipped: number };
  parsedFrom: ParsedFrom;
  /** Redacted, capped tail of the output for humans and the model. */
  outputTail: string;
  /** Test intelligence (src/verify/): set when known. */
  /** The command actually executed (with reporter flags or a related-tests selection). */
  executed?: string;
  /** Results came from a machine-readable report (JSON, JUnit), not from the plain output. */
  structured?: boolean;
  /** Test files or packages that failed to load (syntax error, import error, build failure). */
  loadErrors?: string[];
  /** What connects the test files still failing in this run to the change (verify/tolerance.ts), gathered by the session. */
  links?: import('./verify/tolerance.js').TestLinks;
  /** Exit code reconciled with the parsed results (see verify/reconcile.ts). */
  consistency?: 'consistent' | 'exit-nonzero-without-failing-test' | 'exit-zero-with-failing-tests' | 'no-results';
  /** `full` suite or only the tests `related` to the changed files. */
  scope?: 'full' | 'related';
  /** Tests whose result differed between two runs of the same code. */
  flaky?: string[];
}

export interface Verdict {
  /** The command succeeded and nothing that passed at baseline fails now. */
  ok: boolean;
  newlyFailing: string[];
  nowPassing: string[];
  stillFailing: string[];
  /** Failing now, but their result differs between two runs of the same code: they do not block. */
  flaky?: string[];
  /** Ok although these still fail: they were failing before any edit and the task is not about them (gate rule `allow`). */
  preexisting?: string[];
  /** Not ok, and these tests the task is about still fail (gate rule `allow`): named by the task, or in a file the change made pass tests of. */
  taskFailures?: string[];
  /** Rule `allow`: for each test still failing since the baseline, the evidence that excused or blocked it. */
  tolerance?: import('./verify/tolerance.js').ToleranceDecision[];
  /** One line for humans. */
  summary: string;
}

/** What the harness learned about the tests of one run, for the report (src/verify/). */
export interface TestIntel {
  /** jest, vitest, mocha, node-test, pytest, go, cargo, make, unknown. */
  runner: string;
  /** Why these commands, when they were detected. */
  detection?: string;
  /** Every test command the harness ran, in order. */
  commands: { purpose: string; command: string; exitCode: number | null; timedOut: boolean; durationMs: number; counts: { passed: number; failed: number; skipped: number } }[];
  proof?: TestProof;
  /** Attempts refused by the test-integrity guard (their reasons). */
  refusals: string[];
  /** The last original-test gate run (verify/original.ts): only when the change touched test-ish files. */
  original?: import('./verify/original.js').OriginalTestsResult & { counts: { passed: number; failed: number; skipped: number }; exitCode: number | null };
  /** Hunks of the published change that only add or change comments or whitespace (verify/comments.ts). */
  commentOnly?: import('./verify/comments.js').CommentHunk[];
}

export interface TestProof {
  status: 'proven' | 'not-proven' | 'no-test-changed' | 'not-run';
  detail: string;
  testFiles: string[];
  tests: { id: string; before: TestStatus | 'missing'; after: TestStatus | 'missing' }[];
  /** Tests that failed before any edit and pass on the original code with only the change's test edits applied. */
  passingOnOriginal?: string[];
}

// ---------------------------------------------------------------- the loop
export type Outcome = 'fixed' | 'not-fixed' | 'skipped' | 'error';

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
  /** Set when the baseline passed and the accepted change proved itself with a test. */
  proof?: FailToPassProof;
  changes: FileChange[];
  diff: string;
  usage: TokenUsage;
  durationMs: number;
  branch?: string;
  prNumber?: number;
  prUrl?: string;
  runUrl?: string;
  /** Test intelligence: runner, commands run, fail-to-pass proof, guard refusals. */
  tests?: TestIntel;
  /** Safety facts for the report: which policy applied, how commands were isolated, what the budget was. */
  safety?: SafetyFacts;
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
