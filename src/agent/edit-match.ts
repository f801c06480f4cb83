/**
 * The edit_file matching ladder. Pure: content in, content out.
 *
 * Rungs, tried in order, each with a uniqueness rule (an ambiguous anchor is refused, never
 * resolved by falling through to a looser rung):
 *   exact        old_string occurs exactly once, byte for byte
 *   whitespace   whole lines equal once trailing whitespace and CR are ignored
 *   indentation  whole lines equal after removing each side's common leading indentation;
 *                new_string is re-indented by the same shift
 *   elision      old_string has `...` lines (also `// ...`, `# ...`, `/* ... *\/`); the pieces
 *                between them match uniquely, in order, and the whole span is replaced
 *                (or, when new_string has as many `...` lines, each piece is replaced and the
 *                elided text is kept)
 * The replacement keeps the file's line-ending style.
 */

export type Rung = 'exact' | 'whitespace' | 'indentation' | 'elision';

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

/** old/new text as lines (LF-normalized); `endsWithNewline` when the text ended with a line break. */
function blockLines(s: string): { lines: string[]; endsWithNewline: boolean } {
  const lf = s.replace(/\r\n/g, '\n');
  const endsWithNewline = lf.endsWith('\n');
  const lines = (endsWithNewline ? lf.slice(0, -1) : lf).split('\n');
  return { lines, endsWithNewline };
}

function leadingWs(s: string): string {
  return /^[ \t]*/.exec(s)![0];
}

