/**
 * Definitions, references and imports of one source file, read with the tree-sitter
 * grammars of src/code/parser.ts. The queries are our own, small on purpose: what a
 * repository map needs (named definitions with their line span, the names a file uses, the
 * modules it imports), not a full symbol table.
 */
import { Query, type Language } from 'web-tree-sitter';
import { loadLanguage, parseCode, type CodeLanguage } from '../code/parser.js';

export type DefKind = 'function' | 'class' | 'method' | 'constant' | 'type';

export interface Definition {
  name: string;
  kind: DefKind;
  /** 1-based, inclusive: the whole definition (a function's body included). */
  line: number;
  endLine: number;
  /** Enclosing class / object for methods. */
  parent?: string;
}

export interface FileSymbols {
  defs: Definition[];
  /** Names the file uses, with how often (its own definitions' names excluded; lexical, see usedNames). */
  refs: Record<string, number>;
  /** Module specifiers as written (`./utils`, `fmt`, `..core.base`). */
  imports: string[];
}

const JS_DEFS = `
(function_declaration name: (identifier) @name) @def.function
(generator_function_declaration name: (identifier) @name) @def.function
(class_declaration name: (_) @name) @def.class
(method_definition name: (_) @name) @def.method
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression)]) @def.function
(variable_declarator name: (identifier) @name value: (class)) @def.class
(program (lexical_declaration (variable_declarator name: (identifier) @name)) @def.constant)
(program (variable_declaration (variable_declarator name: (identifier) @name)) @def.constant)
(export_statement (lexical_declaration (variable_declarator name: (identifier) @name)) @def.constant)
(assignment_expression left: (member_expression property: (property_identifier) @name) right: [(arrow_function) (function_expression)]) @def.function
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @def.method
`;

const TS_DEFS = `${JS_DEFS}
(abstract_class_declaration name: (_) @name) @def.class
(interface_declaration name: (_) @name) @def.type
(type_alias_declaration name: (_) @name) @def.type
(enum_declaration name: (_) @name) @def.type
(function_signature name: (identifier) @name) @def.function
(abstract_method_signature name: (_) @name) @def.method
(method_signature name: (_) @name) @def.method
`;

const JS_REFS = `
(import_statement source: (string (string_fragment) @import))
(export_statement source: (string (string_fragment) @import))
(call_expression function: (identifier) @_req arguments: (arguments . (string (string_fragment) @import)) (#eq? @_req "require"))
`;

const TS_REFS = JS_REFS;

const PY_DEFS = `
(function_definition name: (identifier) @name) @def.function
(class_definition name: (identifier) @name) @def.class
(module (expression_statement (assignment left: (identifier) @name)) @def.constant)
`;

const PY_REFS = `
(import_from_statement module_name: (_) @import)
(import_statement name: (dotted_name) @import)
(import_statement name: (aliased_import name: (dotted_name) @import))
`;

const GO_DEFS = `
(function_declaration name: (identifier) @name) @def.function
(method_declaration name: (field_identifier) @name) @def.method
(type_spec name: (type_identifier) @name) @def.type
(source_file (const_declaration (const_spec name: (identifier) @name)) @def.constant)
(source_file (var_declaration (var_spec name: (identifier) @name)) @def.constant)
`;

const GO_REFS = `
(import_spec path: (interpreted_string_literal) @import)
`;

const QUERIES: Partial<Record<CodeLanguage, { defs: string; refs: string }>> = {
  javascript: { defs: JS_DEFS, refs: JS_REFS },
  typescript: { defs: TS_DEFS, refs: TS_REFS },
  tsx: { defs: TS_DEFS, refs: TS_REFS },
  python: { defs: PY_DEFS, refs: PY_REFS },
  go: { defs: GO_DEFS, refs: GO_REFS },
};

const KEYWORDS = new Set(
  'abstract async await break case catch class const continue debugger default delete else enum export extends false finally for from function get if implements import interface let new null package private protected public readonly return set static super switch this throw true try type typeof undefined var void while with yield def elif except lambda nonlocal pass raise self None True False func chan defer fallthrough goto map range struct select string number boolean any unknown never object'.split(' '),
);
/** Most names a file uses are kept; the long tail of rare ones says little and costs cache space. */
const MAX_REFS = 300;

/**
 * The names a file uses (its own definitions left out), counted. A lexical scan of the text:
 * tree-sitter reads the definitions, but walking every identifier node through WebAssembly
 * costs as much again as the parse, for the same names.
 */
