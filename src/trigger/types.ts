import type { FollowUpCommand } from './command.js';

/** What started a run: the event, read into a typed trigger (trigger/parse.ts). */
export type Trigger = IssueTrigger | CiTrigger | PullTrigger | StopTrigger | IssueClosedTrigger | { kind: 'skip'; reason: string };

/** An issue to fix: labelled, commanded in a comment, or dispatched by number. */
export interface IssueTrigger {
  kind: 'issue';
  via: 'label' | 'comment' | 'dispatch';
  issueNumber: number;
  actor: string;
  extraInstructions: string;
  triggeredAt: string;
  /** The issue body as the webhook payload carried it at trigger time (absent for dispatch). */
  issueBodyAtTrigger?: string;
  /** `/agent-fix continue`: resume the run that stopped on its budget, from its best attempt, with a fresh budget (`budgetUsd`: raised by the comment). */
  resume?: { budgetUsd: number | null };
}

/**
 * A request made on a pull request: a `/agent-fix` comment on it, a review that requested
 * changes, or a `/agent-fix` inline review comment. Review events are parsed only on agent-fix's
 * own pull requests (head `agent-fix/*` of this repository); a plain comment's payload does not
 * name the head, so whose pull request it is is read from the API (a human's pull request is
 * then the issue story on its thread, see `issueTriggerOf`). The text is read from the API at
 * run time; the payload only routes.
 */
export interface PullTrigger {
  kind: 'pull';
  via: 'comment' | 'review' | 'review-comment';
  prNumber: number;
  /** The head branch as the payload names it; null when the payload does not carry it (a comment). */
  headRef: string | null;
  actor: string;
  triggeredAt: string;
  /** What was asked: instructions (a review's are its body and inline comments), `rebase` or `continue`. */
  command: Exclude<FollowUpCommand, { verb: 'stop' }>;
  /** The comment (issue comment or review comment) that asked; null for a review. */
  commentId: number | null;
  /** The review that requested changes (via `review`), or the review a review comment belongs to. */
  reviewId: number | null;
  /** The pull request's body as the payload carried it (a comment's fallback to the issue story). */
  bodyAtTrigger?: string;
}

/** `/agent-fix stop` on an issue or a pull request: cancel the run working on it (through its claim). */
export interface StopTrigger {
  kind: 'stop';
  /** The issue or pull request the command was written on. */
  number: number;
  onPullRequest: boolean;
  actor: string;
  triggeredAt: string;
  commentId: number | null;
}

/** An issue was closed: agent-fix's pull request for it, if one is open and unmerged, is closed with a note. */
export interface IssueClosedTrigger {
  kind: 'issue-closed';
  issueNumber: number;
  actor: string;
  /** GitHub's `state_reason` (`completed`, `not_planned`, ...), or null. */
  stateReason: string | null;
  triggeredAt: string;
}

/** A failed `workflow_run` to repair (see src/ci/). Parsed from the event payload; re-checked against the API. */
export interface CiTrigger {
  kind: 'ci';
  runId: number;
  runAttempt: number;
  workflowName: string;
  workflowId: number | null;
  /** Commit the run tested: the fix starts from it. */
  headSha: string;
  /** Branch the run tested: the fix PR targets it. */
  headBranch: string;
  /** Event that started the run (push, pull_request, ...). */
  event: string;
  /** Who triggered the run (re-runs: who re-ran it); must have write permission. */
  actor: string;
  runUrl: string;
  runNumber: number | null;
  /** Same-repository pull requests the run belongs to. */
  pullRequests: { number: number; headRef: string; baseRef: string }[];
  createdAt: string;
  /** Started by hand (workflow_dispatch with a `run-id`): the run's details are read from the API first. */
  dispatched?: boolean;
}
