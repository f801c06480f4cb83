/** Pure renderers: one RunReport in, text out (PR body, issue comment, step summary, terminal). */
import type { RunReport } from '../fix/types.js';
import type { TestRun } from '../verify/types.js';
import type { Task } from '../task/types.js';
import { renderTestSection } from './test-table.js';
import { GAMING_TITLE } from '../guard/gaming/index.js';

export function commentMarker(taskKey: string): string {
  return `<!-- agent-fix:${taskKey} -->`;
}

const STATUS_TITLE: Record<RunReport['status'], string> = {
  fixed: 'Fixed: the tests confirm it',
  'not-fixed': 'Not fixed',
  skipped: 'Skipped',
  error: 'Error',
};

/** The report's title: the status, or what a change that games the tests is. */
export function statusTitle(r: Pick<RunReport, 'status' | 'reason'>): string {
  return r.reason === 'games-the-tests' ? 'Not fixed: the change games the tests' : STATUS_TITLE[r.status];
}

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

/** GitHub refuses an issue, comment or pull request body over 65,536 characters. */
export const GITHUB_BODY_LIMIT = 65_536;

/**
 * Text the harness did not write (the model's words, test names, output excerpts) made inert
 * for GitHub markdown: no HTML (so no hidden comments or fake markers), no images or links,
 * no @mentions or team pings (each becomes inline code), no table or heading syntax. Code
 * spans are kept as they are (GitHub renders nothing inside them).
 */
export function escapeMarkdown(text: string): string {
  return text
    .split(/(`+[^`]*?`+)/g)
    .map((part, i) => (i % 2 === 1 && /^(`+)[^`]*\1$/.test(part) ? part : escapeText(part)))
    .join('');
}

/** What GitHub would turn into a link by itself (GFM autolinks): URLs, `www.` hosts, e-mail addresses. */
const AUTOLINK = /((?:https?:\/\/|www\.)[^\s<>`()]*[^\s<>`().,;:!?'"]|[\w.+-]{1,64}@[\w-]{1,63}\.[\w.-]{0,190}\w)/gi;

/** Plain text outside code spans: autolinks become inline code (never a link), the rest is escaped. */
function escapeText(text: string): string {
  return text
    .split(AUTOLINK)
    .map((part, i) => (i % 2 === 1 ? `\`${part}\`` : escapePlain(part)))
    .join('');
}

