/**
 * Hunks of a change that only add, change or remove comments or whitespace (a stray
 * explanatory comment the model left behind). Pure.
 *
 * A hunk is comment-only when the file's significant tokens (js-tokens: everything but
 * comments and whitespace) are the same with and without that hunk; inside a hunk that also
 * changes code, added lines that hold only a comment are flagged. The whole file is
 * tokenized, so text inside a template literal or a string is never mistaken for a comment. JS/TS files only; other languages are not judged. They are flagged in the report
 * and shown once to the model; they are not dropped silently, because the gate verified the
 * tree that contains them.
 */
import jsTokens from 'js-tokens';
import { structuredPatch } from 'diff';

// The data type lives with the report data (types.ts); re-exported for the callers.
export type { CommentHunk } from './types.js';
import type { CommentHunk } from './types.js';

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

/** 0-based line numbers of `text` that hold a comment and nothing else (whole-file tokens decide). */
function commentLines(text: string): Set<number> | null {
  const comment = new Set<number>();
  const code = new Set<number>();
  let line = 0;
  try {
    for (const t of jsTokens(text)) {
      if (t.type === 'Invalid') return null;
      const breaks = t.type === 'LineTerminatorSequence' ? 1 : (t.value.match(/\r\n|[\n\r\u2028\u2029]/g) ?? []).length;
      if (t.type !== 'WhiteSpace' && t.type !== 'LineTerminatorSequence') {
        const into = t.type === 'MultiLineComment' || t.type === 'SingleLineComment' || t.type === 'HashbangComment' ? comment : code;
        for (let l = line; l <= line + breaks; l++) into.add(l);
      }
      line += breaks;
    }
  } catch {
    return null;
  }
  for (const l of code) comment.delete(l);
  return comment;
}

/**
 * The comment-only parts of one file's change (`before` null: a new file, never judged):
 * whole hunks whose removal leaves the file's significant tokens as they are, and, inside
 * hunks that also change code, runs of added lines that hold only a comment.
 */
export function commentOnlyHunks(file: string, before: string | null, after: string | null): CommentHunk[] {
  if (!JS.test(file) || before === null || after === null || before === after) return [];
  const now = significant(after);
  const comments = commentLines(after);
  if (!now || !comments) return [];
  const patch = structuredPatch(file, file, before, after, undefined, undefined, { context: 0 });
  const newLines = after.split('\n');
  const clip = (l: string) => (l.trim().length > 120 ? `${l.trim().slice(0, 119)}…` : l.trim());
  const out: CommentHunk[] = [];
  for (const h of patch.hunks) {
    const oldPart = h.lines.filter((l) => l.startsWith('-') || l.startsWith(' ')).map((l) => l.slice(1));
    const addedLines = h.lines.filter((l) => l.startsWith('+')).map((l) => l.slice(1));
    // newStart is 1-based; a hunk that adds nothing has newLines 0 and newStart before the spot.
    const start = h.newLines === 0 ? h.newStart : h.newStart - 1;
    const reverted = [...newLines.slice(0, start), ...oldPart, ...newLines.slice(start + h.newLines)].join('\n');
    const tokens = significant(reverted);
    if (tokens && tokens.length === now.length && tokens.every((t, i) => t === now[i])) {
      out.push({ file, line: h.newStart, added: addedLines.map(clip).filter(Boolean).slice(0, 5) });
      continue;
    }
    // A hunk that changes code: its added lines that hold only a comment (not moved from the removed side).
    const removed = new Set(oldPart.map((l) => l.trim()));
    let run: CommentHunk | null = null;
    for (let i = 0; i < h.newLines; i++) {
      const at = start + i;
      const text = newLines[at] ?? '';
      if (comments.has(at) && !removed.has(text.trim())) {
        if (!run) {
          run = { file, line: at + 1, added: [] };
          out.push(run);
        }
        if (run.added.length < 5) run.added.push(clip(text));
      } else run = null;
    }
  }
  return out;
}

/** One sentence per hunk, for the report and the model. */
export function describeCommentHunks(hunks: CommentHunk[]): string[] {
  return hunks.map((h) => `${h.file}:${h.line}${h.added.length ? ` adds \`${h.added[0]}\`${h.added.length > 1 ? ` (+${h.added.length - 1} line(s))` : ''}` : ' removes or re-spaces comments'}`);
}
