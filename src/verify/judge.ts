/**
 * The attempt judge: "why was my attempt refused" answered in one file. When the model calls
 * finish, `judgeAttempt` runs an ordered list of named checks over the attempt; the first that
 * refuses decides, with one sentence for the model and one for the report. A new gate is one
 * entry of `attemptChecks`.
 *
 *   size → budget → test-integrity → tests → skipped-tests → moved-tests → games-the-tests →
 *   original-tests
 *   (changed expectations, changed snapshots) → follow-up → proof → test-edits-alone →
 *   shows-the-problem
 *
 * The checks only read the attempt and the harness's runs; the agent loop keeps its own state
 * (the best attempt, rollbacks) and turns the judgement into its record and its next message.
 * What each check needs from the story (the guard, the test session, the proof, the original
 * tests) is given as functions by fix.ts, where the workspace and the session live.
 */
import type { FileChange } from '../ports/git.js';
import type { GamingFinding, JudgedRun, TestProof, TestRun, Verdict } from './types.js';
import { GAMING_TITLE, gamingRefusal } from '../guard/gaming/index.js';
import { isTestFile } from '../lang/index.js';
import { parserTells } from './runners/index.js';
import { newlySkipped, renderRefusal, type IntegrityFinding } from '../guard/test-integrity.js';
import { snapshotOwner, type ChangedExpectation } from './expectation.js';
import type { VacuousTest } from '../guard/test-blocks.js';

export type CheckName =
  | 'size'
  | 'budget'
  | 'test-integrity'
  | 'tests'
  | 'skipped-tests'
  | 'moved-tests'
  | 'games-the-tests'
  | 'original-tests'
  | 'follow-up'
  | 'proof'
  | 'test-edits-alone'
  | 'shows-the-problem';

/** The attempt being judged; the checks fill in what they learn (the run, its verdict, the proof). */
export interface AttemptState {
  iteration: number;
  tree: string;
  /** The attempt's change from the loop's start. */
  changes: FileChange[];
  changedFiles: string[];
  run?: TestRun;
  verdict?: Verdict;
  /** The fail-to-pass proof, made at most once (see `proof`). */
  proof?: TestProof;
  /** Guard findings the tests decide (skip markers, updated snapshots). */
  deferred: IntegrityFinding[];
  /** New tests that assert nothing (guard/test-blocks.ts): never counted as the proof's evidence. */
  vacuous?: VacuousTest[];
  /** Test cases the change adds less those it removes (guard/test-blocks.ts), when its test files were read. */
  testDelta?: number;
  changedExpectations?: ChangedExpectation[];
  /** What in the attempt's source games the tests (guard/gaming/), when it was read. */
  gaming?: GamingFinding[];
  /** Said to the model when the attempt is accepted, after the verdict. */
  acceptedNote?: string;
}

/** What one check says: pass, or refuse with a message for the model and a reason for the report. */
export type CheckVerdict =
  | { pass: true }
  | {
      pass: false;
      /** For the model: what was refused and what to do. */
      toModel: string;
      /** For the report and the attempt's record: a few words. */
      forReport: string;
      /** The loop ends here (the budget ran out before the tests), and why. */
      stop?: 'budget-exhausted';
      stopDetail?: string;
      /** The tests fail: the loop's usual path (best state, rollback, feedback). */
      testsFailed?: true;
    };

export interface AttemptCheck {
  name: CheckName;
  check(s: AttemptState): Promise<CheckVerdict>;
}

export type Judgement =
  | {
      outcome: 'accepted';
      message: string;
      run: TestRun;
      verdict: Verdict;
      proof?: TestProof;
      changedExpectations?: ChangedExpectation[];
      /** Guard findings the tests cleared (a skip marker that skips nothing new, a snapshot proven as a changed expectation). */
      cleared: IntegrityFinding[];
    }
  | { outcome: 'refused'; check: CheckName; message: string; reason: string; run?: TestRun; verdict?: Verdict; proof?: TestProof; stop?: 'budget-exhausted'; stopDetail?: string }
  | { outcome: 'tests-failed'; run: TestRun; verdict: Verdict };

