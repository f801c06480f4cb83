/**
 * pytest: detected by its configuration (pytest.ini, pyproject.toml, setup.cfg, tox.ini,
 * conftest.py) or `test_*.py` files, with the pip installs the project needs, through the
 * project's virtual environment when one is there (`.venv/bin/python -m pytest`); asked for a
 * JUnit report (`--junitxml`, read by runners/junit.ts with pytest ids); related tests are
 * the changed test files, the test files whose imports reach a changed module (the session adds
 * them, verify/imports.ts) and the `test_<name>.py` / `<name>_test.py` of changed modules;
 * the plain output (`-v` lines, the short test summary, xdist's `[gw0]` lines) parsed when no
 * report exists.
 *
 * Recognised in a command: `pytest`, `py.test`, `python -m pytest` with any interpreter path
 * (`.venv/bin/python`, `venv/bin/pytest`, `python3.12`), behind `uv run`, `poetry run`, `pdm run`,
 * `pipenv run`, `rye run`, `hatch run [env:]`; and, as pytest whose arguments
 * cannot be appended (their own configuration decides what runs: no report, no selection, the
 * output parsed), `tox`, `nox`, `hatch test` and `hatch run test`.
 *
 * pytest 9 reports a failing subtest (unittest `subTest`, the `subtests` fixture) on its own
 * `SUBFAILED` line while the test itself may be reported `PASSED`: the test failed.
 */
import type { TestStatus } from '../types.js';
import { isPyTestFileByName } from '../../lang/python/files.js';
import { core, quote, type TestRunner } from './runner.js';
import { addTotals, Collector, summaryNumbers, type ParserResult, type TestTotals } from './text.js';

// ------------------------------------------------------------------------- plain output

const PYTEST_STATUS: Record<string, TestStatus> = {
  PASSED: 'passed',
  FAILED: 'failed',
  ERROR: 'failed',
  SKIPPED: 'skipped',
  XFAIL: 'skipped',
  XPASS: 'passed',
};
const PYTEST_VERBOSE = /^(?:\[gw\d+\]\s+\[\s*\d+%\]\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+(\S+::.+?)\s*$|(\S+\.py::.+?)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b)/;
const PYTEST_SHORT = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+(\S+(?:::.+?|\.py))(?:\s+-\s+(.*))?\s*$/;
/**
 * pytest 9's failing subtest: `SUBFAILED(i=1) tests/t.py::T::test_x - msg` in the short summary,
 * `tests/t.py::test_x SUBFAILED[msg] (i=2)   [ 33%]` in `-v` (and `[gw0] [ 33%] SUBFAILED… id` with xdist).
 */
const PYTEST_SUB_SHORT = /^SUBFAILED(?:\[[^\]]*\])?(?:\s*\([^)]*\))?\s+(\S+\.py::\S.*?)(?:\s+-\s+(.*))?\s*$/;
const PYTEST_SUB_VERBOSE = /^(?:(\S+\.py::.+?)\s+SUBFAILED\b.*$|\[gw\d+\]\s+\[\s*\d+%\]\s+SUBFAILED\S*(?:\s*\([^)]*\))?\s+(\S+\.py::.+?)\s*$)/;

/** The test a SUBFAILED line names, and its message; null for any other line. */
export function subtestFailure(line: string): { id: string; message?: string } | null {
  const s = PYTEST_SUB_SHORT.exec(line);
  if (s) return { id: s[1].trim(), message: s[2] };
  const v = PYTEST_SUB_VERBOSE.exec(line);
  if (v) return { id: (v[1] ?? v[2]).replace(/\s+\[\s*\d+%\]$/, '').trim() };
  return null;
}

