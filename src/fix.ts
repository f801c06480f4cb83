/**
 * The fix, shared by the action and the CLI and depending only on ports: a pipeline of named
 * phases over the plan a kind returns (fix/plan.ts):
 *
 *   workbench (sandbox, commands, model check, setup) → baseline (and the gate rule)
 *   → context (start, repository map, tools) → loop (attempts judged by verify/judge.ts)
 *   → publishable change (the model's bytes, guarded) → explanation (fix/explain.ts) → report
 *
 * Each phase returns a value, or a `Stop` that ends the fix; the report is made once, at the end,
 * from those values (fix/report.ts). Publishing (branch, PR, comment) is the callers'.
 */
import type { Task } from './task/types.js';
import type { FixDeps, FixEvent, FixResult } from './fix/types.js';
import { ACTION_WORDING } from './settings/wording.js';
import { FIX_FROM_CHECKOUT, type FixPlan } from './fix/plan.js';
import { checkModel, commandRunner, findCommands, openWorkbench, runSetup, sandboxRefusal } from './fix/workbench.js';
import { judgeBaseline, runBaseline } from './fix/baseline.js';
import { prepareFixContext } from './fix/context.js';
import { runLoop } from './fix/loop.js';
import { publishableChange, refuseChange } from './fix/change.js';
import { explainOutcome } from './fix/explain.js';
import { fixResult, type Phases } from './fix/report.js';
import { isStop } from './fix/stop.js';
import type { ProgressSink } from './fix/progress.js';

export type { FixDeps, FixResult } from './fix/types.js';
export type { FixPlan } from './fix/plan.js';
export { composeChange } from './fix/compose.js';

export async function runFix(task: Task, deps: FixDeps, plan: FixPlan = FIX_FROM_CHECKOUT): Promise<FixResult> {
  const settings = plan.maxCostUsd ? { ...deps.settings, budget: { ...deps.settings.budget, maxCostUsd: plan.maxCostUsd } } : deps.settings;
  const emit: (e: FixEvent) => void = deps.emit ?? (() => undefined);
  const progress: ProgressSink = deps.progress ?? (() => undefined);
  const words = deps.wording ?? ACTION_WORDING;
  const bench = await openWorkbench(deps, settings);
  const end = (p: Phases, outcome: Parameters<typeof fixResult>[5]) => fixResult(task, plan, deps, settings, p, outcome);

  const refused = sandboxRefusal(bench, deps.parentEnv);
  if (refused) return end({ bench }, { outcome: refused.stop });
  const found = await findCommands(deps.git.root, settings, words, deps.log);
  if (isStop(found)) return end({ bench }, { outcome: found.stop });
  const commands = { ...found, run: commandRunner(deps, settings, bench), scratch: bench.box.scratch, exportFile: bench.box.exportFile };
  const noModel = await checkModel(deps, progress);
  if (noModel) return end({ bench, commands }, { outcome: noModel.stop });
  const setupFailed = await runSetup(commands.setup, commands.run, deps, progress, emit);
  if (setupFailed) return end({ bench, commands }, { outcome: setupFailed.stop });

  const baseline = await runBaseline(task, commands, deps, settings, progress, emit);
  const gate = judgeBaseline(task, plan, baseline, commands.test, settings, words, deps.log);
  if (isStop(gate)) return end({ bench, commands, baseline }, { outcome: gate.stop });
  baseline.intel.session.gate = gate;
  const b = { ...baseline, gate };

  const ctx = await prepareFixContext(task, plan, deps, settings, bench, b, emit);
  const loop = await runLoop(task, plan, deps, settings, bench, b, ctx, progress);
  const change = await publishableChange(plan, deps, bench, b, ctx, loop);
  const phases: Phases = { bench, commands, baseline, loop, change };
  const refusal = await refuseChange(plan, bench, b, loop, change, words);
  if (refusal) return end(phases, { outcome: refusal.stop });

  const outcome = explainOutcome(loop, {
    testCommand: commands.test,
    baseline: b.baseline,
    changes: change.changes.length,
    candidate: plan.change.by === 'candidate',
    followUp: plan.followUp,
    proof: change.proof,
    changedExpectations: loop.reason === 'verified' ? (b.intel.data.original?.changedExpectations?.length ?? 0) : 0,
    nothingPublished: words.nothingPublished,
    testEditsAlone: (p) => b.intel.testEditsAlone(p),
    gaming: b.intel.data.gaming ?? [],
  });
  const { publish, keep, ...said } = outcome;
  return end(phases, { outcome: said, ...(publish ? { publish: change.tree } : {}), ...(keep && change.changes.length > 0 ? { keep: change.tree } : {}) });
}
