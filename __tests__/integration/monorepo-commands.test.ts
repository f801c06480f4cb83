/**
 * Monorepos as maintainers run them (issue 31): workspace-filtered commands resolved to their
 * package and runner, the runner's root in test ids and related paths, the plain output of each
 * runner read per package (pnpm's `packages/a test: ` prefixes, turbo's `@scope/a:test: `, a
 * filtered run's banner), and verdicts that follow their evidence.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { compareRuns } from '../../src/verify/compare.js';
import { configuredRoot } from '../../src/verify/runner-root.js';
import { identifyRunner, loadRunner, parseTestOutput, planFiles, planRelated, planStructured } from '../../src/verify/runners/index.js';
import type { TestRun, TestStatus } from '../../src/verify/types.js';
import { testRun } from '../../test-support/builders.js';
import { parseWorkspaceCommand, resolveTargets, rootScriptCommand, selects } from '../../src/verify/workspace-command.js';
import { extractFailure } from '../../src/ci/log-extract.js';
import { resolveFrames } from '../../src/verify/session.js';
import { selectionOptions } from '../../src/verify/runners/vitest.js';

describe('parseWorkspaceCommand: each form a maintainer writes', () => {
  const cases: [string, Partial<ReturnType<typeof parseWorkspaceCommand>>][] = [
    ['pnpm --filter @x/dom test', { tool: 'pnpm', selectors: ['@x/dom'], all: false, script: 'test', appendBase: 'pnpm --filter @x/dom test --' }],
    ['CI=true pnpm -F @x/dom run test', { tool: 'pnpm', env: 'CI=true ', selectors: ['@x/dom'], script: 'test', appendBase: 'CI=true pnpm -F @x/dom run test' }],
    ['pnpm --filter=@x/dom --filter @x/core --no-bail test', { selectors: ['@x/dom', '@x/core'], script: 'test' }],
    ['pnpm -r test', { tool: 'pnpm', all: true, selectors: [], script: 'test' }],
    // `pnpm run` passes arguments on as they are (a `--` would reach the script literally)
    ['pnpm run -r test:unit', { tool: 'pnpm', all: true, script: 'test:unit', appendBase: 'pnpm run -r test:unit' }],
    ['pnpm --filter @x/dom exec vitest run', { tool: 'pnpm', selectors: ['@x/dom'], script: null, exec: 'vitest run', appendBase: 'pnpm --filter @x/dom exec vitest run' }],
    ['pnpm -C packages/dom test', { selectors: ['packages/dom'], script: 'test' }],
    ['yarn workspace @x/dom test', { tool: 'yarn', selectors: ['@x/dom'], script: 'test', appendBase: 'yarn workspace @x/dom test' }],
    ['yarn workspace @x/dom run test:unit', { tool: 'yarn', selectors: ['@x/dom'], script: 'test:unit' }],
    ['yarn workspaces foreach -A -v run test', { tool: 'yarn', all: true, script: 'test' }],
    ['npm test -w packages/dom', { tool: 'npm', selectors: ['packages/dom'], script: 'test', appendBase: 'npm test -w packages/dom --' }],
    ['npm run test --workspace=@x/dom', { tool: 'npm', selectors: ['@x/dom'], script: 'test' }],
    ['npm test --workspaces', { tool: 'npm', all: true, script: 'test' }],
    ['turbo run test --filter=@x/dom', { tool: 'turbo', selectors: ['@x/dom'], script: 'test', appendBase: 'turbo run test --filter=@x/dom --' }],
    ['npx turbo test', { tool: 'turbo', all: true, script: 'test' }],
    ['pnpm turbo run test --filter @x/dom', { tool: 'turbo', selectors: ['@x/dom'] }],
    ['nx test dom', { tool: 'nx', selectors: ['dom'], script: 'test', appendBase: null }],
    ['npx nx run dom:test', { tool: 'nx', selectors: ['dom'], script: 'test' }],
    ['nx run-many -t test -p dom,core', { tool: 'nx', selectors: ['dom', 'core'], script: 'test' }],
  ];
  test.each(cases)('%s', (command, expected) => {
    expect(parseWorkspaceCommand(command)).toMatchObject(expected as object);
  });
  test.each(['pnpm test', 'npm test', 'npx vitest run', 'pnpm install && pnpm --filter a test', 'yarn test', 'pnpm --filter a build'])('not a workspace test command: %s', (command) => {
    expect(parseWorkspaceCommand(command)).toBeNull();
  });
  test('a root script that is a workspace command (`pnpm run test` -> `turbo test`)', () => {
    expect(rootScriptCommand('pnpm run test', { test: 'turbo test' })).toBe('turbo test');
    expect(rootScriptCommand('CI=true pnpm test', { test: 'pnpm -r test' })).toBe('CI=true pnpm -r test');
    expect(rootScriptCommand('pnpm install', { install: 'x' })).toBeNull();
  });
  test('selectors: names, directories, globs, pnpm graph marks', () => {
    const p = { dir: 'packages/dom', name: '@x/dom' };
    for (const s of ['@x/dom', '@x/*', './packages/dom', 'packages/*', '{packages/dom}', '@x/dom...', '...@x/dom', 'dom']) expect(selects(s, p)).toBe(true);
    for (const s of ['@x/core', 'packages/core', '@y/*']) expect(selects(s, p)).toBe(false);
  });
  test('resolveTargets: the selected packages that have the script; -r every one that has it; ! excludes', () => {
    const pkgs = [
      { dir: 'packages/dom', name: '@x/dom' },
      { dir: 'packages/core', name: '@x/core' },
      { dir: 'website', name: 'website' },
    ];
    const scripts: Record<string, Record<string, unknown>> = { 'packages/dom': { test: 'vitest run' }, 'packages/core': { test: 'jest' }, website: { build: 'x' } };
    expect(resolveTargets(parseWorkspaceCommand('pnpm --filter @x/dom test')!, pkgs, (d) => scripts[d]).map((p) => p.dir)).toEqual(['packages/dom']);
    expect(resolveTargets(parseWorkspaceCommand('pnpm -r test')!, pkgs, (d) => scripts[d]).map((p) => [p.dir, p.script])).toEqual([
      ['packages/dom', 'vitest run'],
      ['packages/core', 'jest'],
    ]);
    expect(resolveTargets(parseWorkspaceCommand("pnpm --filter '@x/*' --filter '!@x/core' test")!, pkgs, (d) => scripts[d]).map((p) => p.dir)).toEqual(['packages/dom']);
    expect(resolveTargets(parseWorkspaceCommand('pnpm --filter @x/core exec jest --ci')!, pkgs, () => undefined)).toEqual([{ dir: 'packages/core', name: '@x/core', script: 'jest --ci' }]);
  });
});

describe("the runner's configured root", () => {
  test('vitest: test.root over vite root; computed values are not guessed', () => {
    const cfg = `import {defineViteConfig} from 'config';\nexport default defineViteConfig({\n  server: {port: 1234},\n  root: './test/visual',\n  test: {\n    environment: 'jsdom',\n    root: './test/unit',\n    browser: {enabled: false, instances: [{browser: 'chromium'}]},\n  },\n});\n`;
    expect(configuredRoot('vitest', cfg)).toBe('test/unit');
    expect(configuredRoot('vitest', `export default defineConfig({ root: 'src', test: { environment: 'node' } })`)).toBe('src');
    expect(configuredRoot('vitest', `export default defineConfig({ test: { root: path.join(__dirname, 'x') } })`)).toBeNull();
    expect(configuredRoot('vitest', `export default defineConfig({ test: { include: ['test/**/*.test.ts'] } })`)).toBeNull();
    // a nested `root` (a browser provider's option) is not the test root
    expect(configuredRoot('vitest', `export default defineConfig({ test: { browser: { root: 'nested' } } })`)).toBeNull();
  });
  test('jest: rootDir, with or without <rootDir>', () => {
    expect(configuredRoot('jest', `module.exports = { rootDir: 'src', testEnvironment: 'node' };`)).toBe('src');
    expect(configuredRoot('jest', `{ "rootDir": "<rootDir>/lib" }`)).toBe('lib');
    expect(configuredRoot('jest', `module.exports = { roots: ['<rootDir>/test'] };`)).toBeNull();
  });
});

