/**
 * The follow-up kind: a maintainer asks for more on agent-fix's own pull request (a review that
 * requested changes, a `/agent-fix` inline review comment, or a `/agent-fix` comment on it).
 *
 *   read the pull request (open, own) and the request from the API (text edited after the
 *   trigger, or by someone else, is dropped) → fetch and check out the branch's CURRENT head
 *   (a human's commits are kept and built upon) → the task: the request, fenced as data, with
 *   the original issue and the branch's change as context → the fix, whose baseline is the PR
 *   head and whose gate also keeps the original fix's tests (fix/follow-up-gate.ts) → one new
 *   commit on top of the verified head, leased on it (`moved`: nothing pushed) → the PR body
 *   gets the round (earlier rounds folded), each inline comment a reply in its thread, a
 *   comment command one reply; the sticky comment on the pull request reports as for any run.
 */
import path from 'node:path';
import type { Identity } from '../ports/git.js';
import type { PullRequestDetails, ReviewGitHubPort } from '../ports/review.js';
import type { PullTrigger } from '../trigger/types.js';
import type { Task } from '../task/types.js';
import { commandInstructions, reviewInstructions, type FollowUpInstructions } from '../task/follow-up.js';
import { parseFollowUpCommand } from '../trigger/command.js';
import { fenceUntrusted, sanitizeOneLine, sanitizeUntrusted } from '../task/sanitize.js';
import { asksForTest, requiredOriginal } from '../fix/follow-up-gate.js';
import { publishFollowUpWithRetry } from '../publish/follow-up.js';
import { renderReportMarkdown, renderStoppedSummary } from '../report/render.js';
import {
  foldRounds,
  renderFollowUpFinal,
  renderFollowUpStart,
  renderRound,
  renderThreadReply,
  roundsIn,
  type FollowUpFacts,
} from '../report/follow-up.js';
import { branchFacts, forFollowUp, originalOf, ownOpenPull, taskKeyOf } from './pull.js';
import type { StoryKind, StoryWorld } from './kind.js';
import { errorMessage } from '../errors.js';

const RETRY_HINT = 'ask again (a new review or a `/agent-fix` comment on the pull request)';
const MAX_DIFF_CHARS = 12_000;

type InstructionsTrigger = PullTrigger & { command: { verb: 'instructions' } };

function after(iso: string, cutoff: string): boolean {
  const a = Date.parse(iso);
  const b = Date.parse(cutoff);
  // Unknown times count as "after": fail closed.
  return !(a <= b);
}

/** What was asked, read from the API now; a skip when it cannot be acted on. */
export async function readRequest(
  trigger: InstructionsTrigger,
  review: ReviewGitHubPort,
  github: NonNullable<StoryWorld['github']>,
): Promise<(FollowUpInstructions & { where: string; whereUrl?: string }) | { skip: string }> {
  const actor = trigger.actor.toLowerCase();
  if (trigger.via === 'review') {
    if (trigger.reviewId === null) return { skip: 'the review event names no review.' };
    const r = await review.getReview(trigger.prNumber, trigger.reviewId);
    if (r.author.toLowerCase() !== actor) return { skip: `review ${r.id} was written by @${sanitizeOneLine(r.author, 100)}, not by @${trigger.actor} who triggered the run.` };
    if (r.state !== 'CHANGES_REQUESTED') return { skip: `review ${r.id} no longer requests changes (it is ${r.state.toLowerCase()}); nothing to follow up.` };
    const comments = await review.listReviewComments(trigger.prNumber, r.id);
    return { ...reviewInstructions(r, comments, trigger.triggeredAt), where: 'a review', whereUrl: r.url };
  }
  if (trigger.commentId === null) return { skip: 'the event names no comment.' };
  let text: string;
  let at: { commentId: number | null; path: string | null; line: number | null };
  let where: string;
  let whereUrl: string;
  let author: string;
  if (trigger.via === 'review-comment') {
    const c = await review.getReviewComment(trigger.commentId);
    // A comment submitted with a review that requests changes is served by that review's run (all its comments at once).
    if (c.reviewId !== null) {
      const parent = await review.getReview(trigger.prNumber, c.reviewId).catch(() => null);
      if (parent?.state === 'CHANGES_REQUESTED') return { skip: `review comment ${c.id} belongs to a review that requests changes; the review's own run follows up on all its comments.` };
    }
    if (after(c.updatedAt, trigger.triggeredAt)) return { skip: `review comment ${c.id} was edited after it triggered the run; agent-fix acts only on what was asked then. Comment again.` };
    ({ author } = c);
    text = c.body;
    at = { commentId: c.id, path: c.path, line: c.line };
    where = `a review comment on \`${sanitizeOneLine(c.path, 200).replace(/`/g, "'")}${c.line ? `:${c.line}` : ''}\``;
    whereUrl = c.url;
  } else {
    const c = (await github.listComments(trigger.prNumber)).find((x) => x.id === trigger.commentId);
    if (!c) return { skip: `comment ${trigger.commentId} no longer exists on #${trigger.prNumber}.` };
    if (after(c.updatedAt || c.createdAt, trigger.triggeredAt)) return { skip: `comment ${c.id} was edited after it triggered the run; agent-fix acts only on what was asked then. Comment again.` };
    ({ author } = c);
    text = c.body;
    at = { commentId: null, path: null, line: null };
    where = 'a comment';
    whereUrl = c.url;
  }
  if (author.toLowerCase() !== actor) return { skip: `the comment was written by @${sanitizeOneLine(author, 100)}, not by @${trigger.actor} who triggered the run.` };
  const parsed = parseFollowUpCommand(text);
  if (!parsed || parsed.verb !== 'instructions') return { skip: 'the comment is no longer an `/agent-fix` request with instructions.' };
  return { ...commandInstructions(parsed.text, author, at), where, whereUrl };
}

