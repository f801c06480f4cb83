/** The three-way replacement: old_string -> new_string (what the model changed) merged with old_string -> the matched file lines (layout only). */
import { diffArrays } from 'diff';
import { type Lines, noCr, isBlank, leadingWs, plural, cap } from './text.js';
import { type IndentStyle, cols, convertForeign, renderIndent } from './indent.js';
import type { Match } from './find.js';

// ------------------------------------------------------------------ three-way replacement

/** old_string's side of a merge: its lines, the keys they compare by, and the file line of each (-1: a blank line the file lacks). */
interface OldSide {
  lines: string[];
  keys: string[];
  fileOf: number[];
}

/**
 * What a line compares by when old_string is diffed against new_string: the line as the model sent it
 * (less a CR), since the model copies the lines it keeps; a change of whitespace alone is a change.
 * A file line (the part an elision skipped) compares as itself when nothing was re-indented, and
 * equals no model line otherwise (new_string's copy of it is then written re-indented, like a new line).
 */
export function lineKey(line: string, fileShift = 0): string {
  return fileShift === 0 ? noCr(line) : `\u0000${line}`;
}

export function sideOf(lines: string[], fileOf: number[]): OldSide {
  return { lines: lines.map(noCr), keys: lines.map((l) => lineKey(l)), fileOf };
}

/** For each old line, the index of the new line the line diff keeps it as, or -1 (removed). */
function keptAs(oldKeys: string[], newKeys: string[]): number[] {
  const to: number[] = new Array(oldKeys.length).fill(-1);
  let o = 0;
  let n = 0;
  for (const part of diffArrays(oldKeys, newKeys)) {
    const count = part.value.length;
    if (part.added) n += count;
    else if (part.removed) o += count;
    else for (let k = 0; k < count; k++) to[o++] = n++;
  }
  return to;
}

type Merge = { ok: true; lines: string[] } | { ok: false; error: string };

/** A run of blank lines between two non-blank lines of old_string (or its start/end) whose length in the file differs. */
interface RunDiff {
  /** old_string indices of the non-blank lines around the run (-1 / length: the start / end). */
  p: number;
  q: number;
  /** file lines around it (0-based; first - 1 / last + 1 at the ends). */
  fp: number;
  fq: number;
  /** the run's length in old_string and in the file. */
  inOld: number;
  inFile: number;
}

function runDiffs(old: OldSide, first: number, last: number): RunDiff[] {
  const out: RunDiff[] = [];
  const marks = [-1, ...old.lines.flatMap((l, j) => (isBlank(l) ? [] : [j])), old.lines.length];
  for (let k = 0; k + 1 < marks.length; k++) {
    const p = marks[k];
    const q = marks[k + 1];
    const fp = p < 0 ? first - 1 : old.fileOf[p];
    const fq = q >= old.lines.length ? last + 1 : old.fileOf[q];
    const inOld = q - p - 1;
    const inFile = fq - fp - 1;
    if (inOld !== inFile) out.push({ p, q, fp, fq, inOld, inFile });
  }
  return out;
}

function blankRun(lines: string[], from: number, step: 1 | -1, stop: number): number {
  let n = 0;
  for (let i = from; i !== stop && isBlank(lines[i]); i += step) n++;
  return n;
}

/**
 * new_string with the file's own blank-line layout put back where old_string got it wrong: a blank
 * run that new_string copied unchanged from old_string (same length, next to a line it kept) takes
 * the file's length; a run the model changed is written as the model wrote it; a run inside
 * replaced lines goes with them. When the model inserted lines on both sides of which it left the
 * run as it was, where the file's blank line belongs is ambiguous: `ambiguous` names that run.
 */
