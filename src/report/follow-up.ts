/**
 * What a follow-up or a rebase on agent-fix's own pull request says, and where (pure):
 * - the sticky comment on the pull request (start, final: what was asked, what changed or why
 *   not, the tests before and after);
 * - a reply in the thread of each inline review comment acted on, one reply to a comment command;
 * - the pull request body, updated in place: the newest round on top, earlier rounds folded
 *   (`<details>`), still readable; the proof marker of the original fix kept.
 */
import type { RunReport } from '../fix/types.js';
import type { CommitInfo } from '../ports/git.js';
import type { FollowUpRequest } from '../task/follow-up.js';
import { parseProofMarker, proofMarker, withoutProofMarker } from '../fix/follow-up-gate.js';
import { commentMarker, describeRun, escapeMarkdown, renderReportMarkdown, truncateMarkdown } from './render.js';

/** GitHub's limit on a pull request body, less a margin. */
const BODY_LIMIT = 65_536 - 1_536;

export interface FollowUpFacts {
  taskKey: string;
  prNumber: number;
  actor: string;
  /** Where the request was made, e.g. "a review" / "a review comment on `src/a.js:7`" / "a comment". */
  where: string;
  whereUrl?: string;
  requests: FollowUpRequest[];
  dropped: string[];
  /** The PR head the run started from. */
  startSha: string;
  /** The round this follow-up is in the pull request body (the first fix is round 1). */
  round: number;
  /** Set once pushed. */
  pushed?: { sha: string; previousSha: string };
  /** The branch moved while the run worked: the commits it did not see (newest first). */
  notSeen?: { remoteSha: string; commits: CommitInfo[] };
  /** The original fix's tests that had to hold (those passing on the PR head), and where they come from. */
  original?: { source: string; ids: string[] };
}

const short = (sha: string) => sha.slice(0, 7);

function oneLine(text: string, max = 200): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

/** The request quoted as data (escaped, each line a quote). */
function quote(text: string, max = 600): string {
  return escapeMarkdown(oneLine(text, max)).replace(/^/gm, '> ');
}

function placeOf(r: FollowUpRequest): string {
  if (!r.path) return 'the pull request';
  return `\`${r.path.replace(/`/g, "'")}${r.line ? `:${r.line}` : ''}\``;
}

function asked(f: FollowUpFacts): string {
  if (!f.requests.length) return '_No instructions were left after dropping what could not be used._';
  return f.requests.map((r, i) => `${i + 1}. On ${placeOf(r)}:\n\n${quote(r.text)}`).join('\n\n');
}

function whereLink(f: FollowUpFacts): string {
  return f.whereUrl ? `[${f.where}](${f.whereUrl})` : f.where;
}

function changedFiles(r: RunReport): string {
  if (!r.changes.length) return 'no file';
  const list = r.changes.slice(0, 10).map((c) => `\`${c.path.replace(/`/g, "'")}\` (+${c.additions} −${c.deletions})`);
  return `${list.join(', ')}${r.changes.length > 10 ? `, and ${r.changes.length - 10} more` : ''}`;
}

/** The original fix's tests and how they ended, for the round and the final comment. */
function originalLine(r: RunReport, f: FollowUpFacts): string {
  if (!f.original) return '';
  if (!f.original.ids.length) return `**The original fix's tests**: ${escapeMarkdown(f.original.source)}; none of them passes on the PR head, so none had to hold.`;
  const after = new Map((r.final?.tests ?? []).map((t) => [t.id, t.status]));
  const list = f.original.ids.slice(0, 10).map((id) => `\`${id.replace(/`/g, "'")}\` ${after.get(id) ?? 'missing'}`);
  return `**The original fix's tests** (${escapeMarkdown(f.original.source)}) after the follow-up: ${list.join(', ')}${f.original.ids.length > 10 ? ', …' : ''}.`;
}

function testsLine(r: RunReport): string {
  return `tests before (on the PR head): ${describeRun(r.baseline)}; after: ${describeRun(r.final)}`;
}

/** One sentence: what happened to the follow-up. */
export function followUpOutcome(r: RunReport, f: FollowUpFacts): string {
  if (f.pushed) return `Pushed ${short(f.pushed.sha)} on top of ${short(f.pushed.previousSha)}: it changes ${changedFiles(r)}; the earlier commits are unchanged.`;
  if (f.notSeen) {
    const list = f.notSeen.commits.slice(0, 10).map((c) => `${short(c.sha)} "${escapeMarkdown(oneLine(c.subject, 80))}" by ${escapeMarkdown(oneLine(c.authorName, 60))}`);
    const what = list.length ? `commit(s) it did not see: ${list.join(', ')}` : `its head is now ${short(f.notSeen.remoteSha)}`;
    return `A follow-up was verified on ${short(f.startSha)}, but the branch moved while agent-fix worked (${what}). Nothing was pushed: a change verified on an older head is never laid on commits it was not tested with. Ask again to build on them.`;
  }
  return `Nothing was pushed. ${escapeMarkdown(r.detail)}`;
}

