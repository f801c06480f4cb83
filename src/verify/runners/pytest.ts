/**
 * pytest: detected by its configuration (pytest.ini, pyproject.toml, setup.cfg, tox.ini,
 * conftest.py) or `test_*.py` files, with the pip installs the project needs; asked for a
 * JUnit report (`--junitxml`, read by runners/junit.ts with pytest ids); related tests are
 * the changed test files and the `test_<name>.py` / `<name>_test.py` of changed modules;
 * the plain output (`-v` lines, the short test summary) parsed when no report exists.
 */
import type { TestStatus } from '../types.js';
import { isTestFileByName } from '../test-files.js';
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

function parsePytest(lines: string[]): ParserResult {
  const out = new Collector();
  let totals: TestTotals | undefined;
  for (const line of lines) {
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
const JUNIT = (reportFile: string) => `--junitxml=${quote(reportFile)} -o junit_family=xunit1`;

export const pytest: TestRunner = {
  id: 'pytest',
  stack: 'python',
  parsedFrom: 'pytest',
  invokedBy: (c) => /^(?:pytest|py\.test|python3?\s+-m\s+pytest)\b/.test(c),
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
      const isTestFile = (f: string) => f.endsWith('.py') && isTestFileByName(f);
      for (const dir of ['tests', 'test']) {
        if ((await listDir(dir)).some(isTestFile)) {
          marker = `${dir}/test_*.py`;
          break;
        }
      }
      if (!marker && (await listDir('.')).some(isTestFile)) marker = 'test_*.py';
    }
    if (!marker) return null;

    const steps: string[] = [];
    const mentions: string[] = [pyproject ?? '', setupCfg ?? '', toxIni ?? ''];
    for (const req of ['requirements.txt', 'requirements-dev.txt', 'requirements-test.txt']) {
      const content = await readText(req);
      if (content !== null) {
        steps.push(`pip install -r ${req}`);
        mentions.push(content);
      }
    }
    const setupPy = await readText('setup.py');
    if (setupPy !== null) mentions.push(setupPy);
    const installable = setupPy !== null || (pyproject !== null && /^\s*\[(project|build-system|tool\.poetry)\]/m.test(pyproject));
    if (installable) steps.push('pip install -e .');
    // pytest named as a dependency somewhere (its own config sections do not count).
    const withoutConfigHeaders = (m: string) => m.replace(/^\s*\[(?:tool[.:]pytest[^\]]*|pytest)\]\s*$/gm, '');
    if (!mentions.some((m) => /\bpytest\b/i.test(withoutConfigHeaders(m)))) steps.push('pip install pytest');
    return { setup: steps.join(' && '), test: 'python -m pytest', reason: `pytest project (${marker})` };
  },
  reportExtension: 'xml',
  compose: (info, reportFile) => ({ command: `${info.base} ${JUNIT(reportFile)}`, reportFile, format: 'junit', flavour: 'pytest', parsedFrom: 'pytest' }),
  related(info, changed, allFiles, reportFile) {
    // Only when the command names no paths of its own (flags only).
    const args = core(info.base).replace(/^(?:pytest|py\.test|python3?\s+-m\s+pytest)\s*/, '').split(/\s+/).filter(Boolean);
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
        /^(?:FAILED|ERROR) \S+(?:::|\.py)/m.test(t) ||
        /^=+ .*\b(?:passed|failed|errors?)\b.* in [\d.]+s\b/m.test(t),
      parse: parsePytest,
    },
  ],
};
