/**
 * The repository's own import graph, for deciding whether a test file can see a changed
 * file (evidence for tolerating a failure that predates the change, see tolerance.ts).
 *
 * - JS/TS: the module specifiers of `import … from 'x'`, `import 'x'`, `export … from 'x'`,
 *   `import('x')` and `require('x')`, found with a real tokenizer (js-tokens: strings and
 *   comments never produce false hits), resolved like Node and TypeScript do for relative
 *   paths (extensions, `.js` written for a `.ts` file, `index.*`, a directory's
 *   package.json `main`) and for the package's own name (self-reference).
 * - Python: `import a.b` / `from .x import y` resolved to modules of the repository.
 * - Go: a test file sees every file of its package directory and the packages of the
 *   module it imports (go.mod `module` path).
 *
 * Pure apart from the injected file reader. A test file that cannot be read is `unknown`:
 * the caller blocks on doubt.
 */
import jsTokens from 'js-tokens';
import path from 'node:path';

export interface GraphSource {
  /** Every tracked file of the repository (repo-relative, `/` separators). */
  files: string[];
  /** The file's text, or null when it cannot be read. */
  read: (file: string) => Promise<string | null>;
}

export interface Reach {
  /** The test file reaches a changed file (`via` is the import chain), or it does not, or it could not be read. */
  status: 'connected' | 'not-connected' | 'unknown';
  via?: string[];
  /** Files the walk could not follow (bare imports of other packages are not counted). */
  unresolved?: string[];
  detail: string;
}

const JS = /\.(?:[cm]?[jt]sx?)$/;
const JS_EXTS = ['.ts', '.tsx', '.mts', '.cts', '.js', '.jsx', '.mjs', '.cjs', '.json'];

/** The module specifiers a JS/TS source names (static and dynamic imports, re-exports, require). */
export function jsSpecifiers(text: string): string[] {
  const out: string[] = [];
  // Significant tokens only (no whitespace, no comments).
  const sig: { type: string; value: string }[] = [];
  try {
    for (const t of jsTokens(text)) {
      if (t.type === 'WhiteSpace' || t.type === 'LineTerminatorSequence' || t.type === 'MultiLineComment' || t.type === 'SingleLineComment' || t.type === 'HashbangComment') continue;
      sig.push(t);
    }
  } catch {
    return out;
  }
  const str = (v: string) => v.slice(1, -1);
  for (let i = 0; i < sig.length; i++) {
    const t = sig[i];
    if (t.type !== 'StringLiteral' && t.type !== 'NoSubstitutionTemplate') continue;
    const p1 = sig[i - 1];
    const p2 = sig[i - 2];
    if (!p1) continue;
    if (p1.type === 'IdentifierName' && (p1.value === 'from' || (p1.value === 'import' && t.type === 'StringLiteral'))) out.push(str(t.value));
    else if (p1.value === '(' && p2 && p2.type === 'IdentifierName' && (p2.value === 'require' || p2.value === 'import') && sig[i + 1]?.value === ')') out.push(str(t.value));
  }
  return out;
}

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

/** Go: the import paths of a file. */
export function goImports(text: string): string[] {
  const out: string[] = [];
  const block = text.match(/\bimport\s*\(([\s\S]*?)\)/g) ?? [];
  for (const b of block) for (const m of b.matchAll(/"([^"]+)"/g)) out.push(m[1]);
  for (const m of text.matchAll(/^\s*import\s+(?:\w+\s+|\.\s+|_\s+)?"([^"]+)"/gm)) out.push(m[1]);
  return out;
}

export class ImportGraph {
  private readonly files: Set<string>;
  private readonly edges = new Map<string, Promise<{ deps: string[]; unresolved: string[] } | null>>();
  private pkg: Promise<{ name?: string; main?: string } | null> | null = null;
  private goModule: Promise<string | null> | null = null;

  constructor(private readonly src: GraphSource) {
    this.files = new Set(src.files);
  }

  private ownPackage() {
    this.pkg ??= this.src.read('package.json').then((t) => {
      try {
        return t ? (JSON.parse(t) as { name?: string; main?: string }) : null;
      } catch {
        return null;
      }
    });
    return this.pkg;
  }

  private module() {
    this.goModule ??= this.src.read('go.mod').then((t) => t?.match(/^module\s+(\S+)/m)?.[1] ?? null);
    return this.goModule;
  }

