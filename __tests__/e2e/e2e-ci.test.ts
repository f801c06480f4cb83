/**
 * End to end, CI repair: the bundled action under node 24 on a `workflow_run` event, against
 * the fake GitHub API (workflow runs, jobs, job logs behind a 302, all OpenAPI-validated) and
 * the scripted model, on a real git repository whose last commit broke a test.
 *
 * The job log is __tests__/fixtures/ci/node-test-failure.log: the output of a real run of this
 * fixture's `npm test` (node 24's test runner) at the breaking commit, inside the GitHub runner's
 * log framing (timestamps, groups, checkout and setup-node chatter).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { startFakeGitHub, type FakeGitHub } from '../../test-support/fake-github.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted/server.js';
import { parseScript, type Script } from '../../src/scripted/script.js';
import { makeRepo, cloneShallow, cleanupFixtures, tempDir, gitIn, commitAs, type RepoFixture, HUMAN } from '../../test-support/git-fixture.js';
import { actionInputs, runAction, ROOT, type ActionRun } from '../../test-support/run-action.js';

const GH_TOKEN = 'ghs_e2eCiFakeWorkflowToken0123456789';
const API_KEY = 'sk-e2e-ci-fake-model-key-9876543210';
const OWNER = 'octo';
const REPO = 'tiny-shop';
const LOG = readFileSync(path.join(ROOT, '__tests__', 'fixtures', 'ci', 'node-test-failure.log'), 'utf8');

const GOOD_CART = `/**
 * Total of a shopping cart in cents.
 * @param {{ name: string, price: number, quantity: number }[]} items price in cents
 * @param {number} discountPercent e.g. 10 for 10 %
 */
export function cartTotal(items, discountPercent = 0) {
  const subtotal = items.reduce((sum, item) => sum + item.price * item.quantity, 0);
  const discount = (subtotal * discountPercent) / 100;
  return Math.round(subtotal - discount);
}

export function formatCents(cents) {
  return \`$\${(cents / 100).toFixed(2)}\`;
}
`;
const BROKEN_CART = GOOD_CART.replace('const discount = (subtotal * discountPercent) / 100;', 'const discount = subtotal * discountPercent;');

const FILES: Record<string, string> = {
  'package.json': JSON.stringify({ name: 'tiny-shop', version: '1.0.0', private: true, type: 'module', scripts: { test: 'node --test' } }, null, 2) + '\n',
  'src/cart.js': GOOD_CART,
  'test/cart.test.js': readFileSync(path.join(ROOT, 'demo', 'sample-repo', 'test', 'cart.test.js'), 'utf8'),
};

const FIX_SCRIPT: Script = parseScript({
  label: 'ci repair',
  steps: [
    { expect: { lastMessageIncludes: 'applies a percentage discount' }, toolCalls: [{ name: 'read_file', arguments: { path: 'src/cart.js' } }] },
    {
      toolCalls: [
        { name: 'edit_file', arguments: { path: 'src/cart.js', old_string: 'const discount = subtotal * discountPercent;', new_string: 'const discount = (subtotal * discountPercent) / 100;' } },
      ],
    },
    { toolCalls: [{ name: 'finish', arguments: { summary: 'The discount is a percentage: divide by 100 again.' } }] },
  ],
});

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

interface World {
  repo: RepoFixture;
  github: FakeGitHub;
  /** Green commit, then the commit that broke the discount test (main's head). */
  goodSha: string;
  brokenSha: string;
  model: ScriptedModel;
  run: (
    payload: unknown,
    o?: { inputs?: Record<string, string>; model?: ScriptedModel; eventName?: string; runId?: number; onSpawn?: (child: ChildProcess) => void },
  ) => Promise<ActionRun>;
}

async function world(script: Script = FIX_SCRIPT): Promise<World> {
  const repo = makeRepo(FILES, { message: 'Cart with discounts' });
  const goodSha = repo.sha;
  const brokenSha = commitAs(repo.dir, HUMAN, { 'src/cart.js': BROKEN_CART }, 'Simplify the discount');
  repo.git('push', '-q', 'origin', 'main');
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel(script);
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  github.setPermission('visitor', 'read');
  const run: World['run'] = async (payload, o = {}) => {
    const checkout = cloneShallow(repo.remoteUrl);
    return runAction({
      workspace: checkout.dir,
      tempDir: tempDir('agent-fix-ci-runner-'),
      eventName: o.eventName ?? 'workflow_run',
      payload,
      repository: `${OWNER}/${REPO}`,
      apiUrl: github.url,
      inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: (o.model ?? model).url }, { workflows: '', ...o.inputs }),
      extraEnv: o.runId ? { GITHUB_RUN_ID: String(o.runId), GITHUB_RUN_ATTEMPT: '1' } : undefined,
      onSpawn: o.onSpawn,
    });
  };
  return { repo, github, goodSha, brokenSha, model, run };
}

