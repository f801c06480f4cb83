/**
 * The rebase kind: `/agent-fix rebase` on agent-fix's own pull request.
 *
 *   read the pull request (open, own) → fetch its head and its base's tip → update the branch
 *   on the base (publish/rebase.ts: only the bot's commits → replayed onto the base; a human
 *   commit on the branch → the base merged in instead, nothing of theirs rewritten) → the gate
 *   runs on the PR head (baseline) and on the updated commit, and the original fix's tests must
 *   still hold (fix.ts `candidate` + `followUp`) → push with the head as the lease → report.
 *
 * Already up to date, unrelated histories or a conflict end before any test run with one reply
 * on the pull request saying so (a conflict names its files); nothing is pushed. Handing a
 * conflict to the model as a task is not done by this version.
 */
import path from 'node:path';
import type { Identity } from '../ports/git.js';
import type { ReviewGitHubPort } from '../ports/review.js';
import type { PullTrigger } from '../trigger/types.js';
import { runFix } from '../fix.js';
import { updateOnBase } from '../publish/rebase.js';
import { pushUpdatedWithRetry } from '../publish/rebase.js';
import { renderReportMarkdown, renderStoppedSummary } from '../report/render.js';
import { renderRebaseFinal, renderRebaseNote, renderRebaseStart, type RebaseFacts } from '../report/follow-up.js';
import { branchFacts, forFollowUp, originalOf, ownOpenPull, taskKeyOf } from './pull.js';
import type { StoryKind } from './kind.js';

const RETRY_HINT = 'comment `/agent-fix rebase` again';

