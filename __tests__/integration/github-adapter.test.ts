import { GitHubApiError, makeGitHub, permissionFrom, type GitHubClient } from '../../src/adapters/github.js';
import { startFakeGitHub, type FakeGitHub } from '../../test-support/fake-github.js';

const TOKEN = 'ghs_SuperSecretToken0123456789';

let gh: FakeGitHub;
let logs: string[];
let client: GitHubClient;

beforeEach(async () => {
  gh = await startFakeGitHub({ owner: 'octo-org', repo: 'demo', token: TOKEN });
  logs = [];
  client = makeGitHub({ token: TOKEN, baseUrl: gh.url, owner: 'octo-org', repo: 'demo', log: (m) => logs.push(m), retries: 2, retryAfterBaseMs: 5 });
});

afterEach(async () => {
  try {
    gh.assertNoViolations();
    // nothing we send or log carries the token
    for (const r of gh.requests) expect(r.rawBody).not.toContain(TOKEN);
    for (const line of logs) expect(line).not.toContain(TOKEN);
  } finally {
    await gh.close();
  }
});

describe('permissions', () => {
  test('collaborators get their role, including maintain and triage', async () => {
    gh.setPermission('maya', 'maintain');
    gh.setPermission('wes', 'write');
    gh.setPermission('tri', 'triage');
    expect(await client.getPermission('maya')).toBe('maintain');
    expect(await client.getPermission('wes')).toBe('write');
    expect(await client.getPermission('tri')).toBe('triage');
    expect(await client.getPermission('octo-org')).toBe('read'); // the organization account is no collaborator
  });

  test('a non-collaborator has read on a public repository; an unknown login (404) has none', async () => {
    gh.addUser('visitor');
    expect(await client.getPermission('visitor')).toBe('read');
    expect(await client.getPermission('nobody-here')).toBe('none');
  });

  test('permissionFrom prefers role_name and falls back to the legacy permission for custom roles', () => {
    expect(permissionFrom({ permission: 'write', role_name: 'maintain' })).toBe('maintain');
    expect(permissionFrom({ permission: 'write', role_name: 'security-engineer' })).toBe('write');
    expect(permissionFrom({ permission: 'weird', role_name: 'custom' })).toBe('none');
  });
});

describe('issues and comments', () => {
  test('getIssue maps an issue and a pull request', async () => {
    gh.addIssue({ number: 42, title: 'Crash on empty input', body: null, author: 'alice', labels: ['agent-fix'] });
    gh.addPull({ number: 43, title: 'A PR', head: 'feature' });
    expect(await client.getIssue(42)).toEqual({
      number: 42,
      title: 'Crash on empty input',
      body: '',
      author: 'alice',
      url: 'https://github.com/octo-org/demo/issues/42',
      isPullRequest: false,
      state: 'open',
    });
    expect(await client.getIssue(43)).toMatchObject({ number: 43, isPullRequest: true, url: 'https://github.com/octo-org/demo/pull/43' });
  });

  test('comments: list across pages, create and update in place', async () => {
    gh.addIssue({ number: 7, title: 't', body: 'b', author: 'alice' });
    for (let i = 0; i < 120; i++) gh.addComment(7, { body: `c${i}`, author: 'bob', createdAt: '2024-05-01T10:00:00Z', updatedAt: '2024-05-01T11:00:00Z' });
    const listed = await client.listComments(7);
    expect(listed).toHaveLength(120);
    expect(listed[119]).toMatchObject({ body: 'c119', author: 'bob', createdAt: '2024-05-01T10:00:00Z', updatedAt: '2024-05-01T11:00:00Z' });

    const created = await client.createComment(7, '<!-- agent-fix:issue-7 -->\nWorking on it');
    expect(created).toMatchObject({ author: 'github-actions[bot]', body: '<!-- agent-fix:issue-7 -->\nWorking on it' });
    expect(created.url).toBe(`https://github.com/octo-org/demo/issues/7#issuecomment-${created.id}`);
    const updated = await client.updateComment(created.id, '<!-- agent-fix:issue-7 -->\nDone');
    expect(updated).toMatchObject({ id: created.id, body: '<!-- agent-fix:issue-7 -->\nDone' });

    const mine = gh.comments.filter((c) => c.author === 'github-actions[bot]' && c.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(mine).toHaveLength(1);
    expect(mine[0].body).toContain('Done');
  });

  test('a missing issue fails with a short actionable message', async () => {
    const error = await client.getIssue(999).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GitHubApiError);
    expect((error as GitHubApiError).status).toBe(404);
    expect((error as GitHubApiError).message).toBe(
      'GitHub API GET /repos/{owner}/{repo}/issues/{issue_number} failed with 404: Not Found (not found, or the token cannot see it)',
    );
  });
});

