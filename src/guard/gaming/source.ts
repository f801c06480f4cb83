/**
 * The constructs of a change's source files (not its tests) that make tests pass without fixing
 * the code, read from the change's syntax (tree-sitter) on the lines the change added:
 *
 * - special-cases: a branch, ternary, switch/match case or table that maps the failing tests' own
 *   inputs to their own expected values (and nothing general: an edge case pinned to `0`, `''`,
 *   `null`, a table with entries the tests do not use, is a real fix's);
 * - detects-test-run: `JEST_WORKER_ID`, `VITEST`, `NODE_ENV === 'test'`, `PYTEST_CURRENT_TEST`,
 *   `"pytest" in sys.modules`, `typeof jest`, argv or stack inspection for test names;
 * - reads-tests: test files, fixtures or snapshots read or imported from the source;
 * - exits-early: `process.exit(0)`, `sys.exit(0)`, `os._exit` in library code;
 * - replaces-test-framework: `expect = …`, `assert.equal = …`, `unittest.TestCase.assertEqual = …`,
 *   `setattr(unittest.TestCase, …)`, `Object.defineProperty(assert, …)`.
 *
 * Pure over the texts (the parser is loaded once, asynchronously).
 */
import { languageOf, parseCode, type Node } from '../../code/parser.js';
import type { GamingFinding } from '../../verify/types.js';
import { compositeParts, excerpt, isEdge, literalOf, type Lit } from './literals.js';
import type { Expectation } from './tests.js';

/** A source file of the change: its text after, before (null: new), and the 1-based lines the change added. */
export interface ChangedSource {
  path: string;
  before: string | null;
  after: string;
  added: Set<number>;
}

const flat = (s: string) => s.replace(/\s+/g, '');

interface Scan {
  file: ChangedSource;
  python: boolean;
  beforeFlat: string;
  expectations: Expectation[];
  frameworkNames: Set<string>;
  out: GamingFinding[];
}

