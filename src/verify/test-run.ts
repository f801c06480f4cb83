/**
 * Turns the raw result of a test command into a `TestRun` (redacted, parsed, counted) and
 * renders the concise feedback the model gets when its change does not pass.
 */
import type { CommandResult } from '../ports/shell.js';
import type { Redactor } from '../redact.js';
import type { TestCase, TestRun } from './types.js';
import { parseTestOutput, type OutputContext, type OutputPackage } from './runners/index.js';
import { stripAnsi } from './runners/text.js';
import { packFeedback, type FeedbackOptions } from './feedback.js';

const DEFAULT_TAIL = 4000;

/** `packages`: a monorepo's workspaces, so that each package's tests carry its directory (verify/runners/). */
export function toTestRun(result: CommandResult, redactor: Redactor, tailChars = DEFAULT_TAIL, packages?: readonly OutputPackage[], ctx: OutputContext = {}): TestRun {
  let output = result.output;
  if (result.spawnError) output += `${output && !output.endsWith('\n') ? '\n' : ''}[could not start the command: ${result.spawnError}]`;
  output = redactor.redact(output);
  const parsed = parseTestOutput(output, packages, ctx);
  parsed.tests = attachDetails(parsed.tests, output);
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
    outputTail: outputTail(output, tail),
    ...(parsed.passedFiles ? { passedFiles: parsed.passedFiles } : {}),
  };
}

/** The last `max` characters of the output, from the start of a line when one begins soon enough. */
function outputTail(output: string, max: number): string {
  if (max === 0) return '';
  if (output.length <= max) return output;
  const tail = output.slice(-max);
  if (output[output.length - max - 1] === '\n') return tail;
  const nl = tail.indexOf('\n');
  return nl >= 0 && nl < 240 ? tail.slice(nl + 1) : tail;
}

const BLOCK_START = /^\s*\d+\) |^\s*● |^_{3,} |^\s*--- FAIL: |^=+ .* =+$|^\s*(?:✖|×|FAIL) /;
const MAX_DETAIL_LINES = 16;

/**
 * Plain output: the failure block of each failing test (its name, then the lines up to the
 * next block), as the test's details, so the feedback can show each assertion diff. The
 * last mention of the name wins (runners print the failure blocks after the listing).
 */
export function attachDetails(tests: TestCase[], output: string): TestCase[] {
  if (!tests.some((t) => t.status === 'failed' && !t.details)) return tests;
  const lines = stripAnsi(output).split(/\r?\n/);
  return tests.map((t) => {
    if (t.status !== 'failed' || t.details) return t;
    const name = t.id.split(/ > |::/).pop()!.trim();
    if (name.length < 3) return t;
    // The name as a block header: at the end of the line, or before `:`, ` (` or ` ___`
    // (jest `● a › name`, mocha `name:`, go `--- FAIL: name (0.00s)`, pytest `___ name ___`).
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const header = new RegExp(`(?:^|[^\\w])${escaped}(?:\\s*$|:|\\s+\\(|\\s+_)`);
    let at = -1;
    for (let i = lines.length - 1; i >= 0; i--) {
      if (header.test(lines[i])) {
        at = i;
        break;
      }
    }
    if (at < 0) return t;
    const block: string[] = [];
    for (let i = at + 1; i < lines.length && block.length < MAX_DETAIL_LINES; i++) {
      if (BLOCK_START.test(lines[i]) && block.some((l) => l.trim())) break;
      block.push(lines[i]);
    }
    const details = block.join('\n').trim();
    return details ? { ...t, details } : t;
  });
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
