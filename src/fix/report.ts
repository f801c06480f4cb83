/**
 * The fix's report, made once from what the phases returned (values, never a report edited
 * along the way); every end of the pipeline, early or not, goes through `fixResult`.
 */
import type { TestFinding } from '../verify/intel.js';
import { treeLine } from '../workspace/tree-guard.js';
import type { FixResult, RunReport } from './types.js';
import { proofNotAsked } from './plan.js';
import type { Run } from './run.js';
import type { Workbench } from './workbench.js';
import type { Baseline } from './baseline.js';
import type { Loop } from './loop.js';
import type { Change, Checked } from './change.js';
import type { Stop } from './stop.js';
import { foldTests } from './findings.js';

/** What the phases returned, as far as the fix went. */
export interface Phases {
  bench: Workbench;
  commands?: { setup: string | null; test: string };
  baseline?: Baseline;
  loop?: Loop;
  change?: Change;
  checked?: Checked;
}

/** The end of the fix: its outcome, and the trees to publish or keep. */
export interface Ending {
  outcome: Stop['stop'];
  /** The tree to publish (a verified fix). */
  publish?: string;
  /** The best attempt kept for `/agent-fix continue`. */
  keep?: string;
}

export function fixResult(run: Run, p: Phases, end: Ending): FixResult {
  const { task, settings } = run;
  const deps = run.ports;
  const { bench } = p;
  const loop = p.loop?.output;
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
    ...(p.baseline ? { tests: foldTests(p.baseline.intel.record(), findingsOf(run, p)) } : {}),
    ...(loop?.diagnostics ? { diagnostics: loop.diagnostics } : {}),
    changes: p.change?.changes ?? [],
    diff: p.change?.diff ?? '',
    usage: loop?.usage ?? { promptTokens: 0, completionTokens: 0, requests: 0 },
    durationMs: Date.now() - bench.started,
    safety: {
      policy: settings.policySource,
      isolation: [bench.setupIso.line, bench.testIso.line, ...(sb.memoryMb > 0 ? [`memory: ${sb.memoryMb} MiB address space per command`] : []), ...treeLine(bench.touchedByTests)],
      budget: bench.budget.describe(),
      costUsd: bench.budget.costUsd,
      ...(reason === 'budget-exhausted' && loop?.reason === 'budget-exhausted' && loop.stopDetail ? { budgetStop: loop.stopDetail } : {}),
    },
  };
  return { report, tree: end.publish ?? null, baseSha: bench.baseSha, pristineTree: bench.pristineTree, ...(end.keep ? { bestAttempt: { tree: end.keep } } : {}) };
}

/** What the plan and each phase found about the tests, in order: the report folds them once. */
export function findingsOf(run: Pick<Run, 'plan'>, p: Pick<Phases, 'loop' | 'change' | 'checked'>): TestFinding[] {
  const notAsked = proofNotAsked(run.plan);
  return [...(notAsked ? [{ kind: 'proof-not-asked' as const, why: notAsked }] : []), ...(p.loop?.findings ?? []), ...(p.change?.findings ?? []), ...(p.checked?.findings ?? [])];
}
