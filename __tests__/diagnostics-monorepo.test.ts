/**
 * Diagnostics in a workspace (issue 22 §3): a file is checked with the nearest tsconfig.json and
 * the nearest ESLint config above it, so one package's compiler options and rules never judge
 * another package's files. Real typescript and eslint of this repository (the workspace's
 * node_modules is a symlink to ours), real shell.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeShell } from '../src/adapters/shell.js';
import { childEnv } from '../src/verify/env.js';
import { detectCheckers, nearestEslintConfig, nearestTsconfig } from '../src/diagnostics/checkers.js';
import { createDiagnostics, type CheckExec, type DiagnosticsWatcher } from '../src/diagnostics/watch.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const OPTIONS = { target: 'es2022', module: 'nodenext', noEmit: true, types: [] as string[] };

/** Two packages: `a` strict with eqeqeq, `b` loose without rules; the same code in both. */
function workspace(rootTsconfig?: object): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'agent-fix-diag-mono-'));
  dirs.push(dir);
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
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

function realExec(dir: string): CheckExec & { commands: string[] } {
  const shell = makeShell();
  const commands: string[] = [];
  const exec = (command: string, o: { timeoutMs: number; maxOutputChars: number }) => {
    commands.push(command);
    return shell.run(command, { cwd: dir, timeoutMs: o.timeoutMs, env: childEnv(process.env), maxOutputChars: o.maxOutputChars });
  };
  return Object.assign(exec, { commands });
}

async function edit(w: DiagnosticsWatcher, dir: string, rel: string, change: (text: string) => string): Promise<void> {
  await w.beforeWrite(rel);
  const abs = path.join(dir, rel);
  writeFileSync(abs, change(readFileSync(abs, 'utf8')));
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
