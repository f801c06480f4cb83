/**
 * The fake GitHub's routes: what each operation answers, from the state (state.ts), as GitHub
 * would, including its errors (404, 422 "Validation Failed"). The server (server.ts) has already
 * authenticated the request and checked it against the contract; it checks the answer too.
 */
import { randomBytes } from 'node:crypto';
import { DOCS, type Obj, type Operation } from './contract.js';
import { commentJson, fullRepoJson, issueJson, pullAsIssueJson, userJson, apiRepoUrl } from './json.js';
import { pullJson, pullListedJson, reviewCommentJson, reviewJson } from './json-pulls.js';
import { jobJson, runJson } from './json-actions.js';
import { iso, sha1, type FakeGitHubState } from './state.js';
import type { FakeComment, FakePermission, FakePull, Schema } from './types.js';

export interface Reply {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Plain-text body, not validated (raw media types, logs). */
  text?: string;
  /** Sent without the response check (the fake's own 404s before an operation's handler, as before the split). */
  unchecked?: boolean;
}

export class HttpError extends Error {
  constructor(readonly reply: Reply) {
    super(`HTTP ${reply.status}`);
  }
}

type ErrorBody = Schema<'basic-error'> | (Schema<'validation-error'> & { status: string });

function error(status: number, body: ErrorBody): HttpError {
  return new HttpError({ status, body });
}

function notFound(doc: string): HttpError {
  return error(404, { message: 'Not Found', documentation_url: `${DOCS}/${doc}`, status: '404' });
}

function validationFailed(doc: string, errors: NonNullable<Schema<'validation-error'>['errors']>): HttpError {
  return error(422, { message: 'Validation Failed', errors, documentation_url: `${DOCS}/${doc}`, status: '422' });
}

const LEGACY_PERMISSION: Record<FakePermission, string> = { admin: 'admin', maintain: 'write', write: 'write', triage: 'read', read: 'read', none: 'none' };
const MAX_BODY = 65536;

