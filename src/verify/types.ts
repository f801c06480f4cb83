/**
 * What the harness knows about a test run and its comparison with the baseline (src/verify/).
 * A leaf: it imports nothing, so every module of verify/ can use these types without a circle.
 */
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
  links?: TestLinks;
  /** Exit code reconciled with the parsed results (see verify/reconcile.ts). */
  consistency?: 'consistent' | 'exit-nonzero-without-failing-test' | 'exit-zero-with-failing-tests' | 'no-results';
  /** `full` suite or only the tests `related` to the changed files. */
  scope?: 'full' | 'related';
  /** Tests whose result differed between two runs of the same code. */
  flaky?: string[];
  /**
   * Plain output: test files the runner reported as passing whole without naming their tests
   * (vitest's default reporter, jest's `PASS`), repo-relative. A test of such a file passed.
   */
  passedFiles?: string[];
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
  tolerance?: ToleranceDecision[];
  /**
   * Failing at baseline, and the new run gives no result for them: not named, their file not
   * reported passing, and its exit code failing for other tests. The verdict says so rather than
   * taking them for fixed or failing.
   */
  unseen?: string[];
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
  original?: OriginalTestsResult & { counts: { passed: number; failed: number; skipped: number }; exitCode: number | null };
  /** Hunks of the published change that only add or change comments or whitespace (verify/comments.ts). */
  commentOnly?: CommentHunk[];
  /** What in the published change games the tests instead of fixing the code (guard/gaming/): never called a fix. */
  gaming?: GamingFinding[];
}

/** The ways a source change can make tests pass without fixing the code (guard/gaming/). */
export type GamingKind = 'special-cases' | 'detects-test-run' | 'reads-tests' | 'exits-early' | 'replaces-test-framework';

/** One construct of a change's source files that games the tests (guard/gaming/). */
export interface GamingFinding {
  kind: GamingKind;
  file: string;
  /** 1-based line of the construct in the changed file. */
  line: number;
  /** The construct, on one line, capped. */
  code: string;
  /** What it matches: the tests' inputs and expected values, the test-run signal, the path read. */
  detail: string;
}

/**
 * The fail-to-pass proof of a change (verify/proof.ts), made once per attempt the gate accepted
 * (verify/judge.ts); the accepted attempt's proof is the report's. The only proof type.
 */
export interface TestProof {
  status: 'proven' | 'not-proven' | 'no-test-changed' | 'not-run';
  detail: string;
  testFiles: string[];
  tests: { id: string; before: TestStatus | 'missing'; after: TestStatus | 'missing' }[];
  /** Tests that failed before any edit and pass on the original code with only the change's test edits applied. */
  passingOnOriginal?: string[];
  /** New tests that are not evidence of the fix (they assert nothing, or pass on the original code too), each with why: shown, never counted. */
  notEvidence?: string[];
  /** The run on the original code with only the change's test files applied (the proof's "before"), when it ran. */
  withoutFix?: TestRun;
}

/** A test run of the harness with the gate's verdict on it: the session judges (compare.ts) once, and everyone reads that verdict. */
export interface JudgedRun {
  run: TestRun;
  verdict: Verdict;
}

/** What connects one test file to the change (attached to a run by the session; verify/tolerance.ts). */
export interface FileLink {
  /** The runner's related-test selection for the changed files: selected it, did not, or has none. */
  runner: 'selected' | 'not-selected' | 'none';
  /** The import graph: reaches a changed file, does not, or cannot tell. */
  graph: 'connected' | 'not-connected' | 'unknown';
  /** One sentence: the import chain, or why the graph could not tell. */
  detail: string;
}

export interface TestLinks {
  /** The files the change touched when the evidence was gathered. */
  changed: string[];
  /** Per test file (repo-relative). */
  files: Record<string, FileLink>;
}

/** Rule `allow`: why a test still failing since the baseline was excused or blocked (verify/tolerance.ts). */
export interface ToleranceDecision {
  id: string;
  file?: string;
  excused: boolean;
  /** Which evidence excused or blocked it. */
  evidence: string;
}

/** A hunk of the change that only adds or changes comments or whitespace (verify/comments.ts). */
export interface CommentHunk {
  file: string;
  /** First line of the hunk in the new file. */
  line: number;
  /** The added lines (trimmed, capped), for the report. */
  added: string[];
}

/** One accepted change of an existing expectation (verify/expectation.ts), for the report's first screen. */
export interface ChangedExpectation {
  test: string;
  file?: string;
  /** What the test expected before the change (the old expected value, or the old assertion). */
  before: string;
  /** What it expects now. */
  now: string;
}

/** The original-test gate's result (verify/original.ts). */
export interface OriginalTestsResult {
  ok: boolean;
  /** The test-ish files the model changed (set aside for this run). */
  testFiles: string[];
  /** Tests the task is about that were absent from the original-test run (renamed, moved, excluded). */
  missing: string[];
  /** Tests that fail in the original-test run and are not tolerated by the gate's verdict. */
  failing: string[];
  /** Tests the task is about that pass there. */
  passing: string[];
  /** A maintainer allowed the test change (`test-integrity-allow` + the task asks): failures are reported, not blocking. */
  relaxed?: string;
  /** Tests whose expectation the fix changed, proven by the tests (verify/expectation.ts): not failures, listed on the report's first screen. */
  changedExpectations?: ChangedExpectation[];
  detail: string;
}
