/**
 * What differs between stories: a kind says how the task is built, where the result goes and
 * what the report says. The skeleton (story.ts) does everything else, the same way for every
 * kind: authorize once, claim, sticky comment, fix, yield to a newer run, deliver, report.
 * See docs/architecture.md for every kind.
 */
import type { GitHubPort, Permission } from '../ports/github.js';
import type { CiGitHubPort } from '../ports/ci.js';
import type { GitPort } from '../ports/git.js';
import type { Shell } from '../ports/shell.js';
import type { ChatModel } from '../ports/llm.js';
import type { Settings } from '../settings/types.js';
import type { Task } from '../task/types.js';
import type { Policy } from '../policy/schema.js';
import type { RunReport } from '../fix/types.js';
import type { FixDeps, FixPlan, FixResult } from '../fix.js';
import type { Delivered } from '../publish/deliver.js';
import type { RunId } from '../publish/claim.js';
import type { SandboxProbe } from '../sandbox/sandbox.js';
import type { Redactor } from '../redact.js';
import type { ProgressSink } from '../fix/progress.js';
import type { Wording } from '../settings/wording.js';

/** The world a story runs in, built once by an entry (main.ts for the action, cli.ts for the CLI). */
export interface StoryWorld {
  /** The repository on GitHub; null for a local run. */
  github: (GitHubPort & CiGitHubPort) | null;
  /** The policy that decides who may trigger (null: nobody to authorize, a local run). */
  policy: Policy | null;
  /** Opens the checkout (the workspace). */
  openGit: () => Promise<GitPort>;
  shell: Shell;
  makeModel: () => ChatModel;
  /** Network isolation of the commands (probed by runFix when absent). */
  sandbox?: SandboxProbe;
  settings: Settings;
  redactor: Redactor;
  /** Environment the child processes derive from (filtered by verify/env.ts). */
  parentEnv: NodeJS.ProcessEnv;
  log: (message: string) => void;
  warn?: (message: string) => void;
  /** The step summary ($GITHUB_STEP_SUMMARY); absent outside Actions. */
  appendSummary?: (markdown: string) => Promise<void>;
  /** This run (GITHUB_RUN_ID, GITHUB_RUN_ATTEMPT): claims the task; null: no claims. */
  runId: RunId | null;
  /** URL of this agent-fix run. */
  runUrl?: string;
  /** Installs the SIGINT/SIGTERM handler (run/cancel.ts); the handler's result is what the entry reports. */
  onCancel?: (handler: (signal: NodeJS.Signals) => Promise<StoryResult>) => () => void;
  /** The model is the scripted demo session. */
  scripted?: boolean;
  /** Where the entry shows progress (action log groups, the CLI's phase line); the sticky comment is the story's own. */
  progress?: ProgressSink;
  /** Least time between two progress updates of the sticky comment (default run/live-comment.ts PROGRESS_INTERVAL_MS). */
  progressIntervalMs?: number;
  /** How messages name settings (default: the action's inputs). */
  wording?: Wording;
}

/** The end of a story, as a value: what the entry turns into outputs, an exit code or a message. */
export interface StoryResult {
  status: RunReport['status'];
  /** A Reason of the report, `cancelled`, or the one-sentence reason of a skip. */
  reason: string;
  report?: RunReport;
  branch?: string;
  prNumber?: number;
  prUrl?: string;
  iterations?: number;
  transcriptPath?: string;
  /** Status `skipped`: why, in one line (redacted). */
  note?: string;
  /** Status `error`: the one line for the workflow log (redacted). */
  error?: string;
  /** The exception that stopped the story, if one did (the CLI reports a usage error as such). */
  thrown?: unknown;
  /** propose: the directory holding the written bundle (output `bundle-path`). */
  bundlePath?: string;
}

