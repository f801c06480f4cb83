/**
 * The rebase kind: `/agent-fix rebase` on agent-fix's own pull request.
 *
 *   read the pull request (open, own) → fetch its head and its base's tip → update the branch
 *   on the base (publish/rebase.ts: only the bot's commits → replayed onto the base; a human
 *   commit on the branch → the base merged in instead, nothing of theirs rewritten) → the gate
 *   runs on the PR head (baseline) and on the updated commit, and the original fix's tests must
 *   still hold (fix.ts `candidate` + `followUp`) → push with the head as the lease → report.
 *
 * A conflict is the model's task: it starts from the merge with the base (conflict markers in
 * the conflicting files), and its resolution is verified the same way (no marker may be left);
 * the result is pushed as one commit on the base (bot-only branch) or a merge commit (a human
 * commit on the branch). Already up to date or unrelated histories end before any test run with
 * one reply on the pull request; nothing is pushed.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Identity } from '../ports/git.js';
import type { ReviewGitHubPort } from '../ports/review.js';
import type { PullTrigger } from '../trigger/types.js';
import type { FixPlan } from '../fix.js';
import { updateOnBase } from '../publish/rebase.js';
import { pushUpdatedWithRetry } from '../publish/rebase.js';
import { renderReportMarkdown, renderStoppedSummary } from '../report/render.js';
import { renderRebaseFinal, renderRebaseNote, renderRebaseStart, type RebaseFacts } from '../report/follow-up.js';
import { branchFacts, forFollowUp, originalOf, ownOpenPull, taskKeyOf } from './pull.js';
import type { Task } from '../task/types.js';
import { foreignCommits } from '../publish/push.js';
import { fenceUntrusted } from '../task/sanitize.js';
import type { Prepared, StoryKind } from './kind.js';

const RETRY_HINT = 'comment `/agent-fix rebase` again';
const MAX_DIFF_CHARS = 10_000;
const MARKER_LINE = /^(?:<{7}|={7}|>{7})(?:\s|$)/m;

/** The conflicting files that still hold a conflict marker line. */
async function markersLeft(root: string, files: string[]): Promise<string[]> {
  const left: string[] = [];
  for (const f of files) {
    const text = await readFile(path.join(root, f), 'utf8').catch(() => '');
    if (MARKER_LINE.test(text)) left.push(f);
  }
  return left;
}

/** Only the parts of a unified diff that touch `files`. */
function diffOf(diff: string, files: string[]): string {
  return diff
    .split(/(?=^diff --git )/m)
    .filter((part) => files.some((f) => part.startsWith(`diff --git a/${f} `) || part.includes(` b/${f}\n`)))
    .join('');
}

function capped(text: string): string {
  return text.length > MAX_DIFF_CHARS ? `${text.slice(0, MAX_DIFF_CHARS)}\n… (cut; read the files for the rest)` : text;
}

