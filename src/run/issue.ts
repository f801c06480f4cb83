/**
 * The issue kind: a labelled issue, a `/agent-fix` comment or a dispatch with an issue number.
 * The task is the issue thread (sanitized), the progress comment sits on the issue, and the
 * verified change goes to `agent-fix/issue-<n>` with one pull request into the default branch.
 */
import { draftFor } from './draft.js';
import path from 'node:path';
import type { Identity } from '../ports/git.js';
import type { IssueTrigger } from '../trigger/types.js';
import { buildIssueTask } from '../task/issue-task.js';
import { branchForTask } from '../publish/branch.js';
import { deliverPullRequest } from '../publish/deliver.js';
import { renderFinalComment, renderPrBody, renderPrTitle, renderReportMarkdown, renderStartComment, renderStoppedSummary } from '../report/render.js';
import { withProofMarker } from '../fix/follow-up-gate.js';
import { withAppendix, type StoryKind } from './kind.js';
import { findAttempt, keepAttempt, renderKept, sayNothingToContinue, type KeptAttempt } from './continue.js';

const RETRY_HINT = 'trigger again';

export function issueKind(trigger: IssueTrigger, o: { defaultBranch: string; identity: Identity; transcriptDir: string; meta: Record<string, unknown>; appendix?: () => string }): StoryKind {
  const issueNumber = trigger.issueNumber;
  return {
    name: 'issue',
    actor: trigger.actor,
    // `continue` may raise the budget: a maintainer's decision, whatever the policy lets trigger a fix
    ...(trigger.resume ? { minPermission: 'write' as const } : {}),
    transcript: { meta: o.meta, path: path.join(o.transcriptDir, `transcript-${issueNumber}-${Date.now()}.json`) },
    async prepare(world) {
      const github = world.github;
      if (!github) throw new Error('the issue story needs the GitHub API');
      const task = await buildIssueTask(github, trigger);
      const git = await world.openGit();
      const redact = (t: string) => world.redactor.redact(t);
      // `/agent-fix continue`: from the best attempt of the run that stopped on its budget (run/continue.ts).
      let resumed: { tree: string; note: string; kept: KeptAttempt } | null = null;
      if (trigger.resume) {
        const found = await findAttempt({ git, task, identity: o.identity });
        if ('nothing' in found) return { skip: await sayNothingToContinue(github, issueNumber, trigger.actor, found.nothing) };
        resumed = found;
      }
      // `continue budget=$N` sets the cost cap of this run; the repository policy's cap still holds
      const policyCap = world.policy?.budgets['max-cost-usd'];
      const budgetUsd = trigger.resume?.budgetUsd ? Math.min(trigger.resume.budgetUsd, policyCap ?? Number.POSITIVE_INFINITY) : null;
      if (trigger.resume?.budgetUsd && budgetUsd !== trigger.resume.budgetUsd) world.log(`budget=$${trigger.resume.budgetUsd} is above the policy's budgets.max-cost-usd ($${budgetUsd}); the policy's cap applies.`);
      if (resumed) world.log(`Continuing from the best attempt on ${resumed.kept.branch} (made on ${resumed.kept.baseSha.slice(0, 7)})${budgetUsd ? ` with a cost budget of $${budgetUsd.toFixed(2)}` : ' with a fresh budget'}.`);
      const withKept = (text: string, report: { keptAttempt?: KeptAttempt }) => (report.keptAttempt ? `${text.replace(/\n*$/, '')}\n\n${renderKept(report.keptAttempt)}\n` : text);
      return {
        task,
        git,
        // `/agent-fix continue`: from the kept attempt, with a fresh budget; `continue budget=$N` sets its cost cap
        ...(resumed ? { plan: { change: { by: 'model', from: 'attempt', tree: resumed.tree, note: resumed.note }, ...(budgetUsd ? { maxCostUsd: budgetUsd } : {}) } } : {}),
        destination: {
          commentOn: issueNumber,
          retryHint: RETRY_HINT,
          prBase: o.defaultBranch,
          keep: (fix, hooks) =>
            keepAttempt({ git, task, report: fix.report, tree: fix.bestAttempt!.tree, baseSha: fix.baseSha, identity: o.identity, claim: hooks.claim, log: world.log }),
          deliver: (fix, hooks) =>
            deliverPullRequest({
              git,
              github,
              branch: branchForTask(task.key),
              baseSha: fix.baseSha,
              baseBranch: o.defaultBranch,
              tree: fix.tree as string,
              commitMessage: `agent-fix: ${task.title}\n\n${fix.report.summary}\n\n${task.issueNumber ? `Fixes #${task.issueNumber}` : ''}`.trim(),
              identity: o.identity,
              prTitle: renderPrTitle(task),
              prBody: (branch) => withProofMarker(withAppendix(renderPrBody({ ...fix.report, runUrl: world.runUrl, branch }), o.appendix), fix.report),
              draft: draftFor(world.settings, fix.report),
              redact,
              log: world.log,
              retryHint: RETRY_HINT,
              claim: hooks.claim,
              onPushed: hooks.onPushed,
            }),
        },
        texts: {
          start: (runUrl) =>
            resumed
              ? `${renderStartComment(task, runUrl).replace(/\n*$/, '')}\n\nContinuing from the best attempt kept on \`${resumed.kept.branch}\` with a fresh budget${budgetUsd ? ` (cost cap $${budgetUsd.toFixed(2)}, as asked)` : ''}.\n`
              : renderStartComment(task, runUrl),
          final: (report) => withAppendix(withKept(renderFinalComment(report), report), o.appendix),
          summary: (report) => withAppendix(withKept(renderReportMarkdown(report, { diff: true }), report), o.appendix, Infinity),
          superseded: ({ mine, report }) => {
            const own = report ? ` (its own result: ${report.status}, ${report.reason})` : '';
            const what = `A newer agent-fix run has taken over issue #${issueNumber}; this run${mine ? ` (${mine.id}, attempt ${mine.attempt})` : ''} yields to it${own}.`;
            return renderStoppedSummary('Superseded', what, 'This run pushed nothing and opened no pull request; the issue comment is left to the newer run.');
          },
        },
      };
    },
  };
}
