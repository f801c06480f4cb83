/**
 * End to end: the bundled action under node 24, against a fake GitHub API (OpenAPI-validated)
 * and a scripted OpenAI-compatible server, on a real git repository with a real failing test.
 */
import { readFileSync, existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeGitHub, type FakeGitHub } from '../../test-support/fake-github.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted/server.js';
import { parseScript, type Script } from '../../src/scripted/script.js';
import { makeRepo, readTree, cloneShallow, cloneFull, cleanupFixtures, tempDir, gitIn, type RepoFixture } from '../../test-support/git-fixture.js';
import { actionInputs, runAction, ROOT, type ActionRun } from '../../test-support/run-action.js';

const GH_TOKEN = 'ghs_e2eFakeWorkflowToken0123456789';
const API_KEY = 'sk-e2e-fake-model-key-9876543210';
const OWNER = 'octo';
const REPO = 'tiny-shop';

const SAMPLE = readTree(path.join(ROOT, 'demo', 'sample-repo'));
const DEMO_SCRIPT = parseScript(JSON.parse(readFileSync(path.join(ROOT, 'demo', 'script.json'), 'utf8')));

interface World {
  repo: RepoFixture;
  github: FakeGitHub;
  model: ScriptedModel;
  run: (o?: { actor?: string; inputs?: Record<string, string>; payload?: unknown; eventName?: string; extraEnv?: Record<string, string> }) => Promise<ActionRun>;
}

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

function labeledPayload(actor: string) {
  return {
    action: 'labeled',
    label: { name: 'agent-fix' },
    issue: { number: 7, title: 'Cart total is wrong for quantities and discounts', body: 'see tests', state: 'open', user: { login: 'reporter', type: 'User' }, updated_at: new Date().toISOString() },
    repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
    sender: { login: actor, type: 'User' },
  };
}

async function world(script: Script, files: Record<string, string> = SAMPLE): Promise<World> {
  const repo = makeRepo(files);
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel(script);
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  github.setPermission('visitor', 'read');
  github.addIssue({ number: 7, title: 'Cart total is wrong for quantities and discounts', body: readFileSync(path.join(ROOT, 'demo', 'issue.md'), 'utf8'), author: 'reporter', labels: ['agent-fix'] });
  const run: World['run'] = async (o = {}) => {
    const checkout = cloneShallow(repo.remoteUrl);
    return runAction({
      workspace: checkout.dir,
      tempDir: tempDir('agent-fix-runner-'),
      eventName: o.eventName ?? 'issues',
      payload: o.payload ?? labeledPayload(o.actor ?? 'maintainer'),
      repository: `${OWNER}/${REPO}`,
      apiUrl: github.url,
      inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: model.url }, o.inputs),
      extraEnv: o.extraEnv,
    });
  };
  return { repo, github, model, run };
}

function remoteBranch(repo: RepoFixture, branch: string): string | null {
  try {
    return gitIn(repo.remoteDir)('rev-parse', '--verify', `refs/heads/${branch}`);
  } catch {
    return null;
  }
}

function botComments(github: FakeGitHub) {
  return github.comments.filter((c) => c.issueNumber === 7 && c.body.includes('<!-- agent-fix:issue-7 -->'));
}

