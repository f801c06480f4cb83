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
 * On every line rung the replacement is a three-way merge: old_string -> new_string is diffed line
 * by line; a line the model kept is written back exactly as the file has it (its indentation,
 * trailing whitespace, a whitespace-only line of a template literal); only changed lines come from
 * new_string, re-indented; a whitespace-only line of new_string is never rewritten; a blank line the
 * file has and old_string left out stays. The replacement keeps the file's line-ending style.
 */
import { diffArrays } from 'diff';

export type Rung = 'exact' | 'whitespace' | 'indentation' | 'blank-lines' | 'elision';

export type EditResult = { ok: true; content: string; rung: Rung; line: number } | { ok: false; error: string };

const MAX_ERROR = 1500;
const MAX_LISTED_LINES = 10;

// ------------------------------------------------------------------ helpers

interface Lines {
  /** Line texts without the '\n' (a CRLF line keeps its '\r'). */
  text: string[];
  /** Offset of the first character of each line; one extra entry: content.length. */
  start: number[];
}

function splitLines(content: string): Lines {
  const text = content.split('\n');
  const start: number[] = [];
  let off = 0;
  for (const t of text) {
    start.push(off);
    off += t.length + 1;
  }
  // A trailing newline leaves an empty last element that is not a line.
  if (text.length > 1 && text[text.length - 1] === '') {
    text.pop();
    start.pop();
  }
  start.push(content.length);
  return { text, start };
}

function rstrip(s: string): string {
  return s.replace(/[ \t\r\f\v]+$/, '');
}

function noCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

function isBlank(s: string): boolean {
  return rstrip(s) === '';
}

/** 1-based line numbers of ascending offsets, in one pass. */
function linesOfOffsets(content: string, offsets: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let nl = content.indexOf('\n');
  for (const off of offsets) {
    while (nl !== -1 && nl < off) {
      line++;
      nl = content.indexOf('\n', nl + 1);
    }
    out.push(line);
  }
  return out;
}

function fileEol(content: string): '\r\n' | '\n' {
  const crlf = (content.match(/\r\n/g) ?? []).length;
  const all = (content.match(/\n/g) ?? []).length;
  return crlf > 0 && crlf * 2 >= all ? '\r\n' : '\n';
}

function withEol(text: string, eol: string): string {
  const lf = text.replace(/\r\n/g, '\n');
  return eol === '\n' ? lf : lf.replace(/\n/g, eol);
}

/** old/new text as lines (LF-normalized, one final line break dropped). */
function blockLines(s: string): string[] {
  const lf = s.replace(/\r\n/g, '\n');
  return (lf.endsWith('\n') ? lf.slice(0, -1) : lf).split('\n');
}

function leadingWs(s: string): string {
  return /^[ \t]*/.exec(s)![0];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function listLines(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED_LINES).join(', ');
  return lines.length > MAX_LISTED_LINES ? `${shown}, … (${lines.length - MAX_LISTED_LINES} more)` : shown;
}

function ambiguous(count: number, lines: number[], qualifier: string): { ok: false; error: string } {
  return {
    ok: false,
    error:
      `old_string matches ${count} places${qualifier} (lines ${listLines(lines)}); nothing was changed. ` +
      'Include more surrounding lines in old_string so that it matches exactly one place.',
  };
}

function cap(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}

// ------------------------------------------------------------------ indentation

/** How indentation is measured and written: `width` columns per unit; tabs or spaces when writing. */
interface IndentStyle {
  width: number;
  tabs: boolean;
  /** The file indents in one style only, so indentation in the other style is a slip to convert even where nothing shifted. */
  pure: boolean;
}

/** The most common positive step between consecutive indented lines (space-indented only), if any. */
function spaceStep(lines: string[]): number | null {
  const counts = new Map<number, number>();
  let prev = -1;
  for (const l of lines) {
    if (isBlank(l)) continue;
    const ws = leadingWs(l);
    if (ws.includes('\t')) {
      prev = -1;
      continue;
    }
    if (prev >= 0 && ws.length > prev) {
      const d = ws.length - prev;
      if (d === 2 || d === 3 || d === 4 || d === 8) counts.set(d, (counts.get(d) ?? 0) + 1);
    }
    prev = ws.length;
  }
  let best: number | null = null;
  let bestN = 0;
  for (const [d, n] of counts) {
    if (n > bestN || (n === bestN && best !== null && d < best)) {
      best = d;
      bestN = n;
    }
  }
  return best;
}