/** The follow-up task: the request first, then the original task and the branch's change as context. */
async function buildTask(
  key: string,
  pr: PullRequestDetails,
  asked: FollowUpInstructions,
  diff: string,
  github: NonNullable<StoryWorld['github']>,
): Promise<Task> {
  const parts = [
    asked.goal,
    'How the follow-up is verified: the test command runs on the branch head before your change and after it; nothing that passes may fail, and the tests of the original fix must stay and pass. ' +
      'A follow-up needs no new failing test; add or change a test only when the request asks for one (then it must pass).',
  ];
  const issue = /^issue-(\d+)$/.exec(key);
  if (issue) {
    const original = await github.getIssue(Number(issue[1])).catch(() => null);
    if (original) {
      parts.push(
        fenceUntrusted(
          `Context: the issue #${original.number} that the pull request fixes (already fixed and verified; do not redo it)`,
          `Title: ${sanitizeOneLine(original.title, 200)}\n\n${sanitizeUntrusted(original.body, { maxChars: 6_000 }) || '(no description)'}`,
        ),
      );
    }
  }
  if (diff) {
    const shown = diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff cut; read the files for the rest)` : diff;
    parts.push(fenceUntrusted(`Context: the change the pull request #${pr.number} makes so far (its branch against ${sanitizeOneLine(pr.base, 100)}); the working tree is that branch's head`, shown));
  }
  const first = asked.requests[0]?.text ?? '';
  return { key, title: `Follow-up on #${pr.number}: ${sanitizeOneLine(first, 80) || 'review feedback'}`, goal: parts.join('\n\n') };
}

