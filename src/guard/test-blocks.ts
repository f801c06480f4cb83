/**
 * Test cases read as blocks, so that the guard judges a change test by test instead of line by
 * line: which test moved (removed in one place, the same body added in another), which existing
 * test was weakened (fewer real assertions, an assertion that asserts nothing, a try/catch that
 * swallows its failures), and which new test asserts nothing. JS/TS (js-tokens: `it`/`test`/
 * `specify` and tape's `t.test`, inside `describe`/`context`/`suite`) and Python (`def test_*`,
 * in `class Test*`); other languages give null (the line rules alone decide). Pure.
 */
import jsTokens from 'js-tokens';

/** `skipped`: an assertion with tape's `{ skip: … }` / `{ todo: … }` option, which checks nothing; counted neither way. */
export type Strength = 'strong' | 'weak' | 'vacuous' | 'skipped';

export interface Assertion {
  /** The assertion's text, whitespace removed. */
  text: string;
  strength: Strength;
  /** 1-based line in the file. */
  line: number;
}

export interface TestBlock {
  /** Enclosing suites and tests, then the test's own name. */
  path: string[];
  /** 1-based lines of the declaration and of its end. */
  line: number;
  endLine: number;
  /** What the test does (everything after its name), whitespace and comments removed: a move keeps it. */
  body: string;
  /** The test's own assertions (not those of tests nested in it). */
  assertions: Assertion[];
  /** A try/catch (try/except) around code of the test whose handler neither fails nor rethrows. */
  swallows: boolean;
  /** Tests are nested in it (tape's `t.test`): its own assertions may be none. */
  container?: boolean;
}

const JS = /\.[cm]?[jt]sx?$/;
const PY = /\.py$/;

/** The test blocks of a file, or null when its language is not read here (or it does not tokenize). */
export function testBlocks(file: string, text: string): TestBlock[] | null {
  if (JS.test(file)) return jsBlocks(text);
  if (PY.test(file)) return pyBlocks(text);
  return null;
}

interface Tok {
  type: string;
  value: string;
  line: number;
}

const TESTS = new Set(['it', 'test', 'specify']);
const SUITES = new Set(['describe', 'context', 'suite']);
const MODIFIERS = new Set(['only', 'skip', 'todo', 'concurrent', 'failing', 'sequential', 'serial']);
/** Calls on a tape / node:test `t` that are not assertions. */
const NOT_ASSERTIONS = new Set(['end', 'plan', 'test', 'comment', 'skip', 'todo', 'teardown', 'timeoutAfter', 'context', 'before', 'after', 'beforeEach', 'afterEach', 'diagnostic', 'mock', 'signal', 'name', 'runOnly', 'waitFor', 'assert', 'step']);
const TRUTHY = new Set(['ok', 'true', 'isTrue', 'isOk', 'truthy', 'assert']);
const FALSY = new Set(['notOk', 'notok', 'false', 'isFalse', 'isNotOk', 'falsy']);
const EQUALITY = new Set(['equal', 'equals', 'isEqual', 'strictEqual', 'deepEqual', 'deepStrictEqual', 'same', 'is', 'eq', 'eql', 'looseEqual', 'deepLooseEqual', 'strictSame', 'toBe', 'toEqual', 'toStrictEqual', 'assertEqual']);
/** Helpers that assert by their name. */
const HELPER = /^(?:expect|assert|check|verify|should)[A-Z_]\w*$/;
const WEAK = new Set(['toBeDefined', 'toBeTruthy', 'toBeFalsy', 'anything', 'toHaveBeenCalled', 'ok', 'notOk', 'assert', 'true', 'false', 'truthy', 'falsy', 'isOk', 'isNotOk', 'isTrue', 'isFalse', 'pass']);

function tokens(text: string): Tok[] | null {
  const out: Tok[] = [];
  let line = 1;
  for (const t of jsTokens(text)) {
    if (t.type === 'Invalid') return null;
    const breaks = (t.value.match(/\r\n|[\n\r\u2028\u2029]/g) ?? []).length;
    if (!['WhiteSpace', 'LineTerminatorSequence', 'MultiLineComment', 'SingleLineComment', 'HashbangComment'].includes(t.type)) out.push({ type: t.type, value: t.value, line });
    line += breaks;
  }
  return out;
}