/** A failed run of "CI" in the fake, with one failed job whose log is the fixture; returns the webhook payload. */
function failedRun(
  w: World,
  p: { headSha: string; headBranch?: string; event?: string; actor?: string; pullRequests?: number[]; headRepo?: string; log?: string; name?: string },
) {
  const run = w.github.addWorkflowRun({
    name: p.name ?? 'CI',
    headSha: p.headSha,
    headBranch: p.headBranch ?? 'main',
    event: p.event ?? 'push',
    actor: p.actor ?? 'maintainer',
    conclusion: 'failure',
    pullRequests: p.pullRequests ?? [],
  });
  w.github.addJob({ runId: run.id, name: 'lint', conclusion: 'success', steps: [{ name: 'Run lint', status: 'completed', conclusion: 'success', number: 1 }], log: 'all good\n' });
  w.github.addJob({ runId: run.id, name: 'test (24)', log: (p.log ?? LOG).replaceAll('HEAD_SHA', p.headSha) });
  const full = `${OWNER}/${REPO}`;
  const user = (login: string) => ({ login, id: 1, type: 'User' });
  return {
    action: 'completed',
    workflow_run: {
      id: run.id,
      name: run.name,
      head_branch: run.headBranch,
      head_sha: run.headSha,
      run_number: run.runNumber,
      run_attempt: 1,
      event: run.event,
      status: 'completed',
      conclusion: 'failure',
      workflow_id: run.workflowId,
      html_url: `https://github.com/${full}/actions/runs/${run.id}`,
      created_at: run.createdAt,
      pull_requests: (p.pullRequests ?? []).map((n) => {
        const pr = w.github.pulls.find((x) => x.number === n)!;
        return { number: n, head: { ref: pr.head, sha: pr.headSha, repo: { name: REPO } }, base: { ref: pr.base, sha: pr.baseSha, repo: { name: REPO } } };
      }),
      actor: user(p.actor ?? 'maintainer'),
      triggering_actor: user(p.actor ?? 'maintainer'),
      head_repository: { full_name: p.headRepo ?? full },
      repository: { full_name: full },
    },
    workflow: { name: run.name, path: '.github/workflows/ci.yml' },
    repository: { name: REPO, full_name: full, owner: { login: OWNER } },
    sender: user(p.actor ?? 'maintainer'),
  };
}

function remoteSha(repo: RepoFixture, ref: string): string | null {
  try {
    return gitIn(repo.remoteDir)('rev-parse', '--verify', '--quiet', ref);
  } catch {
    return null;
  }
}

