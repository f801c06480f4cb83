/** The reads and the reply of a pull-request review (ports/review.ts). */
import type { PullRequestDetails, ReviewData, ReviewGitHubPort, ReviewState } from '../../ports/review.js';
import type { Api } from './client.js';
import { REVIEW_STATES, toReviewComment } from './convert.js';

export function reviewPort({ octokit, call, owner, repo }: Api): ReviewGitHubPort {
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
  };
}
