/**
 * The CI-repair story, depending only on ports (the action's composition root builds them):
 *
 *   authorize the run's triggering actor → check out the failed run's head_sha → collect the
 *   failure from the API (run, failed jobs and steps, logs → failure context, fingerprint; skip
 *   if green again; the branch must still exist) → runFix, whose baseline must reproduce the failure → publish
 *   `agent-fix/ci-<fingerprint>` on top of head_sha → one PR into the run's branch (created,
 *   or updated when a run with the same cause already opened it) → sticky comment on the
 *   originating PR (when there is one) → step summary.
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
import { commentMarker } from '../report/render.js';
import { collectCiFailure, type CiFailure } from './context.js';
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
}

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

export async function runCiRepair(given: CiTrigger, deps: CiRunDeps): Promise<CiRunResult> {
  const { github, redactor, log } = deps;
  let trigger = given;
  const skipped = async (reason: string): Promise<CiRunResult> => {
    log(`agent-fix skipped: ${reason}`);
    await deps.appendSummary(redactor.redact(renderCiSkipSummary(reason, trigger.runUrl)));
    return { status: 'skipped', reason };
  };

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
  const task = buildCiTask(failure);
  log(`CI failure ${failure.fingerprint}: ${failure.jobs.length} failed job(s), ${failure.failingTests.length} failing test(s) named in the logs, context ~${failure.contextTokens} tokens`);

  // The fix PR targets the run's branch: it must still exist (a PR branch is often deleted once merged).
  const tip = await git.fetchBranch('origin', failure.headBranch);
  if (tip === null) return skipped(`${failure.headBranch}, the branch of the failed run, no longer exists (merged or deleted): there is no branch to fix.`);
  if (tip !== failure.headSha) log(`${failure.headBranch} has moved on since the failed run (now ${tip.slice(0, 7)}); the fix starts from the failed commit ${failure.headSha.slice(0, 7)}.`);

  const comment = failure.pullRequest ? new StickyComment(github, failure.pullRequest, commentMarker(task.key)) : null;
  try {
    if (comment) await comment.set(renderCiStartComment(task.key, failure, deps.runUrl));
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
      acceptBaseline: (baseline) => {
        const r = checkReproduction(failure.failingTests, baseline, { failedSteps: failure.jobs.flatMap((j) => j.failedSteps) });
        log(`Reproduction: ${r.kind}. ${r.detail}`);
        if (r.kind !== 'reproduced') return { ok: false, reason: 'not-reproduced', detail: r.detail };
        // The tests that failed in CI are the job; when the log named none, the whole command is.
        return { ok: true, targets: r.local.length ? r.local : 'all' };
      },
    });
    const report: RunReport = { ...result.report, runUrl: deps.runUrl };
    const out: CiRunResult = { status: report.status, reason: report.reason, iterations: report.iterations, report, failure };

    if (report.status === 'fixed' && result.tree) {
      const branch = branchForTask(task.key);
      await deliverFix({
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
        retryHint: 're-run the failed workflow',
      });
      out.branch = report.branch;
    }
    out.status = report.status;
    out.reason = report.reason;
    out.prNumber = report.prNumber;
    out.prUrl = report.prUrl;
    if (comment) await comment.set(redactor.redact(renderCiFinalComment(report, failure)));
    await deps.appendSummary(redactor.redact(renderCiSummary(report, failure)));
    log(`agent-fix: ${report.status} (${report.reason}). ${report.detail}`);
    return out;
  } catch (e) {
    if (comment) {
      const why = redactor.redact(e instanceof Error ? e.message : String(e));
      await comment
        .set(`${commentMarker(task.key)}\n**agent-fix** stopped with an error and changed nothing while repairing [the failed run](${failure.runUrl}): ${why}${deps.runUrl ? `\n\nSee the [agent-fix run](${deps.runUrl}).` : ''}\n`)
        .catch(() => undefined);
    }
    throw e;
  }
}
