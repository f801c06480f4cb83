/**
 * JavaScript and TypeScript imports: the module specifiers of `import … from 'x'`, `import 'x'`,
 * `export … from 'x'`, `import('x')` and `require('x')`, found with a real tokenizer (js-tokens:
 * strings and comments never produce false hits), resolved like Node and TypeScript do for
 * relative paths (extensions, `.js` written for a `.ts` file, `index.*`, a directory's
 * package.json `main`) and for the package's own name (self-reference).
 */
import jsTokens from 'js-tokens';
import path from 'node:path';
import type { Dependencies, GraphFiles } from '../types.js';

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

function ownPackage(repo: GraphFiles): Promise<{ name?: string; main?: string } | null> {
  return repo.memo('javascript:package.json', () =>
    repo.read('package.json').then((t) => {
      try {
        return t ? (JSON.parse(t) as { name?: string; main?: string }) : null;
      } catch {
        return null;
      }
    }),
  );
}

/** A JS path as Node/TypeScript would resolve it: the file, with an extension, `.js` for `.ts`, index, package.json main. */
async function resolveJsPath(repo: GraphFiles, p: string, depth = 0): Promise<string | null> {
  const norm = path.posix.normalize(p).replace(/^\.\//, '');
  if (norm.startsWith('..')) return null;
  const candidates = [norm, ...JS_EXTS.map((e) => norm + e)];
  const ext = norm.match(/\.[cm]?jsx?$/)?.[0];
  if (ext) {
    const stem = norm.slice(0, -ext.length);
    candidates.push(...['.ts', '.tsx', '.mts', '.cts'].map((e) => stem + e));
  }
  for (const c of candidates) if (repo.files.has(c)) return c;
  const dir = norm === '.' || norm === '' ? '' : `${norm}/`;
  if (depth === 0) {
    const pj = await repo.read(`${dir}package.json`);
    if (pj) {
      try {
        const main = (JSON.parse(pj) as { main?: string }).main;
        if (main) {
          const r = await resolveJsPath(repo, `${dir}${main}`, depth + 1);
          if (r) return r;
        }
      } catch {
        // not JSON: fall through to index
      }
    }
  }
  for (const e of JS_EXTS) if (repo.files.has(`${dir}index${e}`)) return `${dir}index${e}`;
  return null;
}

async function resolveJs(repo: GraphFiles, from: string, spec: string): Promise<string | null | 'external'> {
  if (spec.startsWith('.') || spec.startsWith('/')) {
    const base = spec.startsWith('/') ? spec.slice(1) : path.posix.join(path.posix.dirname(from), spec);
    return resolveJsPath(repo, base);
  }
  const own = await ownPackage(repo);
  if (own?.name && (spec === own.name || spec.startsWith(`${own.name}/`))) {
    const rest = spec.slice(own.name.length).replace(/^\//, '');
    return resolveJsPath(repo, rest || '.');
  }
  return 'external';
}

/** The repository files a JS/TS file imports (bare imports of other packages are not counted). */
export async function jsDependencies(file: string, text: string, repo: GraphFiles): Promise<Dependencies> {
  const deps: string[] = [];
  const unresolved: string[] = [];
  for (const spec of jsSpecifiers(text)) {
    const r = await resolveJs(repo, file, spec);
    if (r === 'external') continue;
    if (r) deps.push(r);
    else unresolved.push(`${file}: ${spec}`);
  }
  return { deps, unresolved };
}

/** Localization: the files a path written in an import may stand for, as Node and TypeScript try them. */
export function jsImportCandidates(base: string): string[] {
  const stripped = base.replace(/\.(?:js|mjs|cjs)$/, '');
  const exts = ['', '.ts', '.tsx', '.js', '.jsx', '.mjs', '.cjs', '.mts', '.cts', '/index.ts', '/index.tsx', '/index.js', '/index.mjs'];
  return [base, stripped].flatMap((cand) => exts.map((e) => cand + e));
}
