import { openGit } from '../../src/adapters/git.js';
import type { GitPort } from '../../src/ports/git.js';
import { publishBranch } from '../../src/publish/push.js';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { isLostRace, isTransientPushFailure, publishWithRetry } from '../../src/publish/retry.js';
import { BOT, HUMAN, cleanupFixtures, cloneFull, commitAs, makeRepo, writeFiles } from '../../test-support/git-fixture.js';

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

describe('transient server failures', () => {
  test.each([
    ['remote: fatal error in commit_refs\n[remote rejected] (failure)', true],
    ['fatal: unable to access: The requested URL returned error: 502', true],
    ['error: RPC failed; HTTP 500 curl 22', true],
    ['fatal: the remote end hung up unexpectedly', true],
    ['[remote rejected] (pre-receive hook declined)\nremote: GH006: Protected branch update failed', false],
    ['[rejected] (stale info)', false],
    ['remote: Permission to o/r.git denied to github-actions[bot].', false],
  ])('%j transient: %s', (reason, transient) => expect(isTransientPushFailure(reason)).toBe(transient));

  /** A pre-receive hook on the bare remote that fails its first `n` pushes the way GitHub's servers sometimes do. */
  function flakyRemote(remoteDir: string, n: number): string {
    const counter = `${remoteDir}/push-attempts`;
    writeFileSync(
      `${remoteDir}/hooks/pre-receive`,
      `#!/bin/sh\nc=$(cat "${counter}" 2>/dev/null || echo 0); c=$((c+1)); echo $c > "${counter}"\nif [ $c -le ${n} ]; then echo "fatal error in commit_refs" >&2; exit 1; fi\nexit 0\n`,
    );
    chmodSync(`${remoteDir}/hooks/pre-receive`, 0o755);
    return counter;
  }

  test('"fatal error in commit_refs" once: waited out, published on the retry, one commit on the base', async () => {
    const r = makeRepo({ 'a.txt': 'a\n' });
    const git = await openGit(r.dir);
    const counter = flakyRemote(r.remoteDir, 1);
    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeWith(git, r.dir, 'ours\n'), message: 'agent-fix: ours', identity: BOT };
    const logs: string[] = [];
    const waits: number[] = [];
    const outcome = await publishWithRetry(git, params, (m) => logs.push(m), { transientDelaysMs: [5, 10, 20], sleep: async (ms) => void waits.push(ms) });
    expect(outcome.kind).toBe('created');
    expect(waits).toEqual([5]);
    expect(readFileSync(counter, 'utf8').trim()).toBe('2');
    expect(logs.join('\n')).toContain('transient server failure');
    expect(r.git('--git-dir', r.remoteDir, 'rev-list', '--count', `${r.sha}..refs/heads/${BRANCH}`)).toBe('1');
  });

  test('a server that keeps failing: each wait longer, then a rejection that says how often it was tried', async () => {
    const r = makeRepo({ 'a.txt': 'a\n' });
    const git = await openGit(r.dir);
    const counter = flakyRemote(r.remoteDir, 99);
    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeWith(git, r.dir, 'ours\n'), message: 'agent-fix: ours', identity: BOT };
    const waits: number[] = [];
    const outcome = await publishWithRetry(git, params, () => undefined, { transientDelaysMs: [1, 2, 3], sleep: async (ms) => void waits.push(ms) });
    expect(waits).toEqual([1, 2, 3]);
    expect(readFileSync(counter, 'utf8').trim()).toBe('4');
    expect(outcome.kind).toBe('rejected');
    expect(outcome.kind === 'rejected' && outcome.reason).toContain('failed the same way 4 times');
    expect(r.git('--git-dir', r.remoteDir, 'for-each-ref', `refs/heads/${BRANCH}`)).toBe('');
  });

  test('a human pushes to the branch while the server hiccups: the retry sees the commit and leaves it alone', async () => {
    const r = makeRepo({ 'a.txt': 'a\n' });
    const git = await openGit(r.dir);
    flakyRemote(r.remoteDir, 1);
    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeWith(git, r.dir, 'ours\n'), message: 'agent-fix: ours', identity: BOT };
    const human = cloneFull(r.remoteUrl);
    const outcome = await publishWithRetry(git, params, () => undefined, {
      transientDelaysMs: [1],
      sleep: async () => {
        // during the wait, a human's push (the hook's one failure is already spent)
        human.git('checkout', '-b', BRANCH);
        commitAs(human.dir, HUMAN, { 'a.txt': 'human\n' }, 'human work');
        human.git('push', 'origin', BRANCH);
      },
    });
    expect(outcome.kind).toBe('human-commits');
    expect(r.git('--git-dir', r.remoteDir, 'show', `refs/heads/${BRANCH}:a.txt`)).toBe('human');
  });

  test('the connection dropped mid-push (git itself fails, "remote end hung up"): retried, published once', async () => {
    const r = makeRepo({ 'a.txt': 'a\n' });
    const git = await openGit(r.dir);
    const counter = `${r.remoteDir}/push-attempts`;
    // The first push: receive-pack is killed under the client, as when a connection drops.
    writeFileSync(
      `${r.remoteDir}/hooks/pre-receive`,
      `#!/bin/sh\nc=$(cat "${counter}" 2>/dev/null || echo 0); c=$((c+1)); echo $c > "${counter}"\nif [ $c -le 1 ]; then kill -9 $PPID; exit 1; fi\nexit 0\n`,
    );
    chmodSync(`${r.remoteDir}/hooks/pre-receive`, 0o755);
    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeWith(git, r.dir, 'ours\n'), message: 'agent-fix: ours', identity: BOT };
    const logs: string[] = [];
    const outcome = await publishWithRetry(git, params, (m) => logs.push(m), { transientDelaysMs: [1], sleep: async () => undefined });
    expect(logs.join('\n')).toMatch(/hung up|disconnect/);
    expect(outcome.kind).toBe('created');
    expect(readFileSync(counter, 'utf8').trim()).toBe('2');
    expect(r.git('--git-dir', r.remoteDir, 'rev-list', '--count', `${r.sha}..refs/heads/${BRANCH}`)).toBe('1');
  });

  test('a protected-branch rejection is final: no wait, no retry', async () => {
    const r = makeRepo({ 'a.txt': 'a\n' });
    const git = await openGit(r.dir);
    writeFileSync(`${r.remoteDir}/hooks/pre-receive`, '#!/bin/sh\necho "GH006: Protected branch update failed" >&2\nexit 1\n');
    chmodSync(`${r.remoteDir}/hooks/pre-receive`, 0o755);
    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await treeWith(git, r.dir, 'ours\n'), message: 'agent-fix: ours', identity: BOT };
    const waits: number[] = [];
    const outcome = await publishWithRetry(git, params, () => undefined, { transientDelaysMs: [1, 2], sleep: async (ms) => void waits.push(ms) });
    expect(outcome.kind).toBe('rejected');
    expect(waits).toEqual([]);
  });
});
