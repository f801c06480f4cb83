/** The fake GitHub's public types: its options, the state it holds, what it records. */
import type { components } from '@octokit/openapi-types';

/**
 * A response body as GitHub's OpenAPI description types it (`@octokit/openapi-types`, the
 * description the runtime contract also checks): a builder typed with it fails `tsc` when a
 * required field goes missing, is renamed or changes type.
 */
export type Schema<K extends keyof components['schemas']> = components['schemas'][K];

export type FakePermission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface FakeGitHubOptions {
  owner?: string;
  repo?: string;
  defaultBranch?: string;
  private?: boolean;
  /** Kind of account owning the repository (default Organization). A User owner is an admin collaborator. */
  ownerType?: 'Organization' | 'User';
  /** When set, the only accepted token; otherwise any non-empty token is accepted. */
  token?: string;
  /** The authenticated user that creates comments and PRs (default `github-actions[bot]`). */
  botLogin?: string;
  /** A bare git repository: PR heads/bases must be branches in it and shas are read from it. */
  gitDir?: string;
  /** False: draft PRs are refused with GitHub's 422 (plans without draft support). Default true. */
  draftPullRequests?: boolean;
  /** Clock for timestamps (default: real time). */
  now?: () => Date;
  /**
   * The token is read-only (a workflow token with `contents: read`, as in a `propose` job): every
   * POST, PATCH, PUT and DELETE is answered 403 "Resource not accessible by integration", like
   * GitHub does, and recorded in `writeAttempts`. Also switchable with `setReadOnly`.
   */
  readOnly?: boolean;
}

export interface FakeRepo {
  id: number;
  owner: string;
  name: string;
  fullName: string;
  ownerType: 'Organization' | 'User';
  defaultBranch: string;
  private: boolean;
  description: string | null;
}

export interface FakeUser {
  login: string;
  id: number;
  type: 'User' | 'Bot' | 'Organization';
}

export interface FakeIssue {
  id: number;
  number: number;
  title: string;
  body: string | null;
  author: string;
  labels: string[];
  state: 'open' | 'closed';
  locked: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export interface FakeComment {
  id: number;
  issueNumber: number;
  body: string;
  author: string;
  createdAt: string;
  updatedAt: string;
}

export interface FakePull {
  id: number;
  number: number;
  title: string;
  body: string | null;
  /** Branch name in this repository. */
  head: string;
  headSha: string;
  base: string;
  baseSha: string;
  state: 'open' | 'closed';
  draft: boolean;
  merged: boolean;
  author: string;
  maintainerCanModify: boolean;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
}

export interface FakeReview {
  id: number;
  pullNumber: number;
  author: string;
  state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';
  body: string;
  commitId: string;
  submittedAt: string | null;
}

export interface FakeReviewComment {
  id: number;
  pullNumber: number;
  /** The review it belongs to (a reply made through the replies endpoint gets one of its own, like GitHub). */
  reviewId: number;
  author: string;
  path: string;
  /** Line of the file (right side) the comment is on; null for a file-level comment. */
  line: number | null;
  startLine: number | null;
  side: 'LEFT' | 'RIGHT';
  body: string;
  diffHunk: string;
  commitId: string;
  inReplyTo: number | null;
  createdAt: string;
  updatedAt: string;
}

export interface FakeWorkflowRun {
  id: number;
  name: string;
  workflowId: number;
  path: string;
  runNumber: number;
  runAttempt: number;
  event: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion: string | null;
  headBranch: string;
  headSha: string;
  displayTitle: string;
  actor: string;
  /** Numbers of the PRs of this repository the run belongs to. */
  pullRequests: number[];
  createdAt: string;
  updatedAt: string;
}

export interface FakeJobStep {
  name: string;
  status: 'queued' | 'in_progress' | 'completed';
  conclusion: string | null;
  number: number;
}

export interface FakeJob {
  id: number;
  runId: number;
  name: string;
  status: 'queued' | 'in_progress' | 'completed' | 'waiting' | 'requested' | 'pending';
  conclusion: 'success' | 'failure' | 'neutral' | 'cancelled' | 'skipped' | 'timed_out' | 'action_required' | null;
  steps: FakeJobStep[];
  startedAt: string;
  completedAt: string | null;
}

export interface RecordedRequest {
  method: string;
  /** Path without the query string, as sent (percent-encoded). */
  path: string;
  query: Record<string, string>;
  /** Lower-cased header names. */
  headers: Record<string, string>;
  /** Parsed JSON body, the raw text when it is not JSON, undefined when empty. */
  body: unknown;
  rawBody: string;
  /** Status answered (0 while in flight). */
  status: number;
}

export interface FaultSpec {
  /** HTTP method to match (any when omitted). */
  method?: string;
  /** Exact path (e.g. `/repos/o/r/pulls`), an OpenAPI template (`/repos/{owner}/{repo}/pulls`), or a RegExp tested on the path. */
  path: string | RegExp;
  status: number;
  /** JSON body (default: `{ message: <status text> }`); a string is sent as text/plain. */
  body?: unknown;
  headers?: Record<string, string>;
  /** How many matching requests fail (default 1). */
  times?: number;
}
