/**
 * Ranks the files of the map for a task: a personalised PageRank over the reference graph
 * (file A uses a name that file B defines, or imports B), personalised by the task's
 * signals, plus the direct evidence of the signals themselves. Pure.
 */
import path from 'node:path';
import type { MapFile, RepoMap } from './map.js';
import type { Signals } from './signals.js';
import { isTestFile } from '../guard/test-integrity.js';

export interface RankedFile {
  file: MapFile;
  score: number;
  /** Why it ranks where it does (for the bench and the transcript). */
  why: string[];
}

const RESOLVE_EXT = ['', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '.py', '/index.ts', '/index.tsx', '/index.js', '/index.mjs', '/__init__.py'];

/**
 * Python's module names of the tracked files: `src/cachetools/_cached.py` is `cachetools._cached`
 * when src/cachetools/ holds an `__init__.py` (a package) and src/ does not (so src/ is where it is
 * imported from); a package's `__init__.py` is the package's own name. Files outside any package
 * are also known by their path from the root (`scripts.tool`). Stubs (`.pyi`) are left out.
 */
export function pythonModules(known: Iterable<string>): Map<string, string> {
  const set = new Set(known);
  const out = new Map<string, string>();
  const put = (name: string, file: string) => {
    if (name && !out.has(name)) out.set(name, file);
  };
  for (const f of set) {
    if (!f.endsWith('.py')) continue;
    const parts = f.slice(0, -3).split('/');
    if (parts[parts.length - 1] === '__init__') parts.pop();
    if (parts.length === 0) continue;
    // the package chain: directories above the module that hold an __init__.py
    let top = parts.length - 1;
    while (top > 0 && set.has(`${parts.slice(0, top).join('/')}/__init__.py`)) top--;
    put(parts.slice(top).join('.'), f);
    put(parts.join('.'), f);
  }
  return out;
}

/**
 * The tracked file an import specifier points to, or null: relative imports (`./x`, Python's
 * `.x`, `..core.base`, `.`), and with `pyModules` (pythonModules) Python's absolute imports of the
 * repository's own modules (`cachetools.keys`, `sqlparse`).
 */
export function resolveImport(from: string, spec: string, known: Set<string>, pyModules?: Map<string, string>): string | null {
  let base: string;
  if (/^\.\.?(?:\/|$)/.test(spec) && !(from.endsWith('.py') && /^\.+$/.test(spec))) {
    base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  } else if (/^\.+(?:\w|$)/.test(spec) && /\.pyi?$/.test(from)) {
    const dots = /^\.+/.exec(spec)![0].length;
    let dir = path.posix.dirname(from);
    for (let i = 1; i < dots; i++) dir = path.posix.dirname(dir);
    const rest = spec.slice(dots).replace(/\./g, '/');
    base = rest ? (dir === '.' ? rest : path.posix.join(dir, rest)) : `${dir === '.' ? '' : `${dir}/`}__init__`;
    if (!rest) return known.has(`${base}.py`) ? `${base}.py` : null;
  } else if (pyModules && /\.pyi?$/.test(from) && /^[A-Za-z_][\w.]*$/.test(spec)) {
    return pyModules.get(spec) ?? null;
  } else {
    return null;
  }
  const stripped = base.replace(/\.(?:js|mjs|cjs)$/, '');
  for (const cand of [base, stripped]) for (const ext of RESOLVE_EXT) if (known.has(cand + ext)) return cand + ext;
  return null;
}

/** A Python test file's subject: `tests/test_cached.py`, `cached_test.py` -> `cached`; otherwise null. */
export function pythonTestSubject(p: string): string | null {
  const m = /(?:^|\/)(?:test_(\w+)|(\w+)_test)\.py$/.exec(p);
  return m ? (m[1] ?? m[2]).toLowerCase() : null;
}

/** A stub (`.pyi`) next to its module: the module speaks for it. */
const shadowedStub = (p: string, known: Set<string>) => p.endsWith('.pyi') && known.has(p.slice(0, -1));

export function rankFiles(map: RepoMap, signals: Signals): RankedFile[] {
  const files = map.files;
  const n = files.length;
  if (n === 0) return [];
  const index = new Map(files.map((f, i) => [f.path, i]));
  const known = new Set(index.keys());
  const pyModules = files.some((f) => f.language === 'python') ? pythonModules(known) : undefined;
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
      const target = resolveImport(f.path, spec, known, pyModules);
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
      const target = resolveImport(files[i].path, spec, known, pyModules);
      if (target) give(index.get(target), 4, 'imported by a failing test');
    }
  }
  // a Python test file and the module it is named after (tests/test_cachedmethod.py -> cachetools/_cachedmethod.py)
  const subjects = new Set(signals.testFiles.map(pythonTestSubject).filter((x): x is string => x !== null));
  if (subjects.size) {
    files.forEach((f, i) => {
      if (!f.path.endsWith('.py') || isTestFile(f.path)) return;
      const stem = path.posix.basename(f.path, '.py').replace(/^_+/, '').toLowerCase();
      if (subjects.has(stem)) give(i, 6, 'named like a failing test');
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
