import { openGit } from '../../src/adapters/git.js';
import { publishBranch } from '../../src/publish/push.js';
import { publishFollowUp } from '../../src/publish/follow-up.js';
import { pushUpdated, updateOnBase } from '../../src/publish/rebase.js';
import { BOT, HUMAN, cleanupFixtures, cloneFull, commitAs, makeRepo, treeOf } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());
const BRANCH = 'agent-fix/issue-3';

/** main: a.txt + b.txt; the bot's branch changes a.txt (and a follow-up changes it again); then main moves on. */
async function drifted(mainChange: Record<string, string>) {
  const r = makeRepo({ 'a.txt': 'one\ntwo\nthree\n', 'b.txt': 'b\n' });
  const git = await openGit(r.dir);
  const first = await publishBranch(git, { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeOf(git, r.dir, { 'a.txt': 'ONE\ntwo\nthree\n' }), message: 'agent-fix: first', identity: BOT });
  if (first.kind !== 'created') throw new Error(first.kind);
  const follow = await publishFollowUp(git, { remote: 'origin', branch: BRANCH, startSha: first.sha, tree: await treeOf(git, r.dir, { 'a.txt': 'ONE\ntwo\nthree\n', 'c.txt': 'c\n' }), message: 'agent-fix: follow-up', identity: BOT });
  if (follow.kind !== 'pushed') throw new Error(follow.kind);
  const human = cloneFull(r.remoteUrl);
  const newBase = commitAs(human.dir, HUMAN, mainChange, 'main moves on');
  human.git('push', '-q', 'origin', 'HEAD:main');
  const run = cloneFull(r.remoteUrl);
  const runGit = await openGit(run.dir);
  await runGit.fetchBranch('origin', BRANCH);
  return { r, run, runGit, head: follow.sha, first: first.sha, newBase, human };
}