export interface JudgeDeps {
  limits: { maxChangedFiles: number; maxChangedLines: number };
  /** The run on the untouched code (the start of the loop). */
  baseline: TestRun;
  /** The harness's test run with the gate's verdict (verify/session.ts judges once). */
  runTests: () => Promise<JudgedRun>;
  /** A run the judge made, for the transcript and the progress (the gate run with its verdict, the proof's run). */
  onRun?: (iteration: number, run: TestRun, verdict?: Verdict) => void;
  budget?: { exceeded(): { message: string } | null };
  /** The test-integrity guard on the attempt's diff: a refusal for the model, and the findings the tests decide. */
  guard?: (tree: string, changedFiles: string[]) => Promise<{ refusal: string | null; deferred: IntegrityFinding[]; vacuous?: VacuousTest[]; testDelta?: number }>;
  /**
   * The fail-to-pass proof (verify/proof.ts) of the attempt: the change's test edits on the
   * original code, then the fix; the working tree is left at `tree`. Absent: no proof can be made.
   */
  prove?: (tree: string, changes: FileChange[], run: TestRun) => Promise<TestProof>;
  /**
   * The original-test gate (verify/original.ts) with changed expectations (verify/expectation.ts):
   * a refusal for the model or null, and the changed expectations the tests proved. `proof` makes
   * the proof when a failure may be a changed expectation (the edited test on the original code).
   */
  originalTests?: (tree: string, run: TestRun, verdict: Verdict, proof: () => Promise<TestProof | undefined>) => Promise<{ refusal: string | null; changedExpectations: ChangedExpectation[] }>;
  /** Guard findings the tests confirmed (a skip the runner reports, an updated snapshot not proven): for the report's list of refusals. */
  refusedFindings?: (findings: IntegrityFinding[]) => void;
  /** A follow-up on a verified change (fix/follow-up-gate.ts): a refusal, or null; with it a passing baseline needs no proof. */
  followUp?: (run: TestRun, changedFiles: string[]) => string | null;
  /**
   * What in the attempt's source change games the tests (guard/gaming/): the model is told once
   * per construct (a construct it was told about and keeps is accepted, and the report never calls
   * it fixed: fix/explain.ts), or refused every time under `refuse` (policy `gate.gaming`).
   */
  gaming?: { find: (tree: string, changedFiles: string[]) => Promise<GamingFinding[]>; policy: 'draft' | 'refuse' };
  /** Test edits that alone make failing tests pass (verify/intel.ts): why that refuses, or null. */
  testEditsAlone?: (proof: TestProof) => string | null;
}

/** The proof of the attempt, made once whichever check asks first. */
async function proofOf(s: AttemptState, d: JudgeDeps): Promise<TestProof | undefined> {
  if (s.proof || !d.prove || !s.run) return s.proof;
  s.proof = withEvidence(await d.prove(s.tree, s.changes, s.run), s.vacuous ?? [], d.baseline);
  if (s.proof.withoutFix) d.onRun?.(s.iteration, s.proof.withoutFix);
  return s.proof;
}

const pass: CheckVerdict = { pass: true };

