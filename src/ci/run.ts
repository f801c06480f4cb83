/**
 * The CI-repair story, depending only on ports (the action's composition root builds them):
 *
 *   authorize the run's triggering actor → check out the failed run's head_sha → collect the
 *   failure from the API (run, failed jobs and steps, logs → failure context, fingerprint; skip
 *   if green again; the branch must still exist) → runFix, whose baseline must reproduce the failure → publish
 *   `agent-fix/ci-<fingerprint>` on top of head_sha → one PR into the run's branch (created,
 *   or updated when a run with the same cause already opened it) → sticky comment on the
 *   originating PR (when there is one) → step summary.
 *
 * Run safety, as on the issue path (README, docs/security.md): the run claims the repair in the
 * originating PR's sticky comment, and its fix commit names it (a trailer on the branch
 * `agent-fix/ci-<fingerprint>`); a run that sees a newer run's claim or commit yields and
 * publishes nothing. On SIGINT/SIGTERM (cancelled, timed out) the comment and the step summary
 * are made final, saying which branch or PR exists by then.
 */
import type { GitHubPort } from '../ports/github.js';
import type { CiGitHubPort } from '../ports/ci.js';
import type { GitPort, Identity } from '../ports/git.js';
import type { Shell } from '../ports/shell.js';
import type { ChatModel } from '../ports/llm.js';
import type { CiTrigger, Outcome, RunReport, Settings } from '../types.js';
import type { Redactor } from '../redact.js';
import { authorizeActor } from '../trigger/authorize.js';
import { runFix, type FixDeps } from '../fix.js';
import { StickyComment } from '../publish/artifacts.js';
import { deliverFix } from '../publish/deliver.js';
import { branchForTask } from '../publish/branch.js';
import { newerRunOnBranch } from '../publish/push.js';
import { commentMarker, renderStoppedSummary } from '../report/render.js';
import { newerClaim, withClaim, type RunId } from '../safety/claim.js';
import { renderFailureComment, renderLeftBehind } from '../safety/failure.js';
import { ciEvidence, collectCiFailure, type CiFailure } from './context.js';
import { buildCiTask } from './task.js';
import { resolveDispatchedRun } from './trigger.js';
import { checkReproduction } from './fingerprint.js';
import { renderCiFinalComment, renderCiPrBody, renderCiPrTitle, renderCiSkipSummary, renderCiStartComment, renderCiSummary } from './report.js';

export interface CiRunDeps {
  github: GitHubPort & CiGitHubPort;
  /** Opens the checkout (the workspace). */
  openGit: () => Promise<GitPort>;
  shell: Shell;
  makeModel: () => ChatModel;
  /** The sandbox probe for the commands (probed by runFix when absent). */
  sandbox?: FixDeps['sandbox'];
  settings: Settings;
  redactor: Redactor;
  parentEnv: NodeJS.ProcessEnv;
  identity: Identity;
  /** Repository name without the owner (strips runner paths from logs). */
  repoName: string;
  /** `owner/name` of this repository (tells a fork's run apart). */
  repository: string;
  /** URL of this agent-fix run. */
  runUrl?: string;
  log: (message: string) => void;
  appendSummary: (markdown: string) => Promise<void>;
  emit?: FixDeps['emit'];
  /** This agent-fix run (GITHUB_RUN_ID and GITHUB_RUN_ATTEMPT): claims the repair; null or absent: no claims. */
  runId?: RunId | null;
  /**
   * Installs the handler for SIGINT/SIGTERM (safety/cancel.ts `onCancel`) and returns its
   * disposer. The handler makes the comment and the step summary final and returns the result.
   */
  onCancel?: (handler: (signal: NodeJS.Signals) => Promise<CiRunResult>) => () => void;
}

/** How long a cancellation waits for a comment, push or PR update under way before it reports. */
const CANCEL_SETTLE_MS = 2500;
const RETRY_HINT = 're-run the failed workflow';

