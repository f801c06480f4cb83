/**
 * Test intelligence for one fix, assembled for the story (fix.ts): the test session
 * (structured runs, baseline differential, related tests first, flaky re-runs), the
 * test-integrity guard on each attempt, the concise feedback for the model, the
 * fail-to-pass proof. It edits no record: what it finds is returned (`TestFinding`s), and the
 * report folds them once (fix/findings.ts).
 */
import type { FileChange, GitPort } from '../ports/git.js';
import type { CommandResult } from '../ports/shell.js';
import type { Redactor } from '../redact.js';
import type { Settings } from '../settings/types.js';
import type { Task } from '../task/types.js';
import type { CommentHunk, GamingFinding, TestIntel, TestProof, TestRun, Verdict } from './types.js';
import { addedLines, detectGaming, type ChangedSource, type TestText } from '../guard/gaming/index.js';
import {
  allowedCategories,
  checkTestIntegrity,
  INTEGRITY_CATEGORIES,
  parseUnifiedDiff,
  renderRefusal,
  type IntegrityCategory,
  type IntegrityFinding,
} from '../guard/test-integrity.js';
import { analyseTestChanges, type TestChangeAnalysis, type VacuousTest } from '../guard/test-blocks.js';
import { changedTexts } from '../guard/diff-texts.js';
import { isTestFile } from '../lang/index.js';
import { judgeExpectations, type ChangedExpectation } from './expectation.js';
import type { ChangedExpectationPolicy } from './expectation.js';
import { packFeedback } from './feedback.js';
import { proveFailToPass } from './proof.js';
import { judgeOriginal, requiredTests, runOriginalTests } from './original.js';
import type { GateRule } from './compare.js';
import { commentOnlyHunks } from './comments.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TestSession } from './session.js';

export interface IntelDeps {
  git: GitPort;
  task: Task;
  settings: Settings;
  redactor: Redactor;
  testCommand: string;
  detection?: string;
  baselineTree: string;
  exec: (command: string) => Promise<CommandResult>;
  /** Where the runner's report is written (Commands.scratch). */
  scratch?: string;
  /** Where the runner's own report file in the checkout is read after a run (Commands.exportFile). */
  exportFile?: (rel: string) => string;
}

/**
 * What a phase found about the tests, for the report: returned by the phase that found it, folded
 * once, in order, by the report (fix/findings.ts `foldTests`). A later `original` or `gaming`
 * finding replaces an earlier one (the last original-test gate run, the published change's gaming).
 */
export type TestFinding =
  /** An attempt refused by a check (the test-integrity guard, the original-test gate, the judge's own). */
  | { kind: 'refusal'; line: string }
  /** The original-test gate's last run; null: the change touched no test-ish file. */
  | { kind: 'original'; original: NonNullable<TestIntel['original']> | null }
  /** Hunks of the published change that only touch comments or whitespace. */
  | { kind: 'comment-only'; hunks: CommentHunk[] }
  /** What in the published change games the tests. */
  | { kind: 'gaming'; found: GamingFinding[] }
  /** Why the plan asks no fail-to-pass proof. */
  | { kind: 'proof-not-asked'; why: string }
  /** The accepted attempt's proof. */
  | { kind: 'proof'; proof: TestProof };

/** What the session itself records (its runner, why its command, every command it ran), read once by the report. */
export type SessionRecord = Pick<TestIntel, 'runner' | 'commands' | 'detection'>;

