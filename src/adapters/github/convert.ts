/** GitHub's REST payloads made the port's values. */
import type { CommentData, PullRequestData } from '../../ports/github.js';
import type { WorkflowRunData } from '../../ports/ci.js';
import type { ReviewCommentData, ReviewState } from '../../ports/review.js';

export const toPull = (p: { number: number; html_url: string; head: { ref: string }; base: { ref: string }; state: string; draft?: boolean }): PullRequestData => ({
  number: p.number,
  url: p.html_url,
  head: p.head.ref,
  base: p.base.ref,
  state: p.state === 'closed' ? 'closed' : 'open',
  draft: p.draft ?? false,
});
export const toComment = (c: { id: number | bigint; body?: string; user: { login: string } | null; html_url: string; created_at: string; updated_at: string }): CommentData => ({
  id: Number(c.id),
  body: c.body ?? '',
  author: c.user?.login ?? 'ghost',
  url: c.html_url,
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});

export const toRun = (data: {
  id: number | bigint;
  name?: string | null;
  workflow_id?: number | bigint;
  run_number?: number | bigint;
  event: string;
  status?: string | null;
  conclusion?: string | null;
  head_branch?: string | null;
  head_sha: string;
  run_attempt?: number;
  html_url: string;
  created_at: string;
  head_repository?: { full_name?: string } | null;
  triggering_actor?: { login?: string } | null;
  actor?: { login?: string } | null;
  pull_requests?: { number: number }[] | null;
}): WorkflowRunData => ({
  id: Number(data.id),
  name: data.name ?? '',
  workflowId: data.workflow_id === undefined ? null : Number(data.workflow_id),
  runNumber: data.run_number === undefined ? null : Number(data.run_number),
  event: data.event,
  status: data.status ?? null,
  conclusion: data.conclusion ?? null,
  headBranch: data.head_branch ?? null,
  headSha: data.head_sha,
  runAttempt: data.run_attempt ?? 1,
  url: data.html_url,
  createdAt: data.created_at,
  headRepository: data.head_repository?.full_name ?? null,
  triggeringActor: data.triggering_actor?.login ?? data.actor?.login ?? null,
  pullRequests: (data.pull_requests ?? []).map((pr) => pr.number),
});

export const toReviewComment = (c: {
  id: number | bigint;
  pull_request_review_id: number | bigint | null;
  user: { login: string } | null;
  body: string;
  path: string;
  line?: number | null;
  start_line?: number | null;
  side?: string | null;
  diff_hunk: string;
  commit_id: string;
  in_reply_to_id?: number | bigint;
  html_url: string;
  created_at: string;
  updated_at: string;
}): ReviewCommentData => ({
  id: Number(c.id),
  reviewId: c.pull_request_review_id == null ? null : Number(c.pull_request_review_id),
  author: c.user?.login ?? 'ghost',
  body: c.body ?? '',
  path: c.path,
  line: c.line ?? null,
  startLine: c.start_line ?? null,
  side: c.side === 'LEFT' || c.side === 'RIGHT' ? c.side : null,
  diffHunk: c.diff_hunk,
  commitId: c.commit_id,
  inReplyTo: c.in_reply_to_id == null ? null : Number(c.in_reply_to_id),
  url: c.html_url,
  createdAt: c.created_at,
  updatedAt: c.updated_at,
});
export const REVIEW_STATES: ReviewState[] = ['APPROVED', 'CHANGES_REQUESTED', 'COMMENTED', 'DISMISSED', 'PENDING'];
