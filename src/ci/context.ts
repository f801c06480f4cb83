/**
 * The failure of a workflow run, as the GitHub API tells it: the run (re-read, not trusted
 * from the event), its failed jobs and steps, each failed job's log reduced to the part that
 * matters (log-extract.ts), and the fingerprint that names the fix branch.
 *
 * Also decides the API-side skips: the run is no longer a failure (a re-run passed), a newer
 * run of the same workflow on the same branch succeeded (the base is green again), or no job
 * failed (a workflow that could not start: nothing a code change in the tests fixes).
 */
import type { CiGitHubPort, JobData, WorkflowRunData } from '../ports/ci.js';
import type { CiTrigger } from '../trigger/types.js';
import { DEFAULT_BUDGET_TOKENS, estimateTokens, extractFailure, type LogExtract, type LogFailure } from './log-extract.js';
import { ciFingerprint, failureSignature, type CiEvidence, type Reproduction } from './fingerprint.js';
import { errorMessage } from '../errors.js';

export interface CiJobFailure {
  id: number;
  name: string;
  url: string | null;
  conclusion: string;
  failedSteps: string[];
  /** Null when the log could not be read (see `logProblem`). */
  extract: LogExtract | null;
  logProblem?: string;
}

/** Everything the task, the report and the branch name need about a failed run. */
export interface CiFailure {
  runId: number;
  runAttempt: number;
  runNumber: number | null;
  runUrl: string;
  workflowName: string;
  event: string;
  headSha: string;
  headBranch: string;
  /** The same-repository pull request the run belongs to, if any (its branch is `headBranch`). */
  pullRequest: number | null;
  jobs: CiJobFailure[];
  /** Failing test names from all failed jobs' logs, first appearance first. */
  failingTests: string[];
  /** The failing tests' identities (verify/identity.ts), as the local-run parsers read the logs. */
  failures: LogFailure[];
  /** How the baseline reproduced it (or not), once checked: the report names the evidence. */
  reproduction?: Reproduction;
  fingerprint: string;
  /** What the fingerprint rests on. */
  basis: 'tests' | 'errors' | 'steps';
  /** The failure context for the model (all jobs), within the token budget. */
  context: string;
  contextTokens: number;
}

export type CollectOutcome = { kind: 'failure'; failure: CiFailure } | { kind: 'skip'; reason: string };

export interface CollectOptions {
  /** Repository name (without owner), to strip runner workspace paths from logs. */
  repoName: string;
  /** Token budget of the whole failure context (default 4000). */
  budgetTokens?: number;
  /** Longest log tail read per job (default 20,000,000 characters). */
  maxLogChars?: number;
  /** Most failed jobs whose logs are read (default 5). */
  maxJobs?: number;
  isRepoFile?: (path: string) => boolean;
}

const FAILED_JOB = new Set(['failure', 'timed_out']);

/** Is there a run of the same workflow on the same branch, newer than `run`, that succeeded? */
export function newerSuccess(run: Pick<WorkflowRunData, 'id' | 'name' | 'workflowId' | 'runNumber' | 'createdAt'>, candidates: WorkflowRunData[]): WorkflowRunData | null {
  const t0 = Date.parse(run.createdAt);
  for (const c of candidates) {
    if (c.id === run.id || c.conclusion !== 'success') continue;
    const same = run.workflowId !== null && c.workflowId !== null ? c.workflowId === run.workflowId : c.name === run.name;
    if (!same) continue;
    const newer = run.runNumber !== null && c.runNumber !== null ? c.runNumber > run.runNumber : Date.parse(c.createdAt) > t0;
    if (newer) return c;
  }
  return null;
}

function failedSteps(job: JobData): string[] {
  return job.steps.filter((s) => s.conclusion === 'failure' || s.conclusion === 'timed_out').map((s) => s.name);
}

