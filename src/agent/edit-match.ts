/**
 * The edit_file matching ladder. Pure: content in, content out.
 *
 * Rungs, tried in order, each with a uniqueness rule (an ambiguous anchor is refused, never
 * resolved by falling through to a looser rung):
 *   exact        old_string occurs exactly once, byte for byte, and starts and ends on line
 *                boundaries (leading indentation may be left out), or it is a single-line fragment
 *   whitespace   whole lines equal once trailing whitespace and CR are ignored
 *   indentation  whole lines equal with the same relative indentation, measured in columns (a tab
 *                is one indentation unit, so tabs and spaces compare); new_string is re-indented by
 *                the shift and written in the file's indentation style (tabs or spaces)
 *   blank-lines  as whitespace / indentation, tolerating one blank line missing from or added to old_string
 *   elision      old_string has `...` lines (also `// ...`, `# ...`, `/* ... *\/`); each piece between
 *                them matches uniquely, in order, through the rungs above, and the whole span is replaced
 *                (or, when new_string has as many `...` lines, each piece is replaced and the elided
 *                text is kept)
 *
 * On every line rung the replacement is a three-way merge of old_string -> new_string (what the model
 * changed) with old_string -> the matched file lines (layout only), so that nothing the model did not
 * ask for changes:
 *   - blank lines: where old_string has a blank run of another length than the file, the run that
 *     new_string copied unchanged from old_string (same length, next to a line it kept) takes the
 *     file's length; a run the model changed is written as the model wrote it; a run between two
 *     replaced lines goes with them; where the model inserted lines at that very place and which
 *     side the file's blank lines belong to cannot be told, the edit is refused with the file's lines
 *     (a wrong application is worse than a refusal). An old_string that ends (or starts) inside a
 *     blank run, with new_string carrying the file's whole run there, does not double it.
 *   - lines new_string keeps are written back exactly as the file has them (indentation, trailing
 *     whitespace, a whitespace-only line of a template literal); a change of whitespace alone is a change;
 *   - changed lines come from new_string, re-indented by the shift in the file's indentation style;
 *   - the replacement keeps the file's line-ending style.
 * Elision with new_string in full merges against the quoted pieces plus the file lines between them.
 * A batch (applyEdits) applies several edits in order, all or none.
 *
 * This file is the ladder and the batch; its parts are in edit-match/: text.ts (rungs, results,
 * line helpers), indent.ts, find.ts (line-block matching, rungs 2-4), merge.ts (the three-way
 * replacement), elision.ts, closest.ts (the region named in a refusal).
 */
import { type Rung, type EditResult, MAX_ERROR, splitLines, isBlank, linesOfOffsets, fileEol, withEol, blockLines, ambiguous, cap } from './edit-match/text.js';
import { indentStyle, convertForeign } from './edit-match/indent.js';
import { view, findLines } from './edit-match/find.js';
import { sideOf, mergeLines, endsOf, replaceLines } from './edit-match/merge.js';
import { tryElision } from './edit-match/elision.js';
import { closest } from './edit-match/closest.js';
export type { Rung, EditResult } from './edit-match/text.js';

// ------------------------------------------------------------------ the ladder

export function applyEdit(content: string, oldString: string, newString: string): EditResult {
  const result = ladder(content, oldString, newString);
  if (!result.ok && result.error.length > MAX_ERROR) return { ...result, error: cap(result.error, MAX_ERROR) };
  return result;
}

