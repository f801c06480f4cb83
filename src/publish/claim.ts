/**
 * Concurrency: two runs for the same task (a label and a comment a second apart, a re-run)
 * must never produce two pull requests or fight over the status comment. The README's
 * workflow serializes runs with a `concurrency` group; on top of that each run claims the
 * task in its sticky comment (hidden `<!-- agent-fix-run:<run id>.<attempt> -->`), and before
 * it publishes anything it re-reads the comment: when a newer run has claimed the task
 * since, this run yields (publishes nothing, leaves the comment to the newer run).
 * Branch and PR creation are create-or-update with a push lease, so even a lost race
 * updates the same branch and PR rather than duplicating them.
 *
 * A task without a status comment (a CI repair of a push, no pull request to comment on)
 * still has its branch: every fix commit ends with a trailer naming the run that made it
 * (`Agent-Fix-Run: <id>.<attempt>`), and a run never replaces a tip that a newer run pushed
 * (publish/push.ts). That check is made on the very sha the leased push replaces, so a newer
 * run's push cannot slip in between the check and the push.
 */
import type { CommentData, GitHubPort } from '../ports/github.js';
import { findStickyComment } from '../publish/artifacts.js';

export interface RunId {
  id: number;
  attempt: number;
}

const CLAIM = /<!-- agent-fix-run:(\d+)\.(\d+) -->/;

export function claimMarker(run: RunId): string {
  return `<!-- agent-fix-run:${run.id}.${run.attempt} -->`;
}

export function parseClaim(body: string): RunId | null {
  const m = CLAIM.exec(body);
  return m ? { id: Number(m[1]), attempt: Number(m[2]) } : null;
}

/** Replaces (or adds) the claim marker of a comment body. */
export function withClaim(body: string, run: RunId): string {
  return CLAIM.test(body) ? body.replace(CLAIM, claimMarker(run)) : `${body.replace(/\n*$/, '')}\n${claimMarker(run)}\n`;
}

/** Run ids grow monotonically in a repository; a re-run keeps the id with a higher attempt. */
export function isNewer(a: RunId, b: RunId): boolean {
  return a.id > b.id || (a.id === b.id && a.attempt > b.attempt);
}

export function runIdFromEnv(env: NodeJS.ProcessEnv): RunId | null {
  const id = Number(env.GITHUB_RUN_ID);
  if (!Number.isSafeInteger(id) || id <= 0) return null;
  const attempt = Number(env.GITHUB_RUN_ATTEMPT ?? '1');
  return { id, attempt: Number.isSafeInteger(attempt) && attempt > 0 ? attempt : 1 };
}

/** The newer run that claimed the task since, or null when this run still owns it. */
export async function newerClaim(github: GitHubPort, issueNumber: number, marker: string, mine: RunId): Promise<RunId | null> {
  return (await takenOver(github, issueNumber, marker, mine))?.by ?? null;
}

/**
 * `/agent-fix stop`: the stop run (run/stop.ts) claims the task in its sticky comment and adds a
 * stop marker there and in its own reply, `<!-- agent-fix-stop:<task marker> <run id>.<attempt> @<login> -->`.
 * The reply is a separate comment so that a progress update of the running run, which rewrites
 * the sticky comment, cannot erase the request before the run has read it.
 */
export interface StopRequest {
  /** The sticky comment marker of the task to stop (`<!-- agent-fix:issue-42 -->`). */
  marker: string;
  run: RunId;
  /** Who asked. */
  by: string;
}

const STOP = /<!-- agent-fix-stop:(\S+) (\d+)\.(\d+) @([A-Za-z0-9][A-Za-z0-9-]*(?:\[bot\])?) -->/g;

export function stopMarker(s: StopRequest): string {
  return `<!-- agent-fix-stop:${taskKeyOf(s.marker)} ${s.run.id}.${s.run.attempt} @${s.by} -->`;
}

/** `<!-- agent-fix:issue-42 -->` → `issue-42` (a bare key is returned as it is). */
function taskKeyOf(marker: string): string {
  return /^<!-- agent-fix:(\S+) -->$/.exec(marker)?.[1] ?? marker;
}

export function parseStops(body: string): StopRequest[] {
  return [...body.matchAll(STOP)].map((m) => ({ marker: `<!-- agent-fix:${taskKeyOf(m[1])} -->`, run: { id: Number(m[2]), attempt: Number(m[3]) }, by: m[4] }));
}

/** What took the task over from `mine`, or null. */
export interface Takeover {
  /** The newer run: a newer claim, or the run that asked to stop. */
  by: RunId;
  /** Set when the takeover is a `/agent-fix stop`: who asked. */
  stoppedBy?: string;
}

/**
 * Has a newer run taken the task (`marker`) over from `mine`? A newer claim in the sticky comment,
 * or a newer stop request for the task in any comment of the thread written by a bot (a person
 * quoting the marker stops nothing). A stop wins over a plain newer claim: the run then leaves a
 * final comment instead of handing the comment to the newer run.
 */
export function takeoverIn(comments: CommentData[], marker: string, mine: RunId): Takeover | null {
  const stop = comments
    .filter((c) => c.author.endsWith('[bot]'))
    .flatMap((c) => parseStops(c.body))
    .filter((s) => s.marker === marker && isNewer(s.run, mine))
    .sort((a, b) => (isNewer(a.run, b.run) ? -1 : 1))[0];
  if (stop) return { by: stop.run, stoppedBy: stop.by };
  const comment = findStickyComment(comments, marker);
  const claim = comment ? parseClaim(comment.body) : null;
  return claim && isNewer(claim, mine) ? { by: claim } : null;
}

export async function takenOver(github: GitHubPort, issueNumber: number, marker: string, mine: RunId): Promise<Takeover | null> {
  return takeoverIn(await github.listComments(issueNumber), marker, mine);
}

const TRAILER = /^Agent-Fix-Run: (\d+)\.(\d+)$/;

export function claimTrailer(run: RunId): string {
  return `Agent-Fix-Run: ${run.id}.${run.attempt}`;
}

/** The commit message with this run's trailer as its last line. */
export function withClaimTrailer(message: string, run: RunId): string {
  return `${message.replace(/\s+$/, '')}\n\n${claimTrailer(run)}\n`;
}

/**
 * The run named by a commit message's trailer. Only the last line counts: the message also
 * holds the model's summary, which must not be able to forge a claim.
 */
export function parseClaimTrailer(message: string): RunId | null {
  const last = message.replace(/\s+$/, '').split('\n').pop() ?? '';
  const m = TRAILER.exec(last.trim());
  return m ? { id: Number(m[1]), attempt: Number(m[2]) } : null;
}

export function sameRun(a: RunId, b: RunId): boolean {
  return a.id === b.id && a.attempt === b.attempt;
}
