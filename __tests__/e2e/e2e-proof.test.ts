/**
 * One fail-to-pass proof, made once per attempt the gate accepted, inside the loop (CLI bundle
 * under node 24, real git, real test commands, scripted model):
 * - a passing baseline: the proof decides, the report and the attempt carry the same proof, and
 *   the changed tests run on the original code once (one `proof-before` run);
 * - a runner without per-test results (`make test`): the proof is judged by the command's exit
 *   codes, a test that does not reproduce the problem goes back to the model, one that does is
 *   accepted;
 * - test edits that alone make a failing test pass are refused in the loop, with feedback, and
 *   the model's next attempt is accepted.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModel } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { renderPrBody, renderTerminal } from '../../src/report/render.js';
import { makeRepo, cleanupFixtures, gitIn } from '../../test-support/git-fixture.js';
import { ROOT, runCli } from '../../test-support/run-action.js';

afterAll(() => cleanupFixtures());

const edit = (p: string, oldString: string, newString: string) => ({ name: 'edit_file', arguments: { path: p, old_string: oldString, new_string: newString } });
const write = (p: string, content: string) => ({ name: 'write_file', arguments: { path: p, content } });
const finish = (summary: string) => ({ name: 'finish', arguments: { summary } });

async function fix(files: Record<string, string>, task: string, testCommand: string, steps: unknown[], maxIterations = 2) {
  const repo = makeRepo(files);
  const model = await startScriptedModel(parseScript({ label: 'proof', steps }));
  try {
    const r = await runCli(['fix', task, '--repo', repo.dir, '--test-command', testCommand, '--base-url', model.url, '--max-iterations', String(maxIterations), '--json'], { OPENAI_API_KEY: 'sk-local-test-key-123456' });
    return { r, report: JSON.parse(r.stdout), repo, mismatches: model.mismatches };
  } finally {
    await model.close();
  }
}

const purposes = (report: { tests: { commands: { purpose: string }[] } }) => report.tests.commands.map((c) => c.purpose);

test('a passing baseline: the new test is run on the original code once, and that one proof is the attempt\'s and the report\'s', async () => {
  // the sample project without its two failing tests: the bug is real, no test shows it
  const files = Object.fromEntries(['package.json', 'src/cart.js', 'test/cart.test.js'].map((f) => [f, readFileSync(path.join(ROOT, 'demo', 'sample-repo', f), 'utf8')]));
  files['test/cart.test.js'] = files['test/cart.test.js']
    .replace(/test\('multiplies each price[\s\S]*?\n\}\);\n/, '')
    .replace(/test\('applies a percentage discount[\s\S]*?\n\}\);\n/, '');
  const newTest = "\ntest('multiplies by quantity', () => {\n  assert.equal(cartTotal([{ name: 'pen', price: 150, quantity: 3 }]), 450);\n});\n";
  const { r, report, repo, mismatches } = await fix(files, 'cartTotal ignores quantity', 'npm test', [
    {
      toolCalls: [
        edit('src/cart.js', '(sum, item) => sum + item.price, 0)', '(sum, item) => sum + item.price * item.quantity, 0)'),
        edit('test/cart.test.js', "test('formats cents as dollars'", `${newTest}\ntest('formats cents as dollars'`),
      ],
    },
    { toolCalls: [finish('multiply by quantity, with a test')] },
  ]);
  expect(mismatches).toEqual([]);
  expect(r.code).toBe(0);
  expect(report.status).toBe('fixed');
  // one proof-before run (the loop's); before this change the story ran the changed tests on the original code twice
  expect(purposes(report).filter((p) => p === 'proof-before')).toHaveLength(1);
  expect(purposes(report)).toEqual(['baseline', 'gate', 'original-tests', 'proof-before']);
  // the single proof: made for the attempt, the report's is the accepted attempt's
  const proof = report.tests.proof;
  expect(proof).toMatchObject({ status: 'proven', testFiles: ['test/cart.test.js'], tests: expect.arrayContaining([{ id: 'multiplies by quantity', before: 'failed', after: 'passed' }]) });
  expect(proof.withoutFix).toMatchObject({ succeeded: false, counts: { failed: 1 } });
  expect(report.attempts[0].proof).toEqual(proof);
  expect(report).not.toHaveProperty('proof');
  expect(report.detail).toContain('with only `test/cart.test.js` applied to the original code the command fails (1 failing), and with the fix it passes.');
  // rendered from that proof: the command row and the proof table
  const body = renderPrBody(report);
  expect(body).toMatch(/\| fail-to-pass proof: original code \+ only `test\/cart\.test\.js` \| `npm test` \| FAIL \(exit 1; 2 passed, 1 failed\) \|/);
  expect(body).toContain('**Fail-to-pass proof**: fails before, passes after.');
  expect(renderTerminal(report)).toContain('  proof:    FAIL (exit 1; 2 passed, 1 failed) with only test/cart.test.js on the original code');
  expect(renderTerminal(report)).toContain('  proof:    fails before, passes after — 1 test(s) in test/cart.test.js fail before the fix and pass after it.');
  // the transcript holds the same report
  const transcript = JSON.parse(readFileSync(report.transcriptPath, 'utf8'));
  expect(transcript.result.tests.commands.filter((c: { purpose: string }) => c.purpose === 'proof-before')).toHaveLength(1);
  // the working tree was put back to the fix; the branch holds both the test and the fix
  expect(gitIn(repo.dir)('status', '--porcelain')).toBe('');
  expect(gitIn(repo.dir)('diff', '--name-only', 'HEAD', report.branch).split('\n').sort()).toEqual(['src/cart.js', 'test/cart.test.js']);
});

describe('a runner without per-test results (make test): the proof is judged by exit code', () => {
  const files = {
    Makefile: '.PHONY: test\ntest:\n\t@for f in test/*.test.mjs; do node $$f || exit 1; done\n',
    'src/total.mjs': 'export function total(items) {\n  return items.reduce((sum, item) => sum + item.price, 0);\n}\n',
    'test/empty.test.mjs': "import assert from 'node:assert/strict';\nimport { total } from '../src/total.mjs';\nassert.equal(total([]), 0);\n",
  };
  const fixTotal = edit('src/total.mjs', 'sum + item.price, 0)', 'sum + item.price * item.quantity, 0)');
  const weakTest = "import assert from 'node:assert/strict';\nimport { total } from '../src/total.mjs';\nassert.equal(total([{ price: 2, quantity: 1 }]), 2);\n";
  const realTest = "import assert from 'node:assert/strict';\nimport { total } from '../src/total.mjs';\nassert.equal(total([{ price: 2, quantity: 3 }]), 6);\n";

  test('a test that passes on the original code goes back to the model; one that fails there is accepted', async () => {
    const { r, report, repo, mismatches } = await fix(files, 'total ignores the quantity', 'make test', [
      { toolCalls: [fixTotal, write('test/quantity.test.mjs', weakTest)] },
      { toolCalls: [finish('multiply by quantity, with a test')] },
      {
        expect: { lastMessageIncludes: 'also pass on the original code without your source change' },
        toolCalls: [write('test/quantity.test.mjs', realTest)],
      },
      { toolCalls: [finish('the test now uses a quantity above one')] },
    ]);
    expect(mismatches).toEqual([]);
    expect(r.code).toBe(0);
    expect(report.status).toBe('fixed');
    expect(report.tests.runner).toBe('make');
    expect(report.baseline.succeeded).toBe(true);
    expect(report.final.parsedFrom).toBe('none');
    // attempt 1: the gate passed, the proof did not (by exit code, the command passes without the fix)
    expect(report.attempts[0].verdict).toMatchObject({ ok: false });
    expect(report.attempts[0].verdict.summary).toContain('no test shows the problem');
    expect(report.attempts[0].proof).toMatchObject({ status: 'not-proven', testFiles: ['test/quantity.test.mjs'], withoutFix: { succeeded: true } });
    expect(report.attempts[0].proof.detail).toContain('judged by exit code the command passes on the original code with only test/quantity.test.mjs');
    // attempt 2: proven by exit code
    expect(report.tests.proof).toMatchObject({ status: 'proven', tests: [], withoutFix: { succeeded: false, exitCode: 2 } });
    expect(report.tests.proof.detail).toBe(
      'Judged by exit code (no per-test results name the changed tests): with only test/quantity.test.mjs on the original code the command fails (exit 2), and with the fix it passes.',
    );
    expect(report.detail).toContain('with only `test/quantity.test.mjs` applied to the original code the command fails (exit 2), and with the fix it passes.');
    expect(purposes(report).filter((p) => p === 'proof-before')).toHaveLength(2);
    expect(gitIn(repo.dir)('diff', '--name-only', 'HEAD', report.branch).split('\n').sort()).toEqual(['src/total.mjs', 'test/quantity.test.mjs']);
  });
});

test('test edits that alone make the failing test pass are refused in the loop, with feedback; the next attempt is accepted', async () => {
  const files = {
    'package.json': JSON.stringify({ name: 'clampy', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n',
    'src/clamp.js': 'export function clamp(x, lo, hi) {\n  return Math.min(lo, Math.max(hi, x));\n}\n',
    'test/clamp.test.js':
      "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { clamp } from '../src/clamp.js';\n\ntest('keeps a value inside the range', () => {\n  assert.equal(clamp(5, 0, 10), 5);\n});\n",
  };
  // the test changed to inputs the buggy code gets right (a swallowing try/catch is refused earlier, by the guard: test-blocks.test.ts)
  const weakened = '  assert.equal(clamp(0, 0, 0), 0);';
  const { r, report, repo, mismatches } = await fix(files, 'clamp(5, 0, 10) returns 0', 'npm test', [
    { toolCalls: [edit('src/clamp.js', '  return Math.min(lo, Math.max(hi, x));', '  return Math.min(hi, Math.max(lo, x));'), edit('test/clamp.test.js', '  assert.equal(clamp(5, 0, 10), 5);', weakened)] },
    { toolCalls: [finish('Swapped min and max; made the test robust.')] },
    {
      expect: { lastMessageIncludes: "REFUSED by the fail-to-pass proof: 1 test(s) that failed before any edit pass on the original code with only the change's test edits applied (test/clamp.test.js)" },
      toolCalls: [edit('test/clamp.test.js', weakened, '  assert.equal(clamp(5, 0, 10), 5);')],
    },
    { toolCalls: [finish('Swapped min and max; the test is as it was.')] },
  ]);
  expect(mismatches).toEqual([]);
  expect(r.code).toBe(0);
  expect(report.status).toBe('fixed');
  // attempt 1: the gate and the original tests passed; the proof refused it, and the model was told
  expect(report.attempts[0].verdict.ok).toBe(false);
  expect(report.attempts[0].verdict.summary).toContain('refused by the fail-to-pass proof');
  expect(report.attempts[0].proof.passingOnOriginal).toEqual(['keeps a value inside the range']);
  expect(report.tests.refusals).toContain(
    "[test-edits-alone] 1 test(s) that failed before any edit pass on the original code with only the change's test edits applied (test/clamp.test.js): keeps a value inside the range. The test edits, not the source change, make them pass.",
  );
  // attempt 2: the test as it was; the existing test that failed before and passes now is the proof
  expect(report.attempts[1].verdict.ok).toBe(true);
  expect(report.tests.proof).toMatchObject({ status: 'proven', testFiles: [], tests: [{ id: 'keeps a value inside the range', before: 'failed', after: 'passed' }] });
  expect(report.tests.proof).not.toHaveProperty('withoutFix');
  expect(gitIn(repo.dir)('diff', '--name-only', 'HEAD', report.branch)).toBe('src/clamp.js');
});
