/**
 * Python imports: `import a.b` / `from .x import y` resolved to modules of the repository, for the
 * test session's import graph (whether a test can see a changed file) and for localization's
 * ranking (Python's module names of the tracked files, absolute and relative imports).
 */
import path from 'node:path';
import type { Dependencies, GraphFiles, KnownFiles } from '../types.js';

/** Python: `import a.b, c` and `from .x.y import z` -> dotted names (leading dots kept). */
export function pySpecifiers(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.replace(/#.*$/, '').trim();
    let m = line.match(/^from\s+(\.*[\w.]*)\s+import\s+(.+)$/);
    if (m) {
      out.push(m[1]);
      // `from . import a, b` names modules too.
      for (const name of m[2].replace(/[()]/g, '').split(',')) {
        const n = name.trim().split(/\s+as\s+/)[0];
        if (/^\w+$/.test(n)) out.push(`${m[1]}${m[1].endsWith('.') ? '' : '.'}${n}`);
      }
      continue;
    }
    m = line.match(/^import\s+(.+)$/);
    if (m) for (const name of m[1].split(',')) out.push(name.trim().split(/\s+as\s+/)[0]);
  }
  return out.filter(Boolean);
}

function resolvePy(files: ReadonlySet<string>, from: string, spec: string): string | null | 'external' {
  const dots = spec.match(/^\.*/)![0].length;
  const name = spec.slice(dots).split('.').filter(Boolean);
  const roots: string[] = [];
  if (dots > 0) {
    let dir = path.posix.dirname(from);
    for (let i = 1; i < dots; i++) dir = path.posix.dirname(dir);
    roots.push(dir === '.' ? '' : dir);
  } else {
    roots.push('', 'src');
  }
  for (const r of roots) {
    const base = [r, ...name].filter(Boolean).join('/');
    for (const c of [`${base}.py`, `${base}/__init__.py`]) if (files.has(c)) return c;
  }
  return dots > 0 ? null : 'external';
}

/** The repository modules a Python file imports, and its package's `__init__` (which runs on import of any of its modules). */
export async function pyDependencies(file: string, text: string, repo: GraphFiles): Promise<Dependencies> {
  const deps: string[] = [];
  const unresolved: string[] = [];
  for (const spec of pySpecifiers(text)) {
    const r = resolvePy(repo.files, file, spec);
    if (r === 'external') continue;
    if (r) deps.push(r);
    else unresolved.push(`${file}: ${spec}`);
  }
  const init = `${path.posix.dirname(file)}/__init__.py`;
  if (repo.files.has(init) && init !== file) deps.push(init);
  return { deps, unresolved };
}

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
 * Localization: the tracked file a Python import names (`.x`, `..core.base`, `.`; absolute imports
 * of the repository's own modules, `cachetools.keys`), null when it names none of them; undefined
 * for an import that is not Python's (a path, `./x`, from any file: the shared path resolution).
 */
export function resolvePyImport(from: string, spec: string, files: KnownFiles): string | null | undefined {
  if (!/\.pyi?$/.test(from)) return undefined;
  // `./x`, `../x` (and `.`, `..` from a stub) are paths
  if (/^\.\.?(?:\/|$)/.test(spec) && !(from.endsWith('.py') && /^\.+$/.test(spec))) return undefined;
  if (/^\.+(?:\w|$)/.test(spec)) {
    const dots = /^\.+/.exec(spec)![0].length;
    let dir = path.posix.dirname(from);
    for (let i = 1; i < dots; i++) dir = path.posix.dirname(dir);
    const rest = spec.slice(dots).replace(/\./g, '/');
    const base = rest ? (dir === '.' ? rest : path.posix.join(dir, rest)) : `${dir === '.' ? '' : `${dir}/`}__init__`;
    if (!rest) return files.has(`${base}.py`) ? `${base}.py` : null;
    for (const c of [base, ...pyImportCandidates(base)]) if (files.has(c)) return c;
    return null;
  }
  if (/^[A-Za-z_][\w.]*$/.test(spec)) return files.memo('python:modules', pythonModules).get(spec) ?? null;
  return null;
}

/** Localization: the files a path written in an import may stand for. */
export function pyImportCandidates(base: string): string[] {
  return [`${base}.py`, `${base}/__init__.py`];
}
