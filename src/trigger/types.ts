/** What started a run: the event, read into a typed trigger (trigger/parse.ts). */
export type Trigger = IssueTrigger | CiTrigger | { kind: 'skip'; reason: string };

/** An issue to fix: labelled, commanded in a comment, or dispatched by number. */
export interface IssueTrigger {
  kind: 'issue';
  via: 'label' | 'comment' | 'dispatch';
  issueNumber: number;
  actor: string;
  extraInstructions: string;
  triggeredAt: string;
  /** The issue body as the webhook payload carried it at trigger time (absent for dispatch). */
  issueBodyAtTrigger?: string;
}

/** A failed `workflow_run` to repair (see src/ci/). Parsed from the event payload; re-checked against the API. */
export interface CiTrigger {
  kind: 'ci';
  runId: number;
  runAttempt: number;
  workflowName: string;
  workflowId: number | null;
  /** Commit the run tested: the fix starts from it. */
  headSha: string;
  /** Branch the run tested: the fix PR targets it. */
  headBranch: string;
  /** Event that started the run (push, pull_request, ...). */
  event: string;
  /** Who triggered the run (re-runs: who re-ran it); must have write permission. */
  actor: string;
  runUrl: string;
  runNumber: number | null;
  /** Same-repository pull requests the run belongs to. */
  pullRequests: { number: number; headRef: string; baseRef: string }[];
  createdAt: string;
  /** Started by hand (workflow_dispatch with a `run-id`): the run's details are read from the API first. */
  dispatched?: boolean;
}
