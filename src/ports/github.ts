/** What the story needs from the GitHub API, named by intent. Implemented by adapters/github.ts (Octokit). */

export type Permission = 'admin' | 'maintain' | 'write' | 'triage' | 'read' | 'none';

export interface IssueData {
  number: number;
  title: string;
  body: string;
  author: string;
  url: string;
  isPullRequest: boolean;
  state: 'open' | 'closed';
}

export interface CommentData {
  id: number;
  body: string;
  author: string;
  url: string;
  createdAt: string;
  updatedAt: string;
}

export interface PullRequestData {
  number: number;
  url: string;
  head: string;
  base: string;
  state: 'open' | 'closed';
  draft: boolean;
}

export interface GitHubPort {
  /** Permission of a user on the repository (`none` when the user is not a collaborator). */
  getPermission(username: string): Promise<Permission>;
  getDefaultBranch(): Promise<string>;
  getIssue(issueNumber: number): Promise<IssueData>;
  listComments(issueNumber: number): Promise<CommentData[]>;
  createComment(issueNumber: number, body: string): Promise<CommentData>;
  updateComment(commentId: number, body: string): Promise<CommentData>;
  /** The open PR from `head` (a branch of this repository) into `base`, if any. */
  findOpenPullRequest(head: string, base: string): Promise<PullRequestData | null>;
  createPullRequest(p: { head: string; base: string; title: string; body: string; draft: boolean }): Promise<PullRequestData>;
  updatePullRequest(prNumber: number, p: { title: string; body: string }): Promise<PullRequestData>;
  /** Closes a pull request without merging it (its branch is left as it is). */
  closePullRequest(prNumber: number): Promise<PullRequestData>;
  /** Text of a file at `ref` through the contents API; null when it does not exist (the policy file). */
  getFileContent?(path: string, ref: string): Promise<string | null>;
  /** Is `username` an active member of the team `org/teamSlug`? (needs a token that can read org teams) */
  isTeamMember?(org: string, teamSlug: string, username: string): Promise<boolean>;
}
