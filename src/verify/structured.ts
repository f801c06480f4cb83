/**
 * Parsers for machine-readable test reports: jest `--json` (and vitest's JSON reporter,
 * which writes the same shape), JUnit XML (pytest `--junitxml`, node's junit reporter,
 * mocha xunit, most other runners), `go test -json` and the JSON lines of our mocha reporter
 * (verify/mocha.ts). Pure: text in, test cases out.
 *
 * Ids match the plain-text parsers (verify/parse.ts) so a structured run and a plain run
 * of the same suite compare: `file > suite > name` (jest, vitest), `file.py::Class::name`
 * (pytest), `package > TestName/sub` (go), `suite > name` (mocha, other JUnit producers).
 */
import type { TestCase, TestStatus } from './types.js';
import { stripAnsi } from './parse.js';
import { normaliseId, testId } from './identity.js';

export type StructuredFormat = 'jest-json' | 'junit' | 'go-json' | 'mocha-jsonl';

export interface StructuredResult {
  tests: TestCase[];
  /** Files / packages that failed to load (no test could run in them). */
  loadErrors: string[];
  totals: { passed: number; failed: number; skipped: number };
}

const MAX_MESSAGE = 300;
const MAX_DETAILS = 2000;
const SEP = ' > ';

function oneLine(text: string): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > MAX_MESSAGE ? `${t.slice(0, MAX_MESSAGE - 1)}…` : t;
}

function capDetails(text: string): string {
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

function totalsOf(tests: TestCase[]): StructuredResult['totals'] {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const t of tests) totals[t.status]++;
  return totals;
}

function failure(test: TestCase, text: string, root: string): void {
  const clean = stripAnsi(text);
  if (!clean.trim()) return;
  test.message = oneLine(clean.split('\n').find((l) => l.trim()) ?? clean);
  test.details = capDetails(clean);
  const frame = firstRepoFrame(clean, root);
  if (frame) test.frame = frame;
}

// ------------------------------------------------------------------- jest / vitest JSON

interface JestAssertion {
  ancestorTitles?: string[];
  title?: string;
  fullName?: string;
  status?: string;
  duration?: number | null;
  failureMessages?: string[];
}
interface JestFile {
  name?: string;
  status?: string;
  message?: string;
  failureMessage?: string;
  assertionResults?: JestAssertion[];
  testExecError?: { message?: string };
}

const JEST_STATUS: Record<string, TestStatus> = {
  passed: 'passed',
  failed: 'failed',
  pending: 'skipped',
  skipped: 'skipped',
  todo: 'skipped',
  disabled: 'skipped',
  focused: 'passed',
};

export function parseJestJson(text: string, root: string): StructuredResult | null {
  let data: { testResults?: JestFile[] };
  try {
    // jest may print a warning line before the JSON when it goes to stdout.
    const start = text.indexOf('{');
    data = JSON.parse(start > 0 ? text.slice(start) : text);
  } catch {
    return null;
  }
  if (!data || !Array.isArray(data.testResults)) return null;
  const tests: TestCase[] = [];
  const loadErrors: string[] = [];
  for (const file of data.testResults) {
    const rel = relativeTo(root, file.name ?? 'unknown');
    const assertions = file.assertionResults ?? [];
    for (const a of assertions) {
      const titles = [...(a.ancestorTitles ?? []), a.title ?? a.fullName ?? '?'];
      const test: TestCase = { id: testId([rel, ...titles]), status: JEST_STATUS[a.status ?? ''] ?? 'skipped', file: rel };
      if (typeof a.duration === 'number') test.durationMs = a.duration;
      if (test.status === 'failed') failure(test, (a.failureMessages ?? []).join('\n'), root);
      tests.push(test);
    }
    const fileFailed = file.status === 'failed';
    if (fileFailed && !assertions.some((a) => a.status === 'failed')) {
      // The file did not load (syntax error, missing import) or failed outside any test.
      const test: TestCase = { id: rel, status: 'failed', file: rel };
      failure(test, file.testExecError?.message ?? file.failureMessage ?? file.message ?? 'Test suite failed to run', root);
      tests.push(test);
      loadErrors.push(rel);
    }
  }
  return { tests, loadErrors, totals: totalsOf(tests) };
}

// ------------------------------------------------------------------- JUnit XML

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

// ------------------------------------------------------------------- go test -json

interface GoEvent {
  Action?: string;
  Package?: string;
  Test?: string;
  Elapsed?: number;
  Output?: string;
}