describe('pull requests', () => {
  const pr = { head: 'agent-fix/issue-42', base: 'main', title: 'Fix #42', body: 'Closes #42', draft: true };

  test('create, find by head, update', async () => {
    expect(await client.getDefaultBranch()).toBe('main');
    expect(await client.findOpenPullRequest(pr.head, 'main')).toBeNull();
    gh.addPull({ title: 'someone else', head: 'feature/x' });

    const created = await client.createPullRequest(pr);
    expect(created).toEqual({ number: created.number, url: `https://github.com/octo-org/demo/pull/${created.number}`, head: pr.head, base: 'main', state: 'open', draft: true });
    expect(await client.findOpenPullRequest(pr.head, 'main')).toEqual(created);
    expect(await client.findOpenPullRequest(pr.head, 'develop')).toBeNull();
    expect(await client.findOpenPullRequest('feature/x', 'main')).toMatchObject({ head: 'feature/x' });

    const list = gh.requests.filter((r) => r.method === 'GET' && r.path.endsWith('/pulls'));
    expect(list.every((r) => r.query.head?.startsWith('octo-org:'))).toBe(true);

    const updated = await client.updatePullRequest(created.number, { title: 'Fix #42 (again)', body: 'Closes #42\n\nv2' });
    expect(updated.number).toBe(created.number);
    expect(gh.pulls.filter((p) => p.state === 'open' && p.head === pr.head)).toEqual([
      expect.objectContaining({ title: 'Fix #42 (again)', body: 'Closes #42\n\nv2', draft: true, author: 'github-actions[bot]' }),
    ]);
  });

  test('close: the PR is closed unmerged and is no longer found as open; a missing PR is a 404', async () => {
    const created = await client.createPullRequest(pr);
    const closed = await client.closePullRequest(created.number);
    expect(closed).toEqual({ ...created, state: 'closed' });
    expect(gh.pulls[0]).toMatchObject({ state: 'closed', merged: false, title: pr.title, body: pr.body });
    expect(await client.findOpenPullRequest(pr.head, 'main')).toBeNull();
    const patch = gh.requests.filter((r) => r.method === 'PATCH');
    expect(patch.map((r) => r.body)).toEqual([{ state: 'closed' }]);
    expect(((await client.closePullRequest(999).catch((e: unknown) => e)) as GitHubApiError).status).toBe(404);
  });

  test('a second create for the same head fails with GitHub\'s "already exists" message', async () => {
    await client.createPullRequest(pr);
    const error = (await client.createPullRequest(pr).catch((e: unknown) => e)) as GitHubApiError;
    expect(error).toBeInstanceOf(GitHubApiError);
    expect(error.status).toBe(422);
    expect(error.message).toBe('GitHub API POST /repos/{owner}/{repo}/pulls failed with 422: Validation Failed: A pull request already exists for octo-org:agent-fix/issue-42.');
    expect(gh.pulls).toHaveLength(1);
  });
  test('a repository without draft support gets a regular PR instead', async () => {
    await gh.close();
    gh = await startFakeGitHub({ owner: 'octo-org', repo: 'demo', token: TOKEN, draftPullRequests: false });
    client = makeGitHub({ token: TOKEN, baseUrl: gh.url, owner: 'octo-org', repo: 'demo', log: (m) => logs.push(m), retries: 2, retryAfterBaseMs: 5 });
    const created = await client.createPullRequest(pr);
    expect(created.draft).toBe(false);
    expect(gh.pulls).toEqual([expect.objectContaining({ draft: false, head: pr.head })]);
    expect(logs).toContain('Draft pull requests are not supported in this repository; opening a regular pull request instead.');
  });
});

