/**
 * Literal values read from syntax trees of JS/TS and Python, in one canonical form so that a
 * test's `expect(withVat(100, 20)).toBe(120)` and a source's `return 120` (or Python's
 * `assert with_vat(100, 20) == 120`) compare equal. Pure over tree-sitter nodes.
 */
import type { Node } from '../../code/parser.js';

/** A literal: its canonical key (`n:120`, `s:abc`, `b:true`, `null`, `a:[…]`, `o:{…}`) and how it reads. */
export interface Lit {
  key: string;
  text: string;
  /** Scalars only: the value itself (number, string, boolean, null). */
  scalar?: number | string | boolean | null;
}

const STRING_TYPES = new Set(['string', 'template_string']);

/** The content of a string node without interpolation, or null. */
export function stringValue(n: Node): string | null {
  if (!STRING_TYPES.has(n.type) && n.type !== 'concatenated_string') return null;
  if (n.type === 'concatenated_string') {
    const parts = n.namedChildren.map((c) => (c ? stringValue(c) : null));
    return parts.every((p) => p !== null) ? parts.join('') : null;
  }
  if (n.namedChildren.some((c) => c && (c.type === 'template_substitution' || c.type === 'interpolation'))) return null;
  // a Python prefix (b'', r'', f'' without interpolation) is kept out of the value
  let out = '';
  for (const c of n.namedChildren) {
    if (!c) continue;
    if (c.type === 'string_fragment' || c.type === 'string_content') out += c.text;
    else if (c.type === 'escape_sequence') out += unescape(c.text);
  }
  return out;
}

function unescape(e: string): string {
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', "'": "'", '"': '"', '`': '`' };
  if (e.length === 2 && e[1] in simple) return simple[e[1]];
  const hex = /^\\(?:x([0-9a-fA-F]{2})|u\{?([0-9a-fA-F]{4,6})\}?)$/.exec(e);
  if (hex) return String.fromCodePoint(parseInt(hex[1] ?? hex[2], 16));
  return e.slice(1);
}

const num = (v: number): Lit => ({ key: `n:${v}`, text: String(v), scalar: v });
const str = (v: string): Lit => ({ key: `s:${v}`, text: JSON.stringify(v), scalar: v });

function numberOf(text: string): number | null {
  const t = text.replace(/_/g, '').replace(/[nNlLjJ]$/, '');
  const v = /^0[oO]/.test(t) ? parseInt(t.slice(2), 8) : /^0[bB]/.test(t) ? parseInt(t.slice(2), 2) : Number(t);
  return Number.isFinite(v) ? v : null;
}

/**
 * The literal a node denotes, or null. `resolve` gives the node an identifier is bound to (a
 * test's `const net = 100`), followed at most a few times.
 */
