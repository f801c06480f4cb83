/**
 * End to end: the lifecycle of agent-fix's work on an issue, through the bundled action
 * (dist/index.js) under node 24, against the OpenAPI-validated fake GitHub and the scripted
 * model, on a real git repository: an issue closed (its open pull request is closed with a
 * note, or left open), `/agent-fix stop` (a real concurrent run yields at its next checkpoint),
 * `/agent-fix continue` (a budget-stopped run resumes from its best attempt) and loops that
 * cannot happen (its own comments and events never start it).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeGitHub, type FakeGitHub } from '../../test-support/fake-github.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted/server.js';
import { parseScript, type Script } from '../../src/scripted/script.js';
import { makeRepo, readTree, cloneShallow, cloneFull, commitAs, cleanupFixtures, tempDir, gitIn, HUMAN, type RepoFixture } from '../../test-support/git-fixture.js';
import { actionInputs, runAction, ROOT, type ActionRun } from '../../test-support/run-action.js';

const GH_TOKEN = 'ghs_e2eLifecycleToken0123456789ab';
const API_KEY = 'sk-e2e-lifecycle-key-9876543210';
const OWNER = 'octo';
const REPO = 'tiny-shop';
const BRANCH = 'agent-fix/issue-7';
const MARKER = '<!-- agent-fix:issue-7 -->';

const SAMPLE = readTree(path.join(ROOT, 'demo', 'sample-repo'));
const DEMO_SCRIPT = parseScript(JSON.parse(readFileSync(path.join(ROOT, 'demo', 'script.json'), 'utf8')));
const repository = { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } };

interface RunOptions {
  eventName?: string;
  payload?: unknown;
  inputs?: Record<string, string>;
  runId?: number;
  /** Run without a checkout: an empty directory as the workspace. */
  noCheckout?: boolean;
}

interface World {
  repo: RepoFixture;
  github: FakeGitHub;
  model: ScriptedModel;
  run: (o?: RunOptions) => Promise<ActionRun>;
}

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

async function world(script: Script = DEMO_SCRIPT): Promise<World> {
  const repo = makeRepo(SAMPLE);
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel(script);
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  github.setPermission('reporter', 'read');
  github.addIssue({ number: 7, title: 'Cart total is wrong for quantities and discounts', body: readFileSync(path.join(ROOT, 'demo', 'issue.md'), 'utf8'), author: 'reporter', labels: ['agent-fix'] });
  const run: World['run'] = async (o = {}) => {
    let workspace: string;
    if (o.noCheckout) {
      workspace = tempDir('agent-fix-empty-');
      mkdirSync(workspace, { recursive: true });
    } else {
      workspace = cloneShallow(repo.remoteUrl).dir;
    }
    return runAction({
      workspace,
      tempDir: tempDir('agent-fix-runner-'),
      eventName: o.eventName ?? 'issues',
      payload: o.payload ?? labeled('maintainer'),
      repository: `${OWNER}/${REPO}`,
      apiUrl: github.url,
      inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: model.url }, o.inputs),
      extraEnv: { GITHUB_RUN_ID: String(o.runId ?? 4242), GITHUB_RUN_ATTEMPT: '1' },
    });
  };
  return { repo, github, model, run };
}

function labeled(actor: string) {
  return {
    action: 'labeled',
    label: { name: 'agent-fix' },
    issue: { number: 7, title: 'Cart total is wrong for quantities and discounts', body: 'see tests', state: 'open', user: { login: 'reporter', type: 'User' }, updated_at: new Date().toISOString() },
    repository,
    sender: { login: actor, type: 'User' },
  };
}

function closed(actor: string, stateReason: string | null = 'not_planned') {
  const now = new Date().toISOString();
  return {
    action: 'closed',
    issue: { number: 7, title: 'Cart total is wrong', body: 'see tests', state: 'closed', state_reason: stateReason, closed_at: now, updated_at: now, user: { login: 'reporter', type: 'User' } },
    repository,
    sender: { login: actor, type: actor.endsWith('[bot]') ? 'Bot' : 'User' },
  };
}

