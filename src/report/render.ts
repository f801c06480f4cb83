/** Pure renderers: one RunReport in, text out (PR body, issue comment, step summary, terminal). */
import type { RunReport } from '../fix/types.js';
import type { TestRun } from '../verify/types.js';
import type { Task } from '../task/types.js';
import { renderTestSection } from './test-table.js';

export function commentMarker(taskKey: string): string {
  return `<!-- agent-fix:${taskKey} -->`;
}

const STATUS_TITLE: Record<RunReport['status'], string> = {
  fixed: 'Fixed: the tests confirm it',
  'not-fixed': 'Not fixed',
  skipped: 'Skipped',
  error: 'Error',
};

export function describeRun(run: TestRun | null): string {
  if (!run) return 'not run';
  const exit = run.timedOut ? 'timed out' : `exit ${run.exitCode ?? 'none'}`;
  const c = run.counts;
  const counts = run.parsedFrom === 'none' ? 'no per-test results parsed' : `${c.passed} passed, ${c.failed} failed${c.skipped ? `, ${c.skipped} skipped` : ''}`;
  return `${run.succeeded ? 'pass' : 'FAIL'} (${exit}; ${counts})`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}

function fence(text: string, lang = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${lang}\n${text.replace(/\s+$/, '')}\n${f}`;
}

function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}\n… (${text.length - max} more characters)`;
}

function testTable(r: RunReport): string {
  const rows = [
    '| | command | result |',
    '| --- | --- | --- |',
  ];
  if (r.setupCommand) rows.push(`| setup | \`${r.setupCommand}\` | ran once before the baseline |`);
  rows.push(`| before (baseline, untouched code) | \`${r.testCommand ?? 'none'}\` | ${describeRun(r.baseline)} |`);
  if (r.proof) rows.push(`| fail-to-pass proof: original code + only ${r.proof.testFiles.map((f) => `\`${f}\``).join(', ')} | \`${r.testCommand ?? 'none'}\` | ${describeRun(r.proof.withoutFix)} |`);
  rows.push(`| after (final gate) | \`${r.testCommand ?? 'none'}\` | ${describeRun(r.final)} |`);
  return rows.join('\n');
}

function attemptsList(r: RunReport): string {
  if (r.attempts.length === 0) return '_No attempt reached verification._';
  return r.attempts
    .map((a) => {
      const files = a.changedFiles.length ? a.changedFiles.map((f) => `\`${f}\``).join(', ') : 'no files';
      const mark = a.verdict.ok ? 'verified' : `rejected: ${a.verdict.summary}`;
      const rb = a.rolledBack ? ' (rolled back)' : '';
      return `${a.iteration}. ${mark}${rb}. Changed ${files}.${a.summary ? ` Model said: ${oneLine(a.summary)}` : ''}`;
    })
    .join('\n');
}

function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

function changesList(r: RunReport): string {
  if (r.changes.length === 0) return '_No files changed._';
  return r.changes.map((c) => `- \`${c.path}\` (${c.status}, +${c.additions}/-${c.deletions})`).join('\n');
}

function costLine(r: RunReport): string {
  const u = r.usage;
  return `${r.iterations} of ${r.maxIterations} iteration(s) · ${u.requests} model request(s) · ${u.promptTokens + u.completionTokens} tokens (${u.promptTokens} prompt, ${u.completionTokens} completion) · ${formatDuration(r.durationMs)} · model \`${r.model}\`${r.scripted ? ' (SCRIPTED demo session, not a real model)' : ''}`;
}

function newlyPassing(r: RunReport): string {
  const last = r.attempts[r.attempts.length - 1];
  if (!last) return '';
  const v = last.verdict;
  const parts: string[] = [];
  if (v.nowPassing.length) parts.push(`Now passing: ${v.nowPassing.slice(0, 20).map((t) => `\`${t}\``).join(', ')}`);
  if (v.newlyFailing.length) parts.push(`Newly failing: ${v.newlyFailing.slice(0, 20).map((t) => `\`${t}\``).join(', ')}`);
  if (v.stillFailing.length) parts.push(`Still failing: ${v.stillFailing.slice(0, 20).map((t) => `\`${t}\``).join(', ')}`);
  return parts.join('\n\n');
}

/** The full markdown report, shared by the PR body, the final comment and the step summary. */
export function renderReportMarkdown(r: RunReport, opts: { diff?: boolean } = {}): string {
  const out: string[] = [];
  out.push(`### agent-fix: ${STATUS_TITLE[r.status]}`);
  out.push(r.detail);
  if (r.summary) out.push(`**What changed and why** (the model's summary):\n\n${r.summary.trim()}`);
  out.push(`**Files changed**\n\n${changesList(r)}`);
  out.push(`**Test report**: the harness ran these commands itself; the model's word is not evidence.\n\n${testTable(r)}`);
  if (r.tests) out.push(renderTestSection(r));
  else {
    const np = newlyPassing(r);
    if (np) out.push(np);
  }
  out.push(`**Attempts**\n\n${attemptsList(r)}`);
  out.push(`**Cost**: ${costLine(r)}`);
  if (r.safety) out.push(safetyBlock(r.safety));
  if (r.final && !r.final.succeeded && r.final.outputTail) {
    out.push(`<details><summary>Tail of the last test output</summary>\n\n${fence(cap(r.final.outputTail, 4000))}\n\n</details>`);
  }
  if (opts.diff && r.diff) out.push(`<details><summary>Diff</summary>\n\n${fence(cap(r.diff, 20000), 'diff')}\n\n</details>`);
  if (r.runUrl) out.push(`[Workflow run](${r.runUrl})`);
  return out.join('\n\n');
}

