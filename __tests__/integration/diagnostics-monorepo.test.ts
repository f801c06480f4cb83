/**
 * Diagnostics in a workspace (issue 22 §3): a file is checked with the nearest tsconfig.json and
 * the nearest ESLint config above it, so one package's compiler options and rules never judge
 * another package's files. Real typescript and eslint of this repository (the workspace's
 * node_modules is a symlink to ours), real shell.
 */
import path from 'node:path';
import { detectCheckers } from '../../src/diagnostics/detect.js';
import { nearestEslintConfig } from '../../src/lang/javascript/eslint.js';
import { nearestTsconfig } from '../../src/lang/javascript/tsc.js';
import { createDiagnostics } from '../../src/diagnostics/watch.js';
import { edit, project as makeProject, realExec, removeProjects } from '../../test-support/diagnostics-harness.js';

afterAll(removeProjects);

const OPTIONS = { target: 'es2022', module: 'nodenext', noEmit: true, types: [] as string[] };

/** Two packages: `a` strict with eqeqeq, `b` loose without rules; the same code in both. */
function workspace(rootTsconfig?: object): string {
  const files: Record<string, string> = {
    'package.json': JSON.stringify({ name: 'mono', private: true, type: 'module', workspaces: ['packages/*'] }),
    'packages/a/package.json': JSON.stringify({ name: 'a', type: 'module' }),
    'packages/a/tsconfig.json': JSON.stringify({ compilerOptions: { ...OPTIONS, strict: true }, include: ['src'] }),
    'packages/a/eslint.config.js': "export default [{ files: ['**/*.js'], rules: { eqeqeq: 'error' } }];\n",
    'packages/a/src/x.ts': 'export function size(items: string[]): number {\n  return items.length;\n}\n',
    'packages/a/src/y.js': 'export const same = (p, q) => p === q;\n',
    'packages/b/package.json': JSON.stringify({ name: 'b', type: 'module' }),
    'packages/b/tsconfig.json': JSON.stringify({ compilerOptions: { ...OPTIONS, strict: false }, include: ['src'] }),
    'packages/b/eslint.config.js': "export default [{ files: ['**/*.js'], rules: {} }];\n",
    'packages/b/src/x.ts': 'export function size(items: string[]): number {\n  return items.length;\n}\n',
    'packages/b/src/y.js': 'export const same = (p, q) => p === q;\n',
  };
  if (rootTsconfig) files['tsconfig.json'] = JSON.stringify(rootTsconfig);
  return makeProject(files, { prefix: 'agent-fix-diag-mono-', linkModules: true });
}

/** An implicit any (an error under `strict` only) and a `==` (an error under a's eqeqeq only). */
const LOOSE_TS = (t: string) => `${t}export function first(list) {\n  return list[0];\n}\n`;
const LOOSE_JS = (t: string) => t.replace('p === q', 'p == q');

test('nearest configs: a file belongs to its package', () => {
  const dir = workspace();
  expect(nearestTsconfig(dir, 'packages/a/src/x.ts')).toBe(path.join(dir, 'packages/a/tsconfig.json'));
  expect(nearestTsconfig(dir, 'scripts/tool.ts')).toBeUndefined();
  expect(nearestEslintConfig(dir, 'packages/b/src/y.js')).toMatchObject({ dir: path.join(dir, 'packages/b'), config: 'eslint.config.js', bin: path.join(dir, 'node_modules/eslint/bin/eslint.js') });
  // a workspace root without configs of its own still gets both checkers
  expect(detectCheckers(dir)).toMatchObject({ tsc: { projects: [] }, eslint: { config: '' } });
});

test.each([
  ['a workspace root without a tsconfig.json', undefined],
  // a root project that includes every package strictly does not judge b's files: b's own config does
  ['a strict root tsconfig.json including every package', { compilerOptions: { ...OPTIONS, strict: true }, include: ['packages/*/src'] }],
])("%s: the same edits are errors in the strict package and not in the loose one (each package's tsconfig and ESLint config)", async (_name, rootTsconfig) => {
  const dir = workspace(rootTsconfig);
  const exec = realExec(dir);
  const w = createDiagnostics({ root: dir, exec })!;
  expect(w.stats.checkers).toEqual(['tsc', 'eslint']);
  w.warmUp();
  for (const pkg of ['a', 'b']) {
    await edit(w, dir, `packages/${pkg}/src/x.ts`, LOOSE_TS);
    await edit(w, dir, `packages/${pkg}/src/y.js`, LOOSE_JS);
  }
  const changed = ['a', 'b'].flatMap((p) => [`packages/${p}/src/x.ts`, `packages/${p}/src/y.js`]);
  const c = await w.check(changed);
  expect(c.ran).toEqual(['tsc', 'eslint']);
  expect(c.fresh.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual(['packages/a/src/x.ts:4 TS7006', 'packages/a/src/y.js:1 eqeqeq']);
  // each package was checked with its own tsconfig.json, and ESLint ran from each package's directory
  expect(exec.commands.some((x) => x.includes(`'-p' '${path.join(dir, 'packages/a/tsconfig.json')}'`))).toBe(true);
  expect(exec.commands.some((x) => x.includes(`'-p' '${path.join(dir, 'packages/b/tsconfig.json')}'`))).toBe(true);
  expect(exec.commands.filter((x) => x.startsWith("cd 'packages/a' && ") && x.includes('eslint.js'))).not.toHaveLength(0);
  expect(exec.commands.filter((x) => x.startsWith("cd 'packages/b' && ") && x.includes('eslint.js'))).not.toHaveLength(0);
  await w.dispose();
}, 180_000);
