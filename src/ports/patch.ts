/**
 * Patches between trees, for bundles (src/bundle/): made in the propose job, applied in the
 * publish job. Implemented by adapters/patch.ts. Every operation works on git objects only
 * (trees, blobs, a private index), never on a work tree, and runs nothing of the repository.
 */

/** One path that differs between two trees, with the raw git modes (`100644`, `100755`, `120000` symlink, `160000` gitlink, `000000` absent). */
export interface TreeChange {
  path: string;
  status: 'added' | 'modified' | 'deleted' | 'type-changed';
  oldMode: string;
  newMode: string;
  additions: number;
  deletions: number;
  binary: boolean;
}

export type ApplyResult = { ok: true; tree: string } | { ok: false; error: string };

export type PatchPaths = { ok: true; paths: string[] } | { ok: false; error: string };

export interface PatchGit {
  /** A binary-safe patch (`diff --binary --full-index`, no renames) turning `fromTree` into `toTree`. Empty when equal. */
  binaryPatch(fromTree: string, toTree: string): Promise<Buffer>;
  /** Every path a patch names (old and new sides), as git parses it, without applying it. */
  patchPaths(patch: Buffer): Promise<PatchPaths>;
  /** Applies `patch` to `baseTree` in a private index and writes the resulting tree; the checkout is never touched. */
  applyToTree(baseTree: string, patch: Buffer): Promise<ApplyResult>;
  /** Per-path changes between two trees (recursive, no rename detection). */
  treeChanges(fromTree: string, toTree: string): Promise<TreeChange[]>;
  /** Content of the blob at `path` in `tree`. */
  readBlob(tree: string, path: string): Promise<Buffer>;
  /** Is `sha` a commit present in the object store? */
  hasCommit(sha: string): Promise<boolean>;
}
