/**
 * Fail-to-pass proof: when the fix adds or changes tests, run those tests on the base code
 * (the source changes set aside, only the test changes applied) and on the fix. A test
 * that fails (or cannot load) before and passes after is the proof that it captures the
 * problem and that the fix solves it. Missing proof is reported as such, never invented.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { GitPort } from '../ports/git.js';
import type { TestProof, TestRun, TestStatus } from './types.js';
import { isSnapshotFile, isTestFile } from '../lang/index.js';
import { snapshotOwner } from './expectation.js';
import type { TestSession } from './session.js';
import { errorMessage } from '../errors.js';

type Status = TestStatus | 'missing';

/**
 * Pure: the proof from the two runs of the changed tests. `baseline` (the run on the untouched
 * code) decides whether exit codes can stand in for per-test results (below).
 */
export function judgeProof(before: TestRun, after: TestRun, testFiles: string[], baseline?: TestRun | null): TestProof {
  const inFiles = (id: string, file?: string) =>
    testFiles.some((f) => file === f || id === f || id.startsWith(`${f} > `) || id.startsWith(`${f}::`));
  const beforeMap = new Map<string, Status>(before.tests.map((t) => [t.id, t.status]));
  const selected = after.tests.filter((t) => inFiles(t.id, t.file));
  let tests: TestProof['tests'];
  if (selected.length || after.scope === 'related') {
    // Runners whose ids do not name the file (go packages, mocha, node): all tests of the selective run.
    tests = (selected.length ? selected : after.tests).map((t) => {
      let b: Status = beforeMap.get(t.id) ?? 'missing';
      // The whole file failed to load before (e.g. it imports a function the fix adds).
      if (b === 'missing' && (before.loadErrors ?? []).some((e) => inFiles(e) || t.id.startsWith(`${e} > `) || t.id.startsWith(`${e}::`))) b = 'failed';
      return { id: t.id, before: b, after: t.status as Status };
    });
  } else {
    // Ids that do not name files, and the fix's run is the whole command. A failure no longer
    // listed once the command succeeds passed (runners that list only failures).
    const afterMap = new Map<string, Status>(after.tests.map((t) => [t.id, t.status]));
    const onFix = (id: string, b: Status): Status => afterMap.get(id) ?? (b === 'failed' && after.succeeded ? 'passed' : 'missing');
    if (before.scope === 'related') {
      // Only the changed test files ran on the original code: their tests, looked up in the fix's run.
      tests = before.tests.map((t) => ({ id: t.id, before: t.status as Status, after: onFix(t.id, t.status) }));
    } else {
      // The whole command both times (the runner cannot select files): the same tests ran on the
      // original code with only the test edits and on the fix, so the tests whose result differs
      // are what the source change did.
      tests = [...new Set([...before.tests.map((t) => t.id), ...after.tests.map((t) => t.id)])]
        .map((id) => {
          const b = beforeMap.get(id) ?? 'missing';
          return { id, before: b, after: onFix(id, b) };
        })
        .filter((t) => t.before !== t.after);
    }
  }
  const proven = tests.filter((t) => (t.before === 'failed' || (t.before === 'missing' && !before.succeeded)) && t.after === 'passed');
  const files = testFiles.join(', ');
  if (proven.length) {
    return { status: 'proven', testFiles, tests, detail: `${proven.length} test(s) in ${files} fail before the fix and pass after it.` };
  }
  if (!tests.length) {
    // No per-test result shows a changed test (a runner the harness cannot read, e.g. `make`):
    // the command's exit codes decide, as long as the command passed before the test changes
    // (otherwise its failure on the original code shows nothing about them).
    const ranCleanBefore = !baseline || baseline.succeeded;
    if (ranCleanBefore && !before.succeeded && after.succeeded) {
      return {
        status: 'proven',
        testFiles,
        tests,
        detail: `Judged by exit code (no per-test results name the changed tests): with only ${files} on the original code the command fails (${exitText(before)}), and with the fix it passes.`,
      };
    }
    const why = !ranCleanBefore
      ? 'no test of the changed test files was recognised in the runs, and the command already failed on the original code before the test changes, so its exit code shows nothing'
      : before.succeeded
        ? `no test of the changed test files was recognised in the runs, and judged by exit code the command passes on the original code with only ${files}, so they do not reproduce the problem`
        : 'no test of the changed test files was recognised in the runs, and judged by exit code the command does not pass with the fix';
    return { status: 'not-proven', testFiles, tests, detail: `No fail-to-pass proof: ${why}.` };
  }
  let why: string;
  if (tests.every((t) => t.before === 'passed')) why = 'the changed tests already pass on the base code, so they do not reproduce the problem';
  else why = 'no changed test both fails before and passes after';
  return { status: 'not-proven', testFiles, tests, detail: `No fail-to-pass proof: ${why}.` };
}

