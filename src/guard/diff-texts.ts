/**
 * A file's text before a change, rebuilt from its text after and the change's unified diff (the
 * diff's hunks undone), so that the guard can read the test files on both sides without
 * checking out the old tree. Pure.
 */

interface Section {
  path: string;
  oldPath: string;
  added: boolean;
  deleted: boolean;
  /** Each hunk: where it starts in the new file (1-based) and its lines with their prefix. */
  hunks: { newStart: number; lines: string[] }[];
}

function sections(diff: string): Section[] {
  const out: Section[] = [];
  let cur: Section | null = null;
  let hunk: Section['hunks'][number] | null = null;
  for (const line of diff.split('\n')) {
    const head = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (head) {
      cur = { path: head[2], oldPath: head[1], added: false, deleted: false, hunks: [] };
      out.push(cur);
      hunk = null;
      continue;
    }
    if (!cur) continue;
    const h = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (h) {
      hunk = { newStart: Number(h[1]), lines: [] };
      cur.hunks.push(hunk);
      continue;
    }
    if (!hunk) {
      if (line.startsWith('new file mode')) cur.added = true;
      else if (line.startsWith('deleted file mode')) cur.deleted = true;
      else if (line.startsWith('rename from ')) cur.oldPath = line.slice('rename from '.length);
      else if (line.startsWith('rename to ')) cur.path = line.slice('rename to '.length);
      continue;
    }
    // `\ No newline at end of file`, and the empty string after the diff's last newline
    if (line.startsWith('\\') || line === '') continue;
    hunk.lines.push(line);
  }
  return out;
}

/** The text before the change, from the text after and this file's hunks; null when the hunks do not fit the text. */
function undo(after: string, hunks: Section['hunks']): string | null {
  const lines = after.split('\n');
  const out: string[] = [];
  let at = 0; // index into lines (0-based)
  for (const h of hunks) {
    // a pure deletion at the top has newStart 0
    const start = Math.max(0, h.newStart - 1 + (h.lines.every((l) => l.startsWith('-')) ? 1 : 0));
    if (start < at || start > lines.length) return null;
    out.push(...lines.slice(at, start));
    at = start;
    for (const l of h.lines) {
      const body = l.slice(1);
      if (l.startsWith('-')) out.push(body);
      else if (l.startsWith('+')) {
        if (lines[at] !== body) return null;
        at++;
      } else {
        if (lines[at] !== body) return null;
        out.push(body);
        at++;
      }
    }
  }
  out.push(...lines.slice(at));
  return out.join('\n');
}

export interface ChangedText {
  path: string;
  oldPath: string;
  before: string | null;
  after: string | null;
  /** Its texts could not be had (the diff does not fit the file): the guard reads it by its lines alone. */
  unread?: true;
}

/**
 * The texts of the files of `diff` that `want` selects, on both sides: after read by `read`
 * (the working tree at the change), before rebuilt. A file whose text cannot be had is marked `unread`.
 */
export async function changedTexts(diff: string, want: (path: string, oldPath: string) => boolean, read: (path: string) => Promise<string | null>): Promise<ChangedText[]> {
  const out: ChangedText[] = [];
  for (const s of sections(diff)) {
    if (!want(s.path, s.oldPath)) continue;
    const after = s.deleted ? null : await read(s.path);
    if (!s.deleted && after === null) {
      out.push({ path: s.path, oldPath: s.oldPath, before: null, after: null, unread: true });
      continue;
    }
    let before: string | null;
    if (s.added) before = null;
    else if (s.deleted) before = s.hunks.flatMap((h) => h.lines.map((l) => l.slice(1))).join('\n');
    else before = undo(after ?? '', s.hunks);
    if (!s.added && before === null) {
      out.push({ path: s.path, oldPath: s.oldPath, before: null, after: null, unread: true });
      continue;
    }
    out.push({ path: s.path, oldPath: s.oldPath, before, after });
  }
  return out;
}
