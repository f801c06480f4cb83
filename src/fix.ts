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
import type { FixDeps, FixResult } from './fix/types.js';
import { FIX_FROM_CHECKOUT, type FixPlan } from './fix/plan.js';
import { openRun } from './fix/run.js';
import { checkModel, findCommands, openWorkbench, readyCommands, runSetup, sandboxRefusal } from './fix/workbench.js';
import { judgeBaseline, runBaseline } from './fix/baseline.js';
import { prepareFixContext } from './fix/context.js';
import { runLoop } from './fix/loop.js';
import { checkChange, publishableChange } from './fix/change.js';
import { explainOutcome } from './fix/explain.js';
import { findingsOf, fixResult, type Ending, type Phases } from './fix/report.js';
import { changedExpectationCount } from './fix/findings.js';
import { isStop } from './fix/stop.js';

export type { FixDeps, FixResult } from './fix/types.js';
export type { FixPlan } from './fix/plan.js';
export { composeChange } from './fix/compose.js';

export async function runFix(task: Task, deps: FixDeps, plan: FixPlan = FIX_FROM_CHECKOUT): Promise<FixResult> {
  // The run value: task, plan, ports, the effective settings (the plan's raised budget applied), events.
  const run = openRun(task, deps, plan);
  const bench = await openWorkbench(run);
  const end = (p: Phases, ending: Ending) => fixResult(run, p, ending);

  const refused = sandboxRefusal(run, bench);
  if (refused) return end({ bench }, { outcome: refused.stop });
  const found = await findCommands(run);
  if (isStop(found)) return end({ bench }, { outcome: found.stop });
  const commands = readyCommands(run, bench, found);
  const noModel = await checkModel(run);
  if (noModel) return end({ bench, commands }, { outcome: noModel.stop });
  const setupFailed = await runSetup(run, commands);
  if (setupFailed) return end({ bench, commands }, { outcome: setupFailed.stop });

  const baseline = await runBaseline(run, commands);
  const gate = judgeBaseline(run, baseline, commands.test);
  if (isStop(gate)) return end({ bench, commands, baseline }, { outcome: gate.stop });

  const ctx = await prepareFixContext(run, bench, baseline, gate);
  const loop = await runLoop(run, bench, baseline, gate, ctx);
  const change = await publishableChange(run, bench, baseline, ctx, loop);
  const checked = await checkChange(run, bench, baseline, loop, change);
  const phases: Phases = { bench, commands, baseline, loop, change, checked };
  if (checked.refusal) return end(phases, { outcome: checked.refusal.stop });

  const verified = loop.output.reason === 'verified';
  const outcome = explainOutcome(loop.output, {
    testCommand: commands.test,
    baseline: baseline.baseline,
    changes: change.changes.length,
    candidate: plan.change.by === 'candidate',
    followUp: plan.followUp,
    proof: change.proof,
    changedExpectations: verified ? changedExpectationCount(findingsOf(run, phases)) : 0,
    nothingPublished: run.words.nothingPublished,
    testEditsAlone: (p) => baseline.intel.testEditsAlone(p),
    gaming: checked.gaming,
  });
  const { publish, keep, ...said } = outcome;
  return end(phases, { outcome: said, ...(publish ? { publish: change.tree } : {}), ...(keep && change.changes.length > 0 ? { keep: change.tree } : {}) });
}
