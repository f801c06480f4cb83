/**
 * `/agent-fix rebase`: bring agent-fix's branch up to date with its base.
 *
 * - Only the bot's own commits on the branch: they are replayed onto the current base (a
 *   rebase; their shas change, which is fine for commits only the bot made).
 * - A human commit on the branch: the base is merged in instead, so no commit of theirs is
 *   ever rewritten.
 * - Conflicts: nothing is created; the conflicting files are returned for the story to hand
 *   to the model as a task (with the same verification as any fix).
 * The result is verified by the caller (the gate runs on it) before `pushUpdated` publishes
 * it with the head it started from as the lease.
 */
import type { CommitInfo, GitPort, Identity } from '../ports/git.js';
import { BRANCH_PREFIX, isAgentBranch } from './branch.js';
import { foreignCommits } from './push.js';
import { withPushRetry, type RetryOptions } from './retry.js';

export type UpdateOutcome =
  | { kind: 'up-to-date'; sha: string }
  | { kind: 'rebased'; sha: string; replayed: number }
  | { kind: 'merged'; sha: string; humanCommits: CommitInfo[] }
  | { kind: 'conflict'; how: 'rebase' | 'merge'; files: string[]; at: string }
  | { kind: 'unrelated' };

export interface UpdateParams {
  /** The branch's head as fetched at the start of the run. */
  head: string;
  /** The base branch's current tip. */
  base: string;
  baseName: string;
  branch: string;
  identity: Identity;
}

export async function updateOnBase(git: GitPort, p: UpdateParams): Promise<UpdateOutcome> {
  const fork = await git.mergeBase(p.head, p.base);
  if (fork === null) return { kind: 'unrelated' };
  if (fork === p.base) return { kind: 'up-to-date', sha: p.head };
  const commits = await git.commitsBetween(fork, p.head);
  const human = foreignCommits(commits, p.identity);
  if (human.length === 0) {
    const replayed = await git.replayCommits({ from: fork, to: p.head, onto: p.base, identity: p.identity });
    return replayed.kind === 'done' ? { kind: 'rebased', sha: replayed.sha, replayed: commits.length } : { kind: 'conflict', how: 'rebase', files: replayed.files, at: replayed.at };
  }
  const merged = await git.mergeCommit({ ours: p.head, theirs: p.base, message: `Merge ${p.baseName} into ${p.branch}`, identity: p.identity });
  return merged.kind === 'done' ? { kind: 'merged', sha: merged.sha, humanCommits: human } : { kind: 'conflict', how: 'merge', files: merged.files, at: merged.at };
}

export type PushUpdatedOutcome =
  | { kind: 'pushed'; sha: string; previousSha: string }
  | { kind: 'moved'; remoteSha: string }
  | { kind: 'branch-gone' }
  | { kind: 'rejected'; reason: string };

/** Pushes the updated branch, leased on the head the update started from. */
export async function pushUpdated(git: GitPort, p: { remote: string; branch: string; head: string; sha: string }): Promise<PushUpdatedOutcome> {
  if (!isAgentBranch(p.branch)) throw new Error(`refusing to publish to ${JSON.stringify(p.branch)}: only ${BRANCH_PREFIX}* branches are written`);
  const remoteSha = await git.fetchBranch(p.remote, p.branch);
  if (remoteSha === null) return { kind: 'branch-gone' };
  if (remoteSha !== p.head) return { kind: 'moved', remoteSha };
  const pushed = await git.push(p.remote, p.sha, p.branch, p.head);
  return pushed.kind === 'rejected' ? pushed : { kind: 'pushed', sha: p.sha, previousSha: p.head };
}

export function pushUpdatedWithRetry(git: GitPort, p: { remote: string; branch: string; head: string; sha: string }, log?: (m: string) => void, opts?: RetryOptions): Promise<PushUpdatedOutcome> {
  return withPushRetry(() => pushUpdated(git, p), p.branch, log, opts);
}