  /** A JS path as Node/TypeScript would resolve it: the file, with an extension, `.js` for `.ts`, index, package.json main. */
  private async resolveJsPath(p: string, depth = 0): Promise<string | null> {
    const norm = path.posix.normalize(p).replace(/^\.\//, '');
    if (norm.startsWith('..')) return null;
    const candidates = [norm, ...JS_EXTS.map((e) => norm + e)];
    const ext = norm.match(/\.[cm]?jsx?$/)?.[0];
    if (ext) {
      const stem = norm.slice(0, -ext.length);
      candidates.push(...['.ts', '.tsx', '.mts', '.cts'].map((e) => stem + e));
    }
    for (const c of candidates) if (this.files.has(c)) return c;
    const dir = norm === '.' || norm === '' ? '' : `${norm}/`;
    if (depth === 0) {
      const pj = await this.src.read(`${dir}package.json`);
      if (pj) {
        try {
          const main = (JSON.parse(pj) as { main?: string }).main;
          if (main) {
            const r = await this.resolveJsPath(`${dir}${main}`, depth + 1);
            if (r) return r;
          }
        } catch {
          // not JSON: fall through to index
        }
      }
    }
    for (const e of JS_EXTS) if (this.files.has(`${dir}index${e}`)) return `${dir}index${e}`;
    return null;
  }

  private async resolveJs(from: string, spec: string): Promise<string | null | 'external'> {
    if (spec.startsWith('.') || spec.startsWith('/')) {
      const base = spec.startsWith('/') ? spec.slice(1) : path.posix.join(path.posix.dirname(from), spec);
      return this.resolveJsPath(base);
    }
    const own = await this.ownPackage();
    if (own?.name && (spec === own.name || spec.startsWith(`${own.name}/`))) {
      const rest = spec.slice(own.name.length).replace(/^\//, '');
      return this.resolveJsPath(rest || '.');
    }
    return 'external';
  }

  private resolvePy(from: string, spec: string): string | null | 'external' {
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
      for (const c of [`${base}.py`, `${base}/__init__.py`]) if (this.files.has(c)) return c;
    }
    return dots > 0 ? null : 'external';
  }

  /** The repo files a file depends on directly. */
  private dependencies(file: string): Promise<{ deps: string[]; unresolved: string[] } | null> {
    let p = this.edges.get(file);
    if (!p) {
      p = (async () => {
        const text = await this.src.read(file);
        if (text === null) return null;
        const deps: string[] = [];
        const unresolved: string[] = [];
        if (JS.test(file)) {
          for (const spec of jsSpecifiers(text)) {
            const r = await this.resolveJs(file, spec);
            if (r === 'external') continue;
            if (r) deps.push(r);
            else unresolved.push(`${file}: ${spec}`);
          }
        } else if (file.endsWith('.py')) {
          for (const spec of pySpecifiers(text)) {
            const r = this.resolvePy(file, spec);
            if (r === 'external') continue;
            if (r) deps.push(r);
            else unresolved.push(`${file}: ${spec}`);
          }
          // A package's __init__ runs on import of any of its modules.
          const init = `${path.posix.dirname(file)}/__init__.py`;
          if (this.files.has(init) && init !== file) deps.push(init);
        } else if (file.endsWith('.go')) {
          const dir = path.posix.dirname(file);
          const sameDir = (d: string) => [...this.files].filter((f) => f.endsWith('.go') && path.posix.dirname(f) === d);
          deps.push(...sameDir(dir).filter((f) => f !== file));
          const mod = await this.module();
          for (const imp of goImports(text)) {
            if (!mod || (imp !== mod && !imp.startsWith(`${mod}/`))) continue;
            const d = imp === mod ? '.' : imp.slice(mod.length + 1);
            const pkgFiles = sameDir(d).filter((f) => !f.endsWith('_test.go'));
            if (pkgFiles.length) deps.push(...pkgFiles);
            else unresolved.push(`${file}: ${imp}`);
          }
        }
        return { deps, unresolved };
      })();
      this.edges.set(file, p);
    }
    return p;
  }

  /** Whether `testFile` reaches any of `changed` through the repository's imports. */
  async reach(testFile: string, changed: string[]): Promise<Reach> {
    const targets = new Set(changed);
    if (!this.files.has(testFile)) return { status: 'unknown', detail: `${testFile} is not a file of the repository` };
    if (targets.has(testFile)) return { status: 'connected', via: [testFile], detail: `the change edits ${testFile} itself` };
    const first = await this.dependencies(testFile);
    if (!first) return { status: 'unknown', detail: `${testFile} could not be read` };
    if (!JS.test(testFile) && !testFile.endsWith('.py') && !testFile.endsWith('.go')) {
      return { status: 'unknown', detail: `no import graph for ${testFile} (only JS/TS, Python and Go files are followed)` };
    }
    const parent = new Map<string, string | null>([[testFile, null]]);
    const queue = [testFile];
    const unresolved: string[] = [];
    while (queue.length) {
      const f = queue.shift()!;
      const d = await this.dependencies(f);
      if (!d) continue;
      unresolved.push(...d.unresolved);
      for (const dep of d.deps) {
        if (parent.has(dep)) continue;
        parent.set(dep, f);
        if (targets.has(dep)) {
          const via = [dep];
          for (let p = parent.get(dep); p; p = parent.get(p)) via.unshift(p);
          return { status: 'connected', via, detail: `imports ${via.slice(1).join(' → ')}` };
        }
        queue.push(dep);
      }
    }
    if (unresolved.length) {
      return { status: 'unknown', unresolved, detail: `${unresolved.length} import(s) of the repository could not be resolved (${unresolved.slice(0, 3).join('; ')})` };
    }
    return { status: 'not-connected', detail: `its ${parent.size - 1} imported file(s) of the repository include no changed file` };
  }
}

/** At most this many test files are read for an import-related selection (a bound on one loop turn's reading). */
const MAX_IMPORT_SCAN = 400;

/**
 * The test files among `testFiles` whose imports reach a changed file: the related tests of a
 * runner that cannot find them itself (pytest). Those the graph cannot tell about are left out
 * (the full gate runs after the related tests anyway).
 */
export async function testsReaching(graph: ImportGraph, testFiles: string[], changed: string[]): Promise<string[]> {
  if (changed.length === 0) return [];
  const out: string[] = [];
  for (const f of testFiles.slice(0, MAX_IMPORT_SCAN)) if ((await graph.reach(f, changed)).status === 'connected') out.push(f);
  return out;
}
