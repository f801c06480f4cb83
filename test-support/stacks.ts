/**
 * Fixture projects for the test-intelligence tests (__tests__/fixtures/stacks/<stack>): each
 * has passing, failing, erroring (a file that does not load, or a failing hook) and flaky
 * tests (they alternate via the FLAKY_STATE file). A fixture is copied into a temporary
 * directory; node fixtures get a symlink to the project's node_modules.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeShell } from '../src/adapters/shell.js';
import type { CommandResult } from '../src/ports/shell.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const STACKS_DIR = path.join(ROOT, '__tests__', 'fixtures', 'stacks');

export type Stack = 'jest' | 'vitest' | 'mocha' | 'node-test' | 'pytest' | 'go';

export const STACK_COMMANDS: Record<Stack, string> = {
  jest: 'npm test',
  vitest: 'npm test',
  mocha: 'npm test',
  'node-test': 'node --test',
  pytest: 'python3 -m pytest',
  go: 'go test ./...',
};

/** Why a stack cannot run on this machine, or null. */
export function unavailable(stack: Stack): string | null {
  const probe = (cmd: string, args: string[]) => {
    try {
      execFileSync(cmd, args, { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  };
  if (stack === 'pytest' && !probe('python3', ['-m', 'pytest', '--version'])) return 'python3 with pytest is not installed (.ci/run installs it)';
  if (stack === 'go' && !probe('go', ['version'])) return 'the go toolchain is not installed (.ci/run installs golang-go)';
  return null;
}

export interface StackProject {
  dir: string;
  flakyState: string;
  exec: (command: string) => Promise<CommandResult>;
  cleanup: () => void;
}

export function makeStackProject(stack: Stack): StackProject {
  const base = mkdtempSync(path.join(tmpdir(), `agent-fix-${stack}-`));
  const dir = path.join(base, 'repo');
  cpSync(path.join(STACKS_DIR, stack), dir, { recursive: true });
  if (existsSync(path.join(dir, 'package.json'))) symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'), 'dir');
  const flakyState = path.join(base, 'flaky-state');
  const shell = makeShell();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, {
    FLAKY_STATE: flakyState,
    CI: 'true',
    NO_COLOR: '1',
    FORCE_COLOR: '0',
    GOFLAGS: '-count=1',
    GOCACHE: path.join(base, 'gocache'),
    GOPATH: path.join(base, 'gopath'),
    GOPROXY: 'off',
    PYTHONDONTWRITEBYTECODE: '1',
    npm_config_update_notifier: 'false',
  });
  delete env.NODE_OPTIONS;
  delete env.JEST_WORKER_ID;
  return {
    dir,
    flakyState,
    exec: (command) => shell.run(command, { cwd: dir, timeoutMs: 120_000, env, maxOutputChars: 400_000 }),
    cleanup: () => rmSync(base, { recursive: true, force: true }),
  };
}

// ------------------------------------------------------------------ TAP producers

/**
 * Real TAP producers from the npm registry (node-tap 16 and 21, tape 5), installed by .ci/run
 * into `.cache/tap-producers` (best effort; not committed); node's own `--test-reporter=tap` needs
 * nothing. Each writes a small project whose tests pass, fail (an assertion, a nested subtest),
 * are skipped and todo, the way that producer's users write them.
 */
export const TAP_PRODUCERS_DIR = path.join(ROOT, '.cache', 'tap-producers');

export type TapProducer = 'node-tap-16' | 'node-tap-21' | 'tape' | 'node-test-tap';

interface TapProject {
  files: Record<string, string>;
  command: string;
  /** The package the command needs under node_modules (null: node's own). */
  needs: string | null;
}

const NODE_TAP_TEST = [
  "const t = require('tap')",
  "const { sub } = require('../src/math.js')",
  "t.test('adds', async (t) => { t.equal(1 + 1, 2) })",
  "t.test('diff versions test', async (t) => { t.equal(sub(3, 1), 2, 'should subtract') })",
  "t.test('skipped one', { skip: 'not now' }, async (t) => { t.pass() })",
  "t.test('todo one', { todo: true }, async (t) => { t.pass() })",
  "t.test('nested', async (t) => { t.test('inner fails', async (t) => { t.same({ d: sub(5, 2) }, { d: 3 }) }) })",
  '',
].join('\n');

export const TAP_PROJECTS: Record<TapProducer, TapProject> = {
  'node-tap-16': { files: { 'test/math.js': NODE_TAP_TEST }, command: 'node node_modules/tap16/bin/run.js --no-coverage test/math.js', needs: 'tap16' },
  'node-tap-21': { files: { 'test/math.js': NODE_TAP_TEST }, command: 'node_modules/.bin/tap --disable-coverage test/math.js', needs: 'tap' },
  tape: {
    files: {
      'test/math.js': [
        "const test = require('tape')",
        "const { sub } = require('../src/math.js')",
        "test('adds', (t) => { t.equal(1 + 1, 2); t.end() })",
        "test('diff versions test', (t) => { t.equal(sub(3, 1), 2, 'should subtract'); t.end() })",
        "test('skipped one', { skip: true }, (t) => { t.end() })",
        "test('todo one', { todo: true }, (t) => { t.equal(1, 2); t.end() })",
        '',
      ].join('\n'),
    },
    command: 'node test/math.js',
    needs: 'tape',
  },
  'node-test-tap': {
    files: {
      'test/math.test.js': [
        "const test = require('node:test')",
        "const assert = require('node:assert')",
        "const { sub } = require('../src/math.js')",
        "test('adds', () => assert.equal(1 + 1, 2))",
        "test('diff versions test', () => assert.equal(sub(3, 1), 2))",
        "test('skipped one', { skip: 'not now' }, () => {})",
        "test('todo one', { todo: true }, () => {})",
        "test('nested', async (t) => { await t.test('inner fails', () => assert.deepEqual({ d: sub(5, 2) }, { d: 3 })) })",
        '',
      ].join('\n'),
    },
    command: 'node --test --test-reporter=tap test/',
    needs: null,
  },
};

/** The broken source every TAP project tests (`sub` adds one too many); the fixed one. */
export const TAP_MATH_BROKEN = 'exports.sub = (a, b) => a - b + 1\n';
export const TAP_MATH_FIXED = 'exports.sub = (a, b) => a - b\n';

/** Why a TAP producer cannot run here, or null. */
export function tapUnavailable(producer: TapProducer): string | null {
  const needs = TAP_PROJECTS[producer].needs;
  if (needs && !existsSync(path.join(TAP_PRODUCERS_DIR, 'node_modules', needs, 'package.json'))) return `${needs} is not installed in .cache/tap-producers (.ci/run installs it from the npm registry)`;
  return null;
}
