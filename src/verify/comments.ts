/**
 * Hunks of a change that only add, change or remove comments or whitespace (a stray
 * explanatory comment the model left behind). Pure.
 *
 * A hunk is comment-only when the file's significant tokens (js-tokens: everything but
 * comments and whitespace) are the same with and without that hunk, so the whole-file
 * context decides (text inside a template literal or a string is never mistaken for a
 * comment). JS/TS files only; other languages are not judged. They are flagged in the report
 * and shown once to the model; they are not dropped silently, because the gate verified the
 * tree that contains them.
 */
import jsTokens from 'js-tokens';
import { structuredPatch } from 'diff';

export interface CommentHunk {
  file: string;
  /** First line of the hunk in the new file. */
  line: number;
  /** The added lines (trimmed, capped), for the report. */
  added: string[];
}

const JS = /\.(?:[cm]?[jt]sx?)$/;

function significant(text: string): string[] | null {
  const out: string[] = [];
  try {
    for (const t of jsTokens(text)) {
      if (t.type === 'WhiteSpace' || t.type === 'LineTerminatorSequence' || t.type === 'MultiLineComment' || t.type === 'SingleLineComment' || t.type === 'HashbangComment') continue;
      if (t.type === 'Invalid') return null;
      out.push(t.value);
    }
  } catch {
    return null;
  }
  return out;
}

/** The comment-only hunks of one file's change (`before` null: a new file, never judged). */
export function commentOnlyHunks(file: string, before: string | null, after: string | null): CommentHunk[] {
  if (!JS.test(file) || before === null || after === null || before === after) return [];
  const now = significant(after);
  if (!now) return [];
  const patch = structuredPatch(file, file, before, after, undefined, undefined, { context: 0 });
  const newLines = after.split('\n');
  const out: CommentHunk[] = [];
  for (const h of patch.hunks) {
    const oldPart = h.lines.filter((l) => l.startsWith('-') || l.startsWith(' ')).map((l) => l.slice(1));
    const addedLines = h.lines.filter((l) => l.startsWith('+')).map((l) => l.slice(1));
    // newStart is 1-based; a hunk that adds nothing has newLines 0 and newStart before the spot.
    const start = h.newLines === 0 ? h.newStart : h.newStart - 1;
    const reverted = [...newLines.slice(0, start), ...oldPart, ...newLines.slice(start + h.newLines)].join('\n');
    const tokens = significant(reverted);
    if (!tokens || tokens.length !== now.length || tokens.some((t, i) => t !== now[i])) continue;
    out.push({ file, line: h.newStart, added: addedLines.map((l) => (l.trim().length > 120 ? `${l.trim().slice(0, 119)}…` : l.trim())).filter(Boolean).slice(0, 5) });
  }
  return out;
}

/** One sentence per hunk, for the report and the model. */
export function describeCommentHunks(hunks: CommentHunk[]): string[] {
  return hunks.map((h) => `${h.file}:${h.line}${h.added.length ? ` adds \`${h.added[0]}\`${h.added.length > 1 ? ` (+${h.added.length - 1} line(s))` : ''}` : ' removes or re-spaces comments'}`);
}