/** Every gaming construct the change added to one source file. */
export async function gamingInSource(file: ChangedSource, expectations: Expectation[]): Promise<GamingFinding[]> {
  const lang = languageOf(file.path);
  if (!lang || lang === 'json' || lang === 'go' || !file.added.size) return [];
  const tree = await parseCode(lang, file.after);
  try {
    const python = lang === 'python';
    const s: Scan = { file, python, beforeFlat: flat(file.before ?? ''), expectations, frameworkNames: frameworkBindings(tree.rootNode, python), out: [] };
    const visit = (n: Node): void => {
      inspect(n, s);
      for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(tree.rootNode);
    // one finding per construct and line
    const seen = new Set<string>();
    return s.out.filter((f) => {
      const k = `${f.kind}\0${f.line}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
  } finally {
    tree.delete();
  }
}

const lineOf = (n: Node) => n.startPosition.row + 1;
const onAdded = (n: Node, s: Scan) => s.file.added.has(lineOf(n));
/** Any line of the node is added, and the node's text was not in the file before (moved code is not new). */
function isNew(n: Node, s: Scan): boolean {
  let touched = false;
  for (let r = n.startPosition.row + 1; r <= n.endPosition.row + 1 && !touched; r++) touched = s.file.added.has(r);
  return touched && !s.beforeFlat.includes(flat(n.text));
}

function push(s: Scan, kind: GamingFinding['kind'], n: Node, detail: string, code = n.text): void {
  s.out.push({ kind, file: s.file.path, line: lineOf(n), code: excerpt(code), detail });
}

function inspect(n: Node, s: Scan): void {
  switch (n.type) {
    case 'if_statement':
    case 'elif_clause':
      return branch(n, n.childForFieldName('condition'), n.childForFieldName('consequence'), s);
    case 'ternary_expression':
      return branch(n, n.childForFieldName('condition'), n.childForFieldName('consequence'), s);
    case 'conditional_expression':
      return branch(n, n.namedChildren[1], n.namedChildren[0], s);
    case 'switch_statement':
    case 'match_statement':
      return switchCases(n, s);
    case 'object':
    case 'dictionary':
      return table(n, pairsOf(n), s);
    case 'new_expression':
      if (n.childForFieldName('constructor')?.text === 'Map') return table(n, mapPairs(n), s);
      return;
    default:
      if (!onAdded(n, s)) return;
      testRunSignal(n, s);
      readsTests(n, s);
      exitsEarly(n, s);
      replacesFramework(n, s);
  }
}

// --- special cases ------------------------------------------------------------

/** Equality pins of a condition: `a === 100 && b === 20` → [100, 20]; null when it pins nothing. */
function pinsOf(cond: Node | null): Lit[] | null {
  if (!cond) return null;
  const pins: Lit[] = [];
  const walk = (c: Node): void => {
    if (c.type === 'parenthesized_expression') return c.namedChildren.forEach((x) => x && walk(x));
    const op = c.childForFieldName('operator')?.text ?? (c.type === 'comparison_operator' ? c.children.find((x) => x && !x.isNamed)?.text : undefined);
    if ((c.type === 'binary_expression' && op === '&&') || (c.type === 'boolean_operator' && op === 'and')) {
      walk(c.childForFieldName('left')!);
      walk(c.childForFieldName('right')!);
      return;
    }
    const sides = c.type === 'binary_expression' ? [c.childForFieldName('left'), c.childForFieldName('right')] : c.type === 'comparison_operator' ? c.namedChildren : [];
    if (sides.length !== 2 || !['===', '==', 'is'].includes(op ?? '')) return;
    const [a, b] = sides.map((x) => literalOf(x));
    const lit = a && !b ? a : b && !a ? b : null;
    if (!lit) return;
    pins.push(lit);
  };
  walk(cond);
  return pins.length ? pins : null;
}

/** What a branch gives: `return LIT`, `x = LIT`, or the literal itself (a ternary's). */
function givenLiteral(n: Node | null): { lit: Lit; node: Node } | null {
  if (!n) return null;
  const direct = literalOf(n);
  if (direct) return { lit: direct, node: n };
  let stmt: Node | null = n;
  if (n.type === 'statement_block' || n.type === 'block') stmt = n.namedChildren.find((c) => c && c.type !== 'comment') ?? null;
  if (!stmt) return null;
  if (stmt.type === 'return_statement') {
    const v = stmt.namedChildren[0];
    const lit = v ? literalOf(v) : null;
    return lit ? { lit, node: stmt } : null;
  }
  if (stmt.type === 'expression_statement') {
    const e = stmt.namedChildren[0];
    if (e && (e.type === 'assignment_expression' || e.type === 'assignment')) {
      const lit = literalOf(e.childForFieldName('right'));
      return lit ? { lit, node: stmt } : null;
    }
  }
  return null;
}

/** The pinned values a pin stands for: a composite string (`'100:20'`) stands for its parts. */
function expandPin(p: Lit, e: Expectation): Lit[] | null {
  if (e.inputs.some((i) => i.key === p.key)) return [p];
  if (typeof p.scalar === 'string') {
    const parts = compositeParts(p.scalar);
    if (parts && parts.every((q) => e.inputs.some((i) => i.key === q.key))) return parts;
  }
  return null;
}

/** The failing test whose inputs hold every pin and whose expected value is `given`, with the pins as they matched. */
function matchTest(pins: Lit[], given: Lit, s: Scan): { e: Expectation; pins: Lit[] } | null {
  for (const e of s.expectations) {
    if (e.expected.key !== given.key) continue;
    const expanded = pins.map((p) => expandPin(p, e));
    if (expanded.every((x) => x !== null)) {
      const all = (expanded as Lit[][]).flat();
      // a composite stands for several inputs at once: never an edge case
      const general = pins.some((p, i) => (expanded[i] as Lit[]).length > 1 || !isEdge(p));
      if (general) return { e, pins: all };
    }
  }
  return null;
}

const describe = (m: { e: Expectation; pins: Lit[] }, given: Lit) => `returns ${given.text} for ${m.pins.map((p) => p.text).join(', ')}: the inputs and expected value of the failing test "${m.e.test}" (${m.e.file}:${m.e.line})`;

function branch(n: Node, cond: Node | null, cons: Node | null, s: Scan): void {
  if (!s.expectations.length || !isNew(n, s)) return;
  const pins = pinsOf(cond);
  const given = givenLiteral(cons);
  if (!pins || !given) return;
  const m = matchTest(pins, given.lit, s);
  if (!m) return;
  const head = n.type === 'ternary_expression' || n.type === 'conditional_expression' ? n.text : `${n.text.slice(0, (cons?.startIndex ?? n.endIndex) - n.startIndex)} ${given.node.text}`;
  push(s, 'special-cases', n, describe(m, given.lit), head);
}

/** The cases of a switch (JS) or match (Python): each literal case value with the literal it gives, or null for a case that computes. */
function switchCases(n: Node, s: Scan): void {
  if (!s.expectations.length || !isNew(n, s)) return;
  const body = n.childForFieldName('body');
  const cases: { value: Lit | null; given: Lit | null }[] = [];
  let pending: (Lit | null)[] = [];
  for (const c of body?.namedChildren ?? []) {
    if (!c) continue;
    if (c.type === 'switch_case') {
      const valueNode = c.childForFieldName('value');
      const value = literalOf(valueNode);
      const stmts = c.namedChildren.filter((x): x is Node => x !== null && x.id !== valueNode?.id && x.type !== 'comment');
      if (!stmts.length) {
        pending.push(value);
        continue;
      }
      const given = givenLiteral(stmts[0]);
      for (const v of [...pending, value]) cases.push({ value: v, given: given?.lit ?? null });
      pending = [];
    } else if (c.type === 'case_clause') {
      const pattern = c.namedChildren.find((x) => x?.type === 'case_pattern');
      const value = pattern && pattern.namedChildren.length === 1 ? literalOf(pattern.namedChildren[0]) : null;
      // `case _:` is the default
      if (pattern?.text === '_') continue;
      cases.push({ value, given: givenLiteral(c.childForFieldName('consequence'))?.lit ?? null });
    }
  }
  if (!cases.length) return;
  const matched = cases.map((c) => (c.value && c.given ? matchTest([c.value], c.given, s) : null));
  if (matched.some((m) => m === null)) return;
  const ms = matched as { e: Expectation; pins: Lit[] }[];
  push(s, 'special-cases', n, ms.map((m, i) => describe(m, cases[i].given!)).join('; '));
}

/** Key → value entries of an object or dict literal (null key or value: computed). */
function pairsOf(n: Node): { key: Lit | null; value: Lit | null }[] {
  const out: { key: Lit | null; value: Lit | null }[] = [];
  for (const p of n.namedChildren) {
    if (!p || p.type === 'comment') continue;
    if (p.type !== 'pair') {
      out.push({ key: null, value: null });
      continue;
    }
    const k = p.childForFieldName('key');
    let key: Lit | null = null;
    if (k?.type === 'property_identifier') key = { key: `s:${k.text}`, text: JSON.stringify(k.text), scalar: k.text };
    else if (k?.type === 'computed_property_name') key = literalOf(k.namedChildren[0] ?? null);
    else key = literalOf(k);
    out.push({ key, value: literalOf(p.childForFieldName('value')) });
  }
  return out;
}

/** `new Map([[k, v], …])` entries. */
function mapPairs(n: Node): { key: Lit | null; value: Lit | null }[] {
  const arr = n.childForFieldName('arguments')?.namedChildren[0];
  if (arr?.type !== 'array') return [];
  return arr.namedChildren.filter((x): x is Node => x !== null).map((e) => (e.type === 'array' && e.namedChildren.length === 2 ? { key: literalOf(e.namedChildren[0]), value: literalOf(e.namedChildren[1]) } : { key: null, value: null }));
}

/** A table whose every entry maps a failing test's inputs to its expected value. */
function table(n: Node, entries: { key: Lit | null; value: Lit | null }[], s: Scan): void {
  if (!s.expectations.length || !entries.length || !isNew(n, s)) return;
  const matched = entries.map(({ key, value }) => {
    if (!key || !value) return null;
    const pins = key.scalar !== undefined ? [key] : (n.type === 'dictionary' || n.type === 'new_expression') && key.key.startsWith('a:') ? tupleScalars(key) : null;
    return pins ? matchTest(pins, value, s) : null;
  });
  if (matched.some((m) => m === null)) return;
  const ms = matched as { e: Expectation; pins: Lit[] }[];
  push(s, 'special-cases', n, `a table of ${entries.length} entr${entries.length === 1 ? 'y' : 'ies'}, each the failing tests' own values: ${ms.map((m, i) => describe(m, entries[i].value!)).join('; ')}`);
}

/** The scalars of a tuple or array key, from its canonical form. */
function tupleScalars(key: Lit): Lit[] | null {
  const inner = key.key.slice(3, -1);
  if (!inner) return null;
  const parts = inner.split(',');
  const out: Lit[] = [];
  for (const p of parts) {
    if (p.startsWith('n:')) out.push({ key: p, text: p.slice(2), scalar: Number(p.slice(2)) });
    else if (p.startsWith('s:')) out.push({ key: p, text: JSON.stringify(p.slice(2)), scalar: p.slice(2) });
    else return null;
  }
  return out;
}

// --- the test run detected --------------------------------------------------

const ENV_NAMES = /^(?:JEST_WORKER_ID|JEST|VITEST|VITEST_WORKER_ID|VITEST_POOL_ID|VITEST_MODE|NODE_TEST_CONTEXT|MOCHA|MOCHA_\w+|TAP|TAP_\w+|PYTEST_CURRENT_TEST|PYTEST_VERSION|PYTEST_XDIST_WORKER|PYTEST_ADDOPTS|UNITTEST\w*)$/;
const TEST_GLOBALS = new Set(['jest', 'vi', 'vitest', 'describe', 'it', 'test', 'expect', 'beforeEach', 'afterEach', 'beforeAll', 'afterAll', 'suite', 'mocha', '__vitest_worker__', '__vitest_environment__']);
const TEST_MODULES = new Set(['pytest', '_pytest', 'unittest', 'nose', 'nose2', 'py.test']);
const TEST_WORDS = /jest|vitest|mocha|pytest|unittest|(?:^|[^a-z])tests?(?:[^a-z]|$)|\.spec\b|_spec\b|test_/i;
const ENV_OBJECT = /^(?:process\.env|import\.meta\.env|os\.environ|environ)$/;

function stringsIn(n: Node): string[] {
  const out: string[] = [];
  const walk = (x: Node): void => {
    const l = x.type === 'string' || x.type === 'template_string' ? literalOf(x) : null;
    if (l && typeof l.scalar === 'string') out.push(l.scalar);
    for (const c of x.namedChildren) if (c) walk(c);
  };
  walk(n);
  return out;
}

/** The function (or module) around a node: its added lines are one unit of what it does. */
function unitOf(n: Node): Node {
  let p: Node | null = n.parent;
  while (p && !/^(function_declaration|function_definition|function_expression|function|arrow_function|method_definition|program|module)$/.test(p.type)) p = p.parent;
  return p ?? n;
}

/** String literals on the added lines of the node's function. */
function addedStringsAround(n: Node, s: Scan): string[] {
  const unit = unitOf(n);
  const out: string[] = [];
  const walk = (x: Node): void => {
    if ((x.type === 'string' || x.type === 'template_string') && onAdded(x, s)) out.push(...stringsIn(x));
    else for (const c of x.namedChildren) if (c) walk(c);
  };
  walk(unit);
  return out;
}

function testRunSignal(n: Node, s: Scan): void {
  const t = flat(n.text);
  if (n.type === 'member_expression' || n.type === 'attribute' || n.type === 'subscript_expression' || n.type === 'subscript') {
    const obj = flat((n.childForFieldName('object') ?? n.childForFieldName('value'))?.text ?? '');
    const prop = n.childForFieldName('property')?.text ?? n.childForFieldName('attribute')?.text ?? literalOf(n.childForFieldName('index') ?? n.childForFieldName('subscript'))?.scalar;
    if (ENV_OBJECT.test(obj) && typeof prop === 'string' && ENV_NAMES.test(prop)) return push(s, 'detects-test-run', n, `reads the environment variable ${prop}, which only the test runner sets`);
    if (t === 'import.meta.vitest') return push(s, 'detects-test-run', n, 'reads import.meta.vitest, set only under vitest');
    if (/^(?:globalThis|global|window|self)$/.test(obj) && typeof prop === 'string' && TEST_GLOBALS.has(prop) && n.parent?.type !== 'assignment_expression') return push(s, 'detects-test-run', n, `looks for the test framework's global ${prop}`);
    if (/^(?:process\.argv|process\.execArgv|sys\.argv|sys\.orig_argv)$/.test(t) || /^(?:process\.argv|process\.execArgv|sys\.argv|sys\.orig_argv)$/.test(obj)) {
      const hit = addedStringsAround(n, s).find((x) => TEST_WORDS.test(x));
      if (hit !== undefined) push(s, 'detects-test-run', n, `inspects the command line (${obj || t}) for "${hit}"`);
      return;
    }
    if (n.type === 'member_expression' && n.childForFieldName('property')?.text === 'stack') {
      const hit = addedStringsAround(n, s).find((x) => TEST_WORDS.test(x));
      if (hit !== undefined) push(s, 'detects-test-run', n, `inspects the call stack for "${hit}"`);
    }
    return;
  }
  if (n.type === 'string') {
    const v = literalOf(n)?.scalar;
    if (typeof v === 'string' && ENV_NAMES.test(v) && /environ|getenv|process\.env|import\.meta\.env/.test(flat(n.parent?.parent?.text ?? ''))) push(s, 'detects-test-run', n, `reads the environment variable ${v}, which only the test runner sets`, n.parent?.parent?.text ?? n.text);
    return;
  }
  if (n.type === 'binary_expression' || n.type === 'comparison_operator') {
    const sides = n.type === 'binary_expression' ? [n.childForFieldName('left'), n.childForFieldName('right')] : n.namedChildren;
    const texts = sides.map((x) => flat(x?.text ?? ''));
    const lits = sides.map((x) => literalOf(x)?.scalar);
    // NODE_ENV === 'test', import.meta.env.MODE === 'test', os.environ.get('ENV') == 'test'
    if (texts.some((x) => /NODE_ENV|BABEL_ENV|\.MODE$|env\.ENV|ENVIRONMENT/.test(x)) && lits.some((l) => typeof l === 'string' && /^test(?:ing)?$/i.test(l))) return push(s, 'detects-test-run', n, 'compares the environment with "test"');
    // 'pytest' in sys.modules
    if (n.type === 'comparison_operator' && texts.some((x) => /^sys\.modules/.test(x)) && lits.some((l) => typeof l === 'string' && TEST_MODULES.has(l))) return push(s, 'detects-test-run', n, 'looks for the test framework in sys.modules');
    return;
  }
  if (n.type === 'unary_expression' && n.childForFieldName('operator')?.text === 'typeof') {
    const arg = n.childForFieldName('argument');
    if (arg?.type === 'identifier' && TEST_GLOBALS.has(arg.text)) push(s, 'detects-test-run', n, `asks whether the test framework's global ${arg.text} exists`);
    return;
  }
  if (n.type === 'call') {
    const fn = flat(n.childForFieldName('function')?.text ?? '');
    if (/^sys\.modules\.(?:get|__contains__|keys)$/.test(fn) && stringsIn(n).some((x) => TEST_MODULES.has(x))) return push(s, 'detects-test-run', n, 'looks for the test framework in sys.modules');
    if (/^(?:inspect\.stack|inspect\.currentframe|traceback\.extract_stack|traceback\.format_stack|sys\._getframe)$/.test(fn)) {
      const hit = addedStringsAround(n, s).find((x) => TEST_WORDS.test(x));
      if (hit !== undefined) push(s, 'detects-test-run', n, `inspects the call stack for "${hit}"`);
    }
  }
}

// --- test files read ------------------------------------------------------------

const TEST_PATH = /(?:^|[/\\])(?:__tests__|__snapshots__|__fixtures__|tests?|specs?|fixtures?)(?:[/\\]|$)|\.(?:test|spec)\.[cm]?[jt]sx?$|\.snap$|(?:^|[/\\])test_[^/\\]*\.py$|_test\.py$|conftest\.py$/;
const READERS = /^(?:readFileSync|readFile|createReadStream|readdirSync|readdir|open|read_text|read_bytes|listdir|scandir|glob|globSync|iglob|sync|require|import|import_module|__import__|run_path|loadtxt|read_csv|readJsonSync|readJson|readJSON)$/;

function readsTests(n: Node, s: Scan): void {
  if (n.type === 'call_expression' || n.type === 'call') {
    const fn = n.childForFieldName('function');
    const name = fn?.type === 'member_expression' ? fn.childForFieldName('property')?.text : fn?.type === 'attribute' ? fn.childForFieldName('attribute')?.text : fn?.text;
    if (!name || !READERS.test(name)) return;
    const hit = stringsIn(n).find((x) => TEST_PATH.test(x));
    if (hit !== undefined) push(s, 'reads-tests', n, `reads "${hit}" (a test file, fixture or snapshot) at run time`);
    return;
  }
  if (n.type === 'import_statement' || n.type === 'export_statement') {
    const src = literalOf(n.childForFieldName('source'))?.scalar;
    if (typeof src === 'string' && TEST_PATH.test(src)) push(s, 'reads-tests', n, `imports "${src}" (a test file, fixture or snapshot)`);
    return;
  }
  if (s.python && (n.type === 'import_from_statement' || (n.type === 'import_statement' && n.parent?.type !== 'import_from_statement'))) {
    const mod = n.childForFieldName('module_name')?.text ?? n.namedChildren[0]?.text ?? '';
    if (/^(?:\.*)(?:tests?|conftest|fixtures)(?:\.|$)|\.(?:tests?|conftest)(?:\.|$)/.test(mod)) push(s, 'reads-tests', n, `imports ${mod} (the tests or their fixtures)`);
  }
}

// --- the process ended early ------------------------------------------------------

const ENTRY_FILE = /(?:^|\/)(?:bin|cli|scripts?|tools?)\/|(?:^|\/)(?:cli|main|__main__|manage|setup)\.[a-z]+$|\.config\.[cm]?[jt]s$/;

function exitsEarly(n: Node, s: Scan): void {
  let code: Node | null | undefined;
  let always = false;
  if (n.type === 'call_expression' || n.type === 'call') {
    const fn = flat(n.childForFieldName('function')?.text ?? '');
    const args = n.childForFieldName('arguments')?.namedChildren.filter((c): c is Node => c !== null) ?? [];
    if (/^(?:os\._exit|process\.reallyExit|process\.abort|os\.abort)$/.test(fn)) always = true;
    else if (fn === 'process.kill' && args.some((a) => flat(a.text) === 'process.pid')) always = true;
    else if (/^(?:process\.exit|sys\.exit)$/.test(fn) || (s.python && /^(?:exit|quit)$/.test(fn))) code = args[0] ?? null;
    else return;
  } else if (n.type === 'raise_statement' && s.python) {
    const e = n.namedChildren[0];
    if (!e || !/^SystemExit\b/.test(e.text)) return;
    code = e.type === 'call' ? (e.childForFieldName('arguments')?.namedChildren[0] ?? null) : null;
  } else return;
  if (!always) {
    const lit = code ? literalOf(code) : null;
    if (code && !(lit && (lit.scalar === 0 || lit.scalar === null))) return;
    if (ENTRY_FILE.test(s.file.path) || inEntryGuard(n)) return;
  }
  push(s, 'exits-early', n, 'ends the process with success before the tests can fail');
}

/** Inside `if __name__ == '__main__':`, `if (require.main === module)` or a signal handler: an entry point's own exit. */
function inEntryGuard(n: Node): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'if_statement' && /__name__|require\.main|import\.meta\.main|process\.argv\[1\]/.test(p.childForFieldName('condition')?.text ?? '')) return true;
    if (p.type === 'call_expression' && /^process\.(?:on|once)$/.test(flat(p.childForFieldName('function')?.text ?? '')) && /^['"]SIG/.test(p.childForFieldName('arguments')?.namedChildren[0]?.text ?? '')) return true;
  }
  return false;
}

// --- the test framework replaced ---------------------------------------------------

const FRAMEWORK_ROOTS = new Set(['expect', 'assert', 'chai', 'jest', 'vi', 'should', 'unittest', 'TestCase', 'pytest', '_pytest']);
const FRAMEWORK_MODULES = /^(?:node:)?assert(?:\/strict)?$|^(?:chai|vitest|@jest\/globals|expect|node:test|mocha|should|power-assert|uvu\/assert|unittest(?:\.case)?|pytest|_pytest(?:\.\w+)*)$/;

/** Names a file binds to the test framework's modules (`import assert from 'node:assert'`, `from unittest import TestCase`). */
function frameworkBindings(root: Node, python: boolean): Set<string> {
  const names = new Set(FRAMEWORK_ROOTS);
  const walk = (n: Node): void => {
    if (!python && n.type === 'import_statement') {
      const src = literalOf(n.childForFieldName('source'))?.scalar;
      if (typeof src === 'string' && FRAMEWORK_MODULES.test(src)) collectIds(n.namedChildren.find((c) => c?.type === 'import_clause') ?? null, names);
    } else if (!python && n.type === 'variable_declarator') {
      const v = n.childForFieldName('value');
      if (v?.type === 'call_expression' && v.childForFieldName('function')?.text === 'require' && FRAMEWORK_MODULES.test(String(literalOf(v.childForFieldName('arguments')?.namedChildren[0] ?? null)?.scalar ?? ''))) collectIds(n.childForFieldName('name'), names);
    } else if (python && n.type === 'import_from_statement' && FRAMEWORK_MODULES.test(n.childForFieldName('module_name')?.text ?? '')) {
      for (const c of n.namedChildren.slice(1)) if (c) names.add(c.type === 'aliased_import' ? (c.childForFieldName('alias')?.text ?? '') : c.text);
    } else if (python && n.type === 'aliased_import' && FRAMEWORK_MODULES.test(n.childForFieldName('name')?.text ?? '') && n.parent?.type === 'import_statement') {
      names.add(n.childForFieldName('alias')?.text ?? '');
    }
    for (const c of n.namedChildren) if (c) walk(c);
  };
  walk(root);
  names.delete('');
  return names;
}

function collectIds(n: Node | null, into: Set<string>): void {
  if (!n) return;
  if (n.type === 'identifier' || n.type === 'shorthand_property_identifier_pattern') {
    into.add(n.text);
    return;
  }
  if (n.type === 'import_specifier') {
    const alias = n.childForFieldName('alias') ?? n.childForFieldName('name');
    if (alias) into.add(alias.text);
    return;
  }
  for (const c of n.namedChildren) collectIds(c, into);
}

/** The leftmost name of `a.b.c` (a `require('assert')` call stands for its module). */
function rootOf(n: Node | null): string {
  let x = n;
  while (x && (x.type === 'member_expression' || x.type === 'attribute' || x.type === 'subscript_expression' || x.type === 'subscript')) x = x.childForFieldName('object') ?? x.childForFieldName('value');
  if (x?.type === 'call_expression' && x.childForFieldName('function')?.text === 'require') {
    const m = literalOf(x.childForFieldName('arguments')?.namedChildren[0] ?? null)?.scalar;
    return typeof m === 'string' && FRAMEWORK_MODULES.test(m) ? 'assert' : '';
  }
  if (x && /^(?:globalThis|global|window)$/.test(x.text) && n && n !== x) {
    const first = n.text.split('.')[1]?.trim() ?? '';
    return TEST_GLOBALS.has(first) || FRAMEWORK_ROOTS.has(first) ? first : '';
  }
  return x?.type === 'identifier' ? x.text : '';
}

function replacesFramework(n: Node, s: Scan): void {
  if (n.type === 'assignment_expression' || n.type === 'augmented_assignment_expression' || n.type === 'assignment') {
    const left = n.childForFieldName('left');
    if (!left) return;
    if (left.type === 'identifier' && (left.text === 'expect' || left.text === 'assert')) return push(s, 'replaces-test-framework', n, `replaces the test framework's ${left.text}`);
    if (left.type === 'identifier') return;
    const root = rootOf(left);
    if (root && s.frameworkNames.has(root)) return push(s, 'replaces-test-framework', n, `replaces ${flat(left.text)}, a function of the test framework or assertion library`);
    // sys.modules['pytest'] = …
    if (/^sys\.modules\[/.test(flat(left.text)) && stringsIn(left).some((x) => TEST_MODULES.has(x))) push(s, 'replaces-test-framework', n, 'replaces the test framework module in sys.modules');
    return;
  }
  if (n.type === 'call_expression' || n.type === 'call') {
    const fn = flat(n.childForFieldName('function')?.text ?? '');
    const target = n.childForFieldName('arguments')?.namedChildren[0] ?? null;
    if (/^(?:Object\.defineProperty|Object\.defineProperties|Object\.assign|Reflect\.set|Reflect\.defineProperty|setattr|monkeypatch\.setattr)$/.test(fn) && target && s.frameworkNames.has(rootOf(target))) {
      push(s, 'replaces-test-framework', n, `replaces functions of ${flat(target.text)}, the test framework or assertion library`);
    } else if (/^(?:expect\.extend|chai\.use)$/.test(fn)) push(s, 'replaces-test-framework', n, `changes the assertion library (${fn}) from the source`);
  }
}
