/**
 * Localization: from the ranked map and the task's signals, the few most likely files and,
 * inside them, the regions (whole functions) that matter; and the failing tests' own code.
 * Pure over the map, the signals and a reader of file lines.
 */
import { isTestFile } from '../lang/index.js';
import { declaredTestSpan } from '../lang/index.js';
import type { Definition } from './extract.js';
import type { RepoMap } from './map.js';
import { rankFiles, type RankedFile } from './rank.js';
import type { Signals } from './signals.js';

export interface Region {
  file: string;
  /** 1-based, inclusive. */
  start: number;
  end: number;
  /** What the region is: `Duration.toISOString`, `whole file`, `test "rounds ms"`. */
  label: string;
  score: number;
}

export interface Localization {
  ranked: RankedFile[];
  /** Most likely code first. */
  regions: Region[];
  /** The failing tests' code. */
  tests: Region[];
}

export type LineReader = (file: string) => string[] | null;

const WHOLE_FILE_LINES = 60;
const MAX_REGION_LINES = 120;
const TOP_FILES = 4;
/** Most lines of a file's head shown (before its first function or class). */
const HEAD_LINES = 30;

function defLabel(d: Definition): string {
  return d.parent ? `${d.parent}.${d.name}` : d.name;
}

/** Regions of one file worth showing, best first. */
function fileRegions(rf: RankedFile, signals: Signals, lines: string[], testRefs: Map<string, number>, withHead: boolean): Region[] {
  const f = rf.file;
  if (lines.length <= WHOLE_FILE_LINES) return [{ file: f.path, start: 1, end: lines.length, label: 'whole file', score: rf.score }];
  const frameLines = signals.frames.filter((x) => x.file === f.path).map((x) => x.line);
  const scored: Region[] = [];
  for (const d of f.defs) {
    const span = d.endLine - d.line + 1;
    if (span > MAX_REGION_LINES * 3 && d.kind === 'class') continue; // its methods speak for it
    let s = 0;
    if (frameLines.some((l) => l >= d.line && l <= d.endLine)) s += 10;
    s += Math.min(6, (signals.idents.get(d.name) ?? 0) * 1.5);
    s += Math.min(2, testRefs.get(d.name) ?? 0);
    // the task's words inside the body
    const body = lines.slice(d.line - 1, d.endLine).join('\n');
    let inBody = 0;
    for (const [w, weight] of signals.idents) if (weight >= 1 && body.includes(w)) inBody += Math.min(weight, 3);
    s += Math.min(6, inBody / Math.sqrt(Math.max(4, span / 4)));
    if (s <= 0.5) continue;
    // two lines above (a comment, the variable a fix often touches next to it), one below
    scored.push({ file: f.path, start: Math.max(1, d.line - 2), end: Math.min(d.endLine + 1, d.line + MAX_REGION_LINES - 1, lines.length), label: defLabel(d), score: s + rf.score / 10 });
  }
  scored.sort((a, b) => b.score - a.score);
  // drop a region contained in a better one, and an enclosing region of a better inner one
  const picked: Region[] = [];
  for (const r of scored) {
    if (picked.some((p) => p.start <= r.start && p.end >= r.end)) continue;
    if (picked.some((p) => r.start <= p.start && r.end >= p.end && r.end - r.start > 40)) continue;
    picked.push(r);
    if (picked.length >= 3) break;
  }
  for (const l of frameLines) {
    if (!picked.some((p) => l >= p.start && l <= p.end)) picked.push({ file: f.path, start: Math.max(1, l - 10), end: Math.min(lines.length, l + 10), label: `around line ${l}`, score: 5 });
  }
  // the module's head (imports, constants, regular expressions) is where small fixes often add a line
  const firstCode = f.defs.find((d) => !d.parent && (d.kind === 'function' || d.kind === 'class'))?.line ?? lines.length + 1;
  const headEnd = Math.min(firstCode - 1, HEAD_LINES);
  if (withHead && headEnd >= 3) picked.push({ file: f.path, start: 1, end: headEnd, label: 'head of the file', score: 0.5 });
  return picked;
}

