/**
 * What the failing tests use, read test by test from their syntax: each assertion's inputs (the
 * literals the checked expression is computed from, bound constants followed) and its expected
 * value. JS/TS (jest, vitest, mocha, node:test, tape: `it`/`test`/`specify` in `describe`,
 * `it.each`/`test.each` tables) and Python (pytest `test_*` functions with
 * `@pytest.mark.parametrize`, unittest `TestCase` methods). Pure over tree-sitter trees.
 */
import type { Node } from '../../code/parser.js';
import { literalOf, scalarsIn, type Lit } from './literals.js';

/** One assertion of a failing test: the inputs it computes from, the value it expects. */
export interface Expectation {
  /** The test's name path, joined with ` > `. */
  test: string;
  file: string;
  line: number;
  inputs: Lit[];
  expected: Lit;
}

/** A test case found in a file: its name path and the node of its body. */
interface TestCaseNode {
  path: string[];
  body: Node;
  /** Rows of a table-driven test (`it.each`, `parametrize`, a `for…of` loop over a table): each binds the parameters to literals. */
  rows: Map<string, Node>[];
  /** Its name is computed (a test in a loop over a table): it stands for the tests of its suites. */
  computed?: true;
  /** The table it runs over, when its rows are a loop's. */
  table?: Node;
}

