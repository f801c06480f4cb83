/**
 * End to end: a conversation on agent-fix's own pull request, through the bundled action under
 * node 24, the OpenAPI-validated fake GitHub and the scripted model, on the demo project (a real
 * `node --test` suite). Every test first lets the issue story open the pull request for real,
 * then acts on it: a review round, a human commit before the follow-up, a failed follow-up, an
 * unauthorised reviewer, `/agent-fix rebase` without and with a conflict (resolved by the scripted
 * model, or refused), and a `/agent-fix`
 * comment on a human's pull request (still the issue story).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeGitHub, type FakeGitHub, type FakePull } from '../../test-support/fake-github.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted/server.js';
import { parseScript, type Script } from '../../src/scripted/script.js';
import { makeRepo, readTree, cloneShallow, cloneFull, cleanupFixtures, tempDir, gitIn, type RepoFixture } from '../../test-support/git-fixture.js';
import { actionInputs, runAction, ROOT, type ActionRun } from '../../test-support/run-action.js';
import { parseProofMarker } from '../../src/fix/follow-up-gate.js';

const GH_TOKEN = 'ghs_e2eFollowUpToken0123456789abcdef';
const API_KEY = 'sk-e2e-follow-up-key-0123456789';
const OWNER = 'octo';
const REPO = 'tiny-shop';
const BRANCH = 'agent-fix/issue-7';
const BOT_EMAIL = '41898282+github-actions[bot]@users.noreply.github.com';

const SAMPLE = readTree(path.join(ROOT, 'demo', 'sample-repo'));
const DEMO_SCRIPT = parseScript(JSON.parse(readFileSync(path.join(ROOT, 'demo', 'script.json'), 'utf8')));

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

interface World {
  repo: RepoFixture;
  github: FakeGitHub;
  /** The pull request the issue story opened. */
  pr: FakePull;
  /** The bot's first commit on the branch. */
  first: string;
  /** The pull request body the first fix wrote. */
  firstBody: string;
  run: (eventName: string, payload: unknown, script: Script, inputs?: Record<string, string>) => Promise<ActionRun & { model: ScriptedModel }>;
}

const repository = { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } };
const user = (login: string) => ({ login, type: 'User' });

async function model(script: Script): Promise<ScriptedModel> {
  const m = await startScriptedModel(script);
  open.push(m);
  return m;
}

/** The demo repository with agent-fix's pull request for issue 7 opened by a real run of the issue story. */
async function world(): Promise<World> {
  const repo = makeRepo(SAMPLE);
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  open.push(github);
  github.setPermission('maintainer', 'write');
  github.setPermission('visitor', 'read');
  github.addIssue({ number: 7, title: 'Cart total is wrong for quantities and discounts', body: readFileSync(path.join(ROOT, 'demo', 'issue.md'), 'utf8'), author: 'reporter', labels: ['agent-fix'] });
  const run: World['run'] = async (eventName, payload, script, inputs = {}) => {
    const m = await model(script);
    const checkout = cloneShallow(repo.remoteUrl);
    const r = await runAction({
      workspace: checkout.dir,
      tempDir: tempDir('agent-fix-runner-'),
      eventName,
      payload,
      repository: `${OWNER}/${REPO}`,
      apiUrl: github.url,
      inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: m.url }, inputs),
    });
    return { ...r, model: m };
  };
  const labeled = {
    action: 'labeled',
    label: { name: 'agent-fix' },
    issue: { number: 7, title: 'Cart total is wrong for quantities and discounts', body: 'see tests', state: 'open', user: user('reporter'), updated_at: new Date().toISOString() },
    repository,
    sender: user('maintainer'),
  };
  const r = await run('issues', labeled, DEMO_SCRIPT);
  expect(r.outputs.status).toBe('fixed');
  expect(github.pulls).toHaveLength(1);
  return { repo, github, pr: github.pulls[0], first: remoteBranch(repo, BRANCH)!, firstBody: github.pulls[0].body ?? '', run };
}

