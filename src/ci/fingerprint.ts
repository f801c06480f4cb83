/**
 * Identity of a CI failure, and whether a local run reproduces it. Pure.
 *
 * The fingerprint names the branch (`agent-fix/ci-<fingerprint>`) and the comment marker, so
 * two failing runs with the same cause land on the same branch and pull request. It is
 * derived from what the failure is, never from when or where it ran:
 *   - the workflow name;
 *   - the failed jobs' names without their matrix suffix (`test (ubuntu, 20)` -> `test`), so
 *     a failure on two matrix legs is the same failure as on one;
 *   - the failing test names, normalized (durations, numbers of the run, case and spacing
 *     removed), sorted; when the log names no test, the first compiler or error lines,
 *     normalized the same way (line and column numbers, hex ids, temp paths removed); when
 *     there are none either, the names of the failed steps.
 * Run ids, attempt numbers, shas and timestamps never enter it.
 */
import { createHash } from 'node:crypto';
import type { TestRun } from '../verify/types.js';
import { stripDuration } from './log-extract.js';

export interface FailedJobFacts {
  name: string;
  failedSteps: string[];
  failingTests: string[];
  errors: string[];
}

/** `test (ubuntu-latest, 20.x)` -> `test`; `build / lint` stays. */
export function baseJobName(name: string): string {
  const t = name.trim();
  const open = t.indexOf(' (');
  return (open > 0 && t.endsWith(')') ? t.slice(0, open) : t).trim();
}

/** Lower-cased, spacing collapsed, trailing duration removed; separators unified to ` > `. */
export function normalizeTestName(name: string): string {
  return stripDuration(name)
    .replace(/\s+(?:›|»|▸|>)\s+/g, ' > ')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase();
}

/** An error line with the parts that change from run to run replaced. */
export function normalizeError(line: string): string {
  return line
    .replace(/\b[0-9a-f]{7,64}\b/gi, '<hex>')
    .replace(/(?:\/tmp|\/var\/folders|\/home\/runner\/work\/_temp)\/[^\s:'")]+/g, '<tmp>')
    .replace(/\d+(?:\.\d+)?/g, '#')
    .replace(/\s+/g, ' ')
    .trim()
    .toLowerCase()
    .slice(0, 200);
}

/** What the failure is, as the fingerprint sees it (exposed for tests and the report). */
export function failureSignature(workflow: string, jobs: FailedJobFacts[]): { workflow: string; jobs: string[]; causes: string[]; basis: 'tests' | 'errors' | 'steps' } {
  const jobNames = [...new Set(jobs.map((j) => baseJobName(j.name).toLowerCase()))].sort();
  const tests = new Set<string>();
  for (const j of jobs) for (const t of j.failingTests) tests.add(normalizeTestName(t));
  if (tests.size > 0) return { workflow: workflow.trim().toLowerCase(), jobs: jobNames, causes: [...tests].sort(), basis: 'tests' };
  const errors = new Set<string>();
  for (const j of jobs) for (const e of j.errors.slice(0, 3)) errors.add(normalizeError(e));
  if (errors.size > 0) return { workflow: workflow.trim().toLowerCase(), jobs: jobNames, causes: [...errors].sort(), basis: 'errors' };
  const steps = new Set<string>();
  for (const j of jobs) for (const s of j.failedSteps) steps.add(s.trim().toLowerCase());
  return { workflow: workflow.trim().toLowerCase(), jobs: jobNames, causes: [...steps].sort(), basis: 'steps' };
}

/** 12 hex characters of sha256 over the signature. */
export function ciFingerprint(workflow: string, jobs: FailedJobFacts[]): string {
  const sig = failureSignature(workflow, jobs);
  return createHash('sha256').update(JSON.stringify([sig.workflow, sig.jobs, sig.basis, sig.causes])).digest('hex').slice(0, 12);
}

// ------------------------------------------------------------------ reproduction

export type Reproduction =
  | { kind: 'reproduced'; matched: string[]; /** The local ids of the failing tests that failed in CI. */ local: string[]; detail: string }
  | { kind: 'not-reproduced'; detail: string };

/** Does a CI test name (from the log) denote the same test as a local test id? */
export function sameTest(ciName: string, localId: string): boolean {
  const a = normalizeTestName(ciName);
  const b = normalizeTestName(localId);
  if (a === '' || b === '') return false;
  if (a === b) return true;
  // one runner prints `file > suite > name`, another just `suite > name` or `name`
  return b.endsWith(` > ${a}`) || a.endsWith(` > ${b}`) || b.endsWith(`::${a}`) || a.endsWith(`::${b}`);
}

/**
 * The baseline (the repository's test command on the failing commit, before any edit)
 * reproduces the CI failure when it fails and, if the log named failing tests and the local
 * run names tests too, at least one of those fails locally. A green baseline is a flaky or
 * environment-only failure; a red one failing only other tests is another problem.
 */
export function checkReproduction(ciTests: string[], baseline: TestRun, ctx: { failedSteps?: string[] } = {}): Reproduction {
  if (baseline.succeeded) {
    const steps = (ctx.failedSteps ?? []).map((s) => `"${s}"`).join(', ');
    const why =
      ciTests.length === 0
        ? `The log names no failing test: the failed step${steps ? ` (${steps})` : ''} may run something other than \`${baseline.command}\` (a linter, a build, a deploy). If so, set the \`test-command\` input to a command that runs what failed; otherwise the failure is flaky or specific to the CI environment. No code was changed.`
        : 'The failure is probably flaky or specific to the CI environment (secrets, services, runner image, timing); no code was changed.';
    return {
      kind: 'not-reproduced',
      detail: `The failing run could not be reproduced: \`${baseline.command}\` passes on the same commit here (${baseline.counts.passed} passed, ${baseline.counts.failed} failed). ${why}`,
    };
  }
  const localFailing = baseline.tests.filter((t) => t.status === 'failed').map((t) => t.id);
  if (ciTests.length === 0 || baseline.tests.length === 0) {
    return { kind: 'reproduced', matched: [], local: [], detail: `\`${baseline.command}\` fails here too on the same commit (exit ${baseline.exitCode ?? 'none'}).` };
  }
  const matched = ciTests.filter((c) => localFailing.some((l) => sameTest(c, l)));
  if (matched.length > 0) {
    const local = localFailing.filter((l) => ciTests.some((c) => sameTest(c, l)));
    return { kind: 'reproduced', matched, local, detail: `${matched.length} of the ${ciTests.length} test(s) that failed in CI fail here too on the same commit.` };
  }
  return {
    kind: 'not-reproduced',
    detail: `The failing run could not be reproduced: \`${baseline.command}\` fails here, but not on the tests that failed in CI (${ciTests.slice(0, 5).map(inline).join(', ')}${ciTests.length > 5 ? ', …' : ''}); locally failing: ${localFailing.slice(0, 5).map(inline).join(', ') || 'none recognised'}. That is a different problem (or an environment difference); no code was changed.`,
  };
}

/** A test name as inline code (log text never renders as markdown or mentions anyone). */
function inline(name: string): string {
  const t = name.replace(/[\r\n`]+/g, ' ').slice(0, 120);
  return `\`${t}\``;
}
