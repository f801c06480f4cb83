/**
 * A hand-built, in-memory GitHubPort for unit tests. State is plain public fields so a
 * test can arrange it directly; every call is recorded in `calls`.
 */
import type { CommentData, GitHubPort, IssueData, Permission, PullRequestData } from '../src/ports/github.js';

export interface FakeCall {
  method: keyof GitHubPort;
  args: unknown[];
}

export class FakeGitHubPort implements GitHubPort {
  readonly calls: FakeCall[] = [];
  /** Login (case-insensitive) -> permission; unknown logins are 'none'. */
  permissions = new Map<string, Permission>();
  defaultBranch = 'main';
  issues = new Map<number, IssueData>();
  comments = new Map<number, CommentData[]>();
  pulls: PullRequestData[] = [];
  /** Set to make the named method reject with this error. */
  failures: Partial<Record<keyof GitHubPort, Error>> = {};
  /** Times given to new and updated comments. */
  now = () => new Date().toISOString();
  selfLogin = 'github-actions[bot]';
  private nextId = 1000;

  constructor(init: { permissions?: Record<string, Permission>; issues?: IssueData[]; comments?: Record<number, CommentData[]> } = {}) {
    for (const [login, p] of Object.entries(init.permissions ?? {})) this.setPermission(login, p);
    for (const issue of init.issues ?? []) this.issues.set(issue.number, issue);
    for (const [n, list] of Object.entries(init.comments ?? {})) this.comments.set(Number(n), [...list]);
  }

  setPermission(login: string, permission: Permission): void {
    this.permissions.set(login.toLowerCase(), permission);
  }

  private record(method: keyof GitHubPort, args: unknown[]): void {
    this.calls.push({ method, args });
    const failure = this.failures[method];
    if (failure) throw failure;
  }

  callsTo(method: keyof GitHubPort): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args);
  }

  async getPermission(username: string): Promise<Permission> {
    this.record('getPermission', [username]);
    return this.permissions.get(username.toLowerCase()) ?? 'none';
  }

  async getDefaultBranch(): Promise<string> {
    this.record('getDefaultBranch', []);
    return this.defaultBranch;
  }

  async getIssue(issueNumber: number): Promise<IssueData> {
    this.record('getIssue', [issueNumber]);
    const issue = this.issues.get(issueNumber);
    if (!issue) throw new Error(`Not Found: issue #${issueNumber}`);
    return { ...issue };
  }

  async listComments(issueNumber: number): Promise<CommentData[]> {
    this.record('listComments', [issueNumber]);
    return (this.comments.get(issueNumber) ?? []).map((c) => ({ ...c }));
  }

  async createComment(issueNumber: number, body: string): Promise<CommentData> {
    this.record('createComment', [issueNumber, body]);
    const at = this.now();
    const id = this.nextId++;
    const comment: CommentData = { id, body, author: this.selfLogin, url: `https://github.com/o/r/issues/${issueNumber}#issuecomment-${id}`, createdAt: at, updatedAt: at };
    const list = this.comments.get(issueNumber) ?? [];
    list.push(comment);
    this.comments.set(issueNumber, list);
    return { ...comment };
  }

  async updateComment(commentId: number, body: string): Promise<CommentData> {
    this.record('updateComment', [commentId, body]);
    for (const list of this.comments.values()) {
      const c = list.find((x) => x.id === commentId);
      if (c) {
        c.body = body;
        c.updatedAt = this.now();
        return { ...c };
      }
    }
    throw new Error(`Not Found: comment ${commentId}`);
  }

  async findOpenPullRequest(head: string, base: string): Promise<PullRequestData | null> {
    this.record('findOpenPullRequest', [head, base]);
    const pr = this.pulls.find((p) => p.head === head && p.base === base && p.state === 'open');
    return pr ? { ...pr } : null;
  }

  async createPullRequest(p: { head: string; base: string; title: string; body: string; draft: boolean }): Promise<PullRequestData> {
    this.record('createPullRequest', [p]);
    const taken = [...this.issues.keys(), ...this.pulls.map((x) => x.number)];
    const number = Math.max(0, ...taken) + 1;
    const pr: PullRequestData = { number, url: `https://github.com/o/r/pull/${number}`, head: p.head, base: p.base, state: 'open', draft: p.draft };
    this.pulls.push(pr);
    return { ...pr };
  }

  async updatePullRequest(prNumber: number, p: { title: string; body: string }): Promise<PullRequestData> {
    this.record('updatePullRequest', [prNumber, p]);
    const pr = this.pulls.find((x) => x.number === prNumber);
    if (!pr) throw new Error(`Not Found: pull request #${prNumber}`);
    return { ...pr };
  }

  async closePullRequest(prNumber: number): Promise<PullRequestData> {
    this.record('closePullRequest', [prNumber]);
    const pr = this.pulls.find((x) => x.number === prNumber);
    if (!pr) throw new Error(`Not Found: pull request #${prNumber}`);
    pr.state = 'closed';
    return { ...pr };
  }
}
