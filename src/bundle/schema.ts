/**
 * The bundle format, version 1: what a `propose` job hands to a `publish` job.
 *
 * A bundle is one directory holding two files:
 *   manifest.json   this schema (candidate, task, base, settings, evidence, rendered report)
 *   change.patch    `git diff --binary --full-index --no-renames` from the base tree to the fix
 *                   (empty when the candidate found no verified fix)
 *
 * The evidence is the run's own report types (`RunReport`, src/fix/types.ts) without the task (publish derives
 * the task from its own event, never from a bundle) and without the diff (publish recomputes it
 * from the applied patch). The evidence schemas follow those types field by field, optional ones
 * too, checked at build time both ways (`EvidenceSchema`): a field added to a verdict, a proof
 * or a test run fails the build here until the bundle carries it, instead of being dropped on
 * the way from the propose job to the published report.
 */
import { z } from 'zod';
import type { FileChange } from '../ports/git.js';
import type { Attempt, TokenUsage } from '../agent/types.js';
import type { RunReport, SafetyFacts } from '../fix/types.js';
import type { TestCase, TestIntel, TestProof, TestRun, Verdict } from '../verify/types.js';

/** 2: an attempt carries the one fail-to-pass proof (TestProof), not the loop's own kind. */
export const BUNDLE_VERSION = 2;
export const MANIFEST_FILE = 'manifest.json';
export const PATCH_FILE = 'change.patch';

/** What publish accepts at most; each limit is named in the refusal that enforces it. */
export interface BundleLimits {
  manifestBytes: number;
  patchBytes: number;
  /** Bundles read from one `bundles` directory. */
  bundles: number;
  /** Entries of the `bundles` directory tree that are looked at (files and directories). */
  entries: number;
}

export const DEFAULT_LIMITS: BundleLimits = {
  manifestBytes: 16 * 1024 * 1024,
  patchBytes: 8 * 1024 * 1024,
  bundles: 32,
  entries: 512,
};

const count = z.number().int().nonnegative();
const nullableInt = z.number().int().nullable();
const sha = z.string().regex(/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/, 'must be a full commit id (40 hexadecimal characters)');

const TestStatusSchema = z.enum(['passed', 'failed', 'skipped']);
const CountsSchema = z.object({ passed: count, failed: count, skipped: count });

const TestCaseSchema = z.object({
  id: z.string(),
  status: TestStatusSchema,
  message: z.string().optional(),
  durationMs: z.number().optional(),
  file: z.string().optional(),
  frame: z.string().optional(),
  details: z.string().optional(),
}) satisfies z.ZodType<TestCase>;

const TestRunSchema = z.object({
  command: z.string(),
  exitCode: nullableInt,
  timedOut: z.boolean(),
  durationMs: z.number().nonnegative(),
  succeeded: z.boolean(),
  tests: z.array(TestCaseSchema),
  counts: CountsSchema,
  parsedFrom: z.enum(['jest', 'vitest', 'node-test', 'tap', 'mocha', 'pytest', 'go', 'cargo', 'none']),
  outputTail: z.string(),
  executed: z.string().optional(),
  structured: z.boolean().optional(),
  loadErrors: z.array(z.string()).optional(),
  consistency: z.enum(['consistent', 'exit-nonzero-without-failing-test', 'exit-zero-with-failing-tests', 'no-results']).optional(),
  links: z
    .object({
      changed: z.array(z.string()),
      files: z.record(
        z.string(),
        z.object({ runner: z.enum(['selected', 'not-selected', 'none']), graph: z.enum(['connected', 'not-connected', 'unknown']), detail: z.string() }),
      ),
    })
    .optional(),
  scope: z.enum(['full', 'related']).optional(),
  flaky: z.array(z.string()).optional(),
  passedFiles: z.array(z.string()).optional(),
}) satisfies z.ZodType<TestRun>;

const VerdictSchema = z.object({
  ok: z.boolean(),
  newlyFailing: z.array(z.string()),
  nowPassing: z.array(z.string()),
  stillFailing: z.array(z.string()),
  flaky: z.array(z.string()).optional(),
  preexisting: z.array(z.string()).optional(),
  taskFailures: z.array(z.string()).optional(),
  tolerance: z.array(z.object({ id: z.string(), file: z.string().optional(), excused: z.boolean(), evidence: z.string() })).optional(),
  unseen: z.array(z.string()).optional(),
  summary: z.string(),
}) satisfies z.ZodType<Verdict>;