describe('resilience', () => {
  test('a 502 is retried and then succeeds', async () => {
    gh.failNext({ method: 'GET', path: '/repos/{owner}/{repo}', status: 502, times: 2 });
    expect(await client.getDefaultBranch()).toBe('main');
    expect(gh.requests.map((r) => r.status)).toEqual([502, 502, 200]);
    expect(logs.filter((l) => /GET \/repos\/octo-org\/demo - 502/.test(l))).toHaveLength(2);
  });

  test('persistent 5xx gives up after the bounded retries with the status in the message', async () => {
    gh.failNext({ path: '/repos/{owner}/{repo}/issues/{issue_number}/comments', method: 'POST', status: 503, times: 10 });
    gh.addIssue({ number: 1, title: 't', author: 'alice' });
    const error = (await client.createComment(1, 'hi').catch((e: unknown) => e)) as GitHubApiError;
    expect(error.status).toBe(503);
    expect(error.message).toMatch(/^GitHub API POST \/repos\/\{owner\}\/\{repo\}\/issues\/\{issue_number\}\/comments failed with 503: Service Unavailable/);
    expect(gh.requests.filter((r) => r.method === 'POST')).toHaveLength(3); // 1 + 2 retries
  });

  test('a secondary rate limit (403 + retry-after) is waited out and logged', async () => {
    gh.failNext({
      method: 'POST',
      path: '/repos/{owner}/{repo}/pulls',
      status: 403,
      body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', documentation_url: 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits', status: '403' },
      headers: { 'retry-after': '1' },
    });
    const created = await client.createPullRequest({ head: 'agent-fix/issue-1', base: 'main', title: 't', body: 'b', draft: false });
    expect(created.state).toBe('open');
    expect(gh.pulls).toHaveLength(1);
    expect(logs.some((l) => /secondary rate limit on POST \/repos\/\{owner\}\/\{repo\}\/pulls: retrying in 1s/.test(l))).toBe(true);
  });

  test('a 403 that is not a rate limit is not retried and says what to check', async () => {
    gh.failNext({ method: 'POST', path: '/repos/{owner}/{repo}/pulls', status: 403, body: { message: 'GitHub Actions is not permitted to create or approve pull requests.', documentation_url: 'https://docs.github.com/rest/pulls/pulls#create-a-pull-request', status: '403' } });
    const error = (await client.createPullRequest({ head: 'b', base: 'main', title: 't', body: 'b', draft: false }).catch((e: unknown) => e)) as GitHubApiError;
    expect(error.message).toBe(
      'GitHub API POST /repos/{owner}/{repo}/pulls failed with 403: GitHub Actions is not permitted to create or approve pull requests. (the token lacks a permission: check the workflow `permissions:` and repository settings)',
    );
    expect(gh.requests).toHaveLength(1);
  });

  test('a bad token is reported without the token', async () => {
    const bad = makeGitHub({ token: 'ghs_wrongToken999', baseUrl: gh.url, owner: 'octo-org', repo: 'demo', retries: 0, pace: false });
    const error = (await bad.getDefaultBranch().catch((e: unknown) => e)) as GitHubApiError;
    expect(error.status).toBe(401);
    expect(error.message).toMatch(/failed with 401: Bad credentials/);
    expect(error.message).not.toContain('ghs_wrongToken999');
    expect(JSON.stringify(error)).not.toContain('ghs_wrongToken999');
  });
});

describe('CI-repair reads', () => {
  test('workflow run, its jobs and a job log (redirect followed without the token)', async () => {
    gh.addPull({ number: 9, title: 'WIP', head: 'feature' });
    const run = gh.addWorkflowRun({ headSha: 'c'.repeat(40), headBranch: 'feature', event: 'pull_request', conclusion: 'failure', pullRequests: [9] });
    const job = gh.addJob({ runId: run.id, name: 'test', log: 'line 1\nERROR expected 2 got 3\n' });
    expect(await client.getWorkflowRun(run.id)).toMatchObject({ id: run.id, conclusion: 'failure', headBranch: 'feature', headSha: 'c'.repeat(40), pullRequests: [9] });
    expect(await client.listRunJobs(run.id)).toEqual([
      expect.objectContaining({ id: job.id, runId: run.id, name: 'test', conclusion: 'failure', steps: expect.arrayContaining([expect.objectContaining({ name: 'Run tests', conclusion: 'failure' })]) }),
    ]);
    expect(await client.getJobLog(job.id)).toBe('line 1\nERROR expected 2 got 3\n');
    expect(await client.getJobLog(job.id, { maxChars: 10 })).toBe('d 2 got 3\n'); // the tail, where failures are
    const download = gh.requests.filter((r) => r.path.startsWith('/_logs/'));
    expect(download).toHaveLength(2);
    expect(download.every((r) => r.headers.authorization === undefined)).toBe(true);
  });
});

