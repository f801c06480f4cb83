import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { detectCommands } from '../../src/verify/detect.js';

const roots: string[] = [];
function repo(files: Record<string, string>): string {
  const root = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-detect-'));
  roots.push(root);
  for (const [name, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    writeFileSync(path.join(root, name), content);
  }
  return root;
}
afterAll(() => {
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

const pkg = (test?: string, extra: object = {}) =>
  JSON.stringify({ name: 'x', scripts: test === undefined ? {} : { test }, ...extra });

describe('detectCommands', () => {
  test('no test script: the runner among the dependencies or config files, or node --test', async () => {
    expect(await detectCommands(repo({ 'package.json': pkg(undefined, { devDependencies: { jest: '^30' } }), 'package-lock.json': '{}' }))).toMatchObject({
      setup: 'npm ci',
      test: 'npx --no-install jest',
    });
    expect(await detectCommands(repo({ 'package.json': pkg(undefined), 'vitest.config.ts': '', 'pnpm-lock.yaml': '' }))).toMatchObject({ test: 'pnpm exec vitest run' });
    expect(await detectCommands(repo({ 'package.json': pkg(undefined, { devDependencies: { mocha: '^10' } }), 'yarn.lock': '' }))).toMatchObject({ test: 'yarn exec mocha' });
    const d = await detectCommands(repo({ 'package.json': pkg(undefined), 'test/a.test.js': '' }));
    expect(d).toMatchObject({ test: 'node --test', stack: 'node' });
    expect(d.reason).toContain("node's test runner");
  });

  test('npm with package-lock.json', async () => {
    const d = await detectCommands(repo({ 'package.json': pkg('jest'), 'package-lock.json': '{}' }));
    expect(d).toMatchObject({ setup: 'npm ci', test: 'npm test', stack: 'node' });
    expect(d.reason).toContain('package-lock.json');
  });

  test('npm without a lockfile', async () => {
    const d = await detectCommands(repo({ 'package.json': pkg('node --test') }));
    expect(d).toMatchObject({ setup: 'npm install', test: 'npm test', stack: 'node' });
  });

  test('yarn and pnpm lockfiles', async () => {
    expect(await detectCommands(repo({ 'package.json': pkg('vitest run'), 'yarn.lock': '' }))).toMatchObject({
      setup: 'yarn install --frozen-lockfile',
      test: 'yarn test',
    });
    expect(await detectCommands(repo({ 'package.json': pkg('vitest run'), 'pnpm-lock.yaml': '' }))).toMatchObject({
      setup: 'pnpm install --frozen-lockfile',
      test: 'pnpm test',
    });
  });

  test("npm's default test script does not count", async () => {
    const root = repo({ 'package.json': pkg('echo "Error: no test specified" && exit 1'), 'package-lock.json': '{}' });
    const d = await detectCommands(root);
    expect(d.test).toBeNull();
    expect(d.setup).toBeNull();
    expect(d.reason).toContain('package.json has no real test script'); // the entry adds how to set one, in its own words (fix.ts)
  });

  test('package.json without a test script falls through to other stacks', async () => {
    const d = await detectCommands(repo({ 'package.json': pkg(), 'go.mod': 'module example.com/x\n' }));
    expect(d).toMatchObject({ test: 'go test ./...', stack: 'go' });
  });

  test('pytest via pytest.ini with requirements.txt', async () => {
    const d = await detectCommands(repo({ 'pytest.ini': '[pytest]\n', 'requirements.txt': 'pytest\nrequests\n' }));
    expect(d).toMatchObject({ setup: 'pip install -r requirements.txt', test: 'python -m pytest', stack: 'python' });
  });

  test('pytest via pyproject [tool.pytest.ini_options] with an installable project', async () => {
    const d = await detectCommands(
      repo({ 'pyproject.toml': '[project]\nname = "x"\ndependencies = []\n[project.optional-dependencies]\ntest = ["pytest"]\n\n[tool.pytest.ini_options]\naddopts = "-q"\n' }),
    );
    expect(d).toMatchObject({ setup: 'pip install -e .', test: 'python -m pytest' });
  });

  test('pytest via setup.cfg and via a tests/ directory; pytest installed when not mentioned', async () => {
    expect(await detectCommands(repo({ 'setup.cfg': '[metadata]\nname = x\n[tool:pytest]\ntestpaths = tests\n', 'setup.py': 'from setuptools import setup\nsetup()\n' }))).toMatchObject({
      setup: 'pip install -e . && pip install pytest',
      test: 'python -m pytest',
    });
    const d = await detectCommands(repo({ 'tests/test_thing.py': 'def test_x():\n    assert True\n', 'requirements.txt': 'requests\n' }));
    expect(d).toMatchObject({ setup: 'pip install -r requirements.txt && pip install pytest', test: 'python -m pytest' });
    expect(d.reason).toContain('tests/test_*.py');
  });

  test('go, cargo and make', async () => {
    expect(await detectCommands(repo({ 'go.mod': 'module example.com/x\n' }))).toMatchObject({ setup: null, test: 'go test ./...', stack: 'go' });
    expect(await detectCommands(repo({ 'Cargo.toml': '[package]\nname = "x"\n' }))).toMatchObject({ setup: null, test: 'cargo test', stack: 'rust' });
    expect(await detectCommands(repo({ Makefile: '.PHONY: test\nbuild:\n\tcc x.c\n\ntest: build\n\t./run-tests\n' }))).toMatchObject({
      test: 'make test',
      stack: 'make',
    });
  });

  test('a Makefile without a test target is not enough', async () => {
    const d = await detectCommands(repo({ Makefile: 'build:\n\tcc x.c\ntest-unit:\n\t./t\n' }));
    expect(d.test).toBeNull();
  });

  test('nothing recognisable tells the user to set test-command', async () => {
    const d = await detectCommands(repo({ 'README.md': '# hi\n' }));
    expect(d).toMatchObject({ setup: null, test: null, stack: 'unknown' });
    expect(d.reason).toMatch(/no test setup was recognised \(package\.json test script, pytest/);
  });

  test('a missing directory is not an exception', async () => {
    const d = await detectCommands(path.join(os.tmpdir(), 'agent-fix-no-such-dir-xyz'));
    expect(d.test).toBeNull();
  });
});
