/**
 * What the task itself says about where the problem is: file names, identifiers, stack
 * frames (in the issue text, the CI log, the baseline's failing tests), and the failing
 * tests' files. Pure.
 */
import type { TestRun } from '../verify/types.js';

export interface Frame {
  file: string;
  line: number;
}

export interface Signals {
  /** Tracked files the text names (by path or path suffix), with a weight. */
  files: Map<string, number>;
  /** Identifier-like words of the text, with a weight (code-looking words weigh more). */
  idents: Map<string, number>;
  /** Kebab-case words (`no-floating-promises`, `server-side`): file and directory names more often than code. */
  kebab: Set<string>;
  /** In-repo stack frames, innermost first as they appeared. */
  frames: Frame[];
  /** Test files of the failing tests. */
  testFiles: string[];
  /** Names of the failing tests (last segment), for finding their code. */
  testNames: { file: string; name: string }[];
}

const EXT = '(?:[cm]?[jt]sx?|py|go|json|vue|svelte)';
const PATH_RE = new RegExp(`(?:[A-Za-z]:)?[\\w@.\\-/\\\\]*[\\w\\-]\\.${EXT}(?::(\\d+))?(?::\\d+)?`, 'g');

const STOP = new Set(
  'the this that with from have when where which what while should would could there their then than into about after before because being does doing done each other some such only also more most very just like make made using used uses value values return returns true false null undefined function const let var new test tests error errors expected received issue fix bug case cases string number object array type types file files line lines code call calls version example following works work result results output input problem still same different first last given time date data name names default option options method methods class param params args argument arguments instead even both every here must need needs want'.split(
    ' ',
  ),
);

function bump(m: Map<string, number>, k: string, w: number): void {
  m.set(k, (m.get(k) ?? 0) + w);
}

/** Tracked files a written path refers to: exact, or the longest tracked suffix match. */
export function resolveMention(raw: string, tracked: string[], bySuffix: Map<string, string[]>): string[] {
  const p = raw.replace(/\\/g, '/').replace(/^(?:\.\/|\/)+/, '');
  const parts = p.split('/');
  for (let i = 0; i < parts.length; i++) {
    const suffix = parts.slice(i).join('/');
    const hits = bySuffix.get(suffix);
    if (hits && (i < parts.length - 1 || hits.length <= 3)) return hits;
  }
  return tracked.includes(p) ? [p] : [];
}

export function suffixIndex(tracked: string[]): Map<string, string[]> {
  const idx = new Map<string, string[]>();
  for (const f of tracked) {
    const parts = f.split('/');
    for (let i = 0; i < parts.length; i++) {
      const s = parts.slice(i).join('/');
      const list = idx.get(s);
      if (list) {
        if (list.length < 8) list.push(f);
      } else idx.set(s, [f]);
    }
  }
  return idx;
}

export function taskSignals(text: string, baseline: TestRun | null, tracked: string[]): Signals {
  const files = new Map<string, number>();
  const idents = new Map<string, number>();
  const frames: Frame[] = [];
  const bySuffix = suffixIndex(tracked);
  const trackedSet = new Set(tracked);
  const testFiles: string[] = [];
  const testNames: { file: string; name: string }[] = [];

  const all = [text];
  if (baseline && !baseline.succeeded) {
    for (const t of baseline.tests) {
      if (t.status !== 'failed') continue;
      // a pytest node id names its file (`tests/test_x.py::TestY::test_z`) where the parse left `file` out
      const file = t.file ?? /^([^\s:]+\.py)::/.exec(t.id)?.[1];
      if (file && trackedSet.has(file) && !testFiles.includes(file)) testFiles.push(file);
      if (file) testNames.push({ file, name: testName(t.id) });
      if (t.frame) {
        const m = /^(.*?):(\d+)(?::\d+)?$/.exec(t.frame);
        if (m) for (const f of resolveMention(m[1], tracked, bySuffix)) frames.push({ file: f, line: Number(m[2]) });
      }
      all.push(t.id, t.message ?? '', t.details ?? '');
    }
    all.push(baseline.outputTail);
  }
  const corpus = all.join('\n');

  for (const m of corpus.matchAll(PATH_RE)) {
    const raw = m[0].replace(/:\d+(?::\d+)?$/, '');
    if (/^https?:|\/\//.test(raw) || raw.includes('node_modules')) continue;
    const hits = resolveMention(raw, tracked, bySuffix);
    for (const f of hits) {
      bump(files, f, 1 / hits.length);
      if (m[1] && hits.length === 1 && !frames.some((x) => x.file === f && x.line === Number(m[1]))) frames.push({ file: f, line: Number(m[1]) });
    }
  }

  // identifiers: code-looking words (camelCase, snake_case, dotted, followed by "(", in backticks) weigh more
  const codeSpans = new Set<string>();
  for (const m of corpus.matchAll(/`([^`\n]{1,120})`/g)) for (const w of m[1].match(/[A-Za-z_$][\w$]*/g) ?? []) codeSpans.add(w);
  for (const m of corpus.matchAll(/[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(\()?/g)) {
    const called = Boolean(m[1]);
    for (const w of m[0].replace(/\($/, '').split('.')) {
      if (w.length < 3 || STOP.has(w.toLowerCase())) continue;
      const codey = /[a-z][A-Z]|_|\$/.test(w) || /^[A-Z][a-z]+[A-Z]/.test(w);
      const weight = (codey ? 2 : 0.5) + (called ? 2 : 0) + (codeSpans.has(w) ? 2 : 0) + (m[0].includes('.') ? 1 : 0);
      bump(idents, w, weight);
    }
  }
  const kebab = new Set<string>();
  for (const m of corpus.matchAll(/\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b/gi)) kebab.add(m[0].toLowerCase());
  return { files, idents, kebab, frames, testFiles, testNames };
}

/** A test's own name from its id: the last ` > ` segment, or of a pytest node id (`f.py::TestX::test_y[param]`) the function, without its parameters. */
export function testName(id: string): string {
  const last = id.split(' > ').pop() ?? id;
  if (!last.includes('::')) return last;
  return (last.split('::').pop() ?? last).replace(/\[.*$/s, '');
}