export interface Intel {
  session: TestSession;
  /** The session's own record at this moment (a copy). */
  record: () => SessionRecord;
  /** The test-integrity guard on an attempt: a refusal (and its lines for the report), and the findings the tests decide (skip markers, updated snapshots; verify/judge.ts). */
  guard: (tree: string, changedFiles: string[]) => Promise<{ refusal: string | null; refusals: string[]; deferred: IntegrityFinding[]; vacuous: VacuousTest[]; testDelta?: number }>;
  feedback: (run: TestRun, verdict?: Verdict) => string;
  /**
   * The fail-to-pass proof (proof.ts) of the change `baseTree -> fixTree` (the working tree must be
   * `fixTree`, and is left there): the change's test files on `baseTree` with only the test edits, and on the fix.
   */
  prove: (baseTree: string, fixTree: string, changes: FileChange[], finalRun: TestRun | null) => Promise<TestProof>;
  /**
   * The original-test gate on an attempt the model's own run verified (original.ts): null when
   * no test-ish file changed or the original tests agree; otherwise the refusal for the model.
   */
  originalTests: (tree: string, run: TestRun, verdict: Verdict, gate: GateRule, proof?: () => Promise<TestProof | undefined>) => Promise<{ refusal: string | null; changedExpectations: ChangedExpectation[]; findings: TestFinding[] }>;
  /** The hunks of the change (fromTree -> toTree, the working tree) that only touch comments or whitespace; the working tree is left at toTree. */
  flagComments: (fromTree: string, toTree: string, changes: FileChange[]) => Promise<CommentHunk[]>;
  /**
   * Tests that failed at baseline and pass on the ORIGINAL code with only the change's test
   * edits applied (the proof's "before" run, `passingOnOriginal`): the test edits alone made
   * them pass, whatever the source change does. Why that refuses the change, or null (none, or
   * a maintainer allowed test changes for this task). Pure: the caller records the refusal.
   */
  testEditsAlone: (proof: TestProof) => string | null;
  /**
   * The guard on the change about to be published (pristine checkout -> fix): a refusal, or null.
   * `cleared`: guard findings the accepted attempt cleared by what its tests did (a changed snapshot
   * proven, a skip marker that skips nothing), which pass here too.
   */
  guardPublished: (fromTree: string, toTree: string, cleared: readonly IntegrityFinding[]) => Promise<string | null>;
  /** What in an attempt's source change games the tests (guard/gaming/); the working tree must be at `tree`. */
  gaming: (tree: string, changedFiles: string[]) => Promise<GamingFinding[]>;
  /** The same on the change about to be published (the working tree at `toTree`). */
  gamingPublished: (fromTree: string, toTree: string) => Promise<GamingFinding[]>;
  /** The policy on such a change (`gate.gaming`): `draft` or `refuse`. */
  gamingPolicy: 'draft' | 'refuse';
}

/** Where a runner's test id names its file (`test/a.test.js > suite > name`, `tests/test_a.py::test_x`). */
function fileOfTest(t: { id: string; file?: string }): string | null {
  if (t.file) return t.file;
  const head = t.id.split(/ > |::/)[0]?.trim() ?? '';
  return isTestFile(head) ? head : null;
}

export function policyCategories(values: string[] | undefined): IntegrityCategory[] {
  const list = (values ?? []).map((v) => v.trim().toLowerCase()).filter(Boolean);
  if (list.includes('all')) return [...INTEGRITY_CATEGORIES];
  return INTEGRITY_CATEGORIES.filter((c) => list.includes(c));
}

