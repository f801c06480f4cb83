/**
 * The fake GitHub's state: one repository in memory (issues, comments, pull requests, users and
 * collaborators, files, workflow runs, jobs and their logs, reviews and review comments), what
 * was asked of it (requests, violations, refused writes), and the seeding methods tests use.
 * No HTTP here (server.ts answers requests, routes.ts decides the answers).
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import type {
  FakeComment,
  FakeGitHubOptions,
  FakeIssue,
  FakeJob,
  FakePermission,
  FakePull,
  FakeRepo,
  FakeReview,
  FakeReviewComment,
  FakeUser,
  FakeWorkflowRun,
  FaultSpec,
  RecordedRequest,
} from './types.js';

export function iso(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function sha1(text: string): string {
  return createHash('sha1').update(text).digest('hex');
}

export function nodeId(prefix: string, id: number): string {
  return `${prefix}_kwDO${Buffer.from(`fake:${id}`).toString('base64').replace(/=+$/, '')}`;
}

/** Members below marked "internal" belong to the fake's routes and JSON builders, not to tests. */
export class FakeGitHubState {
  /** Base URL of the API (GITHUB_API_URL / Octokit `baseUrl`). */
  url = '';
  readonly repo: FakeRepo;
  readonly botLogin: string;
  readonly issues: FakeIssue[] = [];
  readonly comments: FakeComment[] = [];
  readonly pulls: FakePull[] = [];
  readonly reviews: FakeReview[] = [];
  readonly reviewComments: FakeReviewComment[] = [];
  readonly workflowRuns: FakeWorkflowRun[] = [];
  readonly jobs: FakeJob[] = [];
  readonly requests: RecordedRequest[] = [];
  readonly violations: string[] = [];
  /** Write requests refused because the token was read-only (see `readOnly`). */
  readonly writeAttempts: RecordedRequest[] = [];

  /** internal */
  readonly users = new Map<string, FakeUser>();
  /** internal */
  readonly permissions = new Map<string, FakePermission>();
  /** internal: ref -> path -> content */
  readonly files = new Map<string, Map<string, string>>();
  /** internal */
  readonly logs = new Map<number, string>();
  /** internal: signed log URL -> job id */
  readonly logTokens = new Map<string, number>();
  /** internal */
  readonly labelIds = new Map<string, number>();
  /** internal */
  readonly faults: (FaultSpec & { remaining: number })[] = [];
  /** internal */
  readonly now: () => Date;
  /** internal: the repository's creation time */
  readonly createdAt: string;
  /** internal */
  nextNumber = 1;
  /** internal */
  readonly nextIds = { user: 1_000_001, issue: 2_900_000_001, comment: 2_500_000_001, pull: 2_100_000_001, review: 2_600_000_001, reviewComment: 1_900_000_001, run: 12_000_000_001, job: 34_000_000_001, label: 6_000_000_001 };

  constructor(readonly opts: FakeGitHubOptions = {}) {
    this.now = opts.now ?? (() => new Date());
    this.createdAt = iso(new Date(this.now().getTime() - 86_400_000 * 30));
    const owner = opts.owner ?? 'octo-org';
    const name = opts.repo ?? 'demo';
    this.repo = {
      id: 700_000_001,
      owner,
      name,
      fullName: `${owner}/${name}`,
      ownerType: opts.ownerType ?? 'Organization',
      defaultBranch: opts.defaultBranch ?? 'main',
      private: opts.private ?? false,
      description: 'A repository served by the fake GitHub API',
    };
    this.botLogin = opts.botLogin ?? 'github-actions[bot]';
    this.users.set(owner.toLowerCase(), { login: owner, id: 9_000_001, type: this.repo.ownerType });
    if (this.repo.ownerType === 'User') this.permissions.set(owner.toLowerCase(), 'admin');
    this.users.set(this.botLogin.toLowerCase(), { login: this.botLogin, id: this.botLogin === 'github-actions[bot]' ? 41898282 : 41_000_001, type: this.botLogin.endsWith('[bot]') ? 'Bot' : 'User' });
  }