test('only bot commits: replayed onto the new base, authors kept, the checkout untouched', async () => {
  const { r, run, runGit, head, newBase } = await drifted({ 'b.txt': 'B\n' });
  const headBefore = run.git('rev-parse', 'HEAD');
  const out = await updateOnBase(runGit, { head, base: newBase, baseName: 'main', branch: BRANCH, identity: BOT });
  expect(out).toMatchObject({ kind: 'rebased', replayed: 2 });
  if (out.kind !== 'rebased') return;
  expect(run.git('rev-parse', 'HEAD')).toBe(headBefore);
  expect(run.git('status', '--porcelain')).toBe('');
  expect(run.git('rev-list', '--count', `${newBase}..${out.sha}`)).toBe('2');
  expect(run.git('rev-parse', `${out.sha}~2`)).toBe(newBase);
  expect(run.git('log', '--format=%ae %s', `${newBase}..${out.sha}`)).toBe(`${BOT.email} agent-fix: follow-up\n${BOT.email} agent-fix: first`);
  expect(run.git('show', `${out.sha}:a.txt`)).toBe('ONE\ntwo\nthree');
  expect(run.git('show', `${out.sha}:b.txt`)).toBe('B');
  expect(run.git('worktree', 'list').split('\n')).toHaveLength(1);
  // pushed with the old head as the lease
  expect(await pushUpdated(runGit, { remote: 'origin', branch: BRANCH, head, sha: out.sha })).toEqual({ kind: 'pushed', sha: out.sha, previousSha: head });
  expect(r.git('--git-dir', r.remoteDir, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(out.sha);
});

test('a human commit on the branch: the base is merged in, no commit rewritten', async () => {
  const { r, run, runGit, newBase } = await drifted({ 'b.txt': 'B\n' });
  const h = cloneFull(r.remoteUrl);
  h.git('checkout', '-q', BRANCH);
  const humanSha = commitAs(h.dir, HUMAN, { 'NOTES.md': 'n\n' }, 'human notes');
  h.git('push', '-q', 'origin', BRANCH);
  await runGit.fetchBranch('origin', BRANCH);
  const out = await updateOnBase(runGit, { head: humanSha, base: newBase, baseName: 'main', branch: BRANCH, identity: BOT });
  expect(out).toMatchObject({ kind: 'merged', humanCommits: [expect.objectContaining({ sha: humanSha, authorEmail: HUMAN.email })] });
  if (out.kind !== 'merged') return;
  expect(run.git('rev-parse', `${out.sha}^1`, `${out.sha}^2`)).toBe(`${humanSha}\n${newBase}`);
  expect(run.git('log', '-1', '--format=%s %ae', out.sha)).toBe(`Merge main into ${BRANCH} ${BOT.email}`);
  expect(run.git('show', `${out.sha}:b.txt`)).toBe('B');
  expect(run.git('show', `${out.sha}:NOTES.md`)).toBe('n');
  expect(run.git('show', `${out.sha}:a.txt`)).toBe('ONE\ntwo\nthree');
});

test('a conflict (main changed the same line) creates nothing and names the file, for rebase and merge', async () => {
  const { r, run, runGit, head, newBase } = await drifted({ 'a.txt': 'uno\ntwo\nthree\n' });
  const out = await updateOnBase(runGit, { head, base: newBase, baseName: 'main', branch: BRANCH, identity: BOT });
  expect(out).toEqual({ kind: 'conflict', how: 'rebase', files: ['a.txt'], at: 'agent-fix: first' });
  expect(run.git('worktree', 'list').split('\n')).toHaveLength(1);
  expect(run.git('status', '--porcelain')).toBe('');
  const h = cloneFull(r.remoteUrl);
  h.git('checkout', '-q', BRANCH);
  const humanSha = commitAs(h.dir, HUMAN, { 'NOTES.md': 'n\n' }, 'human notes');
  h.git('push', '-q', 'origin', BRANCH);
  await runGit.fetchBranch('origin', BRANCH);
  const merged = await updateOnBase(runGit, { head: humanSha, base: newBase, baseName: 'main', branch: BRANCH, identity: BOT });
  expect(merged).toMatchObject({ kind: 'conflict', how: 'merge', files: ['a.txt'] });
});

test('already on the base: up to date; the branch moved meanwhile: not pushed', async () => {
  const { r, runGit, head, newBase } = await drifted({ 'b.txt': 'B\n' });
  expect(await updateOnBase(runGit, { head, base: r.sha, baseName: 'main', branch: BRANCH, identity: BOT })).toEqual({ kind: 'up-to-date', sha: head });
  const out = await updateOnBase(runGit, { head, base: newBase, baseName: 'main', branch: BRANCH, identity: BOT });
  if (out.kind !== 'rebased') throw new Error(out.kind);
  const h = cloneFull(r.remoteUrl);
  h.git('checkout', '-q', BRANCH);
  const humanSha = commitAs(h.dir, HUMAN, { 'x.txt': 'x\n' }, 'human');
  h.git('push', '-q', 'origin', BRANCH);
  expect(await pushUpdated(runGit, { remote: 'origin', branch: BRANCH, head, sha: out.sha })).toEqual({ kind: 'moved', remoteSha: humanSha });
  expect(r.git('--git-dir', r.remoteDir, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(humanSha);
});

test('mergeTree: a clean merge has no conflicts; a conflicting one holds the markers in the tree, the checkout untouched; commitTree makes a merge commit', async () => {
  const clean = await drifted({ 'b.txt': 'B\n' });
  const ok = await clean.runGit.mergeTree(clean.head, clean.newBase);
  expect(ok.conflicts).toEqual([]);
  expect(clean.run.git('show', `${ok.tree}:b.txt`)).toBe('B');

  const { run, runGit, head, newBase } = await drifted({ 'a.txt': 'uno\ntwo\nthree\n' });
  const headBefore = run.git('rev-parse', 'HEAD');
  const m = await runGit.mergeTree(head, newBase);
  expect(m.conflicts).toEqual(['a.txt']);
  const text = run.git('show', `${m.tree}:a.txt`);
  expect(text).toMatch(/^<{7} /m);
  expect(text).toContain('ONE');
  expect(text).toContain('uno');
  expect(text).toMatch(/^>{7} /m);
  expect(run.git('show', `${m.tree}:c.txt`)).toBe('c');
  expect(run.git('rev-parse', 'HEAD')).toBe(headBefore);
  expect(run.git('status', '--porcelain')).toBe('');

  const resolved = await treeOf(runGit, run.dir, { 'a.txt': 'ONE uno\ntwo\nthree\n', 'c.txt': 'c\n' });
  const merge = await runGit.commitTree(resolved, [head, newBase], 'Merge main', BOT);
  expect(run.git('rev-parse', `${merge}^1`)).toBe(head);
  expect(run.git('rev-parse', `${merge}^2`)).toBe(newBase);
});
