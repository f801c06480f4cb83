/**
 * Guesses the repository's setup and test commands from the files at its root, when the
 * `setup-command` / `test-command` inputs are not set. First match wins:
 *   1. package.json with a real `test` script (lockfile picks npm / yarn / pnpm); without
 *      one, a node test runner the registry detects (vitest, jest, mocha by dependency or
 *      configuration, node's test runner by `*.test.*` files) run through the package
 *      manager's exec;
 *   2. the other runners of the registry, in its order: pytest, go test, cargo test, make test.
 * What each runner is detected by lives in its module (verify/runners/).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { allRunners } from './runners/index.js';
import type { PackageJson, Project } from './runners/runner.js';

export interface DetectedCommands {
  setup: string | null;
  test: string | null;
  /** node | python | go | rust | make | unknown */
  stack: string;
  /** Why these commands (or why none), for the report. */
  reason: string;
}

const NPM_DEFAULT_TEST = /no test specified/i;

async function readText(file: string): Promise<string | null> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch {
    return null;
  }
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.access(file);
    return true;
  } catch {
    return false;
  }
}

async function listDir(dir: string): Promise<string[]> {
  try {
    return await fs.readdir(dir);
  } catch {
    return [];
  }
}

async function readProject(root: string): Promise<Project & { pkgText: string | null }> {
  const pkgText = await readText(path.join(root, 'package.json'));
  let pkg: PackageJson | null = null;
  if (pkgText !== null) {
    try {
      const parsed: unknown = JSON.parse(pkgText);
      pkg = typeof parsed === 'object' && parsed !== null ? (parsed as PackageJson) : {};
    } catch {
      pkg = null;
    }
  }
  return {
    root,
    pkg,
    pkgText,
    files: await listDir(root),
    readText: (f) => readText(path.join(root, f)),
    exists: (f) => exists(path.join(root, f)),
    listDir: (d) => listDir(path.join(root, d)),
  };
}

async function detectNode(project: Project): Promise<DetectedCommands | null> {
  const { pkg, root } = project;
  if (!pkg) return null;
  const script = pkg.scripts?.test;
  const hasScript = typeof script === 'string' && script.trim() !== '' && !NPM_DEFAULT_TEST.test(script);
  let runnerCommand: string | null = null;
  let runnerWhy = '';
  if (!hasScript) {
    for (const runner of allRunners()) {
      if (runner.stack !== 'node' || !runner.detect) continue;
      const found = await runner.detect(project);
      if (found) {
        runnerCommand = found.test;
        runnerWhy = found.reason;
        break;
      }
    }
    if (!runnerCommand) return null;
  }

  const declared = typeof pkg.packageManager === 'string' ? pkg.packageManager.split('@')[0] : '';
  let manager: 'npm' | 'yarn' | 'pnpm';
  let setup: string;
  let why: string;
  if (await exists(path.join(root, 'pnpm-lock.yaml'))) {
    manager = 'pnpm';
    setup = 'pnpm install --frozen-lockfile';
    why = 'pnpm-lock.yaml';
  } else if (await exists(path.join(root, 'yarn.lock'))) {
    manager = 'yarn';
    setup = 'yarn install --frozen-lockfile';
    why = 'yarn.lock';
  } else if (await exists(path.join(root, 'package-lock.json'))) {
    manager = 'npm';
    setup = 'npm ci';
    why = 'package-lock.json';
  } else if (declared === 'pnpm' || declared === 'yarn') {
    manager = declared;
    setup = `${declared} install`;
    why = `"packageManager": "${String(pkg.packageManager)}" and no lockfile`;
  } else {
    manager = 'npm';
    setup = 'npm install';
    why = 'no lockfile';
  }
  if (runnerCommand) {
    const exec = manager === 'npm' ? 'npx --no-install' : `${manager} exec`;
    const test = runnerCommand.startsWith('node ') ? runnerCommand : `${exec} ${runnerCommand}`;
    return { setup, test, stack: 'node', reason: `package.json has no test script; ${runnerWhy}; ${why} -> ${manager}` };
  }
  return {
    setup,
    test: `${manager} test`,
    stack: 'node',
    reason: `package.json has a test script (${JSON.stringify(script)}); ${why} -> ${manager}`,
  };
}

export async function detectCommands(root: string): Promise<DetectedCommands> {
  const project = await readProject(root);
  const node = await detectNode(project);
  if (node) return node;
  for (const runner of allRunners()) {
    if (runner.stack === 'node' || !runner.detect) continue;
    const found = await runner.detect(project);
    if (found) return { setup: found.setup, test: found.test, stack: runner.stack, reason: found.reason };
  }
  const hasPackageJson = project.pkgText !== null;
  return {
    setup: null,
    test: null,
    stack: hasPackageJson ? 'node' : 'unknown',
    reason:
      (hasPackageJson ? 'package.json has no real test script and ' : '') +
      'no test setup was recognised (package.json test script, pytest, go.mod, Cargo.toml, Makefile test target)',
  };
}