// ------------------------------------------------------------------------------- plain outputs

const PACKAGES = [
  { dir: 'packages/dom', name: '@x/dom', testRoot: 'test/unit' },
  { dir: 'packages/core', name: '@x/core' },
];
const ROOT = '/home/u/mono';

/** vitest 4's default reporter: a failing file's tests listed, passing files by name and count only. */
function vitestDefault(root: string, fixed: boolean): string[] {
  return [
    ` RUN  v4.1.9 ${root}`,
    '',
    fixed ? ' ✓ rect.test.ts (3 tests) 12ms' : ' ❯ rect.test.ts (3 tests | 1 failed) 40ms',
    ...(fixed ? [] : ['   ✓ keeps the width 3ms', '   × subtracts the gutter 2ms', '   ✓ caps the gutter 1ms']),
    ' ✓ offset.test.ts (2 tests) 4ms',
    ' ↓ auto.test.ts (2 tests | 2 skipped)',
    '',
    ...(fixed ? [] : ['⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯', '', ' FAIL  rect.test.ts > subtracts the gutter', 'AssertionError: expected 800 to be 785', ' ❯ rect.test.ts:12:22', '']),
    ` Test Files  ${fixed ? '2 passed' : '1 failed | 1 passed'} | 1 skipped (3)`,
    `      Tests  ${fixed ? '5 passed' : '1 failed | 4 passed'} | 2 skipped (7)`,
  ];
}

