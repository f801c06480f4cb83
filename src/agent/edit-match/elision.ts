/** The elision rung: old_string with `...` lines, each piece matched uniquely and in order. */
import { type EditResult, type Lines, noCr, isBlank, plural } from './text.js';
import { indentStyle } from './indent.js';
import { type Match, type FileView, findLines } from './find.js';
import { lineKey, sideOf, mergeLines, type Ends, replaceLines } from './merge.js';
import { closest } from './closest.js';

// ------------------------------------------------------------------ elision

const ELISION = /^\s*(?:\.\.\.|…|\/\/\s*(?:\.\.\.|…)|#\s*(?:\.\.\.|…)|\/\*\s*(?:\.\.\.|…)\s*\*\/|<!--\s*(?:\.\.\.|…)\s*-->|--\s*(?:\.\.\.|…))\s*$/;

function splitOnElision(lines: string[]): string[][] {
  const parts: string[][] = [[]];
  for (const l of lines) {
    if (ELISION.test(l)) parts.push([]);
    else parts[parts.length - 1].push(l);
  }
  return parts;
}

export function tryElision(content: string, L: Lines, fv: FileView, oldLines: string[], newLines: string[], eol: string, ends: Ends): EditResult | null {
  const pieces = splitOnElision(oldLines);
  if (pieces.length < 2) return null;
  if (pieces.some((p) => p.every(isBlank))) {
    return {
      ok: false,
      error:
        'old_string uses "..." to skip lines, but it must start and end with real lines from the file, with real lines between ' +
        'consecutive "..." markers; nothing was changed. Quote the first and last lines of the region exactly.',
    };
  }
  const style = indentStyle(L.text, [...oldLines, ...newLines]);
  // Each piece must occur exactly once in the part of the file after the previous piece.
  const matches: Match[] = [];
  let from = 0;
  for (let k = 0; k < pieces.length; k++) {
    const where = k === 0 ? 'in the file' : 'after the previous quoted part';
    const label = k === 0 ? 'The part before the first "..."' : k === pieces.length - 1 ? 'The part after the last "..."' : `Part ${k + 1} (between "..." markers)`;
    const found = findLines(fv, pieces[k], style, `${label} of old_string`, from);
    if (found === null) {
      return {
        ok: false,
        error:
          `${label} of old_string was not found ${where}; nothing was changed. ` +
          'Copy those lines exactly from read_file output (without the line-number prefix).\n' +
          closest(L.text, pieces[k]),
      };
    }
    if (!found.ok) return { ok: false, rung: 'elision', error: found.error.replace(' (lines', ` ${where} (lines`).replace('Include more surrounding lines in old_string', 'Add more lines to that part') };
    matches.push(found.match);
    from = found.match.last + 1;
  }
  const first = matches[0].first;
  const last = matches[matches.length - 1].last;

  const newPieces = splitOnElision(newLines);
  if (newPieces.length === 1) {
    // The whole span is replaced. old_string for the merge is the pieces with the file's elided lines
    // between them (in the model's indentation frame), so that the lines new_string copies from the
    // pieces or from the elided part come from the file, and the pieces' layout slips are mapped back.
    const m0 = matches[0];
    const lines: string[] = [];
    const keys: string[] = [];
    const fileOf: number[] = [];
    for (let k = 0; k < matches.length; k++) {
      const piece = sideOf(pieces[k], matches[k].fileOf);
      lines.push(...piece.lines);
      keys.push(...piece.keys);
      fileOf.push(...piece.fileOf);
      if (k + 1 < matches.length) {
        for (let f = matches[k].last + 1; f < matches[k + 1].first; f++) {
          lines.push(noCr(L.text[f]));
          keys.push(lineKey(L.text[f], m0.shift));
          fileOf.push(f);
        }
      }
    }
    const span: Match = { first, last, fileOf, shift: m0.shift, mode: m0.mode };
    const merged = mergeLines(L.text, span, { lines, keys, fileOf }, newLines, style);
    if (!merged.ok) return { ok: false, error: merged.error, rung: 'elision' };
    return { ok: true, content: replaceLines(content, L, first, last, merged.lines, eol, ends), rung: 'elision', line: first + 1 };
  }
  if (newPieces.length !== pieces.length) {
    return {
      ok: false,
      rung: 'elision',
      error:
        `old_string has ${plural(pieces.length - 1, '"..." line')} but new_string has ${newPieces.length - 1}; nothing was changed. ` +
        'Either use the same number of "..." lines in both (the skipped lines are kept) or write new_string out in full ' +
        '(everything from the first to the last quoted line is replaced).',
    };
  }
  // Piecewise: replace each quoted piece, keep what the markers skipped. Work bottom-up so offsets stay valid.
  let out = content;
  for (let k = matches.length - 1; k >= 0; k--) {
    const merged = mergeLines(L.text, matches[k], sideOf(pieces[k], matches[k].fileOf), newPieces[k], style);
    if (!merged.ok) return { ok: false, error: merged.error, rung: 'elision' };
    out = replaceLines(out, L, matches[k].first, matches[k].last, merged.lines, eol, k === matches.length - 1 ? ends : undefined);
  }
  return { ok: true, content: out, rung: 'elision', line: first + 1 };
}