/** The task of a conflicted update: resolve the markers so both sides' changes survive. */
export function conflictGoal(prNumber: number, base: string, files: string[], prDiff: string, baseDiff: string): string {
  const list = files.map((f) => `- ${f}`).join('\n');
  const parts = [
    `Pull request #${prNumber} (agent-fix's own fix) is being brought up to date with its base branch ${base}, and the two changed the same lines. ` +
      `In the working tree ${base} is already merged into the pull request's branch; these files hold git's conflict markers (<<<<<<< the pull request's side, ======= , >>>>>>> ${base}'s side) where both changed the same lines:\n${list}\n` +
      `Resolve every conflict so that both changes survive: the pull request's fix and ${base}'s change. Remove every conflict marker line. Change nothing else; the tests of the pull request and of ${base} must pass.`,
  ];
  if (prDiff) parts.push(fenceUntrusted(`The pull request's change (its branch against the fork point)`, capped(prDiff)));
  const theirs = diffOf(baseDiff, files);
  if (theirs) parts.push(fenceUntrusted(`${base}'s change to the conflicting files (since the fork point)`, capped(theirs)));
  return parts.join('\n\n');
}

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
      }
      await git.checkoutDetached('origin', head);
      const branch = await branchFacts(git, head, baseTip);
      const key = taskKeyOf(pr.head);
      const gate = originalOf(pr.body, branch.testFiles, false);
      const f: RebaseFacts = {
        taskKey: key,
        actor: trigger.actor,
        branch: pr.head,
        base: pr.base,
        head,
        baseSha: baseTip,
        how: updated.kind === 'rebased' || (updated.kind === 'conflict' && updated.how === 'rebase') ? 'rebased' : 'merged',
        updated: updated.kind === 'conflict' ? '' : updated.sha,
        humanCommits: updated.kind === 'merged' ? updated.humanCommits : [],
      };
      let task: Task;
      let plan: FixPlan;
      let revise: NonNullable<Prepared['revise']>;
      if (updated.kind === 'conflict') {
        // The conflict is the model's task: it starts from the merge with the base, conflict
        // markers in the conflicting files, and is verified like any change (baseline: the PR head).
        const merged = await git.mergeTree(head, baseTip);
        const files = merged.conflicts.length ? merged.conflicts : updated.files;
        f.conflicts = files;
        if (f.how === 'merged') f.humanCommits = foreignCommits(await git.commitsBetween(baseTip, head), o.identity);
        log(`Conflicts in ${files.join(', ')}: handed to the model`);
        task = { key, title: `Resolve the conflicts of #${pr.number} with ${pr.base}`, goal: conflictGoal(pr.number, pr.base, files, branch.diff, branch.fork ? await git.diff(`${branch.fork}^{tree}`, `${baseTip}^{tree}`) : '') };
        plan = { change: { by: 'model', from: 'tree', tree: merged.tree }, followUp: gate };
        revise = async (done) => {
          const left = done.report.status === 'fixed' ? await markersLeft(git.root, files) : [];
          if (left.length) {
            const detail = `Conflict markers are still in ${left.map((x) => `\`${x}\``).join(', ')}; nothing was pushed to the pull request.`;
            return { ...done, tree: null, report: { ...done.report, status: 'not-fixed', reason: 'tests-still-failing', detail } };
          }
          const resolved = done.report.status === 'fixed'
            ? `The update conflicted in ${files.length} file(s) (${files.map((x) => `\`${x}\``).join(', ')}); the model resolved the conflicts. ${done.report.detail.replace("before the follow-up and passes after it", "and on the resolved update")}`
            : done.report.detail;
          return { ...done, report: { ...done.report, detail: forFollowUp(resolved) } };
        };
      } else {
        const summary = updated.kind === 'rebased' ? `${updated.replayed} commit(s) of agent-fix replayed onto ${pr.base} ${baseTip.slice(0, 7)}` : `${pr.base} ${baseTip.slice(0, 7)} merged into the branch (human commits on it are kept)`;
        const sha = updated.sha;
        task = { key, title: `Update #${pr.number} on ${pr.base}`, goal: `Bring the branch of pull request #${pr.number} up to date with ${pr.base}.` };
        plan = { change: { by: 'candidate', tree: `${sha}^{tree}`, summary }, followUp: gate };
        revise = async (done) => {
          return { ...done, report: { ...done.report, detail: forFollowUp(done.report.detail) } };
        };
      }
      /** The commit to push: the update itself, or (a resolved conflict) the verified tree as a merge or one rebased commit. */
      const commitOf = async (tree: string): Promise<string> => {
        if (!f.conflicts) return f.updated;
        const what = `the conflicts in ${f.conflicts.join(', ')} were resolved by agent-fix and verified by the tests`;
        if (f.how === 'merged') return git.commitTree(tree, [head, baseTip], `Merge ${pr.base} into ${pr.head}\n\nThe merge conflicted; ${what}.`, o.identity);
        const subjects = (await git.commitsBetween(baseTip, head)).map((c) => c.subject).reverse();
        return git.commitTree(tree, baseTip, `agent-fix: ${pr.title}\n\nThe branch's commits (${subjects.join('; ')}) replayed onto ${pr.base} ${baseTip.slice(0, 7)} as one commit; ${what}.`, o.identity);
      };
      return {
        task,
        git,
        plan,
        revise,
        destination: {
          commentOn: pr.number,
          retryHint: RETRY_HINT,
          prBase: pr.base,
          deliver: async (done, hooks) => {
            const sha = await commitOf(done.tree as string);
            f.updated = sha;
            const out = await pushUpdatedWithRetry(git, { remote: 'origin', branch: pr.head, head, sha }, log);
            switch (out.kind) {
              case 'pushed':
                hooks.onPushed(pr.head);
                f.pushed = { sha: out.sha, previousSha: out.previousSha };
                log(`Pushed ${out.sha} to ${pr.head} (was ${out.previousSha})`);
                return { kind: 'pull-request', branch: pr.head, prNumber: pr.number, prUrl: pr.url, pr: 'updated', sha: out.sha };
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
