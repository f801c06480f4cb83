/**
 * Go imports: a test file sees every file of its package directory and the packages of the module
 * it imports (go.mod `module` path).
 */
import path from 'node:path';
import type { Dependencies, GraphFiles } from '../types.js';

/** Go: the import paths of a file. */
export function goImports(text: string): string[] {
  const out: string[] = [];
  const block = text.match(/\bimport\s*\(([\s\S]*?)\)/g) ?? [];
  for (const b of block) for (const m of b.matchAll(/"([^"]+)"/g)) out.push(m[1]);
  for (const m of text.matchAll(/^\s*import\s+(?:\w+\s+|\.\s+|_\s+)?"([^"]+)"/gm)) out.push(m[1]);
  return out;
}

/** The other files of its package, and the files of the module's packages it imports. */
export async function goDependencies(file: string, text: string, repo: GraphFiles): Promise<Dependencies> {
  const deps: string[] = [];
  const unresolved: string[] = [];
  const dir = path.posix.dirname(file);
  const sameDir = (d: string) => [...repo.files].filter((f) => f.endsWith('.go') && path.posix.dirname(f) === d);
  deps.push(...sameDir(dir).filter((f) => f !== file));
  const mod = await repo.memo('go:module', () => repo.read('go.mod').then((t) => t?.match(/^module\s+(\S+)/m)?.[1] ?? null));
  for (const imp of goImports(text)) {
    if (!mod || (imp !== mod && !imp.startsWith(`${mod}/`))) continue;
    const d = imp === mod ? '.' : imp.slice(mod.length + 1);
    const pkgFiles = sameDir(d).filter((f) => !f.endsWith('_test.go'));
    if (pkgFiles.length) deps.push(...pkgFiles);
    else unresolved.push(`${file}: ${imp}`);
  }
  return { deps, unresolved };
}
