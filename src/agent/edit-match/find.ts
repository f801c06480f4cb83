/** Line-block matching: where old_string's lines occur in the file (rungs 2-4), each rung with its uniqueness rule. */
import { type Rung, type Lines, rstrip, isBlank, leadingWs, ambiguous } from './text.js';
import { type IndentStyle, cols } from './indent.js';

// ------------------------------------------------------------------ line-block matching

type Mode = 'whitespace' | 'indentation';

/** A matched window: file lines [first, last]; `fileOf[j]` is the file line of block line j (-1: a blank line the file lacks). */
export interface Match {
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

export interface FileView {
  text: string[];
  trim: string[];
  rs: string[];
}

export function view(L: Lines): FileView {
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

// ------------------------------------------------------------------ line rungs

type LineFind = { ok: true; match: Match; rung: Rung } | { ok: false; error: string; rung: Rung } | null;

/** Rungs 2-4 for one block in file lines [from, to): the first rung with hits decides; several hits are refused. */
export function findLines(fv: FileView, block: string[], style: IndentStyle, what: string, from = 0, to = fv.text.length): LineFind {
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
