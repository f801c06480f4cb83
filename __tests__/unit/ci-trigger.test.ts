import { parseTrigger } from '../../src/trigger/parse.js';
import { resolveDispatchedRun } from '../../src/trigger/workflow-run.js';
import { collectCiFailure, newerSuccess } from '../../src/ci/context.js';
import { buildCiTask } from '../../src/ci/task.js';
import type { CiGitHubPort, JobData, WorkflowRunData } from '../../src/ports/ci.js';
import type { CiTrigger } from '../../src/trigger/types.js';

const SHA = 'a'.repeat(40);
const REPO = 'octo/shop';

function payload(over: { run?: Record<string, unknown>; action?: string; sender?: Record<string, unknown> } = {}) {
  return {
    action: over.action ?? 'completed',
    workflow_run: {
      id: 77,
      name: 'CI',
      head_branch: 'feature/x',
      head_sha: SHA,
      run_number: 5,
      run_attempt: 2,
      event: 'pull_request',
      status: 'completed',
      conclusion: 'failure',
      workflow_id: 9,
      html_url: 'https://github.com/octo/shop/actions/runs/77',
      created_at: '2026-11-20T10:00:00Z',
      pull_requests: [{ number: 4, head: { ref: 'feature/x', sha: SHA, repo: { name: 'shop' } }, base: { ref: 'main', sha: SHA, repo: { name: 'shop' } } }],
      actor: { login: 'alice' },
      triggering_actor: { login: 'bob' },
      head_repository: { full_name: REPO },
      repository: { full_name: REPO },
      ...over.run,
    },
    repository: { full_name: REPO },
    sender: over.sender ?? { login: 'bob', type: 'User' },
  };
}

const opts = { label: 'agent-fix' };

