/** The CI-repair reads: a workflow run, a branch's runs, a run's jobs, a job's log (ports/ci.ts). */
import type { CiGitHubPort } from '../../ports/ci.js';
import type { Api } from './client.js';
import { toRun } from './convert.js';

export function ciPort({ octokit, call, owner, repo }: Api): CiGitHubPort {
  return {
    async getWorkflowRun(runId) {
      const route = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}';
      const { data } = await call(route, () => octokit.request(route, { owner, repo, run_id: runId }));
      return toRun(data);
    },

    async listBranchRuns(branch, listOpts) {
      const route = 'GET /repos/{owner}/{repo}/actions/runs';
      const status = listOpts?.status as 'success' | undefined;
      const { data } = await call(route, () => octokit.request(route, { owner, repo, branch, per_page: listOpts?.perPage ?? 50, ...(status ? { status } : {}) }));
      return data.workflow_runs.map(toRun);
    },

    async listRunJobs(runId) {
      const route = 'GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs';
      const jobs = await call(route, () => octokit.paginate(route, { owner, repo, run_id: runId, filter: 'latest', per_page: 100 }));
      return jobs.map((j) => ({
        id: Number(j.id),
        runId: Number(j.run_id),
        name: j.name,
        status: j.status,
        conclusion: j.conclusion ?? null,
        url: j.html_url ?? null,
        steps: (j.steps ?? []).map((s) => ({ number: s.number, name: s.name, status: s.status, conclusion: s.conclusion ?? null })),
      }));
    },

    async getJobLog(jobId, logOpts) {
      const route = 'GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs';
      const maxChars = logOpts?.maxChars ?? 2_000_000;
      // Do not let fetch follow the redirect: the signed storage URL must not receive the token.
      const response = await call(route, () => octokit.request(route, { owner, repo, job_id: jobId, request: { redirect: 'manual' } }));
      let text: string;
      const location = (response.headers as Record<string, string | undefined>).location;
      if (response.status >= 300 && response.status < 400 && location) {
        const download = await call(`GET ${route} (redirect)`, async () => {
          const res = await fetch(location, { redirect: 'follow' });
          if (!res.ok) throw Object.assign(new Error(`log download answered ${res.status} ${res.statusText}`), { status: res.status });
          return res.text();
        });
        text = download;
      } else {
        const data: unknown = response.data;
        text = typeof data === 'string' ? data : data instanceof ArrayBuffer ? Buffer.from(data).toString('utf8') : String(data ?? '');
      }
      return text.length > maxChars ? text.slice(text.length - maxChars) : text;
    },
  };
}