describe('vitest default reporter in a workspace: ids from its root, passing files as evidence', () => {
  const id = 'packages/dom/test/unit/rect.test.ts > subtracts the gutter';
  test('`pnpm --filter @x/dom test`: the banner, the root vitest names (absolute under the repository)', () => {
    const out = ['', `> @x/dom@1.0.0 test ${ROOT}/packages/dom`, '> vitest run', '', ...vitestDefault(`${ROOT}/packages/dom/test/unit`, false)].join('\n');
    const r = parseTestOutput(out, PACKAGES, { root: ROOT });
    expect(r.tests.filter((t) => t.status === 'failed').map((t) => t.id)).toEqual([id]);
    expect(r.passedFiles).toEqual(['packages/dom/test/unit/offset.test.ts']);
    const fixed = parseTestOutput(['', `> @x/dom@1.0.0 test ${ROOT}/packages/dom`, '> vitest run', '', ...vitestDefault(`${ROOT}/packages/dom/test/unit`, true)].join('\n'), PACKAGES, { root: ROOT });
    expect(fixed.tests).toEqual([]);
    expect(fixed.passedFiles).toEqual(['packages/dom/test/unit/rect.test.ts', 'packages/dom/test/unit/offset.test.ts']);
    expect(fixed.totals).toEqual({ passed: 5, failed: 0, skipped: 2 });
  });
  test('without the RUN line, the configured root of the package (and the one package a filtered command ran)', () => {
    const out = vitestDefault('', false).slice(1).join('\n');
    expect(parseTestOutput(out, PACKAGES, { only: PACKAGES[0] }).tests.find((t) => t.status === 'failed')?.id).toBe(id);
  });
  test("`pnpm -r test`: pnpm's prefixes, each package from its own root", () => {
    const dom = vitestDefault(`${ROOT}/packages/dom/test/unit`, false).map((l) => `packages/dom test: ${l}`);
    const core = vitestDefault(`${ROOT}/packages/core`, true).map((l) => `packages/core test: ${l}`);
    const out = ['Scope: 2 of 3 workspace projects', 'packages/core test$ vitest run', ...core, 'packages/core test: Done', 'packages/dom test$ vitest run', ...dom, 'packages/dom test: Failed'].join('\n');
    const r = parseTestOutput(out, PACKAGES, { root: ROOT });
    expect(r.tests.filter((t) => t.status === 'failed').map((t) => t.id)).toEqual([id]);
    expect(r.passedFiles).toEqual(expect.arrayContaining(['packages/core/rect.test.ts', 'packages/dom/test/unit/offset.test.ts']));
    // without the workspaces known (a CI log): the same ids, from the roots vitest names
    expect(parseTestOutput(out, undefined, { root: ROOT }).tests.filter((t) => t.status === 'failed').map((t) => t.id)).toEqual([id]);
  });
  test("turbo's `@x/dom:test: ` prefixes", () => {
    const out = [
      '• Running test in 2 packages',
      '@x/dom:test: cache bypass, force executing 2003a9731845e87f',
      '@x/dom:test: ',
      `@x/dom:test: > @x/dom@1.0.0 test ${ROOT}/packages/dom`,
      ...vitestDefault(`${ROOT}/packages/dom/test/unit`, false).map((l) => `@x/dom:test: ${l}`),
      ' Tasks:    1 successful, 2 total',
      'Failed:    @x/dom#test',
    ].join('\n');
    expect(parseTestOutput(out, PACKAGES, { root: ROOT }).tests.filter((t) => t.status === 'failed').map((t) => t.id)).toEqual([id]);
  });
  test("a CI log: the runner's checkout elsewhere, the root found by the package directory it ends in", () => {
    const out = vitestDefault('/home/runner/work/mono/mono/packages/dom/test/unit', false).join('\n');
    expect(parseTestOutput(out, PACKAGES).tests.find((t) => t.status === 'failed')?.id).toBe(id);
  });
});

