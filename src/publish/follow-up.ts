/**
 * Publishing a follow-up on agent-fix's own pull request: one new commit on top of the branch
 * head the run started from and verified against, pushed with that head as the lease. Earlier
 * commits (the bot's first fix keeps its sha; a human's commits are kept and built upon) are
 * never rewritten.
 *
 * When the branch moved while the run worked (a human or another run pushed), nothing is
 * pushed: the follow-up was verified on a head that is no longer the branch, and laying it on
 * top unseen would publish an unverified combination. The caller reports the commits it did
 * not see and lets the maintainer trigger again.
 */
import type { CommitInfo, GitPort, Identity } from '../ports/git.js';
import { isAgentBranch, BRANCH_PREFIX } from './branch.js';
import { withClaimTrailer, type RunId } from './claim.js';
import { withPushRetry, type RetryOptions } from './retry.js';

export type FollowUpOutcome =
  | { kind: 'pushed'; sha: string; previousSha: string }
  /** The follow-up changes nothing relative to the head: no empty commit is made. */
  | { kind: 'unchanged'; sha: string }
  /** The branch is not where the run started: `commits` were pushed since (newest first). */
  | { kind: 'moved'; remoteSha: string; commits: CommitInfo[] }
  | { kind: 'branch-gone' }
  | { kind: 'rejected'; reason: string };

export interface FollowUpParams {
  remote: string;
  branch: string;
  /** The PR head the run checked out, verified on, and builds upon. */
  startSha: string;
  /** The tree to publish (the head's tree plus the verified follow-up change). */
  tree: string;
  message: string;
  identity: Identity;
  claim?: RunId | null;
}

export async function publishFollowUp(git: GitPort, given: FollowUpParams): Promise<FollowUpOutcome> {
  if (!isAgentBranch(given.branch)) {
    throw new Error(`refusing to publish to ${JSON.stringify(given.branch)}: only ${BRANCH_PREFIX}* branches are written`);
  }
  const p = given.claim ? { ...given, message: withClaimTrailer(given.message, given.claim) } : given;
  const remoteSha = await git.fetchBranch(p.remote, p.branch);
  if (remoteSha === null) return { kind: 'branch-gone' };
  if (remoteSha !== p.startSha) {
    const commits = (await git.isAncestor(p.startSha, remoteSha)) ? await git.commitsBetween(p.startSha, remoteSha) : [];
    return { kind: 'moved', remoteSha, commits };
  }
  const delta = await git.changes(`${p.startSha}^{tree}`, p.tree);
  if (delta.length === 0) return { kind: 'unchanged', sha: p.startSha };
  const sha = await git.commitTree(p.tree, p.startSha, p.message, p.identity);
  const pushed = await git.push(p.remote, sha, p.branch, p.startSha);
  if (pushed.kind === 'rejected') return pushed;
  return { kind: 'pushed', sha, previousSha: p.startSha };
}

/** `publishFollowUp` retried after a transient failure; a lost race re-checks and ends as `moved`. */
export function publishFollowUpWithRetry(git: GitPort, p: FollowUpParams, log?: (m: string) => void, opts?: RetryOptions): Promise<FollowUpOutcome> {
  return withPushRetry(() => publishFollowUp(git, p), p.branch, log, opts);
}
