/**
 * End to end (dist/index.js under node 24, fake GitHub, scripted model): the test-integrity
 * guard refuses a skipped test back to the model; the model then fixes the code and adds a
 * test; the PR shows the test table, the refusal and the fail-to-pass proof.
 */
import path from 'node:path';
import { startFakeGitHub } from '../../test-support/fake-github.js';
import { startScriptedModel } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { makeRepo, readTree, cloneShallow, cleanupFixtures, tempDir } from '../../test-support/git-fixture.js';
import { actionInputs, runAction, ROOT } from '../../test-support/run-action.js';

const GH_TOKEN = 'ghs_e2eFakeWorkflowToken0123456789';
const OWNER = 'octo';
const REPO = 'tiny-shop';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

test('a skipped test is refused; the real fix with a new test gets a PR with the test table and the fail-to-pass proof', async () => {
  const edit = (p: string, oldString: string, newString: string) => ({ name: 'edit_file', arguments: { path: p, old_string: oldString, new_string: newString } });
  const script = parseScript({
    label: 'guard and proof',
    steps: [
      { toolCalls: [edit('src/cart.js', '(sum, item) => sum + item.price, 0)', '(sum, item) => sum + item.price * item.quantity, 0)')] },
      { toolCalls: [edit('test/cart.test.js', "test('applies a percentage discount', () => {", "test.skip('applies a percentage discount', () => {")] },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Fixed quantities; the discount test is wrong, skipped it.' } }] },
      {
        expect: { lastMessageIncludes: 'REFUSED by the test-integrity guard' },
        toolCalls: [edit('test/cart.test.js', "test.skip('applies a percentage discount', () => {", "test('applies a percentage discount', () => {")],
      },
      { toolCalls: [edit('src/cart.js', 'const discount = subtotal * discountPercent;', 'const discount = (subtotal * discountPercent) / 100;')] },
      {
        toolCalls: [
          edit(
            'test/cart.test.js',
            "test('formats cents as dollars', () => {",
            "test('discounts a cart of several items', () => {\n  assert.equal(cartTotal([{ name: 'a', price: 100, quantity: 1 }, { name: 'b', price: 300, quantity: 1 }], 50), 200);\n});\n\ntest('formats cents as dollars', () => {",
          ),
        ],
      },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'Multiply by quantity, divide the discount percentage by 100; a test for a multi-item discount.' } }] },
    ],
  });
  const repo = makeRepo(readTree(path.join(ROOT, 'demo', 'sample-repo')));
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel(script);
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  github.addIssue({ number: 7, title: 'Cart total is wrong', body: 'Quantities and discounts are wrong.', author: 'reporter', labels: ['agent-fix'] });
  const checkout = cloneShallow(repo.remoteUrl);
  const r = await runAction({
    workspace: checkout.dir,
    tempDir: tempDir('agent-fix-runner-'),
    eventName: 'issues',
    payload: {
      action: 'labeled',
      label: { name: 'agent-fix' },
      issue: { number: 7, title: 'Cart total is wrong', body: 'x', state: 'open', user: { login: 'reporter', type: 'User' }, updated_at: new Date().toISOString() },
      repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
      sender: { login: 'maintainer', type: 'User' },
    },
    repository: `${OWNER}/${REPO}`,
    apiUrl: github.url,
    inputs: actionInputs(
      { token: GH_TOKEN, apiKey: 'sk-fake', baseUrl: model.url },
      { 'test-command': 'node --test', 'feedback-tokens': '3000', 'related-tests-first': 'true', 'test-integrity-allow': '' },
    ),
  });
  expect(model.mismatches).toEqual([]);
  expect(r.outputs.status).toBe('fixed');
  expect(github.pulls).toHaveLength(1);
  const body = github.pulls[0].body;
  expect(body).toContain('| before | 2 passed, 2 failed, 0 skipped (node-test report) |');
  expect(body).toContain('| after | 5 passed, 0 failed, 0 skipped (node-test report) |');
  expect(body).toContain('**Newly passing** (2)');
  expect(body).toContain('**Test-integrity guard** refused');
  expect(body).toContain('[skip] adds a skip/only/xfail marker in test/cart.test.js');
  expect(body).toContain('**Fail-to-pass proof**: fails before, passes after.');
  expect(body).toContain('| `discounts a cart of several items` | failed | passed |');
  expect(body).toMatch(/\| full suite \(gate\) \| `node --test` \| 0 \| 5 \| 0 \|/);
  expect(body).toMatch(/\| proof: changed tests on the base code \| `node --test test\/cart.test.js` \| 1 \| 2 \| 3 \|/);
  expect(body).toMatch(/\| baseline \(untouched code\) \| .* \| 1 \| 2 \| 2 \|/);
  expect(body).toContain('proof: changed tests on the base code');
  const comment = github.comments.find((c) => c.issueNumber === 7 && c.body.includes('opened'));
  // the comment is the first screen (the PR holds the test report, proof included)
  expect(comment?.body).toContain('| whole command `node --test` |');
  expect(comment?.body).not.toContain('<details>');
  github.assertNoViolations();
});
