/**
 * End to end (issue 21): the bundles under node 24 against the scripted OpenAI-compatible server
 * enforcing GitHub Models' limits the way it answers them: a run whose conversation would pass
 * 8,000 tokens per request finishes within them, a 413 is recovered, a per-minute limit is paced
 * before the server refuses, and a spent daily quota stops the action keeping its best attempt,
 * with a comment that says when the quota resets and that `/agent-fix continue` resumes.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModel, type EndpointLimits, type ScriptedModel } from '../../src/scripted/server.js';
import { parseScript, type Script } from '../../src/scripted/script.js';
import { startFakeGitHub } from '../../test-support/fake-github.js';
import { PERCENT, QUANTITY, RATES_JS, READER } from '../../test-support/limits-task.js';
import { makeRepo, readTree, cloneShallow, cleanupFixtures, tempDir, gitIn } from '../../test-support/git-fixture.js';
import { actionInputs, runAction, runCli, ROOT } from '../../test-support/run-action.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

const KEY = 'sk-e2e-limits-key-0123456789';

/** The demo's sample repository with a long module next to the cart: read whole, it is far over 8,000 tokens. */
function sample(): Record<string, string> {
  const files = readTree(path.join(ROOT, 'demo', 'sample-repo'));
  return { ...files, 'src/rates.js': RATES_JS };
}


async function server(script: Script, limits: EndpointLimits): Promise<ScriptedModel> {
  const s = await startScriptedModel(script, { limits });
  open.push(s);
  return s;
}

async function cliFix(url: string, extra: string[]) {
  const repo = makeRepo(sample());
  const r = await runCli(['fix', 'Cart total ignores quantities and the discount percentage', '--repo', repo.dir, '--test-command', 'npm test', '--base-url', url, '--model', 'openai/gpt-4.1', '--json', ...extra], { OPENAI_API_KEY: KEY });
  expect(r.stdout.trim().startsWith('{')).toBe(true);
  return { ...r, report: JSON.parse(r.stdout), repo };
}

describe('the CLI bundle within the endpoint limits', () => {
  test('a run whose conversation would pass 8,000 tokens per request finishes within them, and the report shows the peak', async () => {
    const free = await server(READER, {});
    const unbounded = await cliFix(free.url, ['--max-input-tokens', '1000000']);
    expect(unbounded.report.status).toBe('fixed');
    expect(Math.max(...free.requestTokens)).toBeGreaterThan(8000);

    const capped = await server(READER, { maxInputTokens: 8000 });
    const r = await cliFix(capped.url, ['--max-input-tokens', '8000', '--max-output-tokens', '4000']);
    expect(r.report.status).toBe('fixed');
    expect(capped.refused).toEqual([]);
    expect(capped.requests).toHaveLength(7);
    expect(Math.max(...capped.requestTokens)).toBeLessThanOrEqual(8000);
    expect(capped.requests.every((b) => b.max_tokens === 4000)).toBe(true);
    expect(r.report.usage.peakPromptTokens).toBe(Math.max(...capped.requestTokens));
    expect(r.report.usage.inputLimit).toBe(8000);
    // the transcript records the compaction that kept it within the limit
    expect(readFileSync(r.report.transcriptPath, 'utf8')).toContain('conversation compacted to the 8000-token input limit');
  });

  test('the terminal report names the largest request and its share of the limit', async () => {
    const capped = await server(READER, { maxInputTokens: 8000 });
    const repo = makeRepo(sample());
    const r = await runCli(['fix', 'Cart total ignores quantities', '--repo', repo.dir, '--test-command', 'npm test', '--base-url', capped.url, '--model', 'openai/gpt-4.1', '--max-input-tokens', '8000'], { OPENAI_API_KEY: KEY });
    expect(r.code).toBe(0);
    const peak = Math.max(...capped.requestTokens);
    expect(r.stdout).toContain(`largest request ${peak} tokens (${Math.round((100 * peak) / 8000)} % of the 8000-token limit per request)`);
  });

  test('a 413 `tokens_limit_reached` is recovered: the limit it names is learnt and the same turn retried', async () => {
    const tight = await server(READER, { maxInputTokens: 6000 });
    const r = await cliFix(tight.url, ['--max-input-tokens', '100000']);
    expect(r.report.status).toBe('fixed');
    expect(tight.refused.length).toBeGreaterThanOrEqual(1);
    expect(tight.refused.every((x) => x.status === 413)).toBe(true);
    expect(tight.requests).toHaveLength(7);
    expect(Math.max(...tight.requestTokens)).toBeLessThanOrEqual(6000);
    expect(r.report.usage.inputLimit).toBe(6000);
    expect(readFileSync(r.report.transcriptPath, 'utf8')).toMatch(/as too large \(its limit: 6000 tokens\)/);
  });

  test('a per-minute limit with rate-limit headers is paced: the server never has to refuse', async () => {
    const limited = await server(READER, { requestsPerWindow: 2, windowMs: 1500 });
    const r = await cliFix(limited.url, []);
    expect(r.report.status).toBe('fixed');
    expect(limited.requests).toHaveLength(7);
    expect(limited.refused).toEqual([]);
    expect(r.stderr + readFileSync(r.report.transcriptPath, 'utf8')).not.toContain('HTTP 429');
  });
});

