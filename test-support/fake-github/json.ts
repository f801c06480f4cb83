/**
 * The fake GitHub's JSON for users, the repository, issues and issue comments, typed with GitHub's
 * own schema (`@octokit/openapi-types`): a required field missing, renamed or of another type
 * fails `tsc`, before the runtime contract (contract.ts) would fail a test.
 */
import { nodeId, type FakeGitHubState } from './state.js';
import type { FakeComment, FakeIssue, FakePull, Schema } from './types.js';

export function apiRepoUrl(s: FakeGitHubState): string {
  return `${s.url}/repos/${s.repo.fullName}`;
}

export function userJson(s: FakeGitHubState, login: string): Schema<'simple-user'> {
  const user = s.users.get(login.toLowerCase()) ?? s.addUser(login);
  const api = `${s.url}/users/${encodeURIComponent(user.login)}`;
  const bot = user.type === 'Bot';
  return {
    login: user.login,
    id: user.id,
    node_id: nodeId(bot ? 'BOT' : user.type === 'Organization' ? 'O' : 'U', user.id),
    avatar_url: bot ? `https://avatars.githubusercontent.com/in/15368?v=4` : `https://avatars.githubusercontent.com/u/${user.id}?v=4`,
    gravatar_id: '',
    url: api,
    html_url: bot ? `https://github.com/apps/${encodeURIComponent(user.login.replace(/\[bot\]$/, ''))}` : `https://github.com/${encodeURIComponent(user.login)}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: user.type,
    user_view_type: 'public',
    site_admin: false,
  };
}

export function appJson(s: FakeGitHubState): Schema<'nullable-integration'> {
  if (s.botLogin !== 'github-actions[bot]') return null;
  return {
    id: 15368,
    slug: 'github-actions',
    client_id: 'Iv1.05c79e9ad1f6bdfa',
    node_id: 'MDM6QXBwMTUzNjg=',
    owner: { ...userJson(s, 'github'), type: 'Organization' },
    name: 'GitHub Actions',
    description: 'Automate your workflow from idea to production',
    external_url: 'https://help.github.com/en/actions',
    html_url: 'https://github.com/apps/github-actions',
    created_at: '2018-07-30T09:30:17Z',
    updated_at: '2024-04-10T20:33:16Z',
    permissions: { actions: 'write', contents: 'write', issues: 'write', metadata: 'read', pull_requests: 'write' },
    events: ['check_run', 'check_suite', 'issue_comment', 'issues', 'pull_request', 'push', 'workflow_run'],
  };
}

export function association(s: FakeGitHubState, login: string): Schema<'author-association'> {
  const key = login.toLowerCase();
  if (s.repo.ownerType === 'User' && key === s.repo.owner.toLowerCase()) return 'OWNER';
  if (s.permissions.has(key)) return s.repo.ownerType === 'Organization' ? 'MEMBER' : 'COLLABORATOR';
  if (s.pulls.some((p) => p.merged && p.author.toLowerCase() === key)) return 'CONTRIBUTOR';
  return 'NONE';
}

export function reactions(s: FakeGitHubState, url: string): Schema<'reaction-rollup'> {
  return { url: `${url}/reactions`, total_count: 0, '+1': 0, '-1': 0, laugh: 0, hooray: 0, confused: 0, heart: 0, rocket: 0, eyes: 0 };
}

export function labelJson(s: FakeGitHubState, name: string): Schema<'label'> {
  let id = s.labelIds.get(name);
  if (id === undefined) s.labelIds.set(name, (id = s.nextIds.label++));
  return { id, node_id: nodeId('LA', id), url: `${apiRepoUrl(s)}/labels/${encodeURIComponent(name)}`, name, description: '', color: 'ededed', default: false };
}

/** The repository's fields every schema of it shares (typed by the functions below, one per schema). */
function repoFields(s: FakeGitHubState) {
  const r = s.repo;
  const api = apiRepoUrl(s);
  const html = `https://github.com/${r.fullName}`;
  const openIssues = s.issues.filter((i) => i.state === 'open').length + s.pulls.filter((p) => p.state === 'open').length;
  return {
    id: r.id,
    node_id: nodeId('R', r.id),
    name: r.name,
    full_name: r.fullName,
    private: r.private,
    owner: userJson(s, r.owner),
    html_url: html,
    description: r.description,
    fork: false,
    url: api,
    archive_url: `${api}/{archive_format}{/ref}`,
    assignees_url: `${api}/assignees{/user}`,
    blobs_url: `${api}/git/blobs{/sha}`,
    branches_url: `${api}/branches{/branch}`,
    collaborators_url: `${api}/collaborators{/collaborator}`,
    comments_url: `${api}/comments{/number}`,
    commits_url: `${api}/commits{/sha}`,
    compare_url: `${api}/compare/{base}...{head}`,
    contents_url: `${api}/contents/{+path}`,
    contributors_url: `${api}/contributors`,
    deployments_url: `${api}/deployments`,
    downloads_url: `${api}/downloads`,
    events_url: `${api}/events`,
    forks_url: `${api}/forks`,
    git_commits_url: `${api}/git/commits{/sha}`,
    git_refs_url: `${api}/git/refs{/sha}`,
    git_tags_url: `${api}/git/tags{/sha}`,
    git_url: `git://github.com/${r.fullName}.git`,
    issue_comment_url: `${api}/issues/comments{/number}`,
    issue_events_url: `${api}/issues/events{/number}`,
    issues_url: `${api}/issues{/number}`,
    keys_url: `${api}/keys{/key_id}`,
    labels_url: `${api}/labels{/name}`,
    languages_url: `${api}/languages`,
    merges_url: `${api}/merges`,
    milestones_url: `${api}/milestones{/number}`,
    notifications_url: `${api}/notifications{?since,all,participating}`,
    pulls_url: `${api}/pulls{/number}`,
    releases_url: `${api}/releases{/id}`,
    ssh_url: `git@github.com:${r.fullName}.git`,
    stargazers_url: `${api}/stargazers`,
    statuses_url: `${api}/statuses/{sha}`,
    subscribers_url: `${api}/subscribers`,
    subscription_url: `${api}/subscription`,
    tags_url: `${api}/tags`,
    teams_url: `${api}/teams`,
    trees_url: `${api}/git/trees{/sha}`,
    clone_url: `${html}.git`,
    mirror_url: null,
    hooks_url: `${api}/hooks`,
    svn_url: html,
    homepage: null,
    language: 'TypeScript',
    forks_count: 0,
    forks: 0,
    stargazers_count: 0,
    watchers_count: 0,
    watchers: 0,
    size: 128,
    default_branch: r.defaultBranch,
    open_issues_count: openIssues,
    open_issues: openIssues,
    is_template: false,
    topics: [],
    has_issues: true,
    has_projects: true,
    has_wiki: true,
    has_pages: false,
    has_downloads: true,
    has_discussions: false,
    archived: false,
    disabled: false,
    visibility: r.private ? 'private' : 'public',
    pushed_at: s.createdAt,
    created_at: s.createdAt,
    updated_at: s.createdAt,
    allow_forking: !r.private,
    web_commit_signoff_required: false,
    license: null,
  };
}

/** A repository as a pull request embeds it (its head's and base's). */
export function repoJson(s: FakeGitHubState): Schema<'repository'> {
  return repoFields(s);
}

/** A repository as a workflow run embeds it. */
export function minimalRepoJson(s: FakeGitHubState): Schema<'minimal-repository'> {
  return repoFields(s);
}

/** The repository itself (GET /repos/{owner}/{repo}). */
export function fullRepoJson(s: FakeGitHubState): Schema<'full-repository'> {
  const r = s.repo;
  return {
    ...repoFields(s),
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true },
    allow_rebase_merge: true,
    allow_squash_merge: true,
    allow_merge_commit: true,
    allow_auto_merge: false,
    delete_branch_on_merge: false,
    allow_update_branch: false,
    use_squash_pr_title_as_default: false,
    network_count: 0,
    subscribers_count: 0,
    ...(r.ownerType === 'Organization' ? { organization: userJson(s, r.owner) } : {}),
  };
}