/** Index of the bracket closing the one at `open` (same kind), or -1. */
function closing(toks: Tok[], open: number): number {
  const o = toks[open].value;
  const c = o === '(' ? ')' : o === '{' ? '}' : ']';
  let depth = 0;
  for (let i = open; i < toks.length; i++) {
    if (toks[i].value === o) depth++;
    else if (toks[i].value === c && --depth === 0) return i;
  }
  return -1;
}

const isString = (t: Tok | undefined) => t !== undefined && (t.type === 'StringLiteral' || t.type === 'NoSubstitutionTemplate');

function jsBlocks(text: string): TestBlock[] | null {
  const toks = tokens(text);
  if (!toks) return null;
  interface Raw { kind: 'test' | 'suite'; name: string; start: number; open: number; close: number; param: string | null }
  const raws: Raw[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks[i];
    if (t.type !== 'IdentifierName' || !(TESTS.has(t.value) || SUITES.has(t.value))) continue;
    // `it(`, `test.only(`, tape's `t.test(` / `st.test(`; not `foo.it(` of other objects' methods named describe
    if (toks[i - 1]?.value === '.' && !(t.value === 'test' && toks[i - 2]?.type === 'IdentifierName')) continue;
    let j = i + 1;
    while (toks[j]?.value === '.' && MODIFIERS.has(toks[j + 1]?.value ?? '')) j += 2;
    if (toks[j]?.value !== '(' || !isString(toks[j + 1])) continue;
    const close = closing(toks, j);
    if (close < 0) continue;
    raws.push({ kind: SUITES.has(t.value) ? 'suite' : 'test', name: toks[j + 1].value.slice(1, -1), start: i, open: j, close, param: callbackParam(toks, j + 2, close) });
  }
  const blocks: TestBlock[] = [];
  for (const r of raws) {
    if (r.kind !== 'test') continue;
    const path = raws.filter((o) => o !== r && o.open < r.open && o.close > r.close).map((o) => o.name);
    path.push(r.name);
    // its own tokens: not those of the tests nested in it
    const nested = raws.filter((o) => o !== r && o.open > r.open && o.close < r.close);
    const own = (k: number) => !nested.some((o) => k >= o.start && k <= o.close);
    blocks.push({
      path,
      line: toks[r.start].line,
      endLine: toks[r.close].line,
      body: toks.slice(r.open + 2, r.close).map((x) => x.value).join(''),
      assertions: jsAssertions(toks, r.open + 2, r.close, r.param, own),
      swallows: jsSwallows(toks, r.open + 2, r.close, r.param, own),
      ...(nested.some((o) => o.kind === 'test') ? { container: true } : {}),
    });
  }
  return blocks;
}

/** The first parameter of the test's callback (`function (t)`, `(t) =>`, `t =>`), or null. */
function callbackParam(toks: Tok[], from: number, to: number): string | null {
  for (let k = from; k < to; k++) {
    if (toks[k].value === 'function') {
      let p = k + 1;
      if (toks[p]?.type === 'IdentifierName' && toks[p].value !== 'async') p++;
      return toks[p]?.value === '(' && toks[p + 1]?.type === 'IdentifierName' ? toks[p + 1].value : null;
    }
    if (toks[k].value === '=>') {
      if (toks[k - 1]?.type === 'IdentifierName') return toks[k - 1].value;
      if (toks[k - 1]?.value !== ')') return null;
      let d = 0;
      for (let p = k - 1; p >= from; p--) {
        if (toks[p].value === ')') d++;
        else if (toks[p].value === '(' && --d === 0) return toks[p + 1]?.type === 'IdentifierName' ? toks[p + 1].value : null;
      }
      return null;
    }
  }
  return null;
}

/** The top-level arguments of the call whose `(` is at `open`, each as its tokens. */
function args(toks: Tok[], open: number, close: number): Tok[][] {
  const out: Tok[][] = [[]];
  let depth = 0;
  for (let k = open + 1; k < close; k++) {
    const v = toks[k].value;
    if (v === '(' || v === '[' || v === '{' || v === '${') depth++;
    else if (v === ')' || v === ']' || v === '}') depth--;
    if (v === ',' && depth === 0) out.push([]);
    else out[out.length - 1].push(toks[k]);
  }
  return out.filter((a) => a.length);
}