function remoteBranch(repo: RepoFixture, branch: string): string | null {
  try {
    return gitIn(repo.remoteDir)('rev-parse', '--verify', `refs/heads/${branch}`);
  } catch {
    return null;
  }
}

function pullPayload(w: World) {
  return { number: w.pr.number, state: 'open', head: { ref: BRANCH, sha: remoteBranch(w.repo, BRANCH), repo: { full_name: `${OWNER}/${REPO}` } }, base: { ref: 'main', repo: { full_name: `${OWNER}/${REPO}` } } };
}

function reviewPayload(w: World, review: { id: number; body: string; author: string; submittedAt: string | null }) {
  return {
    action: 'submitted',
    review: { id: review.id, state: 'changes_requested', body: review.body, user: user(review.author), submitted_at: review.submittedAt },
    pull_request: pullPayload(w),
    repository,
    sender: user(review.author),
  };
}

function prCommentPayload(w: World, comment: { id: number; body: string; author: string; createdAt: string }, prNumber = w.pr.number) {
  return {
    action: 'created',
    issue: { number: prNumber, title: 'a pull request', body: '', state: 'open', user: user('github-actions[bot]'), pull_request: { url: `https://api.github.com/repos/${OWNER}/${REPO}/pulls/${prNumber}` } },
    comment: { id: comment.id, body: comment.body, user: user(comment.author), created_at: comment.createdAt, updated_at: comment.createdAt },
    repository,
    sender: user(comment.author),
  };
}

/** Pushes a commit by a human onto `branch` of the remote; returns its sha. */
function humanCommit(w: World, branch: string, files: Record<string, string>, message: string): string {
  const human = cloneFull(w.repo.remoteUrl);
  human.git('fetch', '-q', 'origin', branch);
  human.git('checkout', '-q', '-B', `work-${branch.replace(/\W/g, '-')}`, 'FETCH_HEAD');
  for (const [file, content] of Object.entries(files)) writeFileSync(path.join(human.dir, file), content);
  human.git('add', ...Object.keys(files));
  human.git('commit', '-q', '-m', message);
  human.git('push', '-q', 'origin', `HEAD:refs/heads/${branch}`);
  return remoteBranch(w.repo, branch)!;
}

