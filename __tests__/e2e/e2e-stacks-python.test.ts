/**
 * End to end, a Python project in a virtual environment (issue 22, part 1): the bundled action
 * under node 24, the fake GitHub API and the scripted model, on a real repository whose tests run
 * on real pytest inside a venv the setup command makes (`python3 -m venv --system-site-packages`,
 * so the pytest .ci/run installs is seen; skipped with a message without pytest). The test command
 * is the venv's interpreter, `.venv/bin/python -m pytest`.
 *
 * The bug fails a unittest subtest: pytest 9 reports it only on a `SUBFAILED` line (the test
 * itself `PASSED` in `-v`); the project forces `--color=yes`; one parametrised id carries the
 * time of the run. Issue mode: the fix is verified, the proof counts the one failing test and
 * not the timestamped one. CI mode: the log (a real `-v` run, coloured, in the runner's framing)
 * is reproduced by test identity and the fix verified.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScript } from '../../src/scripted/script.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { jobLog, realRun, repairCiRun, repairIssue, ROOT } from '../../test-support/ci-repair.js';
import { unavailable } from '../../test-support/stacks.js';

const FIXTURE = path.join(ROOT, '__tests__', 'fixtures', 'stacks-python');
const read = (p: string) => readFileSync(path.join(FIXTURE, p), 'utf8');
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

const SETUP = 'python3 -m venv --system-site-packages --without-pip .venv';
const TEST = '.venv/bin/python -m pytest';
const GOOD = read('slugs/slug.py');
const BROKEN = GOOD.replace('words = re.split(r"[^A-Za-z0-9]+", ascii_text.lower())', 'words = ascii_text.lower().split(" ")');
const FILES = {
  'pyproject.toml': read('pyproject.toml'),
  '.gitignore': read('gitignore.txt'),
  'slugs/__init__.py': read('slugs/__init__.py'),
  'slugs/slug.py': GOOD,
  'tests/test_text.py': read('tests/test_text.py'),
};
const FAILING = 'tests/test_text.py::TestSlugify::test_examples';
const fixScript = (label: string, expectText: string) =>
  parseScript({
    label,
    steps: [
      { expect: { lastMessageIncludes: expectText }, toolCalls: [{ name: 'read_file', arguments: { path: 'slugs/slug.py' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'slugs/slug.py', content: GOOD } }] },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Split on every run of non-alphanumerics again.' } }] },
    ],
  });

const missing = unavailable('pytest');
const maybe = missing ? test.skip : test;
if (missing) test(`skipped: ${missing}`, () => expect(missing).toContain('not installed'));

maybe('issue mode: a failing subtest in a venv project is fixed; the proof counts it and not the timestamped test', async () => {
  expect(BROKEN).not.toBe(GOOD);
  const { r, github, model, repo } = await repairIssue(open, {
    repo: 'slugs',
    files: FILES,
    broken: { 'slugs/slug.py': BROKEN },
    script: fixScript('python issue', 'slugify'),
    title: 'slugify keeps punctuation',
    body: 'slugify("Hello, World!") returns "hello,-world!" instead of "hello-world".',
    inputs: { 'setup-command': SETUP, 'test-command': TEST },
  });
  expect(model.mismatches).toEqual([]);
  expect(r.outputs.status).toBe('fixed');
  github.assertNoViolations();
  const body = github.pulls[0].body;
  expect(body).toContain('Runner: pytest.');
  expect(body).toContain('(pytest report)');
  expect(body).toContain(`| \`${FAILING}\` | failed | passed |`);
  expect(body).toContain('**Newly passing** (1)');
  expect(body).not.toMatch(/test_stamp\[\d{4}-/);
  expect(execFileSync('git', ['--git-dir', repo.remoteDir, 'show', `${r.outputs.branch}:slugs/slug.py`], { encoding: 'utf8' })).toBe(GOOD);
}, 240_000);

maybe('CI mode: the coloured -v log names the failing subtest; reproduced by test identity and fixed', async () => {
  let logText = '';
  const { r, github, model } = await repairCiRun(open, {
    repo: 'slugs',
    files: FILES,
    broken: { 'slugs/slug.py': BROKEN },
    script: fixScript('python ci', FAILING),
    inputs: { 'setup-command': SETUP, 'test-command': TEST },
    log: (url) => {
      const { output, dir } = realRun(url, `${SETUP} && ${TEST} -v`);
      expect(output).toContain('SUBFAILED');
      expect(output).toContain('\x1b[');
      logText = jobLog('slugs', `${TEST} -v`, output, dir);
      return logText;
    },
  });
  expect(logText).toMatch(/test_examples .*PASSED/);
  expect(model.mismatches).toEqual([]);
  expect(r.outputs.status).toBe('fixed');
  github.assertNoViolations();
  const pr = github.pulls[0];
  expect(pr.body).toContain('**Reproduced here** (evidence: the same tests fail here (matched by test identity');
  expect(pr.body).toContain(`| \`${FAILING}\` | **failed** | **failed** | passed |`);
  expect(r.stdout).toMatch(/Reproduction: reproduced \(evidence: test-identity\)/);
}, 240_000);