export async function collectCiFailure(gh: CiGitHubPort, trigger: CiTrigger, opts: CollectOptions): Promise<CollectOutcome> {
  const run = await gh.getWorkflowRun(trigger.runId);
  if (run.status !== 'completed' || run.conclusion !== 'failure') {
    return { kind: 'skip', reason: `workflow run ${run.id} is now ${run.status === 'completed' ? `"${run.conclusion}"` : `"${run.status}" (a re-run is under way)`}, no longer a failure: nothing to repair.` };
  }
  const branch = run.headBranch ?? trigger.headBranch;
  const newer = newerSuccess(
    { id: run.id, name: run.name || trigger.workflowName, workflowId: run.workflowId ?? trigger.workflowId, runNumber: run.runNumber ?? trigger.runNumber, createdAt: run.createdAt || trigger.createdAt },
    await gh.listBranchRuns(branch, { status: 'success' }),
  );
  if (newer) {
    return { kind: 'skip', reason: `${branch} is green again: a newer run of "${run.name}" succeeded (${newer.url}), so run ${run.id} needs no repair.` };
  }

  const jobs = (await gh.listRunJobs(run.id)).filter((j) => j.conclusion !== null && FAILED_JOB.has(j.conclusion));
  if (jobs.length === 0) {
    return { kind: 'skip', reason: `workflow run ${run.id} failed without a failed job (the workflow could not start, e.g. an invalid workflow file): there are no logs to repair from.` };
  }
  const maxJobs = Math.max(1, opts.maxJobs ?? 5);
  const budget = Math.max(400, opts.budgetTokens ?? DEFAULT_BUDGET_TOKENS);
  const read = jobs.slice(0, maxJobs);
  // Each job gets an equal share of the budget, minus room for its heading.
  const share = Math.floor(budget / read.length) - 60;
  const failures: CiJobFailure[] = [];
  for (const job of read) {
    const entry: CiJobFailure = { id: job.id, name: job.name, url: job.url, conclusion: job.conclusion ?? 'failure', failedSteps: failedSteps(job), extract: null };
    try {
      const log = await gh.getJobLog(job.id, { maxChars: opts.maxLogChars ?? 20_000_000 });
      entry.extract = extractFailure(log, { budgetTokens: share, repoName: opts.repoName, isRepoFile: opts.isRepoFile });
    } catch (e) {
      const status = (e as { status?: number }).status;
      entry.logProblem =
        status === 403
          ? 'the token may not read Actions logs: give the job `permissions: actions: read`'
          : status === 404 || status === 410
            ? 'the log is gone (expired or deleted)'
            : `the log could not be read: ${errorMessage(e)}`;
    }
    failures.push(entry);
  }

  const failingTests: string[] = [];
  for (const j of failures) for (const t of j.extract?.failingTests ?? []) if (!failingTests.includes(t)) failingTests.push(t);
  const identified: LogFailure[] = [];
  for (const j of failures) for (const f of j.extract?.failures ?? []) if (!identified.some((x) => x.name === f.name)) identified.push(f);
  const facts = failures.map((j) => ({ name: j.name, failedSteps: j.failedSteps, failingTests: j.extract?.failingTests ?? [], errors: j.extract?.errors ?? [] }));
  // The branch is part of the identity: the same test failing on two branches needs two fixes with two bases.
  const fingerprint = ciFingerprint(`${run.name || trigger.workflowName}@${branch}`, facts);
  const basis = failureSignature(run.name, facts).basis;

  const sections = failures.map((j) => {
    const head = `Job "${j.name}" (${j.conclusion}${j.failedSteps.length ? `; failed step${j.failedSteps.length > 1 ? 's' : ''}: ${j.failedSteps.map((s) => `"${s}"`).join(', ')}` : ''})`;
    const body = j.extract ? j.extract.text || '(nothing recognisable in the log)' : `(no log: ${j.logProblem})`;
    return `${head}\n${body}`;
  });
  if (jobs.length > read.length) sections.push(`(${jobs.length - read.length} more failed job(s) not read: ${jobs.slice(read.length).map((j) => j.name).join(', ')})`);
  const context = sections.join('\n\n');
  const pr = trigger.pullRequests.find((p) => p.headRef === branch)?.number ?? null;
  return {
    kind: 'failure',
    failure: {
      runId: run.id,
      runAttempt: run.runAttempt,
      runNumber: run.runNumber ?? trigger.runNumber,
      runUrl: run.url || trigger.runUrl,
      workflowName: run.name || trigger.workflowName,
      event: run.event || trigger.event,
      headSha: run.headSha || trigger.headSha,
      headBranch: branch,
      pullRequest: pr,
      jobs: failures,
      failingTests,
      failures: identified,
      fingerprint,
      basis,
      context,
      contextTokens: estimateTokens(context),
    },
  };
}

/** What the logs say failed, for the reproduction check (ci/fingerprint.ts `checkReproduction`). */
export function ciEvidence(f: Pick<CiFailure, 'failingTests' | 'failures' | 'jobs'>): CiEvidence {
  return {
    tests: f.failingTests,
    failures: f.failures,
    files: [...new Set(f.jobs.flatMap((j) => j.extract?.failingFiles ?? []))],
    errors: f.jobs.flatMap((j) => j.extract?.errors ?? []).slice(0, 60),
  };
}