export interface CiRunResult {
  status: Outcome;
  reason: string;
  prNumber?: number;
  prUrl?: string;
  branch?: string;
  iterations?: number;
  report?: RunReport;
  failure?: CiFailure;
}

/** What a repair has done so far: what a cancellation or an error must report truthfully. */
interface Progress {
  failure?: CiFailure;
  comment?: StickyComment;
  marker?: string;
  /** The fix branch, once pushed by this run. */
  pushed?: string;
  prUrl?: string;
  /** The comment write, push or PR update under way, if any. */
  busy: Promise<unknown>;
  cancelled: NodeJS.Signals | null;
}

export async function runCiRepair(trigger: CiTrigger, deps: CiRunDeps): Promise<CiRunResult> {
  const { github, redactor, log } = deps;
  const runId = deps.runId ?? null;
  const claim = (body: string) => (runId ? withClaim(body, runId) : body);
  const progress: Progress = { busy: Promise.resolve(), cancelled: null };

  const failedRunLink = () => (progress.failure ? `[the failed run](${progress.failure.runUrl})` : `the failed run ${trigger.runUrl}`);
  /** Reports a stop (cancellation or error): the comment (claimed) and the summary say why and what exists. */
  const reportStop = async (heading: 'Cancelled' | 'Error', why: string, summary: string): Promise<void> => {
    const f = progress.failure;
    // A push whose PR update did not happen may still have updated an existing PR of the branch.
    if (progress.pushed && !progress.prUrl && f) progress.prUrl = (await github.findOpenPullRequest(progress.pushed, f.headBranch).catch(() => null))?.url;
    const left = { pushedBranch: progress.pushed, prUrl: progress.prUrl, retryHint: RETRY_HINT };
    if (progress.comment && progress.marker) {
      const body = renderFailureComment({ marker: progress.marker, why, runUrl: deps.runUrl, ...left });
      await progress.comment.set(claim(redactor.redact(body))).catch((e: unknown) => log(`Could not update the pull request comment: ${redactor.redact(message(e))}`));
    }
    await deps.appendSummary(redactor.redact(renderStoppedSummary(heading, summary, renderLeftBehind(left)))).catch(() => undefined);
  };

  const dispose = deps.onCancel?.(async (signal) => {
    progress.cancelled = signal;
    // A comment write, push or PR update under way lands (or not) before the report says what exists.
    await Promise.race([progress.busy, new Promise((resolve) => setTimeout(resolve, CANCEL_SETTLE_MS))]);
    const why = `the workflow run was cancelled or timed out (${signal}) before agent-fix finished repairing ${failedRunLink()}.`;
    await reportStop('Cancelled', why, `The agent-fix run was cancelled or timed out (${signal}) before it finished repairing ${failedRunLink()}.`);
    return { status: 'error', reason: 'cancelled', branch: progress.pushed, prUrl: progress.prUrl, failure: progress.failure };
  });
  try {
    return await repair(trigger, deps, progress, claim);
  } catch (e) {
    const why = redactor.redact(message(e));
    if (!progress.cancelled) await reportStop('Error', `${why} (while repairing ${failedRunLink()})`, `Repairing ${failedRunLink()} stopped with an error: ${why}`);
    throw new CiRepairStopped(e, progress.pushed, progress.prUrl);
  } finally {
    dispose?.();
  }
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** The error that stopped a repair, with what the repair had published by then (for the action's outputs). */
export class CiRepairStopped extends Error {
  constructor(
    readonly reason: unknown,
    readonly branch?: string,
    readonly prUrl?: string,
  ) {
    super(message(reason));
    this.name = 'CiRepairStopped';
  }
}

async function repair(given: CiTrigger, deps: CiRunDeps, progress: Progress, claim: (body: string) => string): Promise<CiRunResult> {
  const { github, redactor, log } = deps;
  const runId = deps.runId ?? null;
  let trigger = given;
  const skipped = async (reason: string): Promise<CiRunResult> => {
    log(`agent-fix skipped: ${reason}`);
    await deps.appendSummary(redactor.redact(renderCiSkipSummary(reason, trigger.runUrl)));
    return { status: 'skipped', reason };
  };
  /** Runs a publication step so that a cancellation waits for it instead of contradicting it. */
  const publishing = <T>(step: Promise<T>): Promise<T> => {
    progress.busy = step.catch(() => undefined);
    return step;
  };
  /** After a cancellation the handler owns the report: the story stops without publishing anything. */
  const cancelled = (): CiRunResult | null => (progress.cancelled ? { status: 'error', reason: 'cancelled', branch: progress.pushed, prUrl: progress.prUrl, failure: progress.failure } : null);

  const auth = await authorizeActor(github, trigger.actor);
  if (!auth.ok) return skipped(`the run was triggered by someone agent-fix does not act for: ${auth.reason}`);
  if (trigger.dispatched) {
    // Started by hand with a run id: the run's details and the event's guards come from the API.
    const resolved = resolveDispatchedRun(await github.getWorkflowRun(trigger.runId), trigger.actor, deps.repository);
    if (resolved.kind !== 'ci') return skipped(resolved.kind === 'skip' ? resolved.reason : 'not a workflow run');
    trigger = resolved;
  }

  // The workflow's checkout is the default branch; the fix starts from the commit that failed.
  const git = await deps.openGit();
  log(`Checking out ${trigger.headSha} (the failed run's commit)`);
  await git.checkoutDetached('origin', trigger.headSha);
  const files = new Set(await git.listFiles().catch(() => [] as string[]));
  const collected = await collectCiFailure(github, trigger, {
    repoName: deps.repoName,
    // Stack frames count as the repository's when their file exists in the failed commit.
    isRepoFile: files.size > 0 ? (p) => files.has(p) : undefined,
  });
  if (collected.kind === 'skip') return skipped(collected.reason);
  const failure = collected.failure;
  progress.failure = failure;
  const task = buildCiTask(failure);
  log(`CI failure ${failure.fingerprint}: ${failure.jobs.length} failed job(s), ${failure.failingTests.length} failing test(s) named in the logs, context ~${failure.contextTokens} tokens`);

  // The fix PR targets the run's branch: it must still exist (a PR branch is often deleted once merged).
  const tip = await git.fetchBranch('origin', failure.headBranch);
  if (tip === null) return skipped(`${failure.headBranch}, the branch of the failed run, no longer exists (merged or deleted): there is no branch to fix.`);
  if (tip !== failure.headSha) log(`${failure.headBranch} has moved on since the failed run (now ${tip.slice(0, 7)}); the fix starts from the failed commit ${failure.headSha.slice(0, 7)}.`);

  const branch = branchForTask(task.key);
  const marker = commentMarker(task.key);
  /** A newer run that took this failure over: its claim in the PR's comment, or its commit on the fix branch. */
  const newerRun = async (): Promise<RunId | null> => {
    if (!runId) return null;
    const inComment = failure.pullRequest ? await newerClaim(github, failure.pullRequest, marker, runId) : null;
    return inComment ?? newerRunOnBranch(git, 'origin', branch, deps.identity, runId);
  };
  /** Yields to a newer run: publishes nothing, leaves the comment to it; the summary says so. */
  const yieldTo = async (by: RunId, when: string): Promise<CiRunResult> => {
    const detail = `A newer agent-fix run (${by.id}, attempt ${by.attempt}) has taken over the repair of this failure; this run${runId ? ` (${runId.id}, attempt ${runId.attempt})` : ''} yields ${when}.`;
    log(detail);
    await deps.appendSummary(redactor.redact(renderStoppedSummary('Superseded', `${detail} Failed run: ${failure.runUrl}.`, 'This run pushed nothing and opened no pull request.')));
    return { status: 'skipped', reason: 'superseded', failure };
  };

  const early = await newerRun();
  if (early) return yieldTo(early, 'before starting');
  const comment = failure.pullRequest ? new StickyComment(github, failure.pullRequest, marker) : null;
  if (comment) {
    progress.comment = comment;
    progress.marker = marker;
    await publishing(comment.set(claim(renderCiStartComment(task.key, failure, deps.runUrl))));
  }
  // The API's view of the run wins (it was re-read); it names the same commit unless GitHub changed its mind.
  if (failure.headSha !== trigger.headSha) await git.checkoutDetached('origin', failure.headSha);

  const result = await runFix(task, {
    git,
    shell: deps.shell,
    model: deps.makeModel(),
    settings: deps.settings,
    redactor,
    parentEnv: deps.parentEnv,
    log,
    emit: deps.emit,
    sandbox: deps.sandbox,
    acceptBaseline: (baseline) => {
      const r = checkReproduction(ciEvidence(failure), baseline, { failedSteps: failure.jobs.flatMap((j) => j.failedSteps) });
      failure.reproduction = r;
      log(`Reproduction: ${r.kind}${r.kind === 'reproduced' ? ` (evidence: ${r.evidence})` : ''}. ${r.detail}`);
      if (r.kind !== 'reproduced') return { ok: false, reason: 'not-reproduced', detail: r.detail };
      // The tests that failed in CI are the job; when the log named none, the whole command is.
      return { ok: true, targets: r.local.length ? r.local : 'all' };
    },
  });
  const report: RunReport = { ...result.report, runUrl: deps.runUrl };
  const out: CiRunResult = { status: report.status, reason: report.reason, iterations: report.iterations, report, failure };
  const stop = cancelled();
  if (stop) return { ...stop, iterations: report.iterations, report };

  if (report.status === 'fixed' && result.tree) {
    const newer = await newerRun();
    if (newer) return { ...(await yieldTo(newer, 'before publishing')), iterations: report.iterations, report: { ...report, status: 'skipped', reason: 'superseded' } };
    const stopNow = cancelled();
    if (stopNow) return { ...stopNow, iterations: report.iterations, report };
    await publishing(
      deliverFix({
        git,
        github,
        report,
        branch,
        baseSha: failure.headSha,
        baseBranch: failure.headBranch,
        tree: result.tree,
        commitMessage: `agent-fix: repair ${failure.workflowName} on ${failure.headBranch}\n\n${report.summary}\n\nFailed run: ${failure.runUrl}`.trim(),
        identity: deps.identity,
        prTitle: renderCiPrTitle(failure),
        prBody: (r) => renderCiPrBody(r, failure),
        draft: deps.settings.draft,
        redact: (t) => redactor.redact(t),
        log,
        retryHint: RETRY_HINT,
        claim: runId,
        onPushed: (b) => {
          progress.pushed = b;
        },
      }).then(() => {
        progress.prUrl = report.prUrl;
      }),
    );
    // The branch's tip was pushed by a newer run in the meantime (checked against the sha the leased push replaces).
    if (report.reason === 'superseded') {
      await deps.appendSummary(redactor.redact(renderStoppedSummary('Superseded', `${report.detail} Failed run: ${failure.runUrl}.`, 'This run pushed nothing and opened no pull request.')));
      return { status: 'skipped', reason: 'superseded', iterations: report.iterations, report, failure };
    }
    out.branch = report.branch;
  }
  out.status = report.status;
  out.reason = report.reason;
  out.prNumber = report.prNumber;
  out.prUrl = report.prUrl;
  const stopLate = cancelled();
  if (stopLate) return { ...out, ...stopLate };
  if (comment) await publishing(comment.set(claim(redactor.redact(renderCiFinalComment(report, failure)))));
  await deps.appendSummary(redactor.redact(renderCiSummary(report, failure)));
  log(`agent-fix: ${report.status} (${report.reason}). ${report.detail}`);
  return out;
}
