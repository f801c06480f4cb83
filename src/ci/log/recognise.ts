/** What one cleaned line is: a failing test, a failing file, a compiler or other error, a stack frame, a passing line. */
import { isCrashHeader, isDependencyPath } from '../../lang/index.js';
import { pytestSubtestFailure } from '../../verify/runners/index.js';
import { normaliseSegment } from '../../verify/identity.js';
import { MAX_TEST_NAME } from './types.js';

// ------------------------------------------------------------------ recognisers

/** Removes a trailing duration: `name (12 ms)`, `name [1.2s]`, `name 3ms`, `name (0.00s)`. */
export function stripDuration(name: string): string {
  return name.replace(/\s*[([]?\d+(?:\.\d+)?\s?(?:ms|s|sec)[)\]]?\s*$/, '').trim();
}

export function capName(name: string): string {
  const t = name.replace(/\s+/g, ' ').trim();
  return t.length > MAX_TEST_NAME ? `${t.slice(0, MAX_TEST_NAME - 1)}…` : t;
}

export type LineKind =
  | { kind: 'test'; name: string }
  | { kind: 'file'; name: string }
  | { kind: 'compile'; text: string }
  | { kind: 'error'; text: string }
  | { kind: 'frame'; path: string; text: string }
  | { kind: 'plain' };

const PLAIN: LineKind = { kind: 'plain' };
const FAIL_MARKS = ['✖ ', '✕ ', '× ', '✗ ', '❌ '];

/** What one cleaned line is. `t` is the line without leading whitespace. */
export function classify(t: string): LineKind {
  // Problem-matcher annotations: `##[error]src/a.ts(3,1): error TS2322: ...`
  if (t.startsWith('##[error]')) {
    const inner = classify(t.slice(9).trimStart());
    return inner.kind === 'plain' ? { kind: 'error', text: t.slice(9) } : inner;
  }
  const c = t.charCodeAt(0);
  // ---- test names
  if (t.startsWith('● ')) {
    const name = t.slice(2).trim();
    if (name.startsWith('Test suite failed to run') || name.startsWith('Console')) return PLAIN;
    return { kind: 'test', name };
  }
  for (const mark of FAIL_MARKS) {
    if (t.startsWith(mark)) {
      const name = stripDuration(t.slice(mark.length));
      // summaries, not tests: `✖ failing tests:`, `✖ 2 tests failed`, eslint's `✖ 3 problems (3 errors, 0 warnings)`
      if (name === '' || /^failing tests:?$/i.test(name) || /^\d+ (tests? )?fail/.test(name) || /^\d+ problems? \(/.test(name)) return PLAIN;
      return { kind: 'test', name };
    }
  }
  if (t.startsWith('not ok ')) {
    if (/#\s*(TODO|SKIP)\b/i.test(t)) return PLAIN;
    const m = /^not ok \d+\s*(?:-\s*)?(.*)$/.exec(t);
    // node-tap's `# time=16.2ms` directive is no part of the name
    const name = m ? normaliseSegment(m[1]) : '';
    return name ? { kind: 'test', name: stripDuration(name) } : PLAIN;
  }
  if (t.startsWith('FAIL ') || t.startsWith('FAIL\t')) {
    const rest = t.slice(5).trim();
    if (rest.includes(' > ')) return { kind: 'test', name: stripDuration(rest) };
    const file = rest.split(/\s+/)[0];
    return file ? { kind: 'file', name: file } : PLAIN;
  }
  if (t.startsWith('--- FAIL: ')) return { kind: 'test', name: stripDuration(t.slice(10)) };
  // pytest 9's failing subtest names its test (reported PASSED itself, for a unittest subTest)
  if (t.includes('SUBFAILED')) {
    const sub = pytestSubtestFailure(t);
    if (sub) return { kind: 'test', name: sub.id };
  }
  if (t.startsWith('FAILED ') || t.startsWith('ERROR ')) {
    const rest = t.slice(t.indexOf(' ') + 1);
    if (rest.includes('::')) return { kind: 'test', name: rest.split(' - ')[0].trim() };
  }
  // gradle: `CartTest > applies a discount() FAILED`
  if (t.endsWith(' FAILED') && t.includes(' > ') && !t.includes('::')) return { kind: 'test', name: t.slice(0, -7).trim() };
  // maven surefire: `[ERROR] discount(com.shop.CartTest)  Time elapsed: 0.01 s  <<< FAILURE!`
  if (t.endsWith('<<< FAILURE!') || t.endsWith('<<< ERROR!')) {
    const body = t.startsWith('[ERROR] ') ? t.slice(8) : t;
    const cut = body.indexOf('  Time elapsed');
    const name = (cut > 0 ? body.slice(0, cut) : body.slice(0, body.lastIndexOf('<<<'))).trim();
    return name ? { kind: 'test', name } : PLAIN;
  }
  // dotnet test: `Failed CartTests.Discount [12 ms]`
  if (t.startsWith('Failed ') && t.endsWith(']') && !t.includes(': ')) return { kind: 'test', name: t.slice(7).replace(/\s*\[[^\]]*\]$/, '').trim() };
  // phpunit: `1) CartTest::testDiscount`
  if (c >= 48 && c <= 57 && /^\d+\) [\w\\]+::\w+/.test(t)) return { kind: 'test', name: t.slice(t.indexOf(') ') + 2).trim() };
  if (t.endsWith(' FAILED') && t.includes('::')) {
    const name = t.slice(0, -7).trim();
    return { kind: 'test', name: name.startsWith('test ') && name.endsWith(' ...') ? name.slice(5, -4) : name.split(' ')[0] };
  }
  if (t.startsWith('test ') && t.endsWith(' ... FAILED')) return { kind: 'test', name: t.slice(5, -11).trim() };
  if (t.startsWith('rspec ./')) {
    const hash = t.indexOf(' # ');
    return { kind: 'test', name: hash > 0 ? t.slice(hash + 3).trim() : t.slice(6) };
  }
  // ---- stack frames
  if (t.startsWith('at ') && (t.includes(':') || t.includes('('))) {
    const path = framePath(t);
    return path ? { kind: 'frame', path, text: t } : PLAIN;
  }
  if (t.startsWith('File "')) {
    const end = t.indexOf('"', 6);
    return end > 6 ? { kind: 'frame', path: t.slice(6, end), text: t } : PLAIN;
  }
  // ---- eslint (stylish): `  3:5  error  'x' is defined but never used  no-unused-vars`, under the file's line
  if (c >= 48 && c <= 57 && /^\d+:\d+\s+error\s/.test(t)) return { kind: 'compile', text: t };
  // ---- compiler errors (one scan for "rror" spares the other substring searches on most lines)
  const rror = t.indexOf('rror');
  if (rror >= 0 && (t.includes(' error TS') || t.startsWith('error TS') || t.startsWith('error[E') || t.startsWith('error: ') || t.includes(': error: ') || t.includes(': fatal error: '))) {
    return { kind: 'compile', text: t };
  }
  // ---- error and assertion lines
  if (c === 69 /* E */ && (t.startsWith('E   ') || t.startsWith('E       '))) return { kind: 'error', text: t };
  if (isCrashHeader(t)) {
    return { kind: 'error', text: t };
  }
  if ((rror > 0 && (t.includes('Error: ') || t.includes('Error ['))) || t.startsWith('Expected') || t.startsWith('Received') || t.startsWith('expected ') || t.startsWith('+ expected') || t.startsWith('- actual')) {
    return { kind: 'error', text: t };
  }
  return PLAIN;
}

