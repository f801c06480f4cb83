/**
 * Green for the right reason: a change that makes the tests pass without fixing the code (it
 * special-cases the failing tests' inputs, detects the test run, reads the tests, exits early,
 * replaces the assertion library) is named, and never called a fix. The failing tests are read
 * test by test for their literal inputs and expected values (tests.ts); the change's source files
 * are read from their syntax on the lines the change added (source.ts). JS/TS and Python.
 *
 * The judge refuses such an attempt once with `gamingRefusal` (verify/judge.ts); a published
 * change that still holds one is a draft, its report's first screen says which (report/render.ts),
 * and the policy `gate.gaming: refuse` refuses it outright.
 */
import { languageOf, parseCode } from '../../code/parser.js';
import type { GamingFinding, GamingKind } from '../../verify/types.js';
import { isSnapshotFile, isTestFile } from '../../lang/index.js';
import { expectationsOf, isNamed, testCasePaths, type Expectation } from './tests.js';
import { gamingInSource, type ChangedSource } from './source.js';

export type { ChangedSource } from './source.js';
export type { Expectation } from './tests.js';

/** A test file the failing tests live in, or one the change edits: its text after the change, and before (null: new or unchanged). */
export interface TestText {
  path: string;
  after: string | null;
  before: string | null;
  /** The change edits it: its new and edited test cases count as the tests in question too. */
  changed: boolean;
}

export interface GamingInput {
  sources: ChangedSource[];
  tests: TestText[];
  /** The ids of the tests that failed before the change (the runner's). */
  failing: string[];
}

/** The expectations of the tests in question: the failing ones, and those the change adds or edits. */
export async function expectationsFor(tests: TestText[], failing: string[]): Promise<Expectation[]> {
  const out: Expectation[] = [];
  for (const t of tests) {
    const lang = languageOf(t.path);
    if (!t.after || (lang !== 'javascript' && lang !== 'typescript' && lang !== 'tsx' && lang !== 'python')) continue;
    const python = lang === 'python';
    let edited = new Set<string>();
    if (t.changed) {
      const before = new Map<string, string>();
      if (t.before) {
        const bt = await parseCode(lang, t.before);
        try {
          for (const c of testCasePaths(bt.rootNode, python)) before.set(c.path.join('\0'), c.text);
        } finally {
          bt.delete();
        }
      }
      const at = await parseCode(lang, t.after);
      try {
        edited = new Set(testCasePaths(at.rootNode, python).filter((c) => before.get(c.path.join('\0')) !== c.text).map((c) => c.path.join('\0')));
      } finally {
        at.delete();
      }
    }
    const tree = await parseCode(lang, t.after);
    try {
      out.push(...expectationsOf(tree.rootNode, t.path, python, (p, computed) => edited.has(p.join('\0')) || (failing.length > 0 && isNamed(p, failing, computed))));
    } finally {
      tree.delete();
    }
  }
  return out;
}

/** Every gaming construct of a change. */
export async function detectGaming(input: GamingInput): Promise<GamingFinding[]> {
  const sources = input.sources.filter((s) => !isTestFile(s.path) && !isSnapshotFile(s.path));
  if (!sources.length) return [];
  const expectations = await expectationsFor(input.tests, input.failing);
  const out: GamingFinding[] = [];
  for (const s of sources) out.push(...(await gamingInSource(s, expectations)));
  return out;
}

/** The 1-based lines each file of a unified diff adds (new-file numbering). */
export function addedLines(diff: string): Map<string, Set<number>> {
  const out = new Map<string, Set<number>>();
  let cur: Set<number> | null = null;
  let at = 0;
  for (const line of diff.split('\n')) {
    const head = /^diff --git a\/(.+?) b\/(.+)$/.exec(line);
    if (head) {
      cur = new Set();
      out.set(head[2], cur);
      at = 0;
      continue;
    }
    if (!cur) continue;
    const h = /^@@ -\d+(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (h) {
      at = Number(h[1]);
      continue;
    }
    if (at === 0) continue;
    if (line.startsWith('+')) cur.add(at++);
    else if (line.startsWith(' ')) at++;
  }
  return out;
}

export const GAMING_TITLE: Record<GamingKind, string> = {
  'special-cases': "special-cases the failing tests' values",
  'detects-test-run': 'detects the test run',
  'reads-tests': "reads the tests' own files at run time",
  'exits-early': 'ends the process early',
  'replaces-test-framework': "replaces the test framework's functions",
};

/** One finding on one line: `special-cases the failing tests' values: `…` (src/vat.js:3): returns 120 for 100, 20 …`. */
export function gamingLine(f: GamingFinding): string {
  return `${GAMING_TITLE[f.kind]}: \`${f.code.replace(/`/g, "'")}\` (${f.file}:${f.line}): ${f.detail}`;
}

/** The kinds of a change's findings in a few words: `special-cases the failing tests' values, detects the test run`. */
export function gamingKinds(findings: GamingFinding[]): string {
  return [...new Set(findings.map((f) => GAMING_TITLE[f.kind]))].join('; ');
}

/** What the model is told when its attempt games the tests. */
export function gamingRefusal(findings: GamingFinding[]): string {
  const lines = findings.slice(0, 8).map((f) => `- ${gamingLine(f)}`);
  if (findings.length > 8) lines.push(`- … and ${findings.length - 8} more`);
  return [
    'NOT ACCEPTED: the tests pass, but because the change games them, not because it fixes the code.',
    ...lines,
    "Remove these constructs and fix the general behaviour the tests check: the code must compute the right result for every input, not the failing tests' values; it must not look for the test run, read the tests, end the process or replace the assertions. Then call finish again.",
  ].join('\n');
}
