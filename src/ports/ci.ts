/** What CI repair needs from the GitHub Actions API, named by intent. Implemented by adapters/github.ts. */

export interface WorkflowRunData {
  id: number;
  name: string;
  workflowId: number | null;
  runNumber: number | null;
  event: string;
  status: string | null;
  conclusion: string | null;
  headBranch: string | null;
  headSha: string;
  runAttempt: number;
  url: string;
  createdAt: string;
  /** `owner/name` of the repository the run's code came from (another one for a fork's PR). */
  headRepository: string | null;
  /** Login of who triggered the run (re-runs: who re-ran it). */
  triggeringActor: string | null;
  /** Numbers of the pull requests the run belongs to (empty for forks and pushes). */
  pullRequests: number[];
}

export interface JobData {
  id: number;
  runId: number;
  name: string;
  status: string;
  conclusion: string | null;
  url: string | null;
  steps: { number: number; name: string; status: string; conclusion: string | null }[];
}

export interface CiGitHubPort {
  getWorkflowRun(runId: number): Promise<WorkflowRunData>;
  /** Jobs of the run's latest attempt. */
  listRunJobs(runId: number): Promise<JobData[]>;
  /** The plain-text log of a job; when longer than `maxChars` (default 2,000,000) only its tail. */
  getJobLog(jobId: number, opts?: { maxChars?: number }): Promise<string>;
  /** Recent runs on a branch, newest first (one page of up to `perPage`, default 50). */
  listBranchRuns(branch: string, opts?: { status?: string; perPage?: number }): Promise<WorkflowRunData[]>;
}
