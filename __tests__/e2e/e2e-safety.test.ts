/**
 * End to end (dist/index.js under node 24): the policy file read from the default branch
 * through the API, its errors, and the safety section of the report.
 */
import { startFakeGitHub } from '../../test-support/fake-github.js';
import { startScriptedModel } from '../../src/scripted/server.js';
import { makeRepo, cloneShallow, cleanupFixtures, tempDir } from '../../test-support/git-fixture.js';
import { runAction } from '../../test-support/run-action.js';
import { ADDER, FIX_STEPS, GH_TOKEN, API_KEY, OWNER, REPO, labeledPayload } from '../../test-support/run-main.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

async function setup(policy: string | null) {
  const repo = makeRepo(ADDER);
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel({ steps: FIX_STEPS });
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  github.addIssue({ number: 7, title: 'add is wrong', body: 'add(2, 3) returns -1', author: 'reporter', labels: ['agent-fix'] });
  if (policy !== null) github.setFile('.github/agent-fix.yml', policy);
  const result = await runAction({
    workspace: cloneShallow(repo.remoteUrl).dir,
    tempDir: tempDir('agent-fix-e2e-safety-'),
    eventName: 'issues',
    payload: labeledPayload('maintainer'),
    repository: `${OWNER}/${REPO}`,
    apiUrl: github.url,
    inputs: { 'github-token': GH_TOKEN, 'api-key': API_KEY, 'base-url': model.url, model: 'gpt-4.1-mini', 'test-command': 'node test.js', 'max-iterations': '3' },
  });
  return { github, model, result };
}

describe('policy and safety, end to end', () => {
  test('an invalid policy fails the step naming the field; nothing else happens', async () => {
    const { github, model, result } = await setup('limits:\n  max-changed-lines: lots\n');
    expect(result.code).not.toBe(0);
    expect(result.outputs.status).toBe('error');
    expect(result.stdout + result.stderr).toContain('field "limits.max-changed-lines"');
    expect(github.comments).toHaveLength(0);
    expect(model.requests).toHaveLength(0);
    github.assertNoViolations();
  });

  test('a valid policy applies and the report says which, with the isolation and the estimated cost', async () => {
    const { github, result } = await setup('limits:\n  max-changed-files: 2\nbudgets:\n  max-cost-usd: 1\n');
    expect(result.outputs.status).toBe('fixed');
    expect(result.summary).toContain('policy: .github/agent-fix.yml from the default branch main');
    expect(result.summary).toMatch(/Isolation: setup: sandboxed \(.*\), network allowed by the policy; tests: sandboxed \(.*\), no network/);
    expect(result.summary).toMatch(/cost ~\$0\.\d+ of \$1\.00/);
    expect(github.pulls).toHaveLength(1);
    github.assertNoViolations();
  });
});
