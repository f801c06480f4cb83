/**
 * Ranks the files of the map for a task: a personalised PageRank over the reference graph
 * (file A uses a name that file B defines, or imports B), personalised by the task's
 * signals, plus the direct evidence of the signals themselves. Pure.
 */
import path from 'node:path';
import type { MapFile, RepoMap } from './map.js';
import type { Signals } from './signals.js';
import { isTestFile } from '../lang/index.js';
import { knownFiles, languageOfFile, resolveImport, testSubject } from '../lang/index.js';

export interface RankedFile {
  file: MapFile;
  score: number;
  /** Why it ranks where it does (for the bench and the transcript). */
  why: string[];
}

/** A stub (`.pyi`) next to its module: the module speaks for it. */
const shadowedStub = (p: string, known: Set<string>) => p.endsWith('.pyi') && known.has(p.slice(0, -1));

export function rankFiles(map: RepoMap, signals: Signals): RankedFile[] {
  const files = map.files;
  const n = files.length;
  if (n === 0) return [];
  const index = new Map(files.map((f, i) => [f.path, i]));
  const known = new Set(index.keys());
  const project = knownFiles(known);
  const definers = new Map<string, number[]>();
  files.forEach((f, i) => {
    if (shadowedStub(f.path, known)) return;
    for (const d of f.defs) {
      const list = definers.get(d.name);
      if (!list) definers.set(d.name, [i]);
      else if (list[list.length - 1] !== i) list.push(i);
    }
  });

  // edges: weight from user to definer
  const out: Map<number, number>[] = files.map(() => new Map());
  const add = (a: number, b: number, w: number) => {
    if (a !== b && w > 0) out[a].set(b, (out[a].get(b) ?? 0) + w);
  };
  files.forEach((f, a) => {
    for (const [name, count] of Object.entries(f.refs)) {
      const ds = definers.get(name);
      if (!ds || ds.length > 20) continue;
      let mul = 1;
      if (signals.idents.has(name)) mul *= 10;
      if (name.length >= 8 && /[a-z][A-Z]|_/.test(name)) mul *= 3;
      if (name.startsWith('_')) mul *= 0.1;
      if (ds.length > 5) mul *= 0.1;
      const w = (mul * Math.sqrt(count)) / ds.length;
      for (const b of ds) add(a, b, w);
    }
    for (const spec of f.imports) {
      const target = resolveImport(f.path, spec, project);
      if (target) add(a, index.get(target)!, 5);
    }
  });

  // personalisation from the signals
  const direct = new Float64Array(n);
  const why: string[][] = files.map(() => []);
  const give = (i: number | undefined, w: number, reason: string) => {
    if (i === undefined) return;
    direct[i] += w;
    if (!why[i].includes(reason)) why[i].push(reason);
  };
  for (const [f, w] of signals.files) give(index.get(f), 3 * w, 'named in the task');
  signals.frames.forEach((fr, k) => give(index.get(fr.file), k === 0 ? 6 : 3, 'stack frame'));
  for (const t of signals.testFiles) {
    const i = index.get(t);
    give(i, 2, 'failing test');
    if (i === undefined) continue;
    for (const spec of files[i].imports) {
      const target = resolveImport(files[i].path, spec, project);
      if (target) give(index.get(target), 4, 'imported by a failing test');
    }
  }
  // a test file and the module it is named after, where its language says (tests/test_cachedmethod.py -> cachetools/_cachedmethod.py)
  const subjects = new Set(signals.testFiles.map(testSubject).flatMap((s) => (s ? [`${s.language}:${s.subject}`] : [])));
  if (subjects.size) {
    files.forEach((f, i) => {
      const lang = languageOfFile(f.path);
      if (!lang?.testSubject || isTestFile(f.path)) return;
      const stem = path.posix.basename(f.path).replace(/\.[^.]+$/, '').replace(/^_+/, '').toLowerCase();
      if (subjects.has(`${lang.id}:${stem}`)) give(i, 6, 'named like a failing test');
    });
  }
  // definitions whose names the task mentions
  const identTotal = [...signals.idents.values()].reduce((a, b) => a + b, 0) || 1;
  for (const [name, w] of signals.idents) {
    const ds = definers.get(name);
    if (!ds || ds.length > 8) continue;
    for (const i of ds) give(i, (8 * w) / identTotal / ds.length + 0.5 / ds.length, `defines ${name}`);
  }
  // a file named like a word of the task (`duration` -> plugin/duration/index.js)
  const stemOf = (p: string) => {
    const b = path.posix.basename(p).replace(/\.[^.]+$/, '');
    return (b === 'index' || b === '__init__' ? path.posix.basename(path.posix.dirname(p)) : b).toLowerCase();
  };
  const lowerIdents = new Map<string, number>();
  for (const [k, w] of signals.idents) lowerIdents.set(k.toLowerCase(), (lowerIdents.get(k.toLowerCase()) ?? 0) + w);
  files.forEach((f, i) => {
    const stem = stemOf(f.path);
    const w = lowerIdents.get(stem) ?? (signals.kebab.has(stem) ? 6 : 0);
    if (w) give(i, Math.min(3, 0.5 + w / 4), 'file name in the task');
  });

  const total = direct.reduce((a, b) => a + b, 0);
  const pers = new Float64Array(n);
  for (let i = 0; i < n; i++) pers[i] = total > 0 ? direct[i] / total : 1 / n;
  const pr = pagerank(out, pers);

  const ranked = files.map((file, i) => {
    const test = isTestFile(file.path);
    // a test file is shown with the failing tests; as a place to fix it ranks low, and so does a stub next to its module
    const score = ((pr[i] * n) / 10 + direct[i] * (test ? 0.2 : 1)) * (shadowedStub(file.path, known) ? 0.1 : 1);
    return { file, score, why: why[i] };
  });
  return ranked.sort((a, b) => b.score - a.score || a.file.path.localeCompare(b.file.path));
}

function pagerank(out: Map<number, number>[], pers: Float64Array, damping = 0.85, iterations = 25): Float64Array {
  const n = out.length;
  let rank = Float64Array.from(pers);
  const sums = out.map((m) => [...m.values()].reduce((a, b) => a + b, 0));
  for (let it = 0; it < iterations; it++) {
    const next = new Float64Array(n);
    let dangling = 0;
    for (let a = 0; a < n; a++) {
      if (sums[a] === 0) {
        dangling += rank[a];
        continue;
      }
      for (const [b, w] of out[a]) next[b] += (damping * rank[a] * w) / sums[a];
    }
    for (let i = 0; i < n; i++) next[i] += (1 - damping + damping * dangling) * pers[i];
    rank = next;
  }
  return rank;
}