function parsePytest(lines: string[]): ParserResult {
  const out = new Collector();
  let totals: TestTotals | undefined;
  for (const line of lines) {
    const sub = line.includes('SUBFAILED') ? subtestFailure(line) : null;
    if (sub) {
      out.add(sub.id, 'failed', sub.message ? `subtest: ${sub.message}` : undefined);
      continue;
    }
    const v = PYTEST_VERBOSE.exec(line);
    if (v) {
      const status = v[1] ?? v[4];
      const id = (v[2] ?? v[3]).replace(/\s+\[\s*\d+%\]$/, '');
      out.add(id, PYTEST_STATUS[status]);
      continue;
    }
    const s = PYTEST_SHORT.exec(line);
    if (s) {
      // SKIPPED lines in the summary read `SKIPPED [1] path:line: reason`: not an id.
      if (s[1] === 'SKIPPED' && /^\[\d+\]$/.test(s[2])) continue;
      out.add(s[2], PYTEST_STATUS[s[1]], s[3]);
      continue;
    }
    const final = /^=+ (.*\b(?:passed|failed|error|errors|skipped|xfailed|xpassed|deselected|no tests ran)\b.*) in [\d.]+s\b.*=+$/.exec(line);
    if (final) {
      const n = summaryNumbers(final[1]);
      totals = addTotals(totals, {
        passed: (n.get('passed') ?? 0) + (n.get('xpassed') ?? 0),
        failed: (n.get('failed') ?? 0) + (n.get('error') ?? 0) + (n.get('errors') ?? 0),
        skipped: (n.get('skipped') ?? 0) + (n.get('xfailed') ?? 0),
      });
    }
  }
  return { tests: out.list(), parsedFrom: 'pytest', totals };
}

const PY_TEST = /(?:^|\/)(?:test_[^/]*|[^/]*_test)\.py$/;
/** pytest itself, by any interpreter or script path (`.venv/bin/python -m pytest`, `venv/bin/pytest`). */
const PYTEST_CALL =
  /^(?:(?:uv|poetry|pdm|pipenv|rye)\s+run\s+(?:--[\w-]+\s+)*|hatch\s+run\s+(?:[\w.-]+:)?)?(?:(?:\S*\/)?(?:pytest|py\.test)|(?:\S*\/)?python(?:3(?:\.\d+)?)?(?:\s+-[BIOsuE]+)*\s+-m\s+pytest)(?=\s|$)/;
/** Tools that run pytest through their own configuration: the output is pytest's, arguments are theirs. */
const PYTEST_WRAPPER = /^(?:tox|nox|hatch\s+test|hatch\s+run\s+(?:[\w.-]+:)?(?:test|tests|cov))(?=\s|$)/;
const JUNIT = (reportFile: string) => `--junitxml=${quote(reportFile)} -o junit_family=xunit1`;

