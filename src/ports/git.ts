/** What the story needs from git, named by intent. Implemented by adapters/git.ts (git through execa; see README, Architecture). */

export interface FileChange {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  oldPath?: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

export interface CommitInfo {
  sha: string;
  authorName: string;
  authorEmail: string;
  committerEmail: string;
  subject: string;
}

export interface Identity {
  name: string;
  email: string;
}

export type PushResult =
  | { kind: 'pushed'; sha: string }
  | { kind: 'rejected'; reason: string };

/** The result of laying commits or a merge on another base, computed without touching the work tree. */
export type ReplayResult =
  | { kind: 'done'; sha: string }
  /** Files with conflicting changes; nothing was created. */
  | { kind: 'conflict'; files: string[]; at: string };

export interface GitPort {
  readonly root: string;
  /** sha of HEAD. */
  headSha(): Promise<string>;
  /** A git tree id capturing the working tree: tracked and untracked files, minus ignored ones. Does not touch HEAD or the index. */
  snapshot(): Promise<string>;
  /** Makes the working tree equal to a snapshot (files absent from it that are untracked and not ignored are removed). */
  restore(tree: string): Promise<void>;
  /** Unified diff between two trees. */
  diff(fromTree: string, toTree: string): Promise<string>;
  /** Per-file change summary between two trees. */
  changes(fromTree: string, toTree: string): Promise<FileChange[]>;
  /** Tracked plus untracked-not-ignored files, repo-relative with '/' separators, sorted. */
  listFiles(): Promise<string[]>;
  /** Is `rel` (repo-relative) ignored by git and not tracked: a file no change of the checkout can carry? */
  isIgnored(rel: string): Promise<boolean>;
  /** Creates a commit object for `tree` on top of `parent` (several: a merge commit, first parent first); does not move any ref. */
  commitTree(tree: string, parent: string | string[], message: string, author: Identity): Promise<string>;
  /** Fetches refs/heads/<branch> from the remote; returns its sha or null when the branch does not exist there. */
  fetchBranch(remote: string, branch: string): Promise<string | null>;
  /** Commits reachable from `tip` and not from `base`, newest first. */
  commitsBetween(base: string, tip: string): Promise<CommitInfo[]>;
  /** One commit that is present locally (e.g. a branch tip just fetched): its identities and full message. */
  readCommit(sha: string): Promise<CommitInfo & { message: string }>;
  /** Is `ancestor` an ancestor of (or equal to) `descendant`? */
  isAncestor(ancestor: string, descendant: string): Promise<boolean>;
  /** Pushes `sha` to refs/heads/<branch>; `expected` is the lease (null: the branch must not exist). */
  push(remote: string, sha: string, branch: string, expected: string | null): Promise<PushResult>;
  /** Points a local branch at `sha` (creating or moving it) without touching the working tree. */
  setLocalBranch(branch: string, sha: string): Promise<void>;
  /** sha of the local branch refs/heads/<branch>, or null when it does not exist. */
  localBranchSha(branch: string): Promise<string | null>;
  /**
   * Makes the work tree the commit `sha` (HEAD detached), fetching it from `remote` first when it
   * is not present (a shallow clone stays shallow). Refuses when local changes would be lost.
   */
  checkoutDetached(remote: string, sha: string): Promise<void>;
  /**
   * The commits `from..to` replayed one by one onto `onto` (authors kept, committed as
   * `identity`), in a temporary work tree with hooks off: the checkout is not touched.
   */
  replayCommits(p: { from: string; to: string; onto: string; identity: Identity }): Promise<ReplayResult>;
  /** A merge commit of `theirs` into `ours` (first parent `ours`), made without a work tree. */
  mergeCommit(p: { ours: string; theirs: string; message: string; identity: Identity }): Promise<ReplayResult>;
  /**
   * The merge of `theirs` into `ours` as a tree, made without a work tree: a conflicting file
   * holds git's conflict markers; `conflicts` lists those files (empty: a clean merge).
   */
  mergeTree(ours: string, theirs: string): Promise<{ tree: string; conflicts: string[] }>;
  /** The best common ancestor of two commits, or null when they share no history. */
  mergeBase(a: string, b: string): Promise<string | null>;
}
