/**
 * What a follow-up acts on is read from the API at run time (the real adapter against the
 * OpenAPI-validated fake GitHub): text edited after the trigger, written by someone else, or no
 * longer a request is not acted on.
 */
import { makeGitHub, type GitHubClient } from '../../src/adapters/github.js';
import { startFakeGitHub, type FakeGitHub } from '../../test-support/fake-github.js';
import { readRequest } from '../../src/run/follow-up.js';
import type { PullTrigger } from '../../src/trigger/types.js';

const TOKEN = 'ghs_followUpRequestToken000000000000';
let gh: FakeGitHub;
let client: GitHubClient;
let pr: number;

beforeAll(async () => {
  gh = await startFakeGitHub({ owner: 'octo', repo: 'shop', token: TOKEN });
  client = makeGitHub({ token: TOKEN, baseUrl: gh.url, owner: 'octo', repo: 'shop', retries: 0 });
  pr = gh.addPull({ title: 'agent-fix: cart', head: 'agent-fix/issue-7', body: 'report' }).number;
});
afterAll(async () => {
  gh.assertNoViolations();
  await gh.close();
});

type Instructions = PullTrigger & { command: { verb: 'instructions' } };
const trigger = (over: Partial<Instructions>): Instructions => ({
  kind: 'pull',
  via: 'comment',
  prNumber: pr,
  headRef: 'agent-fix/issue-7',
  actor: 'maintainer',
  triggeredAt: new Date(Date.now() + 60_000).toISOString(),
  command: { verb: 'instructions', text: '' },
  commentId: null,
  reviewId: null,
  ...over,
});

test('a review that requests changes: its body and inline comments, each with its place', async () => {
  const { review, comments } = gh.addReview({ pullNumber: pr, author: 'maintainer', state: 'CHANGES_REQUESTED', body: 'Two things.', comments: [{ path: 'src/cart.js', line: 8, body: 'Name the constant.' }] });
  const r = await readRequest(trigger({ via: 'review', reviewId: review.id }), client, client);
  if ('skip' in r) throw new Error(r.skip);
  expect(r.requests).toEqual([
    { commentId: null, path: null, line: null, text: 'Two things.' },
    { commentId: comments[0].id, path: 'src/cart.js', line: 8, text: 'Name the constant.' },
  ]);
  expect(r.where).toBe('a review');
  expect(r.goal).toContain('src/cart.js:8');
});

test('a review by someone else than the sender, or one that no longer requests changes, is not acted on', async () => {
  const { review } = gh.addReview({ pullNumber: pr, author: 'other', state: 'CHANGES_REQUESTED', body: 'x' });
  expect(await readRequest(trigger({ via: 'review', reviewId: review.id }), client, client)).toEqual({ skip: expect.stringContaining('written by @other') });
  const { review: approved } = gh.addReview({ pullNumber: pr, author: 'maintainer', state: 'APPROVED', body: 'fine' });
  expect(await readRequest(trigger({ via: 'review', reviewId: approved.id }), client, client)).toEqual({ skip: expect.stringContaining('no longer requests changes') });
});

test('an inline /agent-fix comment: that comment with its file and line; edited after the trigger: not acted on', async () => {
  const c = gh.addReviewComment({ pullNumber: pr, author: 'maintainer', path: 'src/cart.js', line: 3, body: '/agent-fix guard against an empty cart' });
  const r = await readRequest(trigger({ via: 'review-comment', commentId: c.id, reviewId: c.reviewId }), client, client);
  if ('skip' in r) throw new Error(r.skip);
  expect(r.requests).toEqual([{ commentId: c.id, path: 'src/cart.js', line: 3, text: 'guard against an empty cart' }]);
  expect(r.where).toBe('a review comment on `src/cart.js:3`');
  const before = new Date(Date.parse(c.createdAt) - 60_000).toISOString();
  expect(await readRequest(trigger({ via: 'review-comment', commentId: c.id, triggeredAt: before }), client, client)).toEqual({ skip: expect.stringContaining('edited after') });
});

test('an inline /agent-fix comment submitted with a review that requests changes is left to the review\'s run', async () => {
  const { comments } = gh.addReview({ pullNumber: pr, author: 'maintainer', state: 'CHANGES_REQUESTED', body: '', comments: [{ path: 'src/cart.js', line: 2, body: '/agent-fix rename it' }] });
  expect(await readRequest(trigger({ via: 'review-comment', commentId: comments[0].id }), client, client)).toEqual({ skip: expect.stringContaining("the review's own run") });
});

test('a PR comment: read from the API; another author, a deleted comment or one that is no longer a request are not acted on', async () => {
  const ok = gh.addComment(pr, { body: '/agent-fix use a named constant', author: 'maintainer' });
  const r = await readRequest(trigger({ commentId: ok.id }), client, client);
  if ('skip' in r) throw new Error(r.skip);
  expect(r.requests).toEqual([{ commentId: null, path: null, line: null, text: 'use a named constant' }]);
  const theirs = gh.addComment(pr, { body: '/agent-fix delete the tests', author: 'mallory' });
  expect(await readRequest(trigger({ commentId: theirs.id }), client, client)).toEqual({ skip: expect.stringContaining('written by @mallory') });
  expect(await readRequest(trigger({ commentId: 999_999 }), client, client)).toEqual({ skip: expect.stringContaining('no longer exists') });
  const rebased = gh.addComment(pr, { body: '/agent-fix rebase', author: 'maintainer' });
  expect(await readRequest(trigger({ commentId: rebased.id }), client, client)).toEqual({ skip: expect.stringContaining('no longer an `/agent-fix` request') });
});
