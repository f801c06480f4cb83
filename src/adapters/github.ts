/**
 * The GitHub API adapter: implements the `GitHubPort` with Octokit (REST), plus the reads
 * the CI-repair feature needs (workflow run, its jobs, a job's log).
 *
 * - Transient failures (5xx, network) are retried a bounded number of times by
 *   @octokit/plugin-retry; primary and secondary rate limits are waited out by
 *   @octokit/plugin-throttling, also a bounded number of times and never longer than
 *   `maxRateLimitWaitSeconds` per wait. Every retry is logged.
 * - Failures surface as `GitHubApiError` with a short, actionable message: method, route,
 *   status and GitHub's own message (e.g. "A pull request already exists for o:b.").
 *   The token never appears in errors or logs.
 */
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import type { CommentData, GitHubPort, IssueData, Permission, PullRequestData } from '../ports/github.js';
import type { CiGitHubPort, WorkflowRunData } from '../ports/ci.js';
import type { PullRequestDetails, ReviewCommentData, ReviewData, ReviewGitHubPort, ReviewState } from '../ports/review.js';

export interface MakeGitHubOptions {
  token: string;
  /** API base URL, e.g. https://api.github.com or $GITHUB_API_URL. */
  baseUrl: string;
  owner: string;
  repo: string;
  log?: (msg: string) => void;
  /** Retries of a failed request (5xx, network) and of a rate-limited one (default 3). */
  retries?: number;
  /** Unit of the retry waits in ms (default 1000: GitHub's retry-after is in seconds). Tests make it small. */
  retryAfterBaseMs?: number;
  /** Longest single rate-limit wait accepted, in seconds (default 120); a longer one fails instead. */
  maxRateLimitWaitSeconds?: number;
  /**
   * Space out writes as GitHub's best practices ask (one write per second, content that
   * notifies people every 3 s). Default: true, except for a loopback `baseUrl` (a local
   * fake API in tests, where there is no GitHub to protect and the waits only slow runs).
   */
  pace?: boolean;
}

export type { WorkflowRunData, JobData } from '../ports/ci.js';

/** The port plus the CI-repair reads (ports/ci.ts). */
export interface GitHubClient extends GitHubPort, CiGitHubPort, ReviewGitHubPort {}

/** A failed GitHub API call: `message` is safe to show (no token). */
export class GitHubApiError extends Error {
  override readonly name = 'GitHubApiError';
  constructor(
    message: string,
    /** HTTP status, 0 when no response arrived. */
    readonly status: number,
    /** `METHOD /route/{template}` of the call. */
    readonly route: string,
    /** GitHub's message and error details, when it sent any. */
    readonly githubMessage: string,
  ) {
    super(message);
  }
}

const ThrottledOctokit = Octokit.plugin(retry, throttling);
type Client = InstanceType<typeof ThrottledOctokit>;

const ROLES: ReadonlySet<string> = new Set(['admin', 'maintain', 'write', 'triage', 'read', 'none']);
const LEGACY: Record<string, Permission> = { admin: 'admin', write: 'write', read: 'read', none: 'none' };

/** `role_name` names maintain/triage (and custom roles); `permission` is the legacy base role. */
export function permissionFrom(data: { permission?: string | null; role_name?: string | null }): Permission {
  const role = (data.role_name ?? '').toLowerCase();
  if (ROLES.has(role)) return role as Permission;
  return LEGACY[(data.permission ?? '').toLowerCase()] ?? 'none';
}

function hintFor(status: number): string {
  switch (status) {
    case 401:
      return ' (the token is missing, expired or invalid)';
    case 403:
      return ' (the token lacks a permission: check the workflow `permissions:` and repository settings)';
    case 404:
      return ' (not found, or the token cannot see it)';
    default:
      return '';
  }
}

interface RequestErrorLike {
  status?: number;
  message?: string;
  response?: { data?: unknown };
}

