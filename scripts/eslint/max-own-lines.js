// ESLint rule `local/max-own-lines`: no function longer than `max` (default 120) of its own lines.
// A function's own lines are its lines minus those of the functions nested in it: a nested
// function's lines belong to it, except its first and last line, which it shares with the code
// around it (`const check = async () => {` … `};`). So a long function made of named nested steps
// passes, and each step is measured on its own; one long body of statements does not.
const FUNCTIONS = ['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression'];

/** @type {import('eslint').Rule.RuleModule} */
export default {
  meta: {
    type: 'suggestion',
    docs: { description: 'limit the own lines of a function (nested functions excluded)' },
    schema: [{ type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false }],
    messages: { tooLong: '{{name}} has {{own}} own lines (at most {{max}}): split it into named steps.' },
  },
  create(context) {
    const max = context.options[0]?.max ?? 120;
    /** The functions being visited, innermost last, each with the lines its nested functions take. */
    const stack = [];
    const enter = (node) => stack.push({ node, nested: 0 });
    const exit = (node) => {
      const frame = stack.pop();
      const lines = node.loc.end.line - node.loc.start.line + 1;
      const own = lines - frame.nested;
      const parent = stack[stack.length - 1];
      if (parent) parent.nested += Math.max(0, lines - 2);
      if (own > max) context.report({ node, loc: node.loc.start, messageId: 'tooLong', data: { name: nameOf(node), own: String(own), max: String(max) } });
    };
    const handlers = {};
    for (const type of FUNCTIONS) {
      handlers[type] = enter;
      handlers[`${type}:exit`] = exit;
    }
    return handlers;
  },
};

/** How a report names the function: its own name, the variable, property or method it is assigned to, or "a function". */
function nameOf(node) {
  if (node.id?.name) return `function ${node.id.name}`;
  const p = node.parent;
  if (p?.type === 'VariableDeclarator' && p.id.type === 'Identifier') return `function ${p.id.name}`;
  if ((p?.type === 'MethodDefinition' || p?.type === 'Property' || p?.type === 'PropertyDefinition') && p.key?.type === 'Identifier') return `function ${p.key.name}`;
  return 'a function';
}
