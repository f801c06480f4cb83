/**
 * Python end to end inside the harness (issue 22, part 1): pytest recognised behind a venv
 * interpreter and the usual wrappers, detection of the venv, pytest 9's SUBFAILED lines, test ids
 * with per-run text, one identity between a CI log and a local run whatever the output options
 * (`-q`, `-v`, `-rA`, `--color=yes`, JUnit XML), related tests by imports, and the guard's pytest
 * forms. The real-pytest cases run pytest in a real virtual environment (`python3 -m venv
 * --system-site-packages`, so the pytest .ci/run installs is seen); skipped with a message without
 * pytest.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { extractFailure } from '../../src/ci/log-extract.js';
import { checkReproduction } from '../../src/ci/fingerprint.js';
import { makeShell } from '../../src/adapters/shell.js';
import { checkTestIntegrity } from '../../src/guard/test-integrity.js';
import { Redactor } from '../../src/redact.js';
import { detectCommands } from '../../src/verify/detect.js';
import { identityKey, identityOf, normaliseSegment } from '../../src/verify/identity.js';
import { identifyRunner, parseTestOutput } from '../../src/verify/runners/index.js';
import { TestSession } from '../../src/verify/session.js';
import { unavailable } from '../../test-support/stacks.js';

describe('pytest in a command', () => {
  test.each([
    ['.venv/bin/python -m pytest tests/test_x.py', true],
    ['venv/bin/pytest -q', true],
    ['python3.12 -m pytest', true],
    ['/opt/py/bin/python3 -B -m pytest -x', true],
    ['uv run pytest', true],
    ['uv run --frozen python -m pytest tests', true],
    ['poetry run pytest', true],
    ['hatch run test:pytest', true],
    ['PYTHONPATH=src .venv/bin/pytest', true],
    ['tox', false],
    ['tox -e py312', false],
    ['hatch test', false],
    ['hatch run test', false],
    ['nox -s tests', false],
  ])('%s runs pytest (arguments appendable: %s)', (command, appendable) => {
    const info = identifyRunner(command, null);
    expect(info.runner).toBe('pytest');
    expect(info.base).toBe(appendable ? command : null);
  });

  test('a package script that runs a venv pytest is pytest too; other commands are not', () => {
    expect(identifyRunner('npm test', '.venv/bin/python -m pytest').runner).toBe('pytest');
    expect(identifyRunner('python -m pytestish', null).runner).toBe('unknown');
    expect(identifyRunner('python manage.py test', null).runner).toBe('unknown');
  });
});

describe('pytest output', () => {
  test('pytest 9: a failing subtest fails its test, though the test itself is reported PASSED', () => {
    const out = [
      'tests/test_sub.py::TestY::test_even PASSED                               [ 16%]',
      'tests/test_sub.py::test_fixture_subtests SUBPASSED[custom] (i=0)         [ 33%]',
      'tests/test_sub.py::test_fixture_subtests SUBFAILED[custom] (i=2)         [ 33%]',
      'tests/test_sub.py::test_fixture_subtests FAILED                          [ 33%]',
      'tests/test_sub.py::test_ok PASSED                                        [100%]',
      '=========================== short test summary info ============================',
      'SUBFAILED(i=1) tests/test_sub.py::TestY::test_even - AssertionError: 1 != 0',
      'SUBFAILED[custom] (i=2) tests/test_sub.py::test_fixture_subtests - assert 2 < 2',
      'FAILED tests/test_sub.py::test_fixture_subtests - contains 1 failed subtest',
      '========================= 2 failed, 2 passed in 0.20s ==========================',
    ].join('\n');
    const byId = Object.fromEntries(parseTestOutput(out).tests.map((t) => [t.id, t]));
    expect(byId['tests/test_sub.py::TestY::test_even']).toMatchObject({ status: 'failed', message: 'subtest: AssertionError: 1 != 0' });
    expect(byId['tests/test_sub.py::test_fixture_subtests'].status).toBe('failed');
    expect(byId['tests/test_sub.py::test_ok'].status).toBe('passed');
    const log = extractFailure(out.split('\n').map((l) => `2026-01-01T00:00:00.0000000Z ${l}`).join('\n'));
    expect(log.failures.map((f) => f.name).sort()).toEqual(['tests/test_sub.py::TestY::test_even', 'tests/test_sub.py::test_fixture_subtests']);
  });

  test('xdist workers and parametrised ids with spaces and brackets keep one identity', () => {
    const out = ['[gw0] [ 50%] FAILED tests/test_x.py::TestY::test_z[a b-c[d]] ', '[gw1] [100%] PASSED tests/test_x.py::test_ok '].join('\n');
    const tests = parseTestOutput(out).tests;
    expect(tests.map((t) => `${t.status} ${t.id}`)).toEqual(['failed tests/test_x.py::TestY::test_z[a b-c[d]]', 'passed tests/test_x.py::test_ok']);
    expect(identityOf(tests[0].id)).toEqual({ file: 'tests/test_x.py', path: ['TestY', 'test_z[a b-c[d]]'] });
  });

  test('per-run text in a name is a placeholder: the same test has one id in every run', () => {
    expect(normaliseSegment('tests/test_t.py::test_at[2026-11-27T13:49:54.993927]')).toBe('tests/test_t.py::test_at[{time}]');
    expect(normaliseSegment('test_obj[<Foo object at 0x7f6f63acf750>]')).toBe('test_obj[<Foo object at {addr}>]');
    expect(normaliseSegment('test_p[/tmp/pytest-of-root/pytest-12/test_p0/x]')).toBe('test_p[{tmp}/test_p0/x]');
    expect(normaliseSegment('test_u[0b7e1d6a-3f3e-4a51-9a7e-2d1c0d9e8f11]')).toBe('test_u[{uuid}]');
    // a date without a time of day is not per-run text
    expect(normaliseSegment('test_d[2026-11-27]')).toBe('test_d[2026-11-27]');
  });
});

describe('the guard knows pytest', () => {
  const diffOf = (file: string, removed: string[], added: string[], status: 'modified' | 'added' = 'modified') => [{ path: file, oldPath: file, status, added, removed }];
  test.each([
    ['pytestmark = pytest.mark.skip(reason="later")', 'skip'],
    ['    pytest.param(3, marks=pytest.mark.xfail),', 'skip'],
    ['np = pytest.importorskip("numpy")', 'skip'],
    ['        self.skipTest("flaky")', 'skip'],
    ['        raise unittest.SkipTest("later")', 'skip'],
  ])('%s in a test file is refused (%s)', (line, category) => {
    expect(checkTestIntegrity(diffOf('tests/test_a.py', [], [line]) as never).map((f) => f.category)).toContain(category);
  });

  test('a new conftest.py that deselects tests, an edited pytest.ini that selects, are refused', () => {
    const hook = ['def pytest_collection_modifyitems(config, items):', '    items[:] = [i for i in items if "slow" not in i.name]'];
    expect(checkTestIntegrity(diffOf('tests/conftest.py', [], hook, 'added') as never).map((f) => f.category)).toEqual(['config']);
    expect(checkTestIntegrity(diffOf('pytest.ini', [], ['addopts = -k "not test_parse"'], 'added') as never).map((f) => f.category)).toEqual(['config']);
    expect(checkTestIntegrity(diffOf('conftest.py', [], ['collect_ignore = ["tests/test_parse.py"]']) as never).map((f) => f.category)).toEqual(['config']);
    // a fixture in conftest.py is no finding
    expect(checkTestIntegrity(diffOf('tests/conftest.py', [], ['@pytest.fixture', 'def data():', '    return [1, 2]'], 'added') as never)).toEqual([]);
  });
});

// ------------------------------------------------------------------ real pytest in a venv

const missing = unavailable('pytest');
const real = missing ? describe.skip : describe;
if (missing) test(`real pytest skipped: ${missing}`, () => expect(missing).toContain('not installed'));

const PROJECT: Record<string, string> = {
  'pyproject.toml': '[project]\nname = "stamps"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
  'stamps/__init__.py': '',
  'stamps/fmt.py': 'def label(parts):\n    return " / ".join(p.strip() for p in parts if p.strip())\n',
  'stamps/when.py': 'from datetime import datetime\n\n\ndef stamp(dt):\n    return dt.strftime("%Y-%m-%d")\n',
  'tests/test_labels.py': [
    'import unittest',
    'import pytest',
    'from stamps.fmt import label',
    '',
    '',
    'class TestLabel(unittest.TestCase):',
    '    def test_cases(self):',
    '        for parts, want in [(["a", "b"], "a / b"), ([" a ", ""], "a")]:',
    '            with self.subTest(parts=parts):',
    '                self.assertEqual(label(parts), want)',
    '',
    '',
    '@pytest.mark.parametrize("parts", [[" x [1]", "y"], ["p q ", "r]"]], ids=["x [1]", "p q-r]"])',
    'def test_brackets(parts):',
    '    assert label(parts) == " / ".join(p.strip() for p in parts)',
    '',
  ].join('\n'),
  'tests/test_when.py': [
    'from datetime import datetime',
    'import pytest',
    'from stamps.when import stamp',
    '',
    '',
    '@pytest.mark.parametrize("dt", [datetime.now()], ids=str)',
    'def test_stamp_now(dt):',
    '    assert len(stamp(dt)) == 10',
    '',
  ].join('\n'),
};
const BROKEN_FMT = 'def label(parts):\n    return " / ".join(p for p in parts if p.strip())\n';

real('real pytest in a virtual environment', () => {
  let base = '';
  let dir = '';
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { PYTHONDONTWRITEBYTECODE: '1', NO_COLOR: '1' });
  const shell = makeShell();
  const exec = (command: string) => shell.run(command, { cwd: dir, timeoutMs: 120_000, env, maxOutputChars: 400_000 });
  beforeAll(() => {
    base = mkdtempSync(path.join(tmpdir(), 'agent-fix-pyvenv-'));
    dir = path.join(base, 'repo');
    for (const [f, text] of Object.entries(PROJECT)) {
      mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
      writeFileSync(path.join(dir, f), text);
    }
    writeFileSync(path.join(dir, 'stamps/fmt.py'), BROKEN_FMT);
    execFileSync('python3', ['-m', 'venv', '--system-site-packages', '--without-pip', '.venv'], { cwd: dir });
  }, 60_000);
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  test('detection finds pytest and runs it with the venv interpreter', async () => {
    const d = await detectCommands(dir);
    expect(d).toMatchObject({ test: '.venv/bin/python -m pytest', stack: 'python' });
    expect(d.reason).toBe('pytest project (pyproject.toml [tool.pytest], in .venv)');
  });

  test('the local run (JUnit) and a CI log of every output form name the same failing tests; ids stable between runs', async () => {
    const command = '.venv/bin/python -m pytest';
    const session = await TestSession.create({ root: dir, testCommand: command, exec, redactor: new Redactor() });
    const local = await session.runFull('baseline');
    const again = await session.runFull('baseline');
    await session.dispose();
    expect(local.structured).toBe(true);
    expect(local.executed).toMatch(/^\.venv\/bin\/python -m pytest --junitxml=/);
    const failing = local.tests.filter((t) => t.status === 'failed').map((t) => t.id).sort();
    expect(failing).toEqual(['tests/test_labels.py::TestLabel::test_cases', 'tests/test_labels.py::test_brackets[p q-r]]', 'tests/test_labels.py::test_brackets[x [1]]'].sort());
    expect(local.tests.map((t) => t.id)).toContain('tests/test_when.py::test_stamp_now[{time}]');
    expect(again.tests.map((t) => t.id).sort()).toEqual(local.tests.map((t) => t.id).sort());
    for (const flags of ['', '-q', '-v', '-rA', '--color=yes -v', '-p no:cacheprovider -vv']) {
      const ci = await exec(`${command} ${flags}`);
      expect(ci.exitCode).toBe(1);
      const log = extractFailure(ci.output.split('\n').map((l) => `2026-01-01T00:00:00.0000000Z ${l}`).join('\n'));
      const rep = checkReproduction({ tests: log.failingTests, failures: log.failures, files: log.failingFiles, errors: log.errors }, local);
      expect([flags, rep.kind, rep.kind === 'reproduced' ? rep.evidence : '']).toEqual([flags, 'reproduced', 'test-identity']);
      if (rep.kind === 'reproduced') expect([flags, [...rep.local].sort()]).toEqual([flags, failing]);
      // the plain output of that run, read as a local run would read it, has the same failing identities
      const plain = parseTestOutput(ci.output).tests.filter((t) => t.status === 'failed').map((t) => identityKey(identityOf(t.id, t.file)));
      expect([flags, plain.sort()]).toEqual([flags, failing.map((id) => identityKey(identityOf(id))).sort()]);
    }
  }, 120_000);

  test('related tests first: the test file importing the changed module (named after no module), then the gate', async () => {
    writeFileSync(path.join(dir, 'stamps/fmt.py'), PROJECT['stamps/fmt.py']);
    try {
      const files = Object.keys(PROJECT);
      const session = await TestSession.create({ root: dir, testCommand: '.venv/bin/python -m pytest', exec, redactor: new Redactor(), changedFiles: async () => ['stamps/fmt.py'], listFiles: async () => files });
      const { run, verdict } = await session.runForLoop();
      await session.dispose();
      const related = session.commands.find((c) => c.purpose === 'related');
      expect(related?.command).toBe('.venv/bin/python -m pytest tests/test_labels.py');
      expect(related?.counts).toMatchObject({ failed: 0, passed: 3 });
      expect(session.commands.map((c) => c.purpose)).toContain('gate');
      expect(run.counts).toMatchObject({ failed: 0, passed: 4 });
      expect(verdict.ok).toBe(true);
    } finally {
      writeFileSync(path.join(dir, 'stamps/fmt.py'), BROKEN_FMT);
    }
  }, 120_000);
});