/** The ordered checks. Each reads the state and may add to it; the first refusal decides. */
export function attemptChecks(d: JudgeDeps): AttemptCheck[] {
  const checks: AttemptCheck[] = [
    {
      name: 'size',
      check: async (s) => {
        const lines = s.changes.reduce((n, c) => n + c.additions + c.deletions, 0);
        if (s.changes.length <= d.limits.maxChangedFiles && lines <= d.limits.maxChangedLines) return pass;
        return {
          pass: false,
          forReport: 'diff over the size limits',
          toModel: `The change is too large: ${s.changes.length} files and ${lines} changed lines; the limits are ${d.limits.maxChangedFiles} files and ${d.limits.maxChangedLines} lines. Shrink it to the smallest change that fixes the problem, then call finish again.`,
        };
      },
    },
    {
      name: 'budget',
      check: async () => {
        const over = d.budget?.exceeded();
        return over ? { pass: false, forReport: `not verified: ${over.message}`, toModel: `Not verified: ${over.message}.`, stop: 'budget-exhausted', stopDetail: over.message } : pass;
      },
    },
    {
      name: 'test-integrity',
      check: async (s) => {
        if (!d.guard) return pass;
        const g = await d.guard(s.tree, s.changedFiles);
        s.deferred = g.deferred;
        if (g.vacuous?.length) s.vacuous = g.vacuous;
        if (g.testDelta !== undefined) s.testDelta = g.testDelta;
        return g.refusal ? { pass: false, forReport: 'refused by the test-integrity guard', toModel: g.refusal } : pass;
      },
    },
    {
      name: 'tests',
      check: async (s) => {
        const { run, verdict } = await d.runTests();
        s.run = run;
        s.verdict = verdict;
        d.onRun?.(s.iteration, run, verdict);
        if (verdict.ok) return pass;
        // A skip marker that skips a test that ran before is said as such, not as a failing run.
        return skippedRefusal(s, d) ?? { pass: false, forReport: verdict.summary, toModel: verdict.summary, testsFailed: true };
      },
    },
    {
      // Skip markers are judged by what the runner reports before and after, not by the lines.
      name: 'skipped-tests',
      check: async (s) => skippedRefusal(s, d) ?? pass,
    },
    {
      // A test case removed from one place and added elsewhere with the same body is a move only
      // when the runner reports it passing at its new place (not skipped, not missing, not failing).
      name: 'moved-tests',
      check: async (s) => movedRefusal(s, d) ?? pass,
    },
    gamingCheck(d),
    {
      name: 'original-tests',
      check: async (s) => {
        if (!d.originalTests || !s.verdict || !s.run) return pass;
        const r = await d.originalTests(s.tree, s.run, s.verdict, () => proofOf(s, d));
        s.changedExpectations = r.changedExpectations;
        if (r.refusal) return { pass: false, forReport: 'refused by the original-test gate', toModel: r.refusal };
        // An updated snapshot stands only as the changed expectation of its own test file.
        const proven = new Set(r.changedExpectations.map((c) => c.file).filter(Boolean));
        // Runners whose ids name no file (node:test, tap): the files the proof ran the changed expectations from.
        if (r.changedExpectations.some((c) => !c.file)) for (const f of s.proof?.testFiles ?? []) proven.add(f);
        const snapshots = s.deferred.filter((f) => f.judgedBy === 'changed-expectation' && !proven.has(snapshotOwner(f.file) ?? ''));
        if (snapshots.length) {
          d.refusedFindings?.(snapshots);
          return { pass: false, forReport: 'refused by the test-integrity guard (snapshot)', toModel: renderRefusal(snapshots) };
        }
        return pass;
      },
    },
    {
      name: 'follow-up',
      check: async (s) => {
        const problem = d.followUp && s.run ? d.followUp(s.run, s.changedFiles) : null;
        return problem ? { pass: false, forReport: 'refused by the follow-up gate', toModel: problem } : pass;
      },
    },
    {
      // The fail-to-pass proof, made once, here at the latest: the report's proof is the accepted attempt's.
      name: 'proof',
      check: async (s) => {
        await proofOf(s, d);
        return pass;
      },
    },
    {
      name: 'test-edits-alone',
      check: async (s) => {
        const alone = s.proof && d.testEditsAlone ? d.testEditsAlone(s.proof) : null;
        if (!alone) return pass;
        return {
          pass: false,
          forReport: 'refused by the fail-to-pass proof (the test edits alone make failing tests pass)',
          toModel: [
            `REFUSED by the fail-to-pass proof: ${alone}`,
            'Fix the code under test so that the tests pass because of your source change; keep the tests checking what they checked (new tests may be added next to them). Then call finish again.',
          ].join('\n'),
        };
      },
    },
    {
      // The tests passed before any edit, so passing now proves nothing by itself (a follow-up has its own check above).
      name: 'shows-the-problem',
      check: async (s) => {
        if (!d.baseline.succeeded || d.followUp) return pass;
        if (s.proof?.status === 'proven') {
          s.acceptedNote = '; the new test fails without the fix.';
          return pass;
        }
        return { pass: false, forReport: 'no test shows the problem', toModel: noProofMessage(s) };
      },
    },
  ];
  return checks;
}

