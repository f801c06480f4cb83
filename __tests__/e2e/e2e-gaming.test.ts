/**
 * A change that games the tests, end to end through the bundled action (dist/index.js under
 * node 24, real git, real `node --test`, the fake GitHub API, the scripted model): the issue's
 * withVat, whose two failing tests the model turns green by special-casing their values. The
 * model is told once; when it keeps the construct the pull request is a draft although the
 * `draft` input is false, the status is not fixed (games-the-tests), and the first screen names
 * the construct. A real fix that adds an edge case is fixed and ready for review. Under the
 * policy `gate.gaming: refuse` nothing is published.
 */
import { readFileSync } from 'node:fs';
import { startFakeGitHub } from '../../test-support/fake-github.js';
import { startScriptedModel } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { makeRepo, cloneShallow, cleanupFixtures, tempDir } from '../../test-support/git-fixture.js';
import { actionInputs, runAction, runCli } from '../../test-support/run-action.js';

const GH_TOKEN = 'ghs_e2eFakeWorkflowToken0123456789';
const API_KEY = 'sk-e2e-fake-model-key-9876543210';
const OWNER = 'octo';
const REPO = 'vat';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

const FILES: Record<string, string> = {
  'package.json': `${JSON.stringify({ name: 'vat', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2)}\n`,
  'src/vat.js': 'export function withVat(net, ratePercent) {\n  return net + ratePercent;\n}\n',
  'test/vat.test.js':
    "import { test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { withVat } from '../src/vat.js';\n\ntest('adds 10 percent to 200', () => {\n  assert.equal(withVat(200, 10), 220);\n});\n\ntest('adds 10 percent', () => {\n  assert.equal(withVat(50, 10), 55);\n});\n\ntest('zero stays zero', () => {\n  assert.equal(withVat(0, 0), 0);\n});\n",
};

const edit = (p: string, oldString: string, newString: string) => ({ name: 'edit_file', arguments: { path: p, old_string: oldString, new_string: newString } });
const finish = (summary: string) => ({ name: 'finish', arguments: { summary } });
const GAME = edit('src/vat.js', '  return net + ratePercent;', '  if (net === 200 && ratePercent === 10) return 220;\n  if (net === 50 && ratePercent === 10) return 55;\n  return net + ratePercent;');

async function run(steps: unknown[], policy?: string) {
  const repo = makeRepo(FILES);
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  if (policy) github.setFile('.github/agent-fix.yml', policy);
  const model = await startScriptedModel(parseScript({ label: 'gaming', steps }));
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  const title = 'withVat adds the rate instead of the percentage';
  github.addIssue({ number: 7, title, body: 'withVat(200, 10) should be 220; the tests in test/vat.test.js fail.', author: 'reporter', labels: ['agent-fix'] });
  const checkout = cloneShallow(repo.remoteUrl);
  const r = await runAction({
    workspace: checkout.dir,
    tempDir: tempDir('agent-fix-runner-'),
    eventName: 'issues',
    payload: {
      action: 'labeled',
      label: { name: 'agent-fix' },
      issue: { number: 7, title, body: 'see tests', state: 'open', user: { login: 'reporter', type: 'User' }, updated_at: new Date().toISOString() },
      repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
      sender: { login: 'maintainer', type: 'User' },
    },
    repository: `${OWNER}/${REPO}`,
    apiUrl: github.url,
    inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: model.url }, { draft: 'false' }),
  });
  return { r, github, model };
}

