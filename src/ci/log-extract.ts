/**
 * Failure context from a GitHub Actions job log, within a size budget. Pure.
 *
 * One linear pass over the log, line by line (no regex ever sees more than one line, and
 * lines are cut at MAX_LINE characters first, so no pattern can backtrack across the log):
 *
 * 1. clean: the byte-order mark, the runner's timestamp prefix (`2024-05-14T10:21:33.1234567Z `),
 *    ANSI escapes, carriage-return progress redraws, and runner noise (`##[group]` markers,
 *    debug lines, checkout and package-manager chatter, `Process completed with exit code`);
 * 2. recognise: failing test names (jest, vitest, node:test spec and TAP, mocha, pytest, go,
 *    cargo, rspec, gradle, maven surefire, dotnet test, phpunit), compiler and lint errors
 *    (tsc, gcc/clang/go `file:line:col: error`, rustc, eslint), error
 *    and assertion lines, and stack frames, kept only when they point into repository files
 *    (the runner's workspace prefix `/home/runner/work/<repo>/<repo>/` is removed);
 * 3. keep: a few lines around each of those (the assertion message after a test header, the
 *    code frame after a compiler error), as numbered blocks with a priority;
 * 4. render within the budget: every failing test name first (the thing a fix must make
 *    pass), then error lines, repository frames, and the blocks by priority and position.
 *
 * Tokens are estimated conservatively at 3 characters per token (logs are symbol-heavy).
 */

import { stripVTControlCharacters } from 'node:util';
import { parseTestOutput, pytestSubtestFailure, TAP_SUMMARY_LINE } from '../verify/runners/index.js';
import { identityOf, matchIdentity, normaliseSegment, type TestIdentity } from '../verify/identity.js';

export interface ExtractOptions {
  /** Token budget of the rendered text (default 4000). */
  budgetTokens?: number;
  /** Repository name, to strip `/home/runner/work/<name>/<name>/` style prefixes. */
  repoName?: string;
  /** When given, a stack frame counts as a repository frame only if its path passes. */
  isRepoFile?: (path: string) => boolean;
}

/** A failing test as the log names it, with its identity (verify/identity.ts). */
export interface LogFailure {
  /** The name as the test parsers build it (`file > suite > name`, `file.py::test`, `pkg > TestX/sub`). */
  name: string;
  identity: TestIdentity;
  /** First line of its failure message, when the log shows one. */
  message?: string;
}

export interface LogExtract {
  /** Failing test names, in order of first appearance, durations removed. */
  failingTests: string[];
  /**
   * Failing tests found by the same parsers that read a local run (verify/runners/, `parseTestOutput`) on the
   * cleaned log: the identities reproduction matches against the local run's.
   */
  failures: LogFailure[];
  /** Test files reported as failing (jest `FAIL file`, go `FAIL package`). */
  failingFiles: string[];
  /**
   * Workspace packages of a monorepo whose tests failed, as the log names them: npm's banner
   * over the failing output (`> @mono/a@1.0.0 test`), `npm error workspace @mono/a@1.0.0`, or the
   * step's filtered command (`npm test -w packages/a`, `pnpm --filter a test`, `yarn workspace a
   * test`, `turbo run test --filter=a`, `nx test a`) when the job ran one package's tests.
   */
  failingPackages: string[];
  /** Compiler errors and error/assertion lines (deduplicated, first ones). */
  errors: string[];
  /** Stack frames in repository files, repo-relative (`src/cart.js:7:20`). */
  frames: string[];
  /** The rendered failure context, within the budget. */
  text: string;
  /** Estimated tokens of `text`. */
  tokens: number;
  stats: {
    lines: number;
    chars: number;
    noiseLines: number;
    blocks: number;
    blocksShown: number;
    testsShown: number;
  };
}

export const DEFAULT_BUDGET_TOKENS = 4000;
const CHARS_PER_TOKEN = 3;
const MAX_LINE = 2000;
const MAX_TEST_NAME = 240;
const BEFORE = 3;
const AFTER = 8;
const MAX_BLOCK_LINES = 40;
const MAX_BLOCKS = 500;
const MAX_ERRORS = 60;
const MAX_FRAMES = 60;
/** The parsers read at most the last this many characters of the cleaned log (summaries come last). */
const MAX_PARSED_CHARS = 4_000_000;
/** Lines after the last failing-test line that the parsers still read (details, the summary). */
const PARSE_AFTER_LAST_TEST = 3000;
/** Closing lines of tape, node-tap and node's TAP reporter are not test names (as the TAP parser reads them). */
const TAP_SUMMARY = TAP_SUMMARY_LINE;
const NOTES_ROOM = 150;
/** Left-out lines after which an excerpt ends. */
const GAP = 20;

