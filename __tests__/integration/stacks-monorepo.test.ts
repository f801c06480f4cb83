/**
 * Monorepos (issue 22, part 3): npm, yarn and pnpm workspaces found, a changed file owned by its
 * package, that package's tests selected through its own runner in its directory while the full
 * command stays the root's, the root command's output read package by package (one on jest,
 * one on vitest), and a CI log mapped back to the package whose tests failed. The real-run cases
 * use the fixture monorepo (__tests__/fixtures/stacks-monorepo: packages/a on jest, packages/b on
 * vitest) with this project's node_modules.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeShell } from '../../src/adapters/shell.js';
import { extractFailure, filteredPackages } from '../../src/ci/log-extract.js';
import { Redactor } from '../../src/redact.js';
import { identifyRunner, loadRunner, parseTestOutput, planRelated } from '../../src/verify/runners/index.js';
import { TestSession } from '../../src/verify/session.js';
import { expandGlobs, owningPackage, packageTestCommand, readWorkspaces, workspaceGlobs } from '../../src/verify/workspaces.js';
import { ROOT } from '../../test-support/run-action.js';

const FIXTURE = path.join(ROOT, '__tests__', 'fixtures', 'stacks-monorepo');

describe('workspaces', () => {
  test('npm, yarn and pnpm declarations', () => {
    expect(workspaceGlobs('{"workspaces":["packages/*","apps/web"]}', null)).toEqual({ tool: 'npm', globs: ['packages/*', 'apps/web'] });
    expect(workspaceGlobs('{"workspaces":{"packages":["libs/**"],"nohoist":["x"]}}', null)).toEqual({ tool: 'yarn', globs: ['libs/**'] });
    expect(workspaceGlobs('{"name":"root"}', "packages:\n  - 'packages/*'\n  - \"!packages/legacy\" # old\ncatalog:\n  react: ^18\n")).toEqual({ tool: 'pnpm', globs: ['packages/*', '!packages/legacy'] });
    expect(workspaceGlobs(null, 'packages: [apps/*, tools/cli]\n')).toEqual({ tool: 'pnpm', globs: ['apps/*', 'tools/cli'] });
    expect(workspaceGlobs('{"name":"single"}', null)).toBeNull();
  });

  test('globs expand over directories; exclusions apply; node_modules is never a package', async () => {
    const tree: Record<string, string[]> = { '': ['packages', 'apps', 'node_modules'], packages: ['a', 'b', 'legacy', 'node_modules'], apps: ['web'], 'apps/web': ['src'], 'packages/a': [], 'packages/b': ['inner'], 'packages/b/inner': [] };
    const subdirs = async (d: string) => tree[d] ?? [];
    expect(await expandGlobs(['packages/*', '!packages/legacy', 'apps/web'], subdirs)).toEqual(['apps/web', 'packages/a', 'packages/b']);
    expect(await expandGlobs(['packages/**'], subdirs)).toEqual(['packages', 'packages/a', 'packages/b', 'packages/b/inner', 'packages/legacy']);
  });

  test('the fixture monorepo: its packages, the owner of a file, the filtered commands', async () => {
    const ws = (await readWorkspaces(FIXTURE))!;
    expect(ws.tool).toBe('npm');
    expect(ws.packages).toEqual([
      { dir: 'packages/a', name: '@mono/prices', testScript: 'jest' },
      { dir: 'packages/b', name: '@mono/names', testScript: 'vitest run' },
    ]);
    expect(owningPackage(ws, 'packages/a/src/total.js')?.dir).toBe('packages/a');
    expect(owningPackage(ws, 'package.json')).toBeNull();
    expect(packageTestCommand('npm', ws.packages[0])).toBe('npm test -w packages/a');
    expect(packageTestCommand('pnpm', ws.packages[0])).toBe('pnpm --filter @mono/prices test');
    expect(packageTestCommand('yarn', ws.packages[1])).toBe('yarn workspace @mono/names test');
  });

  test("related tests of a change in one package: that package's runner, in its directory; several packages: none", async () => {
    const info = await loadRunner(identifyRunner('npm test', 'npm test --workspaces --if-present'), FIXTURE, null);
    expect(info.runner).toBe('unknown');
    const all = ['packages/a/src/total.js', 'packages/a/test/total.test.js', 'packages/b/src/slug.js', 'packages/b/test/slug.test.js'];
    expect(planRelated(info, ['packages/a/src/total.js'], all, '/tmp/r.json')?.command).toBe("cd packages/a && npm test -- --findRelatedTests src/total.js --passWithNoTests --json --outputFile=/tmp/r.json");
    expect(planRelated(info, ['packages/b/src/slug.js'], all, '/tmp/r.json')?.command).toMatch(/^cd packages\/b && npx --no-install vitest related --run src\/slug\.js --passWithNoTests /);
    expect(planRelated(info, ['packages/a/src/total.js', 'packages/b/src/slug.js'], all, '/tmp/r.json')).toBeNull();
    expect(planRelated(info, ['package.json'], all, '/tmp/r.json')).toBeNull();
  });

  test("a CI step's filtered command names its package", () => {
    expect(filteredPackages('npm test -w packages/a')).toEqual(['packages/a']);
    expect(filteredPackages('npm run test --workspace=@mono/prices')).toEqual(['@mono/prices']);
    expect(filteredPackages("pnpm --filter '@mono/names' test")).toEqual(['@mono/names']);
    expect(filteredPackages('yarn workspace @mono/names test')).toEqual(['@mono/names']);
    expect(filteredPackages('npx turbo run test --filter=web')).toEqual(['web']);
    expect(filteredPackages('npx nx test api')).toEqual(['api']);
    expect(filteredPackages('npm test')).toEqual([]);
  });
});

describe('the fixture monorepo, run for real', () => {
  let base = '';
  let dir = '';
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', npm_config_update_notifier: 'false' });
  delete env.NODE_OPTIONS;
  delete env.JEST_WORKER_ID;
  const shell = makeShell();
  const exec = (command: string) => shell.run(command, { cwd: dir, timeoutMs: 120_000, env, maxOutputChars: 400_000 });
  const BROKEN = 'exports.total = (items) => items.reduce((sum, i) => sum + i.price, 0);\n';
  beforeAll(() => {
    base = mkdtempSync(path.join(tmpdir(), 'agent-fix-mono-'));
    dir = path.join(base, 'repo');
    cpSync(FIXTURE, dir, { recursive: true });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    writeFileSync(path.join(dir, 'packages/a/src/total.js'), BROKEN);
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  test("the root command's output is read package by package: jest's failure and vitest's file both seen", async () => {
    const r = await exec('npm test');
    expect(r.exitCode).not.toBe(0);
    const parsed = parseTestOutput(r.output);
    const byId = Object.fromEntries(parsed.tests.map((t) => [t.id, t.status]));
    expect(byId).toMatchObject({ 'test/total.test.js > sums quantities': 'failed', 'test/total.test.js > empty cart': 'passed' });
    expect(parsed.totals).toMatchObject({ failed: 1, passed: 2 });
    // with the workspaces known (the session's case), npm's banner names the package: ids carry its directory
    const ws = (await readWorkspaces(dir))!;
    const inPkg = Object.fromEntries(parseTestOutput(r.output, ws.packages).tests.map((t) => [t.id, t.status]));
    expect(inPkg).toMatchObject({ 'packages/a/test/total.test.js > sums quantities': 'failed', 'packages/a/test/total.test.js > empty cart': 'passed' });
    expect(Object.keys(inPkg).filter((id) => id.startsWith('test/'))).toEqual([]);
    const log = extractFailure(r.output.split('\n').map((l) => `2026-01-01T00:00:00.0000000Z ${l}`).join('\n'));
    expect(log.failingTests).toEqual(['test/total.test.js > sums quantities']);
    expect(log.failingPackages).toEqual(['@mono/prices']);
    expect(log.text).toContain('Failing workspace package(s) (test files above are relative to the package): @mono/prices');
  }, 60_000);

  test('a job that ran one package (`npm test -w packages/a`) maps back to it', async () => {
    const r = await exec('npm test -w packages/a');
    const log = extractFailure(['##[group]Run npm test -w packages/a', ...r.output.split('\n')].map((l) => `2026-01-01T00:00:00.0000000Z ${l}`).join('\n'));
    expect(log.failingTests).toEqual(['test/total.test.js > sums quantities']);
    expect(log.failingPackages).toEqual(['@mono/prices']);
  }, 60_000);

  test("pnpm's and yarn's prefixed output of two packages with the same test path (real jest and vitest runs): two tests, each with its package", async () => {
    // both packages get `test/index.test.js` with a failing test named `works`: a on jest, b on vitest
    const same = path.join(base, 'same');
    cpSync(dir, same, { recursive: true, filter: (src) => !src.includes('node_modules') });
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(same, 'node_modules'), 'dir');
    writeFileSync(path.join(same, 'packages/a/test/index.test.js'), "const { total } = require('../src/total.js');\ntest('works', () => { expect(total([{ price: 2, qty: 3 }])).toBe(6); });\n");
    writeFileSync(path.join(same, 'packages/b/test/index.test.js'), "import { test, expect } from 'vitest';\nimport { slug } from '../src/slug.js';\ntest('works', () => { expect(slug('A')).toBe('b'); });\n");
    const run = (pkg: string, cmd: string) => shell.run(`cd packages/${pkg} && ${cmd}`, { cwd: same, timeoutMs: 120_000, env, maxOutputChars: 400_000 });
    const a = await run('a', 'npx jest test/index.test.js');
    const b = await run('b', 'npx vitest run test/index.test.js');
    expect(a.exitCode).not.toBe(0);
    expect(b.exitCode).not.toBe(0);
    // pnpm -r test: each line prefixed with the package directory and the script, packages interleaved
    const pre = (p: string, out: string) => [`packages/${p} test$ ${p === 'a' ? 'jest' : 'vitest run'}`, ...out.trimEnd().split('\n').map((l) => `packages/${p} test: ${l}`)];
    const [la, lb] = [pre('a', a.output), pre('b', b.output)];
    const mixed: string[] = ['Scope: 2 of 3 workspace projects'];
    for (let i = 0; i < Math.max(la.length, lb.length); i++) mixed.push(...(la[i] !== undefined ? [la[i]] : []), ...(lb[i] !== undefined ? [lb[i]] : []));
    mixed.push('packages/a test: Failed', '/repo/packages/a:', ' ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @mono/prices@1.0.0 test: `jest`');
    const pnpm = parseTestOutput(mixed.join('\n'));
    expect(pnpm.tests.filter((t) => t.id.endsWith('works')).map((t) => [t.id, t.status]).sort()).toEqual([
      ['packages/a/test/index.test.js > works', 'failed'],
      ['packages/b/test/index.test.js > works', 'failed'],
    ]);
    expect(pnpm.totals).toMatchObject({ failed: 2 });
    // the same from a CI log of pnpm -r test: the failing test carries its package
    const log = extractFailure(mixed.map((l) => `2026-01-01T00:00:00.0000000Z ${l}`).join('\n'));
    expect([...log.failingTests].sort()).toEqual(['packages/a/test/index.test.js > works', 'packages/b/test/index.test.js > works']);
    // control: the lines without pnpm's prefixes merge the two packages' tests into one id
    const flat = parseTestOutput([...a.output.split('\n'), ...b.output.split('\n')].join('\n'));
    expect(flat.tests.filter((t) => t.id.endsWith('works')).map((t) => t.id)).toEqual(['test/index.test.js > works']);
    // yarn workspaces foreach -v: `[name]: ` prefixes, resolved to directories by the workspaces
    const yarn = [...a.output.trimEnd().split('\n').map((l) => `[@mono/prices]: ${l}`), ...b.output.trimEnd().split('\n').map((l) => `[@mono/names]: ${l}`)].join('\n');
    const ws = (await readWorkspaces(same))!;
    expect(parseTestOutput(yarn, ws.packages).tests.filter((t) => t.id.endsWith('works')).map((t) => [t.id, t.status]).sort()).toEqual([
      ['packages/a/test/index.test.js > works', 'failed'],
      ['packages/b/test/index.test.js > works', 'failed'],
    ]);
  }, 120_000);

  test("inside the loop: the owning package's related tests first (its jest, its directory), then the root command as the gate", async () => {
    writeFileSync(path.join(dir, 'packages/a/src/total.js'), readFileSync(path.join(FIXTURE, 'packages/a/src/total.js'), 'utf8'));
    try {
      const all = ['package.json', 'packages/a/package.json', 'packages/a/src/total.js', 'packages/a/test/total.test.js', 'packages/b/package.json', 'packages/b/src/slug.js', 'packages/b/test/slug.test.js'];
      const session = await TestSession.create({ root: dir, testCommand: 'npm test', exec, redactor: new Redactor(), changedFiles: async () => ['packages/a/src/total.js'], listFiles: async () => all });
      const { run, verdict } = await session.runForLoop();
      await session.dispose();
      const [related, gate] = session.commands;
      expect(related).toMatchObject({ purpose: 'related', exitCode: 0 });
      expect(related.command).toBe('cd packages/a && npm test -- --findRelatedTests src/total.js --passWithNoTests');
      expect(related.counts).toMatchObject({ passed: 2, failed: 0 });
      expect(gate).toMatchObject({ purpose: 'gate', command: 'npm test', exitCode: 0 });
      expect(verdict.ok).toBe(true);
      expect(run.counts.failed).toBe(0);
    } finally {
      writeFileSync(path.join(dir, 'packages/a/src/total.js'), BROKEN);
    }
  }, 120_000);
});