function comment(body: string, actor = 'maintainer', opts: { onPullRequest?: number } = {}) {
  const now = new Date().toISOString();
  const number = opts.onPullRequest ?? 7;
  return {
    action: 'created',
    issue: { number, title: 'Cart total is wrong', body: 'see tests', state: 'open', user: { login: 'reporter', type: 'User' }, ...(opts.onPullRequest ? { pull_request: { url: `https://api.github.com/repos/${OWNER}/${REPO}/pulls/${number}` } } : {}) },
    comment: { id: 777_000 + Math.floor(Math.random() * 1000), body, user: { login: actor, type: actor.endsWith('[bot]') ? 'Bot' : 'User' }, created_at: now, updated_at: now },
    repository,
    sender: { login: actor, type: actor.endsWith('[bot]') ? 'Bot' : 'User' },
  };
}

function remoteBranch(repo: RepoFixture, branch: string): string | null {
  try {
    return gitIn(repo.remoteDir)('rev-parse', '--verify', '--quiet', `refs/heads/${branch}`);
  } catch {
    return null;
  }
}

/** agent-fix's pull request for issue 7, as an earlier run left it: its branch pushed, the PR open. */
function seedPullRequest(w: World, state: 'open' | 'closed' = 'open') {
  gitIn(w.repo.remoteDir)('branch', BRANCH, w.repo.sha);
  return w.github.addPull({ title: 'agent-fix: Cart total is wrong', body: 'Fixes #7', head: BRANCH, state, draft: true });
}

const writes = (github: FakeGitHub) => github.requests.filter((r) => r.method !== 'GET');

describe('an issue closed without agent-fix\'s pull request being merged', () => {
  test('closed by a maintainer: the open PR is closed with a note naming who and how; the branch is kept', async () => {
    const w = await world();
    const pr = seedPullRequest(w);
    const r = await w.run({ payload: closed('maintainer', 'not_planned'), noCheckout: true, inputs: { 'api-key': '' } });
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(r.outputs['pr-number']).toBe(String(pr.number));
    expect(pr.state).toBe('closed');
    expect(pr.merged).toBe(false);
    const notes = w.github.comments.filter((c) => c.issueNumber === pr.number);
    expect(notes).toHaveLength(1);
    expect(notes[0].author).toBe('github-actions[bot]');
    expect(notes[0].body).toContain('issue #7 was closed by @maintainer as not planned without this pull request being merged');
    expect(notes[0].body).toContain(`The branch \`${BRANCH}\` is kept`);
    expect(remoteBranch(w.repo, BRANCH)).toBe(w.repo.sha);
    expect(r.summary).toContain('### agent-fix: pull request closed');
    expect(w.model.requests).toHaveLength(0);
    w.github.assertNoViolations();
  });

  test('with input close-on-issue-close: false the PR stays open and nothing is written', async () => {
    const w = await world();
    const pr = seedPullRequest(w);
    const r = await w.run({ payload: closed('maintainer', 'completed'), inputs: { 'close-on-issue-close': 'false' } });
    expect(r.outputs.status).toBe('skipped');
    expect(pr.state).toBe('open');
    expect(writes(w.github)).toEqual([]);
    expect(r.summary).toContain('`close-on-issue-close` is `false`');
    expect(r.stdout).toContain('close-on-issue-close is false');
    w.github.assertNoViolations();
  });

  test('closed by its author without write permission: the PR stays open, and the log and summary say why', async () => {
    const w = await world();
    const pr = seedPullRequest(w);
    const r = await w.run({ payload: closed('reporter', 'completed') });
    expect(r.outputs.status).toBe('skipped');
    expect(pr.state).toBe('open');
    expect(writes(w.github)).toEqual([]);
    expect(r.stdout).toContain('agent-fix refused the trigger: @reporter has "read" permission');
    expect(r.summary).toContain('stays open');
    expect(r.summary).toContain('closed by @reporter as completed');
    w.github.assertNoViolations();
  });

  test('a merged PR (the issue closed by its merge) is left untouched', async () => {
    const w = await world();
    const pr = seedPullRequest(w, 'closed');
    pr.merged = true;
    const r = await w.run({ payload: closed('maintainer', 'completed') });
    expect(r.outputs.status).toBe('skipped');
    expect(writes(w.github)).toEqual([]);
    expect(r.summary).toContain('no open pull request');
    w.github.assertNoViolations();
  });
});

