import { FakeGitHubPort } from '../../test-support/fake-github-port.js';
import { findStickyComment, StickyComment, upsertPullRequest } from '../../src/publish/artifacts.js';
import type { CommentData, PullRequestData } from '../../src/ports/github.js';

const marker = '<!-- agent-fix:issue-7 -->';
const comment = (id: number, author: string, body: string): CommentData => ({ id, author, body, url: `u/${id}`, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });

test('the sticky comment is ours only when a bot wrote it: a human quoting the marker is ignored', () => {
  const list = [comment(1, 'mallory', `${marker} fake status`), comment(2, 'github-actions[bot]', `${marker}\nworking`)];
  expect(findStickyComment(list, marker)?.id).toBe(2);
  expect(findStickyComment([list[0]], marker)).toBeUndefined();
});

test('StickyComment creates once, then updates in place, also across runs', async () => {
  const gh = new FakeGitHubPort();
  const first = new StickyComment(gh, 7, marker);
  await first.set('working on it');
  await first.set('done');
  expect(gh.comments.get(7)).toHaveLength(1);
  expect(gh.comments.get(7)![0].body).toBe(`${marker}\ndone`);
  const rerun = new StickyComment(gh, 7, marker);
  await rerun.set(`${marker}\nagain`);
  expect(gh.comments.get(7)).toHaveLength(1);
  expect(gh.callsTo('createComment')).toHaveLength(1);
  expect(gh.callsTo('updateComment')).toHaveLength(2);
});

test('upsertPullRequest creates, then updates the same PR', async () => {
  const gh = new FakeGitHubPort();
  const p = { head: 'agent-fix/issue-7', base: 'main', title: 't', body: 'b1', draft: true };
  const a = await upsertPullRequest(gh, p);
  const b = await upsertPullRequest(gh, { ...p, body: 'b2' });
  expect(a.kind).toBe('created');
  expect(b).toMatchObject({ kind: 'updated', pr: { number: a.pr.number } });
  expect(gh.pulls).toHaveLength(1);
});

test('upsertPullRequest recovers from the "already exists" race by updating the other run\'s PR', async () => {
  const gh = new FakeGitHubPort();
  const raced: PullRequestData = { number: 99, url: 'u/99', head: 'agent-fix/issue-7', base: 'main', state: 'open', draft: true };
  let lookups = 0;
  gh.findOpenPullRequest = async () => (lookups++ === 0 ? null : raced);
  gh.createPullRequest = async () => {
    throw new Error('Validation Failed: A pull request already exists for octo:agent-fix/issue-7.');
  };
  gh.updatePullRequest = async (n) => ({ ...raced, number: n });
  const r = await upsertPullRequest(gh, { head: 'agent-fix/issue-7', base: 'main', title: 't', body: 'b', draft: true });
  expect(r).toEqual({ kind: 'updated', pr: raced });
});

test('upsertPullRequest passes other errors through', async () => {
  const gh = new FakeGitHubPort();
  gh.failures.createPullRequest = new Error('GitHub API POST /pulls failed with 403: Resource not accessible by integration');
  await expect(upsertPullRequest(gh, { head: 'agent-fix/issue-7', base: 'main', title: 't', body: 'b', draft: true })).rejects.toThrow('403');
});
