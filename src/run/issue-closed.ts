/**
 * An issue was closed (`issues: [closed]`): agent-fix's pull request for it, when one is still
 * open, has lost its reason to exist. It is closed with a note naming who closed the issue and
 * how (GitHub's `state_reason`); its branch `agent-fix/issue-<n>` is kept, so a maintainer can
 * reopen the pull request (or delete the branch) by hand. A merged pull request closes its issue
 * itself and is not open any more: nothing to do. Only someone with write permission closes it
 * this way: an issue author without it closing their own issue leaves the pull request open.
 * Input `close-on-issue-close: false` turns this off.
 */
import type { IssueClosedTrigger } from '../trigger/types.js';
import { branchForTask } from '../publish/branch.js';
import { renderStoppedSummary } from '../report/render.js';
import type { LifecycleKind } from './lifecycle.js';

const STATE_REASON: Record<string, string> = { completed: 'as completed', not_planned: 'as not planned', duplicate: 'as a duplicate' };

/** "closed by @x as not planned" (pure). */
export function closedHow(t: Pick<IssueClosedTrigger, 'actor' | 'stateReason'>): string {
  const how = t.stateReason ? STATE_REASON[t.stateReason] ?? `(state_reason: ${t.stateReason})` : '';
  return `closed by @${t.actor}${how ? ` ${how}` : ''}`;
}

/** The note left on the pull request before it is closed (pure). */
export function renderClosingNote(t: IssueClosedTrigger, branch: string): string {
  return [
    `**agent-fix** closes this pull request: issue #${t.issueNumber} was ${closedHow(t)} without this pull request being merged.`,
    '',
    `The branch \`${branch}\` is kept: reopen this pull request to carry on with it, or delete the branch.`,
  ].join('\n');
}

export function issueClosedKind(trigger: IssueClosedTrigger, o: { defaultBranch: string }): LifecycleKind {
  const n = trigger.issueNumber;
  const branch = branchForTask(`issue-${n}`);
  return {
    name: 'issue closed',
    actor: trigger.actor,
    minPermission: 'write',
    refused: (reason) =>
      renderStoppedSummary('Skipped', `Issue #${n} was ${closedHow(trigger)}, but agent-fix closes its pull request only for someone with write permission: ${reason}`, `agent-fix's pull request for #${n} (branch \`${branch}\`), if there is one, stays open.`),
    async act(world) {
      const github = world.github!;
      if (!world.settings.closeOnIssueClose) {
        const note = `issue #${n} was ${closedHow(trigger)}; input close-on-issue-close is false, so agent-fix's pull request for it (branch ${branch}), if any, stays open.`;
        return { reason: 'close-on-issue-close-off', note, summary: renderStoppedSummary('Skipped', `Issue #${n} was ${closedHow(trigger)}.`, `The input \`close-on-issue-close\` is \`false\`: agent-fix's pull request for it (branch \`${branch}\`), if there is one, stays open.`) };
      }
      const pr = await github.findOpenPullRequest(branch, o.defaultBranch);
      if (!pr) {
        const note = `issue #${n} was ${closedHow(trigger)}; agent-fix has no open pull request for it (none was opened, or it was merged or closed already): nothing to do.`;
        return { reason: 'no-open-pull-request', note, summary: renderStoppedSummary('Skipped', `Issue #${n} was ${closedHow(trigger)}.`, `agent-fix has no open pull request from \`${branch}\` into \`${o.defaultBranch}\` (none was opened, or it was merged or closed already): nothing was changed.`) };
      }
      await github.createComment(pr.number, renderClosingNote(trigger, branch));
      const closed = await github.closePullRequest(pr.number);
      const note = `issue #${n} was ${closedHow(trigger)}: closed pull request #${pr.number} (${closed.url}) with a note; the branch ${branch} is kept.`;
      return {
        reason: 'pull-request-closed',
        note,
        prNumber: pr.number,
        prUrl: closed.url,
        branch,
        summary: `### agent-fix: pull request closed\n\nIssue #${n} was ${closedHow(trigger)} without agent-fix's pull request being merged, so [#${pr.number}](${closed.url}) was closed with a note.\n\nThe branch \`${branch}\` is kept: reopen the pull request to carry on with it, or delete the branch.\n`,
      };
    },
  };
}