describe('/agent-fix stop', () => {
  test('with no run in progress it says so, needing neither a checkout nor a model key', async () => {
    const w = await world();
    // an earlier run finished long ago: its claim names a completed workflow run
    const sticky = w.github.addComment(7, { body: `${MARKER}\n**agent-fix**: Not fixed.\n<!-- agent-fix-run:100.1 -->\n`, author: 'github-actions[bot]' });
    w.github.addWorkflowRun({ id: 100, name: 'agent-fix', headSha: w.repo.sha, event: 'issues', status: 'completed', conclusion: 'success' });
    const before = sticky.body;
    const r = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix stop'), runId: 200, noCheckout: true, inputs: { 'api-key': '' } });
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(sticky.body).toBe(before);
    const replies = w.github.comments.filter((c) => c.issueNumber === 7 && c.id !== sticky.id);
    expect(replies).toHaveLength(1);
    expect(replies[0].body).toContain('no agent-fix run is in progress on this issue; nothing was stopped');
    expect(r.summary).toContain('### agent-fix: nothing to stop');
    expect(w.model.requests).toHaveLength(0);
    w.github.assertNoViolations();
  });

  test.each(['issue', 'pull request'])('a run in progress yields at its next checkpoint: final comment, nothing pushed (stop on the %s)', async (where) => {
    const w = await world(DEMO_SCRIPT);
    // on agent-fix's pull request for the issue (open from an earlier run), the run on the issue is stopped too
    const pr = where === 'pull request' ? seedPullRequest(w) : null;
    // the running run (300) and the stop (400) are real processes of the bundle
    w.github.addWorkflowRun({ id: 300, name: 'agent-fix', headSha: w.repo.sha, event: 'issues', status: 'in_progress', conclusion: null });
    w.github.addWorkflowRun({ id: 400, name: 'agent-fix', headSha: w.repo.sha, event: 'issue_comment', status: 'in_progress', conclusion: null });
    let stop: ActionRun | undefined;
    let stopping = false;
    // Once the model asked to verify its first attempt (request 4 is `finish`), the running run
    // reads its claim; that read is held until the stop run has finished.
    w.github.onRequest = async ({ method, path: p }) => {
      if (stopping || stop || method !== 'GET' || p !== `/repos/${OWNER}/${REPO}/issues/7/comments` || w.model.requests.length < 4) return;
      stopping = true;
      stop = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix stop', 'maintainer', pr ? { onPullRequest: pr.number } : {}), runId: 400, noCheckout: true });
      stopping = false;
    };
    const r = await w.run({ runId: 300 });
    w.github.onRequest = null;
    expect(stop?.outputs.status).toBe('skipped');
    expect(stop?.summary).toContain('### agent-fix: stop requested');
    expect(stop?.summary).toContain('@maintainer asked to stop the agent-fix run [300]');

    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('not-fixed');
    // it stopped at the attempt's checkpoint (read while the attempt was verified): no further model request, nothing pushed
    expect(w.model.requests).toHaveLength(4);
    if (pr) {
      // the earlier branch and PR are left as they were
      expect(remoteBranch(w.repo, BRANCH)).toBe(w.repo.sha);
      expect(w.github.pulls).toHaveLength(1);
      expect(w.github.comments.filter((c) => c.issueNumber === pr.number && c.body.includes('stop requested by @maintainer'))).toHaveLength(1);
    } else {
      expect(remoteBranch(w.repo, BRANCH)).toBeNull();
      expect(w.github.pulls).toHaveLength(0);
    }
    const sticky = w.github.comments.find((c) => c.issueNumber === 7 && c.body.includes(MARKER))!;
    expect(sticky.body).toContain('**agent-fix** was stopped by @maintainer (`/agent-fix stop`)');
    expect(sticky.body).toContain('Nothing was pushed and no pull request was opened.');
    expect(sticky.body).toContain('<!-- agent-fix-run:400.1 -->');
    const ack = w.github.comments.find((c) => c.issueNumber === 7 && c.body.includes('stop requested by @maintainer'))!;
    expect(ack.author).toBe('github-actions[bot]');
    expect(ack.body).toContain('<!-- agent-fix-stop:issue-7 400.1 @maintainer -->');
    expect(r.summary).toContain('stopped by @maintainer');
    const transcript = JSON.parse(readFileSync(r.outputs['transcript-path'], 'utf8'));
    expect(JSON.stringify(transcript)).toContain('"reason":"stopped"');
    w.github.assertNoViolations();
  });
});