/** The rows of `for (const t of TABLE)` (or `[a, b]`, `{ a, b }`): the loop variable bound to each element of a literal array. */
function loopRows(loop: Node, resolve: (name: string) => Node | null): { rows: Map<string, Node>[]; table: Node } | null {
  const left = loop.childForFieldName('left');
  let right = loop.childForFieldName('right');
  if (right?.type === 'identifier') right = resolve(right.text);
  if (!left || right?.type !== 'array') return null;
  const pattern = left.type === 'lexical_declaration' || left.type === 'variable_declaration' ? (left.namedChildren[0]?.childForFieldName('name') ?? left.namedChildren[0]) : left;
  if (!pattern) return null;
  const rows: Map<string, Node>[] = [];
  for (const el of right.namedChildren) {
    if (!el) continue;
    const bind = new Map<string, Node>();
    if (pattern.type === 'identifier') bind.set(pattern.text, el);
    else if (pattern.type === 'array_pattern' && el.type === 'array') {
      pattern.namedChildren.forEach((p, i) => {
        const v = el.namedChildren[i];
        if (p?.type === 'identifier' && v) bind.set(p.text, v);
      });
    } else if (pattern.type === 'object_pattern' && el.type === 'object') {
      for (const pair of el.namedChildren) {
        const k = pair?.childForFieldName('key')?.text.replace(/^['"]|['"]$/g, '');
        const v = pair?.childForFieldName('value');
        if (k && v) bind.set(k, v);
      }
    }
    rows.push(bind);
  }
  return { rows, table: right };
}

const JS_TESTS = new Set(['it', 'test', 'specify']);
const JS_SUITES = new Set(['describe', 'context', 'suite']);

/** The base name of a call's callee: `it`, `it.only`, `it.each(...)` → `it`; `t.test` → `test`. */
function calleeBase(fn: Node | null): { name: string; each?: Node } | null {
  if (!fn) return null;
  if (fn.type === 'identifier') return { name: fn.text };
  if (fn.type === 'member_expression') {
    const obj = fn.childForFieldName('object');
    const prop = fn.childForFieldName('property')?.text ?? '';
    if (obj?.type === 'identifier' && JS_TESTS.has(prop) && !JS_TESTS.has(obj.text) && !JS_SUITES.has(obj.text)) return { name: prop };
    return calleeBase(obj);
  }
  if (fn.type === 'call_expression') {
    const inner = fn.childForFieldName('function');
    const base = calleeBase(inner);
    if (base && inner?.type === 'member_expression' && inner.childForFieldName('property')?.text === 'each') {
      return { name: base.name, each: fn.childForFieldName('arguments')?.namedChildren[0] ?? undefined };
    }
    return base;
  }
  return null;
}

const firstString = (args: Node | null): string | null => {
  const a = args?.namedChildren[0];
  if (!a) return null;
  const l = literalOf(a);
  return l && typeof l.scalar === 'string' ? l.scalar : null;
};

function jsParams(fnNode: Node): Node[] {
  const params = fnNode.childForFieldName('parameters') ?? fnNode.childForFieldName('parameter');
  if (!params) return [];
  if (params.type === 'identifier') return [params];
  return params.namedChildren.filter((c): c is Node => c !== null);
}

/** The rows of an `it.each([...])` table bound to the callback's parameters. */
function jsRows(table: Node | undefined, fnNode: Node): Map<string, Node>[] {
  if (!table || table.type !== 'array') return [];
  const params = jsParams(fnNode);
  const rows: Map<string, Node>[] = [];
  for (const row of table.namedChildren) {
    if (!row) continue;
    const bind = new Map<string, Node>();
    if (row.type === 'array') {
      row.namedChildren.forEach((v, i) => {
        const p = params[i];
        if (v && p?.type === 'identifier') bind.set(p.text, v);
      });
    } else if (row.type === 'object' && params[0]?.type === 'object_pattern') {
      for (const pair of row.namedChildren) {
        const k = pair?.childForFieldName('key')?.text.replace(/^['"]|['"]$/g, '');
        const v = pair?.childForFieldName('value');
        if (k && v) bind.set(k, v);
      }
    } else if (params[0]?.type === 'identifier') bind.set(params[0].text, row);
    rows.push(bind);
  }
  return rows;
}

function jsCases(root: Node): TestCaseNode[] {
  const out: TestCaseNode[] = [];
  const bound = bindingsOf(root, new Map());
  const resolve = (name: string) => bound.get(name) ?? null;
  let loop: { rows: Map<string, Node>[]; table: Node } | null = null;
  const walk = (n: Node, suites: string[]): void => {
    if (n.type === 'for_in_statement') {
      const outer = loop;
      loop = loopRows(n, resolve) ?? outer;
      for (const c of n.namedChildren) if (c) walk(c, suites);
      loop = outer;
      return;
    }
    if (n.type === 'call_expression') {
      const base = calleeBase(n.childForFieldName('function'));
      const args = n.childForFieldName('arguments');
      const literal = firstString(args);
      // a test named by an expression, in a loop over a literal table: one case per row
      const computed = literal === null && loop !== null && base !== null && JS_TESTS.has(base.name) && args?.namedChildren[0] ? `<${args.namedChildren[0].text}>` : null;
      const name = literal ?? computed;
      if (base && name !== null && (JS_TESTS.has(base.name) || JS_SUITES.has(base.name))) {
        const fnNode = args?.namedChildren.find((c) => c && /function|arrow_function/.test(c.type)) ?? null;
        if (JS_SUITES.has(base.name)) {
          for (const c of n.namedChildren) if (c) walk(c, [...suites, name]);
          return;
        }
        if (fnNode) {
          const body = fnNode.childForFieldName('body') ?? fnNode;
          if (computed && loop) out.push({ path: [...suites, name], body, rows: loop.rows, computed: true, table: loop.table });
          else out.push({ path: [...suites, name], body, rows: jsRows(base.each, fnNode) });
          // tests nested in a test (node:test's `t.test`)
          for (const c of body.namedChildren) if (c) walk(c, [...suites, name]);
          return;
        }
      }
    }
    for (const c of n.namedChildren) if (c) walk(c, suites);
  };
  walk(root, []);
  return out;
}

/** `@pytest.mark.parametrize("a,b,expected", [(1, 2, 3), …])` rows. */
function pyRows(decorators: Node[]): Map<string, Node>[] {
  for (const d of decorators) {
    const call = d.namedChildren[0];
    if (call?.type !== 'call' || !/parametrize$/.test(call.childForFieldName('function')?.text ?? '')) continue;
    const args = call.childForFieldName('arguments')?.namedChildren.filter((c): c is Node => c !== null) ?? [];
    const namesLit = args[0] ? literalOf(args[0]) : null;
    const names = typeof namesLit?.scalar === 'string' ? namesLit.scalar.split(',').map((s) => s.trim()) : (args[0]?.namedChildren ?? []).map((c) => (c ? String(literalOf(c)?.scalar ?? '') : ''));
    const table = args[1];
    if (!table || (table.type !== 'list' && table.type !== 'tuple')) continue;
    const rows: Map<string, Node>[] = [];
    for (const row of table.namedChildren) {
      if (!row) continue;
      let values = row.type === 'tuple' || row.type === 'list' ? row.namedChildren.filter((c): c is Node => c !== null) : [row];
      // pytest.param(1, 2, 3, id=…)
      if (row.type === 'call') values = (row.childForFieldName('arguments')?.namedChildren ?? []).filter((c): c is Node => c !== null && c.type !== 'keyword_argument');
      if (names.length === 1) values = [row];
      const bind = new Map<string, Node>();
      names.forEach((nm, i) => {
        if (values[i]) bind.set(nm, values[i]);
      });
      rows.push(bind);
    }
    return rows;
  }
  return [];
}

function pyCases(root: Node): TestCaseNode[] {
  const out: TestCaseNode[] = [];
  const walk = (n: Node, classes: string[]): void => {
    for (const c of n.namedChildren) {
      if (!c) continue;
      let def: Node | null = c;
      let decorators: Node[] = [];
      if (c.type === 'decorated_definition') {
        decorators = c.namedChildren.filter((x): x is Node => x !== null && x.type === 'decorator');
        def = c.childForFieldName('definition');
      }
      if (!def) continue;
      if (def.type === 'class_definition') {
        const body = def.childForFieldName('body');
        if (body) walk(body, [...classes, def.childForFieldName('name')?.text ?? '']);
      } else if (def.type === 'function_definition') {
        const name = def.childForFieldName('name')?.text ?? '';
        const body = def.childForFieldName('body');
        if (/^test/.test(name) && body) out.push({ path: [...classes, name], body, rows: pyRows(decorators) });
      }
    }
  };
  walk(root, []);
  return out;
}

/** Bindings of names to expressions: a test body's and the file's top-level constants. */
function bindingsOf(scope: Node, into = new Map<string, Node>()): Map<string, Node> {
  const visit = (n: Node): void => {
    if (n.type === 'variable_declarator') {
      const name = n.childForFieldName('name');
      const value = n.childForFieldName('value');
      if (name?.type === 'identifier' && value && !into.has(name.text)) into.set(name.text, value);
    } else if (n.type === 'assignment' || n.type === 'assignment_expression') {
      const left = n.childForFieldName('left');
      const right = n.childForFieldName('right');
      if (left?.type === 'identifier' && right && !into.has(left.text)) into.set(left.text, right);
    }
    // not into other functions' bodies
    if (n !== scope && /^(function_declaration|function_definition|class_definition|class_declaration|method_definition)$/.test(n.type)) return;
    for (const c of n.namedChildren) if (c) visit(c);
  };
  visit(scope);
  return into;
}

/** An assertion's checked expression and expected node, or null. */
function assertionParts(n: Node): { actual: Node; expected: Node } | null {
  if (n.type === 'call_expression') return jsAssertion(n);
  if (n.type === 'call') return pyCallAssertion(n);
  if (n.type === 'assert_statement') {
    const cmp = n.namedChildren[0];
    if (cmp?.type === 'comparison_operator' && cmp.namedChildren.length === 2) {
      const op = cmp.children.find((c) => c && !c.isNamed)?.text;
      if (op === '==' || op === 'is') return orient(cmp.namedChildren[0], cmp.namedChildren[1]);
    }
  }
  return null;
}

const JS_EQ = new Set(['toBe', 'toEqual', 'toStrictEqual', 'toBeCloseTo', 'toMatchObject', 'equal', 'equals', 'eql', 'eq', 'strictEqual', 'deepEqual', 'deepStrictEqual', 'is', 'same', 'strictSame', 'looseEqual', 'isEqual', 'closeTo', 'approximately']);
const JS_CONST: Record<string, string> = { toBeNull: 'null', toBeUndefined: 'undefined', toBeTrue: 'true', toBeFalse: 'false', toBeNaN: 'NaN' };

function jsAssertion(call: Node): { actual: Node; expected: Node } | null {
  const fn = call.childForFieldName('function');
  const args = (call.childForFieldName('arguments')?.namedChildren ?? []).filter((c): c is Node => c !== null);
  if (!fn) return null;
  const name = fn.type === 'member_expression' ? (fn.childForFieldName('property')?.text ?? '') : fn.text;
  // expect(actual)….matcher(expected), chai's expect(actual).to.deep.equal(expected)
  if (fn.type === 'member_expression') {
    let obj: Node | null = fn.childForFieldName('object');
    let negated = false;
    while (obj && obj.type === 'member_expression') {
      if (obj.childForFieldName('property')?.text === 'not') negated = true;
      obj = obj.childForFieldName('object');
    }
    if (obj?.type === 'call_expression' && obj.childForFieldName('function')?.text === 'expect') {
      const actual = obj.childForFieldName('arguments')?.namedChildren[0];
      if (negated || !actual) return null;
      if (JS_EQ.has(name) && args[0]) return { actual, expected: args[0] };
      return null;
    }
  }
  // assert.equal(actual, expected), t.is(…), strictEqual(…)
  if (JS_EQ.has(name) && args.length >= 2) return orient(args[0], args[1]);
  // assert(actual === expected), assert.ok(…)
  if ((name === 'assert' || name === 'ok') && args[0]?.type === 'binary_expression') {
    const op = args[0].childForFieldName('operator')?.text;
    if (op === '===' || op === '==') return orient(args[0].childForFieldName('left'), args[0].childForFieldName('right'));
  }
  return null;
}

const PY_EQ = /^assert(?:Equal|Equals|AlmostEqual|AlmostEquals|Is|DictEqual|ListEqual|TupleEqual|SetEqual|MultiLineEqual|SequenceEqual)$|^assert_(?:equal|almost_equal|allclose)$/;
const PY_CONST: Record<string, string> = { assertTrue: 'True', assertFalse: 'False', assertIsNone: 'None' };

function pyCallAssertion(call: Node): { actual: Node; expected: Node } | null {
  const fn = call.childForFieldName('function');
  const name = fn?.type === 'attribute' ? (fn.childForFieldName('attribute')?.text ?? '') : (fn?.text ?? '');
  const args = (call.childForFieldName('arguments')?.namedChildren ?? []).filter((c): c is Node => c !== null && c.type !== 'keyword_argument');
  if (PY_EQ.test(name) && args.length >= 2) return orient(args[0], args[1]);
  return null;
}

/** The expected side is the literal one (either order is written); the actual side computes. */
function orient(a: Node | null, b: Node | null): { actual: Node; expected: Node } | null {
  if (!a || !b) return null;
  const la = literalOf(unwrapApprox(a));
  const lb = literalOf(unwrapApprox(b));
  if (lb && !la) return { actual: a, expected: unwrapApprox(b) };
  if (la && !lb) return { actual: b, expected: unwrapApprox(a) };
  return { actual: a, expected: unwrapApprox(b) };
}

/** `pytest.approx(55)` → `55`. */
function unwrapApprox(n: Node): Node {
  if (n.type === 'call' && /(?:^|\.)approx$/.test(n.childForFieldName('function')?.text ?? '')) return n.childForFieldName('arguments')?.namedChildren[0] ?? n;
  return n;
}

/** Constant matchers (`toBeNull()`, `assertTrue(x)`) give their expected value as text. */
function constantAssertion(n: Node): { actual: Node; expected: Lit } | null {
  if (n.type === 'call_expression') {
    const fn = n.childForFieldName('function');
    const name = fn?.type === 'member_expression' ? (fn.childForFieldName('property')?.text ?? '') : '';
    const obj = fn?.childForFieldName('object');
    if (name in JS_CONST && obj?.type === 'call_expression' && obj.childForFieldName('function')?.text === 'expect') {
      const actual = obj.childForFieldName('arguments')?.namedChildren[0];
      const v = JS_CONST[name];
      if (actual) return { actual, expected: v === 'null' ? { key: 'null', text: 'null', scalar: null } : v === 'undefined' ? { key: 'undef', text: 'undefined' } : v === 'NaN' ? { key: 'n:NaN', text: 'NaN', scalar: NaN } : { key: `b:${v}`, text: v, scalar: v === 'true' } };
    }
  }
  if (n.type === 'call') {
    const fn = n.childForFieldName('function');
    const name = fn?.type === 'attribute' ? (fn.childForFieldName('attribute')?.text ?? '') : '';
    const actual = n.childForFieldName('arguments')?.namedChildren[0];
    const v = PY_CONST[name];
    if (v && actual) return { actual, expected: v === 'None' ? { key: 'null', text: 'None', scalar: null } : { key: `b:${v.toLowerCase()}`, text: v, scalar: v === 'True' } };
  }
  return null;
}

/** The expectations of one test case, once per row of its table (or once). */
function caseExpectations(tc: TestCaseNode, file: string, fileBindings: Map<string, Node>): Expectation[] {
  const local = bindingsOf(tc.body, new Map());
  const out: Expectation[] = [];
  const rows = tc.rows.length ? tc.rows : [new Map<string, Node>()];
  for (const row of rows) {
    const resolve = (name: string): Node | null => row.get(name) ?? local.get(name) ?? fileBindings.get(name) ?? null;
    const visit = (n: Node): void => {
      const parts = assertionParts(n);
      const konst = parts ? null : constantAssertion(n);
      const actual = parts?.actual ?? konst?.actual;
      const expected = parts ? literalOf(parts.expected, resolve) : (konst?.expected ?? null);
      if (actual && expected) {
        const inputs = scalarsIn(actual, resolve);
        if (inputs.length) out.push({ test: tc.path.join(' > '), file, line: n.startPosition.row + 1, inputs, expected });
      }
      for (const c of n.namedChildren) if (c) visit(c);
    };
    visit(tc.body);
  }
  return out;
}

const collapse = (s: string) => s.replace(/\s+/g, ' ').trim();

/**
 * Whether a test case (by name path) is one of `ids` (the runner's ids: `file > suite > name`,
 * `file::Class::test_x[param]`, a full name): the id ends with its path or its name.
 */
export function isNamed(path: string[], ids: string[], computed = false): boolean {
  // a test named in a loop stands for the failing tests of its suites
  if (computed) return path.length > 1 && ids.some((id) => path.slice(0, -1).every((s) => id.includes(s)));
  const whole = collapse(path.join(' > '));
  const last = collapse(path[path.length - 1] ?? '');
  const matches = (id: string): boolean => {
    const py = id.split('::').map(collapse);
    if (py.length > 1) return py.slice(1).join(' > ') === whole || py[py.length - 1] === last;
    return id === whole || id.endsWith(` > ${whole}`) || id.endsWith(` ${whole}`) || id === last || id.endsWith(` > ${last}`) || id.endsWith(` ${last}`);
  };
  return ids.some((raw) => {
    const id = collapse(raw.replace(/\[[^\]]*\]$/, ''));
    // unittest: `test_x (pkg.mod.Class.test_x)` or `pkg.mod.Class.test_x`
    const dotted = /^(?:\w+ \()?([\w.]+)\)?$/.exec(id);
    return matches(id) || (dotted !== null && dotted[1].includes('.') && matches(`x::${dotted[1].split('.').slice(-Math.min(path.length, 2)).join('::')}`));
  });
}

/** Every test case of a parsed test file as name paths (for the tests a change adds or edits). */
export function testCasePaths(root: Node, python: boolean): { path: string[]; text: string; computed?: true }[] {
  return (python ? pyCases(root) : jsCases(root)).map((c) => ({ path: c.path, text: collapse(`${c.table?.text ?? ''}${c.body.text}`), ...(c.computed ? { computed: true as const } : {}) }));
}

/** The expectations of the test cases of a parsed test file that `wanted` selects. */
export function expectationsOf(root: Node, file: string, python: boolean, wanted: (path: string[], computed: boolean) => boolean): Expectation[] {
  const cases = (python ? pyCases(root) : jsCases(root)).filter((c) => wanted(c.path, c.computed === true));
  if (!cases.length) return [];
  const fileBindings = bindingsOf(root, new Map());
  return cases.flatMap((c) => caseExpectations(c, file, fileBindings));
}
