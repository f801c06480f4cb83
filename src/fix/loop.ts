/**
 * The fix's fourth phase, the loop: the model's attempts, each judged in one place
 * (verify/judge.ts), or, for a change made without the model (a rebase), that change judged
 * once as the only attempt.
 */
import type { FileChange, GitPort } from '../ports/git.js';
import type { JudgedRun, TestProof, TestRun, Verdict } from '../verify/types.js';
import type { GateRule } from '../verify/compare.js';
import type { Intel, TestFinding } from '../verify/intel.js';
import type { IntegrityFinding } from '../guard/test-integrity.js';
import type { Budget } from '../budget/budget.js';
import { createJudge, type AttemptJudge } from '../verify/judge.js';
import { runAgentLoop, type LoopEvent, type LoopOutput } from '../agent/loop.js';
import { judgeFollowUp } from './follow-up-gate.js';
import { loopProgress } from './progress.js';
import { changedPaths, composeChange } from './compose.js';
import type { FixEvent } from './types.js';
import type { Run } from './run.js';
import type { Workbench } from './workbench.js';
import type { Baseline } from './baseline.js';
import type { Context } from './context.js';

type FollowUpCheck = (run: TestRun, changed: string[]) => string | null;

/** What the loop phase returns: the loop's output and what its judge found about the tests. */
export interface Loop {
  output: LoopOutput;
  /** The judge's test findings (refusals, the original-test gate's runs), in order. */
  findings: TestFinding[];
  /** Guard findings the accepted attempts cleared by what their tests did: the published change's guard passes them. */
  cleared: IntegrityFinding[];
}

export async function runLoop(run: Run, bench: Workbench, b: Baseline, gate: GateRule, ctx: Context): Promise<Loop> {
  const { task, plan, settings, emit, progress } = run;
  const deps = run.ports;
  const { git, redactor } = deps;
  const { intel, baseline } = b;
  const attempts = loopProgress(progress);
  const loopEmit = (e: LoopEvent) => {
    emit(e);
    attempts.onLoop(e);
  };
  const found: { findings: TestFinding[]; cleared: IntegrityFinding[] } = { findings: [], cleared: [] };
  const followUp: FollowUpCheck | undefined = plan.followUp ? (run, changed) => judgeFollowUp(baseline, run, changed, plan.followUp!) : undefined;
  const change = plan.change;
  const limits = { maxIterations: settings.maxIterations, maxChangedFiles: settings.maxChangedFiles, maxChangedLines: settings.maxChangedLines, maxTurns: settings.maxIterations * 25, maxTokens: 0 };
  const runTests = (): Promise<JudgedRun> => intel.session.runForLoop(gate);
  const loop =
    change.by === 'candidate'
      ? await checkCandidate(change, { git, baseTree: `${bench.baseSha}^{tree}`, runGate: () => intel.session.runGate(gate), followUp, emit })
      : await runAgentLoop(task, {
          model: deps.model,
          tools: ctx.tools,
          git,
          runTests,
          baseline,
          baselineTree: ctx.loopTree,
          judge: attemptJudge({ git, intel, limits, baseline, baselineTree: b.baselineTree, gate, runTests, budget: bench.budget, emit: loopEmit, followUp, fromCheckout: change.from !== 'tree', found }),
          gate,
          limits,
          redact: (t) => redactor.redact(t),
          emit: loopEmit,
          budget: bench.budget,
          feedback: intel.feedback,
          context: ctx.repoContext ?? undefined,
          contextTokens: settings.contextTokens,
          ...(settings.maxInputTokens ? { maxInputTokens: settings.maxInputTokens } : {}),
          ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
          diagnostics: ctx.diagnostics ?? undefined,
          interrupt: deps.checkpoint,
          start: ctx.start,
        }).finally(() => ctx.diagnostics?.dispose());
  attempts.end(`stopped: ${loop.reason}${loop.stopDetail ? ` (${redactor.redact(loop.stopDetail)})` : ''}`);
  return { output: loop, findings: found.findings, cleared: found.cleared };
}

/**
 * Every check of an attempt, in one place (verify/judge.ts), given what the story holds: the
 * workspace, the test session, the gate rule. `fromCheckout`: the loop starts from the checkout;
 * a start other than the checkout (a rebase's merge) carries the base's own changes, so no proof
 * of the model's edits is made from there and the original-test gate does not judge it (a
 * follow-up's own gate decides).
 */