/** Prices that make the scripted model's declared usage cost money: $0.001 per prompt token. */
const PRICED = { 'max-cost-usd': '1', 'model-prices': '{"scripted-e2e": {"input": 1000, "output": 0}}' };
const QUANTITY = { path: 'src/cart.js', old_string: '(sum, item) => sum + item.price, 0)', new_string: '(sum, item) => sum + item.price * item.quantity, 0)' };
const PERCENT = { path: 'src/cart.js', old_string: 'const discount = subtotal * discountPercent;', new_string: 'const discount = (subtotal * discountPercent) / 100;' };
const ATTEMPT = 'agent-fix/attempt/issue-7';
const tokens = (promptTokens: number) => ({ promptTokens, completionTokens: 0 });

/** Half a fix (verified as better: 1 failing instead of 2), then the cost budget ($1) runs out. */
const BUDGET_SCRIPT = parseScript({
  label: 'runs out of budget',
  steps: [
    { usage: tokens(100), toolCalls: [{ name: 'edit_file', arguments: QUANTITY }] },
    { usage: tokens(100), toolCalls: [{ name: 'finish', arguments: { summary: 'cartTotal now multiplies price by quantity.' } }] },
    { usage: tokens(900), expect: { lastMessageIncludes: 'best so far' }, toolCalls: [{ name: 'read_file', arguments: { path: 'src/cart.js' } }] },
  ],
});

/** The rest of the fix, from the resumed attempt; `cost` prompt tokens on the first request. */
function resumeScript(cost: number): Script {
  return parseScript({
    label: 'resumes',
    steps: [
      { usage: tokens(cost), toolCalls: [{ name: 'edit_file', arguments: PERCENT }] },
      { usage: tokens(100), toolCalls: [{ name: 'finish', arguments: { summary: 'The discount is a percentage: divide by 100.' } }] },
    ],
  });
}

async function budgetStopped(w: World): Promise<string> {
  const r = await w.run({ runId: 500, inputs: PRICED });
  expect(r.outputs.status).toBe('not-fixed');
  expect(w.model.mismatches).toEqual([]);
  const kept = remoteBranch(w.repo, ATTEMPT);
  expect(kept).toBeTruthy();
  return kept!;
}

async function model(script: Script): Promise<ScriptedModel> {
  const m = await startScriptedModel(script);
  open.push(m);
  return m;
}