export interface StoryKind {
  readonly name: string;
  /** Who asked for the run, authorized once by the skeleton; null: nobody to authorize (a local run). */
  readonly actor: string | null;
  /** The least permission the actor needs whatever the policy allows (CI repair: write). */
  readonly minPermission?: Permission;
  /** The transcript's header and file. */
  readonly transcript: { meta: Record<string, unknown>; path: string };
  /** What the run is doing, for stop reports ("repairing [the failed run](…)"); absent: nothing to add. */
  doing?(): string | undefined;
  /** The step summary of a skip (CI repair: why the failure is not repaired); absent: none. */
  skipSummary?(reason: string): string;
  /** How the task is built: reads the subject, opens the workspace. A skip ends the story before anything is written. */
  prepare(world: StoryWorld): Promise<Prepared | { skip: string }>;
}

export interface Prepared {
  task: Task;
  git: GitPort;
  /**
   * What the fix needs of this kind, as data (fix/plan.ts: where the change comes from, how the
   * baseline is judged, the extra gate, the cost cap); absent: a first fix of the checkout.
   */
  plan?: FixPlan;
  /** What the kind makes of the fix's result (a follow-up's words, a conflict left unresolved); absent: the result as it is. */
  revise?: (done: FixResult) => Promise<FixResult>;
  /** Replaces the fix pipeline (publish brings a change verified elsewhere and runs none of the repository's code); absent: runFix over `plan`. */
  fix?: (deps: FixDeps) => Promise<FixResult>;
  destination: Destination;
  texts: ReportTexts;
}

/** Where the result goes. */
export interface Destination {
  /** The issue or pull request that carries the sticky progress comment; null: none. */
  commentOn: number | null;
  /** What a maintainer does to let agent-fix try again. */
  retryHint: string;
  /** The branch a fix PR goes into (to find the PR of a run stopped after its push). */
  prBase?: string;
  /** A newer run seen other than by its claim in the comment (CI repair: its commit on the fix branch). */
  newerRun?(mine: RunId): Promise<RunId | null>;
  /** deliver() gets every finished fix, verified or not (propose: a bundle carries the evidence either way); absent: only a verified one. */
  deliverEveryOutcome?: boolean;
  /** Publishes the verified change; the outcome is a value. */
  deliver(fix: FixResult, hooks: { claim: RunId | null; onPushed: (branch: string) => void }): Promise<Delivered>;
  /**
   * Answers where the request was made, after the final comment (follow-up: a reply in each
   * review thread acted on, one reply to a comment command); a failure is logged, never fatal.
   */
  answer?(report: RunReport): Promise<void>;
  /** Keeps the best attempt of a run that stopped on its budget (`fix.bestAttempt`) for `/agent-fix continue`; absent: not kept. */
  keep?(fix: FixResult, hooks: { claim: RunId | null }): Promise<{ branch: string; baseSha: string } | null>;
  /** Runs after the fix whatever happened next (local: the user's working tree is put back). */
  release?(fix: FixResult): Promise<void>;
}

export type YieldPoint = 'before starting' | 'before publishing' | 'at push';

/** What the report says; pure renderers. */
export interface ReportTexts {
  start(runUrl?: string): string;
  /** The final comment. */
  final(report: RunReport): string;
  /** The step summary of a finished run; null: none. */
  summary(report: RunReport): string | null;
  /** The step summary of a run that yields to a newer one (`detail`: the delivery's own words). */
  superseded(s: { by: RunId; mine: RunId | null; when: YieldPoint; report?: RunReport; detail?: string }): string;
}

/** The most characters an appendix adds to a report (the renderers keep 2,000 under GitHub's body limit). */
const APPENDIX_MAX = 1_800;

/** `text` with a kind's appendix (publish: one line per candidate) after it, capped at `max` characters (a step summary: Infinity). Pure. */
export function withAppendix(text: string, appendix?: () => string, max = APPENDIX_MAX): string {
  const extra = appendix?.().trim();
  if (!extra) return text;
  const capped = extra.length > max ? `${extra.slice(0, max - 60).replace(/\n[^\n]*$/, '')}\n- … (more candidates in the step summary)` : extra;
  return `${text.replace(/\s+$/, '')}\n\n${capped}\n`;
}
