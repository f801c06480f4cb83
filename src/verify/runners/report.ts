/**
 * What the machine-readable report parsers of every runner share (runners/<runner>.ts
 * `report`): the result shape, repo-relative paths, the first in-repo stack frame, a
 * failure's message and capped details. Pure.
 *
 * Ids match the plain-text parsers so a structured run and a plain run of the same suite
 * compare: `file > suite > name` (jest, vitest), `file.py::Class::name` (pytest),
 * `package > TestName/sub` (go), `suite > name` (mocha, other JUnit producers).
 */
import type { TestCase } from '../types.js';
import { MAX_MESSAGE, stripAnsi } from './text.js';

/** The machine-readable reports the harness reads: jest `--json` (also vitest's), JUnit XML, `go test -json`, our mocha reporter's JSON lines. */
export type StructuredFormat = 'jest-json' | 'junit' | 'go-json' | 'mocha-jsonl';

export interface StructuredResult {
  tests: TestCase[];
  /** Files / packages that failed to load (no test could run in them). */
  loadErrors: string[];
  totals: { passed: number; failed: number; skipped: number };
}

const MAX_DETAILS = 2000;

export function oneLine(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > MAX_MESSAGE ? `${t.slice(0, MAX_MESSAGE - 1)}…` : t;
}

export function capDetails(text: string): string {
  const t = stripAnsi(text).replace(/\s+$/, '');
  return t.length > MAX_DETAILS ? `${t.slice(0, MAX_DETAILS - 1)}…` : t;
}

/** Repo-relative, forward slashes; paths outside the root stay as given. */
export function relativeTo(root: string, file: string): string {
  const norm = (p: string) => p.replace(/\\/g, '/');
  const r = norm(root).replace(/\/+$/, '');
  const f = norm(file);
  if (r && f.startsWith(`${r}/`)) return f.slice(r.length + 1);
  return f.replace(/^\.\//, '');
}

/**
 * First stack frame inside the repository, repo-relative (`src/a.js:3:9`): not in
 * node_modules, not a node: internal, not the test runner's own code.
 */
export function firstRepoFrame(text: string, root: string): string | undefined {
  const r = root.replace(/\\/g, '/').replace(/\/+$/, '');
  for (const m of stripAnsi(text).matchAll(/(?:\(|at |\s|^)((?:file:\/\/)?[^\s()]+?\.(?:[cm]?[jt]sx?|py|go)):(\d+)(?::(\d+))?/gm)) {
    let file = m[1].replace(/^file:\/\//, '').replace(/\\/g, '/');
    if (/node_modules\/|^node:|^internal\//.test(file) || file.includes('/site-packages/') || file.includes('/_pytest/') || file.includes('/go/src/')) continue;
    if (file.startsWith('/')) {
      if (!r || !file.startsWith(`${r}/`)) continue;
      file = file.slice(r.length + 1);
    }
    return `${file}:${m[2]}${m[3] ? `:${m[3]}` : ''}`;
  }
  return undefined;
}

export function totalsOf(tests: TestCase[]): StructuredResult['totals'] {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const t of tests) totals[t.status]++;
  return totals;
}

export function failure(test: TestCase, text: string, root: string): void {
  const clean = stripAnsi(text);
  if (!clean.trim()) return;
  test.message = oneLine(clean.split('\n').find((l) => l.trim()) ?? clean);
  test.details = capDetails(clean);
  const frame = firstRepoFrame(clean, root);
  if (frame) test.frame = frame;
}