export async function createTestIntel(deps: IntelDeps): Promise<Intel> {
  const { git, settings, task } = deps;
  const session = await TestSession.create({
    root: git.root,
    testCommand: deps.testCommand,
    exec: deps.exec,
    scratch: deps.scratch,
    exportFile: deps.exportFile,
    redactor: deps.redactor,
    relatedFirst: settings.relatedTestsFirst,
    changedFiles: async () =>
      (await git.changes(deps.baselineTree, await git.snapshot())).filter((c) => c.status !== 'deleted').map((c) => c.path),
    listFiles: () => git.listFiles(),
  });
  const record = (): SessionRecord => ({ runner: session.info.runner, commands: [...session.commands], ...(deps.detection ? { detection: deps.detection } : {}) });
  const taskText = `${task.title}\n${task.goal}`;
  const allowed = allowedCategories(policyCategories(settings.testIntegrityAllow), taskText);
  const expectationPolicy: ChangedExpectationPolicy = settings.changedExpectations;
  const key = (f: IntegrityFinding) => `${f.category}\0${f.file}\0${f.line ?? ''}`;
  /** The change's test files test by test (moved, weakened, vacuous tests); the working tree must be at the change. */
  const testsOf = async (diff: string, only?: string[]): Promise<TestChangeAnalysis> => {
    const texts = await changedTexts(
      diff,
      (p, old) => (isTestFile(p) || isTestFile(old)) && (!only || only.includes(p) || only.includes(old)),
      (p) => readFile(path.join(git.root, p), 'utf8').catch(() => null),
    );
    return analyseTestChanges(texts);
  };

  /** The change's source files and the tests in question, read from the working tree (at the change). */
  const gamingOf = async (diff: string, only?: string[]): Promise<GamingFinding[]> => {
    const read = (p: string) => readFile(path.join(git.root, p), 'utf8').catch(() => null);
    const added = addedLines(diff);
    const texts = await changedTexts(diff, (p, old) => !only || only.includes(p) || only.includes(old), read);
    const sources: ChangedSource[] = texts
      .filter((t) => !t.unread && t.after !== null && !isTestFile(t.path))
      .map((t) => ({ path: t.path, before: t.before, after: t.after ?? '', added: added.get(t.path) ?? new Set<number>() }));
    if (!sources.length) return [];
    const failingRuns = (session.baseline?.tests ?? []).filter((t) => t.status === 'failed');
    const tests: TestText[] = texts.filter((t) => !t.unread && isTestFile(t.path)).map((t) => ({ path: t.path, before: t.before, after: t.after, changed: true }));
    const known = new Set(tests.map((t) => t.path));
    let files = [...new Set(failingRuns.map(fileOfTest).filter((f): f is string => f !== null))];
    // a runner whose ids name no file: the repository's test files (capped)
    if (failingRuns.length && failingRuns.some((t) => !fileOfTest(t))) files = [...new Set([...files, ...(await git.listFiles()).filter(isTestFile).slice(0, 400)])];
    // a file is read whole only when it names one of the failing tests
    const names = failingRuns.map((t) => t.id.split(/ > |::/).pop()?.replace(/\[[^\]]*\]$/, '').trim() ?? '').filter(Boolean);
    for (const f of files) {
      if (known.has(f)) continue;
      const text = await read(f);
      if (text !== null && names.some((n) => text.includes(n))) tests.push({ path: f, before: null, after: text, changed: false });
    }
    return detectGaming({ sources, tests, failing: failingRuns.map((t) => t.id) });
  };

  return {
    session,
    record,
    gamingPolicy: settings.gaming,
    gaming: async (tree, changedFiles) => gamingOf(await git.diff(deps.baselineTree, tree), changedFiles),
    gamingPublished: async (fromTree, toTree) => gamingOf(await git.diff(fromTree, toTree)),
    guard: async (tree, changedFiles) => {
      const diff = await git.diff(deps.baselineTree, tree);
      const files = parseUnifiedDiff(diff).filter((f) => changedFiles.includes(f.path) || changedFiles.includes(f.oldPath));
      const tests = await testsOf(diff, changedFiles);
      const findings = checkTestIntegrity(files, allowed, tests);
      const now = findings.filter((f) => !f.judgedBy);
      const deferred = findings.filter((f) => f.judgedBy);
      const seen = { vacuous: tests.vacuous, ...(tests.testDelta === undefined ? {} : { testDelta: tests.testDelta }) };
      if (now.length === 0) return { refusal: null, refusals: [], deferred, ...seen };
      return { refusal: renderRefusal(now), refusals: now.map((f) => `[${f.category}] ${f.reason}`), deferred, ...seen };
    },
    feedback: (run, verdict) =>
      packFeedback(run, { baseline: session.baseline, verdict, budgetTokens: settings.feedbackTokens }),
    guardPublished: async (fromTree, toTree, cleared) => {
      const clearedKeys = new Set(cleared.map(key));
      const diff = await git.diff(fromTree, toTree);
      const findings = checkTestIntegrity(diff, allowed, await testsOf(diff)).filter((f) => !(f.judgedBy && clearedKeys.has(key(f))));
      return findings.length ? renderRefusal(findings) : null;
    },
    originalTests: async (tree, fixRun, verdict, gate, proof) => {
      const baseline = session.baseline;
      if (!baseline) return { refusal: null, changedExpectations: [], findings: [] };
      const changes = await git.changes(deps.baselineTree, tree);
      const result = await runOriginalTests({ git, session, baselineTree: deps.baselineTree, fixTree: tree, changes });
      if (!result) return { refusal: null, changedExpectations: [], findings: [{ kind: 'original', original: null }] };
      const relaxed = allowed.length ? `the policy (test-integrity-allow) allows ${allowed.join(', ')} changes and the task asks for them` : undefined;
      const required = requiredTests(baseline, verdict, gate);
      // Failures of tests that passed before any edit may be changed expectations: the proof's run of the edited tests on the original code decides.
      const maybeChanged = result.run.tests.some((t) => t.status === 'failed' && baseline.tests.some((b) => b.id === t.id && b.status === 'passed'));
      const withoutFix = maybeChanged && proof ? (await proof())?.withoutFix : undefined;
      const testDiff = parseUnifiedDiff(await git.diff(deps.baselineTree, tree)).filter((f) => result.testFiles.includes(f.path));
      const judged = judgeOriginal(result.run, required, verdict, result.testFiles, relaxed, (candidates) =>
        judgeExpectations({ candidates, baseline, original: result.run, withoutFix, fixRun, testDiff, taskText, targets: gate.preexisting === 'allow' ? (gate.targets ?? []) : [], policy: expectationPolicy }),
      );
      const original: TestFinding = { kind: 'original', original: { ...judged, counts: result.run.counts, exitCode: result.run.exitCode } };
      const changedExpectations = judged.changedExpectations ?? [];
      if (judged.ok) return { refusal: null, changedExpectations, findings: [original] };
      const message = [
        'REFUSED by the original-test gate: your change passes only with your changes to the tests.',
        judged.detail,
        'Fix the code under test so that the existing tests pass as they are; new tests may be added next to them.',
      ].join('\n');
      return { refusal: message, changedExpectations: [], findings: [original, { kind: 'refusal', line: `[original-tests] ${judged.detail}` }] };
    },
    testEditsAlone: (proof) => {
      const hits = proof.passingOnOriginal ?? [];
      if (!hits.length) return null;
      // A maintainer allowed test changes for this task (policy + the task asks): reported by the proof table, not refused.
      if (allowed.length) return null;
      return `${hits.length} test(s) that failed before any edit pass on the original code with only the change's test edits applied (${proof.testFiles.join(', ')}): ${hits.slice(0, 8).join(', ')}. The test edits, not the source change, make them pass.`;
    },
    flagComments: async (fromTree, toTree, changes) => {
      const files = changes.filter((c) => c.status === 'modified' && /\.[cm]?[jt]sx?$/.test(c.path)).map((c) => c.path);
      if (!files.length) return [];
      const read = (f: string) => readFile(path.join(git.root, f), 'utf8').catch(() => null);
      const after = new Map<string, string | null>();
      for (const f of files) after.set(f, await read(f));
      const before = new Map<string, string | null>();
      try {
        await git.restore(fromTree);
        for (const f of files) before.set(f, await read(f));
      } finally {
        await git.restore(toTree);
      }
      return files.flatMap((f) => commentOnlyHunks(f, before.get(f) ?? null, after.get(f) ?? null));
    },
    prove: (baseTree, fixTree, changes, finalRun) => proveFailToPass({ git, session, pristineTree: baseTree, fixTree, changes, finalRun, baselineRun: session.baseline }),
  };
}