describe('CI repair end to end (workflow_run, dist/index.js under node 24)', () => {
  test('a failure on the default branch becomes one PR into it, based on the failing commit even after main moved on; a second failing run with the same cause updates that PR', async () => {
    const w = await world();
    const payload = failedRun(w, { headSha: w.brokenSha });
    // main moves on after the failing run (an unrelated commit): the fix must start from the run's head_sha
    const later = commitAs(w.repo.dir, HUMAN, { 'README.md': '# tiny shop\n' }, 'Add a README');
    w.repo.git('push', '-q', 'origin', 'main');

    const r = await w.run(payload);
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('fixed');
    expect(w.model.mismatches).toEqual([]);
    w.github.assertNoViolations();
    const branch = r.outputs.branch;
    expect(branch).toMatch(/^agent-fix\/ci-[0-9a-f]{12}$/);

    expect(w.github.pulls).toHaveLength(1);
    const pr = w.github.pulls[0];
    expect(pr).toMatchObject({ head: branch, base: 'main', draft: true, state: 'open' });
    expect(pr.body).toContain(`<!-- agent-fix:${branch.slice('agent-fix/'.length)} -->`);
    expect(pr.body).toContain('test (24)');
    expect(pr.body).toContain('Run tests');
    expect(pr.body).toMatch(/\| `applies a percentage discount` \| \*\*failed\*\* \| \*\*failed\*\* \| passed \|/);
    expect(pr.body).toContain(`https://github.com/${OWNER}/${REPO}/actions/runs/${payload.workflow_run.id}`);
    expect(pr.body).not.toContain('Fixes #');

    const g = gitIn(w.repo.remoteDir);
    const sha = remoteSha(w.repo, `refs/heads/${branch}`)!;
    expect(g('rev-parse', `${sha}^`)).toBe(w.brokenSha);
    expect(g('diff', '--name-only', w.brokenSha, sha)).toBe('src/cart.js');
    expect(g('show', `${sha}:src/cart.js`)).toContain('(subtotal * discountPercent) / 100');
    expect(r.summary).toContain('Failed run');
    expect(r.summary).toContain('applies a percentage discount');
    // no PR to comment on for a push to main
    expect(w.github.comments).toHaveLength(0);

    // the next push (the README commit) fails CI the same way: same fingerprint, same branch and PR, now based on that commit
    const second = failedRun(w, { headSha: later });
    const again = await startScriptedModel(FIX_SCRIPT);
    open.push(again);
    const r2 = await w.run(second, { model: again });
    expect(r2.outputs.status).toBe('fixed');
    expect(r2.outputs.branch).toBe(branch);
    expect(r2.outputs['pr-number']).toBe(String(pr.number));
    expect(w.github.pulls).toHaveLength(1);
    expect(w.github.pulls[0].body).toContain(`/actions/runs/${second.workflow_run.id}`);
    const sha2 = remoteSha(w.repo, `refs/heads/${branch}`)!;
    expect(g('rev-parse', `${sha2}^`)).toBe(later);
    w.github.assertNoViolations();
  });

  test('a failure on a pull request branch gets a fix PR into that branch and a comment on the originating PR', async () => {
    const w = await world();
    // the feature branch carries the breaking commit; main is green again
    w.repo.git('push', '-q', 'origin', `${w.brokenSha}:refs/heads/feature/discounts`);
    w.repo.git('push', '-q', '-f', 'origin', `${w.goodSha}:refs/heads/main`);
    const origin = w.github.addPull({ number: 12, title: 'Discounts', head: 'feature/discounts', base: 'main', author: 'maintainer', headSha: w.brokenSha });
    const payload = failedRun(w, { headSha: w.brokenSha, headBranch: 'feature/discounts', event: 'pull_request', pullRequests: [origin.number] });

    const r = await w.run(payload);
    expect(r.outputs.status).toBe('fixed');
    w.github.assertNoViolations();
    const fix = w.github.pulls.find((p) => p.head === r.outputs.branch)!;
    expect(fix).toMatchObject({ base: 'feature/discounts', state: 'open' });
    const key = r.outputs.branch.slice('agent-fix/'.length);
    const comments = w.github.comments.filter((c) => c.issueNumber === 12 && c.body.includes(`<!-- agent-fix:${key} -->`));
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain(`/pull/${fix.number}`);
    expect(comments[0].body).toContain('applies a percentage discount');
    expect(gitIn(w.repo.remoteDir)('rev-parse', `${remoteSha(w.repo, `refs/heads/${r.outputs.branch}`)}^`)).toBe(w.brokenSha);

    // the contributor re-runs the failed workflow (attempt 2 is a new run here): same cause, same fix PR, same comment
    const again = await startScriptedModel(FIX_SCRIPT);
    open.push(again);
    const r2 = await w.run(failedRun(w, { headSha: w.brokenSha, headBranch: 'feature/discounts', event: 'pull_request', pullRequests: [origin.number] }), { model: again });
    expect(r2.outputs.status).toBe('fixed');
    expect(r2.outputs['pr-number']).toBe(String(fix.number));
    expect(w.github.pulls).toHaveLength(2); // the originating PR and the one fix PR
    expect(w.github.comments.filter((c) => c.issueNumber === 12)).toHaveLength(1);
    w.github.assertNoViolations();
  });

  test('propose → publish: the repair proposed with a read-only token (no write call), published by a job without a model key', async () => {
    const w = await world();
    w.repo.git('push', '-q', 'origin', `${w.brokenSha}:refs/heads/feature/discounts`);
    w.repo.git('push', '-q', '-f', 'origin', `${w.goodSha}:refs/heads/main`);
    const origin = w.github.addPull({ number: 12, title: 'Discounts', head: 'feature/discounts', base: 'main', author: 'maintainer', headSha: w.brokenSha });
    const payload = failedRun(w, { headSha: w.brokenSha, headBranch: 'feature/discounts', event: 'pull_request', pullRequests: [origin.number] });
    const bundles = tempDir('agent-fix-ci-bundles-');

    w.github.setReadOnly(true);
    const proposed = await w.run(payload, { inputs: { mode: 'propose', candidate: '1', bundles } });
    w.github.setReadOnly(false);
    expect(proposed.code).toBe(0);
    expect(proposed.outputs.status).toBe('fixed');
    expect(proposed.outputs['bundle-path']).toBe(bundles);
    expect(w.github.writeAttempts).toEqual([]);
    expect(w.github.comments).toEqual([]);
    expect(w.github.pulls).toHaveLength(1); // the originating PR only
    const branches = () => gitIn(w.repo.remoteDir)('for-each-ref', '--format=%(refname)', 'refs/heads/agent-fix');
    expect(branches()).toBe('');

    const published = await w.run(payload, { inputs: { mode: 'publish', bundles, 'api-key': '', 'base-url': 'http://127.0.0.1:9/v1' } });
    expect(published.outputs.status).toBe('fixed');
    const fix = w.github.pulls.find((p) => p.head === published.outputs.branch)!;
    expect(fix).toMatchObject({ base: 'feature/discounts', state: 'open' });
    expect(fix.body).toContain('applies a percentage discount');
    expect(fix.body).toMatch(/\*\*Candidates\*\*: 1 bundle\(s\); candidate `1` is published/);
    const sha = remoteSha(w.repo, `refs/heads/${published.outputs.branch}`)!;
    expect(gitIn(w.repo.remoteDir)('rev-parse', `${sha}^`)).toBe(w.brokenSha);
    expect(gitIn(w.repo.remoteDir)('diff', '--name-only', w.brokenSha, sha)).toBe('src/cart.js');
    const key = published.outputs.branch.slice('agent-fix/'.length);
    const comments = w.github.comments.filter((c) => c.issueNumber === 12 && c.body.includes(`<!-- agent-fix:${key} -->`));
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain(`/pull/${fix.number}`);
    w.github.assertNoViolations();
  });

  test('a failure that does not reproduce locally (flaky or environment-only) changes nothing, and the report says so', async () => {
    const w = await world();
    // CI says the test failed on the green commit: here it passes
    w.repo.git('push', '-q', 'origin', `${w.goodSha}:refs/heads/feature/flaky`);
    const origin = w.github.addPull({ number: 21, title: 'Flaky', head: 'feature/flaky', base: 'main', author: 'maintainer', headSha: w.goodSha });
    const payload = failedRun(w, { headSha: w.goodSha, headBranch: 'feature/flaky', event: 'pull_request', pullRequests: [origin.number] });
    const r = await w.run(payload);
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(r.outputs.branch).toBe('');
    expect(w.model.requests).toHaveLength(0);
    expect(w.github.pulls).toHaveLength(1); // only the originating PR
    expect(gitIn(w.repo.remoteDir)('for-each-ref', '--format=%(refname)', 'refs/heads/agent-fix/')).toBe('');
    const [comment] = w.github.comments.filter((c) => c.issueNumber === 21);
    expect(comment.body).toContain('not reproduced');
    expect(comment.body).toContain('no code was changed');
    expect(r.summary).toContain('could not be reproduced');
    w.github.assertNoViolations();
  });

  test('a maintainer can dispatch the repair of a given failed run by its URL (workflow_dispatch with run-id)', async () => {
    const w = await world();
    const event = failedRun(w, { headSha: w.brokenSha, actor: 'visitor' }); // whoever pushed, the maintainer asks
    const r = await w.run({ inputs: { 'issue-number': '', 'run-id': event.workflow_run.html_url }, sender: { login: 'maintainer', type: 'User' } }, { eventName: 'workflow_dispatch' });
    expect(r.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(w.github.pulls[0]).toMatchObject({ head: r.outputs.branch, base: 'main' });
    expect(w.model.mismatches).toEqual([]);
    // a visitor cannot dispatch one
    const r2 = await w.run({ inputs: { 'run-id': String(event.workflow_run.id) }, sender: { login: 'visitor', type: 'User' } }, { eventName: 'workflow_dispatch' });
    expect(r2.outputs.status).toBe('skipped');
    expect(r2.stdout).toContain('visitor');
    w.github.assertNoViolations();
  });

  test('runs from a fork, on agent-fix branches, by actors without write permission, already green again, on deleted branches or of unselected workflows are skipped without touching anything', async () => {
    const w = await world();
    const cases: { name: string; payload: unknown; reason: RegExp }[] = [];
    cases.push({ name: 'fork', payload: failedRun(w, { headSha: w.brokenSha, headBranch: 'patch-1', event: 'pull_request', headRepo: 'mallory/tiny-shop' }), reason: /fork/ });
    w.repo.git('push', '-q', 'origin', `${w.brokenSha}:refs/heads/agent-fix/ci-0123456789ab`);
    cases.push({ name: 'own branch', payload: failedRun(w, { headSha: w.brokenSha, headBranch: 'agent-fix/ci-0123456789ab' }), reason: /own branches/ });
    cases.push({ name: 'no write permission', payload: failedRun(w, { headSha: w.brokenSha, actor: 'visitor' }), reason: /visitor/ });
    const stale = failedRun(w, { headSha: w.brokenSha });
    w.github.addWorkflowRun({ name: 'CI', headSha: w.goodSha, headBranch: 'main', conclusion: 'success', event: 'push' });
    cases.push({ name: 'green again', payload: stale, reason: /green again/ });
    cases.push({ name: 'branch deleted', payload: failedRun(w, { headSha: w.brokenSha, headBranch: 'feature/merged-and-deleted' }), reason: /no longer exists/ });
    const other = failedRun(w, { headSha: w.brokenSha, name: 'Docs' });
    cases.push({ name: 'workflow not selected', payload: other, reason: /not in the `workflows` input/ });

    const summaries: Record<string, string> = {};
    for (const c of cases) {
      const r = await w.run(c.payload, { inputs: { workflows: 'CI\nRelease' } });
      expect({ name: c.name, code: r.code, status: r.outputs.status }).toEqual({ name: c.name, code: 0, status: 'skipped' });
      expect({ name: c.name, log: r.stdout + r.summary }).toEqual({ name: c.name, log: expect.stringMatching(c.reason) });
      summaries[c.name] = r.summary;
    }
    // the fork's failure is reported (from the API only), never reproduced
    expect(summaries.fork).toContain('Report only');
    expect(summaries.fork).toContain('applies a percentage discount');
    expect(summaries.fork).toContain('-18000 !== 1800');
    expect(summaries['own branch']).not.toContain('Report only');
    expect(w.model.requests).toHaveLength(0);
    expect(w.github.pulls).toHaveLength(0);
    expect(w.github.comments).toHaveLength(0);
    expect(gitIn(w.repo.remoteDir)('for-each-ref', '--format=%(refname)', 'refs/heads/agent-fix/')).toBe('refs/heads/agent-fix/ci-0123456789ab');
    w.github.assertNoViolations();
  });
});

/** The pull request #12 whose CI failed on `feature/discounts` (main is green); returns its failed run's payload. */
function failingPullRequest(w: World) {
  w.repo.git('push', '-q', 'origin', `${w.brokenSha}:refs/heads/feature/discounts`);
  w.repo.git('push', '-q', '-f', 'origin', `${w.goodSha}:refs/heads/main`);
  const origin = w.github.addPull({ number: 12, title: 'Discounts', head: 'feature/discounts', base: 'main', author: 'maintainer', headSha: w.brokenSha });
  return failedRun(w, { headSha: w.brokenSha, headBranch: 'feature/discounts', event: 'pull_request', pullRequests: [origin.number] });
}

const agentBranches = (w: World) => gitIn(w.repo.remoteDir)('for-each-ref', '--format=%(refname)', 'refs/heads/agent-fix/');
const prComments = (w: World) => w.github.comments.filter((c) => c.issueNumber === 12);
const BOT_IDENTITY = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };

