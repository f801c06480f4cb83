/**
 * What the follow-up and rebase kinds share: agent-fix's own open pull request, read from the
 * API at run time (the event only routes), and the facts about its branch that both need.
 */
import type { GitPort } from '../ports/git.js';
import type { PullRequestDetails, ReviewGitHubPort } from '../ports/review.js';
import { BRANCH_PREFIX, isAgentBranch } from '../publish/branch.js';
import { isTestFile } from '../lang/index.js';
import { parseProofMarker, type FollowUpGate } from '../fix/follow-up-gate.js';

/** The pull request when it is agent-fix's own and open (head `agent-fix/*` of this repository); otherwise why not. */
export async function ownOpenPull(review: ReviewGitHubPort, prNumber: number, repository: string): Promise<PullRequestDetails | { skip: string }> {
  const pr = await review.getPullRequest(prNumber);
  if (!isAgentBranch(pr.head) || (pr.headRepository ?? '').toLowerCase() !== repository.toLowerCase()) {
    return { skip: `pull request #${prNumber} is not agent-fix's own (its head is not an ${BRANCH_PREFIX}* branch of this repository).` };
  }
  if (pr.state !== 'open') return { skip: `pull request #${prNumber} is ${pr.merged ? 'merged' : 'closed'}; agent-fix follows up only on its open pull requests.` };
  return pr;
}

/** `agent-fix/issue-42` → `issue-42`: the task the pull request was opened for (its sticky comment's marker). */
export function taskKeyOf(branch: string): string {
  return branch.slice(BRANCH_PREFIX.length);
}

/** The branch against its base: the fork point, the branch's own commits and changed files (history fetched as needed). */
export async function branchFacts(git: GitPort, head: string, baseTip: string): Promise<{ fork: string | null; diff: string; testFiles: string[] }> {
  await git.commitsBetween(baseTip, head);
  const fork = await git.mergeBase(head, baseTip);
  if (!fork) return { fork, diff: '', testFiles: [] };
  const changes = await git.changes(`${fork}^{tree}`, `${head}^{tree}`);
  return { fork, diff: await git.diff(`${fork}^{tree}`, `${head}^{tree}`), testFiles: changes.filter((c) => c.status !== 'deleted' && isTestFile(c.path)).map((c) => c.path) };
}

/** The follow-up gate's view of the original fix: the tests named in the PR body, else the branch's test files. */
export function originalOf(body: string, testFiles: string[], wantsTest: boolean): FollowUpGate {
  const named = parseProofMarker(body);
  if (named?.length) return { original: named, originalFiles: [], source: `${named.length} test(s) named in the pull request body when it was opened`, wantsTest };
  if (testFiles.length) return { original: [], originalFiles: testFiles, source: `the tests of the ${testFiles.length} test file(s) the branch changes`, wantsTest };
  return { original: [], originalFiles: [], source: 'no test of the original fix is known', wantsTest };
}

/** A fix's detail reworded for a follow-up or a rebase, which push to an open pull request instead of opening one. */
export function forFollowUp(detail: string): string {
  return detail.replace(/no pull request was opened/g, 'nothing was pushed to the pull request');
}