function relayout(old: OldSide, newLines: string[], newKeys: string[], diffs: RunDiff[]): { lines: string[] } | { ambiguous: RunDiff } {
  const to = keptAs(old.keys, newKeys);
  const keptNew = new Set(to.filter((n) => n >= 0));
  // the new lines from `from` going `step` up to the next kept line (exclusive) hold a blank line
  const blankInStretch = (from: number, step: 1 | -1): boolean => {
    for (let i = from; i >= 0 && i < newLines.length && !keptNew.has(i); i += step) if (isBlank(newLines[i])) return true;
    return false;
  };
  const edits: Array<{ at: number; remove: number; insert: number }> = [];
  for (const d of diffs) {
    const pKept = d.p < 0 || to[d.p] >= 0;
    const qKept = d.q >= old.lines.length || to[d.q] >= 0;
    let np = d.p < 0 ? -1 : to[d.p];
    let nq = d.q >= old.lines.length ? newLines.length : to[d.q];
    if (pKept && qKept) {
      // The line diff pairs a repeated line ("}") arbitrarily: when the lines inserted between the
      // two kept ones end with a copy of the first (or start with a copy of the second), the pair
      // stays together there and the insertion goes before (after) it.
      const lastIns = nq - 1 - blankRun(newLines, nq - 1, -1, np);
      const firstIns = np + 1 + blankRun(newLines, np + 1, 1, nq);
      if (d.p >= 0 && lastIns > np && newKeys[lastIns] === old.keys[d.p]) np = lastIns;
      else if (d.q < old.lines.length && firstIns < nq && newKeys[firstIns] === old.keys[d.q]) nq = firstIns;
    }
    const set = (at: number, len: number) => {
      if (len === d.inOld) edits.push({ at, remove: len, insert: d.inFile });
    };
    if (pKept && qKept) {
      const lead = blankRun(newLines, np + 1, 1, nq);
      if (np + 1 + lead === nq) {
        set(np + 1, lead); // only blank lines between the two kept lines
        continue;
      }
      // lines inserted between them: a run of old_string's length next to one kept line is its copy;
      // old_string had none there (nothing to copy), or both sides look like the copy: ambiguous
      const trail = blankRun(newLines, nq - 1, -1, np);
      if (d.inOld === 0) {
        // nothing to copy: new_string with the file's blank lines on one side is as the model meant it; otherwise ambiguous
        if (lead === d.inFile || trail === d.inFile) continue;
        return { ambiguous: d };
      }
      if (lead === d.inOld && trail === d.inOld) return { ambiguous: d };
      if (lead === d.inOld) set(np + 1, lead);
      else set(nq - trail, trail);
    } else if (pKept) {
      // the line after the run was replaced: the run stays after the kept line above, unless old_string
      // had none there and the replacement has blank lines of its own (which may be it)
      const lead = blankRun(newLines, np + 1, 1, newLines.length);
      if (d.inOld === 0 && lead !== d.inFile && blankInStretch(np + 1, 1)) return { ambiguous: d };
      set(np + 1, lead);
    } else if (qKept) {
      const trail = blankRun(newLines, nq - 1, -1, -1);
      if (d.inOld === 0 && trail !== d.inFile && blankInStretch(nq - 1, -1)) return { ambiguous: d };
      set(nq - trail, trail);
    }
  }
  const lines = [...newLines];
  for (const e of edits.sort((a, b) => b.at - a.at)) {
    const run = lines.slice(e.at, e.at + e.remove);
    const kept = run.slice(0, e.insert);
    while (kept.length < e.insert) kept.push('');
    lines.splice(e.at, e.remove, ...kept);
  }
  return { lines };
}

/**
 * old_string that starts or ends inside a run of blank lines quotes only part of it. When new_string
 * has, at that edge, exactly the file's whole run, the model wrote the file's layout, not added blank
 * lines: its run is cut to the part old_string quoted (the rest stays outside the window).
 */
function edgeRuns(fileText: string[], m: Match, oldLines: string[], news: string[]): string[] {
  const lead = blankRun(oldLines, 0, 1, oldLines.length);
  const trail = blankRun(oldLines, oldLines.length - 1, -1, -1);
  if (lead === oldLines.length) return news;
  let out = news;
  if (trail > 0) {
    const outside = blankRun(fileText, m.last + 1, 1, fileText.length);
    const n = blankRun(out, out.length - 1, -1, -1);
    if (outside > 0 && n < out.length && n === trail + outside) out = out.slice(0, out.length - outside);
  }
  if (lead > 0) {
    const outside = blankRun(fileText, m.first - 1, -1, -1);
    const n = blankRun(out, 0, 1, out.length);
    if (outside > 0 && n < out.length && n === lead + outside) out = out.slice(outside);
  }
  return out;
}

