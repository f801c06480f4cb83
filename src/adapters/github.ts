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
 *
 * This file is the repository port (issues, comments, pull requests, files, permissions);
 * github/client.ts (the Octokit client, errors), github/review.ts, github/ci.ts (the reads of
 * those features), github/convert.ts (payloads to the port's values).
 */
import type { GitHubPort, IssueData } from '../ports/github.js';
import type { CiGitHubPort } from '../ports/ci.js';
import type { ReviewGitHubPort } from '../ports/review.js';

import { GitHubApiError, openApi, permissionFrom, type Api, type MakeGitHubOptions, type RequestErrorLike } from './github/client.js';
import { toComment, toPull } from './github/convert.js';
import { reviewPort } from './github/review.js';
import { ciPort } from './github/ci.js';

export { GitHubApiError, githubMessageOf, permissionFrom } from './github/client.js';
export type { MakeGitHubOptions } from './github/client.js';
export type { WorkflowRunData, JobData } from '../ports/ci.js';

/** The port plus the CI-repair reads (ports/ci.ts). */
export interface GitHubClient extends GitHubPort, CiGitHubPort, ReviewGitHubPort {}

export function makeGitHub(opts: MakeGitHubOptions): GitHubClient {
  const api = openApi(opts);
  return { ...repositoryPort(api), ...reviewPort(api), ...ciPort(api) };
}

/** The port of ports/github.ts: issues, comments, pull requests, files, permissions. */
function repositoryPort({ octokit, call, owner, repo, log }: Api): GitHubPort {
  return {
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
  };
}
