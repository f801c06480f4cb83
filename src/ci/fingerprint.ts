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
import { stripDuration, type LogFailure } from './log-extract.js';
import { identityOf, matchIdentity, normaliseFile, type TestIdentity } from '../verify/identity.js';

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

/** What the CI logs say failed, for the reproduction check. */
export interface CiEvidence {
  /** Failing test names (any reporter's form). */
  tests: string[];
  /** Failing tests found by the local-run parsers in the logs, with their identities. */
  failures?: LogFailure[];
  /** Files or packages reported as failing (`FAIL file`, `FAIL pkg`). */
  files?: string[];
  /** Error and assertion lines. */
  errors?: string[];
}

/** What a reproduction rests on, strongest first. */
export type ReproductionEvidence = 'test-identity' | 'file-and-message' | 'command';

export const EVIDENCE_LABEL: Record<ReproductionEvidence, string> = {
  'test-identity': 'the same tests fail here (matched by test identity: file and name path)',
  'file-and-message': 'the log names no test that could be matched; the same test file fails here with the same message',
  command: 'the log names no test that could be matched; the test command fails here the same way',
};

export type Reproduction =
  | {
      kind: 'reproduced';
      evidence: ReproductionEvidence;
      matched: string[];
      /** The local ids of the failing tests that failed in CI. */
      local: string[];
      detail: string;
    }
  | { kind: 'not-reproduced'; detail: string };

/** Does a CI test name (from the log) denote the same test as a local test id? */
export function sameTest(ciName: string, localId: string, localFile?: string): boolean {
  if (normalizeTestName(ciName) === '' || normalizeTestName(localId) === '') return false;
  return matchIdentity(identityOf(ciName), [identityOf(localId, localFile)]) !== null;
}

interface CiTest {
  name: string;
  identity: TestIdentity;
  message?: string;
}

/** The CI's failing tests: the parsers' identities, then names only the line recogniser saw. */
function ciTestsOf(ev: CiEvidence): CiTest[] {
  const out: CiTest[] = (ev.failures ?? []).map((f) => ({ name: f.name, identity: f.identity, message: f.message }));
  const known = out.map((t) => t.identity);
  for (const name of ev.tests) {
    const identity = identityOf(name);
    if (identity.path.length === 0 && identity.file === null) continue;
    if (out.some((t) => t.name === name) || (known.length && matchIdentity(identity, known))) continue;
    out.push({ name, identity });
  }
  return out;
}

/** Messages agree when one normalised form contains the other (numbers, hex ids, temp paths aside). */
function sameMessage(a: string, b: string): boolean {
  const x = normalizeError(a);
  const y = normalizeError(b);
  if (x.length < 8 || y.length < 8) return false;
  return x === y || x.includes(y) || y.includes(x);
}

function fileOfFrame(frame: string | undefined): string | null {
  if (!frame) return null;
  const m = /^(.*?)(?::\d+){1,2}$/.exec(frame);
  return m ? normaliseFile(m[1]) : null;
}

