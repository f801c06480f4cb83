/**
 * Writes a bundle from what a finished fix produced (runFix: report, tree, baseSha), for the
 * `propose` mode. Layout, under the output directory that the workflow uploads:
 *
 *   <out>/candidate-<id>/manifest.json
 *   <out>/candidate-<id>/change.patch
 *
 * The candidate directory keeps the bundles of a matrix apart when `download-artifact`
 * merges them into one directory (`merge-multiple: true`).
 *
 * Nothing secret goes in: the settings are an allow-list (never a token or key, the model URL
 * without credentials or query), every string of the manifest passes the run's redactor, and a
 * patch that contains a secret (in any encoding the redactor knows) is not written: the bundle
 * then says `secret-in-change` and carries no change.
 */
import { createHash } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { PatchGit } from '../ports/patch.js';
import type { Redactor } from '../redact.js';
import type { RunReport } from '../fix/types.js';
import type { Settings } from '../settings/types.js';
import type { TestRun } from '../verify/types.js';
import { renderReportMarkdown } from '../report/render.js';
import {
  BUNDLE_VERSION,
  CandidateIdSchema,
  DEFAULT_LIMITS,
  type BundleLimits,
  MANIFEST_FILE,
  ManifestSchema,
  PATCH_FILE,
  describeIssues,
  type Evidence,
  type Manifest,
  type RecordedSettings,
} from './schema.js';
import type { Sampling } from './candidate.js';

/** The part of runFix's result a bundle is made of. */
export interface FinishedFix {
  report: RunReport;
  /** Tree to publish when the report says fixed. */
  tree: string | null;
  baseSha: string;
}

export interface WriteBundleInput {
  fix: FinishedFix;
  candidate: { id: string } & Sampling;
  settings: Settings;
  redactor: Redactor;
  patches: PatchGit;
  /** The directory the workflow uploads (output `bundle-path`). */
  outDir: string;
  now?: () => Date;
  /** The limits publish will apply (default DEFAULT_LIMITS). */
  limits?: BundleLimits;
}

export interface WrittenBundle {
  /** `outDir`: upload this. */
  root: string;
  /** The bundle's own directory inside it. */
  dir: string;
  manifest: Manifest;
}

export function bundleDirName(candidateId: string): string {
  return `candidate-${candidateId}`;
}

