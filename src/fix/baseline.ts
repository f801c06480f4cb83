/**
 * The fix's second phase, the baseline: the tests on the untouched code, judged by the plan
 * (CI repair: it must reproduce the failure), and the gate rule every attempt is held to.
 */
import type { TestRun } from '../verify/types.js';
import { createTestIntel, type Intel } from '../verify/intel.js';
import { taskTargets, type GateRule } from '../verify/compare.js';
import type { Run } from './run.js';
import type { Commands } from './workbench.js';
import { stop, tail, type Stop } from './stop.js';

export interface Baseline {
  /** The test session of the run (verify/intel.ts); the report reads its record once. */
  intel: Intel;
  baseline: TestRun;
  /** The tree the baseline ran on: the model's change is measured against it. */
  baselineTree: string;
}

/** The baseline run and its session, made before the run may stop on it (the report shows the run either way). */
export async function runBaseline(run: Run, commands: Commands): Promise<Baseline> {
  const { task, settings, progress, emit } = run;
  const { git, redactor } = run.ports;
  progress({ type: 'phase', phase: { kind: 'baseline' }, state: 'running', detail: commands.test });
  progress({ type: 'waiting', on: 'the tests (baseline, untouched code)' });
  const baselineTree = await git.snapshot();
  const intel = await createTestIntel({ git, task, settings, redactor, testCommand: commands.test, detection: commands.detection, baselineTree, exec: commands.run, scratch: commands.scratch, exportFile: commands.exportFile });
  const baseline = await intel.session.runBaseline();
  emit({ type: 'test-run', purpose: 'verify', iteration: 0, run: baseline });
  progress({ type: 'phase', phase: { kind: 'baseline' }, state: notRunnable(baseline) ? 'failed' : 'done', detail: `${commands.test}: ${runLine(baseline)}` });
  return { intel, baseline, baselineTree };
}

/** The gate rule of the run, or why the baseline is no start (the command cannot run; the plan refuses it). */
export function judgeBaseline(run: Run, b: Baseline, testCommand: string): GateRule | Stop {
  const { task, plan, settings, words } = run;
  const { log } = run.ports;
  const { baseline } = b;
  if (notRunnable(baseline)) {
    return stop('error', 'not-applicable', `The test command \`${testCommand}\` could not be run (exit 127: command not found). Set ${words.setting('test-command')}. Output:\n${tail(baseline.outputTail, 800)}`);
  }
  const accepted = plan.acceptBaseline?.(baseline);
  if (accepted && !accepted.ok) return stop('skipped', accepted.reason, accepted.detail);
  // Failures that predate any edit: the ones the task is about must pass; the others may
  // remain (input preexisting-failures), and the report lists them as still failing.
  const targets = accepted?.targets ?? taskTargets(baseline, `${task.title}\n${task.goal}`);
  const gate: GateRule = targets === 'all' || settings.preexistingFailures === 'block' ? { preexisting: 'block' } : { preexisting: 'allow', targets };
  if (!baseline.succeeded && gate.preexisting === 'allow' && targets !== 'all' && targets.length) log(`The task is about ${targets.length} failing test(s): ${targets.slice(0, 5).join(', ')}${targets.length > 5 ? ', …' : ''}`);
  return gate;
}

function notRunnable(baseline: TestRun): boolean {
  return baseline.exitCode === 127 && baseline.tests.length === 0;
}

/** A test run in one line of plain text: `fails (exit 1; 2 passed, 2 failed)`. */
function runLine(run: TestRun): string {
  const exit = run.timedOut ? 'timed out' : `exit ${run.exitCode ?? 'none'}`;
  const c = run.counts;
  const counts = run.parsedFrom === 'none' ? 'no per-test results parsed' : `${c.passed} passed, ${c.failed} failed`;
  return `${run.succeeded ? 'passes' : 'fails'} (${exit}; ${counts})`;
}
