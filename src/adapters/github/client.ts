/**
 * The Octokit client of the GitHub adapter: retries and rate limits (bounded, logged), writes
 * paced, and every call's failure made a GitHubApiError with a safe, actionable message.
 */
import { Octokit } from '@octokit/rest';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import type { Permission } from '../../ports/github.js';

export interface MakeGitHubOptions {
  token: string;
  /** API base URL, e.g. https://api.github.com or $GITHUB_API_URL. */
  baseUrl: string;
  owner: string;
  repo: string;
  log?: (msg: string) => void;
  /** Retries of a failed request (5xx, network) and of a rate-limited one (default 3). */
  retries?: number;
  /** Unit of the retry waits in ms (default 1000: GitHub's retry-after is in seconds). Tests make it small. */
  retryAfterBaseMs?: number;
  /** Longest single rate-limit wait accepted, in seconds (default 120); a longer one fails instead. */
  maxRateLimitWaitSeconds?: number;
  /**
   * Space out writes as GitHub's best practices ask (one write per second, content that
   * notifies people every 3 s). Default: true, except for a loopback `baseUrl` (a local
   * fake API in tests, where there is no GitHub to protect and the waits only slow runs).
   */
  pace?: boolean;
}

/** A failed GitHub API call: `message` is safe to show (no token). */
export class GitHubApiError extends Error {
  override readonly name = 'GitHubApiError';
  constructor(
    message: string,
    /** HTTP status, 0 when no response arrived. */
    readonly status: number,
    /** `METHOD /route/{template}` of the call. */
    readonly route: string,
    /** GitHub's message and error details, when it sent any. */
    readonly githubMessage: string,
  ) {
    super(message);
  }
}

const ThrottledOctokit = Octokit.plugin(retry, throttling);
export type Client = InstanceType<typeof ThrottledOctokit>;

const ROLES: ReadonlySet<string> = new Set(['admin', 'maintain', 'write', 'triage', 'read', 'none']);
const LEGACY: Record<string, Permission> = { admin: 'admin', write: 'write', read: 'read', none: 'none' };

/** `role_name` names maintain/triage (and custom roles); `permission` is the legacy base role. */
export function permissionFrom(data: { permission?: string | null; role_name?: string | null }): Permission {
  const role = (data.role_name ?? '').toLowerCase();
  if (ROLES.has(role)) return role as Permission;
  return LEGACY[(data.permission ?? '').toLowerCase()] ?? 'none';
}

function hintFor(status: number): string {
  switch (status) {
    case 401:
      return ' (the token is missing, expired or invalid)';
    case 403:
      return ' (the token lacks a permission: check the workflow `permissions:` and repository settings)';
    case 404:
      return ' (not found, or the token cannot see it)';
    default:
      return '';
  }
}

export interface RequestErrorLike {
  status?: number;
  message?: string;
  response?: { data?: unknown };
}

/** GitHub's own message plus the `errors[]` details, e.g. "Validation Failed: A pull request already exists for o:b.". */
export function githubMessageOf(error: unknown): string {
  const e = error as RequestErrorLike;
  const data = e?.response?.data;
  if (data && typeof data === 'object' && 'message' in data) {
    const d = data as { message?: unknown; errors?: unknown };
    const details = Array.isArray(d.errors)
      ? d.errors
          .map((x) => (typeof x === 'string' ? x : x && typeof x === 'object' ? String((x as Obj).message ?? [(x as Obj).resource, (x as Obj).field, (x as Obj).code].filter(Boolean).join(' ')) : ''))
          .filter((s) => s !== '')
      : [];
    return [String(d.message), ...details].join(': ');
  }
  if (typeof data === 'string' && data.trim() !== '') return data.trim().slice(0, 300);
  return String(e?.message ?? error).slice(0, 300);
}

export type Obj = Record<string, unknown>;

/** What the port's methods share: the client, the call wrapper (errors as GitHubApiError), the repository, the log. */
export interface Api {
  octokit: Client;
  call<T>(route: string, fn: () => Promise<T>): Promise<T>;
  owner: string;
  repo: string;
  log(msg: string): void;
}

export function openApi(opts: MakeGitHubOptions): Api {
  const { owner, repo } = opts;
  const retries = opts.retries ?? 3;
  const maxWait = opts.maxRateLimitWaitSeconds ?? 120;
  const redact = (text: string): string => (opts.token ? text.split(opts.token).join('***') : text);
  const log = (msg: string): void => opts.log?.(redact(msg));

  const onLimit = (kind: string) => (retryAfter: number, options: { method: string; url: string }, _octokit: unknown, retryCount: number): boolean => {
    const again = retryCount < retries && retryAfter <= maxWait;
    log(`GitHub ${kind} rate limit on ${options.method} ${options.url}: ${again ? `retrying in ${retryAfter}s (retry ${retryCount + 1} of ${retries})` : `giving up (retry-after ${retryAfter}s)`}`);
    return again;
  };
  /** A limiter group that schedules immediately (no spacing of writes). */
  const unpaced = { key: () => ({ schedule: (_options: unknown, fn: (...a: unknown[]) => unknown, ...args: unknown[]) => Promise.resolve(fn(...args)) }) };
  const loopback = /^https?:\/\/(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?(\/|$)/i.test(opts.baseUrl);
  const groups = (opts.pace ?? !loopback) === false ? ({ write: unpaced, notifications: unpaced, search: unpaced } as unknown as Obj) : {};

  const octokit: Client = new ThrottledOctokit({
    auth: opts.token,
    baseUrl: opts.baseUrl.replace(/\/+$/, ''),
    userAgent: 'agent-fix',
    // @octokit/plugin-request-log reports each failed attempt ("GET /path - 502 with id … in 12ms"), so
    // retries show in the log; 404 and 422 are answers the callers handle, not noise for the log.
    log: {
      debug: () => {},
      info: () => {},
      warn: (m: string) => log(`GitHub API: ${m}`),
      error: (m: string) => {
        if (!/ - (404|422) with id /.test(m)) log(`GitHub API: ${m}`);
      },
    },
    retry: { retries, retryAfterBaseValue: opts.retryAfterBaseMs ?? 1000 },
    throttle: {
      id: `agent-fix:${owner}/${repo}`,
      retryAfterBaseValue: opts.retryAfterBaseMs ?? 1000,
      onRateLimit: onLimit('primary'),
      onSecondaryRateLimit: onLimit('secondary'),
      ...groups,
    },
  });
  async function call<T>(route: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      const status = Number((error as RequestErrorLike)?.status ?? 0);
      const message = redact(githubMessageOf(error));
      throw new GitHubApiError(`GitHub API ${route} failed${status ? ` with ${status}` : ''}: ${message}${hintFor(status)}`, status, route, message);
    }
  }

  return { octokit, call, owner, repo, log };
}