function indentCounts(lines: string[]): { tabs: number; spaces: number } {
  let tabs = 0;
  let spaces = 0;
  for (const l of lines) {
    if (isBlank(l)) continue;
    if (l.startsWith('\t')) tabs++;
    else if (l.startsWith(' ')) spaces++;
  }
  return { tabs, spaces };
}

function usesTabs(lines: string[]): boolean | null {
  const { tabs, spaces } = indentCounts(lines);
  if (tabs === 0 && spaces === 0) return null;
  return tabs > spaces;
}

/**
 * The style used to compare and write: the file's own (tabs or spaces) and a unit width taken from
 * whichever side uses spaces (the model's text when the file uses tabs, so that a tab the model
 * rendered as N spaces is one unit).
 */
function indentStyle(fileLines: string[], modelLines: string[]): IndentStyle {
  const fileTabs = usesTabs(fileLines) ?? usesTabs(modelLines) ?? false;
  const fileStep = spaceStep(fileLines);
  const modelStep = spaceStep(modelLines);
  const width = fileTabs ? (modelStep ?? fileStep ?? 4) : (fileStep ?? modelStep ?? 4);
  const counts = indentCounts(fileLines);
  return { width, tabs: fileTabs, pure: (fileTabs ? counts.spaces : counts.tabs) === 0 && counts.tabs + counts.spaces > 0 };
}

function cols(ws: string, width: number): number {
  let c = 0;
  for (const ch of ws) c = ch === '\t' ? (Math.floor(c / width) + 1) * width : c + 1;
  return c;
}

/** Indentation in the other style than a file that uses one style only, converted; anything else as it is. */
function convertForeign(line: string, style: IndentStyle): string {
  if (!style.pure || isBlank(line)) return line;
  const ws = leadingWs(line);
  if (style.tabs ? !ws.startsWith(' '.repeat(style.width)) : !ws.includes('\t')) return line;
  return renderIndent(cols(ws, style.width), style) + line.slice(ws.length);
}

function renderIndent(c: number, style: IndentStyle): string {
  if (c <= 0) return '';
  return style.tabs ? '\t'.repeat(Math.floor(c / style.width)) + ' '.repeat(c % style.width) : ' '.repeat(c);
}

// ------------------------------------------------------------------ line-block matching

type Mode = 'whitespace' | 'indentation';

/** A matched window: file lines [first, last]; `fileOf[j]` is the file line of block line j (-1: a blank line the file lacks). */
interface Match {
  first: number;
  last: number;
  fileOf: number[];
  /** Column shift from the model's indentation to the file's (indentation mode). */
  shift: number;
  mode: Mode;
}

interface Prepared {
  block: string[];
  /** rstripped block lines (whitespace mode keys). */
  rs: string[];
  /** trimmed block lines. */
  trimmed: string[];
  blank: boolean[];
}

function prepare(block: string[]): Prepared {
  return { block, rs: block.map(rstrip), trimmed: block.map((l) => l.trim()), blank: block.map(isBlank) };
}

/**
 * Aligns the block with the file starting at line i. Blank lines pair with blank lines; with
 * `tolerance` one blank line may be missing on either side. Returns null when the lines differ.
 */
function align(file: string[], fileTrim: string[], fileRs: string[], p: Prepared, i: number, mode: Mode, tolerance: number, to: number): number[] | null {
  const fileOf: number[] = [];
  let f = i;
  let slack = tolerance;
  for (let j = 0; j < p.block.length; j++) {
    if (p.blank[j]) {
      if (f < to && fileTrim[f] === '') fileOf.push(f++);
      else if (slack > 0) {
        slack--;
        fileOf.push(-1);
      } else return null;
      continue;
    }
    if (f < to && fileTrim[f] === '' && slack > 0 && !(mode === 'whitespace' ? fileRs[f] === p.rs[j] : fileTrim[f] === p.trimmed[j])) {
      // the file has a blank line here that old_string left out
      if (j === 0) return null; // never start a window on a skipped line
      slack--;
      f++;
    }
    if (f >= to) return null;
    if (mode === 'whitespace' ? fileRs[f] !== p.rs[j] : fileTrim[f] !== p.trimmed[j]) return null;
    fileOf.push(f++);
  }
  return fileOf;
}