describe('workflow_run trigger', () => {
  test('a failed run becomes a ci trigger with what the fix needs', () => {
    expect(parseTrigger('workflow_run', payload(), opts)).toEqual({
      kind: 'ci',
      runId: 77,
      runAttempt: 2,
      workflowName: 'CI',
      workflowId: 9,
      headSha: SHA,
      headBranch: 'feature/x',
      event: 'pull_request',
      actor: 'bob',
      runUrl: 'https://github.com/octo/shop/actions/runs/77',
      runNumber: 5,
      pullRequests: [{ number: 4, headRef: 'feature/x', baseRef: 'main' }],
      createdAt: '2026-11-20T10:00:00Z',
    });
  });

  test.each([
    ['requested action', payload({ action: 'requested' }), /action "requested" is not handled/],
    ['success', payload({ run: { conclusion: 'success' } }), /concluded "success", not "failure"/],
    ['cancelled', payload({ run: { conclusion: 'cancelled' } }), /concluded "cancelled"/],
    ['own branch', payload({ run: { head_branch: 'agent-fix/ci-0123456789ab' } }), /agent-fix's own branches.*no fix-the-fix loops/],
    ['fork', payload({ run: { head_repository: { full_name: 'mallory/shop' } } }), /mallory\/shop, a fork.*untrusted code/],
    ['no head repository', payload({ run: { head_repository: null } }), /treated as untrusted/],
    ['no branch', payload({ run: { head_branch: null } }), /no branch/],
    ['bad sha', payload({ run: { head_sha: 'main' } }), /no valid head sha/],
    ['bot sender', payload({ sender: { login: 'dependabot[bot]', type: 'Bot' } }), /bot/],
  ])('%s -> skip', (_name, p, reason) => {
    const t = parseTrigger('workflow_run', p, opts);
    expect(t.kind).toBe('skip');
    expect(t.kind === 'skip' && t.reason).toMatch(reason);
  });

  test('the workflows input restricts which workflow names count (exact names)', () => {
    expect(parseTrigger('workflow_run', payload(), { ...opts, workflows: ['CI', 'Release'] }).kind).toBe('ci');
    const t = parseTrigger('workflow_run', payload(), { ...opts, workflows: ['ci'] });
    expect(t).toEqual({ kind: 'skip', reason: 'workflow "CI" is not in the `workflows` input ("ci").' });
  });

  test('pull requests from elsewhere in the list are not taken as the originating PR', () => {
    const p = payload({ run: { pull_requests: [{ number: 8, head: { ref: 'other', sha: SHA, repo: { name: 'shop' } }, base: { ref: 'main', sha: SHA, repo: { name: 'shop' } } }] } });
    const t = parseTrigger('workflow_run', p, opts);
    expect(t.kind === 'ci' && t.pullRequests).toEqual([]);
  });
});

// ------------------------------------------------------------------ collecting the failure

function apiRun(over: Partial<WorkflowRunData> = {}): WorkflowRunData {
  return { id: 77, name: 'CI', workflowId: 9, runNumber: 5, event: 'pull_request', status: 'completed', conclusion: 'failure', headBranch: 'feature/x', headSha: SHA, runAttempt: 2, url: 'https://github.com/octo/shop/actions/runs/77', createdAt: '2026-11-20T10:00:00Z', headRepository: REPO, triggeringActor: 'bob', pullRequests: [4], ...over };
}

class FakeCi implements CiGitHubPort {
  run = apiRun();
  branchRuns: WorkflowRunData[] = [];
  jobs: JobData[] = [
    { id: 1, runId: 77, name: 'lint', status: 'completed', conclusion: 'success', url: null, steps: [] },
    { id: 2, runId: 77, name: 'test (20)', status: 'completed', conclusion: 'failure', url: 'https://github.com/j/2', steps: [{ number: 1, name: 'Set up job', status: 'completed', conclusion: 'success' }, { number: 2, name: 'Run tests', status: 'completed', conclusion: 'failure' }] },
    { id: 3, runId: 77, name: 'test (22)', status: 'completed', conclusion: 'timed_out', url: null, steps: [{ number: 1, name: 'Run tests', status: 'completed', conclusion: 'timed_out' }] },
  ];
  logs = new Map<number, string | Error>([
    [2, '2026-11-20T10:00:01.0000000Z ✖ applies a discount (1ms)\n2026-11-20T10:00:01.0000000Z   AssertionError: -18000 !== 1800\n'],
    [3, Object.assign(new Error('GitHub API ... failed with 403'), { status: 403 })],
  ]);
  async getWorkflowRun() {
    return this.run;
  }
  async listRunJobs() {
    return this.jobs;
  }
  async getJobLog(jobId: number) {
    const l = this.logs.get(jobId);
    if (l instanceof Error) throw l;
    return l ?? '';
  }
  async listBranchRuns() {
    return this.branchRuns;
  }
}

const trigger = parseTrigger('workflow_run', payload(), opts) as CiTrigger;

describe('collectCiFailure', () => {
  test('failed jobs and steps, log extracts, a 403 log explained, the originating PR, a fingerprint', async () => {
    const r = await collectCiFailure(new FakeCi(), trigger, { repoName: 'shop' });
    expect(r.kind).toBe('failure');
    if (r.kind !== 'failure') return;
    const f = r.failure;
    expect(f.jobs.map((j) => [j.name, j.failedSteps])).toEqual([
      ['test (20)', ['Run tests']],
      ['test (22)', ['Run tests']],
    ]);
    expect(f.failingTests).toEqual(['applies a discount']);
    expect(f.jobs[1].logProblem).toMatch(/actions: read/);
    expect(f.pullRequest).toBe(4);
    expect(f.fingerprint).toMatch(/^[0-9a-f]{12}$/);
    expect(f.context).toContain('AssertionError: -18000 !== 1800');
    expect(f.contextTokens).toBeLessThanOrEqual(4000);
    const task = buildCiTask(f);
    expect(task.key).toBe(`ci-${f.fingerprint}`);
    expect(task.goal).toContain('untrusted data');
    expect(task.goal).toContain('failed step(s): "Run tests"');
    // a later run with the same cause (other ids, durations) has the same fingerprint
    const later = new FakeCi();
    later.run = apiRun({ id: 99, runNumber: 6, headSha: 'b'.repeat(40) });
    later.logs.set(2, '2026-11-21T11:00:00.0000000Z ✖ applies a discount (7ms)\n');
    const r2 = await collectCiFailure(later, { ...trigger, runId: 99 }, { repoName: 'shop' });
    expect(r2.kind === 'failure' && r2.failure.fingerprint).toBe(f.fingerprint);
  });

  test('a run that is no longer failing, a branch that is green again, or a run without failed jobs is skipped', async () => {
    const rerun = new FakeCi();
    rerun.run = apiRun({ conclusion: 'success' });
    expect(await collectCiFailure(rerun, trigger, { repoName: 'shop' })).toEqual({ kind: 'skip', reason: expect.stringMatching(/now "success"/) });

    const green = new FakeCi();
    green.branchRuns = [apiRun({ id: 80, runNumber: 6, conclusion: 'success', url: 'https://x/80' })];
    expect(await collectCiFailure(green, trigger, { repoName: 'shop' })).toEqual({ kind: 'skip', reason: expect.stringMatching(/green again.*https:\/\/x\/80/) });

    const nojobs = new FakeCi();
    nojobs.jobs = nojobs.jobs.slice(0, 1);
    expect(await collectCiFailure(nojobs, trigger, { repoName: 'shop' })).toEqual({ kind: 'skip', reason: expect.stringMatching(/without a failed job/) });
  });

  test('newerSuccess: only a later successful run of the same workflow counts', () => {
    const failing = apiRun();
    expect(newerSuccess(failing, [apiRun({ id: 70, runNumber: 4, conclusion: 'success' })])).toBeNull();
    expect(newerSuccess(failing, [apiRun({ id: 81, runNumber: 6, conclusion: 'success', workflowId: 10, name: 'Docs' })])).toBeNull();
    expect(newerSuccess(failing, [apiRun({ id: 82, runNumber: 6, conclusion: 'failure' })])).toBeNull();
    expect(newerSuccess(failing, [apiRun({ id: 83, runNumber: 6, conclusion: 'success' })])?.id).toBe(83);
  });
});

describe('manual dispatch of a CI repair (workflow_dispatch with run-id)', () => {
  test('a run id or a run URL, without an issue number, is a dispatched ci trigger; the dispatcher is the actor', () => {
    for (const id of ['77', ' 77 ', 'https://github.com/octo/shop/actions/runs/77/job/3']) {
      const t = parseTrigger('workflow_dispatch', { inputs: { 'issue-number': '', 'run-id': id }, sender: { login: 'maya', type: 'User' } }, opts);
      expect(t).toMatchObject({ kind: 'ci', runId: 77, actor: 'maya', dispatched: true });
    }
    expect(parseTrigger('workflow_dispatch', { inputs: { 'run-id': 'abc' }, sender: { login: 'maya' } }, opts)).toEqual({ kind: 'skip', reason: 'workflow_dispatch input "run-id" must be the id (or the URL) of a workflow run (got "abc").' });
    // an issue number wins: the issue flow as before
    expect(parseTrigger('workflow_dispatch', { inputs: { 'issue-number': '5', 'run-id': '77' }, sender: { login: 'maya' } }, opts).kind).toBe('issue');
  });

  test('the run read from the API goes through the same guards', () => {
    const ok = resolveDispatchedRun(apiRun(), 'maya', REPO);
    expect(ok).toMatchObject({ kind: 'ci', runId: 77, headSha: SHA, headBranch: 'feature/x', actor: 'maya', dispatched: true, pullRequests: [{ number: 4, headRef: 'feature/x', baseRef: '' }] });
    expect(resolveDispatchedRun(apiRun({ headRepository: 'mallory/shop' }), 'maya', REPO)).toMatchObject({ kind: 'skip', reason: expect.stringMatching(/fork/) });
    expect(resolveDispatchedRun(apiRun({ headBranch: 'agent-fix/ci-0123456789ab' }), 'maya', REPO)).toMatchObject({ kind: 'skip', reason: expect.stringMatching(/own branches/) });
    expect(resolveDispatchedRun(apiRun({ conclusion: 'success' }), 'maya', REPO)).toMatchObject({ kind: 'skip', reason: expect.stringMatching(/"success"/) });
    expect(resolveDispatchedRun(apiRun({ status: 'in_progress', conclusion: null }), 'maya', REPO)).toMatchObject({ kind: 'skip', reason: expect.stringMatching(/"in_progress"/) });
  });
});