/**
 * The tests pass: does the source change game them? Refused the first time each construct is
 * seen (the model is told what and asked for a general fix), every time under `refuse`.
 */
function gamingCheck(d: JudgeDeps): AttemptCheck {
  const told = new Set<string>();
  const key = (f: GamingFinding) => `${f.kind}\0${f.file}\0${f.code}`;
  return {
    name: 'games-the-tests',
    check: async (s) => {
      if (!d.gaming) return pass;
      const found = await d.gaming.find(s.tree, s.changedFiles);
      s.gaming = found;
      if (!found.length) return pass;
      const fresh = found.filter((f) => !told.has(key(f)));
      if (!fresh.length && d.gaming.policy !== 'refuse') return pass;
      for (const f of found) told.add(key(f));
      const kinds = [...new Set(found.map((f) => GAMING_TITLE[f.kind]))].join(', ');
      const after = d.gaming.policy === 'refuse' ? 'The repository policy refuses such a change (gate.gaming: refuse).' : 'If you keep it, the change is never called a fix: it is published as a draft with these constructs named.';
      return { pass: false, forReport: `games the tests: ${kinds}`, toModel: `${gamingRefusal(found)}\n${after}` };
    },
  };
}

/** The skip markers the guard left to the runner, refused when it reports a test skipped that ran before (or cannot tell); null otherwise. */
function skippedRefusal(s: AttemptState, d: JudgeDeps): CheckVerdict | null {
  const markers = s.deferred.filter((f) => f.judgedBy === 'skipped-tests');
  if (!markers.length || !s.run) return null;
  const skipped = newlySkipped(d.baseline, s.run);
  if (skipped !== null && skipped.length === 0) return null;
  const evidence = skipped === null ? 'the test runner does not report skipped tests, so the marker counts as it reads' : `the runner reports ${skipped.length} test(s) skipped that ran before: ${skipped.slice(0, 8).join(', ')}`;
  d.refusedFindings?.(markers);
  return { pass: false, forReport: 'refused by the test-integrity guard (skipped tests)', toModel: `${renderRefusal(markers)}\n(${evidence}.)` };
}

const collapse = (x: string) => x.replace(/\s+/g, ' ').trim();

/** The runner's result for a test given by file and name path: a test whose id ends with that path (in that file, when ids name files). */
export function statusOf(run: { tests: { id: string; status: string; file?: string }[] }, file: string, test: string[]): string | undefined {
  const want = collapse(test.join(' > '));
  const last = collapse(test[test.length - 1] ?? '');
  const namesFiles = run.tests.some((t) => t.file || /\.\w+ > /.test(t.id));
  const inFile = (t: { id: string; file?: string }) => !namesFiles || t.file === file || t.id.startsWith(`${file} > `) || t.id.startsWith(`${file}::`);
  const ends = (t: { id: string }, w: string) => {
    const id = collapse(t.id);
    return id === w || id.endsWith(` > ${w}`) || id.endsWith(`::${w}`) || id.endsWith(` ${w}`);
  };
  const hits = run.tests.filter((t) => inFile(t) && ends(t, want));
  const found = hits.length ? hits : run.tests.filter((t) => inFile(t) && ends(t, last));
  if (!found.length) return undefined;
  return found.every((t) => t.status === 'passed') ? 'passed' : (found.find((t) => t.status !== 'passed')?.status ?? 'passed');
}