/** Conservative token estimate of text (3 characters per token). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

// ------------------------------------------------------------------ cleaning one line

/** Removes the runner timestamp, ANSI escapes and carriage-return redraws of one raw line. */
export function cleanLine(raw: string): string {
  let line = raw;
  if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
  // 2024-05-14T10:21:33.1234567Z <text>
  if (line.length >= 21 && line.charCodeAt(4) === 45 && line.charCodeAt(7) === 45 && line.charCodeAt(10) === 84 && line.charCodeAt(13) === 58) {
    const z = line.indexOf('Z', 19);
    if (z > 0 && z < 36) line = line.charCodeAt(z + 1) === 32 ? line.slice(z + 2) : line.slice(z + 1);
  }
  const cr = line.lastIndexOf('\r');
  if (cr >= 0) line = line.slice(cr + 1);
  if (line.length > MAX_LINE) line = line.slice(0, MAX_LINE);
  if (line.includes('\x1b') || line.includes('\x9b')) line = stripVTControlCharacters(line);
  return line;
}

const NOISE_PREFIXES = [
  '##[group]',
  '##[endgroup]',
  '##[debug]',
  '##[command]',
  '::group::',
  '::endgroup::',
  '::debug::',
  '::add-mask::',
  '##[add-mask]',
  'shell: ',
  'Requested labels:',
  'Job defined at:',
  'Waiting for a runner',
  'Current runner version',
  'Runner name:',
  'Runner group name:',
  'Machine name:',
  'Post job cleanup',
  'Cleaning up orphan processes',
  'Complete job name:',
  'Download action repository',
  'Getting action download info',
  'Prepare workflow directory',
  'Prepare all required actions',
  'Secret source:',
  'GITHUB_TOKEN Permissions',
  'Syncing repository:',
  'Getting Git version info',
  'Temporarily overriding HOME',
  'Adding repository directory',
  'Deleting the contents of',
  'Initializing the repository',
  'Disabling automatic garbage collection',
  'Setting up auth',
  'Fetching the repository',
  'Determining the checkout info',
  'Checking out the ref',
  'remote: ',
  'Receiving objects:',
  'Resolving deltas:',
  'From https://',
  '* [new ref]',
  '[command]/usr/bin/git',
  'Attempting to download',
  'Acquiring ',
  'Environment details',
  'npm warn',
  'npm WARN',
  'npm notice',
  'npm ERR!',
  'npm error',
  'added ',
  'up to date, audited',
  'found 0 vulnerabilities',
  'Found in cache @',
  'Run echo',
];

const NOISE_BY_FIRST = new Map<string, string[]>();
for (const p of NOISE_PREFIXES) {
  const list = NOISE_BY_FIRST.get(p[0]) ?? [];
  list.push(p);
  NOISE_BY_FIRST.set(p[0], list);
}

/** Runner and tooling chatter that never explains a failure. */
export function isNoise(line: string): boolean {
  const c = line.charCodeAt(0);
  const t = c === 32 || c === 9 ? line.trimStart() : line;
  if (t === '') return true;
  const candidates = NOISE_BY_FIRST.get(t[0]);
  if (candidates === undefined && t.charCodeAt(0) !== 35 /* # */) return false;
  if (candidates) for (const p of candidates) if (t.startsWith(p)) return true;
  if (t.startsWith('##[error]Process completed with exit code')) return true;
  if (t.startsWith('##[error]The operation was canceled')) return true;
  if (t.startsWith('##[warning]')) return true;
  return false;
}

// ------------------------------------------------------------------ workspace paths

