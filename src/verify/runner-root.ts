/**
 * Where a package's test runner reads its paths from: vitest's `root` (`test.root`, else vite's
 * `root`), jest's `rootDir`. The runner prints test files relative to it (vitest `✓
 * getViewportRect.test.ts` for `packages/dom/test/unit/getViewportRect.test.ts`) and resolves the
 * files given to `vitest related` from it, so test ids and related-test selection use it.
 *
 * The configuration is read as text, not run: a string literal given to `root`/`rootDir` (the
 * form real configurations use); anything computed is not understood and the package directory
 * stays the root. vitest also names its root in its output (`RUN  v4.1.9 /abs/root`), which the
 * output parser prefers (verify/runners/index.ts).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { RunnerId } from './runners/runner.js';

const VITEST_CONFIGS = ['vitest.config.ts', 'vitest.config.mts', 'vitest.config.cts', 'vitest.config.js', 'vitest.config.mjs', 'vitest.config.cjs', 'vite.config.ts', 'vite.config.mts', 'vite.config.cts', 'vite.config.js', 'vite.config.mjs', 'vite.config.cjs'];
const JEST_CONFIGS = ['jest.config.js', 'jest.config.cjs', 'jest.config.mjs', 'jest.config.ts', 'jest.config.json'];

/** The text of the object literal that follows `key:` (balanced braces, strings skipped), or null. */
export function objectAfter(text: string, key: string): string | null {
  const m = new RegExp(`(?:^|[\\s,{])${key}\\s*:\\s*\\{`).exec(text);
  return m ? objectAt(text, m.index + m[0].length - 1) : null;
}

/** The body of the object literal whose `{` is at `start`. */
function objectAt(text: string, start: number): string | null {
  let depth = 0;
  let quote: string | null = null;
  for (let i = start; i < text.length; i++) {
    const c = text[i];
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === '"' || c === "'" || c === '`') quote = c;
    else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return text.slice(start + 1, i);
  }
  return null;
}

/** Top-level entries only: nested objects' text blanked out. */
function topLevel(body: string): string {
  let out = '';
  let depth = 0;
  for (const c of body) {
    if (c === '{') depth++;
    if (depth === 0) out += c;
    if (c === '}') depth--;
  }
  return out;
}

const literal = (text: string, key: string) => new RegExp(`(?:^|[\\s,{])${key}\\s*:\\s*(['"\`])([^'"\`$]*)\\1`).exec(text)?.[2] ?? null;

/** A package-relative directory, `/` separators, no `./`, no trailing slash; '' for the package itself. */
function clean(root: string): string {
  const p = path.posix.normalize(root.replace(/\\/g, '/').replace(/^<rootDir>\/?/, '')).replace(/^\.\/?/, '').replace(/\/+$/, '');
  return p === '.' ? '' : p;
}

/**
 * The root a configuration's text sets, package-relative: vitest `test: { root }` first, then the
 * config's own top-level `root`; jest `rootDir`. Null when it sets none (or none as a literal).
 */
export function configuredRoot(runner: RunnerId, configText: string): string | null {
  if (runner === 'vitest') {
    const test = objectAfter(configText, 'test');
    const inTest = test !== null ? literal(topLevel(test), 'root') : null;
    if (inTest !== null) return clean(inTest);
    // the vite root outside `test` (the config's outermost object: `defineConfig({ root })`)
    const call = /(?:defineConfig|defineViteConfig|defineProject|export\s+default)\s*\(?\s*\{/.exec(configText);
    const outer = (call ? objectAt(configText, call.index + call[0].length - 1) : null) ?? configText;
    const top = literal(topLevel(outer), 'root');
    return top !== null ? clean(top) : null;
  }
  if (runner === 'jest') {
    const root = literal(configText, 'rootDir') ?? (/"rootDir"\s*:\s*"([^"]*)"/.exec(configText)?.[1] ?? null);
    return root !== null && !path.isAbsolute(root) ? clean(root) : null;
  }
  return null;
}

/** The root of the runner in the package at `dir` (absolute), package-relative; '' when it is the package. */
export async function runnerRoot(runner: RunnerId, dir: string): Promise<string> {
  const read = async (f: string) => {
    try {
      return await fs.readFile(path.join(dir, f), 'utf8');
    } catch {
      return null;
    }
  };
  const files = runner === 'vitest' ? VITEST_CONFIGS : runner === 'jest' ? JEST_CONFIGS : [];
  for (const f of files) {
    const text = await read(f);
    if (text === null) continue;
    return configuredRoot(runner, text) ?? '';
  }
  if (runner === 'jest') {
    const pkg = await read('package.json');
    if (pkg) {
      try {
        const jest = (JSON.parse(pkg) as { jest?: { rootDir?: unknown } }).jest;
        if (jest && typeof jest.rootDir === 'string' && !path.isAbsolute(jest.rootDir)) return clean(jest.rootDir);
      } catch {
        // not JSON: no configuration
      }
    }
  }
  return '';
}
