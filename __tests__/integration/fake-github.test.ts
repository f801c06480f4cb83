import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFakeGitHub, type FakeGitHub, type FakeGitHubOptions, type Schema } from '../../test-support/fake-github.js';
import { checkResponse, findOperation } from '../../test-support/fake-github/contract.js';
import { issueJson } from '../../test-support/fake-github/json.js';
import { pullJson } from '../../test-support/fake-github/json-pulls.js';
import { FakeGitHubState } from '../../test-support/fake-github/state.js';

const TOKEN = 'ghs_faketoken123';

interface Answer {
  status: number;
  headers: Headers;
  body: any;  
}

async function api(gh: FakeGitHub, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${gh.url}${path}`, {
    method,
    redirect: 'manual',
    headers: { authorization: `token ${TOKEN}`, accept: 'application/vnd.github+json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    /* plain text */
  }
  return { status: res.status, headers: res.headers, body: parsed };
}

let gh: FakeGitHub;
async function start(opts?: FakeGitHubOptions): Promise<FakeGitHub> {
  gh = await startFakeGitHub({ owner: 'octo-org', repo: 'demo', ...opts });
  return gh;
}
afterEach(async () => {
  await gh?.close();
});

describe('contract validation', () => {
  test('a well-formed request gets a schema-valid repository', async () => {
    await start();
    const r = await api(gh, 'GET', '/repos/octo-org/demo');
    expect(r.status).toBe(200);
    expect(r.body.default_branch).toBe('main');
    expect(r.body.full_name).toBe('octo-org/demo');
    gh.assertNoViolations();
  });

  test('a wrong-typed request body is a violation answered with 500', async () => {
    await start();
    gh.addIssue({ number: 1, title: 't', body: 'b', author: 'alice' });
    const r = await api(gh, 'POST', '/repos/octo-org/demo/issues/1/comments', { body: 42 });
    expect(r.status).toBe(500);
    expect(r.body.message).toMatch(/request does not match.*body\/body must be string/);
    expect(gh.violations).toHaveLength(1);
    expect(gh.violations[0]).toContain('POST /repos/{owner}/{repo}/issues/{issue_number}/comments');
    expect(gh.comments).toHaveLength(0);
    expect(() => gh.assertNoViolations()).toThrow(/1 contract violation/);
  });

  test('a missing required field and an unknown field in a body are violations', async () => {
    await start();
    await api(gh, 'POST', '/repos/octo-org/demo/pulls', { title: 'x', head: 'feature' });
    await api(gh, 'PATCH', '/repos/octo-org/demo/pulls/1', { title: 'x', bdy: 'typo' });
    expect(gh.violations[0]).toMatch(/must have required property 'base'/);
    expect(gh.violations[1]).toMatch(/must NOT have additional properties \(bdy\)/);
  });

  test('a wrong-typed path parameter, an unknown query parameter and an enum mismatch are violations', async () => {
    await start();
    expect((await api(gh, 'GET', '/repos/octo-org/demo/issues/abc')).status).toBe(500);
    expect((await api(gh, 'GET', '/repos/octo-org/demo/pulls?stat=open')).status).toBe(500);
    expect((await api(gh, 'GET', '/repos/octo-org/demo/pulls?state=merged')).status).toBe(500);
    expect(gh.violations[0]).toMatch(/path parameter issue_number must be integer/);
    expect(gh.violations[1]).toMatch(/unknown query parameter stat/);
    expect(gh.violations[2]).toMatch(/query parameter state must be equal to one of the allowed values/);
  });

  test('a body that is not JSON is a violation', async () => {
    await start();
    gh.addIssue({ number: 1, title: 't', author: 'alice' });
    const r = await api(gh, 'POST', '/repos/octo-org/demo/issues/1/comments', 'body=hello');
    expect(r.status).toBe(500);
    expect(gh.violations[0]).toMatch(/not valid JSON/);
  });

  test('a response that does not match the schema is a violation answered with 500', async () => {
    await start();
    const issue = gh.addIssue({ number: 7, title: 'fine', body: 'b', author: 'alice' });
    (issue as unknown as { title: unknown }).title = 42; // corrupt the state behind the server's back
    const r = await api(gh, 'GET', '/repos/octo-org/demo/issues/7');
    expect(r.status).toBe(500);
    expect(r.body.message).toMatch(/response 200 does not match.*body\/title must be string/);
    expect(gh.violations).toHaveLength(1);
  });

  test('an unknown route answers 404 and is a violation', async () => {
    await start();
    const r = await api(gh, 'GET', '/repos/octo-org/demo/branches');
    expect(r.status).toBe(404);
    expect(gh.violations[0]).toMatch(/GET \/repos\/octo-org\/demo\/branches: no such operation/);
    await api(gh, 'DELETE', '/repos/octo-org/demo/issues/comments/1');
    expect(gh.violations).toHaveLength(2);
  });

  test('requests need a token; a configured token must match', async () => {
    await start({ token: TOKEN });
    const anonymous = await fetch(`${gh.url}/repos/octo-org/demo`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ message: 'Requires authentication' });
    const wrong = await api(gh, 'GET', '/repos/octo-org/demo', undefined, { authorization: 'Bearer nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.message).toBe('Bad credentials');
    expect((await api(gh, 'GET', '/repos/octo-org/demo')).status).toBe(200);
    gh.assertNoViolations();
  });
});

describe('state and semantics', () => {
  test('issues, PRs-as-issues and comments come back schema-valid, paginated and in order', async () => {
    await start();
    gh.addIssue({ number: 42, title: 'Crash', body: 'It crashes', author: 'alice', labels: ['agent-fix', 'bug'] });
    for (let i = 0; i < 35; i++) gh.addComment(42, { body: `comment ${i}`, author: i % 2 ? 'bob' : 'alice' });
    const issue = await api(gh, 'GET', '/repos/octo-org/demo/issues/42');
    expect(issue.status).toBe(200);
    expect(issue.body).toMatchObject({ number: 42, title: 'Crash', user: { login: 'alice' }, comments: 35, html_url: 'https://github.com/octo-org/demo/issues/42' });
    expect(issue.body.labels.map((l: { name: string }) => l.name)).toEqual(['agent-fix', 'bug']);
    expect(issue.body.pull_request).toBeUndefined();

    const page1 = await api(gh, 'GET', '/repos/octo-org/demo/issues/42/comments');
    expect(page1.body).toHaveLength(30);
    expect(page1.headers.get('link')).toMatch(/page=2.*rel="next"/);
    const page2 = await api(gh, 'GET', '/repos/octo-org/demo/issues/42/comments?per_page=30&page=2');
    expect(page2.body.map((c: { body: string }) => c.body)).toEqual(['comment 30', 'comment 31', 'comment 32', 'comment 33', 'comment 34']);

    const created = await api(gh, 'POST', '/repos/octo-org/demo/issues/42/comments', { body: '<!-- agent-fix:issue-42 --> working' });
    expect(created.status).toBe(201);
    expect(created.body.user).toMatchObject({ login: 'github-actions[bot]', type: 'Bot' });
    expect(created.body.html_url).toBe(`https://github.com/octo-org/demo/issues/42#issuecomment-${created.body.id}`);
    expect(created.headers.get('location')).toBe(created.body.url);
    const updated = await api(gh, 'PATCH', `/repos/octo-org/demo/issues/comments/${created.body.id}`, { body: 'done' });
    expect(updated.body.body).toBe('done');
    expect(gh.comments.filter((c) => c.author === 'github-actions[bot]')).toEqual([expect.objectContaining({ body: 'done', issueNumber: 42 })]);

    expect((await api(gh, 'GET', '/repos/octo-org/demo/issues/99')).status).toBe(404);
    expect((await api(gh, 'PATCH', '/repos/octo-org/demo/issues/comments/1', { body: 'x' })).status).toBe(404);
    const blank = await api(gh, 'POST', '/repos/octo-org/demo/issues/42/comments', { body: '  ' });
    expect(blank.status).toBe(422);
    const huge = await api(gh, 'POST', '/repos/octo-org/demo/issues/42/comments', { body: 'x'.repeat(65537) });
    expect(huge.status).toBe(422);
    expect(huge.body.errors[0].message).toMatch(/body is too long \(maximum is 65536 characters\)/);
    gh.assertNoViolations();
  });

  test('pull requests: create, already exists (GitHub 422 shape), filters, get, update, issue view', async () => {
    await start();
    gh.addIssue({ number: 1, title: 'An issue', author: 'alice' });
    const created = await api(gh, 'POST', '/repos/octo-org/demo/pulls', { title: 'Fix #1', head: 'agent-fix/issue-1', base: 'main', body: 'Fixes #1', draft: true });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ number: 2, state: 'open', draft: true, head: { ref: 'agent-fix/issue-1', label: 'octo-org:agent-fix/issue-1' }, base: { ref: 'main' }, user: { login: 'github-actions[bot]' } });
    expect(created.body.html_url).toBe('https://github.com/octo-org/demo/pull/2');

    const again = await api(gh, 'POST', '/repos/octo-org/demo/pulls', { title: 'Fix #1', head: 'agent-fix/issue-1', base: 'main' });
    expect(again.status).toBe(422);
    expect(again.body).toMatchObject({
      message: 'Validation Failed',
      errors: [{ resource: 'PullRequest', code: 'custom', message: 'A pull request already exists for octo-org:agent-fix/issue-1.' }],
    });
    const same = await api(gh, 'POST', '/repos/octo-org/demo/pulls', { title: 'x', head: 'main', base: 'main' });
    expect(same.body.errors[0].message).toBe('No commits between main and main');

    gh.addPull({ title: 'Other', head: 'feature', base: 'develop' });
    const byHead = await api(gh, 'GET', '/repos/octo-org/demo/pulls?head=octo-org%3Aagent-fix%2Fissue-1&base=main');
    expect(byHead.body.map((p: { number: number }) => p.number)).toEqual([2]);
    const bareHead = await api(gh, 'GET', '/repos/octo-org/demo/pulls?head=agent-fix%2Fissue-1');
    expect(bareHead.body).toHaveLength(2); // like GitHub: a head without `owner:` filters nothing
    expect((await api(gh, 'GET', '/repos/octo-org/demo/pulls?base=develop')).body).toHaveLength(1);
    expect((await api(gh, 'GET', '/repos/octo-org/demo/pulls?state=closed')).body).toHaveLength(0);

    const patched = await api(gh, 'PATCH', '/repos/octo-org/demo/pulls/2', { title: 'Fix #1 (v2)', body: 'new body' });
    expect(patched.body).toMatchObject({ title: 'Fix #1 (v2)', body: 'new body' });
    expect((await api(gh, 'GET', '/repos/octo-org/demo/pulls/2')).body.title).toBe('Fix #1 (v2)');
    const asIssue = await api(gh, 'GET', '/repos/octo-org/demo/issues/2');
    expect(asIssue.body.pull_request.html_url).toBe('https://github.com/octo-org/demo/pull/2');
    await api(gh, 'PATCH', '/repos/octo-org/demo/pulls/2', { state: 'closed' });
    expect((await api(gh, 'GET', '/repos/octo-org/demo/pulls?head=octo-org:agent-fix/issue-1')).body).toHaveLength(0);
    expect(gh.pulls.map((p) => [p.number, p.state])).toEqual([[2, 'closed'], [3, 'open']]);
    gh.assertNoViolations();
  });

  test('permissions mirror GitHub: collaborators, existing non-collaborators (read/none), unknown logins (404)', async () => {
    await start();
    gh.setPermission('maya', 'maintain');
    gh.setPermission('tri', 'triage');
    gh.addUser('visitor');
    const maya = await api(gh, 'GET', '/repos/octo-org/demo/collaborators/maya/permission');
    expect(maya.body).toMatchObject({ permission: 'write', role_name: 'maintain', user: { login: 'maya' } });
    expect((await api(gh, 'GET', '/repos/octo-org/demo/collaborators/tri/permission')).body).toMatchObject({ permission: 'read', role_name: 'triage' });
    expect((await api(gh, 'GET', '/repos/octo-org/demo/collaborators/visitor/permission')).body).toMatchObject({ permission: 'read', role_name: 'read' });
    const ghost = await api(gh, 'GET', '/repos/octo-org/demo/collaborators/no-such-user/permission');
    expect(ghost.status).toBe(404);
    expect(ghost.body.message).toBe('Not Found');
    gh.assertNoViolations();
    await gh.close();

    await start({ private: true });
    gh.addUser('visitor');
    expect((await api(gh, 'GET', '/repos/octo-org/demo/collaborators/visitor/permission')).body).toMatchObject({ permission: 'none', role_name: 'none' });
    gh.assertNoViolations();
  });

  test('contents: file (base64), raw media type, directory, missing file and ref', async () => {
    await start();
    gh.setFile('.github/agent-fix.yml', 'max-iterations: 3\n');
    gh.setFile('.github/workflows/ci.yml', 'on: push\n');
    const file = await api(gh, 'GET', '/repos/octo-org/demo/contents/.github%2Fagent-fix.yml');
    expect(file.status).toBe(200);
    expect(file.body).toMatchObject({ type: 'file', encoding: 'base64', path: '.github/agent-fix.yml', name: 'agent-fix.yml' });
    expect(Buffer.from(file.body.content, 'base64').toString('utf8')).toBe('max-iterations: 3\n');
    expect(file.body.sha).toBe(execFileSync('git', ['hash-object', '--stdin'], { input: 'max-iterations: 3\n', encoding: 'utf8' }).trim());
    const raw = await api(gh, 'GET', '/repos/octo-org/demo/contents/.github/agent-fix.yml', undefined, { accept: 'application/vnd.github.raw+json' });
    expect(raw.body).toBe('max-iterations: 3\n');
    const dir = await api(gh, 'GET', '/repos/octo-org/demo/contents/.github');
    expect(dir.body.map((e: { name: string; type: string }) => `${e.type}:${e.name}`)).toEqual(['file:agent-fix.yml', 'dir:workflows']);
    expect((await api(gh, 'GET', '/repos/octo-org/demo/contents/nope.txt')).status).toBe(404);
    expect((await api(gh, 'GET', '/repos/octo-org/demo/contents/.github/agent-fix.yml?ref=other')).status).toBe(404);
    gh.assertNoViolations();
  });

  test('workflow runs, jobs and a job log served through a 302 redirect', async () => {
    await start();
    gh.addPull({ number: 5, title: 'WIP', head: 'feature' });
    const run = gh.addWorkflowRun({ headSha: 'a'.repeat(40), headBranch: 'feature', event: 'pull_request', conclusion: 'failure', pullRequests: [5] });
    gh.addWorkflowRun({ headSha: 'b'.repeat(40), conclusion: 'success' });
    const job = gh.addJob({ runId: run.id, name: 'test (20)', log: '2024-01-01T00:00:00Z FAIL src/a.test.ts\n' });
    gh.addJob({ runId: run.id, name: 'lint', conclusion: 'success' });

    const runs = await api(gh, 'GET', '/repos/octo-org/demo/actions/runs?status=failure');
    expect(runs.body.total_count).toBe(1);
    expect(runs.body.workflow_runs[0]).toMatchObject({ id: run.id, head_branch: 'feature', pull_requests: [{ number: 5 }] });
    expect((await api(gh, 'GET', `/repos/octo-org/demo/actions/runs/${run.id}`)).body.conclusion).toBe('failure');
    const jobs = await api(gh, 'GET', `/repos/octo-org/demo/actions/runs/${run.id}/jobs`);
    expect(jobs.body.jobs.map((j: { name: string }) => j.name)).toEqual(['test (20)', 'lint']);

    const redirect = await api(gh, 'GET', `/repos/octo-org/demo/actions/jobs/${job.id}/logs`);
    expect(redirect.status).toBe(302);
    const location = redirect.headers.get('location') ?? '';
    expect(location).toMatch(new RegExp(`^${gh.url}/_logs/${job.id}\\?sig=`));
    const log = await fetch(location); // a signed URL: no token
    expect(await log.text()).toContain('FAIL src/a.test.ts');
    expect((await fetch(`${gh.url}/_logs/${job.id}?sig=forged`)).status).toBe(404);
    expect((await api(gh, 'GET', '/repos/octo-org/demo/actions/runs/1')).status).toBe(404);
    gh.assertNoViolations();
  });

  test('failNext injects faults by path, template or RegExp, a bounded number of times', async () => {
    await start();
    gh.failNext({ method: 'GET', path: '/repos/octo-org/demo', status: 502 });
    gh.failNext({ path: '/repos/{owner}/{repo}/pulls', status: 403, body: { message: 'You have exceeded a secondary rate limit.' }, headers: { 'retry-after': '1' }, times: 2 });
    gh.failNext({ path: /\/issues\/\d+$/, status: 500 });
    expect((await api(gh, 'GET', '/repos/octo-org/demo')).status).toBe(502);
    expect((await api(gh, 'GET', '/repos/octo-org/demo')).status).toBe(200);
    const limited = await api(gh, 'GET', '/repos/octo-org/demo/pulls');
    expect(limited.status).toBe(403);
    expect(limited.headers.get('retry-after')).toBe('1');
    expect((await api(gh, 'GET', '/repos/octo-org/demo/pulls')).status).toBe(403);
    expect((await api(gh, 'GET', '/repos/octo-org/demo/pulls')).status).toBe(200);
    expect((await api(gh, 'GET', '/repos/octo-org/demo/issues/3')).status).toBe(500);
    expect(gh.requests.map((r) => r.status)).toEqual([502, 200, 403, 403, 200, 500]);
    gh.assertNoViolations();
  });

  test('the request log keeps method, path, query and body for assertions', async () => {
    await start();
    gh.addIssue({ number: 1, title: 't', author: 'alice' });
    await api(gh, 'POST', '/repos/octo-org/demo/issues/1/comments', { body: 'hello' });
    await api(gh, 'GET', '/repos/octo-org/demo/pulls?state=all');
    expect(gh.requests.map((r) => [r.method, r.path, r.query, r.body])).toEqual([
      ['POST', '/repos/octo-org/demo/issues/1/comments', {}, { body: 'hello' }],
      ['GET', '/repos/octo-org/demo/pulls', { state: 'all' }, undefined],
    ]);
    expect(gh.requests.every((r) => !r.rawBody.includes(TOKEN))).toBe(true);
    gh.assertNoViolations();
  });

  test('with a bare git repository, PR branches must exist and shas come from it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'fake-gh-git-'));
    try {
      const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', env: { ...process.env, GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' } }).trim();
      git('init', '-q', '-b', 'main', 'work');
      execFileSync('git', ['init', '-q', '--bare', 'remote.git'], { cwd: dir });
      const work = (...args: string[]) => git('-C', 'work', ...args);
      work('commit', '-q', '--allow-empty', '-m', 'base');
      work('push', '-q', '../remote.git', 'main');
      work('checkout', '-q', '-b', 'agent-fix/issue-1');
      work('commit', '-q', '--allow-empty', '-m', 'fix');
      await start({ gitDir: join(dir, 'remote.git') });
      const missing = await api(gh, 'POST', '/repos/octo-org/demo/pulls', { title: 'Fix', head: 'agent-fix/issue-1', base: 'main' });
      expect(missing.status).toBe(422);
      expect(missing.body.errors[0]).toMatchObject({ field: 'head', code: 'invalid' });
      work('push', '-q', '../remote.git', 'agent-fix/issue-1');
      const ok = await api(gh, 'POST', '/repos/octo-org/demo/pulls', { title: 'Fix', head: 'agent-fix/issue-1', base: 'main' });
      expect(ok.status).toBe(201);
      expect(ok.body.head.sha).toBe(work('rev-parse', 'HEAD'));
      gh.assertNoViolations();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('responses typed with GitHub\'s schema (@octokit/openapi-types)', () => {
  test('a builder\'s JSON is the schema\'s type, and the runtime contract accepts the same object', () => {
    const state = new FakeGitHubState({ owner: 'octo-org', repo: 'demo' });
    state.url = 'http://127.0.0.1:9'; // no server: the JSON alone
    const issue: Schema<'issue'> = issueJson(state, state.addIssue({ number: 7, title: 'Crash', author: 'alice' }));
    const pull: Schema<'pull-request'> = pullJson(state, state.addPull({ number: 8, title: 'Fix', head: 'fix' }));
    expect(checkResponse(findOperation('GET', '/repos/octo-org/demo/issues/7')!, 200, issue)).toBeNull();
    expect(checkResponse(findOperation('GET', '/repos/octo-org/demo/pulls/8')!, 200, pull)).toBeNull();
  });

  test('control: JSON that drifts from the schema fails the type check (and the runtime contract)', () => {
    const state = new FakeGitHubState({ owner: 'octo-org', repo: 'demo' });
    state.url = 'http://127.0.0.1:9'; // no server: the JSON alone
    const issue = issueJson(state, state.addIssue({ number: 7, title: 'Crash', author: 'alice' }));
    const withoutNumber: Omit<Schema<'issue'>, 'number'> = issue;
    // @ts-expect-error `number` is required by components['schemas']['issue']: a builder that leaves it out fails tsc
    const missing: Schema<'issue'> = withoutNumber;
    // @ts-expect-error `state` is a string in GitHub's schema
    const wrongType: Schema<'issue'> = { ...issue, state: 1 };
    // @ts-expect-error a renamed field (`numbr`) is not in GitHub's schema
    const renamed: Schema<'issue'> = { ...issue, numbr: 7 };
    // the same drift at run time: the contract refuses each one
    const op = findOperation('GET', '/repos/octo-org/demo/issues/7')!;
    const { number: _number, ...dropped } = missing;
    expect(checkResponse(op, 200, dropped)).toMatch(/must have required property 'number'/);
    expect(checkResponse(op, 200, wrongType)).toMatch(/state must be string/);
    expect(renamed).toHaveProperty('numbr', 7);
  });
});
