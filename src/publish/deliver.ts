/**
 * Delivering a verified fix, shared by the issue and the CI-repair stories: the leased push of
 * the agent branch (retried once when it lost a race against another run of the bot), then one
 * create-or-update pull request. The outcome is written into the report, so every renderer
 * tells the same story: a human's commits on the branch stop the delivery, a rejected push is
 * an error, and only a pushed branch gets a PR.
 */
import type { GitHubPort } from '../ports/github.js';
import type { GitPort, Identity } from '../ports/git.js';
import type { RunReport } from '../types.js';
import { upsertPullRequest } from './artifacts.js';
import { publishWithRetry } from '../safety/publish-retry.js';
import type { RunId } from '../safety/claim.js';

export interface Delivery {
  git: GitPort;
  github: GitHubPort;
  /** Mutated: status, reason and detail on a stop; branch, prNumber and prUrl on success. */
  report: RunReport;
  branch: string;
  baseSha: string;
  /** The branch the PR goes into. */
  baseBranch: string;
  tree: string;
  commitMessage: string;
  identity: Identity;
  prTitle: string;
  /** Rendered after the push, so the body can name the branch. */
  prBody: (report: RunReport) => string;
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

export async function deliverFix(d: Delivery): Promise<void> {
  const { report, branch } = d;
  const pushed = await publishWithRetry(
    d.git,
    { remote: 'origin', branch, baseSha: d.baseSha, tree: d.tree, message: d.commitMessage, identity: d.identity, claim: d.claim },
    d.log,
  );
  if (pushed.kind === 'superseded') {
    report.status = 'skipped';
    report.reason = 'superseded';
    report.detail = `A verified fix was found, but a newer run (${pushed.by.id}, attempt ${pushed.by.attempt}) has already pushed ${branch}; this run yields to it and publishes nothing.`;
    d.log(report.detail);
    return;
  }
  if (pushed.kind === 'human-commits') {
    report.status = 'not-fixed';
    report.reason = 'human-commits-on-branch';
    report.detail = `A verified fix was found, but ${branch} has ${pushed.commits.length} commit(s) that agent-fix did not make (${pushed.commits.map((c) => `${c.sha.slice(0, 7)} by ${c.authorName}`).join(', ')}). agent-fix never overwrites a human's commits: merge or delete that branch, then ${d.retryHint}.`;
    return;
  }
  if (pushed.kind === 'rejected') {
    report.status = 'error';
    report.reason = 'push-rejected';
    report.detail = `A verified fix was found, but pushing ${branch} was rejected: ${d.redact(pushed.reason)}`;
    return;
  }
  d.onPushed?.(branch);
  report.branch = branch;
  const pr = await upsertPullRequest(d.github, { head: branch, base: d.baseBranch, title: d.prTitle, body: d.redact(d.prBody(report)), draft: d.draft });
  report.prNumber = pr.pr.number;
  report.prUrl = pr.pr.url;
  d.log(`Pull request ${pr.kind}: ${pr.pr.url} into ${d.baseBranch} (branch ${pushed.kind})`);
}
