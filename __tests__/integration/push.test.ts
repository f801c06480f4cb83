import { openGit } from '../../src/adapters/git.js';
import type { GitPort } from '../../src/ports/git.js';
import { publishBranch, type PublishOutcome } from '../../src/publish/push.js';
import { BOT, HUMAN, cleanupFixtures, cloneFull, cloneShallow, commitAs, makeRepo, writeFiles } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

const BRANCH = 'agent-fix/issue-42';

function setup() {
  const r = makeRepo({ 'src/calc.ts': 'export const add = (a: number, b: number) => a - b;\n', 'README.md': '# calc\n' });
  const remoteSha = (ref: string): string | null => {
    try {
      return r.git('--git-dir', r.remoteDir, 'rev-parse', '--verify', '-q', ref);
    } catch {
      return null;
    }
  };
  return { r, remoteSha };
}

async function fixTree(git: GitPort, dir: string, content: string): Promise<string> {
  const pristine = await git.snapshot();
  writeFiles(dir, { 'src/calc.ts': content });
  const tree = await git.snapshot();
  await git.restore(pristine);
  return tree;
}

describe('publishBranch', () => {
  test('creates, then is unchanged on a re-run with the same tree, then updates with a new tree', async () => {
    const { r, remoteSha } = setup();
    const git = await openGit(r.dir);
    const tree1 = await fixTree(git, r.dir, 'export const add = (a: number, b: number) => a + b;\n');
    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: tree1, message: 'agent-fix: fix add\n\nFixes #42', identity: BOT };

    const created = await publishBranch(git, params);
    expect(created).toMatchObject({ kind: 'created', previousSha: null });
    const sha1 = (created as { sha: string }).sha;
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe(sha1);
    expect(r.git('rev-parse', BRANCH)).toBe(sha1);
    expect(r.git('log', '-1', '--format=%P %T %ae %ce %s', sha1)).toBe(`${r.sha} ${tree1} ${BOT.email} ${BOT.email} agent-fix: fix add`);
    expect(r.git('rev-parse', 'HEAD')).toBe(r.sha);

    // a fresh run (new checkout) with the same result
    const again = await publishBranch(await openGit(cloneFull(r.remoteUrl).dir), params);
    expect(again).toEqual({ kind: 'unchanged', sha: sha1, previousSha: sha1 });
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe(sha1);

    const tree2 = await fixTree(git, r.dir, 'export const add = (a: number, b: number): number => a + b;\n');
    const updated = await publishBranch(git, { ...params, tree: tree2 });
    expect(updated).toMatchObject({ kind: 'updated', previousSha: sha1 });
    const sha2 = (updated as { sha: string }).sha;
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe(sha2);
    // still exactly one commit on top of the base
    expect(r.git('--git-dir', r.remoteDir, 'rev-list', '--count', `${r.sha}..refs/heads/${BRANCH}`)).toBe('1');
    expect(r.git('--git-dir', r.remoteDir, 'rev-parse', `refs/heads/${BRANCH}^`)).toBe(r.sha);
    expect(r.git('rev-parse', BRANCH)).toBe(sha2);
  });

  test('a re-run on a newer base replaces the bot commit (rebased onto the new base)', async () => {
    const { r, remoteSha } = setup();
    const git = await openGit(r.dir);
    const tree1 = await fixTree(git, r.dir, 'fix 1\n');
    await publishBranch(git, { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: tree1, message: 'fix', identity: BOT });
    const newBase = commitAs(r.dir, HUMAN, { 'README.md': '# calc v2\n' }, 'docs');
    r.git('push', '-q', 'origin', 'main');
    const tree2 = await fixTree(git, r.dir, 'fix 1\n');
    const out = await publishBranch(git, { remote: 'origin', branch: BRANCH, baseSha: newBase, tree: tree2, message: 'fix', identity: BOT });
    expect(out.kind).toBe('updated');
    expect(r.git('--git-dir', r.remoteDir, 'rev-parse', `refs/heads/${BRANCH}^`)).toBe(newBase);
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe((out as { sha: string }).sha);
  });

  test('a human commit on the branch blocks the update and nothing is pushed', async () => {
    const { r, remoteSha } = setup();
    const git = await openGit(r.dir);
    const tree1 = await fixTree(git, r.dir, 'bot fix\n');
    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: tree1, message: 'fix', identity: BOT };
    const created = await publishBranch(git, params);
    expect(created.kind).toBe('created');

    // a maintainer pushes a commit on top of the bot's
    const other = cloneFull(r.remoteUrl);
    other.git('checkout', '-q', BRANCH);
    const human = commitAs(other.dir, HUMAN, { 'src/calc.ts': 'human touch\n' }, 'Tweak the fix');
    other.git('push', '-q', 'origin', BRANCH);

    const tree2 = await fixTree(git, r.dir, 'bot fix v2\n');
    const out = await publishBranch(git, { ...params, tree: tree2 });
    expect(out).toEqual({
      kind: 'human-commits',
      remoteSha: human,
      commits: [{ sha: human, authorName: HUMAN.name, authorEmail: HUMAN.email, committerEmail: HUMAN.email, subject: 'Tweak the fix' }],
    });
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe(human);
  });

  test('a commit authored by the bot but committed by a human also counts as human', async () => {
    const { r, remoteSha } = setup();
    const other = cloneFull(r.remoteUrl);
    other.git('checkout', '-q', '-b', BRANCH);
    writeFiles(other.dir, { 'x.txt': 'x\n' });
    other.git('add', '-A');
    other.git('commit', '-q', '-m', 'amended by hand', `--author=${BOT.name} <${BOT.email}>`);
    other.git('push', '-q', 'origin', BRANCH);
    const tip = other.git('rev-parse', 'HEAD');
    const git = await openGit(r.dir);
    const out = await publishBranch(git, { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await fixTree(git, r.dir, 'y\n'), message: 'fix', identity: BOT });
    expect(out.kind).toBe('human-commits');
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe(tip);
  });

  test('a stale lease (the branch moved after the fetch) is a rejection', async () => {
    const { r, remoteSha } = setup();
    const git = await openGit(r.dir);
    const tree1 = await fixTree(git, r.dir, 'v1\n');
    await publishBranch(git, { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: tree1, message: 'fix', identity: BOT });

    // another run of the bot pushes between our fetch and our push
    const racer = cloneFull(r.remoteUrl);
    let raced = '';
    const racing: GitPort = Object.create(git);
    racing.fetchBranch = async (remote, branch) => {
      const sha = await git.fetchBranch(remote, branch);
      racer.git('fetch', '-q', 'origin', `+refs/heads/${BRANCH}:refs/remotes/origin/${BRANCH}`);
      racer.git('checkout', '-q', '-B', BRANCH, `origin/${BRANCH}`);
      raced = commitAs(racer.dir, BOT, { 'race.txt': 'r\n' }, 'concurrent bot run');
      racer.git('push', '-q', 'origin', BRANCH);
      return sha;
    };
    const tree2 = await fixTree(git, r.dir, 'v2\n');
    const out: PublishOutcome = await publishBranch(racing, { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: tree2, message: 'fix', identity: BOT });
    expect(out.kind).toBe('rejected');
    expect(out.kind === 'rejected' && out.reason).toMatch(/stale info/);
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe(raced);
  });

  test('refuses branches outside agent-fix/ before touching anything', async () => {
    const { r, remoteSha } = setup();
    const git = await openGit(r.dir);
    const tree = await fixTree(git, r.dir, 'x\n');
    for (const branch of ['main', 'feature/x', 'agent-fix', 'agent-fix/', 'agent-fix/bad..name']) {
      await expect(publishBranch(git, { remote: 'origin', branch, baseSha: r.sha, tree, message: 'm', identity: BOT })).rejects.toThrow(/refusing to publish/);
    }
    expect(remoteSha('refs/heads/main')).toBe(r.sha);
    expect(r.git('--git-dir', r.remoteDir, 'for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
  });

  test('works from a shallow clone (actions/checkout depth 1), including the update path', async () => {
    const { r, remoteSha } = setup();
    for (let i = 1; i <= 3; i++) commitAs(r.dir, HUMAN, { [`n${i}.txt`]: `${i}\n` }, `main ${i}`);
    r.git('push', '-q', 'origin', 'main');
    const oldBase = r.git('rev-parse', 'HEAD~2');
    // an earlier bot run published on an older base
    const early = await openGit(r.dir);
    r.git('checkout', '-q', '--detach', oldBase);
    const oldTree = await fixTree(early, r.dir, 'early fix\n');
    const first = await publishBranch(early, { remote: 'origin', branch: BRANCH, baseSha: oldBase, tree: oldTree, message: 'fix', identity: BOT });
    expect(first.kind).toBe('created');
    r.git('checkout', '-q', 'main');

    const ci = cloneShallow(r.remoteUrl);
    const git = await openGit(ci.dir);
    const base = await git.headSha();
    const tree = await fixTree(git, ci.dir, 'new fix\n');
    const out = await publishBranch(git, { remote: 'origin', branch: BRANCH, baseSha: base, tree, message: 'fix', identity: BOT });
    expect(out).toMatchObject({ kind: 'updated', previousSha: (first as { sha: string }).sha });
    expect(r.git('--git-dir', r.remoteDir, 'rev-parse', `refs/heads/${BRANCH}^`)).toBe(base);
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe((out as { sha: string }).sha);
  });
});

