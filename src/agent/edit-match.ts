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
 */
import { diffArrays } from 'diff';

export type Rung = 'exact' | 'whitespace' | 'indentation' | 'blank-lines' | 'elision';

/** A refusal names the rung that refused (an ambiguous anchor or layout there), if any; none when nothing matched. */
export type EditResult = { ok: true; content: string; rung: Rung; line: number } | { ok: false; error: string; rung?: Rung };

const MAX_ERROR = 1500;
const MAX_LISTED_LINES = 40;

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
  /**
   * The file indents in one style only and the model's text never uses it, so indentation in the
   * other style is a slip to convert even where nothing shifted. A model that indents some lines
   * in the file's style means the others as written (a Go raw string's spaces in a tab file).
   */
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
  // a whole unit of the file's style (a JSDoc line's single space is no indentation)
  const own = fileTabs ? '\t' : ' '.repeat(Math.max(2, width));
  const modelUsesOwn = modelLines.some((l) => !isBlank(l) && l.startsWith(own));
  return { width, tabs: fileTabs, pure: (fileTabs ? counts.spaces : counts.tabs) === 0 && counts.tabs + counts.spaces > 0 && !modelUsesOwn };
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
function lineKey(line: string, fileShift = 0): string {
  return fileShift === 0 ? noCr(line) : `\u0000${line}`;
}

function sideOf(lines: string[], fileOf: number[]): OldSide {
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
function mergeLines(fileText: string[], m: Match, old: OldSide, newLines: string[], style: IndentStyle): Merge {
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

type LineFind = { ok: true; match: Match; rung: Rung } | { ok: false; error: string; rung: Rung } | null;

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
      return { ok: false, rung: r.rung, error: what === 'old_string' ? a.error : a.error.replace(/^old_string/, what) };
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
