/**
 * End to end, an npm workspace with two packages on two runners (issue 22, part 3): the bundled
 * action under node 24, the fake GitHub API and the scripted model, on a real repository
 * (__tests__/fixtures/stacks-monorepo: packages/a on jest, packages/b on vitest; the root's `test`
 * runs every workspace), as npm workspaces and as a real pnpm workspace (pnpm from the npm registry,
 * .cache/pnpm; skipped with a message when absent).
 *
 * Issue mode: the bug is in packages/a; the loop's related tests are that package's, through its
 * own jest in its directory, and the gate is the root command, whose output is read package by
 * package. CI mode: the failing job ran one package (`npm test -w packages/a`); the model is told
 * which package failed, the failure is reproduced by test identity from the root command here,
 * and fixed.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScript } from '../../src/scripted/script.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { jobLog, realRun, repairCiRun, repairIssue, ROOT } from '../../test-support/ci-repair.js';

const FIXTURE = path.join(ROOT, '__tests__', 'fixtures', 'stacks-monorepo');
const read = (p: string) => readFileSync(path.join(FIXTURE, p), 'utf8');
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

// a node_modules of links, not one link to the shared one: the sandbox keeps what lies outside the
// checkout read-only, and vitest writes its cache under node_modules/.vite
const SETUP = `mkdir -p node_modules && ln -sfn ${path.join(ROOT, 'node_modules')}/* ${path.join(ROOT, 'node_modules')}/.bin node_modules/`;
const GOOD = read('packages/a/src/total.js');
const BROKEN = GOOD.replace('sum + i.price * i.qty', 'sum + i.price');
const FILES: Record<string, string> = {
  'package.json': read('package.json'),
  '.gitignore': read('gitignore.txt'),
  'packages/a/package.json': read('packages/a/package.json'),
  'packages/a/src/total.js': GOOD,
  'packages/a/test/total.test.js': read('packages/a/test/total.test.js'),
  'packages/b/package.json': read('packages/b/package.json'),
  'packages/b/vitest.config.mjs': read('packages/b/vitest.config.mjs'),
  'packages/b/src/slug.js': read('packages/b/src/slug.js'),
  'packages/b/test/slug.test.js': read('packages/b/test/slug.test.js'),
};
const script = (label: string, expectText: string) =>
  parseScript({
    label,
    steps: [
      { expect: { lastMessageIncludes: expectText }, toolCalls: [{ name: 'read_file', arguments: { path: 'packages/a/src/total.js' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'packages/a/src/total.js', content: GOOD } }] },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Multiply each price by its quantity again.' } }] },
    ],
  });

test("issue mode: related tests of the owning package through its own runner, the root command as the gate (dist/index.js under node 24)", async () => {
  expect(BROKEN).not.toBe(GOOD);
  const { r, github, model, repo } = await repairIssue(open, {
    repo: 'mono',
    files: FILES,
    broken: { 'packages/a/src/total.js': BROKEN },
    script: script('monorepo issue', 'total'),
    title: 'Cart total ignores quantities',
    body: 'total([{ price: 2, qty: 3 }]) is 2, not 6.',
    inputs: { 'setup-command': SETUP, 'test-command': 'npm test' },
  });
  expect(model.mismatches).toEqual([]);
  expect(r.outputs.status).toBe('fixed');
  github.assertNoViolations();
  const body = github.pulls[0].body;
  expect(body).toContain('| `packages/a/test/total.test.js > sums quantities` | failed | passed |');
  expect(body).toMatch(/\| related tests \(inside the loop\) \| `cd packages\/a && npm test -- --findRelatedTests src\/total\.js test\/total\.test\.js --passWithNoTests` \| 0 \| 2 \| 0 \|/);
  expect(body).toMatch(/\| full suite \(gate\) \| `npm test` \| 0 \| 3 \| 0 \|/);
  expect(execFileSync('git', ['--git-dir', repo.remoteDir, 'show', `${r.outputs.branch}:packages/a/src/total.js`], { encoding: 'utf8' })).toBe(GOOD);
}, 240_000);

test('CI mode: the failing job ran one package; the model is told which, the failure is reproduced by identity and fixed', async () => {
  const { r, github, model } = await repairCiRun(open, {
    repo: 'mono',
    files: FILES,
    broken: { 'packages/a/src/total.js': BROKEN },
    script: script('monorepo ci', 'Failing workspace package(s) (test files above are relative to the package): @mono/prices'),
    inputs: { 'setup-command': SETUP, 'test-command': 'npm test' },
    log: (url) => {
      const { output, dir } = realRun(url, 'npm test -w packages/a', { modules: path.join(ROOT, 'node_modules') });
      expect(output).toContain('> @mono/prices@1.0.0 test');
      return jobLog('mono', 'npm test -w packages/a', output, dir);
    },
  });
  expect(model.mismatches).toEqual([]);
  expect(r.outputs.status).toBe('fixed');
  github.assertNoViolations();
  expect(github.pulls[0].body).toContain('**Reproduced here** (evidence: the same tests fail here (matched by test identity');
  expect(r.stdout).toMatch(/Reproduction: reproduced \(evidence: test-identity\)/);
}, 240_000);

// pnpm from the npm registry (.ci/run installs it into .cache/pnpm; best effort)
const PNPM_BIN = path.join(ROOT, '.cache', 'pnpm', 'node_modules', '.bin');
const pnpmTest = existsSync(path.join(PNPM_BIN, 'pnpm')) ? test : test.skip;
if (!existsSync(path.join(PNPM_BIN, 'pnpm'))) console.warn(`pnpm is not installed at ${PNPM_BIN} (.ci/run installs it): the pnpm workspace e2e is skipped`);

pnpmTest('a real pnpm workspace (pnpm-workspace.yaml, root `pnpm -r test`), jest and vitest packages: the prefixed output read per package, the fix proven with the package in its id', async () => {
  const root = JSON.parse(read('package.json')) as { workspaces?: unknown; scripts: Record<string, string> };
  delete root.workspaces;
  root.scripts = { test: 'pnpm -r test' };
  const files = { ...FILES, 'package.json': JSON.stringify(root, null, 2), 'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n" };
  const saved = process.env.PATH;
  process.env.PATH = `${PNPM_BIN}:${saved ?? ''}`;
  try {
    const { r, github, model } = await repairIssue(open, {
      repo: 'mono',
      files,
      broken: { 'packages/a/src/total.js': BROKEN },
      script: script('pnpm monorepo issue', 'total'),
      title: 'Cart total ignores quantities',
      body: 'total([{ price: 2, qty: 3 }]) is 2, not 6.',
      inputs: { 'setup-command': SETUP, 'test-command': 'pnpm test' },
    });
    if (r.outputs.status !== 'fixed') console.log(r.stdout.slice(-6000), r.summary.slice(0, 3000));
    expect(model.mismatches).toEqual([]);
    expect(r.outputs.status).toBe('fixed');
    github.assertNoViolations();
    const body = github.pulls[0].body;
    // pnpm's `packages/a test: ` lines: the failing jest test is found, with its package
    expect(body).toContain('| `packages/a/test/total.test.js > sums quantities` | failed | passed |');
    expect(body).toMatch(/\| related tests \(inside the loop\) \| `cd packages\/a && [^`]*src\/total\.js[^`]*` \| 0 \|/);
    expect(body).toMatch(/\| full suite \(gate\) \| `pnpm test` \| 0 \|/);
  } finally {
    process.env.PATH = saved;
  }
}, 240_000);
