/**
 * The original-test gate: whatever the model changed in the tests (test files, snapshots,
 * helpers and fixtures, test configuration, package.json), the tests AS THEY WERE at the
 * baseline are run once more against only the model's production-source changes, and every
 * test the task is about must be present there and pass. The test-integrity guard is a fast
 * first signal; this run is the authority. It costs one extra full run, and only when the
 * change touches a test-ish file.
 *
 * `splitChange` and `judgeOriginal` are pure; `runOriginalTests` composes the working tree
 * (baseline tree + production changes), runs the full command and restores the fix tree.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileChange, GitPort } from '../ports/git.js';
import type { OriginalTestsResult, TestRun, Verdict } from './types.js';
import { isSnapshotFile, isTestConfig, isTestFile } from '../lang/index.js';
import type { TestSession } from './session.js';
import type { ExpectationJudgement } from './expectation.js';
import { isTestSupportFile } from '../lang/index.js';

/** A file whose change can alter what the tests check (rather than what the code does). */
export function isTestSupport(p: string): boolean {
  return isTestFile(p) || isSnapshotFile(p) || isTestConfig(p) || isTestSupportFile(p);
}

/** The change split into the tests' part and the production part (a rename counts where either side is test-ish). */
export function splitChange(changes: Pick<FileChange, 'path' | 'oldPath' | 'status'>[]): { tests: string[]; source: Pick<FileChange, 'path' | 'oldPath' | 'status'>[] } {
  const tests: string[] = [];
  const source: Pick<FileChange, 'path' | 'oldPath' | 'status'>[] = [];
  for (const c of changes) {
    if (isTestSupport(c.path) || (c.oldPath !== undefined && isTestSupport(c.oldPath))) tests.push(c.path);
    else source.push(c);
  }
  return { tests, source };
}

// The result type lives with the report data (types.ts); re-exported for the callers.
export type { OriginalTestsResult } from './types.js';

/**
 * Pure. `required`: the tests the task is about (every baseline failure under rule `block`;
 * the targets and every test the change made pass under `allow`). `tolerated`: what the
 * gate's verdict on the model's own run tolerated (flaky, pre-existing with evidence).
 */
