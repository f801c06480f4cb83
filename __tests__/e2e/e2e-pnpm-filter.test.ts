/**
 * End to end (issue 31): a real pnpm workspace run the way its maintainers run it, through the
 * bundled action under node 24, sandbox as configured: the test command `pnpm --filter @mono/dom
 * test`, the package's vitest with its default reporter and `root: './test/unit'` (a vite `root`
 * elsewhere). The harness knows the package and its runner from the command, asks that vitest
 * for its JSON report through pnpm, runs the related tests from the package's vitest root
 * (selecting the failing test), and its test ids carry the real path
 * (`packages/dom/test/unit/rect.test.js`). CI mode: the failing job's log of the same filtered
 * command names the package and its test.
 *
 * pnpm: from the npm registry (.cache/pnpm, installed by .ci/run; skipped with a message when
 * absent), on PATH; and laid out as pnpm/action-setup leaves it (`~/setup-pnpm/node_modules/.bin/pnpm`,
 * a shim running `../pnpm/bin/pnpm.cjs`, `PNPM_HOME` set) under a fake HOME.
 */
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { stripVTControlCharacters } from 'node:util';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseScript } from '../../src/scripted/script.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { jobLog, realRun, repairCiRun, repairIssue, ROOT } from '../../test-support/ci-repair.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

const PNPM_BIN = path.join(ROOT, '.cache', 'pnpm', 'node_modules', '.bin');
const havePnpm = existsSync(path.join(PNPM_BIN, 'pnpm'));
const pnpmTest = havePnpm ? test : test.skip;
if (!havePnpm) console.warn(`pnpm is not installed at ${PNPM_BIN} (.ci/run installs it): the pnpm --filter e2e is skipped`);

// node_modules of links to agent-fix's own (vitest among them), made by the setup command
const SETUP = `mkdir -p node_modules && ln -sfn ${path.join(ROOT, 'node_modules')}/* ${path.join(ROOT, 'node_modules')}/.bin node_modules/`;
const GOOD = 'export function innerWidth(width, gutter) {\n  return width - gutter;\n}\n';
const BROKEN = 'export function innerWidth(width, gutter) {\n  return width;\n}\n';
const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'mono', private: true, scripts: { test: 'pnpm -r test' } }, null, 2),
  'pnpm-workspace.yaml': "packages:\n  - 'packages/*'\n",
  '.gitignore': 'node_modules/\n',
  'packages/dom/package.json': JSON.stringify({ name: '@mono/dom', version: '1.0.0', private: true, type: 'module', scripts: { test: 'vitest run' } }, null, 2),
  // vite's root for the visual pages, vitest's for the unit tests: files are printed from test/unit
  'packages/dom/vite.config.mjs': "import { defineConfig } from 'vitest/config';\n\nexport default defineConfig({\n  root: './test/visual',\n  test: { root: './test/unit' },\n});\n",
  'packages/dom/test/visual/index.html': '<!doctype html><title>visual</title>\n',
  'packages/dom/src/rect.js': GOOD,
  'packages/dom/src/offset.js': 'export const offset = (a, b) => a + b;\n',
  'packages/dom/test/unit/rect.test.js':
    "import { expect, test } from 'vitest';\nimport { innerWidth } from '../../src/rect.js';\n\ntest('keeps a width without gutter', () => {\n  expect(innerWidth(800, 0)).toBe(800);\n});\n\ntest('subtracts the scrollbar gutter', () => {\n  expect(innerWidth(800, 15)).toBe(785);\n});\n",
  'packages/dom/test/unit/offset.test.js': "import { expect, test } from 'vitest';\nimport { offset } from '../../src/offset.js';\n\ntest('adds', () => {\n  expect(offset(1, 2)).toBe(3);\n});\n\ntest('adds negatives', () => {\n  expect(offset(-1, -2)).toBe(-3);\n});\n",
  'packages/core/package.json': JSON.stringify({ name: '@mono/core', version: '1.0.0', private: true, type: 'module', scripts: { test: 'vitest run' } }, null, 2),
  'packages/core/src/clamp.js': 'export const clamp = (v, lo, hi) => Math.min(hi, Math.max(lo, v));\n',
  'packages/core/test/clamp.test.js': "import { expect, test } from 'vitest';\nimport { clamp } from '../src/clamp.js';\n\ntest('clamps', () => {\n  expect(clamp(5, 0, 3)).toBe(3);\n});\n",
};
const ID = 'packages/dom/test/unit/rect.test.js > subtracts the scrollbar gutter';
const script = (label: string, expectText: string) =>
  parseScript({
    label,
    steps: [
      { expect: { lastMessageIncludes: expectText }, toolCalls: [{ name: 'read_file', arguments: { path: 'packages/dom/src/rect.js' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'packages/dom/src/rect.js', content: GOOD } }] },
      { toolCalls: [{ name: 'run_tests', arguments: {} }] },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Subtract the gutter from the width again.' } }] },
    ],
  });
const TEST_COMMAND = 'pnpm --filter @mono/dom test';

/** The issue run and what the PR body must show. */
async function issueRun(env: Record<string, string>, servers = open) {
  const { r, github, model } = await repairIssue(servers, {
    repo: 'mono',
    files: FILES,
    broken: { 'packages/dom/src/rect.js': BROKEN },
    script: script('pnpm filter issue', 'rect'),
    title: 'innerWidth ignores the scrollbar gutter',
    body: 'innerWidth(800, 15) is 800, not 785.',
    inputs: { 'setup-command': SETUP, 'test-command': TEST_COMMAND },
    env,
  });
  if (r.outputs.status !== 'fixed') console.log(r.stdout.slice(-6000), r.summary.slice(0, 3000));
  return { r, github, model };
}