/** `go test -json` event stream; non-JSON lines (build errors on stderr) are ignored. */
export function parseGoJson(text: string, root: string): StructuredResult | null {
  const events: GoEvent[] = [];
  // Build failures are plain lines (stdout `FAIL pkg [build failed]`, stderr `# pkg` + errors).
  const buildOut = new Map<string, string[]>();
  const buildFailed: string[] = [];
  let block: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) {
      const head = line.match(/^# (\S+)/);
      const failed = line.match(/^FAIL\s+(\S+)\s+\[(?:build|setup) failed\]/);
      if (head) block = head[1];
      else if (failed) {
        if (!buildFailed.includes(failed[1])) buildFailed.push(failed[1]);
        block = null;
      } else if (block && line.trim()) (buildOut.get(block) ?? buildOut.set(block, []).get(block)!).push(line);
      continue;
    }
    try {
      events.push(JSON.parse(line) as GoEvent);
    } catch {
      // a truncated line
    }
  }
  const byId = new Map<string, { pkg: string; name: string; status?: TestStatus; out: string[]; elapsed?: number }>();
  const pkgOut = new Map<string, string[]>();
  const pkgStatus = new Map<string, string>();
  for (const e of events) {
    const pkg = e.Package ?? '';
    if (!e.Test) {
      if (e.Output) (pkgOut.get(pkg) ?? pkgOut.set(pkg, []).get(pkg)!).push(e.Output);
      if (e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') pkgStatus.set(pkg, e.Action);
      continue;
    }
    const id = `${pkg}${SEP}${e.Test}`;
    const entry = byId.get(id) ?? byId.set(id, { pkg, name: e.Test, out: [] }).get(id)!;
    if (e.Output) entry.out.push(e.Output);
    if (e.Action === 'pass') entry.status = 'passed';
    else if (e.Action === 'fail') entry.status = 'failed';
    else if (e.Action === 'skip') entry.status = 'skipped';
    if (typeof e.Elapsed === 'number') entry.elapsed = e.Elapsed;
  }
  const tests: TestCase[] = [];
  const loadErrors: string[] = [];
  const all = [...byId.values()];
  for (const t of all) {
    const prefix = `${t.name}/`;
    const children = all.filter((o) => o.pkg === t.pkg && o.name.startsWith(prefix));
    if (children.length && !(t.status === 'failed' && !children.some((c) => c.status === 'failed'))) continue;
    const test: TestCase = { id: testId([t.pkg, t.name]), status: t.status ?? 'failed', file: undefined };
    delete test.file;
    if (t.elapsed !== undefined) test.durationMs = Math.round(t.elapsed * 1000);
    if (test.status === 'failed') {
      const out = t.out.filter((l) => !/^\s*(?:=== RUN|=== PAUSE|=== CONT|--- FAIL)/.test(l)).join('');
      failure(test, out || (t.status ? 'failed' : 'did not finish (panic or timeout)'), root);
    }
    tests.push(test);
  }
  for (const [pkg, status] of pkgStatus) {
    if (status !== 'fail') continue;
    if (tests.some((t) => t.status === 'failed' && t.id.startsWith(`${pkg}${SEP}`))) continue;
    // The package failed without a failing test: build failure, panic in init, TestMain exit.
    const test: TestCase = { id: pkg, status: 'failed' };
    failure(test, (pkgOut.get(pkg) ?? []).join('') || 'package failed', root);
    tests.push(test);
    loadErrors.push(pkg);
  }
  for (const pkg of buildFailed) {
    if (loadErrors.includes(pkg)) continue;
    const test: TestCase = { id: pkg, status: 'failed' };
    failure(test, `build failed\n${(buildOut.get(pkg) ?? []).join('\n')}`, root);
    tests.push(test);
    loadErrors.push(pkg);
  }
  if (events.length === 0 && buildFailed.length === 0) return null;
  return { tests, loadErrors, totals: totalsOf(tests) };
}

/** The human-readable output hidden in a `go test -json` stream. */
export function goJsonToText(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) {
      if (line.trim()) out.push(`${line}\n`);
      continue;
    }
    try {
      const e = JSON.parse(line) as GoEvent;
      if (e.Output) out.push(e.Output);
    } catch {
      // ignore
    }
  }
  return out.join('');
}

// ------------------------------------------------------------------- mocha (our reporter)

interface MochaLine {
  type?: string;
  path?: unknown;
  state?: string;
  file?: string;
  duration?: number;
  message?: string;
  details?: string;
}

/**
 * The JSON lines of our mocha reporter: one per test (passed / failed / skipped) and per
 * failing hook, `suite > nested > title` like the spec output (a hook: `suite > "before
 * all" hook for "test"`). A test reported twice (it passed, then failed asynchronously)
 * counts as failed. Lines that are not JSON (a truncated last line) are skipped.
 */
export function parseMochaJsonl(text: string, root: string): StructuredResult | null {
  const byId = new Map<string, TestCase>();
  let lines = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let e: MochaLine;
    try {
      e = JSON.parse(line) as MochaLine;
    } catch {
      continue;
    }
    lines++;
    if (e.type !== 'test' && e.type !== 'hook') continue;
    const titles = Array.isArray(e.path) ? e.path.filter((t): t is string => typeof t === 'string' && t !== '') : [];
    if (titles.length === 0) continue;
    const id = testId(titles);
    const status: TestStatus = e.state === 'passed' ? 'passed' : e.state === 'failed' ? 'failed' : 'skipped';
    const previous = byId.get(id);
    if (previous?.status === 'failed') continue;
    const test: TestCase = { id, status };
    if (e.file) test.file = relativeTo(root, e.file);
    if (typeof e.duration === 'number') test.durationMs = e.duration;
    if (status === 'failed') {
      failure(test, e.details || e.message || 'failed', root);
      if (e.message?.trim()) test.message = oneLine(stripAnsi(e.message));
    }
    byId.set(id, test);
  }
  if (lines === 0 && text.trim()) return null;
  const tests = [...byId.values()];
  return { tests, loadErrors: [], totals: totalsOf(tests) };
}

export function parseStructured(format: StructuredFormat, text: string, root: string, flavour: 'pytest' | 'generic' = 'generic'): StructuredResult | null {
  switch (format) {
    case 'jest-json':
      return parseJestJson(text, root);
    case 'junit':
      return parseJUnit(text, root, flavour);
    case 'go-json':
      return parseGoJson(text, root);
    case 'mocha-jsonl':
      return parseMochaJsonl(text, root);
  }
}
