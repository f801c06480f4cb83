import { openGit } from '../src/adapters/git.js';
import type { GitPort } from '../src/ports/git.js';
import { publishBranch } from '../src/publish/push.js';
import { isLostRace, publishWithRetry } from '../src/publish/retry.js';
import { BOT, HUMAN, cleanupFixtures, cloneFull, commitAs, makeRepo, writeFiles } from '../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());
const BRANCH = 'agent-fix/issue-9';

async function treeWith(git: GitPort, dir: string, content: string): Promise<string> {
  const pristine = await git.snapshot();
  writeFiles(dir, { 'a.txt': content });
  const tree = await git.snapshot();
  await git.restore(pristine);
  return tree;
}

/** A GitPort whose first push is preceded by `race()` (another run pushing in between). */
function racing(git: GitPort, race: () => Promise<void>): GitPort {
  let raced = false;
  return new Proxy(git, {
    get(target, prop, receiver) {
      if (prop === 'push') {
        return async (...args: Parameters<GitPort['push']>) => {
          if (!raced) {
            raced = true;
            await race();
          }
          return target.push(...args);
        };
      }
      const v = Reflect.get(target, prop, receiver);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

test('classifies lease rejections', () => {
  expect(isLostRace('[rejected] (stale info)')).toBe(true);
  expect(isLostRace('[rejected] (fetch first)')).toBe(true);
  expect(isLostRace('[remote rejected] (pre-receive hook declined)\nremote: GH006: Protected branch update failed')).toBe(false);
});

/** Our checkout with our tree to publish, and a second clone (another run) with its own tree. */
async function raceWorld(extra: { claim?: { id: number; attempt: number } } = {}) {
  const r = makeRepo({ 'a.txt': 'a\n' });
  const git = await openGit(r.dir);
  const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeWith(git, r.dir, 'ours\n'), message: 'agent-fix: ours', identity: BOT, ...extra };
  const other = cloneFull(r.remoteUrl);
  const otherGit = await openGit(other.dir);
  const theirsTree = await treeWith(otherGit, other.dir, 'theirs\n');
  return { r, git, params, otherGit, theirsTree, logs: [] as string[] };
}

test('a race with another bot push: the lease rejects, the retry publishes over the bot commit; one commit on the base', async () => {
  const { r, git, params, otherGit, theirsTree, logs } = await raceWorld();
  const outcome = await publishWithRetry(
    racing(git, async () => {
      await publishBranch(otherGit, { ...params, tree: theirsTree, message: 'agent-fix: theirs' });
    }),
    params,
    (m) => logs.push(m),
  );
  expect(logs.join('\n')).toContain('lost a race');
  expect(outcome.kind).toBe('updated');
  expect(r.git('--git-dir', r.remoteDir, 'rev-list', '--count', `${r.sha}..refs/heads/${BRANCH}`)).toBe('1');
  expect(r.git('--git-dir', r.remoteDir, 'show', `refs/heads/${BRANCH}:a.txt`)).toBe('ours');
});

test('a race with a human push: the retry sees the human commit and leaves the branch alone', async () => {
  const r = makeRepo({ 'a.txt': 'a\n' });
  const git = await openGit(r.dir);
  const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeWith(git, r.dir, 'ours\n'), message: 'agent-fix: ours', identity: BOT };
  const human = cloneFull(r.remoteUrl);
  const logs: string[] = [];
  const outcome = await publishWithRetry(
    racing(git, async () => {
      human.git('checkout', '-b', BRANCH);
      commitAs(human.dir, HUMAN, { 'a.txt': 'human\n' }, 'human work');
      human.git('push', 'origin', BRANCH);
    }),
    params,
    (m) => logs.push(m),
  );
  expect(logs.join('\n')).toContain('lost a race');
  expect(outcome.kind).toBe('human-commits');
  expect(r.git('--git-dir', r.remoteDir, 'show', `refs/heads/${BRANCH}:a.txt`)).toBe('human');
});

test('a race with a newer run of the bot: the lease rejects, the retry sees the newer run\'s commit and yields to it', async () => {
  const { r, git, params, otherGit, theirsTree, logs } = await raceWorld({ claim: { id: 100, attempt: 1 } });
  const outcome = await publishWithRetry(
    racing(git, async () => {
      // the newer run pushes between our fetch (no branch yet) and our push
      await publishBranch(otherGit, { ...params, tree: theirsTree, message: 'agent-fix: theirs', claim: { id: 200, attempt: 1 } });
    }),
    params,
    (m) => logs.push(m),
  );
  expect(logs.join('\n')).toContain('lost a race');
  expect(outcome).toMatchObject({ kind: 'superseded', by: { id: 200, attempt: 1 } });
  expect(r.git('--git-dir', r.remoteDir, 'show', `refs/heads/${BRANCH}:a.txt`)).toBe('theirs');
});
