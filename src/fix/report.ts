/**
 * The fix's report, made once from what the phases returned (values, never a report edited
 * along the way); every end of the pipeline, early or not, goes through `fixResult`.
 */
import type { Task } from '../task/types.js';
import type { Settings } from '../settings/types.js';
import type { LoopOutput } from '../agent/loop.js';
import type { TestIntel } from '../verify/types.js';
import { treeLine } from '../workspace/tree-guard.js';
import type { FixDeps, FixResult, RunReport } from './types.js';
import { proofNotAsked, type FixPlan } from './plan.js';
import type { Workbench } from './workbench.js';
import type { Baseline } from './baseline.js';
import type { Change } from './change.js';
import type { Stop } from './stop.js';

/** What the phases returned, as far as the fix went. */
export interface Phases {
  bench: Workbench;
  commands?: { setup: string | null; test: string };
  baseline?: Omit<Baseline, 'gate'>;
  loop?: LoopOutput;
  change?: Change;
}

/** The end of the fix: its outcome, and the trees to publish or keep. */
export interface Ending {
  outcome: Stop['stop'];
  /** The tree to publish (a verified fix). */
  publish?: string;
  /** The best attempt kept for `/agent-fix continue`. */
  keep?: string;
}

export function fixResult(task: Task, plan: FixPlan, deps: FixDeps, settings: Settings, p: Phases, end: Ending): FixResult {
  const { bench, loop } = p;
  const { status, reason, detail } = end.outcome;
  const { redactor } = deps;
  const sb = bench.sandbox;
  const report: RunReport = {
    status,
    reason,
    detail: redactor.redact(detail),
    task,
    model: deps.model.model,
    scripted: deps.scripted,
    setupCommand: p.commands ? p.commands.setup : settings.setupCommand,
    testCommand: p.commands ? p.commands.test : settings.testCommand,
    baseline: p.baseline?.baseline ?? null,
    final: loop?.final ?? null,
    summary: loop ? redactor.redact(loop.summary) : '',
    iterations: loop?.iterations ?? 0,
    maxIterations: settings.maxIterations,
    attempts: loop?.attempts ?? [],
    ...(p.baseline ? { tests: testsOf(p.baseline.intel.data, plan, p.change) } : {}),
    ...(loop?.diagnostics ? { diagnostics: loop.diagnostics } : {}),
    changes: p.change?.changes ?? [],
    diff: p.change?.diff ?? '',
    usage: loop?.usage ?? { promptTokens: 0, completionTokens: 0, requests: 0 },
    durationMs: Date.now() - bench.started,
    safety: {
      policy: settings.policySource ?? 'the action inputs (no repository policy was read)',
      isolation: [bench.setupIso.line, bench.testIso.line, ...(sb.memoryMb > 0 ? [`memory: ${sb.memoryMb} MiB address space per command`] : []), ...treeLine(bench.touchedByTests)],
      budget: bench.budget.describe(),
      costUsd: bench.budget.costUsd,
      ...(reason === 'budget-exhausted' && loop?.reason === 'budget-exhausted' && loop.stopDetail ? { budgetStop: loop.stopDetail } : {}),
    },
  };
  return { report, tree: end.publish ?? null, baseSha: bench.baseSha, pristineTree: bench.pristineTree, ...(end.keep ? { bestAttempt: { tree: end.keep } } : {}) };
}

/** The test session's record with what the plan and the change add: why no proof was asked, the accepted attempt's proof. */
function testsOf(recorded: TestIntel, plan: FixPlan, change: Change | undefined): TestIntel {
  const notAsked = proofNotAsked(plan);
  return { ...recorded, ...(notAsked ? { proofNotAsked: notAsked } : {}), ...(change?.proof ? { proof: change.proof } : {}) };
}