/** Moved tests the runner does not report passing at their new place: refused; null when there are none. */
function movedRefusal(s: AttemptState, d: JudgeDeps): CheckVerdict | null {
  const moves = s.deferred.filter((f) => f.judgedBy === 'moved-test' && f.movedTo);
  if (!moves.length || !s.run) return null;
  const run = s.run;
  let bad: IntegrityFinding[];
  let why: string;
  const listsEach = run.tests.length > 0 && run.tests.length >= run.counts.passed + run.counts.failed + run.counts.skipped;
  if (!listsEach && parserTells(run.parsedFrom).countsTests && run.parsedFrom === d.baseline.parsedFrom) {
    // The runner gives counts, not the passing tests: every test of the change must be counted as
    // passing (the passing count grows by the tests added less those removed), none more skipped.
    const grew = run.counts.passed - d.baseline.counts.passed;
    const fine = s.testDelta !== undefined && run.counts.failed === 0 && run.counts.skipped <= d.baseline.counts.skipped && grew >= s.testDelta;
    if (fine) return null;
    bad = moves;
    why = `the runner reports counts, not each test: ${d.baseline.counts.passed} → ${run.counts.passed} passing, ${d.baseline.counts.skipped} → ${run.counts.skipped} skipped, while the change ${s.testDelta === undefined ? 'has test files the guard cannot read' : `adds ${s.testDelta} test case(s) net`}, so the moved tests are not all shown running and passing`;
  } else {
    bad = moves.filter((f) => statusOf(run, f.movedTo!.file, f.movedTo!.test) !== 'passed');
    if (!bad.length) return null;
    why = bad.map((f) => `"${f.movedTo!.test.join(' > ')}" in ${f.movedTo!.file}: ${statusOf(run, f.movedTo!.file, f.movedTo!.test) ?? 'not reported by the test runner'}`).join('; ');
  }
  d.refusedFindings?.(bad);
  return {
    pass: false,
    forReport: 'refused by the test-integrity guard (a moved test does not run and pass)',
    toModel: `${renderRefusal(bad)}\n(A moved test must still run and pass at its new place; after your change: ${why}.)`,
  };
}

/**
 * The proof with what is not evidence set aside: new tests that assert nothing (found by the
 * guard) and new tests that pass on the original code too. They never make a proof; a proof
 * whose only fail-to-pass tests assert nothing is not a proof. Pure.
 */
export function withEvidence(proof: TestProof, vacuous: VacuousTest[], baseline: { tests: { id: string }[]; counts: { passed: number; failed: number; skipped: number } }): TestProof {
  const known = new Set(baseline.tests.map((t) => t.id));
  // a test is new only where the baseline listed every test it ran (a runner giving counts alone names none)
  const listsEach = baseline.tests.length > 0 && baseline.tests.length >= baseline.counts.passed + baseline.counts.failed + baseline.counts.skipped;
  const isVacuous = (id: string) => vacuous.find((v) => statusOf({ tests: [{ id, status: 'passed' }] }, v.file, v.test) !== undefined);
  const notEvidence: string[] = [];
  for (const v of vacuous) notEvidence.push(`${v.test.join(' > ')} (${v.file}): ${v.why}`);
  for (const t of proof.tests) {
    if (listsEach && !known.has(t.id) && t.before === 'passed' && t.after === 'passed' && !isVacuous(t.id)) notEvidence.push(`${t.id}: passes on the original code too`);
  }
  if (!notEvidence.length) return proof;
  const out: TestProof = { ...proof, notEvidence };
  if (proof.status !== 'proven' || !proof.tests.length) return out;
  const provenIds = proof.tests.filter((t) => (t.before === 'failed' || t.before === 'missing') && t.after === 'passed');
  const real = provenIds.filter((t) => !isVacuous(t.id));
  if (real.length === provenIds.length) return out;
  if (!real.length) {
    return { ...out, status: 'not-proven', detail: `No fail-to-pass proof: the only tests that fail before and pass after assert nothing (${vacuous.map((v) => v.test.join(' > ')).join(', ')}).` };
  }
  return { ...out, tests: proof.tests.filter((t) => !isVacuous(t.id)), detail: `${real.length} test(s) in ${proof.testFiles.join(', ')} fail before the fix and pass after it.` };
}