export function usedNames(text: string, own: Set<string>): Record<string, number> {
  const counts = new Map<string, number>();
  // match() yields plain strings: no match objects for the hundreds of thousands of words of a large repository
  for (const w of text.match(/[A-Za-z_$][\w$]{2,}/g) ?? []) {
    if (KEYWORDS.has(w) || own.has(w)) continue;
    counts.set(w, (counts.get(w) ?? 0) + 1);
  }
  const top = counts.size > MAX_REFS ? [...counts].sort((a, b) => b[1] - a[1]).slice(0, MAX_REFS) : [...counts];
  return Object.fromEntries(top);
}

const compiled = new Map<CodeLanguage, Promise<Query>>();

/** Definitions and imports in one query: one walk of the tree instead of two (the walk costs as much as the parse). */
function queryFor(language: CodeLanguage): Promise<Query> | null {
  const src = QUERIES[language];
  if (!src) return null;
  let q = compiled.get(language);
  if (!q) {
    q = loadLanguage(language).then((lang: Language) => new Query(lang, `${src.defs}\n${src.refs}`));
    compiled.set(language, q);
  }
  return q;
}

/** Whether the map reads this language (JSON parses, but defines nothing worth mapping). */
export function mapsLanguage(language: CodeLanguage | null): language is CodeLanguage {
  return language !== null && QUERIES[language] !== undefined;
}

const METHOD_PARENTS = new Set(['class_body', 'class_declaration', 'class_definition', 'object', 'interface_body', 'object_type']);

export async function extractSymbols(language: CodeLanguage, text: string): Promise<FileSymbols> {
  const query = await queryFor(language);
  if (!query) return { defs: [], refs: {}, imports: [] };
  const tree = await parseCode(language, text);
  try {
    const defs: Definition[] = [];
    const imports: string[] = [];
    const seen = new Map<string, number>();
    for (const m of query.matches(tree.rootNode)) {
      const imported = m.captures.find((c) => c.name === 'import');
      if (imported) {
        imports.push(imported.node.text.replace(/^["'`]|["'`]$/g, ''));
        continue;
      }
      const name = m.captures.find((c) => c.name === 'name')?.node;
      const def = m.captures.find((c) => c.name.startsWith('def.'));
      if (!name || !def) continue;
      let kind = def.name.slice(4) as DefKind;
      let node = def.node;
      // `const f = () => ...` / `x.y = function` spans the whole statement
      const stmt = node.parent;
      if (stmt && (node.type === 'variable_declarator' || node.type === 'assignment_expression') && /declaration|expression_statement/.test(stmt.type)) node = stmt;
      let parent: string | undefined;
      if (language === 'python' && kind === 'function') {
        const cls = enclosing(def.node, 'class_definition');
        if (cls) {
          kind = 'method';
          parent = cls.childForFieldName('name')?.text;
        }
      } else if (language === 'go' && def.node.type === 'method_declaration') {
        parent = def.node.childForFieldName('receiver')?.text.replace(/[()*]/g, '').trim().split(/\s+/).pop();
      } else if (kind === 'method') {
        const owner = enclosingAny(def.node, METHOD_PARENTS);
        const named = owner?.type === 'class_body' || owner?.type === 'interface_body' ? owner.parent : owner?.parent;
        parent = named?.childForFieldName('name')?.text ?? undefined;
      }
      const key = `${name.text}:${node.startPosition.row}`;
      const entry: Definition = { name: name.text, kind, line: node.startPosition.row + 1, endLine: node.endPosition.row + 1, parent };
      const at = seen.get(key);
      // `const f = () => ...` matches as a constant and as a function: the function wins
      if (at !== undefined) {
        if (defs[at].kind === 'constant' && kind !== 'constant') defs[at] = entry;
        continue;
      }
      seen.set(key, defs.length);
      defs.push(entry);
    }
    defs.sort((a, b) => a.line - b.line || b.endLine - a.endLine);
    return { defs, refs: usedNames(text, new Set(defs.map((d) => d.name))), imports };
  } finally {
    tree.delete();
  }
}

type TsNode = NonNullable<Awaited<ReturnType<typeof parseCode>>['rootNode']>;

function enclosing(node: TsNode, type: string): TsNode | null {
  for (let p = node.parent; p; p = p.parent) if (p.type === type) return p;
  return null;
}

function enclosingAny(node: TsNode, types: Set<string>): TsNode | null {
  for (let p = node.parent; p; p = p.parent) if (types.has(p.type)) return p;
  return null;
}
