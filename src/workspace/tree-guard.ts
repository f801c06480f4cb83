/**
 * What a test run leaves in the working tree is never what gets published: the tree is snapshotted
 * before each run of the repository's tests (or checkers) and, when the run changed it, put back
 * exactly. So the files the model wrote hold the model's bytes when fix.ts composes the change from
 * them, whatever a test appended, and files a test created are gone. A daemon cannot write after
 * the put-back: the sandbox's PID namespace dies with the command (sandbox/sandbox.ts).
 * Files that existed before the run and were modified or deleted by it are remembered for the
 * report ("a test run modified the working tree"); files it only created are removed silently.
 */
import type { GitPort } from '../ports/git.js';

/** Runs `f` with the working tree put back afterwards; adds what it modified to `modified`. */
export async function treeKept<T>(git: GitPort, f: () => Promise<T>, modified: Set<string>): Promise<T> {
  const before = await git.snapshot();
  const result = await f();
  const after = await git.snapshot();
  if (after !== before) {
    for (const c of await git.changes(before, after)) {
      if (c.status === 'modified' || c.status === 'deleted') modified.add(c.path);
      if (c.status === 'renamed' && c.oldPath) modified.add(c.oldPath);
    }
    await git.restore(before);
  }
  return result;
}

/** The report's line about it, or nothing. Pure. */
export function treeLine(modified: Set<string>): string[] {
  if (modified.size === 0) return [];
  const shown = [...modified].sort().slice(0, 5);
  const more = modified.size > shown.length ? ` and ${modified.size - shown.length} more` : '';
  return [`a test run modified the working tree (${shown.join(', ')}${more}): it was put back after each run, and nothing a test wrote is published`];
}
