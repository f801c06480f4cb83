/**
 * Publishing with one retry after a lost race: when another run pushed the branch between
 * our fetch and our push, the lease (`--force-with-lease=<ref>:<sha we saw>`) makes git
 * reject the push ("stale info", "fetch first"). Publishing again re-fetches and re-checks:
 * if the new commits are the bot's own, the lease now names them and the push goes through;
 * if a human's, the branch is left alone. Any other rejection is final.
 */
import type { GitPort } from '../ports/git.js';
import { publishBranch, type PublishOutcome, type PublishParams } from '../publish/push.js';

export function isLostRace(reason: string): boolean {
  return /stale info|fetch first|non-fast-forward|\(already exists\)/i.test(reason);
}

export async function publishWithRetry(git: GitPort, p: PublishParams, log: (m: string) => void = () => undefined): Promise<PublishOutcome> {
  const first = await publishBranch(git, p);
  if (first.kind !== 'rejected' || !isLostRace(first.reason)) return first;
  log(`push of ${p.branch} lost a race with another push (${first.reason.split('\n')[0]}); fetching and trying once more`);
  return publishBranch(git, p);
}