describe('other runners in a workspace, with and without prefixes: the same results, ids with the package', () => {
  const prefixed = (lines: string[], dir: string) => [`${dir} test$ run`, ...lines.map((l) => `${dir} test: ${l}`), `${dir} test: Failed`].join('\n');
  const forms: [string, string[], string][] = [
    [
      'jest',
      ['PASS test/ok.test.js', 'FAIL test/sum.test.js', '  ● sums › adds quantities', '', '    expect(received).toBe(expected)', '', 'Tests:       1 failed, 3 passed, 4 total'],
      'packages/core/test/sum.test.js > sums > adds quantities',
    ],
    ['mocha', ['', '  sums', '    ✔ adds', '    1) multiplies', '', '', '  1 passing (5ms)', '  1 failing', '', '  1) sums', '       multiplies:', '     AssertionError: expected 2 to equal 6', ''], 'sums > multiplies'],
    ['node:test', ['TAP version 13', '# Subtest: adds', 'ok 1 - adds', '# Subtest: multiplies', 'not ok 2 - multiplies', '  ---', "  error: 'expected 6'", '  ...', '1..2', '# tests 2', '# pass 1', '# fail 1'], 'multiplies'],
    ['tap', ['TAP version 14', 'ok 1 - adds', 'not ok 2 - multiplies', '  ---', '  found: 2', '  wanted: 6', '  ...', '1..2'], 'multiplies'],
    [
      'pytest',
      ['============================= test session starts ==============================', 'collected 2 items', '', 'tests/test_sum.py .F                                                     [100%]', '', '=========================== short test summary info ============================', 'FAILED tests/test_sum.py::test_multiplies - assert 2 == 6', '========================= 1 failed, 1 passed in 0.02s =========================='],
      'packages/core/tests/test_sum.py::test_multiplies',
    ],
  ];
  test.each(forms)('%s', (_runner, lines, failing) => {
    const plain = parseTestOutput(lines.join('\n'), undefined, { only: PACKAGES[1] });
    const withPrefix = parseTestOutput(prefixed(lines, 'packages/core'), PACKAGES);
    const failed = (r: typeof plain) => r.tests.filter((t) => t.status === 'failed').map((t) => t.id);
    expect(failed(withPrefix)).toContain(failing);
    expect(failed(plain)).toEqual(failed(withPrefix));
    expect(plain.totals ?? null).toEqual(withPrefix.totals ?? null);
  });
  test("jest's PASS lines are passing files", () => {
    expect(parseTestOutput(prefixed(['PASS test/ok.test.js', 'Tests:       2 passed, 2 total'], 'packages/core'), PACKAGES).passedFiles).toEqual(['packages/core/test/ok.test.js']);
  });
});

// ------------------------------------------------------------------------------- verdicts