const NAMED_CONSTANT = parseScript({
  label: 'follow-up: a named constant',
  steps: [
    {
      expect: { lastMessageIncludes: 'Use a named constant PERCENT' },
      toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.js', old_string: 'const discount = (subtotal * discountPercent) / 100;', new_string: 'const discount = (subtotal * discountPercent) / PERCENT;' } }],
    },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.js', old_string: 'export function cartTotal(', new_string: 'const PERCENT = 100;\n\nexport function cartTotal(' } }] },
    { toolCalls: [{ name: 'finish', arguments: { summary: 'The percentage divisor is now the named constant PERCENT.' } }] },
  ],
});

describe('follow-ups on agent-fix\'s own pull request (dist/index.js under node 24)', () => {
  test('a review round: one new commit on top, the first commit kept, a reply in the thread, round 2 in the PR body with round 1 folded', async () => {
    const w = await world();
    const firstBody = w.firstBody;
    // the first PR names the tests its fix made pass, for later follow-ups
    const proof = parseProofMarker(firstBody);
    expect(proof).not.toBeNull();
    expect(proof!.length).toBeGreaterThanOrEqual(2);

    const { review, comments } = w.github.addReview({
      pullNumber: w.pr.number,
      author: 'maintainer',
      state: 'CHANGES_REQUESTED',
      body: 'Looks right, one thing before merging.',
      comments: [{ path: 'src/cart.js', line: 8, body: 'Use a named constant PERCENT instead of the literal 100.' }],
    });
    const r = await w.run('pull_request_review', reviewPayload(w, review), NAMED_CONSTANT);
    expect(r.code).toBe(0);
    expect(r.model.mismatches).toEqual([]);
    expect(r.outputs.status).toBe('fixed');
    expect(r.outputs['pr-number']).toBe(String(w.pr.number));

    // one new bot commit on top of the first, which keeps its sha
    const tip = remoteBranch(w.repo, BRANCH)!;
    const g = gitIn(w.repo.remoteDir);
    expect(tip).not.toBe(w.first);
    expect(g('rev-parse', `${tip}^`)).toBe(w.first);
    expect(g('log', '-1', '--format=%ae', tip)).toBe(BOT_EMAIL);
    expect(g('diff', '--name-only', w.first, tip)).toBe('src/cart.js');
    expect(g('show', `${tip}:src/cart.js`)).toContain('/ PERCENT;');
    expect(g('show', `${tip}:src/cart.js`)).toContain('item.price * item.quantity');

    // the reviewer's instructions reached the model fenced as data, with the original issue as context
    const firstRequest = JSON.stringify(r.model.requests[0]);
    expect(firstRequest).toContain('Use a named constant PERCENT');
    expect(firstRequest).toContain('src/cart.js:8');
    expect(firstRequest).toContain('Cart total is wrong');

    // a reply in the inline comment's thread
    const replies = w.github.reviewComments.filter((c) => c.inReplyTo === comments[0].id);
    expect(replies).toHaveLength(1);
    expect(replies[0].author).toBe('github-actions[bot]');
    expect(replies[0].body).toContain(`done in ${tip.slice(0, 7)}`);

    // the PR body: round 2 on top, round 1 folded and still readable, the proof marker kept
    const body = w.github.pulls[0].body ?? '';
    expect(body).toContain('Fixes #7');
    expect(body).toMatch(/### Round 2: follow-up asked by @maintainer in a review/);
    expect(body).toContain('Use a named constant PERCENT');
    expect(body).toContain('<details><summary>Round 1: the original fix</summary>');
    expect(body.indexOf('Round 2')).toBeLessThan(body.indexOf('Round 1: the original fix'));
    expect(body).toMatch(/before \(baseline.*FAIL \(exit 1; 2 passed, 2 failed\)/);
    expect(parseProofMarker(body)).toEqual(proof);
    // the evidence says which gate replaced the fail-to-pass proof, never "missing"
    expect(r.summary).toContain("**Fail-to-pass proof**: not asked (a follow-up on a verified pull request: nothing that passed on its head may fail, and the original fix's tests must still pass).");
    expect(r.summary).not.toContain('**Fail-to-pass proof**: missing');

    // the sticky comment lives on the pull request and says what was pushed
    const sticky = w.github.comments.filter((c) => c.issueNumber === w.pr.number && c.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(sticky).toHaveLength(1);
    expect(sticky[0].body).toContain('pushed a follow-up');
    // one comment on the pull request for the round (the inline request is answered in its thread)
    expect(w.github.comments.filter((c) => c.issueNumber === w.pr.number && c.author === 'github-actions[bot]')).toHaveLength(1);
    w.github.assertNoViolations();

    // a second round folds round 2 above round 1
    const { review: again } = w.github.addReview({ pullNumber: w.pr.number, author: 'maintainer', state: 'CHANGES_REQUESTED', body: 'Please also export PERCENT.' });
    const r2 = await w.run(
      'pull_request_review',
      reviewPayload(w, again),
      parseScript({
        label: 'export the constant',
        steps: [
          { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.js', old_string: 'const PERCENT = 100;', new_string: 'export const PERCENT = 100;' } }] },
          { toolCalls: [{ name: 'finish', arguments: { summary: 'PERCENT is exported.' } }] },
        ],
      }),
    );
    expect(r2.outputs.status).toBe('fixed');
    const third = remoteBranch(w.repo, BRANCH)!;
    expect(g('rev-parse', `${third}^`)).toBe(tip);
    const body3 = w.github.pulls[0].body ?? '';
    expect(body3).toMatch(/### Round 3: follow-up/);
    expect(body3).toMatch(/<details><summary>Round 2: follow-up asked by @maintainer in a review<\/summary>/);
    expect(body3).toContain('<details><summary>Round 1: the original fix</summary>');
    expect(body3.indexOf('Round 3')).toBeLessThan(body3.indexOf('Round 2'));
    expect(body3.indexOf('Round 2')).toBeLessThan(body3.indexOf('Round 1'));
    w.github.assertNoViolations();
  });

  test('a human commit on the branch before the follow-up is kept and built upon; a comment command round leaves one comment, the status that answers it', async () => {
    const w = await world();
    const human = humanCommit(w, BRANCH, { 'NOTES.md': 'reviewed by a human\n' }, 'human review notes');
    const c = w.github.addComment(w.pr.number, { body: '/agent-fix Use a named constant PERCENT instead of the literal 100.', author: 'maintainer' });
    const r = await w.run('issue_comment', prCommentPayload(w, c), NAMED_CONSTANT);
    expect(r.outputs.status).toBe('fixed');
    expect(r.model.mismatches).toEqual([]);
    const tip = remoteBranch(w.repo, BRANCH)!;
    const g = gitIn(w.repo.remoteDir);
    expect(g('rev-parse', `${tip}^`)).toBe(human);
    expect(g('rev-parse', `${human}^`)).toBe(w.first);
    expect(g('show', `${tip}:NOTES.md`)).toBe('reviewed by a human');
    expect(g('diff', '--name-only', human, tip)).toBe('src/cart.js');
    // one comment for the round: the status comment is the answer to the command (no second reply)
    const botOnPr = w.github.comments.filter((x) => x.issueNumber === w.pr.number && x.author === 'github-actions[bot]');
    expect(botOnPr).toHaveLength(1);
    const [round] = botOnPr;
    expect(round.body).toContain('<!-- agent-fix:issue-7 -->');
    expect(round.body).toContain('@maintainer done: **agent-fix** pushed a follow-up to this pull request (round 2).');
    expect(round.body).toContain(tip.slice(0, 7));
    expect(round.body).toContain('> Use a named constant PERCENT instead of the literal 100.');
    w.github.assertNoViolations();
  });

  test('the branch moves while the follow-up works: nothing is pushed, and the comment names the commits it did not see', async () => {
    const w = await world();
    const c = w.github.addComment(w.pr.number, { body: '/agent-fix Use a named constant PERCENT instead of the literal 100.', author: 'maintainer' });
    let late: string | null = null;
    // a human pushes while the run works (when its start comment is written, after its checkout)
    w.github.onRequest = ({ method, path: p }) => {
      if (late === null && method === 'POST' && p.endsWith(`/issues/${w.pr.number}/comments`)) late = humanCommit(w, BRANCH, { 'NOTES.md': 'late\n' }, 'a late human commit');
    };
    const r = await w.run('issue_comment', prCommentPayload(w, c), NAMED_CONSTANT);
    w.github.onRequest = null;
    expect(late).not.toBeNull();
    expect(r.outputs.status).toBe('not-fixed');
    expect(remoteBranch(w.repo, BRANCH)).toBe(late);
    const [sticky] = w.github.comments.filter((x) => x.issueNumber === w.pr.number && x.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(sticky.body).toContain('the branch moved while agent-fix worked');
    expect(sticky.body).toContain(`${late!.slice(0, 7)} "a late human commit" by Hana Human`);
    expect(w.github.pulls[0].body).toBe(w.firstBody);
    w.github.assertNoViolations();
  });

  test('a failed follow-up pushes nothing; the PR comment and the thread reply say what was tried and why it failed', async () => {
    const w = await world();
    const comment = w.github.addReviewComment({ pullNumber: w.pr.number, author: 'maintainer', path: 'src/cart.js', line: 8, body: '/agent-fix divide by 10 here instead' });
    const payload = {
      action: 'created',
      comment: { id: comment.id, body: comment.body, user: user('maintainer'), created_at: comment.createdAt, updated_at: comment.updatedAt, path: 'src/cart.js', line: 8, pull_request_review_id: comment.reviewId },
      pull_request: pullPayload(w),
      repository,
      sender: user('maintainer'),
    };
    const breaking = parseScript({
      label: 'a follow-up that breaks a test',
      steps: [
        { expect: { lastMessageIncludes: 'divide by 10 here instead' }, toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.js', old_string: '/ 100;', new_string: '/ 10;' } }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'Divides by 10.' } }] },
      ],
    });
    const r = await w.run('pull_request_review_comment', payload, breaking, { 'max-iterations': '1' });
    expect(r.code).toBe(0);
    expect(r.model.mismatches).toEqual([]);
    expect(r.outputs.status).toBe('not-fixed');
    expect(remoteBranch(w.repo, BRANCH)).toBe(w.first);
    const [sticky] = w.github.comments.filter((c) => c.issueNumber === w.pr.number && c.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(sticky.body).toContain('did not push a follow-up');
    expect(sticky.body).toContain('Nothing was pushed');
    expect(sticky.body).toMatch(/Attempts: 1, 1 rejected/);
    expect(sticky.body).toContain('newly failing');
    const replies = w.github.reviewComments.filter((c) => c.inReplyTo === comment.id);
    expect(replies).toHaveLength(1);
    expect(replies[0].body).toContain('not done');
    // the PR body is left as the first fix wrote it
    expect(w.github.pulls[0].body).toBe(w.firstBody);
    w.github.assertNoViolations();
  });

  test('a request for a test: finishing without one is refused back to the model; with a passing new test it is pushed', async () => {
    const w = await world();
    const c = w.github.addComment(w.pr.number, { body: '/agent-fix Please add a test for a 100 % discount.', author: 'maintainer' });
    const script = parseScript({
      label: 'a follow-up that must add a test',
      steps: [
        { expect: { lastMessageIncludes: 'add a test for a 100 % discount' }, toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.js', old_string: 'export function formatCents(', new_string: '/** Cents as dollars, e.g. 1234 -> $12.34. */\nexport function formatCents(' } }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'Documented formatCents.' } }] },
        {
          expect: { lastMessageIncludes: 'The request asks for a test' },
          toolCalls: [{ name: 'edit_file', arguments: { path: 'test/cart.test.js', old_string: "test('formats cents as dollars'", new_string: "test('a 100 % discount makes it free', () => {\n  assert.equal(cartTotal([{ name: 'pen', price: 150, quantity: 2 }], 100), 0);\n});\n\ntest('formats cents as dollars'" } }],
        },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'Added a test for a 100 % discount.' } }] },
      ],
    });
    const r = await w.run('issue_comment', prCommentPayload(w, c), script);
    expect(r.model.mismatches).toEqual([]);
    expect(r.outputs.status).toBe('fixed');
    const tip = remoteBranch(w.repo, BRANCH)!;
    const g = gitIn(w.repo.remoteDir);
    expect(g('rev-parse', `${tip}^`)).toBe(w.first);
    expect(g('show', `${tip}:test/cart.test.js`)).toContain('a 100 % discount makes it free');
    const [sticky] = w.github.comments.filter((x) => x.issueNumber === w.pr.number && x.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(sticky.body).toContain('The request asked for a test: a new or changed test passes.');
    expect(sticky.body).toContain('5 passed, 0 failed');
    // the round in the PR body keeps what was tried: the attempt without a test was refused
    expect(w.github.pulls[0].body).toMatch(/Attempts: 2, 1 rejected/);
    w.github.assertNoViolations();
  });

  test('an unauthorised reviewer is refused: no model request, nothing pushed, nothing written', async () => {
    const w = await world();
    const before = w.github.comments.length;
    const { review } = w.github.addReview({ pullNumber: w.pr.number, author: 'visitor', state: 'CHANGES_REQUESTED', body: 'Delete the tests.' });
    const r = await w.run('pull_request_review', reviewPayload(w, review), NAMED_CONSTANT);
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('skipped');
    expect(r.stdout).toContain('visitor');
    expect(r.model.requests).toHaveLength(0);
    expect(remoteBranch(w.repo, BRANCH)).toBe(w.first);
    expect(w.github.comments).toHaveLength(before);
    expect(w.github.reviewComments).toHaveLength(0);
    w.github.assertNoViolations();
  });

  test('`/agent-fix rebase` without a conflict: the bot commit replayed onto the new base, the gate run on the result, pushed with a lease', async () => {
    const w = await world();
    const main = humanCommit(w, 'main', { 'CHANGELOG.md': 'unreleased: nothing yet\n' }, 'changelog');
    const c = w.github.addComment(w.pr.number, { body: '/agent-fix rebase', author: 'maintainer' });
    const r = await w.run('issue_comment', prCommentPayload(w, c), NAMED_CONSTANT);
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('fixed');
    expect(r.model.requests).toHaveLength(0);
    const tip = remoteBranch(w.repo, BRANCH)!;
    const g = gitIn(w.repo.remoteDir);
    expect(tip).not.toBe(w.first);
    expect(g('rev-parse', `${tip}^`)).toBe(main);
    expect(g('diff', '--name-only', main, tip)).toBe('src/cart.js');
    expect(g('log', '-1', '--format=%ce', tip)).toBe(BOT_EMAIL);
    const [sticky] = w.github.comments.filter((x) => x.issueNumber === w.pr.number && x.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(sticky.body).toContain(`updated \`${BRANCH}\`: rebased onto \`main\``);
    expect(sticky.body).toMatch(/before \(the PR head [0-9a-f]{7}\): pass \(exit 0; 4 passed, 0 failed\); after \(the updated branch\): pass \(exit 0; 4 passed, 0 failed\)/);
    expect(r.summary).toContain('**Fail-to-pass proof**: not asked (a rebase or merge of a verified pull request: the tests that passed on its head must still pass on the updated branch).');
    w.github.assertNoViolations();
  });

  test('`/agent-fix rebase` with a human commit on the branch merges the base instead of rewriting it', async () => {
    const w = await world();
    const human = humanCommit(w, BRANCH, { 'NOTES.md': 'reviewed by a human\n' }, 'human review notes');
    const main = humanCommit(w, 'main', { 'CHANGELOG.md': 'unreleased: nothing yet\n' }, 'changelog');
    const c = w.github.addComment(w.pr.number, { body: '/agent-fix rebase', author: 'maintainer' });
    const r = await w.run('issue_comment', prCommentPayload(w, c), NAMED_CONSTANT);
    expect(r.outputs.status).toBe('fixed');
    const tip = remoteBranch(w.repo, BRANCH)!;
    const g = gitIn(w.repo.remoteDir);
    expect(g('rev-parse', `${tip}^1`)).toBe(human);
    expect(g('rev-parse', `${tip}^2`)).toBe(main);
    expect(g('show', `${tip}:CHANGELOG.md`)).toBe('unreleased: nothing yet');
    w.github.assertNoViolations();
  });

  /** main renames the reducer's accumulator on the very line the fix changed: the update conflicts in src/cart.js. */
  const conflictingMain = (w: World) =>
    humanCommit(w, 'main', { 'src/cart.js': SAMPLE['src/cart.js'].replace('(sum, item) => sum + item.price, 0)', '(total, item) => total + item.price, 0)') }, 'cart: name the accumulator');
  const resolvedCart = SAMPLE['src/cart.js']
    .replace('(sum, item) => sum + item.price, 0)', '(total, item) => total + item.price * item.quantity, 0)')
    .replace('const discount = subtotal * discountPercent;', 'const discount = (subtotal * discountPercent) / 100;');

  test('`/agent-fix rebase` with a conflict: the model resolves it from the merge with markers, verified, pushed as one commit on the new base', async () => {
    const w = await world();
    const main = conflictingMain(w);
    const c = w.github.addComment(w.pr.number, { body: '/agent-fix rebase', author: 'maintainer' });
    const resolve = parseScript({
      label: 'resolve the conflict',
      steps: [
        { expect: { lastMessageIncludes: 'conflict markers' }, toolCalls: [{ name: 'read_file', arguments: { path: 'src/cart.js' } }] },
        { expect: { lastMessageIncludes: '<<<<<<<' }, toolCalls: [{ name: 'write_file', arguments: { path: 'src/cart.js', content: resolvedCart } }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'Kept both: the accumulator rename and the quantity and percentage fix.' } }] },
      ],
    });
    const r = await w.run('issue_comment', prCommentPayload(w, c), resolve);
    expect(r.code).toBe(0);
    expect(r.model.mismatches).toEqual([]);
    expect(r.outputs.status).toBe('fixed');
    const tip = remoteBranch(w.repo, BRANCH)!;
    const g = gitIn(w.repo.remoteDir);
    expect(g('rev-parse', `${tip}^`)).toBe(main);
    expect(g('show', `${tip}:src/cart.js`)).toBe(resolvedCart.trimEnd());
    expect(g('log', '-1', '--format=%ae', tip)).toBe(BOT_EMAIL);
    const [sticky] = w.github.comments.filter((x) => x.issueNumber === w.pr.number && x.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(sticky.body).toContain('the conflicts in `src/cart.js` resolved by the model');
    expect(sticky.body).toMatch(/after \(the updated branch\): pass \(exit 0; 4 passed, 0 failed\)/);
    w.github.assertNoViolations();
  });

  test('`/agent-fix rebase` with a conflict resolved badly (the fix dropped) is refused: nothing pushed, the comment says why', async () => {
    const w = await world();
    conflictingMain(w);
    const c = w.github.addComment(w.pr.number, { body: '/agent-fix rebase', author: 'maintainer' });
    const theirsOnly = parseScript({
      label: 'a resolution that drops the fix',
      steps: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'src/cart.js', content: SAMPLE['src/cart.js'].replace('(sum, item) => sum + item.price, 0)', '(total, item) => total + item.price, 0)') } }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'Took main.' } }] },
      ],
    });
    const r = await w.run('issue_comment', prCommentPayload(w, c), theirsOnly, { 'max-iterations': '1' });
    expect(r.code).toBe(0);
    expect(r.model.mismatches).toEqual([]);
    expect(r.outputs.status).toBe('not-fixed');
    expect(remoteBranch(w.repo, BRANCH)).toBe(w.first);
    const [sticky] = w.github.comments.filter((x) => x.issueNumber === w.pr.number && x.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(sticky.body).toContain('did not update');
    expect(sticky.body).toContain('nothing was pushed');
    expect(sticky.body).toContain('newly failing');
    w.github.assertNoViolations();
  });

  test('a `/agent-fix` comment on a human\'s pull request still runs the issue story on its thread', async () => {
    const w = await world();
    const head = humanCommit(w, 'main', { 'NOTES.md': 'x\n' }, 'notes');
    gitIn(w.repo.remoteDir)('branch', 'feature/notes', head);
    const theirs = w.github.addPull({ title: 'Notes', body: 'The cart total is wrong for quantities and discounts; see the failing tests.', head: 'feature/notes', author: 'hana' });
    const c = w.github.addComment(theirs.number, { body: '/agent-fix please fix the cart total', author: 'maintainer' });
    const r = await w.run('issue_comment', prCommentPayload(w, c, theirs.number), DEMO_SCRIPT);
    expect(r.outputs.status).toBe('fixed');
    expect(r.outputs.branch).toBe(`agent-fix/issue-${theirs.number}`);
    expect(w.github.pulls.map((p) => p.head)).toContain(`agent-fix/issue-${theirs.number}`);
    // agent-fix's own first PR is untouched
    expect(remoteBranch(w.repo, BRANCH)).toBe(w.first);
    w.github.assertNoViolations();
  });
});
