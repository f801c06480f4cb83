/**
 * Delivering a verified fix to a pull request, shared by the issue and the CI-repair kinds:
 * the leased push of the agent branch (retried once when it lost a race against another run of
 * the bot), then one create-or-update pull request. The outcome is a value (`Delivered`); the
 * story folds it into the report with `withDelivery`, so every renderer tells the same story:
 * a human's commits on the branch stop the delivery, a rejected push is an error, a newer run's
 * push makes this run yield, and only a pushed branch gets a PR.
 */
import type { GitHubPort } from '../ports/github.js';
import type { GitPort, Identity } from '../ports/git.js';
import { upsertPullRequest } from './artifacts.js';
import { publishWithRetry } from './retry.js';
import type { RunId } from './claim.js';

/** Where a verified change went, or why it did not. */
export type Delivered =
  | { kind: 'pull-request'; branch: string; prNumber: number; prUrl: string; pr: 'created' | 'updated'; sha: string }
  | { kind: 'local-branch'; branch: string; sha: string }
  /** propose: the result (verified or not) written as a bundle for a publish job; nothing on GitHub. */
  | { kind: 'bundle'; path: string; candidate: string }
  /** A newer run of the bot pushed the branch: this run yields and publishes nothing. */
  | { kind: 'superseded'; by: RunId; detail: string }
  /** The branch holds commits agent-fix did not make: they are never overwritten. */
  | { kind: 'human-commits'; detail: string }
  | { kind: 'rejected'; detail: string };

export interface PullRequestDelivery {
  git: GitPort;
  github: GitHubPort;
  branch: string;
  baseSha: string;
  /** The branch the PR goes into. */
  baseBranch: string;
  tree: string;
  commitMessage: string;
  identity: Identity;
  prTitle: string;
  /** Rendered after the push, so the body can name the branch. */
  prBody: (branch: string) => string;
  draft: boolean;
  redact: (text: string) => string;
  log: (message: string) => void;
  /** What a maintainer does to let agent-fix try again, e.g. "trigger again". */
  retryHint: string;
  /** This run: stamped on the commit; a branch tip pushed by a newer run makes this run yield. */
  claim?: RunId | null;
  /** Called as soon as the branch is pushed (before the PR exists), for truthful error reports. */
  onPushed?: (branch: string) => void;
}

export async function deliverPullRequest(d: PullRequestDelivery): Promise<Delivered> {
  const { branch } = d;
  const pushed = await publishWithRetry(
    d.git,
    { remote: 'origin', branch, baseSha: d.baseSha, tree: d.tree, message: d.commitMessage, identity: d.identity, claim: d.claim },
    d.log,
  );
  if (pushed.kind === 'superseded') {
    const detail = `A verified fix was found, but a newer run (${pushed.by.id}, attempt ${pushed.by.attempt}) has already pushed ${branch}; this run yields to it and publishes nothing.`;
    d.log(detail);
    return { kind: 'superseded', by: pushed.by, detail };
  }
  if (pushed.kind === 'human-commits') {
    return {
      kind: 'human-commits',
      detail: `A verified fix was found, but ${branch} has ${pushed.commits.length} commit(s) that agent-fix did not make (${pushed.commits.map((c) => `${c.sha.slice(0, 7)} by ${c.authorName}`).join(', ')}). agent-fix never overwrites a human's commits: merge or delete that branch, then ${d.retryHint}.`,
    };
  }
  if (pushed.kind === 'rejected') {
    return { kind: 'rejected', detail: `A verified fix was found, but pushing ${branch} was rejected: ${d.redact(pushed.reason)}` };
  }
  d.onPushed?.(branch);
  const pr = await upsertPullRequest(d.github, { head: branch, base: d.baseBranch, title: d.prTitle, body: d.redact(d.prBody(branch)), draft: d.draft });
  d.log(`Pull request ${pr.kind}: ${pr.pr.url} into ${d.baseBranch} (branch ${pushed.kind})`);
  return { kind: 'pull-request', branch, prNumber: pr.pr.number, prUrl: pr.pr.url, pr: pr.kind, sha: pushed.sha };
}