describe('gaming end to end (dist/index.js under node 24)', () => {
  test('the model special-cases the failing tests: told once; kept, the pull request is a draft, not called fixed, the construct on the first screen', async () => {
    const { r, github, model } = await run([
      { toolCalls: [GAME] },
      { toolCalls: [finish('withVat now returns the right totals.')] },
      // told once what games the tests; it keeps the change and finishes again
      { expect: { lastMessageIncludes: "special-cases the failing tests' values: `if (net === 200 && ratePercent === 10) return 220;`" }, toolCalls: [finish('The tests pass.')] },
    ]);
    expect(model.mismatches).toEqual([]);
    github.assertNoViolations();
    expect(r.outputs.status).toBe('not-fixed');
    expect(r.outputs.reason).toBe('games-the-tests');
    expect(github.pulls).toHaveLength(1);
    const pr = github.pulls[0];
    // a draft although the draft input is false
    expect(pr.draft).toBe(true);
    expect(pr.body).toContain('### agent-fix: Not fixed: the change games the tests');
    expect(pr.body).not.toContain('Fixed: the tests confirm it');
    // the construct and the tests' values on the first screen, before any fold
    const firstScreen = (pr.body ?? '').split('<details>')[0];
    expect(firstScreen).toContain('**Not a fix: the tests pass because the change games them.**');
    expect(firstScreen).toContain("special-cases the failing tests' values: `if (net === 200 && ratePercent === 10) return 220;` (`src/vat.js:2`): returns 220 for 200, 10: the inputs and expected value of the failing test");
    expect(firstScreen).toContain('`if (net === 50 && ratePercent === 10) return 55;`');
    // the issue's comment links the draft and says it is not a fix
    expect(github.comments.some((c) => c.issueNumber === 7 && c.body.includes(`/pull/${pr.number} as a draft: the tests pass, but the change games them, so it is not a fix.`))).toBe(true);
    // the attempt the model was told about is in the record
    const transcript = JSON.parse(readFileSync(r.outputs['transcript-path'], 'utf8'));
    expect(transcript.result.attempts[0].verdict.summary).toContain("games the tests: special-cases the failing tests' values");
    expect(transcript.result.tests.gaming.map((g: { kind: string; line: number }) => [g.kind, g.line])).toEqual([
      ['special-cases', 2],
      ['special-cases', 3],
    ]);
  });

  test('a real fix that adds an edge case is fixed and ready for review when draft is false', async () => {
    const { r, github, model } = await run([
      { toolCalls: [edit('src/vat.js', '  return net + ratePercent;', '  if (net === 0) return 0;\n  return Math.round(net * (100 + ratePercent)) / 100;')] },
      { toolCalls: [finish('withVat applies the percentage; zero stays zero.')] },
    ]);
    expect(model.mismatches).toEqual([]);
    expect(r.outputs.status).toBe('fixed');
    expect(r.outputs.reason).toBe('verified');
    expect(github.pulls).toHaveLength(1);
    expect(github.pulls[0].draft).toBe(false);
    expect(github.pulls[0].body).toContain('### agent-fix: Fixed: the tests confirm it');
    expect(github.pulls[0].body).not.toContain('games the tests');
  });

  test('policy gate.gaming: refuse: the gaming attempt is refused every time and nothing is published', async () => {
    const { r, github, model } = await run(
      [
        { toolCalls: [GAME] },
        { toolCalls: [finish('withVat now returns the right totals.')] },
        { expect: { lastMessageIncludes: 'gate.gaming: refuse' }, toolCalls: [finish('The tests pass.')] },
        { expect: { lastMessageIncludes: 'gate.gaming: refuse' }, toolCalls: [finish('The tests still pass.')] },
      ],
      'gate:\n  gaming: refuse\n',
    );
    expect(model.mismatches).toEqual([]);
    expect(r.outputs.status).toBe('not-fixed');
    expect(r.outputs.reason).toBe('tests-still-failing');
    expect(github.pulls).toHaveLength(0);
    expect(r.summary).toContain('policy: .github/agent-fix.yml from the default branch main');
  });

  test("the CLI's --json says so: status not-fixed, reason games-the-tests, the constructs, exit code 1", async () => {
    const repo = makeRepo(FILES);
    const model = await startScriptedModel(parseScript({ label: 'gaming cli', steps: [{ toolCalls: [GAME] }, { toolCalls: [finish('withVat fixed.')] }, { toolCalls: [finish('The tests pass.')] }] }));
    open.push(model);
    const r = await runCli(['fix', 'withVat adds the rate instead of the percentage', '--repo', repo.dir, '--test-command', 'npm test', '--base-url', model.url, '--max-iterations', '3', '--json'], { OPENAI_API_KEY: 'sk-local-test-key-123456' });
    const report = JSON.parse(r.stdout);
    expect(model.mismatches).toEqual([]);
    expect(r.code).toBe(1);
    expect(report).toMatchObject({ status: 'not-fixed', reason: 'games-the-tests', exitCode: 1 });
    expect(report.detail).toMatch(/^The tests pass, but the change games them instead of fixing the code \(special-cases the failing tests' values\)/);
    expect(report.tests.gaming).toEqual([
      expect.objectContaining({ kind: 'special-cases', file: 'src/vat.js', line: 2, code: 'if (net === 200 && ratePercent === 10) return 220;' }),
      expect.objectContaining({ kind: 'special-cases', file: 'src/vat.js', line: 3, code: 'if (net === 50 && ratePercent === 10) return 55;' }),
    ]);
  });
});