const TestProofSchema = z.object({
  status: z.enum(['proven', 'not-proven', 'no-test-changed', 'not-run']),
  detail: z.string(),
  testFiles: z.array(z.string()),
  tests: z.array(z.object({ id: z.string(), before: z.union([TestStatusSchema, z.literal('missing')]), after: z.union([TestStatusSchema, z.literal('missing')]) })),
  passingOnOriginal: z.array(z.string()).optional(),
  notEvidence: z.array(z.string()).optional(),
  withoutFix: TestRunSchema.optional(),
}) satisfies z.ZodType<TestProof>;

const AttemptSchema = z.object({
  iteration: count,
  summary: z.string(),
  verdict: VerdictSchema,
  changedFiles: z.array(z.string()),
  rolledBack: z.boolean(),
  proof: TestProofSchema.optional(),
}) satisfies z.ZodType<Attempt>;

const FileChangeSchema = z.object({
  path: z.string(),
  status: z.enum(['added', 'modified', 'deleted', 'renamed']),
  oldPath: z.string().optional(),
  additions: count,
  deletions: count,
  binary: z.boolean(),
}) satisfies z.ZodType<FileChange>;

const TokenUsageSchema = z.object({ promptTokens: count, completionTokens: count, requests: count, peakPromptTokens: count.optional(), inputLimit: count.optional() }) satisfies z.ZodType<TokenUsage>;

const TestIntelSchema = z.object({
  runner: z.string(),
  detection: z.string().optional(),
  commands: z.array(
    z.object({ purpose: z.string(), command: z.string(), exitCode: nullableInt, timedOut: z.boolean(), durationMs: z.number().nonnegative(), counts: CountsSchema }),
  ),
  proof: TestProofSchema.optional(),
  proofNotAsked: z.string().optional(),
  refusals: z.array(z.string()),
  original: z
    .object({
      ok: z.boolean(),
      testFiles: z.array(z.string()),
      missing: z.array(z.string()),
      failing: z.array(z.string()),
      passing: z.array(z.string()),
      relaxed: z.string().optional(),
      changedExpectations: z.array(z.object({ test: z.string(), file: z.string().optional(), before: z.string(), now: z.string() })).optional(),
      detail: z.string(),
      counts: CountsSchema,
      exitCode: nullableInt,
    })
    .optional(),
  commentOnly: z.array(z.object({ file: z.string(), line: count, added: z.array(z.string()) })).optional(),
  gaming: z
    .array(z.object({ kind: z.enum(['special-cases', 'detects-test-run', 'reads-tests', 'exits-early', 'replaces-test-framework']), file: z.string(), line: count, code: z.string(), detail: z.string() }))
    .optional(),
}) satisfies z.ZodType<TestIntel>;

const SafetyFactsSchema = z.object({
  policy: z.string(),
  isolation: z.array(z.string()),
  budget: z.string(),
  budgetStop: z.string().optional(),
  costUsd: z.number().nonnegative().nullable().optional(),
}) satisfies z.ZodType<SafetyFacts>;

/** The run's report without `task` (publish has its own) and `diff` (recomputed from the patch). */
export type Evidence = Omit<RunReport, 'task' | 'diff'>;

const REASONS = [
  'verified',
  'tests-still-failing',
  'budget-exhausted',
  'model-gave-up',
  'baseline-already-passes',
  'no-changes',
  'human-commits-on-branch',
  'push-rejected',
  'unauthorized',
  'not-applicable',
  'setup-failed',
  'model-error',
  'secret-in-change',
  'superseded',
  'stopped',
  'not-reproduced',
  'internal-error',
] as const satisfies readonly RunReport['reason'][];

const EvidenceObject = z.object({
  status: z.enum(['fixed', 'not-fixed', 'skipped', 'error']),
  reason: z.enum(REASONS),
  detail: z.string(),
  model: z.string(),
  scripted: z.boolean().optional(),
  setupCommand: z.string().nullable(),
  testCommand: z.string().nullable(),
  baseline: TestRunSchema.nullable(),
  final: TestRunSchema.nullable(),
  summary: z.string(),
  iterations: count,
  maxIterations: count,
  attempts: z.array(AttemptSchema),
  changes: z.array(FileChangeSchema),
  usage: TokenUsageSchema,
  durationMs: z.number().nonnegative(),
  branch: z.string().optional(),
  prNumber: z.number().int().optional(),
  headSha: sha.optional(),
  prOperation: z.enum(['created', 'updated']).optional(),
  prUrl: z.string().optional(),
  runUrl: z.string().optional(),
  tests: TestIntelSchema.optional(),
  diagnostics: z
    .object({ checkers: z.array(z.enum(['tsc', 'eslint', 'mypy', 'pyright', 'ruff'])), checks: count, fedBack: count, off: z.array(z.string()), ms: z.number().nonnegative() })
    .optional() satisfies z.ZodType<RunReport['diagnostics']>,
  keptAttempt: z.object({ branch: z.string(), baseSha: sha }).optional() satisfies z.ZodType<RunReport['keptAttempt']>,
  safety: SafetyFactsSchema.optional(),
});