export async function writeBundle(input: WriteBundleInput): Promise<WrittenBundle> {
  const { fix, settings, redactor } = input;
  const id = CandidateIdSchema.safeParse(input.candidate.id);
  if (!id.success) throw new Error(`The candidate id ${JSON.stringify(input.candidate.id)} ${id.error.issues[0]?.message ?? 'is invalid'}.`);
  let patch: Buffer = Buffer.alloc(0);
  let secret = false;
  if (fix.report.status === 'fixed') {
    if (!fix.tree) throw new Error('A fixed run without a tree to publish cannot be bundled.');
    patch = await input.patches.binaryPatch(`${fix.baseSha}^{tree}`, fix.tree);
    secret = await carriesSecret(input.patches, `${fix.baseSha}^{tree}`, fix.tree, patch, redactor);
    if (secret) patch = Buffer.alloc(0);
  }
  const report: RunReport = secret
    ? {
        ...fix.report,
        status: 'not-fixed',
        reason: 'secret-in-change',
        detail: 'The change contains a secret value (a token or key of this run, possibly encoded); it was not put in the bundle.',
      }
    : fix.report;
  const { task, diff: _diff, ...rest } = report;
  const evidence: Evidence = redactDeep(rest, redactor);
  const manifest: Manifest = {
    kind: 'agent-fix-bundle',
    version: BUNDLE_VERSION,
    createdAt: (input.now ?? (() => new Date()))().toISOString(),
    candidate: {
      id: id.data,
      ...(input.candidate.seed !== undefined ? { seed: input.candidate.seed } : {}),
      ...(input.candidate.temperature !== undefined ? { temperature: input.candidate.temperature } : {}),
    },
    task: { key: task.key, title: redactor.redact(task.title) },
    baseSha: fix.baseSha,
    settings: redactDeep(recordSettings(settings, report), redactor),
    patch: { file: PATCH_FILE, bytes: patch.length, sha256: createHash('sha256').update(patch).digest('hex') },
    evidence,
    reportMarkdown: redactor.redact(renderReportMarkdown(report, { diff: false })),
  };
  // The writer holds itself to the reader's schema: a bundle it writes is never refused as malformed.
  const checked = ManifestSchema.safeParse(manifest);
  if (!checked.success) throw new Error(`internal error: the bundle manifest does not match its schema: ${describeIssues(checked.error)}`);
  // ... and to its size limit: a huge suite's per-test lists keep only the tests that did not pass (counts stay).
  const limit = (input.limits ?? DEFAULT_LIMITS).manifestBytes;
  let text = `${JSON.stringify(checked.data, null, 1)}\n`;
  if (Buffer.byteLength(text) > limit) {
    checked.data.evidence = shrinkEvidence(checked.data.evidence);
    text = `${JSON.stringify(checked.data)}\n`;
    if (Buffer.byteLength(text) > limit) {
      throw new Error(`The bundle's evidence is ${Buffer.byteLength(text)} bytes even with only the failing tests listed, over the ${limit}-byte limit publish accepts.`);
    }
  }

  const root = path.resolve(input.outDir);
  const dir = path.join(root, bundleDirName(id.data));
  // Written next to its final place, then renamed: a crash never leaves half a bundle behind.
  const staging = `${dir}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(path.join(staging, PATCH_FILE), patch);
  await writeFile(path.join(staging, MANIFEST_FILE), text);
  await rm(dir, { recursive: true, force: true });
  await rename(staging, dir);
  return { root, dir, manifest: checked.data };
}

/**
 * Does the change carry a secret? The patch text, and each new or changed file as it is (a
 * binary file is base85 in the patch, which the redactor cannot see through).
 */
async function carriesSecret(patches: PatchGit, baseTree: string, tree: string, patch: Buffer, redactor: Redactor): Promise<boolean> {
  if (redactor.size === 0) return false;
  const differs = (b: Buffer) => [b.toString('utf8'), b.toString('latin1')].some((t) => redactor.redact(t) !== t);
  if (differs(patch)) return true;
  for (const c of await patches.treeChanges(baseTree, tree)) {
    if (c.newMode === '000000' || c.newMode === '160000') continue;
    if (differs(await patches.readBlob(tree, c.path))) return true;
  }
  return false;
}

/** The evidence with every test run's per-test list cut to the tests that did not pass. */
function shrinkEvidence(e: Evidence): Evidence {
  const run = <T extends TestRun | null | undefined>(r: T): T => (r ? { ...r, tests: r.tests.filter((t) => t.status !== 'passed') } : r);
  return {
    ...e,
    baseline: run(e.baseline),
    final: run(e.final),
    ...(e.tests?.proof?.withoutFix ? { tests: { ...e.tests, proof: { ...e.tests.proof, withoutFix: run(e.tests.proof.withoutFix) } } } : {}),
    attempts: e.attempts.map((a) => (a.proof?.withoutFix ? { ...a, proof: { ...a.proof, withoutFix: run(a.proof.withoutFix) } } : a)),
  };
}

/** The settings a run used, by allow-list: no token, no key, no URL credentials. */
export function recordSettings(s: Settings, report: Pick<RunReport, 'testCommand' | 'setupCommand'>): RecordedSettings {
  return {
    model: s.model,
    baseUrl: plainUrl(s.baseUrl),
    testCommand: report.testCommand ?? s.testCommand,
    setupCommand: report.setupCommand ?? s.setupCommand,
    maxIterations: s.maxIterations,
    maxChangedFiles: s.maxChangedFiles,
    maxChangedLines: s.maxChangedLines,
    commandTimeoutMs: s.commandTimeoutMs,
    protectedPaths: [...s.protectedPaths],
    allowedPaths: [...s.allowedPaths],
    preexistingFailures: s.preexistingFailures,
    relatedTestsFirst: s.relatedTestsFirst,
    feedbackTokens: s.feedbackTokens,
    testIntegrityAllow: [...s.testIntegrityAllow],
    budget: { maxTokens: s.budget.maxTokens, maxCostUsd: s.budget.maxCostUsd, maxWallMs: s.budget.maxWallMs },
    sandbox: { ...s.sandbox },
    policySource: s.policySource,
  };
}

/** `https://user:key@host/v1?api-key=x` → `https://host/v1`. */
export function plainUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return '(not a URL)';
  }
}

/** Every string inside `value` through the redactor (objects and arrays copied). */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  if (typeof value === 'string') return redactor.redact(value) as T;
  if (Array.isArray(value)) return value.map((v) => redactDeep(v, redactor)) as T;
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) if (v !== undefined) out[k] = redactDeep(v, redactor);
    return out as T;
  }
  return value;
}