function attemptJudge(c: {
  git: GitPort;
  intel: Intel;
  limits: { maxChangedFiles: number; maxChangedLines: number };
  baseline: TestRun;
  baselineTree: string;
  gate: GateRule;
  runTests: () => Promise<JudgedRun>;
  budget: Budget;
  emit: (e: LoopEvent) => void;
  followUp?: FollowUpCheck;
  fromCheckout: boolean;
  /** Where the judge's findings go while the loop runs (the loop phase returns them). */
  found: { findings: TestFinding[]; cleared: IntegrityFinding[] };
}): AttemptJudge {
  const { findings, cleared } = c.found;
  const refused = (line: string) => findings.push({ kind: 'refusal', line });
  const { git, intel } = c;
  /**
   * The fail-to-pass proof of an attempt: its change composed on the tree the baseline ran on
   * (nothing the test runs left behind), the proof's runs there, then the working tree back at
   * the attempt's tree.
   */
  const prove = async (tree: string, changes: FileChange[], run: TestRun): Promise<TestProof> => {
    await git.restore(tree);
    const fixTree = await composeChange(git, c.baselineTree, changedPaths(changes));
    try {
      return await intel.prove(c.baselineTree, fixTree, changes, run);
    } finally {
      await git.restore(tree);
    }
  };
  const judge = createJudge({
    limits: c.limits,
    baseline: c.baseline,
    runTests: c.runTests,
    budget: c.budget,
    onRun: (iteration, run, verdict) => c.emit({ type: 'test-run', purpose: 'verify', iteration, run, ...(verdict ? { verdict } : {}) }),
    guard: async (tree, changedFiles) => {
      const g = await intel.guard(tree, changedFiles);
      g.refusals.forEach(refused);
      return g;
    },
    refusedFindings: (list) => {
      for (const f of list) refused(`[${f.category}] ${f.reason}`);
    },
    ...(c.fromCheckout
      ? {
          prove,
          testEditsAlone: (proof: TestProof) => {
            const why = intel.testEditsAlone(proof);
            if (why) refused(`[test-edits-alone] ${why}`);
            return why;
          },
          originalTests: async (tree: string, run: TestRun, verdict: Verdict, proof: () => Promise<TestProof | undefined>) => {
            const r = await intel.originalTests(tree, run, verdict, c.gate, proof);
            findings.push(...r.findings);
            return r;
          },
          gaming: { find: (tree: string, changedFiles: string[]) => intel.gaming(tree, changedFiles), policy: intel.gamingPolicy },
        }
      : {}),
    ...(c.followUp ? { followUp: c.followUp } : {}),
  });
  // What the tests cleared of the guard's findings (a changed snapshot proven, a skip marker that skips nothing) passes the published change's guard too.
  return async (a) => {
    const j = await judge(a);
    if (j.outcome === 'accepted') cleared.push(...j.cleared);
    return j;
  };
}

/**
 * Verifies a change made without the model as one attempt: the working tree becomes the
 * candidate, the gate runs once (re-run for flakiness like any gate run), and the verdict is
 * the gate's plus the follow-up check. Returns what the agent loop would have returned.
 */
async function checkCandidate(
  candidate: { tree: string; summary: string },
  c: { git: GitPort; baseTree: string; runGate: () => Promise<JudgedRun>; followUp?: FollowUpCheck; emit: (e: FixEvent) => void },
): Promise<LoopOutput> {
  const changes = await c.git.changes(c.baseTree, candidate.tree);
  const touched = changedPaths(changes);
  await c.git.restore(candidate.tree);
  const { run, verdict: gateVerdict } = await c.runGate();
  let verdict = gateVerdict;
  const problem = verdict.ok && c.followUp ? c.followUp(run, changes.map((ch) => ch.path)) : null;
  if (problem) verdict = { ...verdict, ok: false, summary: `${verdict.summary}; ${problem}` };
  c.emit({ type: 'test-run', purpose: 'verify', iteration: 1, run, verdict });
  const attempt = { iteration: 1, summary: candidate.summary, verdict, changedFiles: changes.map((ch) => ch.path), rolledBack: false };
  return {
    reason: verdict.ok ? 'verified' : 'tests-still-failing',
    summary: candidate.summary,
    iterations: 1,
    attempts: [attempt],
    final: run,
    usage: { promptTokens: 0, completionTokens: 0, requests: 0 },
    tree: candidate.tree,
    touched,
  };
}
