/**
 * Publishing with retries, each one a fresh `publishBranch` (fetch, re-check whose commits are
 * on the branch, leased push), so a retry never forces over a commit it has not seen:
 *
 * - a lost race: another run pushed the branch between our fetch and our push; the lease
 *   (`--force-with-lease=<ref>:<sha we saw>`) makes git reject the push ("stale info",
 *   "fetch first"). Retried once: if the new commits are the bot's own, the lease now names
 *   them and the push goes through; if a human's, the branch is left alone.
 * - a transient failure of the server (GitHub's "fatal error in commit_refs", a 5xx, a dropped
 *   connection): retried with backoff, a few times.
 * Any other rejection (a protected branch, a hook, missing permission) is final.
 */
import type { GitPort } from '../ports/git.js';
import { publishBranch, type PublishOutcome, type PublishParams } from '../publish/push.js';

export function isLostRace(reason: string): boolean {
  return /stale info|fetch first|non-fast-forward|\(already exists\)/i.test(reason);
}

const TRANSIENT =
  /fatal error in commit_refs|internal server error|returned error: 5\d\d|\bHTTP 5\d\d\b|RPC failed|early EOF|unexpected disconnect|remote end hung up unexpectedly|connection (reset|refused|timed out)|operation timed out|could not resolve host|temporarily unavailable|try again later/i;

/** Failures of the server or the connection, not of the push itself: worth trying again. */
export function isTransientPushFailure(reason: string): boolean {
  return TRANSIENT.test(reason);
}

/** The line that shows the failure is transient, for the log. */
function transientLine(text: string): string {
  return (text.split('\n').find((l) => TRANSIENT.test(l)) ?? text.split('\n')[0]).trim();
}

export interface RetryOptions {
  /** Waits before each retry of a transient failure; their count is the number of retries. */
  transientDelaysMs?: number[];
  sleep?: (ms: number) => Promise<void>;
}

/** 2 s, 6 s, 18 s: about half a minute, enough for GitHub's short hiccups. */
export const TRANSIENT_DELAYS_MS = [2000, 6000, 18000];

const wait = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** The error text of a failed push, whether git rejected it or the command itself failed. */
function failureText(e: unknown): string | null {
  if (!(e instanceof Error)) return null;
  const stderr = (e as { stderr?: unknown }).stderr;
  return `${e.message}\n${typeof stderr === 'string' ? stderr : ''}`;
}

export async function publishWithRetry(
  git: GitPort,
  p: PublishParams,
  log: (m: string) => void = () => undefined,
  opts: RetryOptions = {},
): Promise<PublishOutcome> {
  return withPushRetry(() => publishBranch(git, p), p.branch, log, opts);
}

/**
 * Runs one publishing attempt (which fetches, checks and pushes with a lease) again after a
 * lost race (once) or a transient failure (with backoff); any other outcome is returned.
 */
export async function withPushRetry<T extends { kind: string }>(
  attempt: () => Promise<T | { kind: 'rejected'; reason: string }>,
  branch: string,
  log: (m: string) => void = () => undefined,
  opts: RetryOptions = {},
): Promise<T | { kind: 'rejected'; reason: string }> {
  const delays = opts.transientDelaysMs ?? TRANSIENT_DELAYS_MS;
  const sleep = opts.sleep ?? wait;
  let raced = false;
  let transient = 0;
  for (;;) {
    let outcome: T | { kind: 'rejected'; reason: string };
    try {
      outcome = await attempt();
    } catch (e) {
      const text = failureText(e);
      if (text === null || !isTransientPushFailure(text) || transient >= delays.length) throw e;
      log(`pushing ${branch} failed (${transientLine(text)}); a transient failure: trying again in ${delays[transient] / 1000} s`);
      await sleep(delays[transient++]);
      continue;
    }
    if (!isRejection(outcome)) return outcome;
    const first = outcome.reason.split('\n')[0];
    if (isLostRace(outcome.reason) && !raced) {
      raced = true;
      log(`push of ${branch} lost a race with another push (${first}); fetching and trying once more`);
      continue;
    }
    if (isTransientPushFailure(outcome.reason) && transient < delays.length) {
      log(`push of ${branch} was rejected by a transient server failure (${transientLine(outcome.reason)}); trying again in ${delays[transient] / 1000} s`);
      await sleep(delays[transient++]);
      continue;
    }
    if (transient > 0 && isTransientPushFailure(outcome.reason)) {
      return { kind: 'rejected', reason: `${outcome.reason}\n(the server failed the same way ${transient + 1} times, over about ${Math.round(delays.slice(0, transient).reduce((a, b) => a + b, 0) / 1000)} s)` };
    }
    return outcome;
  }
}

function isRejection(o: { kind: string }): o is { kind: 'rejected'; reason: string } {
  return o.kind === 'rejected' && typeof (o as { reason?: unknown }).reason === 'string';
}