/** pnpm laid out as pnpm/action-setup leaves it, under a fake HOME. */
function actionSetupHome(): { home: string; bin: string } {
  const home = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-home-'));
  const modules = path.join(home, 'setup-pnpm', 'node_modules');
  mkdirSync(path.join(modules, '.bin'), { recursive: true });
  cpSync(path.join(ROOT, '.cache', 'pnpm', 'node_modules', 'pnpm'), path.join(modules, 'pnpm'), { recursive: true });
  const shim = path.join(modules, '.bin', 'pnpm');
  writeFileSync(shim, '#!/bin/sh\nbasedir=$(dirname "$(echo "$0" | sed -e \'s,\\\\,/,g\')")\nexec node "$basedir/../pnpm/bin/pnpm.cjs" "$@"\n');
  chmodSync(shim, 0o755);
  return { home, bin: path.join(modules, '.bin') };
}

pnpmTest('issue mode: `pnpm --filter @mono/dom test`, vitest default reporter, root test/unit: its JSON report through pnpm, related tests from its root, ids with the real path', async () => {
  const { r, github, model } = await issueRun({ PATH: `${PNPM_BIN}:${process.env.PATH ?? ''}` });
  expect(model.mismatches).toEqual([]);
  expect(r.outputs.status).toBe('fixed');
  github.assertNoViolations();
  const body = github.pulls[0].body;
  // the failing test by its real file (vitest root test/unit), seen failing then passing
  expect(body).toContain(`| \`${ID}\` | failed | passed |`);
  // the related run from the package's vitest root selects the failing test file (2 tests of rect.test.js)
  expect(body).toMatch(/\| related tests \(inside the loop\) \| `cd packages\/dom && npx --no-install vitest related --run \.\.\/\.\.\/src\/rect\.js rect\.test\.js --passWithNoTests` \| 0 \| 2 \| 0 \|/);
  // the gate is the maintainer's command, its report asked for through pnpm (4 tests of the package)
  expect(body).toMatch(/\| full suite \(gate\) \| `pnpm --filter @mono\/dom test` \| 0 \| 4 \| 0 \|/);
  // its JSON report was read (through pnpm's `--`), not the plain output
  expect(body).toContain('3 passed, 1 failed, 0 skipped (vitest report)');
  expect(body).toContain('4 passed, 0 failed, 0 skipped (vitest report)');
}, 300_000);

pnpmTest('CI mode: the failing job ran `pnpm --filter @mono/dom test`; the package and its test are named, reproduced by identity, fixed', async () => {
  const env = { PATH: `${PNPM_BIN}:${process.env.PATH ?? ''}` };
  const { r, github, model } = await repairCiRun(open, {
    repo: 'mono',
    files: FILES,
    broken: { 'packages/dom/src/rect.js': BROKEN },
    script: script('pnpm filter ci', '@mono/dom'),
    inputs: { 'setup-command': SETUP, 'test-command': TEST_COMMAND },
    env,
    log: (url) => {
      const { output, dir } = realRun(url, `${SETUP} && ${TEST_COMMAND}`, { env: { PATH: env.PATH } });
      expect(stripVTControlCharacters(output)).toContain('× subtracts the scrollbar gutter');
      return jobLog('mono', TEST_COMMAND, output, dir);
    },
  });
  if (r.outputs.status !== 'fixed') console.log(r.stdout.slice(-6000), r.summary.slice(0, 3000));
  expect(model.mismatches).toEqual([]);
  expect(r.outputs.status).toBe('fixed');
  github.assertNoViolations();
  expect(r.stdout).toMatch(/Reproduction: reproduced \(evidence: test-identity\)/);
  expect(github.pulls[0].body).toContain(`| \`${ID}\` | failed | passed |`);
}, 300_000);

// pnpm/action-setup's layout under HOME: the sandbox shows ~/setup-pnpm and PNPM_HOME copy-on-write
// (src/sandbox/home.ts), so the shim reaches pnpm.cjs; the rest of HOME stays hidden.
const actionSetupTest = havePnpm ? test : test.skip;
actionSetupTest('pnpm installed as pnpm/action-setup does (~/setup-pnpm, PNPM_HOME), sandbox on: fixed', async () => {
  const { home, bin } = actionSetupHome();
  const env = { HOME: home, PNPM_HOME: bin, PATH: `${bin}:${process.env.PATH ?? ''}` };
  // the layout is right: outside the sandbox the shim starts pnpm
  expect(execFileSync('pnpm', ['--version'], { env: { ...process.env, ...env }, encoding: 'utf8' }).trim()).toMatch(/^\d+\.\d+\.\d+$/);
  // its own servers: a run that cannot start pnpm ends early and leaves the script unfinished
  const servers: { close(): Promise<void> }[] = [];
  try {
    const { r } = await issueRun(env, servers);
    if (r.outputs.status !== 'fixed') console.warn(`pnpm from ~/setup-pnpm in the sandbox: ${r.outputs.status}\n${r.stdout.slice(-1500)}`);
    expect(r.outputs.status).toBe('fixed');
  } finally {
    for (const s of servers) await s.close().catch(() => undefined);
  }
}, 300_000);

// the control: the same layout with the sandbox turned off ends fixed, so the failure above is the sandbox's
pnpmTest('control: pnpm from ~/setup-pnpm with AGENT_FIX_SANDBOX=off: fixed', async () => {
  const { home, bin } = actionSetupHome();
  const { r, github } = await issueRun({ HOME: home, PNPM_HOME: bin, PATH: `${bin}:${process.env.PATH ?? ''}`, AGENT_FIX_SANDBOX: 'off' });
  expect(r.outputs.status).toBe('fixed');
  expect(github.pulls[0].body).toContain(`| \`${ID}\` | failed | passed |`);
}, 300_000);