/** Removes the runner workspace prefix: `/home/runner/work/r/r/src/a.js` -> `src/a.js`. */
export function stripWorkspace(text: string, repoName?: string): string {
  if (!text.includes('/work/') && !text.includes('/__w/') && !text.includes(':\\a\\')) return text;
  let out = text;
  for (const root of ['/home/runner/work/', '/Users/runner/work/', 'D:\\a\\', 'C:\\a\\', '/__w/']) {
    let at = out.indexOf(root);
    let guard = 0;
    while (at >= 0 && guard++ < 50) {
      const sep = root.includes('\\') ? '\\' : '/';
      const first = out.indexOf(sep, at + root.length);
      const second = first >= 0 ? out.indexOf(sep, first + 1) : -1;
      if (second < 0) break;
      const a = out.slice(at + root.length, first);
      const b = out.slice(first + 1, second);
      if (a !== b && !(repoName && b === repoName)) {
        at = out.indexOf(root, at + root.length);
        continue;
      }
      // `file:///home/runner/work/r/r/x.js` -> `x.js`
      const from = out.endsWith('file://', at) ? at - 7 : at;
      out = out.slice(0, from) + out.slice(second + 1);
      at = from;
      at = out.indexOf(root, at);
    }
  }
  return out;
}

// ------------------------------------------------------------------ recognisers

/** Removes a trailing duration: `name (12 ms)`, `name [1.2s]`, `name 3ms`, `name (0.00s)`. */
export function stripDuration(name: string): string {
  return name.replace(/\s*[([]?\d+(?:\.\d+)?\s?(?:ms|s|sec)[)\]]?\s*$/, '').trim();
}

