/** Create-or-update of the GitHub artifacts of a task: one sticky comment, one pull request. */
import type { CommentData, GitHubPort, PullRequestData } from '../ports/github.js';
import { errorMessage } from '../errors.js';

/** Our own comments carry the marker and are written by a bot account; a human quoting the marker is ignored. */
export function findStickyComment(comments: CommentData[], marker: string): CommentData | undefined {
  return comments.find((c) => c.body.includes(marker) && c.author.endsWith('[bot]'));
}

export class StickyComment {
  private id: number | null = null;
  url: string | null = null;
  constructor(
    private readonly github: GitHubPort,
    private readonly issueNumber: number,
    private readonly marker: string,
  ) {}

  /** Creates the comment, or updates the one an earlier run left (found by its hidden marker). */
  async set(body: string): Promise<void> {
    if (!body.includes(this.marker)) body = `${this.marker}\n${body}`;
    if (this.id === null) {
      const existing = findStickyComment(await this.github.listComments(this.issueNumber), this.marker);
      if (existing) this.id = existing.id;
    }
    const c = this.id === null ? await this.github.createComment(this.issueNumber, body) : await this.github.updateComment(this.id, body);
    this.id = c.id;
    this.url = c.url;
  }
}

export type PullRequestOutcome = { kind: 'created' | 'updated'; pr: PullRequestData };

function isAlreadyExists(e: unknown): boolean {
  const msg = errorMessage(e);
  return /already exists/i.test(msg);
}

/** One open PR per head branch: update it when it exists (also when creation races with another run). */
export async function upsertPullRequest(
  github: GitHubPort,
  p: { head: string; base: string; title: string; body: string; draft: boolean },
): Promise<PullRequestOutcome> {
  const existing = await github.findOpenPullRequest(p.head, p.base);
  if (existing) {
    try {
      return { kind: 'updated', pr: await github.updatePullRequest(existing.number, { title: p.title, body: p.body }) };
    } catch (e) {
      // 404: the PR went away between the lookup and the update (deleted branch, closed and gone): open a new one.
      if ((e as { status?: unknown })?.status !== 404) throw e;
    }
  }
  try {
    return { kind: 'created', pr: await github.createPullRequest(p) };
  } catch (e) {
    if (!isAlreadyExists(e)) throw e;
    const raced = await github.findOpenPullRequest(p.head, p.base);
    if (!raced) throw e;
    return { kind: 'updated', pr: await github.updatePullRequest(raced.number, { title: p.title, body: p.body }) };
  }
}