describe('action end to end (dist/index.js under node 24)', () => {
  test('a fix that takes two attempts becomes one draft PR with an honest report', async () => {
    const w = await world(DEMO_SCRIPT);
    const r = await w.run({ inputs: { 'model-prices': '{"scripted-e2e": {"input": 10, "output": 40}}' } });
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('fixed');
    expect(r.outputs.reason).toBe('verified');
    expect(r.outputs.branch).toBe('agent-fix/issue-7');
    expect(r.outputs.iterations).toBe('2');
    expect(r.outputs['pull-request-operation']).toBe('created');
    expect(r.outputs['head-sha']).toBe(remoteBranch(w.repo, 'agent-fix/issue-7'));
    // tokens and cost are the run's own usage (the scripted server's counts), priced by the given table
    const usage = JSON.parse(readFileSync(r.outputs['transcript-path'], 'utf8')).result.usage;
    expect(Number(r.outputs.tokens)).toBe(usage.promptTokens + usage.completionTokens);
    expect(usage.promptTokens).toBeGreaterThan(0);
    expect(r.outputs['cost-usd']).toBe(((usage.promptTokens * 10 + usage.completionTokens * 40) / 1e6).toFixed(4));
    // one log group per phase, the model's tool calls inside their attempt's group
    expect(r.stdout).toContain('::group::agent-fix: Model check');
    expect(r.stdout).toMatch(/::group::agent-fix: Baseline: npm test\n[\s\S]*?✓ Baseline: npm test: fails \(exit 1; 2 passed, 2 failed\)\n::endgroup::/);
    expect(r.stdout).toMatch(/::group::agent-fix: Attempt 1\n(?:(?!::group::)[\s\S])*? {2}read_file src\/cart\.js(?:(?!::group::)[\s\S])*?✗ Attempt 1: rejected: [^\n]*\n::endgroup::/);
    expect(r.stdout).toMatch(new RegExp(`::group::agent-fix: Publish\\n[\\s\\S]*?✓ Publish: pull request #${r.outputs['pr-number']} created from agent-fix/issue-7\\n::endgroup::`));
    expect(r.stdout.match(/::group::/g)?.length).toBe(r.stdout.match(/::endgroup::/g)?.length);
    expect(w.model.mismatches).toEqual([]);
    w.github.assertNoViolations();

    expect(w.github.pulls).toHaveLength(1);
    const pr = w.github.pulls[0];
    expect(pr).toMatchObject({ head: 'agent-fix/issue-7', base: 'main', draft: true, state: 'open' });
    expect(r.outputs['pr-number']).toBe(String(pr.number));
    expect(pr.body).toContain('Fixes #7');
    expect(pr.body).toMatch(/before \(baseline.*FAIL \(exit 1; 2 passed, 2 failed\)/);
    expect(pr.body).toMatch(/after \(final gate\).*pass \(exit 0; 4 passed, 0 failed\)/);
    expect(pr.body).toContain('**1 file changed**, +2 −2: `src/cart.js` (+2 −2)');

    // the pushed branch is one bot commit on top of the base, changing only src/cart.js
    const sha = remoteBranch(w.repo, 'agent-fix/issue-7');
    expect(sha).toBeTruthy();
    const g = gitIn(w.repo.remoteDir);
    expect(g('rev-parse', `${sha}^`)).toBe(w.repo.sha);
    expect(g('diff', '--name-only', w.repo.sha, sha!)).toBe('src/cart.js');
    expect(g('log', '-1', '--format=%ae', sha!)).toBe('41898282+github-actions[bot]@users.noreply.github.com');
    expect(g('show', `${sha}:src/cart.js`)).toContain('item.price * item.quantity');

    const comments = botComments(w.github);
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain(`/pull/${pr.number}`);
    expect(r.summary).toContain('Test report');
    const transcript = JSON.parse(readFileSync(r.outputs['transcript-path'], 'utf8'));
    expect(transcript.entries.some((e: { event: { type: string } }) => e.event.type === 'model-reply')).toBe(true);
    expect(transcript.entries.some((e: { event: { type: string } }) => e.event.type === 'test-run')).toBe(true);
  });

  test('a re-run updates the same branch, PR and comment instead of duplicating them', async () => {
    const w = await world(DEMO_SCRIPT);
    const first = await w.run();
    expect(first.outputs.status).toBe('fixed');
    // second run: a fresh scripted session with the same answers
    const again = await startScriptedModel(DEMO_SCRIPT);
    open.push(again);
    const second = await w.run({ inputs: { 'base-url': again.url } });
    expect(second.outputs.status).toBe('fixed');
    expect(first.outputs['pull-request-operation']).toBe('created');
    expect(second.outputs['pull-request-operation']).toBe('updated');
    expect(second.outputs['head-sha']).toBe(remoteBranch(w.repo, 'agent-fix/issue-7'));
    expect(w.github.pulls).toHaveLength(1);
    expect(second.outputs['pr-number']).toBe(first.outputs['pr-number']);
    expect(botComments(w.github)).toHaveLength(1);
    expect(w.github.comments.filter((c) => c.issueNumber === 7)).toHaveLength(1);
    w.github.assertNoViolations();
  });

  test('a re-run never overwrites commits a human pushed to the agent branch: it stops and says so', async () => {
    const w = await world(DEMO_SCRIPT);
    expect((await w.run()).outputs.status).toBe('fixed');
    // a maintainer adds a commit on top of the bot's branch
    const human = cloneFull(w.repo.remoteUrl);
    human.git('fetch', '-q', 'origin', 'agent-fix/issue-7');
    human.git('checkout', '-q', '-b', 'agent-fix/issue-7', 'FETCH_HEAD');
    writeFileSync(path.join(human.dir, 'NOTES.md'), 'reviewed by a human\n');
    human.git('add', 'NOTES.md');
    human.git('commit', '-q', '-m', 'human review notes');
    human.git('push', '-q', 'origin', 'agent-fix/issue-7');
    const humanTip = remoteBranch(w.repo, 'agent-fix/issue-7');

    const again = await startScriptedModel(DEMO_SCRIPT);
    open.push(again);
    const r = await w.run({ inputs: { 'base-url': again.url } });
    expect(r.outputs.status).toBe('not-fixed');
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBe(humanTip);
    expect(w.github.pulls).toHaveLength(1);
    const [comment] = botComments(w.github);
    expect(comment.body).toContain('never overwrites a human');
    expect(comment.body).toContain('by Hana Human');
    w.github.assertNoViolations();
  });

  test('a model that calls finish while tests still fail gets no PR, and the comment says why', async () => {
    const script = parseScript({
      label: 'stubborn',
      steps: [
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.js', old_string: '(sum, item) => sum + item.price, 0)', new_string: '(sum, item) => sum + item.price * item.quantity, 0)' } }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'Fixed everything.' } }] },
        { expect: { lastMessageIncludes: 'Verification FAILED' }, toolCalls: [{ name: 'finish', arguments: { summary: 'Really fixed now.' } }] },
      ],
    });
    const w = await world(script);
    const r = await w.run({ inputs: { 'max-iterations': '2' } });
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('not-fixed');
    expect(r.outputs.reason).toBe('tests-still-failing');
    expect(r.outputs['pr-number']).toBe('');
    expect(r.outputs['head-sha']).toBe('');
    expect(r.outputs['pull-request-operation']).toBe('none');
    expect(Number(r.outputs.tokens)).toBeGreaterThan(0);
    expect(r.outputs['cost-usd']).toBe(''); // no price known for the scripted model name
    expect(w.model.mismatches).toEqual([]);
    expect(w.github.pulls).toHaveLength(0);
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBeNull();
    const [comment] = botComments(w.github);
    expect(comment.body).toContain('Not fixed');
    expect(comment.body).toContain('no pull request was opened');
    expect(comment.body).toContain('applies a percentage discount');
    w.github.assertNoViolations();
  });

  test('a rejected key fails the endpoint check before any test runs: the step fails, the comment says what to fix', async () => {
    const w = await world(DEMO_SCRIPT);
    const strict = await startScriptedModel(DEMO_SCRIPT, { apiKey: 'sk-the-right-key-123456' });
    open.push(strict);
    const r = await w.run({ inputs: { 'base-url': strict.url } });
    expect(r.code).toBe(1);
    expect(r.outputs).toMatchObject({ status: 'error', reason: 'model-error', 'pull-request-operation': 'none', tokens: '0' });
    expect(r.stdout).toMatch(/::error::agent-fix: The model endpoint check failed, so nothing was run: .*HTTP 401.*check the `api-key` input \(for GitHub Models the job needs `permissions: models: read`\)/);
    expect(r.stdout).not.toContain('::group::agent-fix: Baseline');
    expect(strict.consumed).toBe(0);
    const transcript = JSON.parse(readFileSync(r.outputs['transcript-path'], 'utf8'));
    expect(transcript.entries.some((e: { event: { type: string } }) => e.event.type === 'test-run' || e.event.type === 'command')).toBe(false);
    const [comment] = botComments(w.github);
    expect(comment.body).toContain('The model endpoint check failed, so nothing was run');
    expect(r.stdout.split('\n').filter((l) => l.includes(API_KEY) && !l.startsWith('::add-mask::'))).toEqual([]);
    w.github.assertNoViolations();
  });

  test('a `/agent-fix` comment triggers the run and its extra instructions reach the model', async () => {
    const w = await world(DEMO_SCRIPT);
    const payload = {
      action: 'created',
      issue: { number: 7, title: 'Cart total is wrong for quantities and discounts', body: 'see tests', state: 'open', user: { login: 'reporter', type: 'User' } },
      comment: { id: 555, body: '/agent-fix keep the exported function names unchanged', user: { login: 'maintainer', type: 'User' }, created_at: new Date().toISOString(), updated_at: new Date().toISOString() },
      repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
      sender: { login: 'maintainer', type: 'User' },
    };
    const r = await w.run({ eventName: 'issue_comment', payload });
    expect(r.outputs.status).toBe('fixed');
    expect(JSON.stringify(w.model.requests[0])).toContain('keep the exported function names unchanged');
    expect(w.github.pulls).toHaveLength(1);
    w.github.assertNoViolations();
  });

  test('any other event is skipped with a logged reason and touches nothing', async () => {
    const w = await world(DEMO_SCRIPT);
    const r = await w.run({ eventName: 'push', payload: { ref: 'refs/heads/main', sender: { login: 'maintainer', type: 'User' } } });
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(r.outputs.reason).toBe('not-triggered');
    expect(r.outputs['pull-request-operation']).toBe('none');
    expect(r.outputs.tokens).toBe('0');
    expect(r.stdout).toContain('push');
    expect(w.github.requests).toHaveLength(0);
    expect(w.model.requests).toHaveLength(0);
  });

  test('an actor without write permission is refused: nothing else happens', async () => {
    const w = await world(DEMO_SCRIPT);
    const r = await w.run({ actor: 'visitor' });
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(r.outputs.reason).toBe('unauthorized');
    expect(r.stdout).toContain('visitor');
    expect(w.model.requests).toHaveLength(0);
    expect(w.github.comments).toHaveLength(0);
    expect(w.github.pulls).toHaveLength(0);
    w.github.assertNoViolations();
  });

  test('edits outside the repository or into workflows are refused back to the model, and the run goes on', async () => {
    const script = parseScript({
      label: 'escape attempts',
      steps: [
        { toolCalls: [{ name: 'write_file', arguments: { path: '../escaped.txt', content: 'pwned' } }] },
        { expect: { lastMessageIncludes: 'outside the repository' }, toolCalls: [{ name: 'write_file', arguments: { path: '.github/workflows/evil.yml', content: 'on: push' } }] },
        { expect: { lastMessageIncludes: 'protected' }, toolCalls: [{ name: 'edit_file', arguments: { path: '.git/config', old_string: '[core]', new_string: '[core]\n\thooksPath = /tmp' } }] },
        ...DEMO_SCRIPT.steps,
      ],
    });
    const w = await world(script);
    const r = await w.run();
    expect(r.outputs.status).toBe('fixed');
    expect(w.model.mismatches).toEqual([]);
    const sha = remoteBranch(w.repo, 'agent-fix/issue-7')!;
    expect(gitIn(w.repo.remoteDir)('diff', '--name-only', w.repo.sha, sha)).toBe('src/cart.js');
    expect(existsSync(path.join(path.dirname(w.repo.dir), 'escaped.txt'))).toBe(false);
    w.github.assertNoViolations();
  });

  test('a test command that prints secrets leaks them nowhere: not to the model, GitHub, the log or the transcript', async () => {
    const leaky = { ...SAMPLE, 'leak.sh': '#!/bin/sh\necho "secrets in env: $(printenv | grep -ciE \'token|secret|key\')"\necho "token in env: ${GITHUB_TOKEN:-absent} ${SUPER_SECRET_TOKEN:-absent}"\n' };
    const w = await world(DEMO_SCRIPT, leaky);
    const b64 = Buffer.from(GH_TOKEN).toString('base64');
    const other = 'hunter2-very-secret-value';
    // prints the env's secrets (scrubbed: absent) and, as a misconfigured command might, the token itself and its base64 form
    const testCommand = `sh leak.sh; echo "literal: ${GH_TOKEN} ${b64}"; npm test`;
    const r = await w.run({ inputs: { 'test-command': testCommand }, extraEnv: { SUPER_SECRET_TOKEN: other, GITHUB_TOKEN: GH_TOKEN } });
    expect(r.outputs.status).toBe('fixed');
    const places = {
      model: JSON.stringify(w.model.requests),
      github: JSON.stringify(w.github.requests.map((q) => q.body ?? null)),
      // the runner consumes `::add-mask::` commands and never shows them; everything else is the visible log
      log: (r.stdout + r.stderr).split('\n').filter((l) => !l.startsWith('::add-mask::')).join('\n'),
      summary: r.summary,
      transcript: readFileSync(r.outputs['transcript-path'], 'utf8'),
    };
    for (const [where, text] of Object.entries(places)) {
      for (const secret of [GH_TOKEN, API_KEY, b64, other]) {
        if (text.includes(secret)) throw new Error(`a secret leaked into ${where}: ${text.slice(Math.max(0, text.indexOf(secret) - 300), text.indexOf(secret) + 60).replaceAll(secret, "<SECRET>")}`);
      }
    }
    // the child process saw none of them in its environment, and the literal ones were masked
    // (the transcript keeps the output; the model's feedback keeps only what explains the failures)
    expect(places.transcript).toContain('secrets in env: 0');
    expect(places.transcript).toContain('token in env: absent absent');
    expect(places.transcript).toContain('literal: *** ***');
    expect(places.model).toContain('literal: *** ***');
    w.github.assertNoViolations();
  });
});
