/**
 * Turns the raw result of a test command into a `TestRun` (redacted, parsed, counted) and
 * renders the concise feedback the model gets when its change does not pass.
 */
import type { CommandResult } from '../ports/shell.js';
import type { Redactor } from '../redact.js';
import type { TestRun } from '../types.js';
import { parseTestOutput } from './parse.js';
import { packFeedback, type FeedbackOptions } from './feedback.js';

const DEFAULT_TAIL = 4000;

export function toTestRun(result: CommandResult, redactor: Redactor, tailChars = DEFAULT_TAIL): TestRun {
  let output = result.output;
  if (result.spawnError) output += `${output && !output.endsWith('\n') ? '\n' : ''}[could not start the command: ${result.spawnError}]`;
  output = redactor.redact(output);
  const parsed = parseTestOutput(output);
  const fromTests = { passed: 0, failed: 0, skipped: 0 };
  for (const t of parsed.tests) fromTests[t.status]++;
  // The runner's own summary knows about tests it did not list (jest, pytest and vitest
  // list only failures by default); the list knows about failures the summary leaves out
  // (a jest file that did not load). Take the larger of each.
  const totals = parsed.totals;
  const counts = totals
    ? {
        passed: Math.max(totals.passed, fromTests.passed),
        failed: Math.max(totals.failed, fromTests.failed),
        skipped: Math.max(totals.skipped, fromTests.skipped),
      }
    : fromTests;
  const tail = Math.max(0, Math.floor(tailChars));
  return {
    command: redactor.redact(result.command),
    exitCode: result.exitCode,
    timedOut: result.timedOut,
    durationMs: result.durationMs,
    succeeded: result.exitCode === 0 && !result.timedOut,
    tests: parsed.tests,
    counts,
    parsedFrom: parsed.parsedFrom,
    outputTail: tail === 0 ? '' : output.slice(-tail),
  };
}

/** `exit 1`, `timed out after 600 s`, `killed (no exit code)`. */
export function describeExit(run: Pick<TestRun, 'exitCode' | 'timedOut' | 'durationMs'>): string {
  if (run.timedOut) return `timed out after ${Math.round(run.durationMs / 1000)} s (process group killed)`;
  if (run.exitCode === null) return 'did not exit normally (killed, or could not start)';
  return `exit code ${run.exitCode}`;
}

/**
 * What the model reads after a failed verification: short, most useful first, capped
 * (see verify/feedback.ts): a token budget (3,000 by default) and, when given, a hard
 * character cap.
 */
export function failureFeedback(run: TestRun, maxChars?: number, opts: Omit<FeedbackOptions, 'maxChars'> = {}): string {
  return packFeedback(run, { ...opts, maxChars });
}