function safetyBlock(s: NonNullable<RunReport['safety']>): string {
  const lines = [`**Safety**: policy: ${s.policy}.`, `- Isolation: ${s.isolation.join('; ')}.`, `- Budget: ${s.budget}.`];
  if (s.budgetStop) lines.push(`- Stopped by the budget: ${s.budgetStop}.`);
  return lines.join('\n');
}

export function renderPrTitle(task: Task): string {
  return `agent-fix: ${oneLine(task.title, 100)}`;
}

export function renderPrBody(r: RunReport): string {
  const head = r.task.issueNumber ? `Fixes #${r.task.issueNumber}\n\n` : '';
  const review = '> Opened by agent-fix for a human to review. It is not merged automatically.';
  return `${commentMarker(r.task.key)}\n${head}${review}\n\n${renderReportMarkdown(r, { diff: false })}\n`;
}

export function renderStartComment(task: Task, runUrl?: string): string {
  const where = runUrl ? ` ([run](${runUrl}))` : '';
  return `${commentMarker(task.key)}\n**agent-fix** is working on this${where}: running the tests, then asking the model for a small fix that the tests confirm. This comment will be updated with the outcome.\n`;
}

export function renderFinalComment(r: RunReport): string {
  const lines = [commentMarker(r.task.key)];
  if (r.status === 'fixed' && r.prUrl) {
    lines.push(`**agent-fix** opened ${r.prUrl} for review: ${r.detail}`);
  } else {
    lines.push(`**agent-fix** finished: ${STATUS_TITLE[r.status].toLowerCase()}. ${r.detail}`);
  }
  lines.push('');
  lines.push(renderReportMarkdown(r));
  return `${lines.join('\n')}\n`;
}

/** Plain text for a terminal. */
export function renderTerminal(r: RunReport): string {
  const out: string[] = [];
  const bar = '─'.repeat(60);
  out.push(bar);
  out.push(`agent-fix: ${STATUS_TITLE[r.status]}${r.scripted ? '   [SCRIPTED model session: a demo, not a real model]' : ''}`);
  out.push(bar);
  out.push(`task:       ${r.task.title}`);
  out.push(`outcome:    ${r.status} (${r.reason}) — ${r.detail}`);
  if (r.branch) out.push(`branch:     ${r.branch}`);
  if (r.prUrl) out.push(`pull req.:  ${r.prUrl}`);
  if (r.setupCommand) out.push(`setup:      ${r.setupCommand}`);
  out.push(`tests:      ${r.testCommand ?? 'none'}${r.tests ? ` (${r.tests.runner}${r.tests.detection ? `; detected: ${r.tests.detection}` : ''})` : ''}`);
  out.push(`  before:   ${describeRun(r.baseline)}`);
  if (r.proof) out.push(`  proof:    ${describeRun(r.proof.withoutFix)} with only ${r.proof.testFiles.join(', ')} on the original code`);
  out.push(`  after:    ${describeRun(r.final)}`);
  if (r.tests?.proof) out.push(`  proof:    ${r.tests.proof.status === 'proven' ? 'fails before, passes after' : 'missing'} — ${r.tests.proof.detail}`);
  out.push('attempts:');
  for (const a of r.attempts) {
    out.push(`  ${a.iteration}. ${a.verdict.ok ? 'verified' : 'rejected'}${a.rolledBack ? ', rolled back' : ''}: ${a.verdict.summary}`);
  }
  if (r.attempts.length === 0) out.push('  (none reached verification)');
  out.push('changed:');
  for (const c of r.changes) out.push(`  ${c.status.padEnd(8)} ${c.path} (+${c.additions}/-${c.deletions})`);
  if (r.changes.length === 0) out.push('  (nothing)');
  if (r.summary) out.push(`summary:    ${oneLine(r.summary, 500)}`);
  if (r.safety) {
    out.push(`policy:     ${r.safety.policy}`);
    for (const line of r.safety.isolation) out.push(`isolation:  ${line}`);
    out.push(`budget:     ${r.safety.budget}`);
  }
  out.push(`cost:       ${r.usage.requests} requests, ${r.usage.promptTokens + r.usage.completionTokens} tokens, ${formatDuration(r.durationMs)}, model ${r.model}`);
  if (r.diff) {
    out.push(bar);
    out.push(cap(r.diff, 8000).trimEnd());
  }
  out.push(bar);
  return out.join('\n');
}

/**
 * Step summary of a run that did not finish (an issue fix or a CI repair): cancelled (SIGINT/SIGTERM), stopped with an
 * error, or yielded to a newer run. `what` says why; `left` what exists now.
 */
export function renderStoppedSummary(heading: 'Cancelled' | 'Error' | 'Superseded' | 'Skipped', what: string, left: string): string {
  return `### agent-fix: ${heading}\n\n${what}\n\n${left}\n`;
}