  // ------------------------------------------------------------------- state helpers

  /** Members of `org/team-slug` (lower-cased), answered by GET /orgs/{org}/teams/{team_slug}/memberships/{username}. */
  readonly teamMembers = new Map<string, Set<string>>();

  /** Make `login` an active member of the team `org/team-slug`. */
  addTeamMember(team: string, login: string): void {
    this.addUser(login);
    const key = team.toLowerCase();
    if (!this.teamMembers.has(key)) this.teamMembers.set(key, new Set());
    this.teamMembers.get(key)!.add(login.toLowerCase());
  }

  /** Make `login` a collaborator with `permission` (`none` removes the collaborator but keeps the user). */
  setPermission(login: string, permission: FakePermission): void {
    this.addUser(login);
    if (permission === 'none') this.permissions.delete(login.toLowerCase());
    else this.permissions.set(login.toLowerCase(), permission);
  }

  /** Register an existing GitHub account (not a collaborator). */
  addUser(login: string, type: FakeUser['type'] = login.endsWith('[bot]') ? 'Bot' : 'User'): FakeUser {
    const key = login.toLowerCase();
    let user = this.users.get(key);
    if (!user) {
      user = { login, id: this.nextIds.user++, type };
      this.users.set(key, user);
    }
    return user;
  }

  addIssue(p: { number?: number; title: string; body?: string | null; author: string; labels?: string[]; state?: 'open' | 'closed'; locked?: boolean; createdAt?: string; updatedAt?: string }): FakeIssue {
    this.addUser(p.author);
    const number = this.takeNumber(p.number);
    const createdAt = p.createdAt ?? iso(this.now());
    const issue: FakeIssue = {
      id: this.nextIds.issue++,
      number,
      title: p.title,
      body: p.body === undefined ? '' : p.body,
      author: p.author,
      labels: [...(p.labels ?? [])],
      state: p.state ?? 'open',
      locked: p.locked ?? false,
      createdAt,
      updatedAt: p.updatedAt ?? createdAt,
      closedAt: p.state === 'closed' ? createdAt : null,
    };
    this.issues.push(issue);
    return issue;
  }

  addComment(issueNumber: number, p: { body: string; author: string; createdAt?: string; updatedAt?: string }): FakeComment {
    if (!this.findIssueOrPull(issueNumber)) throw new Error(`fake-github: no issue or PR #${issueNumber}`);
    this.addUser(p.author);
    const createdAt = p.createdAt ?? iso(this.now());
    const comment: FakeComment = { id: this.nextIds.comment++, issueNumber, body: p.body, author: p.author, createdAt, updatedAt: p.updatedAt ?? createdAt };
    this.comments.push(comment);
    return comment;
  }

  /** Seed a pull request (as if opened earlier, by the bot unless `author` is given). */
  addPull(p: { number?: number; title: string; body?: string | null; head: string; base?: string; draft?: boolean; state?: 'open' | 'closed'; author?: string; headSha?: string }): FakePull {
    const author = p.author ?? this.botLogin;
    this.addUser(author);
    const createdAt = iso(this.now());
    const base = p.base ?? this.repo.defaultBranch;
    const pull: FakePull = {
      id: this.nextIds.pull++,
      number: this.takeNumber(p.number),
      title: p.title,
      body: p.body === undefined ? '' : p.body,
      head: p.head,
      headSha: p.headSha ?? this.branchSha(p.head) ?? sha1(`head:${p.head}`),
      base,
      baseSha: this.branchSha(base) ?? sha1(`base:${base}`),
      state: p.state ?? 'open',
      draft: p.draft ?? false,
      merged: false,
      author,
      maintainerCanModify: false,
      createdAt,
      updatedAt: createdAt,
      closedAt: p.state === 'closed' ? createdAt : null,
    };
    this.pulls.push(pull);
    return pull;
  }

