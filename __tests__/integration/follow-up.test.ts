import { chmodSync, writeFileSync } from 'node:fs';
import { openGit } from '../../src/adapters/git.js';
import { publishBranch } from '../../src/publish/push.js';
import { publishFollowUp, publishFollowUpWithRetry } from '../../src/publish/follow-up.js';
import { BOT, HUMAN, cleanupFixtures, cloneFull, commitAs, makeRepo, treeOf } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());
const BRANCH = 'agent-fix/issue-5';

/** A repository whose agent-fix branch holds the bot's first fix; the run's checkout is at that head. */
async function withFirstFix() {
  const r = makeRepo({ 'clamp.js': 'v < lo ? lo : v\n', 'README.md': '# c\n' });
  const git = await openGit(r.dir);
  const first = await publishBranch(git, { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeOf(git, r.dir, { 'clamp.js': 'v < lo ? lo : v > hi ? lo : v\n' }), message: 'agent-fix: first', identity: BOT });
  if (first.kind !== 'created') throw new Error(first.kind);
  const run = cloneFull(r.remoteUrl);
  run.git('checkout', '-q', '--detach', first.sha);
  return { r, run, runGit: await openGit(run.dir), firstSha: first.sha };
}

const remoteLog = (r: { git: (...a: string[]) => string; remoteDir: string }) => r.git('--git-dir', r.remoteDir, 'log', '--format=%H %ae %s', `refs/heads/${BRANCH}`).split('\n');

test('a follow-up is one new commit on top of the head: the first fix keeps its sha', async () => {
  const { r, run, runGit, firstSha } = await withFirstFix();
  const tree = await treeOf(runGit, run.dir, { 'clamp.js': 'v < lo ? lo : v > hi ? hi : v\n' });
  const out = await publishFollowUp(runGit, { remote: 'origin', branch: BRANCH, startSha: firstSha, tree, message: 'agent-fix: follow-up: handle hi', identity: BOT });
  expect(out).toMatchObject({ kind: 'pushed', previousSha: firstSha });
  const log = remoteLog(r);
  expect(log).toHaveLength(3);
  expect(log[0]).toContain('agent-fix: follow-up: handle hi');
  expect(log[1]).toBe(`${firstSha} ${BOT.email} agent-fix: first`);
  expect(r.git('--git-dir', r.remoteDir, 'show', `refs/heads/${BRANCH}:clamp.js`)).toBe('v < lo ? lo : v > hi ? hi : v');
});

test('a human commit on the branch before the run is kept and built upon', async () => {
  const { r, firstSha } = await withFirstFix();
  const human = cloneFull(r.remoteUrl);
  human.git('checkout', '-q', BRANCH);
  const humanSha = commitAs(human.dir, HUMAN, { 'NOTES.md': 'why\n' }, 'human: notes');
  human.git('push', '-q', 'origin', BRANCH);
  // the run starts from the branch's current head (the human's commit)
  const run = cloneFull(r.remoteUrl);
  run.git('checkout', '-q', '--detach', humanSha);
  const runGit = await openGit(run.dir);
  const tree = await treeOf(runGit, run.dir, { 'clamp.js': 'fixed\n' });
  const out = await publishFollowUp(runGit, { remote: 'origin', branch: BRANCH, startSha: humanSha, tree, message: 'agent-fix: follow-up', identity: BOT });
  expect(out.kind).toBe('pushed');
  const log = remoteLog(r);
  expect(log.map((l) => l.split(' ')[0]).slice(1, 3)).toEqual([humanSha, firstSha]);
  expect(r.git('--git-dir', r.remoteDir, 'show', `refs/heads/${BRANCH}:NOTES.md`)).toBe('why');
});

test('the branch moved during the run: nothing is pushed, the unseen commits are named', async () => {
  const { r, run, runGit, firstSha } = await withFirstFix();
  const human = cloneFull(r.remoteUrl);
  human.git('checkout', '-q', BRANCH);
  const humanSha = commitAs(human.dir, HUMAN, { 'clamp.js': 'human version\n' }, 'human: my take');
  human.git('push', '-q', 'origin', BRANCH);
  const tree = await treeOf(runGit, run.dir, { 'clamp.js': 'bot version\n' });
  const out = await publishFollowUp(runGit, { remote: 'origin', branch: BRANCH, startSha: firstSha, tree, message: 'agent-fix: follow-up', identity: BOT });
  expect(out).toMatchObject({ kind: 'moved', remoteSha: humanSha });
  expect(out.kind === 'moved' && out.commits.map((c) => [c.sha, c.authorEmail])).toEqual([[humanSha, HUMAN.email]]);
  expect(r.git('--git-dir', r.remoteDir, 'rev-parse', `refs/heads/${BRANCH}`)).toBe(humanSha);
});

test('a follow-up that changes nothing makes no empty commit; a deleted branch is reported', async () => {
  const { r, runGit, firstSha } = await withFirstFix();
  const same = await publishFollowUp(runGit, { remote: 'origin', branch: BRANCH, startSha: firstSha, tree: `${firstSha}^{tree}`, message: 'x', identity: BOT });
  expect(same).toEqual({ kind: 'unchanged', sha: firstSha });
  r.git('--git-dir', r.remoteDir, 'update-ref', '-d', `refs/heads/${BRANCH}`);
  const gone = await publishFollowUp(runGit, { remote: 'origin', branch: BRANCH, startSha: firstSha, tree: `${firstSha}^{tree}`, message: 'x', identity: BOT });
  expect(gone).toEqual({ kind: 'branch-gone' });
});

test('a transient server failure is retried; never a push to a branch outside agent-fix/*', async () => {
  const { r, run, runGit, firstSha } = await withFirstFix();
  const counter = `${r.remoteDir}/n`;
  writeFileSync(`${r.remoteDir}/hooks/pre-receive`, `#!/bin/sh\nc=$(cat "${counter}" 2>/dev/null || echo 0); c=$((c+1)); echo $c > "${counter}"\nif [ $c -le 1 ]; then echo "fatal error in commit_refs" >&2; exit 1; fi\n`);
  chmodSync(`${r.remoteDir}/hooks/pre-receive`, 0o755);
  const tree = await treeOf(runGit, run.dir, { 'clamp.js': 'again\n' });
  const out = await publishFollowUpWithRetry(runGit, { remote: 'origin', branch: BRANCH, startSha: firstSha, tree, message: 'agent-fix: follow-up', identity: BOT }, undefined, { transientDelaysMs: [1], sleep: async () => undefined });
  expect(out.kind).toBe('pushed');
  expect(remoteLog(r)).toHaveLength(3);
  await expect(publishFollowUp(runGit, { remote: 'origin', branch: 'main', startSha: r.sha, tree, message: 'x', identity: BOT })).rejects.toThrow(/only agent-fix\/\* branches/);
});