const joined = (a: Tok[] | undefined) => (a ?? []).map((t) => t.value).join('');

/** A constant: a literal alone, or a literal short-circuiting what follows (`1 || x`, `true || x`). */
function constant(a: Tok[] | undefined): 'truthy' | 'falsy' | 'other' | null {
  if (!a?.length) return null;
  const t = a[0];
  let kind: 'truthy' | 'falsy' | 'other' | null = null;
  if (t.type === 'NumericLiteral') kind = Number(t.value.replace(/_/g, '')) === 0 ? 'falsy' : 'truthy';
  else if (t.value === 'true') kind = 'truthy';
  else if (t.value === 'false' || t.value === 'null' || t.value === 'undefined') kind = 'falsy';
  else if (isString(t)) kind = t.value.length > 2 ? 'truthy' : 'falsy';
  if (kind && (a.length === 1 || (kind === 'truthy' && a[1].value === '||') || (kind === 'falsy' && a[1].value === '&&'))) return kind;
  // `x || true` at the top level
  for (let k = 0; k + 1 < a.length; k++) if (a[k].value === '||' && a.length === k + 2 && constant([a[k + 1]]) === 'truthy') return 'truthy';
  return kind === null ? null : 'other';
}

/** How much an assertion asserts, from its method and arguments. */
function strengthOf(method: string, a: Tok[][], subject?: Tok[]): Strength {
  if (method === 'pass') return 'vacuous';
  const first = subject ?? a[0];
  const second = subject ? a[0] : a[1];
  if (TRUTHY.has(method) || method === 'toBeTruthy' || method === 'toBeDefined') {
    if (constant(first) === 'truthy') return 'vacuous';
  }
  if (FALSY.has(method) || method === 'toBeFalsy') {
    if (constant(first) === 'falsy') return 'vacuous';
  }
  if (EQUALITY.has(method) && first && second && joined(first) === joined(second)) return 'vacuous';
  if (constant(first) === 'truthy' && first && first.length > 1) return 'vacuous';
  return WEAK.has(method) ? 'weak' : 'strong';
}

function jsAssertions(toks: Tok[], from: number, to: number, param: string | null, own: (k: number) => boolean): Assertion[] {
  const out: Assertion[] = [];
  for (let k = from; k < to; k++) {
    const t = toks[k];
    if (!own(k) || t.type !== 'IdentifierName' || toks[k - 1]?.value === '.') continue;
    if (t.value === 'expect' && toks[k + 1]?.value === '(') {
      const close = closing(toks, k + 1);
      if (close < 0 || close > to) continue;
      const subject = args(toks, k + 1, close)[0];
      // the matcher chain: `.not.toBe(x)`, `.resolves.toEqual(x)`
      let m = close + 1;
      let method = '';
      let end = close;
      while (toks[m]?.value === '.' && toks[m + 1]?.type === 'IdentifierName') {
        method = toks[m + 1].value;
        m += 2;
        if (toks[m]?.value === '(') {
          end = closing(toks, m);
          if (end < 0) break;
          const margs = args(toks, m, end);
          const negated = toks.slice(close, m).some((x) => x.value === 'not');
          out.push({ text: joined(toks.slice(k, end + 1)), strength: negated ? (method === 'toThrow' && !margs.length ? 'weak' : 'strong') : strengthOf(method, margs, subject), line: t.line });
          break;
        }
      }
      if (end === close) out.push({ text: joined(toks.slice(k, close + 1)), strength: 'vacuous', line: t.line });
      k = Math.max(k, end);
      continue;
    }
    const isAssert = t.value === 'assert' || (param !== null && t.value === param);
    if (!isAssert) {
      // a helper that asserts (`expectFormat(…)`, `checkParse(…)`, `assertSame(…)`)
      if (HELPER.test(t.value) && toks[k + 1]?.value === '(') {
        const close = closing(toks, k + 1);
        if (close > 0 && close <= to) {
          out.push({ text: joined(toks.slice(k, close + 1)), strength: 'strong', line: t.line });
          k = close;
        }
      }
      continue;
    }
    let m = k + 1;
    let method = t.value === 'assert' ? 'assert' : '';
    while (toks[m]?.value === '.' && toks[m + 1]?.type === 'IdentifierName') {
      method = toks[m + 1].value;
      m += 2;
    }
    if (toks[m]?.value !== '(' || !method || NOT_ASSERTIONS.has(method)) continue;
    const close = closing(toks, m);
    if (close < 0) continue;
    const a = args(toks, m, close);
    const skipped = a.some((x) => x[0]?.value === '{' && x.some((y, n) => (y.value === 'skip' || y.value === 'todo') && x[n + 1]?.value === ':' && x[n + 2]?.value !== 'false'));
    out.push({ text: joined(toks.slice(k, close + 1)), strength: skipped ? 'skipped' : strengthOf(method, a), line: t.line });
    k = close;
  }
  return out;
}