/**
 * Keys of `T` (deep: through objects, arrays and records) that the schema's output `S` lacks,
 * as paths (`.tests.original`). zod drops keys its schema does not name, so a key missing
 * here would be lost between the propose job and the published report.
 */
type Missing<S, T, P extends string = ''> = T extends readonly (infer TE)[]
  ? S extends readonly (infer SE)[]
    ? Missing<SE, TE, `${P}[]`>
    : never
  : T extends object
    ? { [K in keyof T & string]-?: K extends keyof S ? Missing<NonNullable<S[K]>, NonNullable<T[K]>, `${P}.${K}`> : `${P}.${K}` }[keyof T & string]
    : never;
/** `true` only when nothing is missing; otherwise the build fails naming the missing keys. */
type Complete<M> = [M] extends [never] ? true : { missing: M };

/**
 * The run's report as the bundle carries it: the same types as the report (verdicts,
 * proofs, test runs, test intelligence), every field of them, checked at build time both
 * ways (the schema reads nothing the types lack, and lacks nothing the types have).
 */
export const EvidenceSchema: z.ZodType<Evidence> = EvidenceObject;
const _evidenceComplete: Complete<Missing<z.output<typeof EvidenceObject>, Evidence>> = true;
void _evidenceComplete;

/** A candidate id names a bundle directory and a matrix cell: short, plain characters. */
export const CandidateIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit (e.g. "1" or "strong-model")');

/** The settings a candidate ran with, minus every credential (see bundle/write.ts). */
export const RecordedSettingsSchema = z.object({
  model: z.string(),
  /** Scheme, host and path of the model endpoint (no credentials, no query). */
  baseUrl: z.string(),
  testCommand: z.string().nullable(),
  setupCommand: z.string().nullable(),
  maxIterations: count,
  maxChangedFiles: count,
  maxChangedLines: count,
  commandTimeoutMs: count,
  protectedPaths: z.array(z.string()),
  allowedPaths: z.array(z.string()),
  preexistingFailures: z.enum(['allow', 'block']).optional(),
  relatedTestsFirst: z.boolean().optional(),
  feedbackTokens: count.optional(),
  testIntegrityAllow: z.array(z.string()).optional(),
  budget: z
    .object({ maxTokens: z.number().nonnegative(), maxCostUsd: z.number().nonnegative(), maxWallMs: z.number().nonnegative() })
    .optional(),
  sandbox: z.object({ setupNetwork: z.boolean(), testNetwork: z.boolean(), requireIsolation: z.boolean(), memoryMb: count }).optional(),
  policySource: z.string().optional(),
});
export type RecordedSettings = z.infer<typeof RecordedSettingsSchema>;

export const ManifestSchema = z
  .object({
    kind: z.literal('agent-fix-bundle'),
    version: z.literal(BUNDLE_VERSION),
    createdAt: z.string(),
    candidate: z.object({
      id: CandidateIdSchema,
      /** Sampling the candidate asked the model for (absent: the server's default). */
      seed: z.number().int().optional(),
      temperature: z.number().min(0).max(2).optional(),
    }),
    task: z.object({ key: z.string().min(1).max(200), title: z.string().max(1000) }),
    baseSha: sha,
    settings: RecordedSettingsSchema,
    patch: z.object({
      file: z.literal(PATCH_FILE),
      bytes: count,
      /** Hex sha256 of change.patch: a truncated or swapped file is refused. */
      sha256: z.string().regex(/^[0-9a-f]{64}$/, 'must be a hex sha256'),
    }),
    evidence: EvidenceSchema,
    /** The report as the propose job rendered it (kept for humans; publish renders its own from the evidence). */
    reportMarkdown: z.string(),
  })
  .strict();
export type Manifest = z.infer<typeof ManifestSchema>;

/** Schema problems as one line naming each bad field: `evidence.final.counts.failed: expected number`. */
export function describeIssues(error: z.ZodError, max = 5): string {
  const issues = error.issues.slice(0, max).map((i) => `${i.path.length ? i.path.join('.') : '(manifest)'}: ${i.message}`);
  const more = error.issues.length > max ? `; and ${error.issues.length - max} more` : '';
  return issues.join('; ') + more;
}
