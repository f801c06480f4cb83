/**
 * Create-or-update publishing of the fix branch. The branch always ends up as exactly one bot
 * commit on top of the base; earlier bot commits are replaced, a human's never are.
 */
import type { CommitInfo, GitPort, Identity } from '../ports/git.js';
import { BRANCH_PREFIX, isAgentBranch } from './branch.js';

export type PublishOutcome =
  | { kind: 'created' | 'updated' | 'unchanged'; sha: string; previousSha: string | null }
  | { kind: 'human-commits'; commits: CommitInfo[]; remoteSha: string }
  | { kind: 'rejected'; reason: string };

export interface PublishParams {
  remote: string;
  branch: string;
  baseSha: string;
  tree: string;
  message: string;
  identity: Identity;
}

const sameEmail = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Commits that the bot identity did not both author and commit. */
export function foreignCommits(commits: CommitInfo[], identity: Identity): CommitInfo[] {
  return commits.filter((c) => !sameEmail(c.authorEmail, identity.email) || !sameEmail(c.committerEmail, identity.email));
}

export async function publishBranch(git: GitPort, p: PublishParams): Promise<PublishOutcome> {
  if (!isAgentBranch(p.branch)) {
    throw new Error(`refusing to publish to ${JSON.stringify(p.branch)}: only ${BRANCH_PREFIX}* branches are written`);
  }
  const remoteSha = await git.fetchBranch(p.remote, p.branch);

  if (remoteSha === null) {
    const sha = await git.commitTree(p.tree, p.baseSha, p.message, p.identity);
    const pushed = await git.push(p.remote, sha, p.branch, null);
    if (pushed.kind === 'rejected') return pushed;
    await moveLocal(git, p.branch, sha);
    return { kind: 'created', sha, previousSha: null };
  }

  const onBranch = await git.commitsBetween(p.baseSha, remoteSha);
  const foreign = foreignCommits(onBranch, p.identity);
  if (foreign.length > 0) return { kind: 'human-commits', commits: foreign, remoteSha };

  // Unchanged: the tip is a single commit on the base with the same tree.
  if (onBranch.length === 1 && onBranch[0].sha === remoteSha && (await git.isAncestor(p.baseSha, remoteSha))) {
    const delta = await git.changes(`${remoteSha}^{tree}`, p.tree);
    if (delta.length === 0) {
      await moveLocal(git, p.branch, remoteSha);
      return { kind: 'unchanged', sha: remoteSha, previousSha: remoteSha };
    }
  }

  const sha = await git.commitTree(p.tree, p.baseSha, p.message, p.identity);
  const pushed = await git.push(p.remote, sha, p.branch, remoteSha);
  if (pushed.kind === 'rejected') return pushed;
  await moveLocal(git, p.branch, sha);
  return { kind: 'updated', sha, previousSha: remoteSha };
}

/** Best effort: the remote is the source of truth; a checked-out local branch is left alone. */
async function moveLocal(git: GitPort, branch: string, sha: string): Promise<void> {
  try {
    await git.setLocalBranch(branch, sha);
  } catch {
    // e.g. the branch is checked out in this work tree
  }
}
