/**
 * The architecture as lint rules (eslint.config.js): the rules, as configured, catch what they
 * are for (an upward import, an SDK outside adapters/, an adapter built below the entries, a long
 * function, a long file). That the whole tree lints clean is `npm run lint`, run by `npm test`
 * before jest; the rules of scripts/eslint/ on their own are __tests__/unit/lint-rules.test.ts.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const eslint = new ESLint({ cwd: root });

async function problems(file: string, code: string): Promise<string[]> {
  const [r] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return r.messages.map((m) => `${m.ruleId}: ${m.message}`);
}

test('an upward import is an error: verify/ may not import the story, publish/ may not import the fix', async () => {
  const up = await problems('src/verify/new-module.ts', "import { runStory } from '../run/story.js';\nexport const x = runStory;\n");
  expect(up.join('\n')).toMatch(/import-x\/no-restricted-paths: .*Imports run one way/);
  const up2 = await problems('src/publish/new-module.ts', "import { runFix } from '../fix.js';\nexport const x = runFix;\n");
  expect(up2.join('\n')).toMatch(/import-x\/no-restricted-paths/);
  // downward is fine
  expect(await problems('src/run/new-module.ts', "import { runFix } from '../fix.js';\nexport const x = runFix;\n")).toEqual([]);
});

test('SDKs only in adapters/; adapters only built by the entries', async () => {
  const sdk = "import { Octokit } from '@octokit/rest';\nexport const x = Octokit;\n";
  expect((await problems('src/publish/new-module.ts', sdk)).join('\n')).toMatch(/no-restricted-imports: .*only in src\/adapters/);
  expect((await problems('src/verify/new-module.ts', "import { execa } from 'execa';\nexport const x = execa;\n")).join('\n')).toMatch(/no-restricted-imports/);
  expect(await problems('src/adapters/new-module.ts', sdk)).toEqual([]);
  const built = "import { makeShell } from '../adapters/shell.js';\nexport const x = makeShell;\n";
  expect((await problems('src/run/new-module.ts', built)).join('\n')).toMatch(/Adapters are built by the entries/);
  expect(await problems('src/main.ts', "import { makeShell } from './adapters/shell.js';\nexport const x = makeShell;\n")).toEqual([]);
});

test('a circle through type-only imports is an error, and a type-position import() is refused', async () => {
  // verify/types.ts is a leaf: a type import from a module that imports it closes a circle import-x/no-cycle does not see
  const circle = await problems('src/verify/types.ts', "import type { Intel } from './intel.js';\nexport type X = Intel;\n");
  expect(circle.join('\n')).toMatch(/local\/no-type-cycle: Import circle \(types included\): src\/verify\/types\.ts → src\/verify\/intel\.ts → .*src\/verify\/types\.ts/);
  expect(circle.join('\n')).not.toMatch(/import-x\/no-cycle/);
  const hidden = await problems('src/verify/new-module.ts', "export type X = import('./types.js').TestRun;\n");
  expect(hidden.join('\n')).toMatch(/no-restricted-syntax: A type-position import\('…'\) hides a dependency/);
  // the same type imported at the top, without a circle, is fine
  expect(await problems('src/verify/new-module.ts', "import type { TestRun } from './types.js';\nexport type X = TestRun;\n")).toEqual([]);
});

/** A function `name` of `n` lines in all: its header, `n - 2` statements, its closing brace. */
function fn(name: string, n: number): string {
  const body = Array.from({ length: n - 4 }, (_, i) => `  total += ${i};`);
  return [`export function ${name}(): number {`, '  let total = 0;', ...body, '  return total;', '}'].join('\n');
}

test('no function in src/ over 150 lines, nested closures included: 151 is reported, 150 is not', async () => {
  expect(fn('x', 151).split('\n')).toHaveLength(151);
  expect(await problems('src/verify/new-module.ts', `${fn('tooLong', 151)}\n`)).toEqual([
    'local/max-function-lines: function tooLong has 151 lines, nested functions included (at most 150): split it into functions that stand on their own.',
  ]);
  expect(await problems('src/verify/new-module.ts', `${fn('justRight', 150)}\n`)).toEqual([]);
  // a closure's lines are its function's too
  const inner = fn('step', 140).replace('export function', 'function').replace(/^/gm, '  ');
  const outer = `export function outer(): number {\n${inner}\n${Array.from({ length: 10 }, () => '  void 0;').join('\n')}\n  return step();\n}\n`;
  expect((await problems('src/verify/new-module.ts', outer)).join('\n')).toMatch(/function outer has 153 lines, nested functions included/);
});

test('no file in src/ over 500 lines: 501 is reported, 500 is not, nor a long file outside src/', async () => {
  // `n` lines, each ending in a newline (what `wc -l` counts)
  const file = (n: number) => `${Array.from({ length: n }, (_, i) => `export const v${i} = ${i};`).join('\n')}\n`;
  expect(file(501).match(/\n/g)).toHaveLength(501);
  expect(await problems('src/verify/new-module.ts', file(501))).toEqual(['max-lines: File has too many lines (501). Maximum allowed is 500.']);
  expect(await problems('src/verify/new-module.ts', file(500))).toEqual([]);
  expect(await problems('scripts/new-script.ts', file(800))).toEqual([]);
});