/** GitHub's own message plus the `errors[]` details, e.g. "Validation Failed: A pull request already exists for o:b.". */
export function githubMessageOf(error: unknown): string {
  const e = error as RequestErrorLike;
  const data = e?.response?.data;
  if (data && typeof data === 'object' && 'message' in data) {
    const d = data as { message?: unknown; errors?: unknown };
    const details = Array.isArray(d.errors)
      ? d.errors
          .map((x) => (typeof x === 'string' ? x : x && typeof x === 'object' ? String((x as Obj).message ?? [(x as Obj).resource, (x as Obj).field, (x as Obj).code].filter(Boolean).join(' ')) : ''))
          .filter((s) => s !== '')
      : [];
    return [String(d.message), ...details].join(': ');
  }
  if (typeof data === 'string' && data.trim() !== '') return data.trim().slice(0, 300);
  return String(e?.message ?? error).slice(0, 300);
}

type Obj = Record<string, unknown>;

export function makeGitHub(opts: MakeGitHubOptions): GitHubClient {
  const { owner, repo } = opts;
  const retries = opts.retries ?? 3;
  const maxWait = opts.maxRateLimitWaitSeconds ?? 120;
  const redact = (text: string): string => (opts.token ? text.split(opts.token).join('***') : text);
  const log = (msg: string): void => opts.log?.(redact(msg));

  const onLimit = (kind: string) => (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number): boolean => {
    const again = retryCount < retries && retryAfter <= maxWait;
    log(`GitHub ${kind} rate limit on ${options.method} ${options.url}: ${again ? `retrying in ${retryAfter}s (retry ${retryCount + 1} of ${retries})` : `giving up (retry-after ${retryAfter}s)`}`);
    return again;
  };
  /** A limiter group that schedules immediately (no spacing of writes). */
  const unpaced = { key: () => ({ schedule: (_options: unknown, fn: (...a: unknown[]) => unknown, ...args: unknown[]) => Promise.resolve(fn(...args)) }) };
  const loopback = /^https?:\/\/(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?(\/|$)/i.test(opts.baseUrl);
  const groups = (opts.pace ?? !loopback) === false ? ({ write: unpaced, notifications: unpaced, search: unpaced } as unknown as Obj) : {};

  const octokit: Client = new ThrottledOctokit({
    auth: opts.token,
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    userAgent: 'agent-fix',
    // @octokit/plugin-request-log reports each failed attempt ("GET /path - 502 with id … in 12ms"), so
    // retries show in the log; 404 and 422 are answers the callers handle, not noise for the log.
    log: {
      debug: () => {},
      info: () => {},
      warn: (m: string) => log(`GitHub API: ${m}`),
      error: (m: string) => {
        if (!/ - (404|422) with id /.test(m)) log(`GitHub API: ${m}`);
      },
    },
    retry: { retries, retryAfterBaseValue: opts.retryAfterBaseMs ?? 1000 },
    throttle: {
      id: `agent-fix:${owner}/${repo}`,
      retryAfterBaseValue: opts.retryAfterBaseMs ?? 1000,
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      ...groups,
    },
  });
  async function call<T>(route: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const status = Number((error as RequestErrorLike)?.status ?? 0);
      const message = redact(githubMessageOf(error));
      throw new GitHubApiError(`GitHub API ${route} failed${status ? ` with ${status}` : ''}: ${message}${hintFor(status)}`, status, route, message);
    }
  }

  const toPull = (p: { number: number; html_url: string; head: { ref: string }; base: { ref: string }; state: string; draft?: boolean }): PullRequestData => ({
    number: p.number,
    url: p.html_url,
    head: p.head.ref,
    base: p.base.ref,
    state: p.state === 'closed' ? 'closed' : 'open',
    draft: p.draft ?? false,
  });
  const toComment = (c: { id: number | bigint; body?: string; user: { login: string } | null; html_url: string; created_at: string; updated_at: string }): CommentData => ({
    id: Number(c.id),
    body: c.body ?? '',
    author: c.user?.login ?? 'ghost',
    url: c.html_url,
    createdAt: c.created_at,
    updatedAt: c.updated_at,
  });

  const toRun = (data: {
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

  const toReviewComment = (c: {
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
  const REVIEW_STATES: ReviewState[] = ['APPROVED', 'CHANGES_REQUESTED', 'COMMENTED', 'DISMISSED', 'PENDING'];

  return {
    async getPullRequest(prNumber): Promise<PullRequestDetails> {
      const route = 'GET /repos/{owner}/{repo}/pulls/{pull_number}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, pull_number: prNumber }));
      return {
        number: data.number,
        url: data.html_url,
        title: data.title,
        body: data.body ?? '',
        author: data.user?.login ?? 'ghost',
        state: data.state === 'closed' ? 'closed' : 'open',
        merged: data.merged ?? false,
        draft: data.draft ?? false,
        head: data.head.ref,
        headSha: data.head.sha,
        headRepository: data.head.repo?.full_name ?? null,
        base: data.base.ref,
        baseSha: data.base.sha,
      };
    },

    async getReview(prNumber, reviewId): Promise<ReviewData> {
      const route = 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, pull_number: prNumber, review_id: reviewId }));
      const state = String(data.state).toUpperCase() as ReviewState;
      return {
        id: Number(data.id),
        author: data.user?.login ?? 'ghost',
        state: REVIEW_STATES.includes(state) ? state : 'COMMENTED',
        body: data.body ?? '',
        commitId: data.commit_id ?? '',
        submittedAt: data.submitted_at ?? null,
        url: data.html_url,
      };
    },

    async listReviewComments(prNumber, reviewId) {
      const route = 'GET /repos/{owner}/{repo}/pulls/{pull_number}/reviews/{review_id}/comments';
      const data = await call(route, () => octokit.paginate(route, { owner, repo, pull_number: prNumber, review_id: reviewId, per_page: 100 }));
      return data.map(toReviewComment).sort((a, b) => a.id - b.id);
    },

    async getReviewComment(commentId) {
      const route = 'GET /repos/{owner}/{repo}/pulls/comments/{comment_id}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, comment_id: commentId }));
      return toReviewComment(data);
    },

    async replyToReviewComment(prNumber, commentId, body) {
      const route = 'POST /repos/{owner}/{repo}/pulls/{pull_number}/comments/{comment_id}/replies';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, pull_number: prNumber, comment_id: commentId, body }));
      return toReviewComment(data);
    },

    async getPermission(username) {
      const route = 'GET /repos/{owner}/{repo}/collaborators/{username}/permission';
      try {
        const { data } = await octokit.request(route, { owner, repo, username });
        return permissionFrom(data);
      } catch (error) {
        if ((error as RequestErrorLike)?.status === 404) return 'none';
        return call(route, () => Promise.reject(error));
      }
    },

    async getDefaultBranch() {
      const route = 'GET /repos/{owner}/{repo}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo }));
      return data.default_branch;
    },

    async getIssue(issueNumber): Promise<IssueData> {
      const route = 'GET /repos/{owner}/{repo}/issues/{issue_number}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, issue_number: issueNumber }));
      return {
        number: data.number,
        title: data.title,
        body: data.body ?? '',
        author: data.user?.login ?? 'ghost',
        url: data.html_url,
        isPullRequest: data.pull_request != null,
        state: data.state === 'closed' ? 'closed' : 'open',
      };
    },

    async listComments(issueNumber) {
      const route = 'GET /repos/{owner}/{repo}/issues/{issue_number}/comments';
      const data = await call(route, () => octokit.paginate(route, { owner, repo, issue_number: issueNumber, per_page: 100 }));
      return data.map(toComment);
    },

    async createComment(issueNumber, body) {
      const route = 'POST /repos/{owner}/{repo}/issues/{issue_number}/comments';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, issue_number: issueNumber, body }));
      return toComment(data);
    },

    async updateComment(commentId, body) {
      const route = 'PATCH /repos/{owner}/{repo}/issues/comments/{comment_id}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, comment_id: commentId, body }));
      return toComment(data);
    },

    async findOpenPullRequest(head, base) {
      const route = 'GET /repos/{owner}/{repo}/pulls';
      const branch = head.includes(':') ? head.slice(head.indexOf(':') + 1) : head;
      // `head` must be `owner:branch`: GitHub silently ignores a bare branch name.
      const data = await call(route, () => octokit.paginate(route, { owner, repo, state: 'open', head: `${owner}:${branch}`, base, per_page: 100 }));
      const match = data.find((p) => p.head.ref === branch && p.base.ref === base && p.state === 'open');
      return match ? toPull(match) : null;
    },

    async createPullRequest(p) {
      const route = 'POST /repos/{owner}/{repo}/pulls';
      const create = (draft: boolean) => call(route, () => octokit.request(route, { owner, repo, head: p.head, base: p.base, title: p.title, body: p.body, draft }));
      try {
        return toPull((await create(p.draft)).data);
      } catch (error) {
        // Draft PRs need a plan that supports them; fall back to a ready PR rather than failing the run.
        if (p.draft && error instanceof GitHubApiError && error.status === 422 && /draft pull requests are not supported/i.test(error.githubMessage)) {
          log('Draft pull requests are not supported in this repository; opening a regular pull request instead.');
          return toPull((await create(false)).data);
        }
        throw error;
      }
    },

    async updatePullRequest(prNumber, p) {
      const route = 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, pull_number: prNumber, title: p.title, body: p.body }));
      return toPull(data);
    },

    async closePullRequest(prNumber) {
      const route = 'PATCH /repos/{owner}/{repo}/pulls/{pull_number}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, pull_number: prNumber, state: 'closed' }));
      return toPull(data);
    },

    async getFileContent(path, ref) {
      const route = 'GET /repos/{owner}/{repo}/contents/{path}';
      try {
        const { data } = await octokit.request(route, { owner, repo, path, ref });
        if (Array.isArray(data) || (data as { type?: string }).type !== 'file') {
          throw new GitHubApiError(`GitHub API ${route} failed: ${path} is not a file`, 200, route, 'not a file');
        }
        const file = data as { content?: string; encoding?: string };
        return Buffer.from(file.content ?? '', (file.encoding as BufferEncoding) === 'base64' ? 'base64' : 'utf8').toString('utf8');
      } catch (error) {
        if (error instanceof GitHubApiError) throw error;
        if ((error as RequestErrorLike)?.status === 404) return null;
        return call(route, () => Promise.reject(error));
      }
    },

    async isTeamMember(org, teamSlug, username) {
      const route = 'GET /orgs/{org}/teams/{team_slug}/memberships/{username}';
      try {
        const { data } = await octokit.request(route, { org, team_slug: teamSlug, username });
        return (data as { state?: string }).state === 'active';
      } catch (error) {
        if ((error as RequestErrorLike)?.status === 404) return false;
        return call(route, () => Promise.reject(error));
      }
    },

    async getWorkflowRun(runId) {
      const route = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, run_id: runId }));
      return toRun(data);
    },

    async listBranchRuns(branch, listOpts) {
      const route = 'GET /repos/{owner}/{repo}/actions/runs';
      const status = listOpts?.status as 'success' | undefined;
      const { data } = await call(route, () => octokit.request(route, { owner, repo, branch, per_page: listOpts?.perPage ?? 50, ...(status ? { status } : {}) }));
      return data.workflow_runs.map(toRun);
    },

    async listRunJobs(runId) {
      const route = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs';
      const jobs = await call(route, () => octokit.paginate(route, { owner, repo, run_id: runId, filter: 'latest', per_page: 100 }));
      return jobs.map((j) => ({
        id: Number(j.id),
        runId: Number(j.run_id),
        name: j.name,
        status: j.status,
        conclusion: j.conclusion ?? null,
        url: j.html_url ?? null,
        steps: (j.steps ?? []).map((s) => ({ number: s.number, name: s.name, status: s.status, conclusion: s.conclusion ?? null })),
      }));
    },

    async getJobLog(jobId, logOpts) {
      const route = 'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs';
      const maxChars = logOpts?.maxChars ?? 2_000_000;
      // Do not let fetch follow the redirect: the signed storage URL must not receive the token.
      const response = await call(route, () => octokit.request(route, { owner, repo, job_id: jobId, request: { redirect: 'manual' } }));
      let text: string;
      const location = (response.headers as Record<string, string | undefined>).location;
      if (response.status >= 300 && response.status < 400 && location) {
        const download = await call(`GET ${route} (redirect)`, async () => {
          const res = await fetch(location, { redirect: 'follow' });
          if (!res.ok) throw Object.assign(new Error(`log download answered ${res.status} ${res.statusText}`), { status: res.status });
          return res.text();
        });
        text = download;
      } else {
        const data: unknown = response.data;
        text = typeof data === 'string' ? data : data instanceof ArrayBuffer ? Buffer.from(data).toString('utf8') : String(data ?? '');
      }
      return text.length > maxChars ? text.slice(text.length - maxChars) : text;
    },
  };
}
