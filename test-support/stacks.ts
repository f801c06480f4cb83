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