/** Path of a JS stack frame: `at f (/a/b.js:1:2)`, `at /a/b.js:1:2`, `at file:///a/b.js:1:2`; null for prose. */
function framePath(t: string): string | null {
  let s = t.endsWith(' {') ? t.slice(0, -2) : t;
  const open = s.lastIndexOf('(');
  let loc = open >= 0 && s.endsWith(')') ? s.slice(open + 1, -1) : s.slice(3).trim();
  if (loc.startsWith('async ')) loc = loc.slice(6);
  if (loc.startsWith('file://')) loc = loc.slice(7);
  s = loc;
  // drop :line[:col]; a frame always has a line number
  const m = /^(.*?)(?::\d+){1,2}$/.exec(s);
  if (!m || m[1] === '' || m[1].includes(' ')) return null;
  return m[1];
}

/** `✔ name`, `✓ name`, `ok 3 - name`, `PASS file`, `--- PASS: T`, pytest's `PASSED`. */
export function isPassingLine(t: string): boolean {
  return t.startsWith('✔ ') || t.startsWith('✓ ') || t.startsWith('√ ') || t.startsWith('PASS ') || t.startsWith('--- PASS: ') || (t.startsWith('ok ') && !t.includes('# SKIP')) || t.endsWith(' PASSED') || t.endsWith(' ... ok');
}

/** Is a (workspace-stripped) path a repository file rather than a dependency or the runtime? */
export function isRepoPath(path: string, isRepoFile?: (p: string) => boolean): boolean {
  if (path === '' || path.startsWith('node:') || path.startsWith('internal/') || path.startsWith('<')) return false;
  if (path.includes('/hostedtoolcache/') || isDependencyPath(path)) return false;
  if (path.startsWith('/') || /^[A-Za-z]:\\/.test(path)) return false;
  const rel = path.replace(/^\.\//, '');
  return isRepoFile ? isRepoFile(rel) : true;
}