export const pytest: TestRunner = {
  id: 'pytest',
  stack: 'python',
  parsedFrom: 'pytest',
  reportsSkips: true,
  countsTests: true,
  invokedBy: (c) => PYTEST_CALL.test(c) || PYTEST_WRAPPER.test(c),
  appendable: (c) => PYTEST_CALL.test(c),
  async detect({ readText, exists, listDir }) {
    const pyproject = await readText('pyproject.toml');
    const setupCfg = await readText('setup.cfg');
    const toxIni = await readText('tox.ini');
    let marker: string | null = null;
    if (await exists('pytest.ini')) marker = 'pytest.ini';
    else if (pyproject && /^\s*\[tool\.pytest[\].]/m.test(pyproject)) marker = 'pyproject.toml [tool.pytest]';
    else if (setupCfg && /^\s*\[tool:pytest\]/m.test(setupCfg)) marker = 'setup.cfg [tool:pytest]';
    else if (toxIni && /^\s*\[pytest\]/m.test(toxIni)) marker = 'tox.ini [pytest]';
    else if (await exists('conftest.py')) marker = 'conftest.py';
    else {
      const isTestFile = isPyTestFileByName;
      for (const dir of ['tests', 'test']) {
        if ((await listDir(dir)).some(isTestFile)) {
          marker = `${dir}/test_*.py`;
          break;
        }
      }
      if (!marker && (await listDir('.')).some(isTestFile)) marker = 'test_*.py';
    }
    if (!marker) return null;

    // the project's virtual environment, when it has one: its interpreter runs pytest and pip
    let python = 'python';
    for (const venv of ['.venv', 'venv']) {
      if (await exists(`${venv}/bin/python`)) {
        python = `${venv}/bin/python`;
        break;
      }
    }
    const pip = python === 'python' ? 'pip' : `${python} -m pip`;
    const steps: string[] = [];
    const mentions: string[] = [pyproject ?? '', setupCfg ?? '', toxIni ?? ''];
    for (const req of ['requirements.txt', 'requirements-dev.txt', 'requirements-test.txt']) {
      const content = await readText(req);
      if (content !== null) {
        steps.push(`${pip} install -r ${req}`);
        mentions.push(content);
      }
    }
    const setupPy = await readText('setup.py');
    if (setupPy !== null) mentions.push(setupPy);
    const installable = setupPy !== null || (pyproject !== null && /^\s*\[(project|build-system|tool\.poetry)\]/m.test(pyproject));
    if (installable) steps.push(`${pip} install -e .`);
    // pytest named as a dependency somewhere (its own config sections do not count).
    const withoutConfigHeaders = (m: string) => m.replace(/^\s*\[(?:tool[.:]pytest[^\]]*|pytest)\]\s*$/gm, '');
    if (!mentions.some((m) => /\bpytest\b/i.test(withoutConfigHeaders(m)))) steps.push(`${pip} install pytest`);
    const inVenv = python === 'python' ? '' : `, in ${python.split('/')[0]}`;
    return { setup: steps.join(' && '), test: `${python} -m pytest`, reason: `pytest project (${marker}${inVenv})` };
  },
  reportExtension: 'xml',
  relatedByImports: true,
  compose: (info, reportFile) => ({ command: `${info.base} ${JUNIT(reportFile)}`, reportFile, format: 'junit', flavour: 'pytest', parsedFrom: 'pytest' }),
  related(info, changed, allFiles, reportFile) {
    // Only when the command names no paths of its own (flags only).
    const args = core(info.base).replace(PYTEST_CALL, '').split(/\s+/).filter(Boolean);
    if (args.some((a) => !a.startsWith('-'))) return null;
    const tests = new Set<string>(changed.filter((p) => PY_TEST.test(p)));
    for (const p of changed) {
      if (!p.endsWith('.py') || PY_TEST.test(p)) continue;
      const stem = p.split('/').pop()!.replace(/\.py$/, '');
      for (const t of allFiles) {
        const name = t.split('/').pop()!;
        if (PY_TEST.test(t) && (name === `test_${stem}.py` || name === `${stem}_test.py`)) tests.add(t);
      }
    }
    if (tests.size === 0) return null;
    return { command: `${info.base} ${[...tests].map(quote).join(' ')} ${JUNIT(reportFile)}`, reportFile, format: 'junit', flavour: 'pytest', parsedFrom: 'pytest' };
  },
  files: (info, testFiles, reportFile) => ({
    command: `${info.base} ${testFiles.map(quote).join(' ')} ${JUNIT(reportFile)}`,
    reportFile,
    format: 'junit',
    flavour: 'pytest',
    parsedFrom: 'pytest',
  }),
  display: (command) => command.replace(/ --junitxml=\S+ -o junit_family=xunit1/g, ''),
  output: [
    {
      kind: 'lines',
      detect: (t) =>
        /\.py::\S.*\s(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/.test(t) ||
        /^\[gw\d+\]\s+\[\s*\d+%\]\s+(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+\S+\.py::/m.test(t) ||
        /^SUBFAILED\S*(?:\s*\([^)]*\))?\s+\S+\.py::/m.test(t) ||
        /^(?:FAILED|ERROR) \S+(?:::|\.py)/m.test(t) ||
        /^=+ .*\b(?:passed|failed|errors?)\b.* in [\d.]+s\b/m.test(t),
      parse: parsePytest,
    },
  ],
};
