/**
 * The gate end to end through the CLI bundle (dist/cli.js under node 24, real git, real
 * `node --test`, scripted model): a weakened test is refused by the original-test gate and
 * the model is told why; half a fix across two test files is refused with the import chain
 * as evidence while a truly unrelated failure is excused with its evidence; a stray comment
 * line in the published change is flagged.
 */
import { startScriptedModel } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { makeRepo, cleanupFixtures, gitIn } from '../../test-support/git-fixture.js';
import { runCli } from '../../test-support/run-action.js';

afterAll(() => cleanupFixtures());

const cli = (args: string[]) => runCli(args, { OPENAI_API_KEY: 'sk-local-test-key-123456' });

const edit = (p: string, oldString: string, newString: string) => ({ name: 'edit_file', arguments: { path: p, old_string: oldString, new_string: newString } });
const finish = (summary: string) => ({ name: 'finish', arguments: { summary } });
const PKG = (name: string) => JSON.stringify({ name, private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n';

async function fix(files: Record<string, string>, task: string, steps: unknown[], maxIterations = 2) {
  const repo = makeRepo(files);
  const model = await startScriptedModel(parseScript({ label: 'gate', steps }));
  try {
    const r = await cli(['fix', task, '--repo', repo.dir, '--test-command', 'npm test', '--base-url', model.url, '--max-iterations', String(maxIterations), '--json']);
    return { r, report: JSON.parse(r.stdout), repo, mismatches: model.mismatches };
  } finally {
    await model.close();
  }
}

test('the test set to the buggy output is refused by the original tests; the real fix with a new test and a stray comment is published, the comment flagged', async () => {
  const files = {
    'package.json': PKG('clampy'),
    'src/clamp.js': 'export function clamp(x, lo, hi) {\n  return Math.min(lo, Math.max(hi, x));\n}\n',
    'test/clamp.test.js':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clamp } from '../src/clamp.js';\n\ntest('keeps a value inside the range', () => {\n  assert.equal(clamp(5, 0, 10), 5);\n});\n",
  };
  const { r, report, repo, mismatches } = await fix(files, 'clamp(5, 0, 10) returns 0', [
    // (the issue's own example, `assert.ok(clamp(5, 0, 10) !== undefined)`, is refused earlier by the guard: test-blocks.test.ts)
    { toolCalls: [edit('test/clamp.test.js', 'assert.equal(clamp(5, 0, 10), 5);', 'assert.equal(clamp(5, 0, 10), 0);')] },
    { toolCalls: [finish('The test expected the wrong value.')] },
    {
      expect: { lastMessageIncludes: 'REFUSED by the original-test gate' },
      toolCalls: [edit('test/clamp.test.js', 'assert.equal(clamp(5, 0, 10), 0);', 'assert.equal(clamp(5, 0, 10), 5);')],
    },
    { toolCalls: [edit('src/clamp.js', '  return Math.min(lo, Math.max(hi, x));', '  // lower bound first, then the upper bound\n  return Math.min(hi, Math.max(lo, x));')] },
    { toolCalls: [edit('test/clamp.test.js', "test('keeps a value inside the range', () => {", "test('lowers a value above the range', () => {\n  assert.equal(clamp(42, 0, 10), 10);\n});\n\ntest('keeps a value inside the range', () => {")] },
    { toolCalls: [finish('min and max were swapped; a test for the upper bound.')] },
  ]);
  expect(mismatches).toEqual([]);
  expect(r.code).toBe(0);
  expect(report.status).toBe('fixed');
  // attempt 1: the model's own run passed, the original tests did not
  expect(report.attempts[0].verdict.ok).toBe(false);
  expect(report.attempts[0].verdict.summary).toContain('refused by the original-test gate');
  expect(report.tests.refusals[0]).toBe(
    "[original-tests] The repository's tests as they were before the change (test/clamp.test.js set aside), run against only the source changes: 1 test(s) fail with the original tests: keeps a value inside the range.",
  );
  // attempt 2: the original tests pass against the fix; the new test is in the published change
  expect(report.tests.original).toMatchObject({ ok: true, testFiles: ['test/clamp.test.js'], passing: ['keeps a value inside the range'] });
  expect(report.tests.commands.map((c: { purpose: string }) => c.purpose).filter((p: string) => p === 'original-tests')).toHaveLength(2);
  expect(gitIn(repo.dir)('diff', '--name-only', 'HEAD', report.branch).split('\n')).toEqual(['src/clamp.js', 'test/clamp.test.js']);
  // the stray comment is flagged for the reviewer
  expect(report.tests.commentOnly).toEqual([{ file: 'src/clamp.js', line: 2, added: ['// lower bound first, then the upper bound'] }]);
  const md = await import('../../src/report/test-table.js').then((m) => m.renderTestSection(report));
  expect(md).toContain('**Original tests** (passed)');
  expect(md).toContain('**The gate** refused a change whose tests were edited:\n- [original-tests] The repository');
  expect(md).toContain('**Comment-only changes** (1; no effect on the code, review whether they belong in the change):\n- src/clamp.js:2 adds `// lower bound first, then the upper bound`');
});

test('half a fix across two test files that import the changed module is refused with the import chain; an unrelated failure is excused with its evidence', async () => {
  const files = {
    'package.json': PKG('yearfmt'),
    'src/format.js': "export function formatYear(year, token) {\n  if (token === 'YYYY') return String(year);\n  if (token === 'YY') return String(year);\n  return token;\n}\n",
    'src/index.js': "export { formatYear } from './format.js';\n",
    'src/legacy.js': "export const layout = () => 'v2';\n",
    'test/format.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { formatYear } from '../src/format.js';\n\ntest('YY is the last two digits of a year', () => {\n  assert.equal(formatYear(2024, 'YY'), '24');\n});\n",
    'test/locale.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { formatYear } from '../src/index.js';\n\ntest('YY pads a one-digit year', () => {\n  assert.equal(formatYear(7, 'YY'), '07');\n});\n",
    'test/legacy.test.js': "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { layout } from '../src/legacy.js';\n\ntest('legacy export keeps the v1 layout', () => {\n  assert.equal(layout(), 'v1');\n});\n",
  };
  const { r, report, mismatches } = await fix(files, 'The YY format token is wrong', [
    { toolCalls: [edit('src/format.js', "  if (token === 'YY') return String(year);", "  if (token === 'YY') return String(year).slice(2);")] },
    { toolCalls: [finish('YY keeps the last two digits.')] },
    {
      expect: { lastMessageIncludes: '- YY pads a one-digit year: blocked: test/locale.test.js imports src/index.js → src/format.js' },
      toolCalls: [edit('src/format.js', "  if (token === 'YY') return String(year).slice(2);", "  if (token === 'YY') return String(year % 100).padStart(2, '0');")],
    },
    { toolCalls: [finish('YY is the year modulo 100, padded to two digits.')] },
  ]);
  expect(mismatches).toEqual([]);
  expect(r.code).toBe(0);
  expect(report.status).toBe('fixed');
  const [first, second] = report.attempts.map((a: { verdict: unknown }) => a.verdict);
  // the old rule (names and files) excused the locale failure; the import chain does not
  expect(first).toMatchObject({ ok: false, nowPassing: ['YY is the last two digits of a year'], taskFailures: ['YY pads a one-digit year'] });
  expect(first.tolerance).toEqual(
    expect.arrayContaining([
      { id: 'YY pads a one-digit year', file: 'test/locale.test.js', excused: false, evidence: 'blocked: test/locale.test.js imports src/index.js → src/format.js' },
      expect.objectContaining({ id: 'legacy export keeps the v1 layout', excused: true }),
    ]),
  );
  expect(second).toMatchObject({ ok: true, preexisting: ['legacy export keeps the v1 layout'] });
  expect(second.tolerance).toEqual([
    {
      id: 'legacy export keeps the v1 layout',
      file: 'test/legacy.test.js',
      excused: true,
      evidence: "excused: test/legacy.test.js: its 1 imported file(s) of the repository include no changed file, and it fails exactly as before (Expected values to be strictly equal: 'v2' !== 'v1' @ test/legacy.test.js:5:1)",
    },
  ]);
  // no test file changed: no original-test run
  expect(report.tests.original).toBeUndefined();
});

test('the real fix with the failing test weakened is refused: the test edits alone make it pass on the original code', async () => {
  const files = {
    'package.json': PKG('clampy'),
    'src/clamp.js': 'export function clamp(x, lo, hi) {\n  return Math.min(lo, Math.max(hi, x));\n}\n',
    'test/clamp.test.js':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clamp } from '../src/clamp.js';\n\ntest('keeps a value inside the range', () => {\n  assert.equal(clamp(5, 0, 10), 5);\n});\n",
  };
  const { r, report, mismatches } = await fix(files, 'clamp(5, 0, 10) returns 0', [
    { toolCalls: [edit('src/clamp.js', '  return Math.min(lo, Math.max(hi, x));', '  return Math.min(hi, Math.max(lo, x));')] },
    // the test changed to inputs the buggy code gets right (a swallowing try/catch is refused earlier, by the guard: test-blocks.test.ts)
    { toolCalls: [edit('test/clamp.test.js', '  assert.equal(clamp(5, 0, 10), 5);', '  assert.equal(clamp(0, 0, 0), 0);')] },
    { toolCalls: [finish('Swapped min and max; made the test robust.')] },
  ], 1); // the only attempt: the refusal ends the run (with attempts left it goes back to the model, next test)
  expect(mismatches).toEqual([]);
  expect(r.code).toBe(1);
  expect(report.status).toBe('not-fixed');
  // the model's run and the original tests both pass: the source fix is real...
  expect(report.tests.original).toMatchObject({ ok: true });
  // ...but the weakened test would be published, and it passes without the fix
  expect(report.detail).toBe(
    "The fail-to-pass proof refused the change; no branch was made.\n1 test(s) that failed before any edit pass on the original code with only the change's test edits applied (test/clamp.test.js): keeps a value inside the range. The test edits, not the source change, make them pass.",
  );
  expect(report.branch).toBeUndefined();
});