describe('CI repair run safety: claims and cancellation (dist/index.js under node 24)', () => {
  test('two runs repairing the same failure of a pull request: the older yields to the newer claim in the PR comment before it pushes; an older run that starts late does nothing', async () => {
    const w = await world();
    const payload = failingPullRequest(w);
    // while the older run (100) works, a newer run (200) claims the repair in the PR's comment
    let claimed = false;
    const older = await startScriptedModel(FIX_SCRIPT, {
      onRequest: () => {
        const c = prComments(w).find((x) => x.body.includes('agent-fix-run:100.1'));
        if (c && !claimed) {
          c.body = c.body.replace('agent-fix-run:100.1', 'agent-fix-run:200.1');
          claimed = true;
        }
      },
    });
    open.push(older);
    const a = await w.run(payload, { model: older, runId: 100 });
    expect(claimed).toBe(true);
    expect(older.requests.length).toBeGreaterThanOrEqual(3); // it found a verified fix ...
    expect(a.code).toBe(0);
    expect(a.outputs.status).toBe('skipped'); // ... and published nothing
    expect(a.outputs.branch).toBe('');
    expect(a.summary).toContain('### agent-fix: Superseded');
    expect(a.summary).toContain('A newer agent-fix run (200, attempt 1) has taken over the repair of this failure; this run (100, attempt 1) yields before publishing.');
    expect(agentBranches(w)).toBe('');
    expect(w.github.pulls).toHaveLength(1); // only the originating PR
    // the comment is left to the newer run
    expect(prComments(w)).toHaveLength(1);
    expect(prComments(w)[0].body).toContain('agent-fix-run:200.1');
    expect(prComments(w)[0].body).toContain('is repairing the failed run');

    // the newer run publishes once
    const b = await w.run(payload, { runId: 200 });
    expect(b.outputs.status).toBe('fixed');
    const fix = w.github.pulls.find((p) => p.head === b.outputs.branch)!;
    expect(fix).toMatchObject({ base: 'feature/discounts', state: 'open' });
    expect(prComments(w)).toHaveLength(1);
    const final = prComments(w)[0].body;
    expect(final).toContain(`/pull/${fix.number}`);
    expect(final).toContain('agent-fix-run:200.1');
    expect(gitIn(w.repo.remoteDir)('log', '-1', '--format=%B', `refs/heads/${b.outputs.branch}`)).toMatch(/\nAgent-Fix-Run: 200\.1$/);

    // an older run (150, e.g. queued) that starts now yields at once: no model call, nothing touched
    const late = await startScriptedModel(FIX_SCRIPT);
    open.push(late);
    const tip = remoteSha(w.repo, `refs/heads/${b.outputs.branch}`);
    const c = await w.run(payload, { model: late, runId: 150 });
    expect(c.outputs.status).toBe('skipped');
    expect(c.summary).toContain('yields before starting');
    expect(late.requests).toHaveLength(0);
    expect(prComments(w)[0].body).toBe(final);
    expect(remoteSha(w.repo, `refs/heads/${b.outputs.branch}`)).toBe(tip);
    expect(w.github.pulls).toHaveLength(2);
    w.github.assertNoViolations();
  });

  test('without a pull request to comment on, the fix branch carries the claim: an older run never replaces a newer run\'s fix, whatever its base', async () => {
    const w = await world();
    const first = failedRun(w, { headSha: w.brokenSha });
    const later = commitAs(w.repo.dir, HUMAN, { 'README.md': '# tiny shop\n' }, 'Add a README');
    w.repo.git('push', '-q', 'origin', 'main');
    const second = failedRun(w, { headSha: later });

    // the newer run (200, the later failure) finishes first
    const b = await w.run(second, { runId: 200 });
    expect(b.outputs.status).toBe('fixed');
    const branch = b.outputs.branch;
    const g = gitIn(w.repo.remoteDir);
    const tip = remoteSha(w.repo, `refs/heads/${branch}`)!;
    expect(g('rev-parse', `${tip}^`)).toBe(later);
    expect(g('log', '-1', '--format=%B', tip)).toMatch(/\nAgent-Fix-Run: 200\.1$/);

    // the older run (100, the earlier failure) starts late: it yields before asking the model
    const older = await startScriptedModel(FIX_SCRIPT);
    open.push(older);
    const a = await w.run(first, { runId: 100, model: older });
    expect(a.outputs.status).toBe('skipped');
    expect(a.summary).toContain('A newer agent-fix run (200, attempt 1) has taken over the repair of this failure; this run (100, attempt 1) yields before starting.');
    expect(older.requests).toHaveLength(0);
    expect(remoteSha(w.repo, `refs/heads/${branch}`)).toBe(tip);
    expect(w.github.pulls).toHaveLength(1);
    expect(w.github.pulls[0].body).toContain(`/actions/runs/${second.workflow_run.id}`);

    // a run (300) that finds the branch pushed by a newer run (400) while it works yields before publishing
    let pushed400 = '';
    const racing = await startScriptedModel(FIX_SCRIPT, {
      onRequest: () => {
        if (pushed400) return;
        const bot = gitIn(w.repo.remoteDir, BOT_IDENTITY);
        pushed400 = bot('commit-tree', `${tip}^{tree}`, '-p', later, '-m', 'agent-fix: repair CI on main', '-m', 'Agent-Fix-Run: 400.1');
        bot('update-ref', `refs/heads/${branch}`, pushed400);
      },
    });
    open.push(racing);
    const c = await w.run(second, { runId: 300, model: racing });
    expect(pushed400).not.toBe('');
    expect(c.outputs.status).toBe('skipped');
    expect(c.summary).toContain('A newer agent-fix run (400, attempt 1) has taken over the repair of this failure; this run (300, attempt 1) yields before publishing.');
    expect(remoteSha(w.repo, `refs/heads/${branch}`)).toBe(pushed400);
    expect(w.github.pulls).toHaveLength(1);
    expect(w.github.comments).toHaveLength(0);
    w.github.assertNoViolations();
  });

  test('a repair cancelled while the model works (SIGTERM): the PR comment and the step summary are final, nothing is pushed', async () => {
    const w = await world();
    const payload = failingPullRequest(w);
    let child: ChildProcess | undefined;
    let sent = false;
    const m = await startScriptedModel(FIX_SCRIPT, {
      onRequest: () => {
        if (!sent && child) {
          sent = true;
          child.kill('SIGTERM');
        }
      },
    });
    open.push(m);
    const r = await w.run(payload, { model: m, runId: 100, onSpawn: (c) => (child = c) });
    expect(sent).toBe(true);
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('error');
    expect(r.outputs.branch).toBe('');
    expect(prComments(w)).toHaveLength(1);
    const body = prComments(w)[0].body;
    expect(body).toContain('the workflow run was cancelled or timed out (SIGTERM) before agent-fix finished repairing [the failed run]');
    expect(body).toContain('Nothing was pushed and no pull request was opened.');
    expect(body).toContain('agent-fix-run:100.1');
    expect(body).not.toContain('is repairing');
    expect(r.summary).toContain('### agent-fix: Cancelled');
    expect(r.summary).toContain('Nothing was pushed and no pull request was opened.');
    expect(agentBranches(w)).toBe('');
    expect(w.github.pulls).toHaveLength(1);
    w.github.assertNoViolations();
  });

  test('a repair cancelled after its push, while the PR is being opened: the report waits for it and names the branch and the PR', async () => {
    const w = await world();
    const payload = failingPullRequest(w);
    let child: ChildProcess | undefined;
    let sent = false;
    w.github.onRequest = async ({ method, path: p }) => {
      if (method === 'POST' && /\/pulls$/.test(p) && child && !sent) {
        sent = true;
        child.kill('SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 500)); // the PR answer arrives after the signal
      }
    };
    const r = await w.run(payload, { runId: 100, onSpawn: (c) => (child = c) });
    w.github.onRequest = null;
    expect(sent).toBe(true);
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('error');
    const branch = r.outputs.branch;
    expect(branch).toMatch(/^agent-fix\/ci-[0-9a-f]{12}$/);
    expect(remoteSha(w.repo, `refs/heads/${branch}`)).not.toBeNull();
    const fix = w.github.pulls.find((p) => p.head === branch)!;
    expect(fix).toBeDefined();
    const body = prComments(w)[0].body;
    expect(prComments(w)).toHaveLength(1);
    expect(body).toContain('cancelled or timed out (SIGTERM)');
    expect(body).toContain(`It had already opened or updated https://github.com/${OWNER}/${REPO}/pull/${fix.number} (branch \`${branch}\`)`);
    expect(r.summary).toContain('### agent-fix: Cancelled');
    expect(r.summary).toContain(`/pull/${fix.number}`);
    w.github.assertNoViolations();
  });

  test('an error after the push (the PR cannot be created): the outputs, the comment and the summary name the pushed branch', async () => {
    const w = await world();
    const payload = failingPullRequest(w);
    w.github.failNext({ method: 'POST', path: '/repos/{owner}/{repo}/pulls', status: 403, body: { message: 'Resource not accessible by integration' } });
    const r = await w.run(payload, { runId: 100 });
    expect(r.code).toBe(1);
    expect(r.outputs.status).toBe('error');
    const branch = r.outputs.branch;
    expect(branch).toMatch(/^agent-fix\/ci-[0-9a-f]{12}$/);
    expect(remoteSha(w.repo, `refs/heads/${branch}`)).not.toBeNull();
    expect(r.outputs['pr-url']).toBe('');
    expect(w.github.pulls.filter((p) => p.head === branch)).toHaveLength(0);
    const body = prComments(w)[0].body;
    expect(body).toContain('Resource not accessible by integration');
    expect(body).toContain(branch);
    expect(r.summary).toContain('### agent-fix: Error');
    expect(r.summary).toContain(branch);
    w.github.assertNoViolations();
  });
});