export function rebaseKind(
  trigger: PullTrigger & { command: { verb: 'rebase' } },
  o: { review: ReviewGitHubPort; identity: Identity; repository: string; transcriptDir: string; meta: Record<string, unknown> },
): StoryKind {
  return {
    name: 'rebase',
    actor: trigger.actor,
    minPermission: 'write',
    transcript: { meta: { ...o.meta, pullRequest: trigger.prNumber, command: 'rebase' }, path: path.join(o.transcriptDir, `transcript-rebase-${trigger.prNumber}-${Date.now()}.json`) },
    doing: () => `updating pull request #${trigger.prNumber} on its base`,
    skipSummary: (reason) => renderStoppedSummary('Skipped', `\`/agent-fix rebase\` on pull request #${trigger.prNumber} did not update it: ${reason}`, 'Nothing was pushed.'),
    async prepare(world) {
      const { github, log } = world;
      if (!github) throw new Error('the rebase story needs the GitHub API');
      const redact = (t: string) => world.redactor.redact(t);
      const pr = await ownOpenPull(o.review, trigger.prNumber, o.repository);
      if ('skip' in pr) return pr;
      const git = await world.openGit();
      const head = await git.fetchBranch('origin', pr.head);
      if (head === null) return { skip: `the branch ${pr.head} of #${pr.number} no longer exists.` };
      const baseTip = await git.fetchBranch('origin', pr.base);
      if (baseTip === null) return { skip: `the base branch ${pr.base} of #${pr.number} no longer exists.` };
      const note = async (text: string) => {
        await github.createComment(pr.number, redact(renderRebaseNote({ actor: trigger.actor, branch: pr.head, base: pr.base, head, baseSha: baseTip, note: text })));
        return { skip: text };
      };
      const updated = await updateOnBase(git, { head, base: baseTip, baseName: pr.base, branch: pr.head, identity: o.identity });
      log(`Update of ${pr.head} on ${pr.base}: ${updated.kind}`);
      switch (updated.kind) {
        case 'up-to-date':
          return note(`the branch already contains \`${pr.base}\`; nothing to do.`);
        case 'unrelated':
          return note(`the branch and \`${pr.base}\` share no history; nothing was pushed.`);
        case 'conflict': {
          const files = updated.files.slice(0, 20).map((f) => `\`${f.replace(/`/g, "'")}\``).join(', ');
          const how = updated.how === 'rebase' ? `replaying agent-fix's commits onto \`${pr.base}\` conflicts (at "${updated.at.replace(/[`\n]/g, ' ').slice(0, 120)}")` : `merging \`${pr.base}\` into the branch conflicts`;
          return note(`${how} in ${updated.files.length} file(s): ${files}${updated.files.length > 20 ? ', …' : ''}. Nothing was pushed: resolve the conflict by hand on the branch, or close this pull request and trigger agent-fix again on the issue so it starts from the current \`${pr.base}\`.`);
        }
      }
      await git.checkoutDetached('origin', head);
      const branch = await branchFacts(git, head, baseTip);
      const key = taskKeyOf(pr.head);
      const gate = originalOf(pr.body, branch.testFiles, false);
      const how: RebaseFacts['how'] = updated.kind === 'rebased' ? 'rebased' : 'merged';
      const f: RebaseFacts = {
        taskKey: key,
        actor: trigger.actor,
        branch: pr.head,
        base: pr.base,
        head,
        baseSha: baseTip,
        how,
        updated: updated.sha,
        humanCommits: updated.kind === 'merged' ? updated.humanCommits : [],
      };
      const summary = updated.kind === 'rebased' ? `${updated.replayed} commit(s) of agent-fix replayed onto ${pr.base} ${baseTip.slice(0, 7)}` : `${pr.base} ${baseTip.slice(0, 7)} merged into the branch (human commits on it are kept)`;
      const task = { key, title: `Update #${pr.number} on ${pr.base}`, goal: `Bring the branch of pull request #${pr.number} up to date with ${pr.base}.` };
      return {
        task,
        git,
        fix: async (deps) => {
          const done = await runFix(task, { ...deps, candidate: { tree: `${updated.sha}^{tree}`, summary }, followUp: gate });
          return { ...done, report: { ...done.report, detail: forFollowUp(done.report.detail) } };
        },
        destination: {
          commentOn: pr.number,
          retryHint: RETRY_HINT,
          prBase: pr.base,
          deliver: async (_fix, hooks) => {
            const out = await pushUpdatedWithRetry(git, { remote: 'origin', branch: pr.head, head, sha: updated.sha }, log);
            switch (out.kind) {
              case 'pushed':
                hooks.onPushed(pr.head);
                f.pushed = { sha: out.sha, previousSha: out.previousSha };
                log(`Pushed ${out.sha} to ${pr.head} (was ${out.previousSha})`);
                return { kind: 'pull-request', branch: pr.head, prNumber: pr.number, prUrl: pr.url, pr: 'updated' };
              case 'moved':
                f.moved = out.remoteSha;
                return { kind: 'human-commits', detail: `The update was verified on ${head.slice(0, 7)}, but ${pr.head} moved to ${out.remoteSha.slice(0, 7)} while agent-fix worked; nothing was pushed. ${RETRY_HINT[0].toUpperCase()}${RETRY_HINT.slice(1)}.` };
              case 'branch-gone':
                return { kind: 'rejected', detail: `${pr.head} was deleted while agent-fix worked; nothing was pushed.` };
              case 'rejected':
                return { kind: 'rejected', detail: `Pushing the updated ${pr.head} was rejected: ${redact(out.reason)}` };
            }
          },
        },
        texts: {
          start: (runUrl) => renderRebaseStart(f, runUrl),
          final: (report) => renderRebaseFinal(report, f),
          summary: (report) => `## agent-fix: \`/agent-fix rebase\` on #${pr.number}\n\n${renderReportMarkdown(report)}`,
          superseded: ({ mine }) =>
            renderStoppedSummary(
              'Superseded',
              `A newer agent-fix run has taken over pull request #${pr.number}; this run${mine ? ` (${mine.id}, attempt ${mine.attempt})` : ''} yields to it.`,
              'This run pushed nothing.',
            ),
        },
      };
    },
  };
}