describe('/agent-fix stop after the push', () => {
  test('a stop that arrives while the pull request is being opened: the final comment says what was already published', async () => {
    const w = await world(DEMO_SCRIPT);
    w.github.addWorkflowRun({ id: 300, name: 'agent-fix', headSha: w.repo.sha, event: 'issues', status: 'in_progress', conclusion: null });
    let stop: ActionRun | undefined;
    w.github.onRequest = async ({ method, path: p }) => {
      if (stop || method !== 'POST' || p !== `/repos/${OWNER}/${REPO}/pulls`) return;
      stop = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix stop'), runId: 400, noCheckout: true });
    };
    const r = await w.run({ runId: 300 });
    w.github.onRequest = null;
    expect(stop?.outputs.status).toBe('skipped');
    expect(r.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(remoteBranch(w.repo, BRANCH)).toBeTruthy();
    const sticky = w.github.comments.find((c) => c.issueNumber === 7 && c.body.includes(MARKER))!;
    expect(sticky.body).toContain(`/pull/${w.github.pulls[0].number}`);
    expect(sticky.body).toContain(`@maintainer asked to stop this run (\`/agent-fix stop\`) after it had already pushed \`${BRANCH}\``);
    expect(sticky.body).toContain('<!-- agent-fix-run:400.1 -->');
    w.github.assertNoViolations();
  });
});

describe('/agent-fix continue', () => {
  test('a run stopped on its budget keeps its best attempt; continue resumes from it with a fresh budget and verifies', async () => {
    const w = await world(BUDGET_SCRIPT);
    const kept = await budgetStopped(w);
    const g = gitIn(w.repo.remoteDir);
    // one commit on the base the run started from, holding the half fix, never a pull request
    expect(g('rev-parse', `${kept}^`)).toBe(w.repo.sha);
    expect(g('show', `${kept}:src/cart.js`)).toContain('item.price * item.quantity');
    expect(g('show', `${kept}:src/cart.js`)).toContain('const discount = subtotal * discountPercent;');
    const message = g('log', '-1', '--format=%B', kept);
    expect(message).toContain(`Agent-Fix-Base: ${w.repo.sha}`);
    expect(message).toContain('attempt 1: cartTotal now multiplies price by quantity.');
    expect(message.trim().split('\n').pop()).toBe('Agent-Fix-Run: 500.1');
    expect(w.github.pulls).toHaveLength(0);
    const sticky = () => w.github.comments.find((c) => c.issueNumber === 7 && c.body.includes(MARKER))!;
    expect(sticky().body).toContain(`The best attempt is kept on the branch \`${ATTEMPT}\``);

    const resumed = await model(resumeScript(100));
    const r = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue'), runId: 501, inputs: { ...PRICED, 'base-url': resumed.url } });
    expect(r.outputs.status).toBe('fixed');
    expect(resumed.mismatches).toEqual([]);
    // the model was told where it starts and what the earlier run tried
    const first = JSON.stringify(resumed.requests[0]);
    expect(first).toContain('Resumed from an earlier attempt');
    expect(first).toContain('cartTotal now multiplies price by quantity.');
    expect(first).toContain('applies a percentage discount');
    // the pull request carries both halves: the kept attempt and the resumed edit
    expect(w.github.pulls).toHaveLength(1);
    const fix = remoteBranch(w.repo, BRANCH)!;
    expect(g('rev-parse', `${fix}^`)).toBe(w.repo.sha);
    expect(g('show', `${fix}:src/cart.js`)).toContain('item.price * item.quantity');
    expect(g('show', `${fix}:src/cart.js`)).toContain('(subtotal * discountPercent) / 100');
    expect(sticky().body).toContain(`/pull/${w.github.pulls[0].number}`);
    w.github.assertNoViolations();
  });

  test('`continue budget=$3` sets the cost budget of the resumed run (plain `continue` runs out with the same work)', async () => {
    const w = await world(BUDGET_SCRIPT);
    await budgetStopped(w);
    // the same work costs $1.60: too much for the $1 input budget...
    const plain = await model(resumeScript(1500));
    const short = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue'), runId: 502, inputs: { ...PRICED, 'base-url': plain.url } });
    expect(short.outputs.status).toBe('not-fixed');
    expect(short.summary).toContain('the cost budget ran out');
    expect(short.summary).toContain('cap is $1.00');
    expect(w.github.pulls).toHaveLength(0);
    // ...and the attempt is kept again, still the half fix, by the newer run
    const again = remoteBranch(w.repo, ATTEMPT)!;
    expect(gitIn(w.repo.remoteDir)('log', '-1', '--format=%B', again)).toContain('Agent-Fix-Run: 502.1');
    // ...enough with budget=$3
    const raised = await model(resumeScript(1500));
    const r = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue budget=$3'), runId: 503, inputs: { ...PRICED, 'base-url': raised.url } });
    expect(r.outputs.status).toBe('fixed');
    expect(r.stdout).toContain('with a cost budget of $3.00');
    expect(w.github.pulls).toHaveLength(1);
    expect(w.github.pulls[0].body).toContain('of $3.00');
    w.github.assertNoViolations();
  });

  test('`budget=$N` never lifts the cost cap above the repository policy\'s', async () => {
    const w = await world(BUDGET_SCRIPT);
    w.github.setFile('.github/agent-fix.yml', 'budgets:\n  max-cost-usd: 2\n');
    await budgetStopped(w);
    const costly = await model(resumeScript(2500));
    const r = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue budget=$3'), runId: 520, inputs: { ...PRICED, 'base-url': costly.url } });
    expect(r.stdout).toContain("budget=$3 is above the policy's budgets.max-cost-usd ($2); the policy's cap applies.");
    expect(r.outputs.status).toBe('not-fixed');
    expect(r.summary).toContain('cap is $2.00');
    expect(w.github.pulls).toHaveLength(0);
    w.github.assertNoViolations();
  });

  test('when the default branch moved on, the attempt is laid onto it; when it conflicts, the issue is told there is nothing to continue', async () => {
    const w = await world(BUDGET_SCRIPT);
    await budgetStopped(w);
    const human = cloneFull(w.repo.remoteUrl);
    const moved = commitAs(human.dir, HUMAN, { 'README.md': 'moved on\n' }, 'docs: moved on');
    human.git('push', '-q', 'origin', 'HEAD:main');
    const resumed = await model(resumeScript(100));
    const r = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue'), runId: 510, inputs: { ...PRICED, 'base-url': resumed.url } });
    expect(r.outputs.status).toBe('fixed');
    expect(JSON.stringify(resumed.requests[0])).toContain('laid onto the current code');
    const g = gitIn(w.repo.remoteDir);
    const fix = remoteBranch(w.repo, BRANCH)!;
    expect(g('rev-parse', `${fix}^`)).toBe(moved);
    expect(g('diff', '--name-only', moved, fix)).toBe('src/cart.js');
    expect(g('show', `${fix}:src/cart.js`)).toContain('item.price * item.quantity');
    expect(g('show', `${fix}:src/cart.js`)).toContain('(subtotal * discountPercent) / 100');

    // the same line changed on main since the attempt: it no longer applies
    const w2 = await world(BUDGET_SCRIPT);
    await budgetStopped(w2);
    const other = cloneFull(w2.repo.remoteUrl);
    const cart = readFileSync(path.join(other.dir, 'src/cart.js'), 'utf8').replace('(sum, item) => sum + item.price, 0)', '(total, item) => total + item.price, 0)');
    commitAs(other.dir, HUMAN, { 'src/cart.js': cart }, 'refactor: rename sum');
    other.git('push', '-q', 'origin', 'HEAD:main');
    const unused = await model(resumeScript(100));
    const c = await w2.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue'), runId: 511, inputs: { ...PRICED, 'base-url': unused.url } });
    expect(c.outputs.status).toBe('skipped');
    expect(unused.requests).toHaveLength(0);
    const said = w2.github.comments.filter((x) => x.issueNumber === 7 && x.body.includes('asked to continue'));
    expect(said).toHaveLength(1);
    expect(said[0].body).toContain('no longer applies');
    expect(said[0].body).toContain('src/cart.js');
    w.github.assertNoViolations();
    w2.github.assertNoViolations();
  });

  test('with nothing to continue it says so on the issue; on a pull request it is a clear skip', async () => {
    const w = await world();
    const r = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue budget=$2'), runId: 600 });
    expect(r.outputs.status).toBe('skipped');
    expect(w.model.requests).toHaveLength(0);
    const said = w.github.comments.filter((c) => c.issueNumber === 7);
    expect(said).toHaveLength(1);
    expect(said[0].body).toContain('@maintainer asked to continue, but there is nothing to continue on #7');
    expect(said[0].body).toContain(`there is no branch \`${ATTEMPT}\``);
    expect(r.stdout).toContain('agent-fix skipped: nothing to continue on #7');

    // a policy that lets triagers start fixes still keeps `continue` (which may raise the budget) for writers
    w.github.setFile('.github/agent-fix.yml', 'triggers:\n  min-permission: triage\n');
    w.github.setPermission('tria', 'triage');
    const refused = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue budget=$50', 'tria'), runId: 602 });
    expect(refused.outputs.status).toBe('skipped');
    expect(refused.stdout).toContain('this kind of run needs at least "write"');
    expect(w.github.comments.filter((c) => c.issueNumber === 7)).toHaveLength(1);

    const pr = seedPullRequest(w);
    const onPr = await w.run({ eventName: 'issue_comment', payload: comment('/agent-fix continue', 'maintainer', { onPullRequest: pr.number }), runId: 601, noCheckout: true });
    expect(onPr.outputs.status).toBe('skipped');
    expect(onPr.stdout).toContain(`\`/agent-fix continue\` on pull request #${pr.number}: there is nothing to continue here`);
    expect(w.model.requests).toHaveLength(0);
    w.github.assertNoViolations();
  });
});

describe('loops are impossible', () => {
  test('its own comments, commands written by a bot and issues a bot closes never start a run or an API call', async () => {
    const w = await world();
    seedPullRequest(w);
    const payloads: [string, unknown][] = [
      ['issue_comment', comment('/agent-fix stop', 'github-actions[bot]')],
      ['issue_comment', comment('/agent-fix continue budget=$3', 'github-actions[bot]')],
      ['issue_comment', comment(`${MARKER}\n**agent-fix** was stopped by @maintainer (\`/agent-fix stop\`).\n<!-- agent-fix-run:400.1 -->`, 'github-actions[bot]')],
      ['issue_comment', comment('**agent-fix**: stop requested by @maintainer. /agent-fix stop', 'maintainer')],
      ['issues', closed('github-actions[bot]')],
    ];
    for (const [eventName, payload] of payloads) {
      const r = await w.run({ eventName, payload, noCheckout: true });
      expect(r.outputs.status).toBe('skipped');
    }
    expect(w.github.requests).toEqual([]);
    expect(w.model.requests).toHaveLength(0);
    w.github.assertNoViolations();
  });
  test('a failed CI run on its own kept-attempt branch (pushed by it) is never repaired: nothing is written', async () => {
    const w = await world(BUDGET_SCRIPT);
    const kept = await budgetStopped(w);
    const writesBefore = writes(w.github).length;
    const run = w.github.addWorkflowRun({ name: 'CI', headSha: kept, headBranch: ATTEMPT, event: 'push', actor: 'maintainer', conclusion: 'failure' });
    const user = { login: 'maintainer', id: 1, type: 'User' };
    const payload = {
      action: 'completed',
      workflow_run: {
        id: run.id, name: 'CI', head_branch: ATTEMPT, head_sha: kept, run_number: 1, run_attempt: 1, event: 'push', status: 'completed', conclusion: 'failure',
        workflow_id: run.workflowId, html_url: `https://github.com/${OWNER}/${REPO}/actions/runs/${run.id}`, created_at: run.createdAt, pull_requests: [],
        actor: user, triggering_actor: user, head_repository: { full_name: `${OWNER}/${REPO}` }, repository: { full_name: `${OWNER}/${REPO}` },
      },
      workflow: { name: 'CI', path: '.github/workflows/ci.yml' },
      repository,
      sender: user,
    };
    const r = await w.run({ eventName: 'workflow_run', payload, noCheckout: true });
    expect(r.outputs.status).toBe('skipped');
    expect(r.stdout).toContain("one of agent-fix's own branches");
    expect(writes(w.github)).toHaveLength(writesBefore);
    expect(w.model.requests).toHaveLength(3);
    w.github.assertNoViolations();
  });
});