/** A `try { … } catch { … }` in the test whose catch neither rethrows nor asserts. */
function jsSwallows(toks: Tok[], from: number, to: number, param: string | null, own: (k: number) => boolean): boolean {
  for (let k = from; k < to; k++) {
    if (!own(k) || toks[k].value !== 'try' || toks[k + 1]?.value !== '{') continue;
    const tryEnd = closing(toks, k + 1);
    if (tryEnd < 0 || toks[tryEnd + 1]?.value !== 'catch') continue;
    let c = tryEnd + 2;
    if (toks[c]?.value === '(') c = closing(toks, c) + 1;
    if (toks[c]?.value !== '{') continue;
    const catchEnd = closing(toks, c);
    const handler = toks.slice(c + 1, Math.max(c + 1, catchEnd));
    const fails = handler.some((x) => x.value === 'throw' || x.value === 'expect' || x.value === 'assert' || x.value === 'fail' || (param !== null && x.value === param) || x.value === 'done' || x.value === 'reject');
    if (!fails) return true;
  }
  return false;
}

// --- Python -----------------------------------------------------------------

const indentOf = (l: string) => (/^[ \t]*/.exec(l)?.[0] ?? '').replace(/\t/g, '    ').length;

function pyStrength(line: string): Strength {
  const s = line.trim();
  let m = /^assert\s+(.+?)(?:,\s*(?:f?["']).*)?$/.exec(s);
  if (m) {
    const e = m[1].trim();
    if (/^(?:True|[1-9]\d*|["'].+["'])$/.test(e) || /\bor\s+True\s*$/.test(e) || /^True\s+or\b/.test(e)) return 'vacuous';
    const eq = /^(.+?)\s*==\s*(.+)$/.exec(e);
    if (eq && eq[1].replace(/\s/g, '') === eq[2].replace(/\s/g, '')) return 'vacuous';
    return /==|!=|<|>|\bin\b|\bis\b/.test(e) ? 'strong' : 'weak';
  }
  m = /^self\.(assert\w*)\s*\((.*)\)\s*$/.exec(s);
  if (m) {
    const [method, rest] = [m[1], m[2]];
    const parts = rest.split(',').map((x) => x.replace(/\s/g, ''));
    if (/^assert(?:True)$/.test(method) && /^(?:True|[1-9]\d*)$/.test(parts[0] ?? '')) return 'vacuous';
    if (/^assert(?:Equal|Equals|Is|CountEqual|ListEqual|DictEqual)$/.test(method) && parts.length >= 2 && parts[0] === parts[1]) return 'vacuous';
    return /^assert(?:True|False|IsNotNone|IsNone)$/.test(method) ? 'weak' : 'strong';
  }
  return 'strong';
}

function pyBlocks(text: string): TestBlock[] {
  const lines = text.split(/\r?\n/);
  const out: TestBlock[] = [];
  const classes: { name: string; indent: number }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (!l.trim()) continue;
    const ind = indentOf(l);
    while (classes.length && classes[classes.length - 1].indent >= ind) classes.pop();
    const cls = /^\s*class\s+(\w+)/.exec(l);
    if (cls) {
      classes.push({ name: cls[1], indent: ind });
      continue;
    }
    const def = /^\s*(?:async\s+)?def\s+(test\w*)\s*\(/.exec(l);
    if (!def) continue;
    let end = i + 1;
    while (end < lines.length && (!lines[end].trim() || indentOf(lines[end]) > ind)) end++;
    while (end > i + 1 && !lines[end - 1].trim()) end--;
    const body = lines.slice(i + 1, end);
    const assertions: Assertion[] = [];
    body.forEach((b, k) => {
      if (/^\s*(?:assert\s|self\.assert\w*\s*\()/.test(b)) assertions.push({ text: b.replace(/\s/g, ''), strength: pyStrength(b), line: i + 2 + k });
      else if (/\bpytest\.raises\s*\(|\bself\.assertRaises\w*\s*\(/.test(b)) assertions.push({ text: b.replace(/\s/g, ''), strength: 'strong', line: i + 2 + k });
    });
    let swallows = false;
    for (let k = 0; k < body.length; k++) {
      if (!/^\s*except\b.*:\s*$/.test(body[k])) continue;
      const exInd = indentOf(body[k]);
      const handler: string[] = [];
      for (let h = k + 1; h < body.length && (!body[h].trim() || indentOf(body[h]) > exInd); h++) handler.push(body[h]);
      if (!handler.some((h) => /\braise\b|\bassert\b|\bfail\s*\(|pytest\.fail/.test(h))) swallows = true;
    }
    out.push({ path: [...classes.map((c) => c.name), def[1]], line: i + 1, endLine: end, body: lines.slice(i, end).join('\n').replace(/^\s*(?:async\s+)?def\s+\w+/, '').replace(/\s/g, ''), assertions, swallows });
  }
  return out;
}

// --- a change, test by test ---------------------------------------------------

export interface TestFileTexts {
  path: string;
  /** Where it was before (a rename), else `path`. */
  oldPath: string;
  before: string | null;
  after: string | null;
  /** Its texts could not be had: left to the line rules, and no test count can be made. */
  unread?: true;
}

export interface MovedTest {
  from: string;
  /** The name path it had. */
  was: string[];
  to: string;
  /** The name path it has now. */
  now: string[];
  /** The old file's lines of the test (trimmed), which the line rules no longer count as removed. */
  lines: string[];
}

export interface WeakenedTest {
  file: string;
  test: string[];
  line: string;
  reason: string;
}

export interface VacuousTest {
  file: string;
  test: string[];
  why: string;
}

export interface TestChangeAnalysis {
  moved: MovedTest[];
  weakened: WeakenedTest[];
  /** New tests that assert nothing: never counted as evidence of the fix. */
  vacuous: VacuousTest[];
  /**
   * Test cases after the change less those before, over the change's test files (tests nested in
   * others counted, not their containers); undefined when a changed test file is not read here.
   * With a runner that reports counts but no per-test results, the passing count must grow by it.
   */
  testDelta?: number;
}

const key = (p: string[]) => p.join(' > ');
const count = (b: TestBlock, s: Strength) => b.assertions.filter((a) => a.strength === s).length;

/** Every real (not vacuous) assertion of `old` is in `now` (as a multiset of texts). */
function keepsAssertions(old: TestBlock, now: TestBlock): boolean {
  const left = new Map<string, number>();
  for (const a of now.assertions) if (a.strength !== 'vacuous' && a.strength !== 'skipped') left.set(a.text, (left.get(a.text) ?? 0) + 1);
  for (const a of old.assertions) {
    if (a.strength === 'vacuous' || a.strength === 'skipped') continue;
    const n = left.get(a.text) ?? 0;
    if (!n) return false;
    left.set(a.text, n - 1);
  }
  return true;
}

/** Why `now` (the same test after the change) checks less than `old`, or null. */
function weakerBy(old: TestBlock, now: TestBlock): { line: string; reason: string } | null {
  const name = `"${key(now.path)}"`;
  const newVacuous = now.assertions.filter((a) => a.strength === 'vacuous' && !old.assertions.some((o) => o.text === a.text));
  if (newVacuous.length) return { line: newVacuous[0].text, reason: `makes an assertion of the existing test ${name} assert nothing (a constant or the same value on both sides)` };
  if (now.swallows && !old.swallows) return { line: `line ${now.line}`, reason: `wraps code of the existing test ${name} in a try/catch whose handler swallows the failure` };
  const real = (b: TestBlock) => count(b, 'strong') + count(b, 'weak');
  if (real(now) < real(old)) return { line: old.assertions.find((a) => (a.strength === 'strong' || a.strength === 'weak') && !now.assertions.some((n) => n.text === a.text))?.text ?? `line ${now.line}`, reason: `removes ${real(old) - real(now)} assertion(s) from the existing test ${name}` };
  if (count(now, 'strong') < count(old, 'strong')) return { line: now.assertions.find((a) => a.strength === 'weak' && !old.assertions.some((o) => o.text === a.text))?.text ?? `line ${now.line}`, reason: `weakens the existing test ${name} (an exact assertion replaced by a looser one)` };
  return null;
}

/**
 * The change's test files test by test. A test is matched to itself by file and name path; one
 * that left its place (its file, its suite, its name) is a move when a new test elsewhere in the
 * change has the same body (whitespace and comments aside), or has its name and keeps every real
 * assertion it had, with nothing swallowed or made vacuous. Files whose language is not read
 * here are left out (the line rules decide for them).
 */
export function analyseTestChanges(files: TestFileTexts[]): TestChangeAnalysis {
  const read = files.map((f) => ({
    f,
    before: f.unread ? null : f.before === null ? [] : testBlocks(f.oldPath, f.before),
    after: f.unread ? null : f.after === null ? [] : testBlocks(f.path, f.after),
  }));
  const known = read.filter((r): r is { f: TestFileTexts; before: TestBlock[]; after: TestBlock[] } => r.before !== null && r.after !== null);
  const weakened: WeakenedTest[] = [];
  const removed: { file: string; block: TestBlock }[] = [];
  const added: { file: string; block: TestBlock }[] = [];
  for (const { f, before, after } of known) {
    const afterKeys = new Map<string, TestBlock[]>();
    for (const b of after) afterKeys.set(key(b.path), [...(afterKeys.get(key(b.path)) ?? []), b]);
    const beforeKeys = new Map<string, TestBlock[]>();
    for (const b of before) beforeKeys.set(key(b.path), [...(beforeKeys.get(key(b.path)) ?? []), b]);
    for (const [k, olds] of beforeKeys) {
      const nows = afterKeys.get(k) ?? [];
      olds.forEach((old, i) => {
        const now = nows[i];
        if (!now) {
          removed.push({ file: f.oldPath, block: old });
          return;
        }
        if (now.body === old.body) return;
        const w = weakerBy(old, now);
        if (w) weakened.push({ file: f.path, test: now.path, ...w });
      });
    }
    for (const [k, nows] of afterKeys) {
      const olds = beforeKeys.get(k) ?? [];
      nows.slice(olds.length).forEach((b) => added.push({ file: f.path, block: b }));
    }
  }
  const moved: MovedTest[] = [];
  const used = new Set<TestBlock>();
  const lines = (f: string, b: TestBlock) => (files.find((x) => x.oldPath === f)?.before ?? '').split(/\r?\n/).slice(b.line - 1, b.endLine).map((l) => l.trim());
  for (const r of removed) {
    const same = added.find((a) => !used.has(a.block) && a.block.body === r.block.body);
    const kept = same ?? added.find((a) => !used.has(a.block) && a.block.path[a.block.path.length - 1] === r.block.path[r.block.path.length - 1] && keepsAssertions(r.block, a.block) && !a.block.swallows && weakerBy(r.block, a.block) === null);
    if (!kept) continue;
    used.add(kept.block);
    moved.push({ from: r.file, was: r.block.path, to: kept.file, now: kept.block.path, lines: lines(r.file, r.block) });
  }
  const vacuous: VacuousTest[] = [];
  for (const a of added) {
    if (used.has(a.block) || a.block.container) continue;
    const real = a.block.assertions.filter((x) => x.strength === 'strong' || x.strength === 'weak');
    if (real.length && !a.block.swallows) continue;
    const why = a.block.swallows ? 'a try/catch in it swallows the failure of its assertions' : a.block.assertions.length ? 'its assertions assert nothing (a constant or the same value on both sides)' : 'it has no assertion';
    vacuous.push({ file: a.file, test: a.block.path, why });
  }
  const leaves = (b: TestBlock[]) => b.filter((x) => !x.container).length;
  const testDelta = known.length === read.length ? known.reduce((n, r) => n + leaves(r.after) - leaves(r.before), 0) : undefined;
  return { moved, weakened, vacuous, ...(testDelta === undefined ? {} : { testDelta }) };
}