describe('the action bundle and a daily quota', () => {
  test("a spent daily quota stops at once, keeps the best attempt, and the comment says when it resets and that continue resumes", async () => {
    const OWNER = 'octo';
    const REPO = 'tiny-shop';
    const TOKEN = 'ghs_e2eLimitsToken0123456789abcd';
    const repo = makeRepo(readTree(path.join(ROOT, 'demo', 'sample-repo')));
    const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: TOKEN, gitDir: repo.remoteDir });
    open.push(github);
    github.setPermission('maintainer', 'write');
    github.addIssue({ number: 7, title: 'Cart total is wrong', body: 'see tests', author: 'maintainer', labels: ['agent-fix'] });
    const model = await server(
      parseScript({
        label: 'half a fix, then the quota',
        steps: [
          { toolCalls: [{ name: 'edit_file', arguments: QUANTITY }] },
          { toolCalls: [{ name: 'finish', arguments: { summary: 'cartTotal now multiplies price by quantity.' } }] },
          { toolCalls: [{ name: 'edit_file', arguments: PERCENT }] },
        ],
      }),
      { dailyRequests: 2, dailyRetryAfterSeconds: 5 * 3600 },
    );
    const r = await runAction({
      workspace: cloneShallow(repo.remoteUrl).dir,
      tempDir: tempDir('agent-fix-runner-'),
      eventName: 'issues',
      payload: {
        action: 'labeled',
        label: { name: 'agent-fix' },
        issue: { number: 7, title: 'Cart total is wrong', body: 'see tests', state: 'open', user: { login: 'maintainer', type: 'User' }, updated_at: new Date().toISOString() },
        repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
        sender: { login: 'maintainer', type: 'User' },
      },
      repository: `${OWNER}/${REPO}`,
      apiUrl: github.url,
      inputs: actionInputs({ token: TOKEN, apiKey: KEY, baseUrl: model.url }),
      extraEnv: { GITHUB_RUN_ID: '900', GITHUB_RUN_ATTEMPT: '1' },
    });
    expect(r.outputs.status).toBe('not-fixed');
    expect(r.outputs.reason).toBe('budget-exhausted');
    expect(model.requests).toHaveLength(2);
    expect(model.refused).toEqual([{ status: 429, why: 'daily-quota', tokens: expect.any(Number) }]);
    // the best attempt (half the fix) is kept for `/agent-fix continue`
    const kept = gitIn(repo.remoteDir)('rev-parse', '--verify', '--quiet', 'refs/heads/agent-fix/attempt/issue-7');
    expect(gitIn(repo.remoteDir)('show', `${kept}:src/cart.js`)).toContain('item.price * item.quantity');
    expect(github.pulls).toHaveLength(0);
    const sticky = github.comments.find((c) => c.issueNumber === 7 && c.body.includes('<!-- agent-fix:issue-7 -->'))!;
    expect(sticky.body).toMatch(/daily request quota is spent \(x-ratelimit-type UserByModelByDay\); it resets in about 5\.0 h \(at \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(sticky.body).toContain('`/agent-fix continue`');
    expect(sticky.body).toContain('The best attempt is kept on the branch `agent-fix/attempt/issue-7`');
    github.assertNoViolations();
  });
});
