/**
 * The issue kind: a labelled issue, a `/agent-fix` comment or a dispatch with an issue number.
 * The task is the issue thread (sanitized), the progress comment sits on the issue, and the
 * verified change goes to `agent-fix/issue-<n>` with one pull request into the default branch.
 */
import path from 'node:path';
import type { Identity } from '../ports/git.js';
import type { IssueTrigger } from '../trigger/types.js';
import { buildIssueTask } from '../task/issue-task.js';
import { branchForTask } from '../publish/branch.js';
import { deliverPullRequest } from '../publish/deliver.js';
import { renderFinalComment, renderPrBody, renderPrTitle, renderReportMarkdown, renderStartComment, renderStoppedSummary } from '../report/render.js';
import { withAppendix, type StoryKind } from './kind.js';

const RETRY_HINT = 'trigger again';

export function issueKind(trigger: IssueTrigger, o: { defaultBranch: string; identity: Identity; transcriptDir: string; meta: Record<string, unknown>; appendix?: () => string }): StoryKind {
  const issueNumber = trigger.issueNumber;
  return {
    name: 'issue',
    actor: trigger.actor,
    transcript: { meta: o.meta, path: path.join(o.transcriptDir, `transcript-${issueNumber}-${Date.now()}.json`) },
    async prepare(world) {
      const github = world.github;
      if (!github) throw new Error('the issue story needs the GitHub API');
      const task = await buildIssueTask(github, trigger);
      const git = await world.openGit();
      const redact = (t: string) => world.redactor.redact(t);
      return {
        task,
        git,
        destination: {
          commentOn: issueNumber,
          retryHint: RETRY_HINT,
          prBase: o.defaultBranch,
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
              prBody: (branch) => withAppendix(renderPrBody({ ...fix.report, runUrl: world.runUrl, branch }), o.appendix),
              draft: world.settings.draft,
              redact,
              log: world.log,
              retryHint: RETRY_HINT,
              claim: hooks.claim,
              onPushed: hooks.onPushed,
            }),
        },
        texts: {
          start: (runUrl) => renderStartComment(task, runUrl),
          final: (report) => withAppendix(renderFinalComment(report), o.appendix),
          summary: (report) => withAppendix(renderReportMarkdown(report, { diff: true }), o.appendix, Infinity),
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
