// ESLint rule `local/max-function-lines`: no function longer than `max` (default 150) lines, counted
// whole: from its first line to its last, the functions nested in it included. A long function
// made of nested closures sharing its variables is still one long function; split it into
// functions (or an object with methods) that stand on their own, each with its own tests.
// `allow` names functions let through (a temporary, commented allow-list in eslint.config.js).
const FUNCTIONS = ['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'];

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'limit the whole size of a function, nested functions included' },
    schema: [
      {
        type: 'object',
        properties: { max: { type: 'integer', minimum: 1 }, allow: { type: 'array', items: { type: 'string' } } },
        additionalProperties: false,
      },
    ],
    messages: { tooLong: '{{name}} has {{lines}} lines, nested functions included (at most {{max}}): split it into functions that stand on their own.' },
  },
  create(context) {
    const max = context.options[0]?.max ?? 150;
    const allow = new Set(context.options[0]?.allow ?? []);
    const check = (node) => {
      const lines = node.loc.end.line - node.loc.start.line + 1;
      if (lines <= max) return;
      const name = nameOf(node);
      if (name && allow.has(name)) return;
      context.report({ node, loc: node.loc.start, messageId: 'tooLong', data: { name: name ? `function ${name}` : 'a function', lines: String(lines), max: String(max) } });
    };
    return Object.fromEntries(FUNCTIONS.map((type) => [type, check]));
  },
};

/** The function's name: its own, or that of the variable, property or method it is assigned to; null for none. */
function nameOf(node) {
  if (node.id?.name) return node.id.name;
  const p = node.parent;
  if (p?.type === 'VariableDeclarator' && p.id.type === 'Identifier') return p.id.name;
  if ((p?.type === 'MethodDefinition' || p?.type === 'Property' || p?.type === 'PropertyDefinition') && p.key?.type === 'Identifier') return p.key.name;
  return null;
}
