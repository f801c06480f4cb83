/**
 * `/agent-fix stop` on an issue or a pull request: cancels the agent-fix run working on it,
 * through the run claim (publish/claim.ts). The runs at work on the thread are the ones whose
 * sticky comment there carries the claim of a workflow run that the Actions API still reports
 * as not completed. For each, this run claims the task in its place (its run id is newer) and
 * leaves a stop marker, in the sticky comment and in a reply of its own (which the running run's
 * progress updates cannot overwrite). The running run reads the comments at its checkpoints
 * (before starting, at each attempt (read while its tests run) and, at most every 20 seconds, before a model request,
 * before publishing) and stops at the first one after the request, with a final comment that
 * says who stopped it and what it left behind. The stop run itself needs neither the model nor a
 * checkout; with no run in progress it says so.
 */
import type { StopTrigger } from '../trigger/types.js';
import type { CommentData } from '../ports/github.js';
import { isNewer, parseClaim, stopMarker, withClaim, type RunId } from '../publish/claim.js';
import type { LifecycleKind } from './lifecycle.js';

const STICKY = /<!-- agent-fix:(\S+) -->/;

const status = (e: unknown): unknown => (e as { status?: unknown })?.status;

/** A run at work on the thread, as its sticky comment shows it. */
export interface Running {
  comment: CommentData;
  marker: string;
  claim: RunId;
  runUrl: string;
}

/** The sticky comments of the thread that name a run other than (and older than) `mine`. Pure. */
export function claimedComments(comments: CommentData[], mine: RunId): Omit<Running, 'runUrl'>[] {
  const out: Omit<Running, 'runUrl'>[] = [];
  for (const comment of comments) {
    if (!comment.author.endsWith('[bot]')) continue;
    const m = STICKY.exec(comment.body);
    const claim = parseClaim(comment.body);
    if (!m || !claim || claim.id === mine.id || !isNewer(mine, claim)) continue;
    out.push({ comment, marker: m[0], claim });
  }
  return out;
}

/** On agent-fix's pull request for issue N, a run on that issue (re-run, continue) updates the pull request: it is stopped too. */
const ISSUE_BRANCH = /^agent-fix\/issue-(\d+)$/;

/**
 * `headOf`: the head branch of an own pull request of this repository (null otherwise), to find the
 * issue a pull request of agent-fix belongs to.
 */
export function stopKind(trigger: StopTrigger, o: { headOf?: (prNumber: number) => Promise<string | null> } = {}): LifecycleKind {
  const n = trigger.number;
  const what = trigger.onPullRequest ? 'pull request' : 'issue';
  return {
    name: 'stop',
    actor: trigger.actor,
    minPermission: 'write',
    refused: (reason) => `### agent-fix: stop refused\n\n\`/agent-fix stop\` on ${what} #${n} was not carried out: ${reason}\n\nAny run in progress goes on.\n`,
    async act(world) {
      const github = world.github!;
      const mine = world.runId;
      if (!mine) throw new Error('`/agent-fix stop` needs the id of this workflow run (GITHUB_RUN_ID) to claim the task in place of the running run.');
      // the thread the command was written on, and for agent-fix's pull request for an issue, that issue
      const threads = [n];
      if (trigger.onPullRequest && o.headOf) {
        const issue = ISSUE_BRANCH.exec((await o.headOf(n)) ?? '');
        if (issue && Number(issue[1]) !== n) threads.push(Number(issue[1]));
      }
      const running: (Running & { thread: number })[] = [];
      for (const thread of threads) for (const c of claimedComments(await github.listComments(thread), mine).map((x) => ({ ...x, thread }))) {
        const run = await github.getWorkflowRun(c.claim.id).catch((e: unknown) => {
          if (status(e) === 404) return null;
          // The token may not read Actions (no `actions: read`): the run is taken to be in progress;
          // a stop marker for a run that has already ended changes nothing.
          if (status(e) === 403) {
            world.log(`Could not read workflow run ${c.claim.id} (give the job \`actions: read\`); stopping it in case it is still in progress.`);
            return { status: 'unknown', url: '' };
          }
          throw e;
        });
        if (run && run.status !== 'completed') running.push({ ...c, runUrl: run.url || `workflow run ${c.claim.id}` });
      }
      const by = trigger.actor;
      if (running.length === 0) {
        const note = `nothing to stop on ${what} #${n}: no agent-fix run is in progress there.`;
        await github.createComment(n, `**agent-fix**: @${by} asked to stop, but no agent-fix run is in progress on this ${what}; nothing was stopped.`);
        return { reason: 'nothing-to-stop', note, summary: `### agent-fix: nothing to stop\n\nNo agent-fix run is in progress on ${what} #${n} (no status comment there names a run that has not completed); nothing was stopped.\n` };
      }
      const markers: string[] = [];
      for (const r of running) {
        const marker = stopMarker({ marker: r.marker, run: mine, by });
        markers.push(marker);
        // an earlier stop request's line is replaced, not repeated
        const earlier = /\n*> ⏹ Stop requested by [^\n]*\n<!-- agent-fix-stop:[^\n]* -->\n?/g;
        const body = `${withClaim(r.comment.body, mine).replace(earlier, '').replace(/\n*$/, '')}\n\n> ⏹ Stop requested by @${by}: this run stops at its next checkpoint and then says here what it left behind.\n${marker}\n`;
        await github.updateComment(r.comment.id, body);
      }
      const runs = running.map((r) => (r.runUrl.startsWith('http') ? `[${r.claim.id}](${r.runUrl})` : String(r.claim.id))).join(', ');
      // A run on another thread (the issue of this pull request) reads that thread: the request is repeated there.
      for (const thread of new Set(running.map((r) => r.thread).filter((t) => t !== n))) {
        const there = running.filter((r) => r.thread === thread).map((r) => stopMarker({ marker: r.marker, run: mine, by }));
        await github.createComment(thread, `**agent-fix**: stop requested by @${by} on #${n}; the run working on this issue stops at its next checkpoint.\n${there.join('\n')}\n`);
      }
      await github.createComment(
        n,
        `**agent-fix**: stop requested by @${by}. The run${running.length > 1 ? 's' : ''} ${runs} working on this ${what} stop${running.length > 1 ? '' : 's'} at the next checkpoint and then update${running.length > 1 ? '' : 's'} the status comment with what was left behind.\n${markers.join('\n')}\n`,
      );
      const note = `stop requested for ${running.length} run(s) on ${what} #${n}: ${running.map((r) => r.claim.id).join(', ')}.`;
      return {
        reason: 'stop-requested',
        note,
        summary: `### agent-fix: stop requested\n\n@${by} asked to stop the agent-fix run${running.length > 1 ? 's' : ''} ${runs} on ${what} #${n}. ${running.length > 1 ? 'They stop' : 'It stops'} at the next checkpoint (before the next attempt or model request, before publishing) and then say${running.length > 1 ? '' : 's'} on the ${what} what was left behind.\n`,
      };
    },
  };
}
