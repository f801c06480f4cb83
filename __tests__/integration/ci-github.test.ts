/** The Actions API reads of CI repair (ports/ci.ts) against the OpenAPI-validated fake GitHub. */
import { makeGitHub, type GitHubClient } from '../../src/adapters/github.js';
import { startFakeGitHub, type FakeGitHub } from '../../test-support/fake-github.js';

const TOKEN = 'ghs_CiReadsToken0123456789';
let gh: FakeGitHub;
let client: GitHubClient;

beforeEach(async () => {
  gh = await startFakeGitHub({ owner: 'octo-org', repo: 'demo', token: TOKEN });
  client = makeGitHub({ token: TOKEN, baseUrl: gh.url, owner: 'octo-org', repo: 'demo', retries: 0, retryAfterBaseMs: 5 });
});

afterEach(async () => {
  try {
    gh.assertNoViolations();
  } finally {
    await gh.close();
  }
});

test('a workflow run carries its workflow id, run number and creation time', async () => {
  const run = gh.addWorkflowRun({ headSha: 'c'.repeat(40), workflowId: 42, runNumber: 17, createdAt: '2026-11-20T10:00:00Z' });
  expect(await client.getWorkflowRun(run.id)).toMatchObject({ id: run.id, name: 'CI', workflowId: 42, runNumber: 17, createdAt: '2026-11-20T10:00:00Z', status: 'completed', conclusion: 'failure', url: `https://github.com/octo-org/demo/actions/runs/${run.id}`, headRepository: 'octo-org/demo', triggeringActor: 'octo-org' });
});

test('listBranchRuns: the runs of one branch, newest first, filtered by status', async () => {
  const a = gh.addWorkflowRun({ headSha: 'a'.repeat(40), headBranch: 'main', conclusion: 'success' });
  gh.addWorkflowRun({ headSha: 'b'.repeat(40), headBranch: 'main', conclusion: 'failure' });
  const c = gh.addWorkflowRun({ headSha: 'c'.repeat(40), headBranch: 'main', conclusion: 'success' });
  gh.addWorkflowRun({ headSha: 'd'.repeat(40), headBranch: 'other', conclusion: 'success' });
  expect((await client.listBranchRuns('main', { status: 'success' })).map((r) => r.id)).toEqual([c.id, a.id]);
  expect(await client.listBranchRuns('main')).toHaveLength(3);
  const q = gh.requests.filter((r) => r.path.endsWith('/actions/runs'));
  expect(q[0].query).toMatchObject({ branch: 'main', status: 'success', per_page: '50' });
});

test('a log the token may not read is a 403 the caller can explain', async () => {
  const run = gh.addWorkflowRun({ headSha: 'e'.repeat(40) });
  const job = gh.addJob({ runId: run.id, name: 'test', log: 'x\n' });
  gh.failNext({ method: 'GET', path: '/repos/{owner}/{repo}/actions/jobs/{job_id}/logs', status: 403, body: { message: 'Resource not accessible by integration' } });
  const error = (await client.getJobLog(job.id).catch((e: unknown) => e)) as { status: number; message: string };
  expect(error.status).toBe(403);
  expect(error.message).toMatch(/Resource not accessible by integration/);
});
