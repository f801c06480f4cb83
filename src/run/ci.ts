/**
 * The CI-repair kind: a failed `workflow_run` (or a dispatch naming one).
 *
 *   (dispatched: read the run from the API, through the event's guards) → check out the failed
 *   run's head_sha → collect the failure from the API (run, failed jobs and steps, logs →
 *   failure context, fingerprint; skip if green again; the branch must still exist) → the fix,
 *   whose baseline must reproduce the failure → `agent-fix/ci-<fingerprint>` on top of head_sha
 *   → one PR into the run's branch (created, or updated when a run with the same cause already
 *   opened it); the progress comment sits on the originating PR when there is one.
 *
 * A newer run is seen by its claim in that comment or by its commit on the fix branch (the
 * trailer `Agent-Fix-Run`), so a repair of a push, which has no comment, still yields.
 */
import { draftFor } from './draft.js';
import path from 'node:path';
import type { Identity } from '../ports/git.js';
import type { CiTrigger } from '../trigger/types.js';
import { resolveDispatchedRun } from '../trigger/workflow-run.js';
import { ciEvidence, collectCiFailure, type CiFailure } from '../ci/context.js';
import { buildCiTask } from '../ci/task.js';
import { checkReproduction } from '../ci/fingerprint.js';
import { branchForTask } from '../publish/branch.js';
import { deliverPullRequest } from '../publish/deliver.js';
import { newerRunOnBranch } from '../publish/push.js';
import { renderStoppedSummary } from '../report/render.js';
import { renderCiFinalComment, renderCiPrBody, renderCiPrTitle, renderCiSkipSummary, renderCiStartComment, renderCiSummary } from '../report/ci.js';
import { withProofMarker } from '../fix/follow-up-gate.js';
import { withAppendix, type StoryKind } from './kind.js';

const RETRY_HINT = 're-run the failed workflow';

export function ciKind(given: CiTrigger, o: { identity: Identity; repoName: string; repository: string; transcriptDir: string; meta: Record<string, unknown>; appendix?: () => string }): StoryKind {
  let trigger = given;
  let failure: CiFailure | undefined;
  return {
    name: 'ci',
    actor: given.actor,
    // Whatever the policy's triggers allow, a repair is made only for someone who can write.
    minPermission: 'write',
    transcript: { meta: { ...o.meta, failedRun: given.runUrl }, path: path.join(o.transcriptDir, `transcript-ci-${given.runId}-${Date.now()}.json`) },
    doing: () => `repairing ${failure ? `[the failed run](${failure.runUrl})` : `the failed run ${trigger.runUrl}`}`,
    skipSummary: (reason) => renderCiSkipSummary(reason, trigger.runUrl),
    async prepare(world) {
      const { github, log } = world;
      if (!github) throw new Error('the CI-repair story needs the GitHub API');
      if (trigger.dispatched) {
        // Started by hand with a run id: the run's details and the event's guards come from the API.
        const resolved = resolveDispatchedRun(await github.getWorkflowRun(trigger.runId), trigger.actor, o.repository);
        if (resolved.kind !== 'ci') return { skip: resolved.kind === 'skip' ? resolved.reason : 'not a workflow run' };
        trigger = resolved;
      }
      // The workflow's checkout is the default branch; the fix starts from the commit that failed.
      const git = await world.openGit();
      log(`Checking out ${trigger.headSha} (the failed run's commit)`);
      await git.checkoutDetached('origin', trigger.headSha);
      const files = new Set(await git.listFiles().catch(() => [] as string[]));
      const collected = await collectCiFailure(github, trigger, {
        repoName: o.repoName,
        // Stack frames count as the repository's when their file exists in the failed commit.
        isRepoFile: files.size > 0 ? (p) => files.has(p) : undefined,
      });
      if (collected.kind === 'skip') return { skip: collected.reason };
      const f = collected.failure;
      failure = f;
      const task = buildCiTask(f);
      log(`CI failure ${f.fingerprint}: ${f.jobs.length} failed job(s), ${f.failingTests.length} failing test(s) named in the logs, context ~${f.contextTokens} tokens`);

      // The fix PR targets the run's branch: it must still exist (a PR branch is often deleted once merged).
      const tip = await git.fetchBranch('origin', f.headBranch);
      if (tip === null) return { skip: `${f.headBranch}, the branch of the failed run, no longer exists (merged or deleted): there is no branch to fix.` };
      if (tip !== f.headSha) log(`${f.headBranch} has moved on since the failed run (now ${tip.slice(0, 7)}); the fix starts from the failed commit ${f.headSha.slice(0, 7)}.`);
      // The API's view of the run wins (it was re-read); it names the same commit unless GitHub changed its mind.
      if (f.headSha !== trigger.headSha) await git.checkoutDetached('origin', f.headSha);

      const branch = branchForTask(task.key);
      const redact = (t: string) => world.redactor.redact(t);
      return {
        task,
        git,
        plan: {
          change: { by: 'model', from: 'checkout' },
          // The baseline must reproduce the failure.
          acceptBaseline: (baseline) => {
            const r = checkReproduction(ciEvidence(f), baseline, { failedSteps: f.jobs.flatMap((j) => j.failedSteps) });
            f.reproduction = r;
            log(`Reproduction: ${r.kind}${r.kind === 'reproduced' ? ` (evidence: ${r.evidence})` : ''}. ${r.detail}`);
            if (r.kind !== 'reproduced') return { ok: false, reason: 'not-reproduced', detail: r.detail };
            // The tests that failed in CI are the job; when the log named none, the whole command is.
            return { ok: true, targets: r.local.length ? r.local : 'all' };
          },
        },
        destination: {
          commentOn: f.pullRequest ?? null,
          retryHint: RETRY_HINT,
          prBase: f.headBranch,
          newerRun: (mine) => newerRunOnBranch(git, 'origin', branch, o.identity, mine),
          deliver: (fix, hooks) =>
            deliverPullRequest({
              git,
              github,
              branch,
              baseSha: f.headSha,
              baseBranch: f.headBranch,
              tree: fix.tree as string,
              commitMessage: `agent-fix: repair ${f.workflowName} on ${f.headBranch}\n\n${fix.report.summary}\n\nFailed run: ${f.runUrl}`.trim(),
              identity: o.identity,
              prTitle: renderCiPrTitle(f),
              prBody: (b) => withProofMarker(withAppendix(renderCiPrBody({ ...fix.report, runUrl: world.runUrl, branch: b }, f), o.appendix), fix.report),
              draft: draftFor(world.settings, fix.report),
              redact,
              log,
              retryHint: RETRY_HINT,
              claim: hooks.claim,
              onPushed: hooks.onPushed,
            }),
        },
        texts: {
          start: (runUrl) => renderCiStartComment(task.key, f, runUrl),
          final: (report) => withAppendix(renderCiFinalComment(report, f), o.appendix),
          summary: (report) => withAppendix(renderCiSummary(report, f), o.appendix, Infinity),
          superseded: ({ by, mine, when, detail }) => {
            const what =
              detail ??
              `A newer agent-fix run (${by.id}, attempt ${by.attempt}) has taken over the repair of this failure; this run${mine ? ` (${mine.id}, attempt ${mine.attempt})` : ''} yields ${when}.`;
            return renderStoppedSummary('Superseded', `${what} Failed run: ${f.runUrl}.`, 'This run pushed nothing and opened no pull request.');
          },
        },
      };
    },
  };
}
