/**
 * Guesses the repository's setup and test commands from the files at its root, when the
 * `setup-command` / `test-command` inputs are not set. First match wins:
 *   1. package.json with a real `test` script (lockfile picks npm / yarn / pnpm); without
 *      one, a test runner among its dependencies or config files (jest, vitest, mocha) run
 *      through the package manager's exec, or `node --test` when there are `*.test.*` files;
 *   2. pytest (pytest.ini, [tool.pytest...] in pyproject.toml, [tool:pytest] in setup.cfg,
 *      [pytest] in tox.ini, conftest.py, or test_*.py / *_test.py under tests/ or test/);
 *   3. go.mod; 4. Cargo.toml; 5. a Makefile with a `test` target.
 */
import { isTestFileByName } from './test-files.js';
import { promises as fs } from 'node:fs';
import path from 'node:path';

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

async function detectNode(root: string): Promise<DetectedCommands | null> {
  const text = await readText(path.join(root, 'package.json'));
  if (text === null) return null;
  let pkg: { scripts?: Record<string, unknown>; packageManager?: unknown };
  try {
    pkg = JSON.parse(text);
  } catch {
    return null;
  }
  const script = pkg.scripts?.test;
  const hasScript = typeof script === 'string' && script.trim() !== '' && !NPM_DEFAULT_TEST.test(script);
  let runnerCommand: string | null = null;
  let runnerWhy = '';
  if (!hasScript) {
    const found = await runnerWithoutScript(root, pkg as PackageJson);
    if (!found) return null;
    [runnerCommand, runnerWhy] = found;
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

interface PackageJson {
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  jest?: unknown;
  mocha?: unknown;
}

/** A runner to call directly when package.json has no test script: [command, why]. */
async function runnerWithoutScript(root: string, pkg: PackageJson): Promise<[string, string] | null> {
  const deps = { ...(pkg.dependencies ?? {}), ...(pkg.devDependencies ?? {}) };
  const files = await listDir(root);
  const has = (re: RegExp) => files.some((f) => re.test(f));
  if ('vitest' in deps || has(/^vitest\.config\.[cm]?[jt]s$/)) return ['vitest run', 'vitest is a dependency or configured'];
  if ('jest' in deps || pkg.jest !== undefined || has(/^jest\.config\.[cm]?[jt]s(?:on)?$/)) return ['jest', 'jest is a dependency or configured'];
  if ('mocha' in deps || pkg.mocha !== undefined || has(/^\.mocharc/)) return ['mocha', 'mocha is a dependency or configured'];
  const testFile = /\.test\.[cm]?js$/;
  for (const dir of ['test', 'tests', '__tests__', '.']) {
    if ((await listDir(path.join(root, dir))).some((f) => testFile.test(f))) return ['node --test', `*.test.js files in ${dir === '.' ? 'the root' : `${dir}/`} and no test framework: node's test runner`];
  }
  return null;
}

async function detectPython(root: string): Promise<DetectedCommands | null> {
  const pyproject = await readText(path.join(root, 'pyproject.toml'));
  const setupCfg = await readText(path.join(root, 'setup.cfg'));
  const toxIni = await readText(path.join(root, 'tox.ini'));
  let marker: string | null = null;
  if (await exists(path.join(root, 'pytest.ini'))) marker = 'pytest.ini';
  else if (pyproject && /^\s*\[tool\.pytest[\].]/m.test(pyproject)) marker = 'pyproject.toml [tool.pytest]';
  else if (setupCfg && /^\s*\[tool:pytest\]/m.test(setupCfg)) marker = 'setup.cfg [tool:pytest]';
  else if (toxIni && /^\s*\[pytest\]/m.test(toxIni)) marker = 'tox.ini [pytest]';
  else if (await exists(path.join(root, 'conftest.py'))) marker = 'conftest.py';
  else {
    const isTestFile = (f: string) => f.endsWith('.py') && isTestFileByName(f);
    for (const dir of ['tests', 'test']) {
      if ((await listDir(path.join(root, dir))).some(isTestFile)) {
        marker = `${dir}/test_*.py`;
        break;
      }
    }
    if (!marker && (await listDir(root)).some(isTestFile)) marker = 'test_*.py';
  }
  if (!marker) return null;

  const steps: string[] = [];
  const mentions: string[] = [pyproject ?? '', setupCfg ?? '', toxIni ?? ''];
  for (const req of ['requirements.txt', 'requirements-dev.txt', 'requirements-test.txt']) {
    const content = await readText(path.join(root, req));
    if (content !== null) {
      steps.push(`pip install -r ${req}`);
      mentions.push(content);
    }
  }
  const setupPy = await readText(path.join(root, 'setup.py'));
  if (setupPy !== null) mentions.push(setupPy);
  const installable =
    setupPy !== null ||
    (pyproject !== null && /^\s*\[(project|build-system|tool\.poetry)\]/m.test(pyproject));
  if (installable) steps.push('pip install -e .');
  // pytest named as a dependency somewhere (its own config sections do not count).
  const withoutConfigHeaders = (m: string) => m.replace(/^\s*\[(?:tool[.:]pytest[^\]]*|pytest)\]\s*$/gm, '');
  if (!mentions.some((m) => /\bpytest\b/i.test(withoutConfigHeaders(m)))) steps.push('pip install pytest');
  return {
    setup: steps.join(' && '),
    test: 'python -m pytest',
    stack: 'python',
    reason: `pytest project (${marker})`,
  };
}

export async function detectCommands(root: string): Promise<DetectedCommands> {
  const node = await detectNode(root);
  if (node) return node;
  const python = await detectPython(root);
  if (python) return python;
  if (await exists(path.join(root, 'go.mod'))) {
    return { setup: null, test: 'go test ./...', stack: 'go', reason: 'go.mod' };
  }
  if (await exists(path.join(root, 'Cargo.toml'))) {
    return { setup: null, test: 'cargo test', stack: 'rust', reason: 'Cargo.toml' };
  }
  for (const name of ['Makefile', 'makefile', 'GNUmakefile']) {
    const text = await readText(path.join(root, name));
    if (text !== null && /^test\s*:(?!=)/m.test(text)) {
      return { setup: null, test: 'make test', stack: 'make', reason: `${name} has a test target` };
    }
  }
  const hasPackageJson = await exists(path.join(root, 'package.json'));
  return {
    setup: null,
    test: null,
    stack: hasPackageJson ? 'node' : 'unknown',
    reason:
      (hasPackageJson ? 'package.json has no real test script and ' : '') +
      'no test setup was recognised (package.json test script, pytest, go.mod, Cargo.toml, Makefile test target)',
  };
}
