/**
 * What a maintainer asks of agent-fix on its own pull request, read from the API at run time
 * (never from the event payload) and turned into the follow-up task's instructions.
 *
 * - A review that requested changes: its body and its inline comments, each with its file and
 *   line, are the instructions; every one is a request the run answers in its thread.
 * - A single `/agent-fix` review comment: that comment, with its file and line.
 *
 * Text created or edited after the trigger is dropped (the maintainer acted on what they saw);
 * all of it is sanitized and fenced as untrusted data, like an issue's text. Pure.
 */
import type { ReviewCommentData, ReviewData } from '../ports/review.js';
import { fenceUntrusted, sanitizeOneLine, sanitizeUntrusted } from './sanitize.js';

/** One thing the maintainer asked; `commentId` is the thread to answer in, when it is an inline comment. */
export interface FollowUpRequest {
  commentId: number | null;
  path: string | null;
  line: number | null;
  text: string;
}

export interface FollowUpInstructions {
  /** The requests, in the order the reviewer wrote them (review body first). */
  requests: FollowUpRequest[];
  /** The instructions for the model: each request fenced as untrusted data with its place. */
  goal: string;
  /** What was left out and why (edited after the trigger, by someone else, empty), for the report. */
  dropped: string[];
}

const MAX_REQUEST_CHARS = 4_000;
const MAX_REQUESTS = 30;

function when(iso: string | null | undefined): number {
  const t = Date.parse(iso ?? '');
  return Number.isNaN(t) ? Number.NaN : t;
}

function place(r: FollowUpRequest): string {
  if (!r.path) return 'the pull request as a whole';
  return r.line ? `${r.path}:${r.line}` : `${r.path} (the whole file)`;
}

function assemble(intro: string, requests: FollowUpRequest[], reviewer: string, dropped: string[]): FollowUpInstructions {
  const parts = requests.map((r, i) => fenceUntrusted(`Request ${i + 1} of ${requests.length}, by @${reviewer} on ${place(r)}`, r.text));
  const goal = [intro, ...parts].join('\n\n');
  return { requests, goal, dropped };
}

const INTRO =
  'Follow-up on agent-fix\'s own pull request: a maintainer reviewed the change and asks for more. ' +
  'Make the smallest change on top of the current branch that does what they ask; keep the original fix working (its tests are checked again).';

/**
 * A review that requested changes: its body and inline comments. Comments by anyone but the
 * review's author, and text edited after `triggeredAt`, are dropped.
 */
export function reviewInstructions(review: ReviewData, comments: ReviewCommentData[], triggeredAt: string): FollowUpInstructions {
  const cutoff = when(triggeredAt);
  const reviewer = sanitizeOneLine(review.author, 100);
  const dropped: string[] = [];
  const requests: FollowUpRequest[] = [];
  const body = sanitizeUntrusted(review.body, { maxChars: MAX_REQUEST_CHARS });
  if (body) requests.push({ commentId: null, path: null, line: null, text: body });
  for (const c of comments) {
    if (c.author.toLowerCase() !== review.author.toLowerCase()) {
      dropped.push(`comment ${c.id}: written by @${sanitizeOneLine(c.author, 100)}, not the reviewer`);
      continue;
    }
    if (Number.isFinite(cutoff) && when(c.updatedAt) > cutoff) {
      dropped.push(`comment ${c.id}: edited after the review was submitted`);
      continue;
    }
    const text = sanitizeUntrusted(c.body, { maxChars: MAX_REQUEST_CHARS });
    if (!text) {
      dropped.push(`comment ${c.id}: empty`);
      continue;
    }
    requests.push({ commentId: c.id, path: sanitizeOneLine(c.path, 300), line: c.line, text });
  }
  if (requests.length > MAX_REQUESTS) dropped.push(`${requests.length - MAX_REQUESTS} request(s) beyond the first ${MAX_REQUESTS}`);
  return assemble(INTRO, requests.slice(0, MAX_REQUESTS), reviewer, dropped);
}

/** A `/agent-fix` command in a review comment (inline) or a PR comment (`comment` without a path). */
export function commandInstructions(text: string, author: string, at: { commentId: number | null; path: string | null; line: number | null }): FollowUpInstructions {
  const clean = sanitizeUntrusted(text, { maxChars: MAX_REQUEST_CHARS });
  const requests = clean ? [{ ...at, path: at.path ? sanitizeOneLine(at.path, 300) : null, text: clean }] : [];
  return assemble(INTRO, requests, sanitizeOneLine(author, 100), clean ? [] : ['the command carried no instructions']);
}