/** Longest common leading-whitespace prefix of the non-blank lines. */
function commonIndent(lines: string[]): string {
  let common: string | null = null;
  for (const l of lines) {
    if (isBlank(l)) continue;
    const ws = leadingWs(l);
    if (common === null) common = ws;
    else {
      let i = 0;
      while (i < common.length && i < ws.length && common[i] === ws[i]) i++;
      common = common.slice(0, i);
    }
    if (common === '') break;
  }
  return common ?? '';
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

// ------------------------------------------------------------------ line-block matching

type Mode = 'whitespace' | 'indentation';

/** Start indices (0-based line numbers) in [from, to) where `block` matches the file's lines. */
function findBlock(file: string[], block: string[], mode: Mode, from = 0, to = file.length): number[] {
  const n = block.length;
  const hits: number[] = [];
  if (n === 0 || block.every(isBlank)) return hits;
  const want = mode === 'whitespace' ? block.map(rstrip) : dedent(block);
  const trimmed = block.map((l) => l.trim());
  for (let i = from; i + n <= to; i++) {
    if (mode === 'whitespace') {
      let ok = true;
      for (let j = 0; j < n; j++) {
        if (rstrip(file[i + j]) !== want[j]) {
          ok = false;
          break;
        }
      }
      if (ok) hits.push(i);
    } else {
      // cheap rejection before dedenting the window: the trimmed lines must agree
      let plausible = true;
      for (let j = 0; j < n; j++) {
        if (file[i + j].trim() !== trimmed[j]) {
          plausible = false;
          break;
        }
      }
      if (!plausible) continue;
      const got = dedent(file.slice(i, i + n));
      if (got.every((g, j) => g === want[j])) hits.push(i);
    }
  }
  return hits;
}

function dedent(lines: string[]): string[] {
  const ind = commonIndent(lines);
  return lines.map((l) => (isBlank(l) ? '' : rstrip(l.slice(ind.length))));
}

/** Re-indents new_string lines by the shift that maps `fromIndent` (model's) onto `toIndent` (file's). */
function reindent(lines: string[], fromIndent: string, toIndent: string): string[] {
  return lines.map((l) => {
    if (isBlank(l)) return '';
    if (l.startsWith(fromIndent)) return toIndent + l.slice(fromIndent.length);
    // less indented than the block's base: outdent from the file's base by the same amount
    const ws = leadingWs(l);
    const d = Math.max(0, fromIndent.length - ws.length);
    return toIndent.slice(0, Math.max(0, toIndent.length - d)) + l.slice(ws.length);
  });
}

/** Replaces file lines [first, last] (inclusive); with `throughEol` the last line's break goes too. */
function spliceLines(content: string, L: Lines, first: number, last: number, throughEol: boolean, replacement: string): string {
  const startOff = L.start[first];
  let endOff: number;
  if (throughEol) endOff = L.start[last + 1];
  else {
    const t = L.text[last];
    endOff = L.start[last] + t.length - (t.endsWith('\r') ? 1 : 0);
  }
  return content.slice(0, startOff) + replacement + content.slice(endOff);
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

function tryElision(content: string, L: Lines, oldString: string, newString: string, eol: string): EditResult | null {
  const old = blockLines(oldString);
  const pieces = splitOnElision(old.lines);
  if (pieces.length < 2) return null;
  if (pieces.some((p) => p.length === 0 || p.every(isBlank))) {
    return {
      ok: false,
      error:
        'old_string uses "..." to skip lines, but it must start and end with real lines from the file, with real lines between ' +
        'consecutive "..." markers; nothing was changed. Quote the first and last lines of the region exactly.',
    };
  }
  // Each piece must occur exactly once in the part of the file after the previous piece.
  const spans: Array<{ first: number; last: number }> = [];
  let from = 0;
  for (let k = 0; k < pieces.length; k++) {
    const hits = findBlock(L.text, pieces[k], 'whitespace', from);
    const where = k === 0 ? 'in the file' : 'after the previous quoted part';
    const label = k === 0 ? 'The part before the first "..."' : k === pieces.length - 1 ? 'The part after the last "..."' : `Part ${k + 1} (between "..." markers)`;
    if (hits.length === 0) {
      return {
        ok: false,
        error:
          `${label} of old_string was not found ${where}; nothing was changed. ` +
          'Copy those lines exactly from read_file output (without the line-number prefix).\n' +
          closest(L.text, pieces[k]),
      };
    }
    if (hits.length > 1) {
      return {
        ok: false,
        error:
          `${label} of old_string matches ${hits.length} places ${where} (lines ${listLines(hits.map((h) => h + 1))}); ` +
          'nothing was changed. Add more lines to that part so it matches exactly one place.',
      };
    }
    spans.push({ first: hits[0], last: hits[0] + pieces[k].length - 1 });
    from = hits[0] + pieces[k].length;
  }
  const first = spans[0].first;
  const last = spans[spans.length - 1].last;

  const nw = blockLines(newString);
  const newPieces = splitOnElision(nw.lines);
  if (newPieces.length === 1) {
    let text = nw.lines.join('\n');
    if (nw.endsWithNewline) text += '\n';
    const out = spliceLines(content, L, first, last, old.endsWithNewline, withEol(text, eol));
    return { ok: true, content: out, rung: 'elision', line: first + 1 };
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
  for (let k = spans.length - 1; k >= 0; k--) {
    const throughEol = k < spans.length - 1 ? true : old.endsWithNewline;
    let text = newPieces[k].join('\n');
    if (k < spans.length - 1 || nw.endsWithNewline) text += '\n';
    if (newPieces[k].length === 0) text = '';
    out = spliceLines(out, L, spans[k].first, spans[k].last, throughEol, withEol(text, eol));
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
  if (exactAt.length === 1) {
    const at = exactAt[0];
    const replacement = eol === '\r\n' || newString.includes('\r\n') ? withEol(newString, eol) : newString;
    return {
      ok: true,
      content: content.slice(0, at) + replacement + content.slice(at + oldString.length),
      rung: 'exact',
      line: linesOfOffsets(content, [at])[0],
    };
  }
  if (exactAt.length > 1) {
    return ambiguous(exactAt.length, linesOfOffsets(content, exactAt), '');
  }

  const L = splitLines(content);
  const old = blockLines(oldString);
  const nw = blockLines(newString);
  const newText = (lines: string[]) => withEol(lines.join('\n') + (nw.endsWithNewline ? '\n' : ''), eol);

  // 2. whitespace: trailing whitespace and CR ignored
  const ws = findBlock(L.text, old.lines, 'whitespace');
  if (ws.length > 1) return ambiguous(ws.length, ws.map((i) => i + 1), ' when trailing whitespace and line endings are ignored');
  if (ws.length === 1) {
    const i = ws[0];
    const out = spliceLines(content, L, i, i + old.lines.length - 1, old.endsWithNewline, newText(nw.lines));
    return { ok: true, content: out, rung: 'whitespace', line: i + 1 };
  }

  // 3. indentation: uniform shift of leading whitespace
  const ind = findBlock(L.text, old.lines, 'indentation');
  if (ind.length > 1) return ambiguous(ind.length, ind.map((i) => i + 1), ' when indentation is ignored');
  if (ind.length === 1) {
    const i = ind[0];
    const last = i + old.lines.length - 1;
    const fileIndent = commonIndent(L.text.slice(i, last + 1));
    const oldIndent = commonIndent(old.lines);
    const out = spliceLines(content, L, i, last, old.endsWithNewline, newText(reindent(nw.lines, oldIndent, fileIndent)));
    return { ok: true, content: out, rung: 'indentation', line: i + 1 };
  }

  // 4. elision
  const el = tryElision(content, L, oldString, newString, eol);
  if (el) return el;

  return {
    ok: false,
    error:
      'old_string was not found in the file (not exactly, nor ignoring trailing whitespace/line endings, nor ignoring indentation); ' +
      'nothing was changed. Read the region again and copy old_string exactly (without line-number prefixes).\n' +
      closest(L.text, old.lines),
  };
}
