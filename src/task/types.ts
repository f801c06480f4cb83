/** What a run is asked to do, built from a trigger (task/issue-task.ts, ci/task.ts, run/local.ts). */
export interface Task {
  /** Stable identity of the task: `issue-42`. Names the branch and the comment marker. */
  key: string;
  title: string;
  /** Sanitized goal text for the model (untrusted text already cleaned). */
  goal: string;
  issueNumber?: number;
  issueUrl?: string;
}