function exitText(run: TestRun): string {
  if (run.timedOut) return 'timed out';
  return run.exitCode === null ? 'killed' : `exit ${run.exitCode}`;
}

export interface ProofDeps {
  git: GitPort;
  session: TestSession;
  /** The original code: the tree the baseline ran on. */
  pristineTree: string;
  /** The fix (that tree + the change, nothing else); the working tree is left at this tree. */
  fixTree: string;
  /** Repo-relative files the fix changes, with their status. */
  changes: { path: string; status: string }[];
  /** The gate run of the fix (used when the runner cannot select test files). */
  finalRun: TestRun | null;
  /** The run on the untouched code: when it failed and the fix passes, the existing tests are the proof. */
  baselineRun?: TestRun | null;
}

/** No test changed: the existing tests are the proof when they failed on the original code and pass with the fix. */
function existingTestsProof(baseline: TestRun | null | undefined, final: TestRun | null): TestProof | null {
  if (!baseline || !final || baseline.succeeded || !final.succeeded) return null;
  const after = new Map<string, Status>(final.tests.map((t) => [t.id, t.status as Status]));
  const tests = baseline.tests.filter((t) => t.status === 'failed').map((t) => ({ id: t.id, before: 'failed' as Status, after: after.get(t.id) ?? ('missing' as Status) }));
  const passing = tests.filter((t) => t.after === 'passed').length;
  if (passing === 0) return null;
  return { status: 'proven', testFiles: [], tests, detail: `${passing} existing test(s) failed on the original code (the baseline) and pass with the fix; the change adds no test of its own.` };
}

export async function proveFailToPass(deps: ProofDeps): Promise<TestProof> {
  const { git, session } = deps;
  const edited = deps.changes.filter((c) => c.status !== 'deleted' && isTestFile(c.path)).map((c) => c.path);
  // A snapshot is the expected output of its test file: applied with the test edits, and its test file run.
  const snapshots = deps.changes.filter((c) => c.status !== 'deleted' && isSnapshotFile(c.path)).map((c) => c.path);
  const owners = snapshots.map(snapshotOwner).filter((f): f is string => f !== null && !edited.includes(f));
  const testFiles = [...edited, ...owners];
  if (testFiles.length === 0) {
    const existing = existingTestsProof(deps.baselineRun, deps.finalRun);
    if (existing) return existing;
    return { status: 'no-test-changed', testFiles, tests: [], detail: 'The change adds or changes no test, so there is no fail-to-pass proof.' };
  }
  const sourceChanged = deps.changes.some((c) => !isTestFile(c.path) && !isSnapshotFile(c.path));
  if (!sourceChanged) {
    return { status: 'not-run', testFiles, tests: [], detail: 'The change only touches tests; there is no source change to set aside.' };
  }
  const contents = new Map<string, Buffer>();
  for (const f of [...edited, ...snapshots]) contents.set(f, await readFile(path.join(git.root, f)));
  try {
    // Base code + the test changes only.
    await git.restore(deps.pristineTree);
    for (const [f, data] of contents) {
      await mkdir(path.dirname(path.join(git.root, f)), { recursive: true });
      await writeFile(path.join(git.root, f), data);
    }
    const before = (await session.runFiles(testFiles, 'proof-before')) ?? (await session.runFull('proof-before'));
    await git.restore(deps.fixTree);
    // The changed tests on the fix, by file where the runner selects files; not when they all
    // passed on the original code (nothing can be proven then: the fix's gate run shows how they end).
    const cleanBefore = before.succeeded && !before.tests.some((t) => t.status === 'failed') && !(before.loadErrors ?? []).length;
    const after = before.scope === 'related' && !cleanBefore ? ((await session.runFiles(testFiles, 'proof-after')) ?? deps.finalRun) : deps.finalRun;
    if (!after) return { status: 'not-run', testFiles, tests: [], detail: 'The fix was not run.', withoutFix: before };
    const proof = { ...judgeProof(before, after, testFiles, deps.baselineRun), withoutFix: before };
    // Tests that failed before any edit and pass here, on the original code with only the test edits.
    const failedAtBaseline = new Set((deps.baselineRun?.tests ?? []).filter((t) => t.status === 'failed').map((t) => t.id));
    const passingOnOriginal = [...new Set(before.tests.filter((t) => t.status === 'passed' && failedAtBaseline.has(t.id)).map((t) => t.id))];
    return passingOnOriginal.length ? { ...proof, passingOnOriginal } : proof;
  } catch (e) {
    return { status: 'not-run', testFiles, tests: [], detail: `The proof could not be run: ${errorMessage(e)}` };
  } finally {
    await git.restore(deps.fixTree);
  }
}