describe('publishBranch with run claims (safety/claim.ts)', () => {
  const OLD = { id: 100, attempt: 1 };
  const NEW = { id: 200, attempt: 1 };
  const tipMessage = (r: ReturnType<typeof setup>['r']) => r.git('--git-dir', r.remoteDir, 'log', '-1', '--format=%B', `refs/heads/${BRANCH}`);

  test('a tip pushed by a newer run is never replaced, also when it sits on a newer base; a yet newer run updates it', async () => {
    const { r, remoteSha } = setup();
    const older = await openGit(cloneFull(r.remoteUrl).dir);
    const olderTree = await fixTree(older, older.root, 'older fix\n');
    // the newer run repaired a later failing commit (a human commit on top of the older run's base)
    const newBase = commitAs(r.dir, HUMAN, { 'README.md': '# calc v2\n' }, 'docs');
    r.git('push', '-q', 'origin', 'main');
    const newer = await openGit(r.dir);
    const pushed = await publishBranch(newer, { remote: 'origin', branch: BRANCH, baseSha: newBase, tree: await fixTree(newer, r.dir, 'newer fix\n'), message: 'agent-fix: newer', identity: BOT, claim: NEW });
    expect(pushed.kind).toBe('created');
    expect(tipMessage(r).trimEnd().split('\n').pop()).toBe('Agent-Fix-Run: 200.1');
    const newerSha = remoteSha(`refs/heads/${BRANCH}`);

    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: olderTree, message: 'agent-fix: older', identity: BOT };
    expect(await publishBranch(older, { ...params, claim: OLD })).toEqual({ kind: 'superseded', by: NEW, remoteSha: newerSha });
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe(newerSha);
    // without claims the older run would have read the newer base's commit as a human's
    expect((await publishBranch(older, params)).kind).toBe('human-commits');

    const newest = await publishBranch(newer, { remote: 'origin', branch: BRANCH, baseSha: newBase, tree: await fixTree(newer, r.dir, 'newest fix\n'), message: 'agent-fix: newest', identity: BOT, claim: { id: 200, attempt: 2 } });
    expect(newest).toMatchObject({ kind: 'updated', previousSha: newerSha });
    expect(tipMessage(r).trimEnd().split('\n').pop()).toBe('Agent-Fix-Run: 200.2');
  });

  test('the same tree: unchanged for the run that pushed it, re-stamped by a newer run so the tip names it', async () => {
    const { r } = setup();
    const git = await openGit(r.dir);
    const params = { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await fixTree(git, r.dir, 'fix\n'), message: 'agent-fix: fix', identity: BOT };
    const first = await publishBranch(git, { ...params, claim: OLD });
    expect(first.kind).toBe('created');
    expect(await publishBranch(git, { ...params, claim: OLD })).toMatchObject({ kind: 'unchanged' });
    const second = await publishBranch(git, { ...params, claim: NEW });
    expect(second).toMatchObject({ kind: 'updated', previousSha: (first as { sha: string }).sha });
    expect(r.git('--git-dir', r.remoteDir, 'rev-parse', `refs/heads/${BRANCH}^{tree}`)).toBe(params.tree);
    expect(tipMessage(r).trimEnd().split('\n').pop()).toBe('Agent-Fix-Run: 200.1');
    // and now the older run yields to it
    expect((await publishBranch(git, { ...params, claim: OLD })).kind).toBe('superseded');
  });

  test("a human's commit with a forged trailer claims nothing: it is a human commit, never overwritten", async () => {
    const { r, remoteSha } = setup();
    const other = cloneFull(r.remoteUrl);
    other.git('checkout', '-q', '-b', BRANCH);
    const forged = commitAs(other.dir, HUMAN, { 'x.txt': 'x\n' }, 'my work\n\nAgent-Fix-Run: 999999.1');
    other.git('push', '-q', 'origin', BRANCH);
    const git = await openGit(r.dir);
    const out = await publishBranch(git, { remote: 'origin', branch: BRANCH, baseSha: r.sha, tree: await fixTree(git, r.dir, 'y\n'), message: 'fix', identity: BOT, claim: OLD });
    expect(out.kind).toBe('human-commits');
    expect(remoteSha(`refs/heads/${BRANCH}`)).toBe(forged);
  });
});
