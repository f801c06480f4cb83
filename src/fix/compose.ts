/** Changes as trees: the working tree composed from a base tree and the files a change touched. */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { FileChange, GitPort } from '../ports/git.js';

/** The paths a change touches (both sides of a rename). */
export function changedPaths(changes: FileChange[]): string[] {
  return [...new Set(changes.flatMap((c) => (c.oldPath && c.oldPath !== c.path ? [c.path, c.oldPath] : [c.path])))];
}

/**
 * Working tree := pristine checkout + the current content of the touched files; returns its snapshot.
 * Files the model deleted stay deleted.
 */
export async function composeChange(git: GitPort, pristineTree: string, touched: string[]): Promise<string> {
  const contents = new Map<string, Buffer | null>();
  for (const rel of touched) {
    const abs = path.join(git.root, rel);
    contents.set(rel, existsSync(abs) ? await readFile(abs) : null);
  }
  await git.restore(pristineTree);
  for (const [rel, data] of contents) {
    const abs = path.join(git.root, rel);
    if (data === null) {
      await rm(abs, { force: true });
    } else {
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, data);
    }
  }
  return git.snapshot();
}
