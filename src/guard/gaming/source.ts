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
import { frameworkBindings, replacesFramework } from './framework.js';
import { compositeParts, isEdge, literalOf, type Lit } from './literals.js';
import { flat, isNew, onAdded, push, type ChangedSource, type Scan } from './scan.js';
import { exitsEarly, readsTests, testRunSignal } from './signals.js';
import type { Expectation } from './tests.js';

export type { ChangedSource } from './scan.js';

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

