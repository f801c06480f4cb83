/** What the harness knows about a test run and its comparison with the baseline (src/verify/). */
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
  links?: import('./tolerance.js').TestLinks;
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
  tolerance?: import('./tolerance.js').ToleranceDecision[];
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
  /** Why this run asks no fail-to-pass proof (a follow-up or a rebase of a verified pull request: its own gate applies instead). */
  proofNotAsked?: string;
  /** Attempts refused by the test-integrity guard (their reasons). */
  refusals: string[];
  /** The last original-test gate run (verify/original.ts): only when the change touched test-ish files. */
  original?: import('./original.js').OriginalTestsResult & { counts: { passed: number; failed: number; skipped: number }; exitCode: number | null };
  /** Hunks of the published change that only add or change comments or whitespace (verify/comments.ts). */
  commentOnly?: import('./comments.js').CommentHunk[];
}

/**
 * The fail-to-pass proof of a change (verify/proof.ts), made once per attempt the gate accepted
 * (agent/loop.ts); the accepted attempt's proof is the report's. The only proof type.
 */
export interface TestProof {
  status: 'proven' | 'not-proven' | 'no-test-changed' | 'not-run';
  detail: string;
  testFiles: string[];
  tests: { id: string; before: TestStatus | 'missing'; after: TestStatus | 'missing' }[];
  /** Tests that failed before any edit and pass on the original code with only the change's test edits applied. */
  passingOnOriginal?: string[];
  /** The run on the original code with only the change's test files applied (the proof's "before"), when it ran. */
  withoutFix?: TestRun;
}

/** A test run of the harness with the gate's verdict on it: the session judges (compare.ts) once, and everyone reads that verdict. */
export interface JudgedRun {
  run: TestRun;
  verdict: Verdict;
}