describe('reviews on its own pull request (validated against the OpenAPI description)', () => {
  test('a changes-requested review with inline comments is read back with files, lines and text', async () => {
    const pr = gh.addPull({ number: 50, title: 'agent-fix: clamp', head: 'agent-fix/issue-7', headSha: 'a'.repeat(40) });
    gh.setPermission('rev', 'write');
    const { review, comments } = gh.addReview({
      pullNumber: pr.number,
      author: 'rev',
      state: 'CHANGES_REQUESTED',
      body: 'Close, but please handle the upper bound too.',
      comments: [
        { path: 'src/clamp.js', line: 3, body: 'This returns lo for v > hi.' },
        { path: 'test/clamp.test.js', line: null, body: 'Add a case for hi.' },
      ],
    });
    const got = await client.getReview(pr.number, review.id);
    expect(got).toMatchObject({ id: review.id, author: 'rev', state: 'CHANGES_REQUESTED', body: 'Close, but please handle the upper bound too.', commitId: 'a'.repeat(40) });
    expect(got.submittedAt).toBeTruthy();
    const inline = await client.listReviewComments(pr.number, review.id);
    expect(inline.map((c) => [c.id, c.path, c.line, c.body, c.author])).toEqual([
      [comments[0].id, 'src/clamp.js', 3, 'This returns lo for v > hi.', 'rev'],
      [comments[1].id, 'test/clamp.test.js', null, 'Add a case for hi.', 'rev'],
    ]);
    expect(inline[0]).toMatchObject({ reviewId: review.id, side: 'RIGHT', inReplyTo: null });
  });

  test('a single review comment, and a reply that lands in its thread as the bot', async () => {
    const pr = gh.addPull({ number: 51, title: 'agent-fix: x', head: 'agent-fix/issue-8' });
    const first = gh.addReviewComment({ pullNumber: pr.number, author: 'rev', path: 'src/a.ts', line: 10, body: '/agent-fix use a Map here' });
    const second = gh.addReviewComment({ pullNumber: pr.number, author: 'other', path: 'src/a.ts', body: 'agreed', inReplyTo: first.id });
    expect(await client.getReviewComment(second.id)).toMatchObject({ id: second.id, path: 'src/a.ts', line: 10, inReplyTo: first.id, author: 'other' });
    // replying to a reply attaches to the thread's first comment, like GitHub
    const reply = await client.replyToReviewComment(pr.number, second.id, 'Done in abc1234: the lookup uses a Map.');
    expect(reply).toMatchObject({ author: 'github-actions[bot]', path: 'src/a.ts', inReplyTo: first.id, body: 'Done in abc1234: the lookup uses a Map.' });
    expect(gh.reviewComments.filter((c) => c.inReplyTo === first.id)).toHaveLength(2);
  });

  test('getPullRequest gives the head and base shas and where the head lives', async () => {
    const pr = gh.addPull({ number: 52, title: 'agent-fix: y', head: 'agent-fix/issue-9', headSha: 'b'.repeat(40), body: 'report' });
    expect(await client.getPullRequest(pr.number)).toMatchObject({
      number: 52,
      title: 'agent-fix: y',
      body: 'report',
      author: 'github-actions[bot]',
      state: 'open',
      merged: false,
      head: 'agent-fix/issue-9',
      headSha: 'b'.repeat(40),
      headRepository: 'octo-org/demo',
      base: 'main',
    });
  });

  test('a review or comment that does not exist is a clear 404 error', async () => {
    const pr = gh.addPull({ number: 53, title: 'agent-fix: z', head: 'agent-fix/issue-10' });
    await expect(client.getReview(pr.number, 12345)).rejects.toThrow(/reviews\/\{review_id\} failed with 404/);
    await expect(client.replyToReviewComment(pr.number, 999, 'x')).rejects.toThrow(/replies failed with 404/);
  });
});