export function renderFollowUpStart(f: FollowUpFacts, runUrl?: string): string {
  const lines = [
    commentMarker(f.taskKey),
    `**agent-fix** is working on the follow-up @${f.actor} asked for in ${whereLink(f)}, on top of the branch's head ${short(f.startSha)} (its commits are kept; the change will be one new commit, verified by the repository's tests before it is pushed).`,
  ];
  if (runUrl) lines.push('', `[Workflow run](${runUrl})`);
  return `${lines.join('\n')}\n`;
}

/**
 * The round's one comment on the pull request: the status comment is the answer to the request
 * (who asked, where, what was asked, done or not and why, the tests), so a round leaves one
 * comment; inline review requests are also answered in their own threads (renderThreadReply).
 */
export function renderFollowUpFinal(r: RunReport, f: FollowUpFacts): string {
  const head = f.pushed
    ? `@${f.actor} done: **agent-fix** pushed a follow-up to this pull request (round ${f.round}).`
    : `@${f.actor} not done: **agent-fix** did not push a follow-up (round ${f.round} was asked for).`;
  const parts = [commentMarker(f.taskKey), head, followUpOutcome(r, f), `${testsLine(r)}.`, `**Asked** by @${f.actor} in ${whereLink(f)}:\n\n${asked(f)}`];
  if (f.dropped.length) parts.push(`Left out: ${f.dropped.map((d) => escapeMarkdown(d)).join('; ')}.`);
  const original = originalLine(r, f);
  if (original) parts.push(original);
  parts.push(renderReportMarkdown(r, { firstScreen: Boolean(f.pushed), limit: 40_000 }));
  return `${parts.join('\n\n')}\n`;
}

/** The reply in the thread of one inline request (what changed, or why not). */
export function renderThreadReply(r: RunReport, f: FollowUpFacts, req: FollowUpRequest): string {
  if (f.pushed) {
    return `agent-fix: done in ${short(f.pushed.sha)} (changes ${changedFiles(r)}); ${testsLine(r)}. The model's summary (not evidence): ${escapeMarkdown(oneLine(r.summary || 'none', 300))}`;
  }
  return `agent-fix: not done${req.path ? ` (${placeOf(req)})` : ''}. ${followUpOutcome(r, f)}`;
}

// ------------------------------------------------------------------------------ PR body rounds

const CURRENT = /<!-- agent-fix:round (\d+) -->\n?/;
const HISTORY = '<!-- agent-fix:rounds-before -->';

export interface BodyParts {
  /** The lines kept on top (the task marker, "Fixes #N", the review note). */
  header: string;
  /** The newest round: its number, title and content. */
  current: { round: number; title: string; content: string };
  /** Earlier rounds, already folded, newest first (raw markdown). */
  history: string;
  /** The original fix's tests (its proof marker), when the body carries them. */
  proof: string[] | null;
}

/** Reads a pull request body written by agent-fix: a first fix's body is round 1. */
export function parseBody(body: string): BodyParts {
  const proof = parseProofMarker(body);
  const text = withoutProofMarker(body).replace(/\r\n?/g, '\n').trim();
  const m = CURRENT.exec(text);
  if (!m) {
    // A first fix's body: the marker, "Fixes #N" and the review note on top, the report below.
    const lines = text.split('\n');
    const note = lines.findIndex((l) => l.startsWith('> Opened by agent-fix'));
    const cut = note >= 0 ? note + 1 : lines[0]?.startsWith('<!-- agent-fix:') ? 1 : 0;
    return {
      header: lines.slice(0, cut).join('\n').trim(),
      current: { round: 1, title: 'Round 1: the original fix', content: lines.slice(cut).join('\n').trim() },
      history: '',
      proof,
    };
  }
  const header = text.slice(0, m.index).trim();
  const rest = text.slice(m.index + m[0].length);
  const at = rest.indexOf(HISTORY);
  const content = (at >= 0 ? rest.slice(0, at) : rest).trim();
  const history = at >= 0 ? rest.slice(at + HISTORY.length).trim() : '';
  const titleLine = /^### (.+)$/m.exec(content);
  return { header, current: { round: Number(m[1]), title: titleLine ? titleLine[1] : `Round ${m[1]}`, content }, history, proof };
}

/** The round section of a follow-up for the pull request body. */
export function renderRound(r: RunReport, f: FollowUpFacts, runUrl?: string): string {
  const title = `Round ${f.round}: follow-up asked by @${f.actor} in ${f.where}`;
  return [
    `### ${title}`,
    `**Asked**${f.whereUrl ? ` ([link](${f.whereUrl}))` : ''}:\n\n${asked(f)}`,
    `**Changed**: ${followUpOutcome(r, f)}`,
    `**Tests**: ${testsLine(r)}.`,
    originalLine(r, f),
    renderReportMarkdown(r, { diff: false, limit: 20_000 }),
    runUrl ? `[Workflow run](${runUrl})` : '',
  ]
    .filter(Boolean)
    .join('\n\n');
}

