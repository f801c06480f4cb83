/**
 * Path guard: every path the model names goes through resolveRepoPath before any file is touched.
 * It keeps the model inside the repository (no `..`, no absolute paths elsewhere, no symlink
 * escapes), out of `.git/`, and away from protected globs.
 */
import fs from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';

/** Never editable, whatever the policy says. */
export const ALWAYS_PROTECTED = ['.github/workflows/**', '.git/**'];

export type ResolvedPath = { ok: true; abs: string; rel: string } | { ok: false; error: string };

/**
 * 'write' (the default) refuses protected globs; 'read' allows reading protected files
 * (e.g. a workflow, to learn how CI runs the tests) but still refuses `.git/`, escapes and symlink escapes.
 */
export type PathAccess = 'read' | 'write';

const matcherCache = new Map<string, (p: string) => boolean>();

function matcher(glob: string): (p: string) => boolean {
  let m = matcherCache.get(glob);
  if (!m) {
    // nocase: on case-insensitive file systems `.GitHub/Workflows/ci.yml` is the same file.
    m = picomatch(glob, { dot: true, nocase: true });
    matcherCache.set(glob, m);
  }
  return m;
}

/** The first glob of `globs` that matches `rel` (repo-relative, '/' separators), or null. */
export function matchingGlob(rel: string, globs: readonly string[]): string | null {
  for (const glob of globs) {
    const g = glob.trim();
    if (!g) continue;
    if (matcher(g)(rel)) return g;
  }
  return null;
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function isInside(root: string, abs: string): boolean {
  const rel = path.relative(root, abs);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

function hasGitSegment(rel: string): boolean {
  return rel.split('/').some((s) => s.toLowerCase() === '.git');
}

function lstatOrNull(p: string): fs.Stats | null {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
}

/**
 * Real path of `abs`, resolving symlinks of its deepest existing ancestor (so it works for
 * files not created yet). Null when a symlink on the way is dangling or unreadable.
 */
function realPathOf(abs: string): string | null {
  let existing = abs;
  const tail: string[] = [];
  while (!lstatOrNull(existing)) {
    const parent = path.dirname(existing);
    if (parent === existing) break;
    tail.unshift(path.basename(existing));
    existing = parent;
  }
  try {
    return path.join(fs.realpathSync(existing), ...tail);
  } catch {
    return null;
  }
}

/**
 * Resolves a path the model named against the repository root (an absolute real path).
 * `rel` uses '/' separators ('' for the root itself).
 */
export function resolveRepoPath(
  root: string,
  requested: string,
  protectedGlobs: string[],
  access: PathAccess = 'write',
): ResolvedPath {
  if (typeof requested !== 'string' || requested.trim() === '') {
    return { ok: false, error: 'The path is empty; give a file path relative to the repository root, e.g. "src/index.ts".' };
  }
  if (requested.includes('\0')) {
    return { ok: false, error: 'The path contains a NUL character; give a plain path relative to the repository root.' };
  }
  const shown = requested.length > 200 ? requested.slice(0, 200) + '…' : requested;
  // Models trained on Windows paths sometimes send backslashes; the repository uses '/'.
  const cleaned = requested.trim().replace(/\\/g, '/');
  const outside = `Path "${shown}" is outside the repository; use a path relative to the repository root.`;

  let realRoot: string;
  try {
    realRoot = fs.realpathSync(root);
  } catch {
    realRoot = path.resolve(root);
  }
  const base = path.resolve(root);

  let abs: string;
  if (path.isAbsolute(cleaned)) {
    abs = path.resolve(cleaned);
    // Accept absolute paths under either spelling of the root (as given, or its real path).
    if (!isInside(base, abs)) {
      if (isInside(realRoot, abs)) abs = path.join(base, path.relative(realRoot, abs));
      else return { ok: false, error: outside };
    }
  } else {
    abs = path.resolve(base, cleaned);
    if (!isInside(base, abs)) return { ok: false, error: outside };
  }
  const rel = toPosix(path.relative(base, abs));

  if (hasGitSegment(rel)) {
    return { ok: false, error: `"${shown}" is inside .git/: agent-fix never reads or edits git internals.` };
  }

  const real = realPathOf(abs);
  if (real === null) {
    return { ok: false, error: `"${shown}" goes through a broken symbolic link; agent-fix does not follow it. Use another path.` };
  }
  if (!isInside(realRoot, real)) {
    return {
      ok: false,
      error: `"${shown}" resolves through a symbolic link to a location outside the repository; agent-fix does not follow it.`,
    };
  }
  const realRel = toPosix(path.relative(realRoot, real));
  if (hasGitSegment(realRel)) {
    return { ok: false, error: `"${shown}" resolves into .git/: agent-fix never reads or edits git internals.` };
  }

  if (access === 'write') {
    const globs = [...ALWAYS_PROTECTED, ...protectedGlobs];
    for (const candidate of realRel === rel ? [rel] : [rel, realRel]) {
      if (candidate === '') continue;
      const glob = matchingGlob(candidate, globs);
      if (glob) {
        const via = candidate === rel ? '' : ` (it resolves to "${candidate}")`;
        return { ok: false, error: `"${rel}" is protected${via} (${glob}): agent-fix never edits it.` };
      }
    }
  }

  return { ok: true, abs, rel };
}