export function judgeOriginal(
  run: TestRun,
  required: string[],
  verdict: Pick<Verdict, 'preexisting' | 'flaky'>,
  testFiles: string[],
  relaxed?: string,
  /** Judges the failing tests that may be changed expectations (verify/expectation.ts); absent: every failure counts. */
  expectations?: (failing: string[]) => ExpectationJudgement,
): OriginalTestsResult {
  const status = new Map(run.tests.map((t) => [t.id, t.status]));
  const tolerated = new Set([...(verdict.preexisting ?? []), ...(verdict.flaky ?? [])]);
  const missing = required.filter((id) => !status.has(id));
  const passing = required.filter((id) => status.get(id) === 'passed');
  let failing = run.tests.filter((t) => t.status === 'failed' && !tolerated.has(t.id)).map((t) => t.id);
  for (const id of required) if (status.has(id) && status.get(id) !== 'passed' && !failing.includes(id)) failing.push(id);
  // A failure that is a changed expectation proven by the tests is no failure; the others stay, each with why.
  const judged = expectations && failing.length ? expectations(failing.filter((id) => !required.includes(id))) : null;
  const changedExpectations = judged?.accepted ?? [];
  const changedIds = new Set(changedExpectations.map((c) => c.test));
  failing = failing.filter((id) => !changedIds.has(id));
  const whyNot = (judged?.refused ?? []).filter((r) => failing.includes(r.test));
  const changedNote = changedExpectations.length ? ` ${changedExpectations.length} test(s) changed their expectation with the fix, proven by the tests (the old test passes on the original code, the edited one fails there and passes with the fix): ${changedExpectations.slice(0, 8).map((c) => `${c.test} (expected ${c.before} → now ${c.now})`).join('; ')}.` : '';
  const changed = changedExpectations.length ? { changedExpectations } : {};
  const loadErrors = (run.loadErrors ?? []).filter((f) => !tolerated.has(`${f} (failed to load)`));
  const crashed = run.timedOut || run.exitCode === null || (!run.succeeded && failing.length === 0 && tolerated.size === 0 && changedIds.size === 0) || run.consistency === 'exit-nonzero-without-failing-test';
  const files = testFiles.join(', ');
  const problems: string[] = [];
  if (missing.length) problems.push(`${missing.length} test(s) the task is about do not exist in the original tests' run (renamed, moved or excluded): ${missing.slice(0, 8).join(', ')}`);
  if (failing.length) {
    problems.push(`${failing.length} test(s) fail with the original tests: ${failing.slice(0, 8).join(', ')}`);
    if (whyNot.length) problems.push(`not a changed expectation: ${whyNot.slice(0, 5).map((r) => `${r.test}: ${r.why}`).join('; ')}`);
  }
  if (loadErrors.length) problems.push(`${loadErrors.length} test file(s) fail to load: ${loadErrors.slice(0, 5).join(', ')}`);
  if (crashed && !failing.length) problems.push(run.timedOut ? 'the run timed out' : `the command exited with ${run.exitCode ?? 'no exit code'} without a failing test it could name`);
  const ok = problems.length === 0;
  const head = `The repository's tests as they were before the change (${files} set aside), run against only the source changes`;
  if (ok) {
    return { ok, testFiles, missing, failing, passing, ...changed, detail: `${head}: ${required.length ? `all ${required.length} test(s) the task is about are present and pass` : 'they pass'}${tolerated.size ? ` (apart from ${tolerated.size} tolerated as before)` : ''}.${changedNote}` };
  }
  if (relaxed) {
    return { ok: true, testFiles, missing, failing, passing, relaxed, ...changed, detail: `${head}: ${problems.join('; ')}. Not blocking: ${relaxed}.${changedNote}` };
  }
  return { ok, testFiles, missing, failing, passing, ...changed, detail: `${head}: ${problems.join('; ')}.${changedNote}` };
}

/** The tests the task is about, from the gate's rule and its verdict on the model's own run. */
export function requiredTests(baseline: TestRun, verdict: Pick<Verdict, 'nowPassing'>, rule: { preexisting: 'allow' | 'block'; targets?: string[] }): string[] {
  const failing = baseline.tests.filter((t) => t.status === 'failed').map((t) => t.id);
  if (rule.preexisting === 'block') return failing;
  return [...new Set([...(rule.targets ?? []), ...verdict.nowPassing])].filter((id) => failing.includes(id));
}

export interface OriginalDeps {
  git: GitPort;
  session: TestSession;
  /** The tree the baseline ran on. */
  baselineTree: string;
  /** The attempt's tree; the working tree is left exactly at it. */
  fixTree: string;
  changes: Pick<FileChange, 'path' | 'oldPath' | 'status'>[];
}

/** Runs the original tests against the production changes; null when the change touches no test-ish file (no extra run). */
export async function runOriginalTests(deps: OriginalDeps): Promise<{ run: TestRun; testFiles: string[] } | null> {
  const { git } = deps;
  const { tests, source } = splitChange(deps.changes);
  if (tests.length === 0) return null;
  const contents = new Map<string, Buffer | null>();
  for (const c of source) {
    const abs = path.join(git.root, c.path);
    contents.set(c.path, c.status !== 'deleted' && existsSync(abs) ? await readFile(abs) : null);
    if (c.oldPath && c.oldPath !== c.path) contents.set(c.oldPath, null);
  }
  try {
    await git.restore(deps.baselineTree);
    for (const [rel, data] of contents) {
      const abs = path.join(git.root, rel);
      if (data === null) await rm(abs, { force: true });
      else {
        await mkdir(path.dirname(abs), { recursive: true });
        await writeFile(abs, data);
      }
    }
    const run = await deps.session.runFull('original-tests');
    return { run, testFiles: tests };
  } finally {
    await git.restore(deps.fixTree);
  }
}
