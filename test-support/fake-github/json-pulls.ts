/** The fake GitHub's JSON for pull requests, reviews and review comments, typed with GitHub's schema (see json.ts). */
import { nodeId, type FakeGitHubState } from './state.js';
import { apiRepoUrl, association, reactions, repoJson, userJson } from './json.js';
import type { FakePull, FakeReview, FakeReviewComment, Schema } from './types.js';

export function pullJson(s: FakeGitHubState, pull: FakePull): Schema<'pull-request'> {
  const api = `${apiRepoUrl(s)}/pulls/${pull.number}`;
  const issueApi = `${apiRepoUrl(s)}/issues/${pull.number}`;
  const html = `https://github.com/${s.repo.fullName}/pull/${pull.number}`;
  const headSha = (s.opts.gitDir && pull.state === 'open' ? s.branchSha(pull.head) : null) ?? pull.headSha;
  const ownerUser = userJson(s, s.repo.owner);
  const repo = repoJson(s);
  const statuses = `${apiRepoUrl(s)}/statuses/${headSha}`;
  return {
    url: api,
    id: pull.id,
    node_id: nodeId('PR', pull.id),
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issueApi,
    commits_url: `${api}/commits`,
    review_comments_url: `${api}/comments`,
    review_comment_url: `${apiRepoUrl(s)}/pulls/comments{/number}`,
    comments_url: `${issueApi}/comments`,
    statuses_url: statuses,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: userJson(s, pull.author),
    body: pull.body,
    labels: [],
    milestone: null,
    active_lock_reason: null,
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    closed_at: pull.closedAt,
    merged_at: null,
    merge_commit_sha: null,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: { label: `${s.repo.owner}:${pull.head}`, ref: pull.head, sha: headSha, user: ownerUser, repo },
    base: { label: `${s.repo.owner}:${pull.base}`, ref: pull.base, sha: pull.baseSha, user: ownerUser, repo },
    _links: {
      self: { href: api },
      html: { href: html },
      issue: { href: issueApi },
      comments: { href: `${issueApi}/comments` },
      review_comments: { href: `${api}/comments` },
      review_comment: { href: `${apiRepoUrl(s)}/pulls/comments{/number}` },
      commits: { href: `${api}/commits` },
      statuses: { href: statuses },
    },
    author_association: association(s, pull.author),
    auto_merge: null,
    draft: pull.draft,
    merged: pull.merged,
    mergeable: null,
    rebaseable: null,
    mergeable_state: 'unknown',
    merged_by: null,
    comments: s.comments.filter((c) => c.issueNumber === pull.number).length,
    review_comments: s.reviewComments.filter((c) => c.pullNumber === pull.number).length,
    maintainer_can_modify: pull.maintainerCanModify,
    commits: 1,
    additions: 0,
    deletions: 0,
    changed_files: 0,
  };
}

/** A pull request as listed (GET .../pulls): the same object, its (empty) labels and requested teams typed as the list's schema wants. */
export function pullListedJson(s: FakeGitHubState, pull: FakePull): Schema<'pull-request-simple'> {
  return { ...pullJson(s, pull), labels: [], requested_teams: [] };
}

export function reviewJson(s: FakeGitHubState, review: FakeReview): Schema<'pull-request-review'> {
  const pullApi = `${apiRepoUrl(s)}/pulls/${review.pullNumber}`;
  const html = `https://github.com/${s.repo.fullName}/pull/${review.pullNumber}#pullrequestreview-${review.id}`;
  return {
    id: review.id,
    node_id: nodeId('PRR', review.id),
    user: userJson(s, review.author),
    body: review.body,
    state: review.state,
    html_url: html,
    pull_request_url: pullApi,
    _links: { html: { href: html }, pull_request: { href: pullApi } },
    ...(review.submittedAt ? { submitted_at: review.submittedAt } : {}),
    commit_id: review.commitId,
    author_association: association(s, review.author),
  };
}

/** `review-comment` (listed under a review) and `pull-request-review-comment` (get, reply) share their shape. */
export function reviewCommentJson(s: FakeGitHubState, c: FakeReviewComment): Schema<'review-comment'> & Schema<'pull-request-review-comment'> {
  const url = `${apiRepoUrl(s)}/pulls/comments/${c.id}`;
  const pullApi = `${apiRepoUrl(s)}/pulls/${c.pullNumber}`;
  const html = `https://github.com/${s.repo.fullName}/pull/${c.pullNumber}#discussion_r${c.id}`;
  return {
    url,
    pull_request_review_id: c.reviewId,
    id: c.id,
    node_id: nodeId('PRRC', c.id),
    diff_hunk: c.diffHunk,
    path: c.path,
    position: c.line ?? 1,
    original_position: c.line ?? 1,
    commit_id: c.commitId,
    original_commit_id: c.commitId,
    ...(c.inReplyTo !== null ? { in_reply_to_id: c.inReplyTo } : {}),
    user: userJson(s, c.author),
    body: c.body,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
    html_url: html,
    pull_request_url: pullApi,
    author_association: association(s, c.author),
    _links: { self: { href: url }, html: { href: html }, pull_request: { href: pullApi } },
    start_line: c.startLine,
    original_start_line: c.startLine,
    start_side: c.startLine === null ? null : c.side,
    line: c.line ?? undefined,
    original_line: c.line ?? undefined,
    side: c.side,
    subject_type: c.line === null ? 'file' : 'line',
    reactions: reactions(s, url),
  };
}