  /**
   * Seed a submitted review of a pull request, with its inline comments (as a reviewer would
   * leave them on the diff). Comments default to the right side of the PR head.
   */
  addReview(p: {
    pullNumber: number;
    author: string;
    state: FakeReview['state'];
    body?: string;
    comments?: { path: string; line?: number | null; startLine?: number | null; body: string; diffHunk?: string }[];
    submittedAt?: string;
  }): { review: FakeReview; comments: FakeReviewComment[] } {
    const pull = this.pulls.find((x) => x.number === p.pullNumber);
    if (!pull) throw new Error(`fake-github: no PR #${p.pullNumber}`);
    this.addUser(p.author);
    const commitId = this.pullHeadSha(pull);
    const at = p.submittedAt ?? iso(this.now());
    const review: FakeReview = { id: this.nextIds.review++, pullNumber: pull.number, author: p.author, state: p.state, body: p.body ?? '', commitId, submittedAt: p.state === 'PENDING' ? null : at };
    this.reviews.push(review);
    const comments = (p.comments ?? []).map((c) => this.pushReviewComment(pull, review.id, p.author, c, null, at));
    return { review, comments };
  }

  /** Seed a single inline comment on a pull request (GitHub files it under a review of its own). */
  addReviewComment(p: { pullNumber: number; author: string; path: string; line?: number | null; body: string; inReplyTo?: number; diffHunk?: string; createdAt?: string }): FakeReviewComment {
    const pull = this.pulls.find((x) => x.number === p.pullNumber);
    if (!pull) throw new Error(`fake-github: no PR #${p.pullNumber}`);
    this.addUser(p.author);
    const at = p.createdAt ?? iso(this.now());
    const parent = p.inReplyTo === undefined ? null : this.reviewComments.find((c) => c.id === p.inReplyTo) ?? null;
    if (p.inReplyTo !== undefined && !parent) throw new Error(`fake-github: no review comment ${p.inReplyTo}`);
    const review: FakeReview = { id: this.nextIds.review++, pullNumber: pull.number, author: p.author, state: 'COMMENTED', body: '', commitId: this.pullHeadSha(pull), submittedAt: at };
    this.reviews.push(review);
    const target = parent ? { path: parent.path, line: parent.line, startLine: parent.startLine, diffHunk: parent.diffHunk } : p;
    return this.pushReviewComment(pull, review.id, p.author, { ...target, body: p.body }, parent, at);
  }

  pushReviewComment(
    pull: FakePull,
    reviewId: number,
    author: string,
    c: { path: string; line?: number | null; startLine?: number | null; body: string; diffHunk?: string },
    parent: FakeReviewComment | null,
    at: string,
  ): FakeReviewComment {
    const line = c.line ?? null;
    const comment: FakeReviewComment = {
      id: this.nextIds.reviewComment++,
      pullNumber: pull.number,
      reviewId,
      author,
      path: c.path,
      line,
      startLine: c.startLine ?? null,
      side: 'RIGHT',
      body: c.body,
      diffHunk: c.diffHunk ?? `@@ -${line ?? 1},1 +${line ?? 1},1 @@`,
      commitId: this.pullHeadSha(pull),
      inReplyTo: parent ? parent.inReplyTo ?? parent.id : null,
      createdAt: at,
      updatedAt: at,
    };
    this.reviewComments.push(comment);
    return comment;
  }

  pullHeadSha(pull: FakePull): string {
    return (this.opts.gitDir && pull.state === 'open' ? this.branchSha(pull.head) : null) ?? pull.headSha;
  }