/** Relative indentation of the aligned non-blank lines must agree; returns the column shift or null. */
function indentShift(file: string[], p: Prepared, fileOf: number[], width: number): number | null {
  let base: { f: number; m: number } | null = null;
  for (let j = 0; j < p.block.length; j++) {
    if (p.blank[j] || fileOf[j] < 0) continue;
    const fc = cols(leadingWs(file[fileOf[j]]), width);
    const mc = cols(leadingWs(p.block[j]), width);
    if (!base) base = { f: fc, m: mc };
    else if (fc - base.f !== mc - base.m) return null;
  }
  return base ? base.f - base.m : 0;
}

interface FileView {
  text: string[];
  trim: string[];
  rs: string[];
}

function view(L: Lines): FileView {
  return { text: L.text, trim: L.text.map((l) => l.trim()), rs: L.text.map(rstrip) };
}

/** All windows in [from, to) where the block matches in `mode` (with `tolerance` blank lines of slack). */
function findBlock(fv: FileView, p: Prepared, mode: Mode, tolerance: number, width: number, from = 0, to = fv.text.length): Match[] {
  const hits: Match[] = [];
  if (p.block.length === 0 || p.blank.every(Boolean)) return hits;
  // start candidates: the first non-blank block line must match a file line
  const k0 = p.blank.findIndex((b) => !b);
  const seen = new Set<number>();
  for (let f = from; f < to; f++) {
    if (mode === 'whitespace' ? fv.rs[f] !== p.rs[k0] : fv.trim[f] !== p.trimmed[k0]) continue;
    // leading blank lines of the block: try the strict start first, then (with slack) without them
    const starts = [f - k0];
    for (let s = f - k0 + 1; s <= f && tolerance > 0; s++) starts.push(s);
    for (const s of starts) {
      if (s < from) continue;
      const fileOf = align(fv.text, fv.trim, fv.rs, p, s, mode, tolerance, to);
      if (!fileOf) continue;
      let shift = 0;
      if (mode === 'indentation') {
        const sh = indentShift(fv.text, p, fileOf, width);
        if (sh === null) continue;
        shift = sh;
      }
      const real = fileOf.filter((x) => x >= 0);
      const m: Match = { first: real[0], last: real[real.length - 1], fileOf, shift, mode };
      if (!seen.has(f)) {
        seen.add(f);
        hits.push(m);
      }
      break;
    }
  }
  return hits;
}

// ------------------------------------------------------------------ three-way replacement

/**
 * The lines that replace the window: old -> new diffed line by line; kept lines come from the file,
 * changed lines from new_string (re-indented in indentation mode), file blank lines old_string left
 * out stay unless both neighbours were removed.
 */
