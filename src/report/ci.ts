/**
 * Pure renderers of the CI-repair report: the failed run, its failed jobs, and the failing
 * tests in CI, here before the fix (baseline) and after it (final gate). They wrap the shared
 * report (report/render.ts), which shows the test commands, attempts, changes and cost.
 */
import type { RunReport } from '../fix/types.js';
import type { TestRun } from '../verify/types.js';
import { commentMarker, renderReportMarkdown } from './render.js';
import type { CiFailure } from '../ci/context.js';
import { EVIDENCE_LABEL } from '../ci/fingerprint.js';
import { identityOf, matchIdentity } from '../verify/identity.js';
import { sanitizeOneLine } from '../task/sanitize.js';

const MAX_ROWS = 30;

function code(text: string): string {
  const t = text.replace(/[\r\n]+/g, ' ').replace(/\|/g, '\\|');
  const ticks = t.includes('`') ? '``' : '`';
  return `${ticks}${ticks === '``' ? ' ' : ''}${t.length > 160 ? `${t.slice(0, 159)}…` : t}${ticks === '``' ? ' ' : ''}${ticks}`;
}

function runLabel(f: CiFailure): string {
  return `${f.workflowName}${f.runNumber ? ` #${f.runNumber}` : ''}${f.runAttempt > 1 ? ` (attempt ${f.runAttempt})` : ''}`;
}

/** The local tests a CI test name denotes (verify/identity.ts). */
function localMatches(name: string, run: TestRun): TestRun['tests'] {
  const m = matchIdentity(identityOf(name), run.tests.map((t) => identityOf(t.id, t.file)));
  return m ? m.index.map((i) => run.tests[i]) : [];
}

/** Status of a CI test name in a local run. */
export function localStatus(name: string, run: TestRun | null): string {
  if (!run) return '—';
  const hits = localMatches(name, run);
  if (hits.length) return hits.some((t) => t.status === 'failed') ? '**failed**' : hits[0].status;
  if (run.succeeded) return 'passed';
  return 'not listed';
}

export function renderFailingTests(f: CiFailure, before: TestRun | null, after: TestRun | null): string {
  const rows = ['| test | failed run in CI | here, before (same commit) | here, after the fix |', '| --- | --- | --- | --- |'];
  for (const name of f.failingTests.slice(0, MAX_ROWS)) {
    rows.push(`| ${code(name)} | **failed** | ${localStatus(name, before)} | ${localStatus(name, after)} |`);
  }
  // Tests failing here that the CI log did not name.
  const named = new Set(before ? f.failingTests.flatMap((n) => localMatches(n, before).map((t) => t.id)) : []);
  const extra = (before?.tests ?? []).filter((t) => t.status === 'failed' && !named.has(t.id));
  for (const t of extra.slice(0, Math.max(0, MAX_ROWS - f.failingTests.length))) {
    const now = after?.tests.find((x) => x.id === t.id);
    rows.push(`| ${code(t.id)} | not in the log | **failed** | ${now ? (now.status === 'failed' ? '**failed**' : now.status) : after?.succeeded ? 'passed' : after ? 'not listed' : '—'} |`);
  }
  if (rows.length === 2) return '_The log names no failing test; see the errors in the excerpt of the task._';
  const more = f.failingTests.length + extra.length - (rows.length - 2);
  return rows.join('\n') + (more > 0 ? `\n\n… and ${more} more.` : '');
}

/** The failed run, its failed jobs and steps, and the failing tests before and after. */
export function renderCiSection(f: CiFailure, r: Pick<RunReport, 'baseline' | 'final'>): string {
  const out: string[] = [];
  out.push(`**Failed run**: [${runLabel(f)}](${f.runUrl}) on \`${f.headBranch}\` at \`${f.headSha.slice(0, 7)}\` (event \`${f.event}\`)${f.pullRequest ? `, pull request #${f.pullRequest}` : ''}.`);
  const jobs = ['| failed job | failed steps |', '| --- | --- |'];
  for (const j of f.jobs) {
    const name = j.url ? `[${j.name.replace(/[[\]|]/g, ' ')}](${j.url})` : code(j.name);
    jobs.push(`| ${name} | ${j.failedSteps.map(code).join(', ') || '—'}${j.logProblem ? ` (log not read: ${j.logProblem})` : ''} |`);
  }
  out.push(jobs.join('\n'));
  out.push(`**Failing tests**\n\n${renderFailingTests(f, r.baseline, r.final)}`);
  // (a refusal's reason is the report's own detail: not repeated here)
  const rep = f.reproduction;
  if (rep?.kind === 'reproduced') out.push(`**Reproduced here** (evidence: ${EVIDENCE_LABEL[rep.evidence]}): ${rep.detail}`);
  out.push(`<sub>Failure fingerprint \`${f.fingerprint}\` (from the workflow, the branch, the failed jobs and the failing ${f.basis}): a later run failing the same way updates this same branch and pull request.</sub>`);
  return out.join('\n\n');
}

export function renderCiPrTitle(f: CiFailure): string {
  const what = f.failingTests.length === 1 ? sanitizeOneLine(f.failingTests[0], 80) : f.failingTests.length > 1 ? `${f.failingTests.length} failing tests` : f.jobs.map((j) => j.name).join(', ');
  const t = `agent-fix: repair ${f.workflowName} on ${f.headBranch}: ${what}`.replace(/\s+/g, ' ');
  return t.length > 120 ? `${t.slice(0, 119)}…` : t;
}

export function renderCiPrBody(r: RunReport, f: CiFailure): string {
  const review = `> Opened by agent-fix to repair the failed run [${runLabel(f)}](${f.runUrl}), for a human to review. It is not merged automatically.`;
  return `${commentMarker(r.task.key)}\n${review}\n\n${renderCiSection(f, r)}\n\n${renderReportMarkdown(r, { diff: false })}\n`;
}

export function renderCiStartComment(key: string, f: CiFailure, runUrl?: string): string {
  return `${commentMarker(key)}\n**agent-fix** is repairing the failed run [${runLabel(f)}](${f.runUrl})${runUrl ? ` ([agent-fix run](${runUrl}))` : ''}: reproducing the failure at \`${f.headSha.slice(0, 7)}\`, then asking the model for a small fix that the tests confirm. This comment will be updated with the outcome.\n`;
}

export function renderCiFinalComment(r: RunReport, f: CiFailure): string {
  const lines = [commentMarker(r.task.key)];
  if (r.status === 'fixed' && r.prUrl) lines.push(`**agent-fix** opened ${r.prUrl} (into \`${f.headBranch}\`) to repair [${runLabel(f)}](${f.runUrl}): ${r.detail}`);
  else lines.push(`**agent-fix** looked at the failed run [${runLabel(f)}](${f.runUrl}): ${r.reason === 'not-reproduced' ? 'not reproduced' : r.status}. ${r.detail}`);
  lines.push('', renderCiSection(f, r), '', renderReportMarkdown(r));
  return `${lines.join('\n')}\n`;
}

/** Step summary of the action run. */
export function renderCiSummary(r: RunReport, f: CiFailure): string {
  return `${renderCiSection(f, r)}\n\n${renderReportMarkdown(r, { diff: true })}`;
}

/** Step summary when the run was skipped before any work (fork, own branch, green again...). */
export function renderCiSkipSummary(reason: string, runUrl?: string): string {
  return `### agent-fix: Skipped\n\nThe failed workflow run${runUrl ? ` ([link](${runUrl}))` : ''} was not repaired: ${reason}\n`;
}
