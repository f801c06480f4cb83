/** The fake GitHub's JSON for workflow runs and jobs, typed with GitHub's schema (see json.ts). */
import { nodeId, sha1, type FakeGitHubState } from './state.js';
import { apiRepoUrl, minimalRepoJson, userJson } from './json.js';
import type { FakePull, FakeJob, FakeWorkflowRun, Schema } from './types.js';

export function runJson(s: FakeGitHubState, run: FakeWorkflowRun, excludePullRequests: boolean): Schema<'workflow-run'> {
  const api = `${apiRepoUrl(s)}/actions/runs/${run.id}`;
  const minimal = { id: s.repo.id, url: apiRepoUrl(s), name: s.repo.name };
  const pullRequests = excludePullRequests
    ? []
    : run.pullRequests
        .map((n) => s.pulls.find((p) => p.number === n))
        .filter((p): p is FakePull => p !== undefined)
        .map((p) => ({
          id: p.id,
          number: p.number,
          url: `${apiRepoUrl(s)}/pulls/${p.number}`,
          head: { ref: p.head, sha: p.headSha, repo: minimal },
          base: { ref: p.base, sha: p.baseSha, repo: minimal },
        }));
  return {
    id: run.id,
    name: run.name,
    node_id: nodeId('WFR', run.id),
    head_branch: run.headBranch,
    head_sha: run.headSha,
    path: run.path,
    display_title: run.displayTitle,
    run_number: run.runNumber,
    event: run.event,
    status: run.status,
    conclusion: run.conclusion,
    workflow_id: run.workflowId,
    check_suite_id: run.id + 1_000,
    check_suite_node_id: nodeId('CS', run.id + 1_000),
    url: api,
    html_url: `https://github.com/${s.repo.fullName}/actions/runs/${run.id}`,
    pull_requests: pullRequests,
    created_at: run.createdAt,
    updated_at: run.updatedAt,
    actor: userJson(s, run.actor),
    triggering_actor: userJson(s, run.actor),
    run_attempt: run.runAttempt,
    referenced_workflows: [],
    run_started_at: run.createdAt,
    jobs_url: `${api}/jobs`,
    logs_url: `${api}/logs`,
    check_suite_url: `${apiRepoUrl(s)}/check-suites/${run.id + 1_000}`,
    artifacts_url: `${api}/artifacts`,
    cancel_url: `${api}/cancel`,
    rerun_url: `${api}/rerun`,
    previous_attempt_url: null,
    workflow_url: `${apiRepoUrl(s)}/actions/workflows/${run.workflowId}`,
    head_commit: {
      id: run.headSha,
      tree_id: sha1(`tree:${run.headSha}`),
      message: run.displayTitle,
      timestamp: run.createdAt,
      author: { name: run.actor, email: `${run.actor}@users.noreply.github.com` },
      committer: { name: 'GitHub', email: 'noreply@github.com' },
    },
    repository: minimalRepoJson(s),
    head_repository: minimalRepoJson(s),
  };
}

export function jobJson(s: FakeGitHubState, job: FakeJob, run: FakeWorkflowRun): Schema<'job'> {
  return {
    id: job.id,
    run_id: job.runId,
    workflow_name: run.name,
    head_branch: run.headBranch,
    run_url: `${apiRepoUrl(s)}/actions/runs/${run.id}`,
    run_attempt: run.runAttempt,
    node_id: nodeId('CR', job.id),
    head_sha: run.headSha,
    url: `${apiRepoUrl(s)}/actions/jobs/${job.id}`,
    html_url: `https://github.com/${s.repo.fullName}/actions/runs/${run.id}/job/${job.id}`,
    status: job.status,
    conclusion: job.conclusion,
    created_at: job.startedAt,
    started_at: job.startedAt,
    completed_at: job.completedAt,
    name: job.name,
    steps: job.steps.map((s) => ({ ...s, started_at: job.startedAt, completed_at: job.completedAt })),
    check_run_url: `${apiRepoUrl(s)}/check-runs/${job.id}`,
    labels: ['ubuntu-latest'],
    runner_id: 1,
    runner_name: 'GitHub Actions 1',
    runner_group_id: 1,
    runner_group_name: 'GitHub Actions',
  };
}
