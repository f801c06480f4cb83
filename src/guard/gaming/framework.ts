/** The test framework replaced from the source: `expect = …`, `assert.equal = …`, `setattr(unittest.TestCase, …)`, `sys.modules['pytest'] = …`. */
import type { Node } from '../../code/parser.js';
import { literalOf } from './literals.js';
import { flat, push, stringsIn, type Scan } from './scan.js';
import { TEST_GLOBALS, TEST_MODULES } from './signals.js';

const FRAMEWORK_ROOTS = new Set(['expect', 'assert', 'chai', 'jest', 'vi', 'should', 'unittest', 'TestCase', 'pytest', '_pytest']);
const FRAMEWORK_MODULES = /^(?:node:)?assert(?:\/strict)?$|^(?:chai|vitest|@jest\/globals|expect|node:test|mocha|should|power-assert|uvu\/assert|unittest(?:\.case)?|pytest|_pytest(?:\.\w+)*)$/;

/** Names a file binds to the test framework's modules (`import assert from 'node:assert'`, `from unittest import TestCase`). */
export function frameworkBindings(root: Node, python: boolean): Set<string> {
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

export function replacesFramework(n: Node, s: Scan): void {
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
