/**
 * Parts of a checkout the model must not edit as plain text, found from the checkout itself
 * (reading untrusted files here can only add protections, never remove one):
 * - Git LFS files (`filter=lfs` in .gitattributes): the working tree may hold pointer files
 *   (`version https://git-lfs.github.com/spec/v1`) when LFS was not fetched; editing a pointer
 *   corrupts the file for everyone;
 * - submodules (.gitmodules `path = ...`): their content belongs to another repository and a
 *   change there cannot be published as part of this branch.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** Globs of .gitattributes lines that route files through LFS. */
export function lfsGlobs(gitattributes: string): string[] {
  const out: string[] = [];
  for (const raw of gitattributes.split(/\r?\n/)) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [pattern, ...attrs] = line.split(/\s+/);
    if (!attrs.includes('filter=lfs')) continue;
    // gitattributes: a pattern without '/' matches at any depth
    const p = pattern.replace(/^\//, '');
    out.push(pattern.includes('/') && !pattern.startsWith('**') ? p : `**/${p}`);
  }
  return out;
}

/** `path = x` entries of .gitmodules, as globs covering the submodule directory. */
export function submoduleGlobs(gitmodules: string): string[] {
  const out: string[] = [];
  for (const m of gitmodules.matchAll(/^\s*path\s*=\s*(.+?)\s*$/gm)) {
    const p = m[1].replace(/^\/+|\/+$/g, '');
    if (p) out.push(p, `${p}/**`);
  }
  return out;
}

export const LFS_POINTER_PREFIX = 'version https://git-lfs.github.com/spec/v1';

export function isLfsPointer(text: string): boolean {
  return text.startsWith(LFS_POINTER_PREFIX);
}

async function readOrEmpty(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    return '';
  }
}

/** Extra protected globs for the checkout at `root`. */
export async function repoStateProtections(root: string): Promise<string[]> {
  const [attrs, modules] = await Promise.all([readOrEmpty(path.join(root, '.gitattributes')), readOrEmpty(path.join(root, '.gitmodules'))]);
  return [...new Set([...lfsGlobs(attrs), ...submoduleGlobs(modules)])];
}
