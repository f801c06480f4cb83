/**
 * Changed expectations end to end through the CLI bundle (dist/cli.js under node 24, real git,
 * real `node --test`, scripted model), an issue with no failing test as maintainers file them:
 * the fix must change what an existing test asserts. Attempt 1 also changes the expectation of
 * a test the task is not about and is refused; attempt 2 (the fix and the two related tests in
 * two files) is accepted, each changed expectation listed old → new on the report's first
 * screen. An updated snapshot whose change is the fix is accepted the same way.
 */
import { startScriptedModel } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { renderReportMarkdown } from '../../src/report/render.js';
import { makeRepo, cleanupFixtures, gitIn } from '../../test-support/git-fixture.js';
import { runCli } from '../../test-support/run-action.js';

afterAll(() => cleanupFixtures());

const cli = (args: string[]) => runCli(args, { OPENAI_API_KEY: 'sk-local-test-key-123456' });
const edit = (p: string, oldString: string, newString: string) => ({ name: 'edit_file', arguments: { path: p, old_string: oldString, new_string: newString } });
const finish = (summary: string) => ({ name: 'finish', arguments: { summary } });
const PKG = JSON.stringify({ name: 'durations', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n';
const head = (what: string) => `import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { ${what} } from '../src/duration.js';\n\n`;

async function fix(files: Record<string, string>, task: string, steps: unknown[]) {
  const repo = makeRepo(files);
  const model = await startScriptedModel(parseScript({ label: 'changed expectation', steps }));
  try {
    const r = await cli(['fix', task, '--repo', repo.dir, '--test-command', 'npm test', '--base-url', model.url, '--max-iterations', '3', '--json']);
    return { r, report: JSON.parse(r.stdout), repo, mismatches: model.mismatches };
  } finally {
    await model.close();
  }
}

test('a fix that changes two related expectations in two files is accepted and listed; one that also changes an unrelated expectation is refused first', async () => {
  const files = {
    'package.json': PKG,
    'src/duration.js': 'export const asDays = (months, days) => months * 30 + days;\nexport const asWeeks = (months, days) => asDays(months, days) / 7;\n',
    'src/price.js': "export const formatPrice = (n) => `$${n.toFixed(2)}`;\n",
    'test/duration.test.js': `${head('asDays')}test('asDays of two months and four days', () => {\n  assert.equal(asDays(2, 4), 64);\n});\n\ntest('asDays of days only', () => {\n  assert.equal(asDays(0, 4), 4);\n});\n`,
    'test/weeks.test.js': `${head('asWeeks')}test('asWeeks of two months and three days', () => {\n  assert.equal(asWeeks(2, 3), 9);\n});\n`,
    'test/price.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { formatPrice } from '../src/price.js';\n\ntest('formats a price', () => {\n  assert.equal(formatPrice(3), '$3.00');\n});\n",
  };
  const task = 'asDays and asWeeks count a month as 30 days; a month is 365/12 days.';
  const fixDuration = edit('src/duration.js', 'months * 30 + days', 'months * (365 / 12) + days');
  const newDays = edit('test/duration.test.js', 'assert.equal(asDays(2, 4), 64);', 'assert.equal(asDays(2, 4), 64.83333333333334);');
  const newWeeks = edit('test/weeks.test.js', 'assert.equal(asWeeks(2, 3), 9);', 'assert.equal(asWeeks(2, 3), 9.119047619047619);');
  const { r, report, repo, mismatches } = await fix(files, task, [
    { toolCalls: [fixDuration, newDays, newWeeks, edit('src/price.js', 'toFixed(2)', 'toFixed(1)'), edit('test/price.test.js', "'$3.00'", "'$3.0'")] },
    { toolCalls: [finish('A month is 365/12 days; prices with one decimal.')] },
    {
      expect: { lastMessageIncludes: 'the task is not about this test' },
      toolCalls: [edit('src/price.js', 'toFixed(1)', 'toFixed(2)'), edit('test/price.test.js', "'$3.0'", "'$3.00'")],
    },
    { toolCalls: [finish('A month is 365/12 days; the two tests that encoded 30 days expect the new values.')] },
  ]);
  expect(mismatches).toEqual([]);
  expect(r.code).toBe(0);
  // attempt 1: the unrelated changed expectation is refused by the original-test gate, with why
  expect(report.attempts[0].verdict.summary).toContain('refused by the original-test gate');
  expect(report.tests.refusals[0]).toMatch(/^\[original-tests\] .*1 test\(s\) fail with the original tests: formats a price; not a changed expectation: formats a price: the task is not about this test/);
  // attempt 2: accepted, both related changes listed old → new
  expect(report.status).toBe('fixed');
  expect(report.tests.original.ok).toBe(true);
  expect(report.tests.original.changedExpectations).toEqual([
    // node:test names no file in its ids
    { test: 'asDays of two months and four days', before: '64', now: '64.83333333333334' },
    { test: 'asWeeks of two months and three days', before: '9', now: '9.119047619047619' },
  ]);
  expect(report.tests.proof.status).toBe('proven');
  expect(gitIn(repo.dir)('diff', '--name-only', 'HEAD', report.branch).split('\n')).toEqual(['src/duration.js', 'test/duration.test.js', 'test/weeks.test.js']);
  // never silent: the first screen lists them
  const first = renderReportMarkdown(report, { firstScreen: true });
  expect(first).toContain('**2 existing expectations changed by the fix; review them.**');
  expect(first).toContain('| `asDays of two months and four days` | `64` | `64.83333333333334` |');
  expect(first).toContain('| `asWeeks of two months and three days` | `9` | `9.119047619047619` |');
});

test('an updated snapshot whose change is the fix is accepted as a changed expectation; the same snapshot set to the buggy output is refused', async () => {
  const table = "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { readFileSync } from 'node:fs';\nimport { asDays } from '../src/duration.js';\n\ntest('the table of month lengths matches its snapshot', () => {\n  const table = [1, 2, 3].map((m) => asDays(m, 0));\n  assert.deepEqual(table, JSON.parse(readFileSync(new URL('./__snapshots__/table.test.js.snap', import.meta.url), 'utf8')));\n});\n";
  const files = {
    'package.json': PKG,
    'src/duration.js': 'export const asDays = (months, days) => months * 30 + days;\n',
    'test/table.test.js': table,
    'test/__snapshots__/table.test.js.snap': '[30, 60, 90]\n',
  };
  const { r, report, mismatches } = await fix(files, 'The month table counts a month as 30 days; a month is 365/12 days.', [
    // the cheat first: only the snapshot rewritten, to what the code already gives, plus a no-op source edit
    { toolCalls: [edit('src/duration.js', 'months * 30 + days', 'days + months * 30'), edit('test/__snapshots__/table.test.js.snap', '[30, 60, 90]', '[30, 60, 90.0]')] },
    { toolCalls: [finish('snapshot refreshed')] },
    {
      expect: { lastMessageIncludes: 'REFUSED' },
      toolCalls: [edit('src/duration.js', 'days + months * 30', 'months * (365 / 12) + days'), edit('test/__snapshots__/table.test.js.snap', '[30, 60, 90.0]', '[30.416666666666668, 60.833333333333336, 91.25]')],
    },
    { toolCalls: [finish('A month is 365/12 days; the snapshot holds the new table.')] },
  ]);
  expect(mismatches).toEqual([]);
  expect(r.code).toBe(0);
  expect(report.attempts[0].verdict.ok).toBe(false);
  expect(report.status).toBe('fixed');
  expect(report.tests.original.changedExpectations).toEqual([
    { test: 'the table of month lengths matches its snapshot', before: '[30, 60, 90] (test/__snapshots__/table.test.js.snap)', now: '[30.416666666666668, 60.833333333333336, 91.25]' },
  ]);
  expect(report.attempts[0].verdict.summary).toContain('refused by the test-integrity guard (snapshot)');
  expect(report.attempts[1].verdict.ok).toBe(true);
});