function escapePlain(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\*_[\]!|#~])/g, '\\$1')
    .replace(/(^|[^\w`])@([A-Za-z0-9](?:[\w-]*)(?:\/[\w.-]+)?)/g, '$1`@$2`');
}

/** One table cell of outside text: one line, escaped, pipes too (also inside code spans). */
export function cell(text: string, max = 160): string {
  return escapeMarkdown(oneLine(text, max)).replace(/(^|[^\\])\|/g, '$1\\|');
}

/** One table cell shown as code: backticks that fit the text, pipes escaped as GitHub tables require. */
export function codeCell(text: string, max = 160): string {
  const t = oneLine(text, max);
  const longest = Math.max(0, ...[...t.matchAll(/`+/g)].map((m) => m[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${t.replace(/\|/g, '\\|')}${pad}${ticks}`;
}

/**
 * The evidence table of the first screen: each test whose result the change decides (newly
 * passing, newly failing, still failing), before and after (the last attempt when nothing was
 * accepted), then the whole command.
 */
function evidenceTable(r: RunReport, maxRows = 3): string {
  const v = r.attempts[r.attempts.length - 1]?.verdict;
  const rows: [string, string, string][] = [];
  const seen = new Set<string>();
  const add = (list: string[] | undefined, before: string, after: string) =>
    list?.forEach((id) => {
      if (!seen.has(id)) rows.push([id, before, after]);
      seen.add(id);
    });
  add(v?.nowPassing, 'FAIL', 'pass');
  add(v?.newlyFailing, 'pass', 'FAIL');
  add(v?.taskFailures, 'FAIL', 'FAIL');
  add(v?.stillFailing, 'FAIL', 'FAIL');
  if (!v) {
    add(
      r.baseline?.tests.filter((t) => t.status === 'failed').map((t) => t.id),
      'FAIL',
      'not run',
    );
  }
  const after = r.status === 'fixed' ? 'after' : 'last attempt';
  const out = [`| test | before | ${after} |`, '| --- | --- | --- |'];
  // More than fit on the first screen: the first few, then one row for the rest (the transcript has them all).
  const shown = rows.length > maxRows + 1 ? rows.slice(0, maxRows) : rows;
  for (const [id, b, a] of shown) out.push(`| ${codeCell(id)} | ${b} | ${a} |`);
  const more = rows.slice(shown.length);
  if (more.length) {
    const same = more.every(([, b, a]) => b === more[0][1] && a === more[0][2]);
    out.push(`| … ${more.length} more tests (all in the transcript) | ${same ? more[0][1] : ''} | ${same ? more[0][2] : ''} |`);
  }
  out.push(`| whole command ${codeCell(r.testCommand ?? 'none', 100)} | ${describeRun(r.baseline)} | ${describeRun(r.final)} |`);
  return out.join('\n');
}

/**
 * Existing tests whose expectation the fix changed (verify/expectation.ts), on the first screen:
 * never silent, one row each, old → new, for the reviewer to confirm.
 */
/**
 * A change that games the tests (guard/gaming/), on the first screen: each construct named, with
 * where it is and the tests' values it matches. Never folded.
 */
export function gamingBlock(r: RunReport): string {
  const list = r.tests?.gaming ?? [];
  if (!list.length) return '';
  const rows = list.slice(0, 8).map((g) => `- ${escapeMarkdown(GAMING_TITLE[g.kind])}: ${codeCell(g.code, 120)} (${codeCell(`${g.file}:${g.line}`)}): ${escapeMarkdown(oneLine(g.detail, 400))}`);
  if (list.length > 8) rows.push(`- … ${list.length - 8} more (all in the transcript)`);
  return [`**Not a fix: the tests pass because the change games them.** Review it as such; it needs a general fix.`, '', ...rows].join('\n');
}

export function changedExpectationsBlock(r: RunReport): string {
  const list = r.status === 'fixed' ? (r.tests?.original?.changedExpectations ?? []) : [];
  if (!list.length) return '';
  const rows = list.slice(0, 10).map((c) => `| ${codeCell(c.test)} | ${codeCell(c.before, 100)} | ${codeCell(c.now, 100)} |`);
  if (list.length > 10) rows.push(`| … ${list.length - 10} more (all in the transcript) | | |`);
  return [
    `**${list.length} existing expectation${list.length === 1 ? '' : 's'} changed by the fix; review ${list.length === 1 ? 'it' : 'them'}.** Each old test passes on the original code; the edited test fails there and passes with the fix.`,
    '',
    '| test | expected before | expected now |',
    '| --- | --- | --- |',
    ...rows,
  ].join('\n');
}

function diffStats(r: RunReport, published: boolean): string {
  const add = r.changes.reduce((n, c) => n + c.additions, 0);
  const del = r.changes.reduce((n, c) => n + c.deletions, 0);
  const files = r.changes.map((c) => `${codeCell(c.path, 120)} (+${c.additions} −${c.deletions})`).join(', ');
  if (published) {
    if (r.changes.length === 0) return '**No files changed.**';
    return `**${r.changes.length} file${r.changes.length === 1 ? '' : 's'} changed**, +${add} −${del}: ${files}`;
  }
  if (r.changes.length === 0) return '**Nothing was published.**';
  return `**Nothing was published.** The last attempt changed ${files} (not published: it did not pass verification).`;
}

function commandTable(r: RunReport): string {
  const rows = ['| | command | result |', '| --- | --- | --- |'];
  if (r.setupCommand) rows.push(`| setup | ${codeCell(r.setupCommand)} | ran once before the baseline |`);
  rows.push(`| before (baseline, untouched code) | ${codeCell(r.testCommand ?? 'none')} | ${describeRun(r.baseline)} |`);
  const proof = r.tests?.proof;
  if (proof?.withoutFix) rows.push(`| fail-to-pass proof: original code + only ${proof.testFiles.map((f) => codeCell(f, 100)).join(', ')} | ${codeCell(r.testCommand ?? 'none')} | ${describeRun(proof.withoutFix)} |`);
  rows.push(`| after (final gate) | ${codeCell(r.testCommand ?? 'none')} | ${describeRun(r.final)} |`);
  return rows.join('\n');
}

function attemptsList(r: RunReport): string {
  if (r.attempts.length === 0) return '_No attempt reached verification._';
  return r.attempts
    .map((a) => {
      const files = a.changedFiles.length ? a.changedFiles.map((f) => codeCell(f, 120)).join(', ') : 'no files';
      const mark = a.verdict.ok ? 'verified' : `rejected: ${escapeMarkdown(oneLine(a.verdict.summary))}`;
      const rb = a.rolledBack ? ' (rolled back)' : '';
      return `${a.iteration}. ${mark}${rb}. Changed ${files}.${a.summary ? ` The model said (not evidence): ${escapeMarkdown(oneLine(a.summary))}` : ''}`;
    })
    .join('\n');
}

function oneLine(s: string, max = 300): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** The largest single request and its share of the per-request input limit: how close the run came to it. */
export function peakText(u: RunReport['usage']): string {
  if (!u.peakPromptTokens) return '';
  const share = u.inputLimit ? ` (${Math.round((100 * u.peakPromptTokens) / u.inputLimit)} % of the ${u.inputLimit}-token limit per request)` : '';
  return `largest request ${u.peakPromptTokens} tokens${share}`;
}

function costLine(r: RunReport): string {
  const u = r.usage;
  const peak = peakText(u);
  return `${r.iterations} of ${r.maxIterations} iteration(s) · ${u.requests} model request(s) · ${u.promptTokens + u.completionTokens} tokens (${u.promptTokens} prompt, ${u.completionTokens} completion)${peak ? ` · ${peak}` : ''} · ${formatDuration(r.durationMs)} · model ${codeCell(r.model, 80)}${r.scripted ? ' (SCRIPTED demo session, not a real model)' : ''}`;
}

function newlyPassing(r: RunReport): string {
  const last = r.attempts[r.attempts.length - 1];
  if (!last) return '';
  const v = last.verdict;
  const list = (xs: string[]) => xs.slice(0, 20).map((t) => codeCell(t)).join(', ');
  const parts: string[] = [];
  if (v.nowPassing.length) parts.push(`Now passing: ${list(v.nowPassing)}`);
  if (v.newlyFailing.length) parts.push(`Newly failing: ${list(v.newlyFailing)}`);
  if (v.stillFailing.length) parts.push(`Still failing: ${list(v.stillFailing)}`);
  return parts.join('\n\n');
}

interface Fold {
  summary: string;
  body: string;
}

const details = (f: Fold): string => `<details><summary>${f.summary}</summary>\n\n${f.body.trim()}\n\n</details>`;

/**
 * A markdown body cut at a line boundary to at most `max` characters, with an open code
 * fence closed and a note saying what was left out; unchanged when it fits.
 */
export function truncateMarkdown(text: string, max: number, note = 'truncated: the full text is in the run transcript'): string {
  if (text.length <= max) return text;
  const tail = `\n… (${note})`;
  let cut = text.slice(0, Math.max(0, max - tail.length - 12));
  const nl = cut.lastIndexOf('\n');
  if (nl > 0) cut = cut.slice(0, nl);
  let open: string | null = null;
  for (const line of cut.split('\n')) {
    const m = /^(`{3,}|~{3,})/.exec(line.trim());
    if (!m) continue;
    if (open === null) open = m[1];
    else if (m[1][0] === open[0] && m[1].length >= open.length && line.trim() === m[1]) open = null;
  }
  return `${cut}${open ? `\n${open}` : ''}${tail}`;
}

/**
 * The markdown report shared by the PR body, the issue comment and the step summary. The
 * first screen is the outcome, one evidence table (test, before, after) and the diff stats;
 * everything else is folded. Model text and test names are escaped. The folded parts are
 * shortened, largest first, so the whole stays under `limit` characters (GitHub's body limit
 * less what the caller adds around it).
 */
export function renderReportMarkdown(r: RunReport, opts: { diff?: boolean; limit?: number; firstScreen?: boolean } = {}): string {
  const limit = opts.limit ?? GITHUB_BODY_LIMIT - 2_000;
  const published = (r.status === 'fixed' || r.reason === 'games-the-tests') && Boolean(r.prUrl || r.branch || r.prNumber);
  const head: string[] = [];
  head.push(`### agent-fix: ${statusTitle(r)}`);
  head.push(escapeMarkdown(r.detail));
  const gaming = gamingBlock(r);
  if (gaming) head.push(gaming);
  // A run stopped before its baseline (setup failed, the endpoint check failed): no evidence to show.
  const ran = r.baseline !== null || r.attempts.length > 0;
  if (ran) {
    head.push(evidenceTable(r));
    const changed = changedExpectationsBlock(r);
    if (changed) head.push(changed);
    head.push(diffStats(r, published || r.status === 'fixed'));
  } else {
    head.push('**No test ran and nothing was published.**');
  }
  if (opts.firstScreen) return [...head, r.runUrl ? `[Workflow run](${r.runUrl})` : ''].filter(Boolean).join('\n\n');

  const folds: Fold[] = [];
  if (!ran) {
    if (r.safety) folds.push({ summary: 'Safety', body: safetyBlock(r.safety) });
    return [...head, ...folds.map(details), r.runUrl ? `[Workflow run](${r.runUrl})` : ''].filter(Boolean).join('\n\n');
  }
  const testParts = [`The harness ran these commands itself; the model's word is not evidence.\n\n${commandTable(r)}`];
  if (r.tests) testParts.push(renderTestSection(r));
  else {
    const np = newlyPassing(r);
    if (np) testParts.push(np);
  }
  folds.push({ summary: 'Test report', body: testParts.join('\n\n') });
  if (r.summary && r.status === 'fixed') {
    folds.push({ summary: "What changed and why (the model's summary, not evidence)", body: escapeMarkdown(r.summary.trim()).replace(/^/gm, '> ') });
  }
  const rejected = r.attempts.filter((a) => !a.verdict.ok).length;
  folds.push({ summary: `Attempts: ${r.attempts.length}${rejected ? `, ${rejected} rejected` : ''}`, body: attemptsList(r) });
  folds.push({
    summary: `Cost: ${r.usage.promptTokens + r.usage.completionTokens} tokens, ${formatDuration(r.durationMs)}${r.safety ? ', safety' : ''}`,
    body: [costLine(r), r.safety ? safetyBlock(r.safety) : ''].filter(Boolean).join('\n\n'),
  });
  if (r.final && !r.final.succeeded && r.final.outputTail) {
    folds.push({ summary: 'Tail of the last test output', body: fence(cap(r.final.outputTail, 4000)) });
  }
  if (opts.diff && r.diff) folds.push({ summary: 'Diff', body: fence(r.diff, 'diff') });
  const foot = r.runUrl ? `[Workflow run](${r.runUrl})` : '';

  const assemble = () => [...head, ...folds.map(details), foot].filter(Boolean).join('\n\n');
  let md = assemble();
  // Shorten the largest folded part until the whole fits (each at least to a tenth of the limit).
  for (let guard = 0; md.length > limit && guard < folds.length * 4; guard++) {
    const biggest = folds.reduce((a, b) => (b.body.length > a.body.length ? b : a));
    const over = md.length - limit;
    biggest.body = truncateMarkdown(biggest.body, Math.max(Math.floor(limit / 10), biggest.body.length - over - 200));
    md = assemble();
  }
  return md.length > limit ? truncateMarkdown(md, limit) : md;
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
  // One line: the closing keyword and who opened it (a line of the first screen saved).
  const fixes = r.task.issueNumber ? `Fixes #${r.task.issueNumber}. ` : '';
  const review = `${fixes}Opened by agent-fix for a human to review; it is not merged automatically.`;
  return `${commentMarker(r.task.key)}\n${review}\n\n${renderReportMarkdown(r, { diff: false })}\n`;
}

export function renderStartComment(task: Task, runUrl?: string): string {
  const where = runUrl ? ` ([run](${runUrl}))` : '';
  return `${commentMarker(task.key)}\n**agent-fix** is working on this${where}: running the tests, then asking the model for a small fix that the tests confirm. This comment will be updated with the outcome.\n`;
}

/**
 * The issue comment at the end. With a pull request it is the first screen only (outcome,
 * evidence table, diff stats) and a link: the PR holds the rest. Otherwise the whole report,
 * since there is nothing else to read.
 */
export function renderFinalComment(r: RunReport): string {
  const lines = [commentMarker(r.task.key)];
  if (r.status === 'fixed' && r.prUrl) {
    lines.push(`**agent-fix** opened ${r.prUrl} for review.`, '', renderReportMarkdown(r, { firstScreen: true }));
  } else if (r.reason === 'games-the-tests' && r.prUrl) {
    lines.push(`**agent-fix** opened ${r.prUrl} as a draft: the tests pass, but the change games them, so it is not a fix.`, '', renderReportMarkdown(r, { firstScreen: true }));
  } else {
    lines.push(`**agent-fix** finished: ${STATUS_TITLE[r.status].toLowerCase()}.`, '', renderReportMarkdown(r));
  }
  return `${lines.join('\n')}\n`;
}

/** Plain text for a terminal. */
export function renderTerminal(r: RunReport): string {
  const out: string[] = [];
  const bar = '─'.repeat(60);
  out.push(bar);
  out.push(`agent-fix: ${statusTitle(r)}${r.scripted ? '   [SCRIPTED model session: a demo, not a real model]' : ''}`);
  out.push(bar);
  out.push(`task:       ${r.task.title}`);
  out.push(`outcome:    ${r.status} (${r.reason}) — ${r.detail}`);
  if (r.branch) out.push(`branch:     ${r.branch}`);
  if (r.prUrl) out.push(`pull req.:  ${r.prUrl}`);
  if (r.setupCommand) out.push(`setup:      ${r.setupCommand}`);
  out.push(`tests:      ${r.testCommand ?? 'none'}${r.tests ? ` (${r.tests.runner}${r.tests.detection ? `; detected: ${r.tests.detection}` : ''})` : ''}`);
  out.push(`  before:   ${describeRun(r.baseline)}`);
  if (r.tests?.proof?.withoutFix) out.push(`  proof:    ${describeRun(r.tests.proof.withoutFix)} with only ${r.tests.proof.testFiles.join(', ')} on the original code`);
  out.push(`  after:    ${describeRun(r.final)}`);
  if (r.tests?.proof) out.push(`  proof:    ${r.tests.proof.status === 'proven' ? 'fails before, passes after' : 'missing'} — ${r.tests.proof.detail}`);
  for (const g of r.tests?.gaming ?? []) out.push(`GAMES THE TESTS: ${GAMING_TITLE[g.kind]}: ${oneLine(g.code, 120)} (${g.file}:${g.line}): ${oneLine(g.detail, 300)}`);
  const changedExpectations = r.status === 'fixed' ? (r.tests?.original?.changedExpectations ?? []) : [];
  if (changedExpectations.length) {
    out.push(`changed expectations (${changedExpectations.length}, review them):`);
    for (const c of changedExpectations) out.push(`  ${c.test}: expected ${c.before} → now ${c.now}`);
  }
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
  const peak = peakText(r.usage);
  out.push(`cost:       ${r.usage.requests} requests, ${r.usage.promptTokens + r.usage.completionTokens} tokens${peak ? `, ${peak}` : ''}, ${formatDuration(r.durationMs)}, model ${r.model}`);
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