function mergeLines(fileText: string[], m: Match, oldLines: string[], newLines: string[], style: IndentStyle): string[] {
  const kept: boolean[] = new Array(oldLines.length).fill(false);
  const insertedBefore: string[][] = Array.from({ length: oldLines.length + 1 }, () => []);
  let o = 0;
  let n = 0;
  // lines compare as the model sent them (less a CR): it copies kept lines from old_string to new_string
  for (const part of diffArrays(oldLines.map(noCr), newLines.map(noCr))) {
    const count = part.value.length;
    if (part.added) {
      insertedBefore[o].push(...newLines.slice(n, n + count));
      n += count;
    } else if (part.removed) o += count;
    else {
      for (let k = 0; k < count; k++) kept[o + k] = true;
      o += count;
      n += count;
    }
  }
  const render = (l: string): string => {
    const line = noCr(l);
    if (isBlank(line)) return line; // a whitespace-only line is never rewritten
    if (m.mode === 'whitespace') return convertForeign(line, style);
    const ws = leadingWs(line);
    return renderIndent(cols(ws, style.width) + m.shift, style) + line.slice(ws.length);
  };
  const out: string[] = [];
  let prevFile = m.first - 1;
  for (let j = 0; j <= oldLines.length; j++) {
    const f = j < oldLines.length ? m.fileOf[j] : -1;
    // file lines between the previous mapped line and this one: blank lines old_string left out.
    // They stay unless both neighbours go: right after a kept line (ahead of what is inserted there),
    // or after the lines that replace a removed one.
    const gap: string[] = [];
    const prevKept = j > 0 ? kept[j - 1] : true;
    if (f >= 0) {
      for (let g = prevFile + 1; g < f; g++) if (prevKept || kept[j]) gap.push(noCr(fileText[g]));
      prevFile = f;
    }
    // Where the text inserted here goes relative to them: a block ending in a blank line of its own
    // follows them (the blank line separated the kept line above); anything else precedes them.
    // Except when the kept line above is a blank line right after removed lines: the line diff then
    // paired it with a blank line ahead of the block, which really belongs with the removed lines
    // (the block's own last blank line is the kept one), so the left-out blank lines follow it.
    const ins = insertedBefore[j];
    const slid = j > 1 && isBlank(noCr(oldLines[j - 1])) && !kept[j - 2];
    const gapFirst = prevKept && !slid && ins.length > 0 && isBlank(ins[ins.length - 1]) && !isBlank(ins[0]);
    if (gapFirst || ins.length === 0) out.push(...gap);
    for (const l of ins) out.push(render(l));
    if (!gapFirst && ins.length > 0) out.push(...gap);
    if (j === oldLines.length) break;
    if (f >= 0 && kept[j]) out.push(noCr(fileText[f]));
  }
  return out;
}

/** Whether old_string / new_string end with a line break: replacing "x\n" by "y" takes the line break away, as the exact rung would. */
interface Ends {
  old: boolean;
  new: boolean;
}

function endsOf(oldString: string, newString: string): Ends {
  return { old: oldString.endsWith('\n'), new: newString.endsWith('\n') };
}

/** Replaces file lines [first, last] with `lines` (joined by the file's line ending). */
function replaceLines(content: string, L: Lines, first: number, last: number, lines: string[], eol: string, ends?: Ends): string {
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

// ------------------------------------------------------------------ line rungs

type LineFind = { ok: true; match: Match; rung: Rung } | { ok: false; error: string } | null;

/** Rungs 2-4 for one block in file lines [from, to): the first rung with hits decides; several hits are refused. */
function findLines(fv: FileView, block: string[], style: IndentStyle, what: string, from = 0, to = fv.text.length): LineFind {
  const p = prepare(block);
  const rungs: Array<{ rung: Rung; mode: Mode; tol: number; qualifier: string }> = [
    { rung: 'whitespace', mode: 'whitespace', tol: 0, qualifier: ' when trailing whitespace and line endings are ignored' },
    { rung: 'indentation', mode: 'indentation', tol: 0, qualifier: ' when indentation is ignored' },
    { rung: 'blank-lines', mode: 'whitespace', tol: 1, qualifier: ' when one blank line more or less is allowed' },
    { rung: 'blank-lines', mode: 'indentation', tol: 1, qualifier: ' when indentation and one blank line more or less are ignored' },
  ];
  for (const r of rungs) {
    const hits = findBlock(fv, p, r.mode, r.tol, style.width, from, to);
    if (hits.length === 1) return { ok: true, match: hits[0], rung: r.rung };
    if (hits.length > 1) {
      const a = ambiguous(hits.length, hits.map((h) => h.first + 1), r.qualifier);
      return { ok: false, error: what === 'old_string' ? a.error : a.error.replace(/^old_string/, what) };
    }
  }
  return null;
}

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

function tryElision(content: string, L: Lines, fv: FileView, oldLines: string[], newLines: string[], eol: string, ends: Ends): EditResult | null {
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
    if (!found.ok) return { ok: false, error: found.error.replace(' (lines', ` ${where} (lines`).replace('Include more surrounding lines in old_string', 'Add more lines to that part') };
    matches.push(found.match);
    from = found.match.last + 1;
  }
  const first = matches[0].first;
  const last = matches[matches.length - 1].last;

  const newPieces = splitOnElision(newLines);
  if (newPieces.length === 1) {
    // the whole span is replaced; new_string is re-indented by the first piece's shift
    const m0 = matches[0];
    const span: Match = { first, last, fileOf: [], shift: m0.shift, mode: m0.mode };
    const lines = mergeLines(L.text, span, [], newLines, style);
    return { ok: true, content: replaceLines(content, L, first, last, lines, eol, ends), rung: 'elision', line: first + 1 };
  }
  if (newPieces.length !== pieces.length) {
    return {
      ok: false,
      error:
        `old_string has ${plural(pieces.length - 1, '"..." line')} but new_string has ${newPieces.length - 1}; nothing was changed. ` +
        'Either use the same number of "..." lines in both (the skipped lines are kept) or write new_string out in full ' +
        '(everything from the first to the last quoted line is replaced).',
    };
  }
  // Piecewise: replace each quoted piece, keep what the markers skipped. Work bottom-up so offsets stay valid.
  let out = content;
  for (let k = matches.length - 1; k >= 0; k--) {
    const lines = mergeLines(L.text, matches[k], pieces[k], newPieces[k], style);
    out = replaceLines(out, L, matches[k].first, matches[k].last, lines, eol, k === matches.length - 1 ? ends : undefined);
  }
  return { ok: true, content: out, rung: 'elision', line: first + 1 };
}