export function followUpKind(
  trigger: InstructionsTrigger,
  o: { review: ReviewGitHubPort; identity: Identity; repository: string; transcriptDir: string; meta: Record<string, unknown> },
): StoryKind {
  return {
    name: 'follow-up',
    actor: trigger.actor,
    // Whatever the policy's triggers allow, a follow-up pushes to a branch: only for someone who can write.
    minPermission: 'write',
    transcript: { meta: { ...o.meta, pullRequest: trigger.prNumber, via: trigger.via }, path: path.join(o.transcriptDir, `transcript-pr-${trigger.prNumber}-${Date.now()}.json`) },
    doing: () => `following up on pull request #${trigger.prNumber}`,
    async prepare(world) {
      const { github, log } = world;
      if (!github) throw new Error('the follow-up story needs the GitHub API');
      const redact = (t: string) => world.redactor.redact(t);
      const pr = await ownOpenPull(o.review, trigger.prNumber, o.repository);
      if ('skip' in pr) return pr;
      const asked = await readRequest(trigger, o.review, github);
      if ('skip' in asked) return asked;
      if (!asked.requests.length) return { skip: `nothing to do on #${pr.number}: ${asked.dropped.join('; ') || 'the request carried no instructions'}.` };
      for (const d of asked.dropped) log(`Left out of the request: ${d}`);

      const git = await world.openGit();
      const head = await git.fetchBranch('origin', pr.head);
      if (head === null) return { skip: `the branch ${pr.head} of #${pr.number} no longer exists.` };
      if (head !== pr.headSha) log(`${pr.head} is at ${head.slice(0, 7)} (the API said ${pr.headSha.slice(0, 7)}); the follow-up starts from the branch as fetched.`);
      log(`Checking out ${head} (the head of ${pr.head}, commits by anyone kept)`);
      await git.checkoutDetached('origin', head);
      const baseTip = await git.fetchBranch('origin', pr.base);
      const branch = baseTip ? await branchFacts(git, head, baseTip) : { fork: null, diff: '', testFiles: [] };
      const key = taskKeyOf(pr.head);
      const task = await buildTask(key, pr, asked, branch.diff, github);
      const gate = originalOf(pr.body, branch.testFiles, asked.requests.some((r) => asksForTest(r.text)));
      log(`Follow-up of #${pr.number}: ${asked.requests.length} request(s); original fix's tests: ${gate.source}${gate.wantsTest ? '; the request asks for a test' : ''}`);
      const f: FollowUpFacts = {
        taskKey: key,
        prNumber: pr.number,
        actor: trigger.actor,
        where: asked.where,
        whereUrl: asked.whereUrl,
        requests: asked.requests,
        dropped: asked.dropped,
        startSha: head,
        round: roundsIn(pr.body) + 1,
      };
      return {
        task,
        git,
        plan: { change: { by: 'model', from: 'checkout' }, followUp: gate },
        revise: async (done) => {
          const report = done.report;
          if (report.baseline) f.original = { source: gate.source, ids: requiredOriginal(report.baseline, gate) };
          // The fix's words are a first fix's; a follow-up opens no pull request, it pushes to one.
          return { ...done, report: { ...report, detail: forFollowUp(report.detail) } };
        },
        destination: {
          commentOn: pr.number,
          retryHint: RETRY_HINT,
          prBase: pr.base,
          deliver: async (fix, hooks) => {
            const message = `agent-fix: follow-up on #${pr.number}\n\n${sanitizeOneLine(asked.requests.map((r) => r.text).join(' / '), 300)}\n\n${fix.report.summary}`.trim();
            const out = await publishFollowUpWithRetry(git, { remote: 'origin', branch: pr.head, startSha: head, tree: fix.tree as string, message, identity: o.identity, claim: hooks.claim }, log);
            switch (out.kind) {
              case 'pushed': {
                hooks.onPushed(pr.head);
                f.pushed = { sha: out.sha, previousSha: out.previousSha };
                log(`Pushed ${out.sha} on top of ${out.previousSha} to ${pr.head}`);
                // The body as it is now (a maintainer may have edited it meanwhile), with this round on top.
                // The push is the delivery; a body that could not be updated is logged, the comment still reports.
                try {
                  const now = await o.review.getPullRequest(pr.number);
                  const body = foldRounds(now.body, { number: f.round, content: renderRound(fix.report, f, world.runUrl) }, null);
                  await github.updatePullRequest(pr.number, { title: now.title, body: redact(body) });
                } catch (e) {
                  world.warn?.(`The pull request body of #${pr.number} could not be updated with round ${f.round}: ${redact(errorMessage(e))}`);
                }
                return { kind: 'pull-request', branch: pr.head, prNumber: pr.number, prUrl: pr.url, pr: 'updated', sha: out.sha };
              }
              case 'moved':
                f.notSeen = { remoteSha: out.remoteSha, commits: out.commits };
                return { kind: 'human-commits', detail: `A follow-up was verified on ${head.slice(0, 7)}, but ${pr.head} moved to ${out.remoteSha.slice(0, 7)} while agent-fix worked (${out.commits.length} commit(s) it did not see); nothing was pushed. ${RETRY_HINT[0].toUpperCase()}${RETRY_HINT.slice(1)} to build on them.` };
              case 'unchanged':
                return { kind: 'rejected', detail: 'The verified follow-up changes nothing relative to the branch head; nothing was pushed.' };
              case 'branch-gone':
                return { kind: 'rejected', detail: `${pr.head} was deleted while agent-fix worked; nothing was pushed.` };
              case 'rejected':
                return { kind: 'rejected', detail: `Pushing the follow-up to ${pr.head} was rejected: ${redact(out.reason)}` };
            }
          },
          answer: async (report) => {
            // One failed reply does not keep the others from being written.
            const failed: string[] = [];
            for (const req of f.requests) {
              if (req.commentId === null) continue;
              await o.review.replyToReviewComment(pr.number, req.commentId, redact(renderThreadReply(report, f, req))).catch((e: unknown) => failed.push(`comment ${req.commentId}: ${errorMessage(e)}`));
            }
            // A `/agent-fix` comment is answered by the round's status comment itself (texts.final): one comment per round.
            if (failed.length) throw new Error(`${failed.length} reply(ies) could not be written: ${failed.join('; ')}`);
          },
        },
        texts: {
          start: (runUrl) => renderFollowUpStart(f, runUrl),
          final: (report) => renderFollowUpFinal(report, f),
          summary: (report) => `## agent-fix: follow-up on #${pr.number}\n\n${renderReportMarkdown(report, { diff: true })}`,
          superseded: ({ mine, report }) => {
            const own = report ? ` (its own result: ${report.status}, ${report.reason})` : '';
            return renderStoppedSummary(
              'Superseded',
              `A newer agent-fix run has taken over pull request #${pr.number}; this run${mine ? ` (${mine.id}, attempt ${mine.attempt})` : ''} yields to it${own}.`,
              'This run pushed nothing; the pull request comment is left to the newer run.',
            );
          },
        },
      };
    },
    skipSummary: (reason) => renderStoppedSummary('Skipped', `The follow-up on pull request #${trigger.prNumber} was not made: ${reason}`, 'Nothing was pushed.'),
  };
}