/** The new body: header, the new round on top, the previous newest round folded above the older ones, the proof marker. */
export function foldRounds(oldBody: string, round: { number: number; content: string }, proof: string[] | null): string {
  const parts = parseBody(oldBody);
  const folded = [`<details><summary>${parts.current.title.replace(/[<>]/g, '')}</summary>\n\n${parts.current.content}\n\n</details>`];
  if (parts.history) folded.push(parts.history);
  const keep = proof ?? parts.proof;
  const assemble = (history: string) =>
    [parts.header, `<!-- agent-fix:round ${round.number} -->\n${round.content}`, `${HISTORY}\n${history}`, keep ? proofMarker(keep) : ''].filter(Boolean).join('\n\n') + '\n';
  let history = folded.join('\n\n');
  let body = assemble(history);
  if (body.length > BODY_LIMIT) {
    history = truncateMarkdown(history, Math.max(2_000, history.length - (body.length - BODY_LIMIT) - 500), 'earlier rounds shortened to fit GitHub\'s limit; their runs\' transcripts have them in full');
    // A cut <details> block is closed so that the rest of the body renders.
    const open = (history.match(/<details>/g) ?? []).length - (history.match(/<\/details>/g) ?? []).length;
    history += '\n\n</details>'.repeat(Math.max(0, open));
    body = assemble(history);
  }
  return body;
}

/** How many rounds a body already holds (the next follow-up is this plus one). */
export function roundsIn(body: string): number {
  return parseBody(body).current.round;
}

// ------------------------------------------------------------------------------ rebase

export interface RebaseFacts {
  taskKey: string;
  actor: string;
  branch: string;
  base: string;
  head: string;
  baseSha: string;
  how: 'rebased' | 'merged';
  /** The updated commit (rebased tip or merge commit). */
  updated: string;
  humanCommits: CommitInfo[];
  /** The update conflicted in these files; the model resolved them (or tried). */
  conflicts?: string[];
  pushed?: { sha: string; previousSha: string };
  moved?: string;
}

export function renderRebaseStart(f: Pick<RebaseFacts, 'taskKey' | 'actor' | 'branch' | 'base' | 'head' | 'baseSha' | 'how'>, runUrl?: string): string {
  const how = f.how === 'rebased' ? 'replaying its commits (all agent-fix\'s own) onto' : 'merging (a human commit is on the branch, so nothing is rewritten)';
  return `${commentMarker(f.taskKey)}\n**agent-fix** is bringing \`${f.branch}\` (${short(f.head)}) up to date with \`${f.base}\` (${short(f.baseSha)}) as @${f.actor} asked, ${how} ${f.how === 'rebased' ? `\`${f.base}\`` : `\`${f.base}\` into it`}; the tests run on the result before anything is pushed.${runUrl ? `\n\n[Workflow run](${runUrl})` : ''}\n`;
}

export function renderRebaseFinal(r: RunReport, f: RebaseFacts): string {
  const resolved = f.conflicts ? `, the conflicts in ${f.conflicts.map((x) => `\`${x.replace(/`/g, "'")}\``).join(', ')} resolved by the model` : '';
  const how = `${f.how === 'rebased' ? `rebased onto \`${f.base}\` (${short(f.baseSha)})` : `merged \`${f.base}\` (${short(f.baseSha)}) into it, keeping ${f.humanCommits.length} human commit(s) as they are`}${resolved}`;
  let head: string;
  if (f.pushed) head = `**agent-fix** updated \`${f.branch}\`: ${how}. Pushed ${short(f.pushed.sha)} (was ${short(f.pushed.previousSha)}).`;
  else if (f.moved) head = `**agent-fix** did not push: \`${f.branch}\` moved to ${short(f.moved)} while it worked; the update was verified on ${short(f.head)}. Ask again.`;
  else head = `**agent-fix** did not update \`${f.branch}\` (it ${how.replace(/^rebased/, 'would have rebased it').replace(/^merged/, 'would have merged')}): ${escapeMarkdown(r.detail.replace(/no pull request was opened/g, 'nothing was pushed'))}`;
  return `${commentMarker(f.taskKey)}\n${head}\n\n**Tests** before (the PR head ${short(f.head)}): ${describeRun(r.baseline)}; after (the updated branch): ${describeRun(r.final)}.\n\n${renderReportMarkdown(r, { limit: 40_000 })}\n`;
}

/** A rebase that stops before any test run: already up to date, a conflict, unrelated histories. */
export function renderRebaseNote(p: { actor: string; branch: string; base: string; head: string; baseSha: string; note: string }): string {
  return `@${p.actor} \`/agent-fix rebase\` on \`${p.branch}\` (${short(p.head)}) and \`${p.base}\` (${short(p.baseSha)}): ${p.note}\n`;
}
