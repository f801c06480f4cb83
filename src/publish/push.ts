/**
 * Create-or-update publishing of the fix branch. The branch always ends up as exactly one bot
 * commit on top of the base; earlier bot commits are replaced, a human's never are.
 */
import type { CommitInfo, GitPort, Identity } from '../ports/git.js';
import { BRANCH_PREFIX, isAgentBranch } from './branch.js';
import { isNewer, parseClaimTrailer, sameRun, withClaimTrailer, type RunId } from './claim.js';

export type PublishOutcome =
  | { kind: 'created' | 'updated' | 'unchanged'; sha: string; previousSha: string | null }
  | { kind: 'human-commits'; commits: CommitInfo[]; remoteSha: string }
  | { kind: 'rejected'; reason: string }
  /** The tip is a commit a newer run of agent-fix pushed: it is left alone. */
  | { kind: 'superseded'; by: RunId; remoteSha: string };

export interface PublishParams {
  remote: string;
  branch: string;
  baseSha: string;
  tree: string;
  message: string;
  identity: Identity;
  /**
   * This run (safety/claim.ts): the commit carries it as a trailer, and a tip that a newer run
   * pushed is never replaced (`superseded`), whatever its base.
   */
  claim?: RunId | null;
}

const sameEmail = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase();

/** Commits that the bot identity did not both author and commit. */
export function foreignCommits(commits: CommitInfo[], identity: Identity): CommitInfo[] {
  return commits.filter((c) => !sameEmail(c.authorEmail, identity.email) || !sameEmail(c.committerEmail, identity.email));
}

/** The run that pushed commit `sha`, when it is the bot's own commit and names one in its trailer. */
export async function pushedBy(git: GitPort, sha: string, identity: Identity): Promise<RunId | null> {
  const tip = await git.readCommit(sha);
  return foreignCommits([tip], identity).length === 0 ? parseClaimTrailer(tip.message) : null;
}

/** A newer run than `mine` whose commit is the tip of the remote branch, or null. */
export async function newerRunOnBranch(git: GitPort, remote: string, branch: string, identity: Identity, mine: RunId): Promise<RunId | null> {
  const sha = await git.fetchBranch(remote, branch);
  const by = sha ? await pushedBy(git, sha, identity) : null;
  return by && isNewer(by, mine) ? by : null;
}

export async function publishBranch(git: GitPort, given: PublishParams): Promise<PublishOutcome> {
  if (!isAgentBranch(given.branch)) {
    throw new Error(`refusing to publish to ${JSON.stringify(given.branch)}: only ${BRANCH_PREFIX}* branches are written`);
  }
  const p = given.claim ? { ...given, message: withClaimTrailer(given.message, given.claim) } : given;
  const remoteSha = await git.fetchBranch(p.remote, p.branch);

  if (remoteSha === null) {
    const sha = await git.commitTree(p.tree, p.baseSha, p.message, p.identity);
    const pushed = await git.push(p.remote, sha, p.branch, null);
    if (pushed.kind === 'rejected') return pushed;
    await moveLocal(git, p.branch, sha);
    return { kind: 'created', sha, previousSha: null };
  }

  // Before anything else: a newer run's tip may sit on a newer base (its failure came later).
  const tipRun = p.claim ? await pushedBy(git, remoteSha, p.identity) : null;
  if (p.claim && tipRun && isNewer(tipRun, p.claim)) return { kind: 'superseded', by: tipRun, remoteSha };

  const onBranch = await git.commitsBetween(p.baseSha, remoteSha);
  const foreign = foreignCommits(onBranch, p.identity);
  if (foreign.length > 0) return { kind: 'human-commits', commits: foreign, remoteSha };

  // Unchanged: the tip is a single commit on the base with the same tree (and, with claims, this
  // run's own; an older run's identical commit is replaced so that the tip names the newest run).
  const claimed = !p.claim || (tipRun !== null && sameRun(tipRun, p.claim));
  if (claimed && onBranch.length === 1 && onBranch[0].sha === remoteSha && (await git.isAncestor(p.baseSha, remoteSha))) {
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
