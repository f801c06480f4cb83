/**
 * Evidence that a test failing before any edit is unrelated to the change, so the gate may
 * let it keep failing (rule `preexisting-failures: allow`). Pure.
 *
 * A baseline failure may stay failing only when BOTH hold:
 *  (a) nothing connects its test file to a file the change touched: the runner's own
 *      related-test selection (jest `--findRelatedTests`, vitest `related`), when the runner
 *      has one, did not select it, AND the repository's import graph (imports.ts) does not
 *      reach a changed file from it;
 *  (b) its failure output (normalised message + first in-repo frame) is the same as at baseline.
 * Anything else blocks: a connection, a changed message, an unknown test file, a test file
 * the import graph cannot follow, no failure output to compare. Every decision carries the
 * evidence in one sentence, for the report and the model.
 */
import type { TestCase, TestLinks, TestRun, ToleranceDecision } from './types.js';
import { stripAnsi } from './runners/text.js';
import { isTestFile } from '../lang/index.js';

// The data types live with the run they describe (types.ts); re-exported for the callers.
export type { FileLink, TestLinks, ToleranceDecision } from './types.js';

/**
 * The test file a case belongs to: the runner's, or the id's path prefix, or (runners that
 * name no file, such as node:test) its first in-repo frame when that frame is in a test file.
 */
export function testFileOf(t: Pick<TestCase, 'id' | 'file' | 'frame'>): string | undefined {
  if (t.file) return t.file;
  const prefix = t.id.split(/ > |::/)[0];
  if (prefix !== t.id && /\.[A-Za-z0-9]+$/.test(prefix)) return prefix;
  const frame = t.frame?.match(/^(.+?)(?::\d+){1,2}$/)?.[1];
  return frame && isTestFile(frame) ? frame : undefined;
}

/** The failure output that must not change: message (or the first lines of details) and the first in-repo frame, normalised. */
export function failureSignature(t: TestCase | undefined): string | null {
  if (!t) return null;
  const text = t.message?.trim() ? t.message : (t.details ?? '').split('\n').slice(0, 6).join('\n');
  const msg = stripAnsi(text)
    .replace(/\(\d+(?:\.\d+)?\s*m?s\)/g, '')
    .replace(/\b\d+(?:\.\d+)?\s*ms\b/g, '')
    .replace(/0x[0-9a-f]{6,}/gi, '0x…')
    .replace(/(?:\/tmp|\/var\/folders|[A-Z]:\\Users)[^\s'")]*/g, '<tmp>')
    .replace(/\s+/g, ' ')
    .trim();
  if (!msg && !t.frame) return null;
  return `${msg}${t.frame ? ` @ ${t.frame}` : ''}`;
}

function clip(s: string, n = 140): string {
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

/** The decision for one test that failed at baseline and still fails. */
export function judgeTolerance(id: string, before: TestCase | undefined, after: TestCase | undefined, links: TestLinks | undefined): ToleranceDecision {
  const file = testFileOf(after ?? before ?? { id });
  if (!file) return { id, excused: false, evidence: 'blocked: its test file is unknown, so nothing shows it is unrelated to the change' };
  const link = links?.files[file];
  if (!links || !link) return { id, file, excused: false, evidence: `blocked: no relatedness evidence was gathered for ${file}` };
  if (link.runner === 'selected') return { id, file, excused: false, evidence: `blocked: the runner's related-test selection for the changed files (${clip(links.changed.join(', '), 80)}) selects ${file}` };
  if (link.graph === 'connected') return { id, file, excused: false, evidence: `blocked: ${file} ${link.detail}` };
  if (link.graph === 'unknown') return { id, file, excused: false, evidence: `blocked: the import graph cannot tell whether ${file} uses a changed file (${link.detail})` };
  const a = failureSignature(before);
  const b = failureSignature(after);
  if (a === null || b === null) return { id, file, excused: false, evidence: `blocked: no failure output was recorded ${a === null ? 'at baseline' : 'now'} to show the failure is unchanged` };
  if (a !== b) return { id, file, excused: false, evidence: `blocked: its failure changed with the change (before: ${clip(a)}; now: ${clip(b)})` };
  const selection = link.runner === 'not-selected' ? "the runner's related-test selection does not select it, " : '';
  return { id, file, excused: true, evidence: `excused: ${selection}${file}: ${link.detail}, and it fails exactly as before (${clip(a, 100)})` };
}

/** A file that failed to load before and still does: excused only when nothing connects it to the change. */
export function judgeLoadError(file: string, links: TestLinks | undefined): ToleranceDecision {
  const id = `${file} (failed to load)`;
  const link = links?.files[file];
  if (!link) return { id, file, excused: false, evidence: `blocked: no relatedness evidence was gathered for ${file}` };
  if (link.runner === 'selected' || link.graph !== 'not-connected') return { id, file, excused: false, evidence: `blocked: ${link.runner === 'selected' ? "the runner's related-test selection selects it" : `${file} ${link.detail}`}` };
  return { id, file, excused: true, evidence: `excused: ${file} failed to load before any edit and ${link.detail}` };
}

/** Test files of the still-failing tests (and still-failing load errors) of `current`, for the session to gather links. */
export function stillFailingFiles(baseline: TestRun, current: TestRun): string[] {
  const failedBefore = new Set(baseline.tests.filter((t) => t.status === 'failed').map((t) => t.id));
  const out = new Set<string>();
  for (const t of current.tests) {
    if (t.status !== 'failed' || !failedBefore.has(t.id)) continue;
    const f = testFileOf(t) ?? testFileOf(baseline.tests.find((b) => b.id === t.id) ?? t);
    if (f) out.add(f);
  }
  const before = new Set(baseline.loadErrors ?? []);
  for (const f of current.loadErrors ?? []) if (before.has(f)) out.add(f);
  return [...out];
}
