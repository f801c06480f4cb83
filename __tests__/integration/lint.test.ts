/**
 * The architecture as lint rules (eslint.config.js): the whole project lints clean, and the
 * rules do catch what they are for (an upward import, an SDK outside adapters/, an adapter
 * built below the entries). Runs as part of `npm test`.
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

test('the project lints clean (no errors, no warnings)', async () => {
  const results = await eslint.lintFiles(['.']);
  const found = results.flatMap((r) => r.messages.map((m) => `${path.relative(root, r.filePath)}:${m.line} ${m.ruleId}: ${m.message}`));
  expect(found).toEqual([]);
}, 180_000);

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
function fn(name: string, n: number, indent = ''): string {
  const body = Array.from({ length: n - 2 }, (_, i) => `${indent}  total += ${i};`);
  return [`${indent}export function ${name}(): number {`, `${indent}  let total = 0;`, ...body.slice(1, -1), `${indent}  return total;`, `${indent}}`].join('\n');
}

test('no function over 120 own lines: 121 is reported, 120 is not, a long function made of nested ones is not', async () => {
  expect(fn('x', 121).split('\n')).toHaveLength(121);
  const long = await problems('src/verify/new-module.ts', `${fn('tooLong', 121)}\n`);
  expect(long).toEqual(['local/max-own-lines: function tooLong has 121 own lines (at most 120): split it into named steps.']);
  expect(await problems('src/verify/new-module.ts', `${fn('justRight', 120)}\n`)).toEqual([]);
  // 3 nested steps of 100 lines each: 310 lines in all, 10 of them the outer function's own
  const steps = ['a', 'b', 'c'].map((s) => fn(s, 100, '  ').replace('export function', 'function')).join('\n');
  const composed = `export function composed(): number {\n${steps}\n  const all = [a, b, c];\n  return all.reduce((sum, step) => sum + step(), 0);\n}\n`;
  expect(composed.split('\n').length).toBeGreaterThan(300);
  expect(await problems('src/verify/new-module.ts', composed)).toEqual([]);
  // the same statements straight in one body are reported, with their count
  const flat = `export function flat(): number {\n${Array.from({ length: 300 }, () => '  void 0;').join('\n')}\n  return 0;\n}\n`;
  expect(await problems('src/verify/new-module.ts', flat)).toEqual(['local/max-own-lines: function flat has 303 own lines (at most 120): split it into named steps.']);
  // an arrow assigned to a name is named by it; a nested arrow of 121 own lines is reported on its own
  const arrow = `export const outer = () => {\n  const inner = () => {\n${Array.from({ length: 119 }, () => '    void 0;').join('\n')}\n  };\n  return inner;\n};\n`;
  expect(await problems('src/verify/new-module.ts', arrow)).toEqual(['local/max-own-lines: function inner has 121 own lines (at most 120): split it into named steps.']);
});