function capName(name: string): string {
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
  if (t.startsWith('panic: ') || t.startsWith('Traceback ') || t.startsWith('thread \'') || t.startsWith('AssertionError') || t.startsWith('assert ')) {
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
  if (path.includes('node_modules') || path.includes('site-packages') || path.includes('/hostedtoolcache/') || path.includes('/.cargo/') || path.includes('/go/pkg/mod/')) return false;
  if (path.startsWith('/') || /^[A-Za-z]:\\/.test(path)) return false;
  const rel = path.replace(/^\.\//, '');
  return isRepoFile ? isRepoFile(rel) : true;
}

// ------------------------------------------------------------------ the pass

interface Block {
  /** 0: failing test, 1: compiler error, 2: other error. */
  priority: number;
  start: number;
  lines: string[];
  key: string;
}

export function extractFailure(log: string, opts: ExtractOptions = {}): LogExtract {
  // Room is kept for the closing notes ("… and N more").
  const budget = Math.max(200, Math.floor(opts.budgetTokens ?? DEFAULT_BUDGET_TOKENS)) * CHARS_PER_TOKEN - NOTES_ROOM;
  const tests = new Set<string>();
  const files = new Set<string>();
  const errors = new Set<string>();
  const frames = new Set<string>();
  const blocks: Block[] = [];
  const blockKeys = new Set<string>();
  const ring: string[] = [];
  let current: Block | null = null;
  let after = 0;
  let lines = 0;
  let noise = 0;
  let mocha: string[] | null = null;
  let lastAdded = 0;
  let lastFailFile = '';
  /** tape: the `# test name` heading the next assertions belong to. */
  let tapHeading = '';
  /** Monorepo packages: the one whose npm banner was seen last, those that failed, those a step's command filtered on. */
  let banner = '';
  const packages = new Set<string>();
  const filtered = new Set<string>();
  /** Failing-test names read from TAP `not ok` points (the TAP parser has the last word on them). */
  const tapPoints = new Set<string>();
  /** Index in `cleaned` of the last line recognised as a failing test. */
  let lastTestLine = -1;
  /** Every cleaned line (framing removed), for the test parsers. */
  const cleaned: string[] = [];

  /** What a line is (a failing test, a file, an error, a frame...), with the names that run over several lines: mocha's `1) suite` + `   test:`, jest's suite that failed to run, tape's `# name` heading. */
  function recognise(t: string, line: string, first: number): LineKind {
    let kind: LineKind = classify(t);
    // Multi-line names: mocha's `1) suite` + `   test:`; jest's `● Test suite failed to run` after `FAIL file`.
    if (kind.kind === 'plain') {
      if (mocha && t.endsWith(':') && !t.includes(': ')) {
        kind = { kind: 'test', name: [...mocha, t.slice(0, -1)].join(' > ') };
        mocha = null;
      } else if (mocha && mocha.length < 4 && !t.includes(': ') && t.length < 200) {
        mocha.push(t);
      } else {
        mocha = null;
        const m = /^\d+\) (.+)$/.exec(t);
        if (m && t.length < 240) mocha = [m[1]];
        else if (t.startsWith('● Test suite failed to run') && lastFailFile) kind = { kind: 'test', name: `${lastFailFile} > Test suite failed to run` };
      }
    } else {
      mocha = null;
    }
    if (kind.kind === 'file') lastFailFile = kind.name;
    // tape: `# name` heads the assertions of test `name`; a failing assertion names its message, not the test
    if (first !== 32 && first !== 9 && t.startsWith('# ') && !t.startsWith('# Subtest:') && !TAP_SUMMARY.test(t)) tapHeading = t.slice(2).trim();
    else if (kind.kind === 'test' && tapHeading && t === line && t.startsWith('not ok ')) kind = { kind: 'test', name: tapHeading };
    return kind;
  }

  /** Records what the line names (a test, a file, an error, a repository frame); whether it anchors an excerpt (0 test, 1 compiler error, 2 other error) and the text the excerpt shows of it (null: left out). */
  function record(kind: LineKind, t: string, line: string): { anchor: number | null; shown: string | null } {
    let anchor: number | null = null;
    let shown: string | null = line;
    switch (kind.kind) {
      case 'test':
        if (kind.name) tests.add(capName(kind.name));
        if (banner) packages.add(banner);
        if (kind.name && t.startsWith('not ok ')) tapPoints.add(capName(kind.name));
        lastTestLine = cleaned.length - 1;
        anchor = 0;
        break;
      case 'file':
        files.add(kind.name);
        break;
      case 'compile':
        if (errors.size < MAX_ERRORS) errors.add(kind.text.slice(0, 400));
        anchor = 1;
        break;
      case 'error':
        if (errors.size < MAX_ERRORS) errors.add(kind.text.slice(0, 400));
        anchor = 2;
        break;
      case 'frame':
        if (isRepoPath(kind.path, opts.isRepoFile)) {
          if (frames.size < MAX_FRAMES) frames.add(kind.text.replace(/^at /, '').slice(0, 300));
        } else {
          shown = null; // dependency and runtime frames are left out of the excerpts
        }
        break;
      default:
        // Passing tests explain nothing about a failure: left out of the excerpts.
        if (isPassingLine(t)) shown = null;
        break;
    }
    return { anchor, shown };
  }

  /** The excerpts: a block opens at an anchor with the lines before it, takes the lines after it, and never spans a long stretch of left-out lines. */
  function excerpt(kind: LineKind, t: string, anchor: number | null, shown: string | null): void {
    // An excerpt never spans a long stretch of left-out lines (it would mislabel where things are).
    if (current && lines - lastAdded > GAP) current = null;
    if (anchor !== null) {
      after = AFTER;
      if (current && current.lines.length < MAX_BLOCK_LINES) {
        current.priority = Math.min(current.priority, anchor);
      } else {
        current = null;
        // Each failing test is its own block; repeated errors (other numbers, other ids) are one.
        const key = kind.kind === 'test' ? `test:${kind.name}` : anchorKey(t);
        if (blocks.length < MAX_BLOCKS && !blockKeys.has(key)) {
          blockKeys.add(key);
          current = { priority: anchor, start: lines, lines: [...ring], key };
          lastAdded = lines;
          blocks.push(current);
        }
        ring.length = 0;
      }
    }
    if (shown === null) return;
    if (current && (anchor !== null || after > 0)) {
      if (current.lines.length < MAX_BLOCK_LINES) current.lines.push(shown);
      lastAdded = lines;
      if (anchor === null) after--;
      ring.length = 0;
      return;
    }
    current = null;
    ring.push(shown);
    if (ring.length > BEFORE) ring.shift();
  }

  const text = log.charCodeAt(0) === 0xfeff ? log.slice(1) : log;
  let pos = 0;
  const n = text.length;
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    // Cut very long lines before anything else looks at them.
    const raw = end - pos > MAX_LINE + 40 ? text.slice(pos, pos + MAX_LINE + 40) : text.slice(pos, end);
    pos = end + 1;
    lines++;
    const line0 = cleanLine(raw);
    if (line0.startsWith('##[group]Run ') || line0.startsWith('> ') || line0.startsWith('npm error workspace ')) {
      const b = /^> (\S+)@\S* [\w:.-]+\s*$/.exec(line0);
      if (b) banner = b[1];
      const w = /^npm error workspace (\S+)@\S*\s*$/.exec(line0);
      if (w) packages.add(w[1]);
      if (line0.startsWith('##[group]Run ')) for (const p of filteredPackages(line0.slice(13))) filtered.add(p);
    }
    const failedPackage = failedPackageOf(line0);
    if (failedPackage) packages.add(failedPackage);
    const framed = /^(?:##\[(?:error|warning|notice)\]|::(?:error|warning|notice)[^:]*::)/.exec(line0);
    const forParser = stripWorkspace(framed ? line0.slice(framed[0].length) : line0, opts.repoName);
    if (framed || (!line0.startsWith('##[') && !line0.startsWith('::') && !line0.startsWith('[command]'))) cleaned.push(forParser);
    if (isNoise(line0)) {
      noise++;
      continue;
    }
    const stripped = stripWorkspace(line0, opts.repoName);
    const last = stripped.charCodeAt(stripped.length - 1);
    const line = last === 32 || last === 9 ? stripped.trimEnd() : stripped;
    const first = line.charCodeAt(0);
    const t = first === 32 || first === 9 ? line.trimStart() : line;
    const kind = recognise(t, line, first);
    const { anchor, shown } = record(kind, t, line);
    excerpt(kind, t, anchor, shown);
  }

  const failures = parsedFailures(cleaned, lastTestLine);
  // In order of first appearance; a name the parsers also found is shown in their form (the
  // tape test rather than its assertion, the full path); then what only the parsers found.
  const failingTests: string[] = [];
  const used = new Set<number>();
  const ids = failures.map((f) => f.identity);
  for (const name of tests) {
    const id = identityOf(name);
    const m = failures.length ? matchIdentity(id, ids) : null;
    // A TAP point the parsers did not take for a failing test is a node-tap assertion inside a
    // failing subtest (`not ok 1 - should be equal`) or the parent of one (`not ok 5 - nested`).
    if (!m && failures.length && tapPoints.has(name)) continue;
    const shown = m ? m.index.map((i) => failures[i].name) : [name];
    if (m) for (const i of m.index) used.add(i);
    for (const s of shown) if (!failingTests.includes(s)) failingTests.push(s);
  }
  failures.forEach((f, i) => {
    if (!used.has(i) && !failingTests.includes(f.name)) failingTests.push(f.name);
  });
  // a job that ran one package's tests: its failures are that package's
  const failingPackages = packages.size ? [...packages] : (failingTests.length || errors.size) && filtered.size === 1 ? [...filtered] : [];
  const result = render(
    { failingTests, failingFiles: [...files], failingPackages, errors: [...errors], frames: [...frames], blocks },
    budget,
  );
  return {
    failingTests,
    failures,
    failingFiles: [...files],
    failingPackages,
    errors: [...errors],
    frames: [...frames],
    text: result.text,
    tokens: estimateTokens(result.text),
    stats: { lines, chars: n, noiseLines: noise, blocks: blocks.length, blocksShown: result.blocksShown, testsShown: result.testsShown },
  };
}

/**
 * The package a workspace tool names as failed: turbo `Failed:    @scope/a#test`, `ERROR  @scope/a#test:
 * command … exited (1)`, pnpm `ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @scope/a@1.0.0 test: …` or its
 * recursive summary `ERROR  @scope/a@1.0.0 test: \`vitest run\``.
 */
function failedPackageOf(line: string): string | null {
  if (!line.includes('#') && !line.includes('ERR_PNPM_') && !line.includes('ERROR')) return null;
  const failed =
    /^\s*(?:Failed:|ERROR)\s+(\S+?)#[\w:.-]*[A-Za-z][\w:.-]*(?::\s+command\b|\s*$)/.exec(line) ??
    /(?:ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL|^\s*ERROR)\s+(\S+?)@[^\s@]*\s+test[\w:.-]*: `/.exec(line);
  return failed?.[1] ?? null;
}

/** The failing tests the local-run parsers (verify/runners/) find in the cleaned log. */
function parsedFailures(lines: string[], lastTest: number): LogFailure[] {
  // A window of the log, not all of it (the parsers are not built for 20 MB): ending a little
  // after the last line the recogniser took for a failing test (the runner's summary follows it),
  // or at the end; reaching back at most MAX_PARSED_CHARS.
  const to = lastTest >= 0 ? Math.min(lines.length, lastTest + PARSE_AFTER_LAST_TEST) : lines.length;
  let from = to;
  for (let chars = 0; from > 0 && chars + lines[from - 1].length < MAX_PARSED_CHARS; from--) chars += lines[from - 1].length + 1;
  const parsed = parseTestOutput(lines.slice(from, to).join('\n'));
  const out: LogFailure[] = [];
  for (const t of parsed.tests) {
    if (t.status !== 'failed') continue;
    const f: LogFailure = { name: capName(t.id), identity: identityOf(t.id, t.file) };
    if (t.message) f.message = t.message;
    out.push(f);
  }
  return out;
}

/** The packages a workspace tool's filtered test command names (`npm test -w packages/a`, `pnpm --filter a test`, …). */
export function filteredPackages(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/(?:^|\s)(?:-w|--workspace)(?:=|\s+)(\S+)/g)) out.push(m[1]);
  for (const m of command.matchAll(/(?:^|\s)(?:--filter|-F)(?:=|\s+)(\S+)/g)) out.push(m[1].replace(/^['"]|['"]$/g, ''));
  const yarn = /(?:^|\s)yarn\s+workspace\s+(\S+)\s/.exec(command);
  if (yarn) out.push(yarn[1]);
  const nx = /(?:^|\s)nx\s+(?:run\s+(\S+?):test|test\s+(\S+))/.exec(command);
  if (nx) out.push(nx[1] ?? nx[2]);
  return [...new Set(out)];
}

/** Same error twice (other numbers, other ids) is one block. */
function anchorKey(t: string): string {
  return t.slice(0, 160).replace(/\d+/g, '#');
}

function render(
  x: { failingTests: string[]; failingFiles: string[]; failingPackages: string[]; errors: string[]; frames: string[]; blocks: Block[] },
  budget: number,
): { text: string; blocksShown: number; testsShown: number } {
  const parts: string[] = [];
  let used = 0;
  const push = (s: string): boolean => {
    if (used + s.length + 1 > budget) return false;
    parts.push(s);
    used += s.length + 1;
    return true;
  };
  let testsShown = 0;
  if (x.failingTests.length) {
    push(`Failing tests (${x.failingTests.length}):`);
    for (const name of x.failingTests) {
      if (!push(`- ${name}`)) break;
      testsShown++;
    }
    if (testsShown < x.failingTests.length) {
      parts.push(`- … and ${x.failingTests.length - testsShown} more (over the size budget)`);
    }
  }
  if (x.failingFiles.length) push(`Failing files or packages: ${x.failingFiles.slice(0, 30).join(', ')}`);
  if (x.failingPackages.length) push(`Failing workspace package(s) (test files above are relative to the package): ${x.failingPackages.slice(0, 10).join(', ')}`);
  // Errors and frames get at most half of what is left; the excerpts the rest.
  const share = used + Math.floor((budget - used) / 2);
  if (x.errors.length) {
    push('Errors:');
    for (const e of x.errors) if (used + e.length + 3 > share || !push(`- ${e}`)) break;
  }
  if (x.frames.length) {
    push('Stack frames in repository files:');
    for (const f of x.frames) if (used + f.length + 3 > share || !push(`- ${f}`)) break;
  }
  const order = x.blocks.map((b, i) => ({ b, i })).sort((p, q) => p.b.priority - q.b.priority || p.i - q.i);
  const chosen: { b: Block; i: number; text: string }[] = [];
  const header = 'Log excerpts (line numbers are those of the job log):';
  let room = budget - used - header.length - 1;
  for (const { b, i } of order) {
    const body = `[near line ${b.start}]\n${b.lines.join('\n')}`;
    if (body.length + 1 <= room) {
      chosen.push({ b, i, text: body });
      room -= body.length + 1;
    } else if (room > 300) {
      const cut = body.slice(0, room - 20);
      chosen.push({ b, i, text: `${cut.slice(0, cut.lastIndexOf('\n') > 0 ? cut.lastIndexOf('\n') : cut.length)}\n[…]` });
      room = 0;
    }
  }
  if (chosen.length) {
    parts.push(header);
    chosen.sort((p, q) => p.i - q.i);
    for (const c of chosen) parts.push(c.text);
  }
  const omitted = x.blocks.length - chosen.length;
  if (omitted > 0) parts.push(`(${omitted} more excerpt(s) left out to stay within the size budget)`);
  return { text: parts.join('\n'), blocksShown: chosen.length, testsShown };
}