/** The span of a test from its title's line: declared in a language's own way (Python's `def test_name(`: its indented body, src/lang/), else to where the brackets of `it("name", ...)` end. */
export function testSpan(lines: string[], name: string): { start: number; end: number } | null {
  const needle = name.trim();
  if (needle.length < 3) return null;
  const declared = declaredTestSpan(lines, needle);
  if (declared) return declared;
  let at = lines.findIndex((l) => l.includes(needle));
  if (at < 0) {
    const head = needle.slice(0, 40);
    at = lines.findIndex((l) => l.includes(head));
  }
  if (at < 0) return null;
  let depth = 0;
  let opened = false;
  for (let i = at; i < lines.length && i < at + 80; i++) {
    for (const ch of lines[i]) {
      if (ch === '(' || ch === '{' || ch === '[') {
        depth++;
        opened = true;
      } else if (ch === ')' || ch === '}' || ch === ']') depth--;
    }
    if (opened && depth <= 0) return { start: at + 1, end: i + 1 };
  }
  return { start: at + 1, end: Math.min(lines.length, at + 20) };
}

export function localize(map: RepoMap, signals: Signals, read: LineReader): Localization {
  const tests: Region[] = [];
  const seen = new Set<string>();
  for (const t of signals.testNames) {
    const key = `${t.file}\0${t.name}`;
    if (seen.has(key) || tests.length >= 6) continue;
    seen.add(key);
    const lines = read(t.file);
    if (!lines) continue;
    const span = testSpan(lines, t.name);
    if (span && !tests.some((r) => r.file === t.file && r.start <= span.start && r.end >= span.end)) tests.push({ file: t.file, ...span, label: `test "${t.name}"`, score: 1 });
  }
  for (const fr of signals.frames) {
    if (!isTestFile(fr.file) || tests.some((r) => r.file === fr.file && fr.line >= r.start && fr.line <= r.end)) continue;
    const lines = read(fr.file);
    if (lines) tests.push({ file: fr.file, start: Math.max(1, fr.line - 12), end: Math.min(lines.length, fr.line + 6), label: `failing test around line ${fr.line}`, score: 1 });
  }
  // what the failing tests call is where their failure most likely comes from
  const called = calledInTests(tests, read);
  const withCalls: Signals = called.size ? { ...signals, idents: mergeWeights(signals.idents, called) } : signals;
  const ranked = rankFiles(map, withCalls);
  const byPath = new Map(map.files.map((f) => [f.path, f]));
  const testRefs = new Map<string, number>();
  for (const t of signals.testFiles) for (const [k, v] of Object.entries(byPath.get(t)?.refs ?? {})) testRefs.set(k, (testRefs.get(k) ?? 0) + v);

  const regions: Region[] = [];
  let taken = 0;
  for (const rf of ranked) {
    if (taken >= TOP_FILES) break;
    if (isTestFile(rf.file.path) || rf.score <= 0) continue;
    const lines = read(rf.file.path);
    if (!lines) continue;
    taken++;
    regions.push(...fileRegions(rf, withCalls, lines, testRefs, taken <= 2));
  }

  return { ranked, regions, tests };
}

/** Names the failing tests' own code calls (`parseQuery(`), weighted; other names there weigh little. */
function calledInTests(tests: Region[], read: LineReader): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of tests) {
    const lines = read(r.file);
    if (!lines) continue;
    const code = lines.slice(r.start - 1, r.end).join('\n');
    for (const m of code.matchAll(/([A-Za-z_$][\w$]{2,})\s*(\()?/g)) {
      if (/^(?:it|test|describe|expect|assert|equal|deepEqual|strictEqual|toBe|toEqual|toStrictEqual|toMatch|toThrow|function|return|const|await|async|def|self|cls|None|True|False|pytest|raises|lambda|assertEqual|assertTrue|assertFalse|assertIs|assertIsNone|assertIn|assertRaises|assertAlmostEqual|isinstance|len|list|dict|str|int)$/.test(m[1])) continue;
      out.set(m[1], Math.min(4, (out.get(m[1]) ?? 0) + (m[2] ? 1.5 : 0.2)));
    }
  }
  return out;
}

function mergeWeights(a: Map<string, number>, b: Map<string, number>): Map<string, number> {
  const out = new Map(a);
  for (const [k, v] of b) out.set(k, (out.get(k) ?? 0) + v);
  return out;
}