function layoutAmbiguity(fileText: string[], d: RunDiff): string {
  const from = Math.max(0, d.fp);
  const to = Math.min(fileText.length - 1, d.fq);
  const width = String(to + 1).length;
  const shown = fileText.slice(from, to + 1).map((l, k) => `${String(from + k + 1).padStart(width)}| ${cap(noCr(l), 160)}`);
  const what =
    d.inFile > d.inOld
      ? `the file has ${plural(d.inFile, 'blank line')} there and old_string ${d.inOld === 0 ? 'has none' : `has ${d.inOld}`}`
      : `old_string has ${plural(d.inOld, 'blank line')} there and the file ${d.inFile === 0 ? 'has none' : `has ${d.inFile}`}`;
  return (
    `old_string matches lines ${from + 1}-${to + 1} only if blank lines are ignored (${what}), and new_string changes the lines right there, ` +
    'so where the blank lines belong is ambiguous; nothing was changed. The file reads:\n' +
    shown.join('\n') +
    '\nSend old_string with the blank lines exactly as the file has them.'
  );
}

/**
 * The lines that replace the window [m.first, m.last]: a three-way merge of old_string -> new_string
 * (the model's change) with old_string -> file (layout only: blank lines, indentation, trailing
 * whitespace, line endings). Blank-line differences are re-applied to new_string first (`relayout`),
 * so that old_string lines up with the window one to one; then lines new_string keeps come from the
 * file byte for byte, changed and added lines from new_string (re-indented by the shift, in the
 * file's indentation style; a whitespace-only line is never rewritten), removed lines go.
 */
export function mergeLines(fileText: string[], m: Match, old: OldSide, newLines: string[], style: IndentStyle): Merge {
  let news = edgeRuns(fileText, m, old.lines, newLines.map(noCr));
  let newKeys = news.map((l) => lineKey(l));
  const diffs = runDiffs(old, m.first, m.last);
  if (diffs.length > 0) {
    const r = relayout(old, news, newKeys, diffs);
    if ('ambiguous' in r) return { ok: false, error: layoutAmbiguity(fileText, r.ambiguous) };
    news = r.lines;
    newKeys = news.map((l) => lineKey(l));
  }
  // old_string as the window has it: its lines where the file has them, a blank line where the file has one it left out
  const windowKeys: string[] = [];
  const byFile = new Map<number, string>();
  old.fileOf.forEach((f, j) => f >= 0 && byFile.set(f, old.keys[j]));
  for (let f = m.first; f <= m.last; f++) windowKeys.push(byFile.get(f) ?? '');
  const render = (line: string): string => {
    if (isBlank(line)) return line;
    if (m.mode === 'whitespace') return convertForeign(line, style);
    const ws = leadingWs(line);
    return renderIndent(cols(ws, style.width) + m.shift, style) + line.slice(ws.length);
  };
  const out: string[] = [];
  let f = m.first;
  let n = 0;
  for (const part of diffArrays(windowKeys, newKeys)) {
    const count = part.value.length;
    if (part.added) for (let k = 0; k < count; k++) out.push(render(news[n++]));
    else if (part.removed) f += count;
    else
      for (let k = 0; k < count; k++) {
        out.push(noCr(fileText[f++]));
        n++;
      }
  }
  return { ok: true, lines: out };
}

/** Whether old_string / new_string end with a line break: replacing "x\n" by "y" takes the line break away, as the exact rung would. */
export interface Ends {
  old: boolean;
  new: boolean;
}

export function endsOf(oldString: string, newString: string): Ends {
  return { old: oldString.endsWith('\n'), new: newString.endsWith('\n') };
}

/** Replaces file lines [first, last] with `lines` (joined by the file's line ending). */
export function replaceLines(content: string, L: Lines, first: number, last: number, lines: string[], eol: string, ends?: Ends): string {
  const startOff = L.start[first];
  const lastText = L.text[last];
  let endOff = L.start[last] + lastText.length - (lastText.endsWith('\r') ? 1 : 0);
  if (ends && lines.length > 0) {
    if (ends.old && !ends.new) endOff = L.start[last + 1];
    else if (!ends.old && ends.new) lines = [...lines, ''];
  }
  if (lines.length === 0) {
    // remove the lines with one line break: the following one, or the preceding one at the end of the file
    const afterEnd = L.start[last + 1];
    if (afterEnd > endOff) return content.slice(0, startOff) + content.slice(afterEnd);
    const beforeStart = first > 0 ? L.start[first] - (L.text[first - 1].endsWith('\r') ? 2 : 1) : startOff;
    return content.slice(0, beforeStart) + content.slice(endOff);
  }
  return content.slice(0, startOff) + lines.join(eol) + content.slice(endOff);
}