function run(exitCode: number, tests: Record<string, TestStatus>, over: Partial<TestRun> = {}): TestRun {
  const list = Object.entries(tests).map(([id, status]) => ({ id, status, file: id.split(' > ')[0] }));
  return testRun(exitCode, list, { command: 'pnpm --filter @x/dom test', succeeded: exitCode === 0, parsedFrom: 'vitest', ...over });
}

describe('a verdict never contradicts its evidence', () => {
  const F = 'packages/dom/test/unit/rect.test.ts';
  test("the issue's case: 16 → 17 passing, 1 → 0 failing, exit 1 → 0, no test named in the new run: fixed", () => {
    const baseline = run(1, { [`${F} > keeps`]: 'passed', [`${F} > subtracts`]: 'failed' }, { counts: { passed: 16, failed: 1, skipped: 2 } });
    const current = run(0, {}, { counts: { passed: 17, failed: 0, skipped: 2 }, passedFiles: [F] });
    const v = compareRuns(baseline, current);
    expect(v.ok).toBe(true);
    expect(v.nowPassing).toEqual([`${F} > subtracts`]);
    expect(v.summary).not.toContain('no tests recognised');
  });
  test('the new run really ran nothing: still refused', () => {
    const baseline = run(1, { [`${F} > keeps`]: 'passed', [`${F} > subtracts`]: 'failed' });
    const v = compareRuns(baseline, run(0, {}));
    expect(v.ok).toBe(false);
    expect(v.summary).toContain('no tests recognised in the new run');
  });
  test('an excused failure keeps the exit code at 1: the fixed test is seen passing by its file', () => {
    const other = 'packages/core/test/locale.test.ts > formats';
    const baseline = run(1, { [`${F} > subtracts`]: 'failed', [other]: 'failed' });
    const current = run(1, { [other]: 'failed' }, { passedFiles: [F] });
    const v = compareRuns(baseline, current, { preexisting: 'allow' });
    expect(v.nowPassing).toEqual([`${F} > subtracts`]);
    expect(v.unseen).toBeUndefined();
  });
  test('no evidence either way: the verdict says what is missing', () => {
    const other = 'packages/core/test/locale.test.ts > formats';
    const baseline = run(1, { [`${F} > subtracts`]: 'failed', [other]: 'failed' });
    const v = compareRuns(baseline, run(1, { [other]: 'failed' }), { preexisting: 'allow' });
    expect(v.ok).toBe(false);
    expect(v.unseen).toEqual([`${F} > subtracts`]);
    expect(v.summary).toContain('1 test failing before is not named by the new run');
  });
});

// ------------------------------------------------------------------------------- commands composed on a real tree