// ------------------------------------------------------------------ closest region

function bigrams(s: string): Set<string> {
  const t = s.trim().replace(/\s+/g, ' ');
  const set = new Set<string>();
  if (t.length === 1) set.add(t);
  for (let i = 0; i + 1 < t.length; i++) set.add(t.slice(i, i + 2));
  return set;
}

function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  const [small, big] = a.size < b.size ? [a, b] : [b, a];
  for (const x of small) if (big.has(x)) inter++;
  return (2 * inter) / (a.size + b.size);
}

/** A short description of the file region most similar to `block`, with line numbers. */
function closest(file: string[], block: string[]): string {
  const want = block.slice(0, 40);
  const n = want.length;
  if (file.length === 0 || n === 0) return 'The file is empty.';
  const cache = new Map<string, Set<string>>();
  const grams = (s: string) => {
    let g = cache.get(s);
    if (!g) {
      g = bigrams(s);
      cache.set(s, g);
    }
    return g;
  };
  const wantGrams = want.map(grams);
  // keep the work bounded on very large files: score at most ~2M line pairs
  const windows = Math.max(1, file.length - n + 1);
  const step = Math.max(1, Math.ceil((windows * n) / 2_000_000));
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < windows; i += step) {
    let score = 0;
    for (let j = 0; j < n && i + j < file.length; j++) score += similarity(wantGrams[j], grams(file[i + j]));
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  const pct = Math.round((100 * bestScore) / n);
  const shownCount = Math.min(n, 12, file.length - best);
  const width = String(best + shownCount).length;
  const shown = file
    .slice(best, best + shownCount)
    .map((l, k) => `${String(best + k + 1).padStart(width)}| ${cap(l.replace(/\r$/, ''), 160)}`);
  let diffNote = '';
  for (let j = 0; j < shownCount; j++) {
    const f = file[best + j];
    if (rstrip(f) !== rstrip(want[j])) {
      diffNote =
        `\nFirst difference at line ${best + j + 1}: the file has ${JSON.stringify(cap(rstrip(f), 120))}, ` +
        `old_string has ${JSON.stringify(cap(rstrip(want[j]), 120))}.`;
      break;
    }
  }
  return (
    `Closest region (lines ${best + 1}-${best + shownCount}, ~${pct}% similar):\n` +
    shown.join('\n') +
    (shownCount < n ? '\n…' : '') +
    diffNote
  );
}

// ------------------------------------------------------------------ the ladder

export function applyEdit(content: string, oldString: string, newString: string): EditResult {
  const result = ladder(content, oldString, newString);
  if (!result.ok && result.error.length > MAX_ERROR) return { ok: false, error: cap(result.error, MAX_ERROR) };
  return result;
}

function ladder(content: string, oldString: string, newString: string): EditResult {
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
  if (exactAt.length > 1) return ambiguous(exactAt.length, linesOfOffsets(content, exactAt), '');
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
    const lines = mergeLines(L.text, m, oldLines, newLines, style);
    return { ok: true, content: replaceLines(content, L, m.first, m.last, lines, eol, endsOf(oldString, newString)), rung: found.rung, line: m.first + 1 };
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