/** The answer to a checked request for `op`. */
export function answer(s: FakeGitHubState, op: Operation, url: URL, body: unknown, headers: Record<string, string>): Reply {
  const params = op.params;
  // teams (not under the repository)
  if (op.operationId === 'teams/get-membership-for-user-in-org') {
    const members = s.teamMembers.get(`${String(params.org)}/${String(params.team_slug)}`.toLowerCase());
    if (!members || !members.has(String(params.username).toLowerCase())) {
      return { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' }, unchecked: true };
    }
    const membership: Schema<'team-membership'> = { url: `${s.url}/organizations/1/team/1/memberships/${String(params.username)}`, role: 'member', state: 'active' };
    return { status: 200, body: membership };
  }
  // the repository itself
  if (String(params.owner).toLowerCase() !== s.repo.owner.toLowerCase() || String(params.repo).toLowerCase() !== s.repo.name.toLowerCase()) {
    return { status: 404, body: { message: 'Not Found', documentation_url: DOCS, status: '404' }, unchecked: true };
  }
  try {
    return dispatch(s, op.operationId, params, url, body as Obj, headers);
  } catch (thrown) {
    if (thrown instanceof HttpError) return thrown.reply;
    throw thrown;
  }
}

function dispatch(s: FakeGitHubState, operationId: string, params: Record<string, unknown>, url: URL, body: Obj, headers: Record<string, string>): Reply {
  const q = url.searchParams;
  switch (operationId) {
    case 'repos/get':
      return { status: 200, body: fullRepoJson(s) };
    case 'repos/get-collaborator-permission-level':
      return permissionReply(s, String(params.username));
    case 'issues/get': {
      const found = s.findIssueOrPull(params.issue_number as number);
      if (!found) throw notFound('issues/issues#get-an-issue');
      return { status: 200, body: found.issue ? issueJson(s, found.issue) : pullAsIssueJson(s, found.pull!) };
    }
    case 'issues/list-comments': {
      const number = params.issue_number as number;
      if (!s.findIssueOrPull(number)) throw notFound('issues/comments#list-issue-comments');
      const since = q.get('since');
      const list = s.comments
        .filter((cm) => cm.issueNumber === number && (!since || Date.parse(cm.updatedAt) >= Date.parse(since)))
        .sort((a, b) => a.id - b.id)
        .map((cm) => commentJson(s, cm));
      return paginate(s, url, list);
    }
    case 'issues/create-comment': {
      const number = params.issue_number as number;
      if (!s.findIssueOrPull(number)) throw notFound('issues/comments#create-an-issue-comment');
      const text = String(body.body);
      checkBody(text, 'IssueComment', 'issues/comments#create-an-issue-comment');
      const created = iso(s.now());
      const comment: FakeComment = { id: s.nextIds.comment++, issueNumber: number, body: text, author: s.botLogin, createdAt: created, updatedAt: created };
      s.comments.push(comment);
      const json = commentJson(s, comment);
      return { status: 201, body: json, headers: { location: String(json.url) } };
    }
    case 'issues/update-comment': {
      const comment = s.comments.find((cm) => cm.id === params.comment_id);
      if (!comment) throw notFound('issues/comments#update-an-issue-comment');
      const text = String(body.body);
      checkBody(text, 'IssueComment', 'issues/comments#update-an-issue-comment');
      comment.body = text;
      comment.updatedAt = iso(s.now());
      return { status: 200, body: commentJson(s, comment) };
    }
    case 'pulls/list': {
      const state = q.get('state') ?? 'open';
      const base = q.get('base');
      const head = q.get('head');
      let headFilter: { owner: string; branch: string } | null = null;
      if (head && head.includes(':')) {
        const [owner, ...rest] = head.split(':');
        headFilter = { owner: owner.toLowerCase(), branch: rest.join(':') };
      }
      const direction = q.get('direction') ?? 'desc';
      const list = s.pulls
        .filter((p) => state === 'all' || p.state === state)
        .filter((p) => !base || p.base === base)
        .filter((p) => !headFilter || (headFilter.owner === s.repo.owner.toLowerCase() && headFilter.branch === p.head))
        .sort((a, b) => (direction === 'asc' ? a.number - b.number : b.number - a.number))
        .map((p) => pullListedJson(s, p));
      return paginate(s, url, list);
    }
    case 'pulls/create':
      return createPull(s, body);
    case 'pulls/get': {
      const pull = s.pulls.find((p) => p.number === params.pull_number);
      if (!pull) throw notFound('pulls/pulls#get-a-pull-request');
      return { status: 200, body: pullJson(s, pull) };
    }
    case 'pulls/update': {
      const pull = s.pulls.find((p) => p.number === params.pull_number);
      if (!pull) throw notFound('pulls/pulls#update-a-pull-request');
      if (typeof body?.body === 'string') checkBody(body.body, 'PullRequest', 'pulls/pulls#update-a-pull-request');
      if (typeof body?.base === 'string' && s.opts.gitDir && !s.branchSha(body.base)) {
        throw validationFailed('pulls/pulls#update-a-pull-request', [{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
      }
      if (typeof body?.title === 'string') pull.title = body.title;
      if (typeof body?.body === 'string') pull.body = body.body;
      if (typeof body?.base === 'string') pull.base = body.base;
      if (typeof body?.maintainer_can_modify === 'boolean') pull.maintainerCanModify = body.maintainer_can_modify;
      if (body?.state === 'open' || body?.state === 'closed') {
        pull.closedAt = body.state === 'closed' ? iso(s.now()) : null;
        pull.state = body.state;
      }
      pull.updatedAt = iso(s.now());
      return { status: 200, body: pullJson(s, pull) };
    }
    case 'pulls/get-review': {
      const review = s.reviews.find((r) => r.id === params.review_id && r.pullNumber === params.pull_number);
      if (!review) throw notFound('pulls/reviews#get-a-review-for-a-pull-request');
      return { status: 200, body: reviewJson(s, review) };
    }
    case 'pulls/list-comments-for-review': {
      const review = s.reviews.find((r) => r.id === params.review_id && r.pullNumber === params.pull_number);
      if (!review) throw notFound('pulls/reviews#list-comments-for-a-pull-request-review');
      const list = s.reviewComments.filter((c) => c.reviewId === review.id).sort((a, b) => a.id - b.id).map((c) => reviewCommentJson(s, c));
      return paginate(s, url, list);
    }
    case 'pulls/get-review-comment': {
      const comment = s.reviewComments.find((c) => c.id === params.comment_id);
      if (!comment) throw notFound('pulls/comments#get-a-review-comment-for-a-pull-request');
      return { status: 200, body: reviewCommentJson(s, comment) };
    }
    case 'pulls/create-reply-for-review-comment': {
      const pull = s.pulls.find((p) => p.number === params.pull_number);
      const parent = s.reviewComments.find((c) => c.id === params.comment_id && c.pullNumber === params.pull_number);
      if (!pull || !parent) throw notFound('pulls/comments#create-a-reply-for-a-review-comment');
      const text = String(body.body);
      checkBody(text, 'PullRequestReviewComment', 'pulls/comments#create-a-reply-for-a-review-comment');
      const reply = s.addReviewComment({ pullNumber: pull.number, author: s.botLogin, path: parent.path, body: text, inReplyTo: parent.id });
      const json = reviewCommentJson(s, reply);
      return { status: 201, body: json, headers: { location: String(json.url) } };
    }
    case 'repos/get-content':
      return contentReply(s, String(params.path ?? ''), q.get('ref') ?? s.repo.defaultBranch, headers.accept ?? '');
    case 'actions/list-workflow-runs-for-repo': {
      const list = s.workflowRuns
        .filter((r) => !q.get('branch') || r.headBranch === q.get('branch'))
        .filter((r) => !q.get('event') || r.event === q.get('event'))
        .filter((r) => !q.get('head_sha') || r.headSha === q.get('head_sha'))
        .filter((r) => !q.get('actor') || r.actor === q.get('actor'))
        .filter((r) => !q.get('status') || r.status === q.get('status') || r.conclusion === q.get('status'))
        .sort((a, b) => b.id - a.id)
        .map((r) => runJson(s, r, q.get('exclude_pull_requests') === 'true'));
      return paginate(s, url, list, 'workflow_runs');
    }
    case 'actions/get-workflow-run': {
      const run = s.workflowRuns.find((r) => r.id === params.run_id);
      if (!run) throw notFound('actions/workflow-runs#get-a-workflow-run');
      return { status: 200, body: runJson(s, run, q.get('exclude_pull_requests') === 'true') };
    }
    case 'actions/list-jobs-for-workflow-run': {
      const run = s.workflowRuns.find((r) => r.id === params.run_id);
      if (!run) throw notFound('actions/workflow-jobs#list-jobs-for-a-workflow-run');
      const list = s.jobs.filter((j) => j.runId === run.id).sort((a, b) => a.id - b.id).map((j) => jobJson(s, j, run));
      return paginate(s, url, list, 'jobs');
    }
    case 'actions/download-job-logs-for-workflow-run': {
      const job = s.jobs.find((j) => j.id === params.job_id);
      if (!job || !s.logs.has(job.id)) throw notFound('actions/workflow-jobs#download-job-logs-for-a-workflow-run');
      const sig = randomBytes(12).toString('hex');
      s.logTokens.set(sig, job.id);
      return { status: 302, headers: { location: `${s.url}/_logs/${job.id}?sig=${sig}` } };
    }
    default:
      throw new Error(`fake-github has no handler for ${operationId}`);
  }
}

function checkBody(text: string, resource: string, doc: string): void {
  if (text.trim() === '' && resource === 'IssueComment') {
    throw validationFailed(doc, [{ resource, code: 'missing_field', field: 'body' }]);
  }
  if (text.length > MAX_BODY) {
    throw validationFailed(doc, [{ resource, code: 'custom', field: 'body', message: `body is too long (maximum is ${MAX_BODY} characters)` }]);
  }
}

function permissionReply(s: FakeGitHubState, username: string): Reply {
  const user = s.users.get(username.toLowerCase());
  if (!user) throw notFound('collaborators/collaborators#get-repository-permissions-for-a-user');
  const role = s.permissions.get(username.toLowerCase()) ?? (s.repo.private ? 'none' : 'read');
  const collaborator = s.permissions.has(username.toLowerCase());
  const json: Schema<'repository-collaborator-permission'> = {
    permission: collaborator ? LEGACY_PERMISSION[role] : role,
    role_name: role,
    user: {
      ...userJson(s, user.login),
      permissions: { admin: role === 'admin', maintain: role === 'admin' || role === 'maintain', push: ['admin', 'maintain', 'write'].includes(role), triage: role !== 'read' && role !== 'none', pull: role !== 'none' },
      role_name: role,
    },
  };
  return { status: 200, body: json };
}

function createPull(s: FakeGitHubState, body: Obj): Reply {
  const doc = 'pulls/pulls#create-a-pull-request';
  if (body.issue !== undefined) {
    s.violations.push('POST /repos/{owner}/{repo}/pulls: converting an issue (`issue`) is not supported by the fake');
    throw new HttpError({ status: 500, body: { message: 'fake-github: `issue` is not supported' } });
  }
  if (typeof body.title !== 'string' || body.title.trim() === '') {
    throw validationFailed(doc, [{ resource: 'PullRequest', code: 'missing_field', field: 'title' }]);
  }
  let head = String(body.head);
  if (head.includes(':')) {
    const [owner, ...rest] = head.split(':');
    if (owner.toLowerCase() !== s.repo.owner.toLowerCase()) {
      throw validationFailed(doc, [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
    }
    head = rest.join(':');
  }
  const base = String(body.base);
  const headSha = s.opts.gitDir ? s.branchSha(head) : sha1(`head:${head}:${s.pulls.length}`);
  const baseSha = s.opts.gitDir ? s.branchSha(base) : sha1(`base:${base}`);
  if (!baseSha) throw validationFailed(doc, [{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
  if (!headSha) throw validationFailed(doc, [{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  if (head === base || headSha === baseSha) {
    throw validationFailed(doc, [{ resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` }]);
  }
  if (s.pulls.some((p) => p.state === 'open' && p.head === head && p.base === base)) {
    throw validationFailed(doc, [{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${s.repo.owner}:${head}.` }]);
  }
  if (typeof body.body === 'string') checkBody(body.body, 'PullRequest', doc);
  if (body.draft === true && s.opts.draftPullRequests === false) {
    throw validationFailed(doc, [{ resource: 'PullRequest', code: 'custom', message: 'Draft pull requests are not supported in this repository.' }]);
  }
  const created = iso(s.now());
  const pull: FakePull = {
    id: s.nextIds.pull++,
    number: s.nextNumber++,
    title: body.title,
    body: typeof body.body === 'string' ? body.body : null,
    head,
    headSha,
    base,
    baseSha,
    state: 'open',
    draft: body.draft === true,
    merged: false,
    author: s.botLogin,
    maintainerCanModify: body.maintainer_can_modify === true,
    createdAt: created,
    updatedAt: created,
    closedAt: null,
  };
  s.pulls.push(pull);
  const json = pullJson(s, pull);
  return { status: 201, body: json, headers: { location: String(json.url) } };
}

function contentReply(s: FakeGitHubState, path: string, ref: string, accept: string): Reply {
  const doc = 'repos/contents#get-repository-content';
  const tree = s.files.get(ref);
  if (!tree && ref !== s.repo.defaultBranch) {
    throw new HttpError({ status: 404, body: { message: `No commit found for the ref ${ref}`, documentation_url: `${DOCS}/${doc}`, status: '404' } });
  }
  const clean = path.replace(/^\/+|\/+$/g, '');
  const content = tree?.get(clean);
  const api = apiRepoUrl(s);
  const entry = (p: string, type: 'file' | 'dir', text?: string): Schema<'content-directory'>[number] => {
    const sha = type === 'file' ? sha1(`blob ${Buffer.byteLength(text ?? '')}\0${text ?? ''}`) : sha1(`tree:${p}`);
    const self = `${api}/contents/${p}?ref=${encodeURIComponent(ref)}`;
    const git = `${api}/git/${type === 'file' ? 'blobs' : 'trees'}/${sha}`;
    const html = `https://github.com/${s.repo.fullName}/${type === 'file' ? 'blob' : 'tree'}/${encodeURIComponent(ref)}/${p}`;
    return {
      type,
      size: type === 'file' ? Buffer.byteLength(text ?? '') : 0,
      name: p.split('/').pop() ?? p,
      path: p,
      sha,
      url: self,
      git_url: git,
      html_url: html,
      download_url: type === 'file' ? `https://raw.githubusercontent.com/${s.repo.fullName}/${encodeURIComponent(ref)}/${p}` : null,
      _links: { self, git, html },
    };
  };
  if (content !== undefined) {
    if (/application\/vnd\.github(\.v3)?\.raw/i.test(accept)) return { status: 200, text: content };
    const encoded = Buffer.from(content, 'utf8').toString('base64').replace(/(.{60})/g, '$1\n');
    const file: Schema<'content-file'> = { ...entry(clean, 'file', content), type: 'file', content: encoded, encoding: 'base64' };
    return { status: 200, body: file };
  }
  const prefix = clean === '' ? '' : `${clean}/`;
  const children = new Map<string, Schema<'content-directory'>[number]>();
  for (const [p, text] of tree ?? []) {
    if (!p.startsWith(prefix)) continue;
    const [first, ...rest] = p.slice(prefix.length).split('/');
    const childPath = `${prefix}${first}`;
    if (!children.has(childPath)) children.set(childPath, rest.length > 0 ? entry(childPath, 'dir') : entry(childPath, 'file', text));
  }
  if (children.size === 0) throw notFound(doc);
  return { status: 200, body: [...children.values()].sort((a, b) => a.name.localeCompare(b.name)) };
}

function paginate(s: FakeGitHubState, url: URL, list: unknown[], wrapKey?: string): Reply {
  const perPage = Math.min(Math.max(Number(url.searchParams.get('per_page') ?? 30) || 30, 1), 100);
  const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
  const last = Math.max(Math.ceil(list.length / perPage), 1);
  const items = list.slice((page - 1) * perPage, page * perPage);
  const link = (p: number, rel: string): string => {
    const next = new URL(url.pathname + url.search, s.url);
    next.searchParams.set('page', String(p));
    next.searchParams.set('per_page', String(perPage));
    return `<${next.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  const headers = links.length > 0 ? { link: links.join(', ') } : undefined;
  return { status: 200, body: wrapKey ? { total_count: list.length, [wrapKey]: items } : items, headers };
}