export function literalOf(n: Node | null, resolve?: (name: string) => Node | null, depth = 0): Lit | null {
  if (!n || depth > 6) return null;
  switch (n.type) {
    case 'number':
    case 'integer':
    case 'float': {
      const v = numberOf(n.text);
      return v === null ? null : num(v);
    }
    case 'string':
    case 'template_string':
    case 'concatenated_string': {
      const v = stringValue(n);
      return v === null ? null : str(v);
    }
    case 'true':
    case 'false':
      return { key: `b:${n.type}`, text: n.type, scalar: n.type === 'true' };
    case 'null':
    case 'none':
      return { key: 'null', text: n.type === 'none' ? 'None' : 'null', scalar: null };
    case 'undefined':
      return { key: 'undef', text: 'undefined' };
    case 'parenthesized_expression':
      return literalOf(n.namedChildren[0] ?? null, resolve, depth + 1);
    case 'unary_expression':
    case 'unary_operator': {
      const op = n.childForFieldName('operator')?.text ?? n.children[0]?.text;
      const arg = literalOf(n.childForFieldName('argument') ?? n.namedChildren[n.namedChildren.length - 1] ?? null, resolve, depth + 1);
      if (!arg || typeof arg.scalar !== 'number') return null;
      return op === '-' ? num(-arg.scalar) : op === '+' ? arg : null;
    }
    case 'array':
    case 'list':
    case 'tuple': {
      const items = n.namedChildren.filter((c): c is Node => c !== null && c.type !== 'comment').map((c) => literalOf(c, resolve, depth + 1));
      if (items.some((i) => i === null)) return null;
      const ls = items as Lit[];
      return { key: `a:[${ls.map((l) => l.key).join(',')}]`, text: `[${ls.map((l) => l.text).join(', ')}]` };
    }
    case 'object':
    case 'dictionary': {
      const entries: [string, Lit][] = [];
      for (const p of n.namedChildren) {
        if (!p || p.type === 'comment') continue;
        if (p.type !== 'pair') return null;
        const k = keyOf(p.childForFieldName('key'), resolve);
        const v = literalOf(p.childForFieldName('value'), resolve, depth + 1);
        if (k === null || !v) return null;
        entries.push([k, v]);
      }
      entries.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
      return { key: `o:{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v.key}`).join(',')}}`, text: `{ ${entries.map(([k, v]) => `${k}: ${v.text}`).join(', ')} }` };
    }
    case 'member_expression':
    case 'subscript_expression':
    case 'subscript': {
      const target = memberTarget(n, resolve);
      return target ? literalOf(target, resolve, depth + 1) : null;
    }
    case 'identifier': {
      if (n.text === 'undefined') return { key: 'undef', text: 'undefined' };
      if (n.text === 'NaN') return num(NaN);
      if (n.text === 'Infinity') return num(Infinity);
      const bound = resolve?.(n.text);
      return bound && bound.id !== n.id ? literalOf(bound, resolve, depth + 1) : null;
    }
    default:
      return null;
  }
}

/**
 * The node `row.input` (or `row['input']`, Python's `case["input"]`) stands for, when `row` is bound
 * to an object or dict literal (a table-driven test's row); null otherwise.
 */
export function memberTarget(n: Node, resolve?: (name: string) => Node | null): Node | null {
  const obj = n.childForFieldName('object') ?? n.childForFieldName('value');
  const prop = n.type === 'member_expression' ? (n.childForFieldName('property')?.text ?? null) : (() => {
    const idx = n.childForFieldName('index') ?? n.childForFieldName('subscript');
    const l = idx ? literalOf(idx) : null;
    return l && l.scalar !== undefined && l.scalar !== null ? String(l.scalar) : null;
  })();
  if (!obj || prop === null || obj.type !== 'identifier' || !resolve) return null;
  const bound = resolve(obj.text);
  if (!bound || (bound.type !== 'object' && bound.type !== 'dictionary')) return null;
  for (const p of bound.namedChildren) {
    if (p?.type !== 'pair') continue;
    const k = p.childForFieldName('key');
    const key = k?.type === 'property_identifier' ? k.text : k ? literalOf(k)?.scalar : undefined;
    if (key !== undefined && key !== null && String(key) === prop) return p.childForFieldName('value');
  }
  return null;
}

/** An object key as a string (`a`, `'100:20'`, `1`), or null when computed from a non-literal. */
function keyOf(k: Node | null, resolve?: (name: string) => Node | null): string | null {
  if (!k) return null;
  if (k.type === 'property_identifier' || k.type === 'shorthand_property_identifier') return k.text;
  if (k.type === 'computed_property_name') {
    const l = literalOf(k.namedChildren[0] ?? null, resolve);
    return l && l.scalar !== undefined ? String(l.scalar) : null;
  }
  const l = literalOf(k, resolve);
  return l ? (l.scalar !== undefined ? String(l.scalar) : l.key) : null;
}

/** Every scalar literal inside a node (array items, object values, call arguments), resolving bound identifiers once. */
export function scalarsIn(n: Node, resolve?: (name: string) => Node | null, seen = new Set<number>()): Lit[] {
  if (seen.has(n.id)) return [];
  seen.add(n.id);
  const lit = literalOf(n);
  if (lit && lit.scalar !== undefined) return [lit];
  if (n.type === 'identifier') {
    const bound = resolve?.(n.text);
    return bound && bound.id !== n.id ? scalarsIn(bound, resolve, seen) : [];
  }
  if (n.type === 'member_expression' || n.type === 'subscript_expression' || n.type === 'subscript') {
    const target = memberTarget(n, resolve);
    if (target) return scalarsIn(target, resolve, seen);
  }
  // a property name is not a value
  if (n.type === 'property_identifier') return [];
  const out: Lit[] = [];
  for (const c of n.namedChildren) if (c) out.push(...scalarsIn(c, resolve, seen));
  return out;
}

/**
 * Values that a real fix's edge case is made of: small integers, the empty or one-character
 * string, booleans, null, empty collections. A branch pinned to these alone is an edge case, not
 * a test's values.
 */
export function isEdge(l: Lit): boolean {
  if (l.scalar === undefined) return l.key === 'undef' || l.key === 'a:[]' || l.key === 'o:{}';
  if (l.scalar === null || typeof l.scalar === 'boolean') return true;
  if (typeof l.scalar === 'number') return Number.isNaN(l.scalar) || !Number.isFinite(l.scalar) || (Number.isInteger(l.scalar) && Math.abs(l.scalar) <= 2);
  return l.scalar.length <= 1;
}

/**
 * The parts of a composite key or compared string (`'100:20'`, `'[100,20]'`, `'alice|admin'`):
 * what a lookup keyed by several inputs at once is made of. Fewer than two parts: null.
 */
export function compositeParts(s: string): Lit[] | null {
  const parts = s.split(/[^A-Za-z0-9_.@+-]+|(?<=\d)[-_](?=\d)/).filter(Boolean);
  if (parts.length < 2) return null;
  return parts.map((p) => (/^-?\d+(?:\.\d+)?$/.test(p) ? num(Number(p)) : str(p)));
}

/** One line of a node's text, whitespace collapsed, capped. */
export function excerpt(text: string, max = 120): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