describe('a workspace command on a real pnpm workspace tree', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-mono-'));
    const write = (f: string, text: string) => {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), text);
    };
    write('package.json', JSON.stringify({ name: 'root', private: true, scripts: { test: 'turbo test' } }));
    write('pnpm-workspace.yaml', 'packages:\n  - packages/*\n');
    write('packages/dom/package.json', JSON.stringify({ name: '@x/dom', scripts: { test: 'vitest run' } }));
    write('packages/dom/vite.config.mts', "export default defineConfig({ root: './test/visual', test: { root: './test/unit' } });\n");
    write('packages/core/package.json', JSON.stringify({ name: '@x/core', scripts: { test: 'jest' } }));
    write('packages/core/jest.config.js', "module.exports = { rootDir: 'src' };\n");
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const load = async (command: string) => loadRunner(identifyRunner(command, 'turbo test'), dir, { scripts: { test: 'turbo test' } }, command);

  test('`pnpm --filter @x/dom test`: vitest, its JSON report through pnpm, related tests from its root', async () => {
    const info = await load('pnpm --filter @x/dom test');
    expect(info.runner).toBe('vitest');
    expect(info.target?.packages).toEqual([{ dir: 'packages/dom', name: '@x/dom', script: 'vitest run', runner: 'vitest', testRoot: 'test/unit' }]);
    expect(planStructured('pnpm --filter @x/dom test', info, '/tmp/r.json').command).toBe('pnpm --filter @x/dom test -- --reporter=default --reporter=json --outputFile.json=/tmp/r.json');
    const related = planRelated(info, ['packages/dom/src/utils/rect.ts'], ['packages/dom/src/utils/rect.ts', 'packages/dom/test/unit/rect.test.ts'], '/tmp/r.json');
    expect(related?.command).toBe('cd packages/dom && npx --no-install vitest related --run ../../src/utils/rect.ts --passWithNoTests --reporter=default --reporter=json --outputFile.json=/tmp/r.json');
    expect(planFiles(info, ['packages/dom/test/unit/rect.test.ts'], '/tmp/r.json')?.command).toBe('cd packages/dom && npx --no-install vitest run rect.test.ts --reporter=default --reporter=json --outputFile.json=/tmp/r.json');
    expect(info.workspace?.packages.find((p) => p.dir === 'packages/dom')?.testRoot).toBe('test/unit');
  });
  test('`pnpm --filter @x/dom exec vitest run`, `yarn workspace`, `npm -w`, turbo with a filter: the package and its runner', async () => {
    expect((await load('pnpm --filter @x/dom exec vitest run')).runner).toBe('vitest');
    expect((await load('CI=true pnpm --filter @x/core test')).base).toBe('CI=true pnpm --filter @x/core test --');
    expect((await load('npm test -w packages/core')).runner).toBe('jest');
    expect((await load('turbo run test --filter=@x/core')).target?.packages[0].testRoot).toBe('src');
    // nx passes no arguments on: the runner known, no report flags
    const nx = await load('nx test @x/dom');
    expect([nx.runner, nx.base]).toEqual(['vitest', null]);
  });
  test('`pnpm run test` (the root script `turbo test`) and `pnpm -r test`: every package, read package by package; related tests in the owning package', async () => {
    for (const command of ['pnpm run test', 'pnpm -r test']) {
      const info = await load(command);
      expect(info.base).toBeNull();
      expect(info.target?.packages.map((p) => p.runner)).toEqual(['jest', 'vitest']);
      expect(planRelated(info, ['packages/core/src/sum.js'], ['packages/core/src/sum.js'], '/tmp/r.json')?.command).toBe(
        'cd packages/core && pnpm test -- --findRelatedTests src/sum.js --passWithNoTests --json --outputFile=/tmp/r.json',
      );
    }
  });
});

describe('CI: the failing job of a workspace command names its package', () => {
  const framed = (command: string, lines: string[]) =>
    [`2026-12-01T10:00:00.0000000Z ##[group]Run ${command}`, '2026-12-01T10:00:00.0000000Z ##[endgroup]', ...lines.map((l) => `2026-12-01T10:00:01.0000000Z ${l}`)].join('\n');
  const dom = vitestDefault('/home/runner/work/mono/mono/packages/dom/test/unit', false);
  const id = 'packages/dom/test/unit/rect.test.ts > subtracts the gutter';
  test('pnpm --filter', () => {
    const x = extractFailure(framed('pnpm --filter @x/dom test', ['> @x/dom@1.0.0 test /home/runner/work/mono/mono/packages/dom', ...dom]), { repoName: 'mono' });
    expect(x.failingPackages).toEqual(['@x/dom']);
    expect(x.failingTests).toEqual([id]);
  });
  test("turbo (the root's `pnpm run test`)", () => {
    const x = extractFailure(framed('pnpm run test', ['@x/dom:test: cache bypass, force executing 1', ...dom.map((l) => `@x/dom:test: ${l}`), 'Failed:    @x/dom#test']), { repoName: 'mono' });
    expect(x.failingPackages).toEqual(['@x/dom']);
    expect(x.failingTests).toEqual([id]);
  });
  test("turbo under GitHub Actions: `::group::` per task, no prefixes, banners' paths made relative by the log reader", () => {
    const group = (name: string, dir: string, root: string, fixed: boolean) => [`::group::${name}:test`, 'cache bypass, force executing 1', '', `> ${name}@1.0.0 test /home/runner/work/mono/mono/${dir}`, '> vitest run', '', ...vitestDefault(`/home/runner/work/mono/mono/${root}`, fixed), '::endgroup::'];
    const lines = [...group('@x/core', 'packages/core', 'packages/core', true), ...group('@x/dom', 'packages/dom', 'packages/dom/test/unit', false), '::error::@x/dom#test: command (/home/runner/work/mono/mono/packages/dom) pnpm run test exited (1)', ' ERROR  @x/dom#test: command (/home/runner/work/mono/mono/packages/dom) pnpm run test exited (1)', 'Failed:    @x/dom#test'];
    const x = extractFailure(framed('pnpm run test', lines), { repoName: 'mono' });
    expect(x.failingPackages).toEqual(['@x/dom']);
    expect(x.failingTests).toEqual([id]);
  });
  test('pnpm -r --no-bail (its summary names the package)', () => {
    const x = extractFailure(framed('pnpm -r --no-bail test', ['packages/dom test$ vitest run', ...dom.map((l) => `packages/dom test: ${l}`), 'Summary: 1 fails, 1 passes', '', '/home/runner/work/mono/mono/packages/dom:', ' ERROR  @x/dom@1.0.0 test: `vitest run`', 'Exit status 1']), { repoName: 'mono' });
    expect(x.failingPackages).toEqual(['@x/dom']);
    expect(x.failingTests).toEqual([id]);
  });
});

