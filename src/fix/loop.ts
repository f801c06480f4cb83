/**
 * The fix's fourth phase, the loop: the model's attempts, each judged in one place
 * (verify/judge.ts), or, for a change made without the model (a rebase), that change judged
 * once as the only attempt.
 */
import type { FileChange, GitPort } from '../ports/git.js';
import type { Task } from '../task/types.js';
import type { Settings } from '../settings/types.js';
import type { JudgedRun, TestProof, TestRun, Verdict } from '../verify/types.js';
import type { GateRule } from '../verify/compare.js';
import type { Intel } from '../verify/intel.js';
import type { Budget } from '../budget/budget.js';
import { createJudge, type AttemptJudge } from '../verify/judge.js';
import { runAgentLoop, type LoopEvent, type LoopOutput } from '../agent/loop.js';
import { DEFAULT_CONTEXT_TOKENS } from '../agent/prompt.js';
import { judgeFollowUp } from './follow-up-gate.js';
import { loopProgress, type ProgressSink } from './progress.js';
import { changedPaths, composeChange } from './compose.js';
import type { FixDeps } from './types.js';
import type { FixPlan } from './plan.js';
import type { Workbench } from './workbench.js';
import type { Baseline } from './baseline.js';
import type { Context } from './context.js';

type FollowUpCheck = (run: TestRun, changed: string[]) => string | null;

export async function runLoop(task: Task, plan: FixPlan, deps: FixDeps, settings: Settings, bench: Workbench, b: Baseline, ctx: Context, progress: ProgressSink): Promise<LoopOutput> {
  const { git, redactor } = deps;
  const { intel, baseline } = b;
  const emit = deps.emit ?? (() => undefined);
  const attempts = loopProgress(progress);
  const loopEmit = (e: LoopEvent) => {
    deps.emit?.(e);
    attempts.onLoop(e);
  };
  const followUp: FollowUpCheck | undefined = plan.followUp ? (run, changed) => judgeFollowUp(baseline, run, changed, plan.followUp!) : undefined;
  const change = plan.change;
  const limits = { maxIterations: settings.maxIterations, maxChangedFiles: settings.maxChangedFiles, maxChangedLines: settings.maxChangedLines, maxTurns: settings.maxIterations * 25, maxTokens: 0 };
  const runTests = (): Promise<JudgedRun> => intel.session.runForLoop();
  const loop =
    change.by === 'candidate'
      ? await checkCandidate(change, { git, baseTree: `${bench.baseSha}^{tree}`, runGate: () => intel.session.runGate(), followUp, emit })
      : await runAgentLoop(task, {
          model: deps.model,
          tools: ctx.tools,
          git,
          runTests,
          baseline,
          baselineTree: ctx.loopTree,
          judge: attemptJudge({ git, intel, limits, baseline, baselineTree: b.baselineTree, gate: b.gate, runTests, budget: bench.budget, emit: loopEmit, followUp, fromCheckout: change.from !== 'tree' }),
          gate: b.gate,
          limits,
          redact: (t) => redactor.redact(t),
          emit: loopEmit,
          budget: bench.budget,
          feedback: intel.feedback,
          context: ctx.repoContext ?? undefined,
          contextTokens: settings.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
          ...(settings.maxInputTokens ? { maxInputTokens: settings.maxInputTokens } : {}),
          ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
          diagnostics: ctx.diagnostics ?? undefined,
          interrupt: deps.checkpoint,
          start: ctx.start,
        }).finally(() => ctx.diagnostics?.dispose());
  attempts.end(`stopped: ${loop.reason}${loop.stopDetail ? ` (${redactor.redact(loop.stopDetail)})` : ''}`);
  return loop;
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
}): AttemptJudge {
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
    guard: (tree, changedFiles) => intel.guard(tree, changedFiles),
    refusedFindings: (findings) => {
      for (const f of findings) intel.refused(`[${f.category}] ${f.reason}`);
    },
    ...(c.fromCheckout
      ? {
          prove,
          testEditsAlone: (proof: TestProof) => {
            const why = intel.testEditsAlone(proof);
            if (why) intel.refused(`[test-edits-alone] ${why}`);
            return why;
          },
          originalTests: (tree: string, run: TestRun, verdict: Verdict, proof: () => Promise<TestProof | undefined>) => intel.originalTests(tree, run, verdict, c.gate, proof),
          gaming: { find: (tree: string, changedFiles: string[]) => intel.gaming(tree, changedFiles), policy: intel.gamingPolicy },
        }
      : {}),
    ...(c.followUp ? { followUp: c.followUp } : {}),
  });
  // What the tests cleared of the guard's findings (a changed snapshot proven, a skip marker that skips nothing) passes the published change's guard too.
  return async (a) => {
    const j = await judge(a);
    if (j.outcome === 'accepted') intel.cleared(j.cleared);
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
  c: { git: GitPort; baseTree: string; runGate: () => Promise<JudgedRun>; followUp?: FollowUpCheck; emit: NonNullable<FixDeps['emit']> },
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