function filesMatch(a: string, b: string): boolean {
  const x = normaliseFile(a).toLowerCase();
  const y = normaliseFile(b).toLowerCase();
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

/**
 * The baseline (the repository's test command on the failing commit, before any edit) reproduces
 * the CI failure when it fails, and:
 *  1. a test that failed in CI fails here, matched by identity (verify/identity.ts); else, when
 *     the log names no test that can be matched here,
 *  2. a test of a file that failed in CI fails here with the same message; else
 *  3. the command fails the same way: the log named no test at all, or an error line of the log
 *     appears in the local failure.
 * A green baseline, or one where the tests that failed in CI pass, is not a reproduction (flaky,
 * environment-only, or another problem); nor is a red one failing otherwise.
 */
export function checkReproduction(ci: string[] | CiEvidence, baseline: TestRun, ctx: { failedSteps?: string[] } = {}): Reproduction {
  const ev: CiEvidence = Array.isArray(ci) ? { tests: ci } : ci;
  const ciTests = ciTestsOf(ev);
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
  const exit = `exit ${baseline.exitCode ?? 'none'}`;
  const failingHere = baseline.tests.filter((t) => t.status === 'failed');
  if (ciTests.length === 0 && (ev.files ?? []).length === 0) {
    return {
      kind: 'reproduced',
      evidence: 'command',
      matched: [],
      local: [],
      detail: `The log names no failing test; \`${baseline.command}\` fails here too on the same commit (${exit}).`,
    };
  }
  if (baseline.tests.length === 0) {
    return {
      kind: 'reproduced',
      evidence: 'command',
      matched: [],
      local: [],
      detail: `\`${baseline.command}\` fails here too on the same commit (${exit}); its output names no test to compare with the log.`,
    };
  }

  // 1. by identity, against every local test: a CI failure found passing here is not reproduced
  const localIds = baseline.tests.map((t) => identityOf(t.id, t.file));
  const matched: string[] = [];
  const local = new Set<string>();
  const passingHere: string[] = [];
  const kinds = new Map<string, number>();
  for (const c of ciTests) {
    const m = matchIdentity(c.identity, localIds);
    if (!m) continue;
    const failed = m.index.filter((i) => baseline.tests[i].status === 'failed');
    if (failed.length) {
      matched.push(c.name);
      for (const i of failed) local.add(baseline.tests[i].id);
      kinds.set(m.kind, (kinds.get(m.kind) ?? 0) + 1);
    } else passingHere.push(c.name);
  }
  if (matched.length > 0) {
    const how = [...kinds].map(([k, n]) => `${n} ${k === 'exact' ? 'exactly' : k === 'levels' ? 'with other describe levels' : k === 'truncated' ? 'by a truncated name' : 'without a parameter'}`).join(', ');
    return {
      kind: 'reproduced',
      evidence: 'test-identity',
      matched,
      local: [...local],
      detail: `${matched.length} of the ${ciTests.length} test(s) that failed in CI fail here too on the same commit (matched by test identity: ${how}).`,
    };
  }
  if (passingHere.length > 0 && passingHere.length === ciTests.length) {
    return {
      kind: 'not-reproduced',
      detail: `The failing run could not be reproduced: the tests that failed in CI pass here on the same commit (${passingHere.slice(0, 5).map(inline).join(', ')}${passingHere.length > 5 ? ', …' : ''}), although \`${baseline.command}\` fails here on others (${failingHere.slice(0, 5).map((t) => inline(t.id)).join(', ') || 'none recognised'}). The CI failure is probably flaky or specific to the CI environment, and the local failures are another problem; no code was changed.`,
    };
  }

  // 2. the same failing file, with the same message
  const ciFiles = [...new Set([...ciTests.map((c) => c.identity.file).filter((f): f is string => !!f), ...(ev.files ?? [])])];
  const ciMessages = [...ciTests.map((c) => c.message).filter((m): m is string => !!m), ...(ev.errors ?? [])];
  const byFile = failingHere.filter((t) => {
    const files = [identityOf(t.id, t.file).file, fileOfFrame(t.frame)].filter((f): f is string => !!f);
    if (!files.some((f) => ciFiles.some((c) => filesMatch(c, f)))) return false;
    if (ciTests.length === 0 && ciMessages.length === 0) return true;
    const texts = [t.message, ...(t.details ?? '').split('\n').slice(0, 12)].filter((x): x is string => !!x && x.trim() !== '');
    return texts.some((x) => ciMessages.some((m) => sameMessage(m, x)));
  });
  if (byFile.length > 0) {
    return {
      kind: 'reproduced',
      evidence: 'file-and-message',
      matched: [],
      local: byFile.map((t) => t.id),
      detail: `None of the ${ciTests.length} test name(s) in the log could be matched here, but ${byFile.length} test(s) of the same failing file fail here with the same message (${byFile.slice(0, 3).map((t) => inline(t.id)).join(', ')}).`,
    };
  }

  // 3. the command fails the same way: an error line of the log appears in the local failure
  const localText = [baseline.outputTail, ...failingHere.flatMap((t) => [t.message ?? '', t.details ?? ''])].join('\n');
  const localLines = localText.split('\n').map((l) => l.trim()).filter((l) => l.length >= 8);
  const shared = ciMessages.find((m) => localLines.some((l) => sameMessage(m, l)));
  if ((shared || ciTests.length === 0) && passingHere.length === 0) {
    return {
      kind: 'reproduced',
      evidence: 'command',
      matched: [],
      local: failingHere.map((t) => t.id),
      detail: shared
        ? `None of the ${ciTests.length} test name(s) in the log could be matched here, but \`${baseline.command}\` fails here the same way (${exit}; the same error: ${inline(shared)}).`
        : `The log names no failing test; \`${baseline.command}\` fails here too on the same commit (${exit}).`,
    };
  }
  return {
    kind: 'not-reproduced',
    detail: `The failing run could not be reproduced: \`${baseline.command}\` fails here, but not on the tests that failed in CI (${ciTests.slice(0, 5).map((c) => inline(c.name)).join(', ')}${ciTests.length > 5 ? ', …' : ''}); locally failing: ${failingHere.slice(0, 5).map((t) => inline(t.id)).join(', ') || 'none recognised'}, with no file and message or error line in common. That is a different problem (or an environment difference); no code was changed.`,
  };
}

/** A test name as inline code (log text never renders as markdown or mentions anyone). */
function inline(name: string): string {
  const t = name.replace(/[\r\n`]+/g, ' ').slice(0, 120);
  return `\`${t}\``;
}
