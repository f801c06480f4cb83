/**
 * JUnit XML, the report format of pytest `--junitxml`, node's junit reporter and most other
 * runners. `flavour` 'pytest' builds pytest node ids (`file.py::Class::name`). Pure.
 */
import type { TestCase, TestStatus } from '../types.js';
import { normaliseId, testId } from '../identity.js';
import { failure, relativeTo, totalsOf, type StructuredResult } from './report.js';

function decodeXml(s: string): string {
  return s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/&#x([0-9a-f]+);/gi, (_, h: string) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);/g, (_, d: string) => String.fromCodePoint(Number(d)))
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&amp;/g, '&');
}

function attrs(tag: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of tag.matchAll(/([\w:.-]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g)) out[m[1]] = decodeXml(m[2] ?? m[3] ?? '');
  return out;
}

/** `tests.test_a.TestX` + file `tests/test_a.py` -> `tests/test_a.py::TestX`. */
function pytestPrefix(classname: string, file: string | undefined): string {
  const parts = classname.split('.').filter(Boolean);
  if (file) {
    const mod = file.replace(/\.py$/, '').split('/');
    let i = 0;
    while (i < parts.length && i < mod.length && parts[i] === mod[i]) i++;
    return [file, ...parts.slice(i)].join('::');
  }
  // Without a file attribute: the first capitalised segment starts the classes.
  const cls = parts.findIndex((p) => /^[A-Z]/.test(p));
  const modParts = cls === -1 ? parts : parts.slice(0, cls);
  const classes = cls === -1 ? [] : parts.slice(cls);
  return [`${modParts.join('/')}.py`, ...classes].join('::');
}

/**
 * JUnit XML. `flavour` 'pytest' builds pytest node ids; otherwise `suite > name` where the
 * suite is the classname (or the testsuite name), and the file is kept when given.
 */
export function parseJUnit(xml: string, root: string, flavour: 'pytest' | 'generic' = 'generic'): StructuredResult | null {
  if (!/<testsuites?\b/.test(xml)) return null;
  const tests: TestCase[] = [];
  const loadErrors: string[] = [];
  const seen = new Set<string>();
  const suites: string[] = [];
  const tokenRe = /<!--[\s\S]*?-->|<testsuite\b([^>]*?)(\/?)>|<\/testsuite>|<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g;
  for (const tok of xml.matchAll(tokenRe)) {
    const whole = tok[0];
    if (whole.startsWith('<!--')) continue;
    if (whole.startsWith('</testsuite')) {
      suites.pop();
      continue;
    }
    if (whole.startsWith('<testsuite')) {
      if (tok[2] !== '/') suites.push(attrs(tok[1]).name ?? '');
      continue;
    }
    const a = attrs(tok[3] ?? '');
    const inner = tok[4] ?? '';
    const name = a.name ?? '?';
    const file = a.file ? relativeTo(root, a.file) : undefined;
    let status: TestStatus = 'passed';
    let text = '';
    const fail = inner.match(/<(failure|error)\b([^>]*?)(?:\/>|>([\s\S]*?)<\/\1>)/);
    if (/<skipped\b/.test(inner)) {
      // Skipped wins: a todo test that fails (node) or an expected failure is not a failure.
      status = 'skipped';
    } else if (fail) {
      status = 'failed';
      const fa = attrs(fail[2]);
      text = [fa.message ?? '', decodeXml(fail[3] ?? '')].filter(Boolean).join('\n');
    }
    let id: string;
    let loadError = false;
    if (flavour === 'pytest') {
      id = normaliseId(a.classname ? `${pytestPrefix(a.classname, file)}::${name}` : name);
      // A collection error: a testcase with an empty classname and the module as its name.
      if (!a.classname && status === 'failed') {
        id = name.includes('/') || name.endsWith('.py') ? name : `${name.replace(/\./g, '/')}.py`;
        loadError = true;
      }
    } else if (status === 'failed' && /[\\/]/.test(name) && /\.[cm]?[jt]sx?$/.test(name)) {
      // node's test runner: a file that failed outside any test (did not load).
      id = relativeTo(root, name);
      loadError = true;
    } else {
      const path = suites.filter(Boolean);
      if (path.length === 0 && a.classname && a.classname !== 'test' && a.classname !== name) path.push(a.classname);
      id = testId([...path, name]);
    }
    if (loadError) loadErrors.push(id);
    if (seen.has(id)) continue;
    seen.add(id);
    const test: TestCase = { id, status };
    if (file) test.file = file;
    const time = Number(a.time);
    if (a.time !== undefined && Number.isFinite(time)) test.durationMs = Math.round(time * 1000);
    if (status === 'failed') failure(test, text || 'failed', root);
    tests.push(test);
  }
  return { tests, loadErrors, totals: totalsOf(tests) };
}