describe("a failure's frame printed from the runner's root", () => {
  test('is made repo-relative beside the test file (vitest root test/unit)', () => {
    const files = ['packages/dom/test/unit/rect.test.ts', 'packages/dom/src/rect.ts', 'packages/core/test/rect.test.ts'];
    const [t] = resolveFrames([{ id: 'packages/dom/test/unit/rect.test.ts > subtracts', status: 'failed', frame: 'rect.test.ts:12:22' }], files);
    expect(t.frame).toBe('packages/dom/test/unit/rect.test.ts:12:22');
  });
});

describe('vitest selections from a script with options (`vitest --coverage run`)', () => {
  test('the configuration options are kept, the full run’s dropped; file filters or separate values: no selection', () => {
    expect(selectionOptions('vitest run')).toEqual([]);
    expect(selectionOptions('vitest --coverage run')).toEqual([]);
    expect(selectionOptions('vitest run --typecheck --project=unit --config=vitest.unit.ts')).toEqual(['--project=unit', '--config=vitest.unit.ts']);
    expect(selectionOptions('vitest run test/a.test.ts')).toBeNull();
    expect(selectionOptions('vitest run --project unit')).toBeNull();
    expect(selectionOptions('jest')).toBeNull();
  });
  test('related tests of `pnpm run -r test:unit` whose one package runs `vitest --coverage run`', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-mono-'));
    try {
      writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ private: true, scripts: { test: 'pnpm run -r test:unit' } }));
      writeFileSync(path.join(dir, 'pnpm-workspace.yaml'), 'packages:\n  - packages/*\n');
      mkdirSync(path.join(dir, 'packages', 'router'), { recursive: true });
      mkdirSync(path.join(dir, 'packages', 'docs'), { recursive: true });
      writeFileSync(path.join(dir, 'packages', 'router', 'package.json'), JSON.stringify({ name: 'router', scripts: { 'test:unit': 'vitest --coverage run' } }));
      writeFileSync(path.join(dir, 'packages', 'docs', 'package.json'), JSON.stringify({ name: 'docs', scripts: { build: 'x' } }));
      const info = await loadRunner(identifyRunner('pnpm run -r test:unit', null), dir, null, 'pnpm run -r test:unit');
      expect(info.runner).toBe('vitest');
      expect(planStructured('pnpm run -r test:unit', info, '/tmp/r.json').command).toBe('pnpm run -r test:unit --reporter=default --reporter=json --outputFile.json=/tmp/r.json');
      expect(planRelated(info, ['packages/router/src/a.ts'], ['packages/router/src/a.ts'], '/tmp/r.json')?.command).toBe(
        'cd packages/router && npx --no-install vitest related --run src/a.ts --passWithNoTests --reporter=default --reporter=json --outputFile.json=/tmp/r.json',
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
