/**
 * What a conversation on agent-fix's own pull request needs from the GitHub API: the pull
 * request as it is now, the review that asked for changes and its inline comments, a single
 * review comment, and a reply in a comment's thread. Implemented by adapters/github.ts.
 *
 * Text is always read here, at run time, never taken from the event payload: an edit made
 * after the event is what the reviewer means now, and the payload may be stale or forged.
 */

export interface PullRequestDetails {
  number: number;
  url: string;
  title: string;
  body: string;
  author: string;
  state: 'open' | 'closed';
  merged: boolean;
  draft: boolean;
  /** Branch name; `headRepository` says where it lives (a fork's branch is never written). */
  head: string;
  headSha: string;
  headRepository: string | null;
  base: string;
  baseSha: string;
}

export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';

export interface ReviewData {
  id: number;
  author: string;
  state: ReviewState;
  body: string;
  /** The head commit the review was made on. */
  commitId: string;
  submittedAt: string | null;
  url: string;
}

export interface ReviewCommentData {
  id: number;
  reviewId: number | null;
  author: string;
  body: string;
  path: string;
  /** Line in the file on the right side (the PR head); null for a comment on the whole file or an outdated one. */
  line: number | null;
  startLine: number | null;
  side: 'LEFT' | 'RIGHT' | null;
  diffHunk: string;
  commitId: string;
  /** The thread's first comment when this is a reply. */
  inReplyTo: number | null;
  url: string;
  createdAt: string;
  updatedAt: string;
}

export interface ReviewGitHubPort {
  getPullRequest(prNumber: number): Promise<PullRequestDetails>;
  getReview(prNumber: number, reviewId: number): Promise<ReviewData>;
  /** The inline comments submitted with a review, oldest first. */
  listReviewComments(prNumber: number, reviewId: number): Promise<ReviewCommentData[]>;
  getReviewComment(commentId: number): Promise<ReviewCommentData>;
  /** A reply in the thread of a review comment (GitHub attaches it to the thread's first comment). */
  replyToReviewComment(prNumber: number, commentId: number, body: string): Promise<ReviewCommentData>;
}