  addWorkflowRun(p: Partial<Omit<FakeWorkflowRun, 'createdAt' | 'updatedAt'>> & { headSha: string; createdAt?: string; updatedAt?: string }): FakeWorkflowRun {
    const createdAt = p.createdAt ?? iso(this.now());
    const id = p.id ?? this.nextIds.run++;
    const run: FakeWorkflowRun = {
      id,
      name: p.name ?? 'CI',
      workflowId: p.workflowId ?? 161_335,
      path: p.path ?? '.github/workflows/ci.yml',
      runNumber: p.runNumber ?? this.workflowRuns.length + 1,
      runAttempt: p.runAttempt ?? 1,
      event: p.event ?? 'push',
      status: p.status ?? 'completed',
      conclusion: p.conclusion === undefined ? 'failure' : p.conclusion,
      headBranch: p.headBranch ?? this.repo.defaultBranch,
      headSha: p.headSha,
      displayTitle: p.displayTitle ?? 'Update code',
      actor: p.actor ?? this.repo.owner,
      pullRequests: [...(p.pullRequests ?? [])],
      createdAt,
      updatedAt: p.updatedAt ?? createdAt,
    };
    this.addUser(run.actor);
    this.workflowRuns.push(run);
    return run;
  }

  addJob(p: Partial<FakeJob> & { runId: number; name: string; log?: string }): FakeJob {
    if (!this.workflowRuns.some((r) => r.id === p.runId)) throw new Error(`fake-github: no workflow run ${p.runId}`);
    const startedAt = p.startedAt ?? iso(this.now());
    const status = p.status ?? 'completed';
    const job: FakeJob = {
      id: p.id ?? this.nextIds.job++,
      runId: p.runId,
      name: p.name,
      status,
      conclusion: p.conclusion === undefined ? (status === 'completed' ? 'failure' : null) : p.conclusion,
      steps: p.steps ?? [
        { name: 'Set up job', status: 'completed', conclusion: 'success', number: 1 },
        { name: 'Run tests', status: 'completed', conclusion: 'failure', number: 2 },
      ],
      startedAt,
      completedAt: p.completedAt === undefined ? (status === 'completed' ? startedAt : null) : p.completedAt,
    };
    this.jobs.push(job);
    if (p.log !== undefined) this.setJobLog(job.id, p.log);
    return job;
  }

  setJobLog(jobId: number, text: string): void {
    this.logs.set(jobId, text);
  }

  /** A file served by the contents API (`ref` defaults to the default branch). */
  setFile(path: string, content: string, ref = this.repo.defaultBranch): void {
    let tree = this.files.get(ref);
    if (!tree) this.files.set(ref, (tree = new Map()));
    tree.set(path.replace(/^\/+/, ''), content);
  }

  /** Makes the token read-only (true) or writable again (false); see `FakeGitHubOptions.readOnly`. */
  setReadOnly(readOnly: boolean): void {
    this.opts.readOnly = readOnly;
  }

  /** Called and awaited before each request is answered (see the header). */
  onRequest: ((request: { method: string; path: string }) => void | Promise<void>) | null = null;

  failNext(fault: FaultSpec): void {
    this.faults.push({ ...fault, remaining: fault.times ?? 1 });
  }

  // ------------------------------------------------------------------------ plumbing

  takeNumber(requested?: number): number {
    if (requested !== undefined) {
      if (this.findIssueOrPull(requested)) throw new Error(`fake-github: #${requested} already exists`);
      this.nextNumber = Math.max(this.nextNumber, requested + 1);
      return requested;
    }
    return this.nextNumber++;
  }

  findIssueOrPull(number: number): { issue?: FakeIssue; pull?: FakePull } | null {
    const issue = this.issues.find((i) => i.number === number);
    if (issue) return { issue };
    const pull = this.pulls.find((p) => p.number === number);
    return pull ? { pull } : null;
  }

  branchSha(branch: string): string | null {
    if (!this.opts.gitDir) return null;
    try {
      return execFileSync('git', ['--git-dir', this.opts.gitDir, 'rev-parse', '--verify', '--quiet', `refs/heads/${branch}^{commit}`], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim() || null;
    } catch {
      return null;
    }
  }
}
