/**
 * The project's own lint rules (scripts/eslint/), each with its positive controls: a sample that
 * breaks the rule is reported, one that keeps it is not. Pure RuleTester runs, no project config;
 * the architecture rules as configured are in __tests__/integration/lint.test.ts, and the whole
 * tree's lint is `npm run lint` (part of `npm test`).
 */
import { RuleTester } from 'eslint';
import maxFunctionLines from '../../scripts/eslint/max-function-lines.js';

const tester = new RuleTester({ languageOptions: { ecmaVersion: 2022, sourceType: 'module' } });

/** A function `name` of `n` lines in all: its header, `n - 2` statements, its closing brace. */
function fn(name: string, n: number, indent = ''): string {
  const body = Array.from({ length: n - 3 }, (_, i) => `${indent}  total += ${i};`);
  return [`${indent}function ${name}() {`, `${indent}  let total = 0;`, ...body, `${indent}}`].join('\n');
}
/** `n` lines of statements, indented. */
const lines = (n: number, indent: string) => Array.from({ length: n }, () => `${indent}void 0;`).join('\n');
const message = (name: string, n: number) => `${name} has ${n} lines, nested functions included (at most 150): split it into functions that stand on their own.`;

test('the samples have the sizes they claim', () => {
  expect(fn('x', 151).split('\n')).toHaveLength(151);
  expect(fn('x', 150).split('\n')).toHaveLength(150);
});

tester.run('max-function-lines', maxFunctionLines, {
  valid: [
    { code: fn('justRight', 150), options: [{ max: 150 }] },
    // the default is 150
    { code: fn('justRight', 150) },
    // a named function on the allow-list passes; only that one
    { code: fn('allowed', 200), options: [{ max: 150, allow: ['allowed'] }] },
    // small functions side by side make a long file, not a long function
    { code: [fn('a', 100), fn('b', 100), fn('c', 100)].join('\n'), options: [{ max: 150 }] },
  ],
  invalid: [
    { code: fn('tooLong', 151), options: [{ max: 150 }], errors: [{ message: message('function tooLong', 151) }] },
    // closures count with the function around them: 3 nested steps of 60 lines make a 183-line function
    {
      code: `function composed() {\n${['a', 'b', 'c'].map((s) => fn(s, 60, '  ')).join('\n')}\n  return a() + b() + c();\n}`,
      options: [{ max: 150 }],
      errors: [{ message: message('function composed', 183) }],
    },
    // an arrow is named by its variable, a method by its key; a nested arrow over the limit is reported too
    {
      code: `const outer = () => {\n  const inner = () => {\n${lines(150, '    ')}\n  };\n  return inner;\n};`,
      options: [{ max: 150 }],
      errors: [{ message: message('function outer', 155) }, { message: message('function inner', 152) }],
    },
    {
      code: `class Box {\n  open() {\n${lines(150, '    ')}\n  }\n}`,
      options: [{ max: 150 }],
      errors: [{ message: message('function open', 152) }],
    },
    // the allow-list names functions, not files: another long function next to an allowed one is reported
    {
      code: [fn('allowed', 200), fn('other', 151)].join('\n'),
      options: [{ max: 150, allow: ['allowed'] }],
      errors: [{ message: message('function other', 151) }],
    },
    { code: `export default function () {\n${lines(150, '  ')}\n}`, options: [{ max: 150 }], errors: [{ message: message('a function', 152) }] },
  ],
});
