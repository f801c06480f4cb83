/** The extract rendered within its budget: failing tests first, then errors, repository frames, and excerpts by priority. */
import type { Block } from './types.js';

/** Same error twice (other numbers, other ids) is one block. */
export function anchorKey(t: string): string {
  return t.slice(0, 160).replace(/\d+/g, '#');
}

export function render(
  x: { failingTests: string[]; failingFiles: string[]; failingPackages: string[]; errors: string[]; frames: string[]; blocks: Block[] },
  budget: number,
): { text: string; blocksShown: number; testsShown: number } {
  const parts: string[] = [];
  let used = 0;
  const push = (s: string): boolean => {
    if (used + s.length + 1 > budget) return false;
    parts.push(s);
    used += s.length + 1;
    return true;
  };
  let testsShown = 0;
  if (x.failingTests.length) {
    push(`Failing tests (${x.failingTests.length}):`);
    for (const name of x.failingTests) {
      if (!push(`- ${name}`)) break;
      testsShown++;
    }
    if (testsShown < x.failingTests.length) {
      parts.push(`- … and ${x.failingTests.length - testsShown} more (over the size budget)`);
    }
  }
  if (x.failingFiles.length) push(`Failing files or packages: ${x.failingFiles.slice(0, 30).join(', ')}`);
  if (x.failingPackages.length) push(`Failing workspace package(s) (test files above are relative to the package): ${x.failingPackages.slice(0, 10).join(', ')}`);
  // Errors and frames get at most half of what is left; the excerpts the rest.
  const share = used + Math.floor((budget - used) / 2);
  if (x.errors.length) {
    push('Errors:');
    for (const e of x.errors) if (used + e.length + 3 > share || !push(`- ${e}`)) break;
  }
  if (x.frames.length) {
    push('Stack frames in repository files:');
    for (const f of x.frames) if (used + f.length + 3 > share || !push(`- ${f}`)) break;
  }
  const order = x.blocks.map((b, i) => ({ b, i })).sort((p, q) => p.b.priority - q.b.priority || p.i - q.i);
  const chosen: { b: Block; i: number; text: string }[] = [];
  const header = 'Log excerpts (line numbers are those of the job log):';
  let room = budget - used - header.length - 1;
  for (const { b, i } of order) {
    const body = `[near line ${b.start}]\n${b.lines.join('\n')}`;
    if (body.length + 1 <= room) {
      chosen.push({ b, i, text: body });
      room -= body.length + 1;
    } else if (room > 300) {
      const cut = body.slice(0, room - 20);
      chosen.push({ b, i, text: `${cut.slice(0, cut.lastIndexOf('\n') > 0 ? cut.lastIndexOf('\n') : cut.length)}\n[…]` });
      room = 0;
    }
  }
  if (chosen.length) {
    parts.push(header);
    chosen.sort((p, q) => p.i - q.i);
    for (const c of chosen) parts.push(c.text);
  }
  const omitted = x.blocks.length - chosen.length;
  if (omitted > 0) parts.push(`(${omitted} more excerpt(s) left out to stay within the size budget)`);
  return { text: parts.join('\n'), blocksShown: chosen.length, testsShown };
}