function ladder(content: string, oldString: string, newString: string): EditResult {
  // An empty file has one place to write to: an empty old_string there is not ambiguous.
  if (oldString === '' && content === '' && newString !== '') return { ok: true, content: newString, rung: 'exact', line: 1 };
  if (oldString === '') {
    return {
      ok: false,
      error:
        'old_string is empty; nothing was changed. To create a new file use write_file. To insert text into an existing file, ' +
        'put a nearby existing line in old_string and repeat it, plus the new text, in new_string.',
    };
  }
  if (oldString === newString) {
    return { ok: false, error: 'old_string and new_string are identical, so the edit would change nothing; nothing was changed.' };
  }
  const eol = fileEol(content);

  // 1. exact
  const exactAt: number[] = [];
  for (let i = content.indexOf(oldString); i !== -1; i = content.indexOf(oldString, i + 1)) {
    exactAt.push(i);
    if (exactAt.length >= 1000) break;
  }
  if (exactAt.length > 1) return { ...ambiguous(exactAt.length, linesOfOffsets(content, exactAt), ''), rung: 'exact' };
  if (exactAt.length === 1) {
    const at = exactAt[0];
    const lineStart = content.lastIndexOf('\n', at - 1) + 1;
    const pre = content.slice(lineStart, at);
    const end = at + oldString.length;
    const nl = content.indexOf('\n', end);
    const suf = content.slice(end, nl === -1 ? content.length : nl);
    const oldLf = oldString.replace(/\r\n/g, '\n');
    const multiLine = (oldLf.endsWith('\n') ? oldLf.slice(0, -1) : oldLf).includes('\n');
    const preWs = /^[ \t]*$/.test(pre);
    const sufWs = oldLf.endsWith('\n') || /^[ \t\r]*$/.test(suf);
    // A whole-line anchor starting inside a line's indentation goes to the line rungs, which check
    // uniqueness line by line and re-indent; so does a multi-line anchor not on line boundaries.
    const viaLines = multiLine ? !(preWs && sufWs) : pre !== '' && preWs && sufWs;
    if (!viaLines) {
      let replacement = eol === '\r\n' || newString.includes('\r\n') ? withEol(newString, eol) : newString;
      if (/^[ \t]/m.test(newString)) {
        // tabs sent for a file indented only with spaces (or the reverse) are converted, line by line
        const style = indentStyle(content.split('\n'), [...blockLines(oldString), ...blockLines(newString)]);
        const parts = replacement.split('\n');
        replacement = parts.map((l, k) => (k === 0 && pre !== '' ? l : convertForeign(l, style))).join('\n');
      }
      if (pre !== '' && preWs && !multiLine) {
        // a fragment at the start of a line's text: new lines after the first keep the line's indentation
        const [head, ...rest] = replacement.split('\n');
        replacement = [head, ...rest.map((l) => (isBlank(l) ? l : pre + l))].join('\n');
      }
      return {
        ok: true,
        content: content.slice(0, at) + replacement + content.slice(end),
        rung: 'exact',
        line: linesOfOffsets(content, [at])[0],
      };
    }
  }

  const L = splitLines(content);
  const fv = view(L);
  const oldLines = blockLines(oldString);
  const newLines = newString === '' ? [] : blockLines(newString);
  const style = indentStyle(L.text, [...oldLines, ...newLines]);

  // 2-4. whole lines: trailing whitespace, indentation, one blank line
  const found = findLines(fv, oldLines, style, 'old_string');
  if (found && !found.ok) return found;
  if (found && found.ok) {
    const m = found.match;
    const merged = mergeLines(L.text, m, sideOf(oldLines, m.fileOf), newLines, style);
    if (!merged.ok) return { ok: false, error: merged.error, rung: found.rung };
    return { ok: true, content: replaceLines(content, L, m.first, m.last, merged.lines, eol, endsOf(oldString, newString)), rung: found.rung, line: m.first + 1 };
  }

  // 5. elision
  const el = tryElision(content, L, fv, oldLines, newLines, eol, endsOf(oldString, newString));
  if (el) return el;

  return {
    ok: false,
    error:
      'old_string was not found in the file (not exactly, nor ignoring trailing whitespace/line endings, indentation or one blank line); ' +
      'nothing was changed. Read the region again and copy old_string exactly (without line-number prefixes).\n' +
      closest(L.text, oldLines),
  };
}

// ------------------------------------------------------------------ a batch

const RUNG_ORDER: Rung[] = ['exact', 'whitespace', 'indentation', 'blank-lines', 'elision'];

/** The looser of two rungs (a batch or a diff reports its loosest). */
export function looserRung(a: Rung, b: Rung): Rung {
  return RUNG_ORDER.indexOf(b) > RUNG_ORDER.indexOf(a) ? b : a;
}

/**
 * Several edits of one file, applied in order (each to the result of the ones before), or none:
 * the first that does not apply is reported with its number. `line` is the first changed line.
 */
export function applyEdits(content: string, edits: Array<{ old_string: string; new_string: string }>): EditResult & { count?: number } {
  if (edits.length === 0) return { ok: false, error: 'edits is empty; nothing was changed. Send at least one {"old_string": ..., "new_string": ...}.' };
  let out = content;
  let rung: Rung = 'exact';
  let line = Infinity;
  for (let k = 0; k < edits.length; k++) {
    const r = applyEdit(out, edits[k].old_string, edits[k].new_string);
    if (!r.ok) {
      const why = r.error.replace(/nothing was changed/, 'nothing was changed (no edit of the batch was applied)');
      return { ...r, error: `Edit ${k + 1} of ${edits.length}${k > 0 ? ', on the file as the edits before it left it' : ''}: ${why}` };
    }
    out = r.content;
    rung = looserRung(rung, r.rung);
    line = Math.min(line, r.line);
  }
  return { ok: true, content: out, rung, line, count: edits.length };
}