export function issueJson(s: FakeGitHubState, issue: FakeIssue): Schema<'issue'> {
  const api = `${apiRepoUrl(s)}/issues/${issue.number}`;
  return {
    id: issue.id,
    node_id: nodeId('I', issue.id),
    url: api,
    repository_url: apiRepoUrl(s),
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: `https://github.com/${s.repo.fullName}/issues/${issue.number}`,
    number: issue.number,
    state: issue.state,
    state_reason: issue.state === 'closed' ? 'completed' : null,
    title: issue.title,
    body: issue.body,
    user: userJson(s, issue.author),
    labels: issue.labels.map((l) => labelJson(s, l)),
    assignee: null,
    assignees: [],
    milestone: null,
    locked: issue.locked,
    active_lock_reason: null,
    comments: s.comments.filter((c) => c.issueNumber === issue.number).length,
    closed_at: issue.closedAt,
    created_at: issue.createdAt,
    updated_at: issue.updatedAt,
    closed_by: null,
    author_association: association(s, issue.author),
    reactions: reactions(s, api),
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
  };
}

export function pullAsIssueJson(s: FakeGitHubState, pull: FakePull): Schema<'issue'> {
  const api = `${apiRepoUrl(s)}/issues/${pull.number}`;
  const html = `https://github.com/${s.repo.fullName}/pull/${pull.number}`;
  return {
    id: pull.id + 100_000_000,
    node_id: nodeId('PR', pull.id),
    url: api,
    repository_url: apiRepoUrl(s),
    labels_url: `${api}/labels{/name}`,
    comments_url: `${api}/comments`,
    events_url: `${api}/events`,
    html_url: html,
    number: pull.number,
    state: pull.state,
    state_reason: null,
    title: pull.title,
    body: pull.body,
    user: userJson(s, pull.author),
    labels: [],
    assignee: null,
    assignees: [],
    milestone: null,
    locked: false,
    active_lock_reason: null,
    comments: s.comments.filter((c) => c.issueNumber === pull.number).length,
    closed_at: pull.closedAt,
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    author_association: association(s, pull.author),
    draft: pull.draft,
    pull_request: {
      url: `${apiRepoUrl(s)}/pulls/${pull.number}`,
      html_url: html,
      diff_url: `${html}.diff`,
      patch_url: `${html}.patch`,
      merged_at: null,
    },
    reactions: reactions(s, api),
    timeline_url: `${api}/timeline`,
    performed_via_github_app: null,
  };
}

export function commentJson(s: FakeGitHubState, comment: FakeComment): Schema<'issue-comment'> {
  const isPull = s.pulls.some((p) => p.number === comment.issueNumber);
  const url = `${apiRepoUrl(s)}/issues/comments/${comment.id}`;
  return {
    id: comment.id,
    node_id: nodeId('IC', comment.id),
    url,
    html_url: `https://github.com/${s.repo.fullName}/${isPull ? 'pull' : 'issues'}/${comment.issueNumber}#issuecomment-${comment.id}`,
    body: comment.body,
    user: userJson(s, comment.author),
    created_at: comment.createdAt,
    updated_at: comment.updatedAt,
    issue_url: `${apiRepoUrl(s)}/issues/${comment.issueNumber}`,
    author_association: association(s, comment.author),
    performed_via_github_app: comment.author === s.botLogin ? appJson(s) : null,
    reactions: reactions(s, url),
  };
}