function noProofMessage(s: AttemptState): string {
  const testFiles = s.changedFiles.filter(isTestFile);
  const proof = s.proof;
  if (testFiles.length === 0) {
    return 'The test command already passed before your change, so passing now does not show that the problem is fixed. Add or extend a test that reproduces the problem (it must fail without your source change), then call finish again.';
  }
  if (!proof) return 'The test command already passed before your change, and no fail-to-pass proof can be made here, so the change cannot be verified.';
  if (proof.notEvidence?.length && proof.status === 'not-proven' && !proof.withoutFix?.succeeded) {
    return `The test command already passed before your change, and your new tests do not show the problem: ${proof.detail} A test counts only when it checks a real value (not a constant, not the same value on both sides), fails on the original code and passes with your fix. Make the test check the behaviour the task describes, then call finish again.`;
  }
  if (proof.withoutFix?.succeeded) {
    return `Your test changes (${testFiles.join(', ')}) also pass on the original code without your source change, so they do not reproduce the problem. Make the test check the behaviour the task describes, then call finish again.`;
  }
  return `The test command already passed before your change, and your test changes (${testFiles.join(', ')}) do not show the problem: ${proof.detail} A changed test must fail on the original code with only your test changes and pass with your fix. Make the test check the behaviour the task describes, then call finish again.`;
}

/** Runs the checks in order; the first refusal decides. */
export async function judgeAttempt(s: AttemptState, checks: AttemptCheck[]): Promise<Judgement> {
  for (const c of checks) {
    const v = await c.check(s);
    if (v.pass) continue;
    if (v.testsFailed && s.run && s.verdict) return { outcome: 'tests-failed', run: s.run, verdict: s.verdict };
    return {
      outcome: 'refused',
      check: c.name,
      message: v.toModel,
      reason: v.forReport,
      ...(s.run ? { run: s.run } : {}),
      ...(s.verdict ? { verdict: s.verdict } : {}),
      ...(s.proof ? { proof: s.proof } : {}),
      ...(v.stop ? { stop: v.stop } : {}),
      ...(v.stopDetail ? { stopDetail: v.stopDetail } : {}),
    };
  }
  if (!s.run || !s.verdict) throw new Error('internal: an attempt was accepted without a test run');
  const changed = s.changedExpectations ?? [];
  const proven = s.acceptedNote ?? '';
  const note = changed.length ? ` ${changed.length} existing expectation(s) changed with the fix (listed in the report): ${changed.slice(0, 5).map((c) => c.test).join(', ')}.` : '';
  return {
    outcome: 'accepted',
    message: `Verified: ${s.verdict.summary}${proven}${note}`,
    run: s.run,
    verdict: s.verdict,
    ...(s.proof ? { proof: s.proof } : {}),
    ...(changed.length ? { changedExpectations: changed } : {}),
    cleared: s.deferred,
  };
}

/** One judge for a loop: the attempt in, the judgement out. */
export type AttemptJudge = (attempt: { iteration: number; tree: string; changes: FileChange[] }) => Promise<Judgement>;

export function createJudge(d: JudgeDeps): AttemptJudge {
  const checks = attemptChecks(d);
  return (a) => judgeAttempt({ ...a, changedFiles: a.changes.map((c) => c.path), deferred: [] }, checks);
}
