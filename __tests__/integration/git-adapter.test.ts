import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { openGit, redactUrls } from '../../src/adapters/git.js';
import { BOT, HUMAN, cleanupFixtures, cloneShallow, commitAs, makeRepo, tempDir, writeFiles } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

const read = (dir: string, p: string) => readFileSync(path.join(dir, p), 'utf8');

function baseRepo() {
  return makeRepo(
    {
      'src/a.ts': 'export const a = 1;\n',
      'src/b.ts': 'export const b = 2;\n',
      'README.md': '# demo\n',
      'lib/deep/c.txt': 'c\n',
    },
    { gitignore: ['node_modules/', '*.log'] },
  );
}

describe('openGit', () => {
  test('rejects a directory that is not a git work tree', async () => {
    const d = tempDir();
    await expect(openGit(d)).rejects.toThrow(`not a git repository: ${d}`);
    await expect(openGit(path.join(d, 'missing'))).rejects.toThrow(/not a git repository/);
  });

  test('resolves the top level from a subdirectory', async () => {
    const r = baseRepo();
    const git = await openGit(path.join(r.dir, 'src'));
    expect(git.root).toBe(r.git('rev-parse', '--show-toplevel'));
    expect(await git.headSha()).toBe(r.sha);
  });
});

describe('snapshot / restore', () => {
  test('round-trips modified, added, deleted and untracked files; ignored files and the index are untouched', async () => {
    const r = baseRepo();
    writeFiles(r.dir, { 'node_modules/pkg/index.js': 'module.exports = 1;\n', 'debug.log': 'log\n' });
    const git = await openGit(r.dir);
    const indexBefore = r.git('ls-files', '-s');
    const pristine = await git.snapshot();
    expect(pristine).toBe(r.git('rev-parse', 'HEAD^{tree}'));

    // the agent edits
    writeFiles(r.dir, {
      'src/a.ts': 'export const a = 42;\n',
      'src/new.ts': 'export const n = 0;\n',
      'lib/deep/c.txt': null,
      'notes/todo.md': 'untracked\n',
    });
    const edited = await git.snapshot();
    expect(edited).not.toBe(pristine);
    expect(r.git('ls-files', '-s')).toBe(indexBefore);
    expect(r.git('rev-parse', 'HEAD')).toBe(r.sha);
    const names = r.git('ls-tree', '-r', '--name-only', edited).split('\n');
    expect(names).toEqual(expect.arrayContaining(['src/new.ts', 'notes/todo.md', 'src/a.ts']));
    expect(names).not.toContain('lib/deep/c.txt');
    expect(names.some((n) => n.startsWith('node_modules/') || n.endsWith('.log'))).toBe(false);

    // roll back
    writeFiles(r.dir, { 'src/b.ts': 'broken\n', 'scratch.tmp': 'x\n' });
    await git.restore(pristine);
    expect(read(r.dir, 'src/a.ts')).toBe('export const a = 1;\n');
    expect(read(r.dir, 'src/b.ts')).toBe('export const b = 2;\n');
    expect(read(r.dir, 'lib/deep/c.txt')).toBe('c\n');
    expect(existsSync(path.join(r.dir, 'src/new.ts'))).toBe(false);
    expect(existsSync(path.join(r.dir, 'notes'))).toBe(false);
    expect(existsSync(path.join(r.dir, 'scratch.tmp'))).toBe(false);
    expect(read(r.dir, 'node_modules/pkg/index.js')).toBe('module.exports = 1;\n');
    expect(read(r.dir, 'debug.log')).toBe('log\n');
    expect(r.git('status', '--porcelain')).toBe('');
    expect(await git.snapshot()).toBe(pristine);

    // and forward again
    await git.restore(edited);
    expect(read(r.dir, 'src/a.ts')).toBe('export const a = 42;\n');
    expect(read(r.dir, 'notes/todo.md')).toBe('untracked\n');
    expect(existsSync(path.join(r.dir, 'lib/deep/c.txt'))).toBe(false);
    expect(await git.snapshot()).toBe(edited);
    // the real index still describes HEAD: nothing of the agent's is staged
    expect(r.git('diff', '--cached', '--name-only')).toBe('');
    expect(r.git('ls-files', '-s')).toBe(indexBefore);
    expect(read(r.dir, 'node_modules/pkg/index.js')).toBe('module.exports = 1;\n');
  });

  test('leaves a human’s staged change alone in the index', async () => {
    const r = baseRepo();
    writeFiles(r.dir, { 'README.md': '# staged\n' });
    r.git('add', 'README.md');
    const staged = r.git('ls-files', '-s', 'README.md');
    const git = await openGit(r.dir);
    const snap = await git.snapshot();
    writeFiles(r.dir, { 'README.md': '# agent\n' });
    await git.restore(snap);
    expect(read(r.dir, 'README.md')).toBe('# staged\n');
    expect(r.git('ls-files', '-s', 'README.md')).toBe(staged);
  });

  test('handles a file replaced by a directory, an executable bit and a symlink', async () => {
    const r = baseRepo();
    const git = await openGit(r.dir);
    const pristine = await git.snapshot();
    writeFiles(r.dir, { 'README.md': null });
    mkdirSync(path.join(r.dir, 'README.md'));
    writeFileSync(path.join(r.dir, 'README.md', 'inner.txt'), 'inner\n');
    writeFileSync(path.join(r.dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
    symlinkSync('src/a.ts', path.join(r.dir, 'link.ts'));
    const changed = await git.snapshot();
    await git.restore(pristine);
    expect(read(r.dir, 'README.md')).toBe('# demo\n');
    expect(existsSync(path.join(r.dir, 'link.ts'))).toBe(false);
    await git.restore(changed);
    expect(read(r.dir, 'README.md/inner.txt')).toBe('inner\n');
    expect(readlinkSync(path.join(r.dir, 'link.ts'))).toBe('src/a.ts');
    expect(r.git('ls-tree', changed, 'run.sh')).toMatch(/^100755 /);
    expect(await git.snapshot()).toBe(changed);
  });

  test('works in a repository without commits', async () => {
    const d = path.join(tempDir(), 'empty');
    mkdirSync(d);
    const { execFileSync } = await import('node:child_process');
    execFileSync('git', ['init', '-q', d]);
    writeFiles(d, { 'x.txt': 'x\n' });
    const git = await openGit(d);
    const snap = await git.snapshot();
    writeFiles(d, { 'y.txt': 'y\n' });
    await git.restore(snap);
    expect(existsSync(path.join(d, 'y.txt'))).toBe(false);
    expect(read(d, 'x.txt')).toBe('x\n');
  });
});

describe('diff / changes', () => {
  test('reports modified, added, deleted, renamed and binary files', async () => {
    const r = makeRepo({
      'keep.txt': 'one\ntwo\nthree\n',
      'gone.txt': 'bye\n',
      'old-name.txt': 'a fairly long line of text so rename detection is confident\nline two\nline three\n',
      'img.bin': 'placeholder\n',
    });
    const git = await openGit(r.dir);
    const from = await git.snapshot();
    writeFiles(r.dir, {
      'keep.txt': 'one\n2\nthree\nfour\n',
      'gone.txt': null,
      'old-name.txt': null,
      'new-name.txt': 'a fairly long line of text so rename detection is confident\nline two\nline three\n',
      'added.txt': 'hello\n',
    });
    writeFileSync(path.join(r.dir, 'img.bin'), Buffer.from([0, 1, 2, 0, 255, 0, 3]));
    const to = await git.snapshot();
    const changes = await git.changes(from, to);
    const by = Object.fromEntries(changes.map((c) => [c.path, c]));
    expect(by['keep.txt']).toEqual({ path: 'keep.txt', status: 'modified', additions: 2, deletions: 1, binary: false });
    expect(by['gone.txt']).toEqual({ path: 'gone.txt', status: 'deleted', additions: 0, deletions: 1, binary: false });
    expect(by['added.txt']).toEqual({ path: 'added.txt', status: 'added', additions: 1, deletions: 0, binary: false });
    expect(by['new-name.txt']).toEqual({ path: 'new-name.txt', oldPath: 'old-name.txt', status: 'renamed', additions: 0, deletions: 0, binary: false });
    expect(by['img.bin']).toMatchObject({ status: 'modified', binary: true, additions: 0, deletions: 0 });
    expect(changes).toHaveLength(5);

    const diff = await git.diff(from, to);
    expect(diff).toContain('diff --git a/keep.txt b/keep.txt');
    expect(diff).toContain('-two\n+2\n');
    expect(diff).toContain('rename from old-name.txt');
    expect(diff).toMatch(/Binary files a\/img.bin and b\/img.bin differ/);
    expect(await git.changes(from, from)).toEqual([]);
    expect(await git.diff(to, to)).toBe('');
  });

  test('handles paths with spaces, quotes and non-ASCII characters', async () => {
    const r = makeRepo({ 'plain.txt': 'p\n' });
    const git = await openGit(r.dir);
    const from = await git.snapshot();
    writeFiles(r.dir, { 'dir with space/"quoted" é.txt': 'x\n' });
    const to = await git.snapshot();
    expect(await git.changes(from, to)).toEqual([
      { path: 'dir with space/"quoted" é.txt', status: 'added', additions: 1, deletions: 0, binary: false },
    ]);
    expect(await git.listFiles()).toEqual(['dir with space/"quoted" é.txt', 'plain.txt']);
  });

  test('paths that look like raw or numstat records, and a rename with edits, keep their own counts', async () => {
    const long = Array.from({ length: 12 }, (_, i) => `line ${i} of a file long enough for rename detection`).join('\n');
    const r = makeRepo({ ':100644 100644 abc def M': 'x\n', 'from.txt': `${long}\n`, '1\t2\tthree': 'y\n' });
    const git = await openGit(r.dir);
    const from = await git.snapshot();
    writeFiles(r.dir, { ':100644 100644 abc def M': 'x\nmore\n', 'from.txt': null, 'to.txt': `${long}\nadded\n`, '1\t2\tthree': null, ':new': 'n\n' });
    const to = await git.snapshot();
    const by = Object.fromEntries((await git.changes(from, to)).map((c) => [c.path, c]));
    expect(by).toEqual({
      ':100644 100644 abc def M': { path: ':100644 100644 abc def M', status: 'modified', additions: 1, deletions: 0, binary: false },
      'to.txt': { path: 'to.txt', oldPath: 'from.txt', status: 'renamed', additions: 1, deletions: 0, binary: false },
      '1\t2\tthree': { path: '1\t2\tthree', status: 'deleted', additions: 0, deletions: 1, binary: false },
      ':new': { path: ':new', status: 'added', additions: 1, deletions: 0, binary: false },
    });
  });
});

describe('listFiles', () => {
  test('tracked plus untracked-not-ignored, sorted, without deleted files', async () => {
    const r = baseRepo();
    writeFiles(r.dir, { 'node_modules/x/index.js': '1\n', 'z.log': 'z\n', 'src/c.ts': 'c\n', 'README.md': null });
    const git = await openGit(r.dir);
    expect(await git.listFiles()).toEqual(['.gitignore', 'lib/deep/c.txt', 'src/a.ts', 'src/b.ts', 'src/c.ts']);
  });
});

describe('commitTree', () => {
  test('creates a commit with the given identity as author and committer, moving no ref', async () => {
    const r = baseRepo();
    const git = await openGit(r.dir);
    writeFiles(r.dir, { 'src/a.ts': 'changed\n' });
    const tree = await git.snapshot();
    const sha = await git.commitTree(tree, r.sha, 'agent-fix: change a\n\nbody', BOT);
    expect(r.git('log', '-1', '--format=%an|%ae|%cn|%ce|%s|%P|%T', sha)).toBe(
      `${BOT.name}|${BOT.email}|${BOT.name}|${BOT.email}|agent-fix: change a|${r.sha}|${tree}`,
    );
    expect(r.git('rev-parse', 'HEAD')).toBe(r.sha);
    expect(r.git('rev-parse', 'main')).toBe(r.sha);
  });
});

describe('fetch, history and push', () => {
  test('fetchBranch returns the sha, or null for a missing branch; other errors throw', async () => {
    const r = baseRepo();
    const git = await openGit(r.dir);
    expect(await git.fetchBranch('origin', 'main')).toBe(r.sha);
    expect(await git.fetchBranch('origin', 'agent-fix/none')).toBeNull();
    await expect(git.fetchBranch('no-such-remote', 'main')).rejects.toThrow(/could not fetch branch main from no-such-remote/);
    await expect(git.fetchBranch('origin', 'bad..name')).rejects.toThrow(/invalid branch name/);
  });

  test('shallow clone: commitsBetween and isAncestor deepen instead of answering wrongly', async () => {
    const r = baseRepo();
    // main grows; a branch forks from an old main commit and gets a human commit
    const forkPoint = commitAs(r.dir, HUMAN, { 'h1.txt': '1\n' }, 'main 1');
    r.git('push', '-q', 'origin', 'main');
    r.git('checkout', '-q', '-b', 'agent-fix/issue-1');
    const bot = commitAs(r.dir, BOT, { 'fix.txt': 'fix\n' }, 'agent-fix: bot');
    const human = commitAs(r.dir, HUMAN, { 'fix.txt': 'fix by hand\n' }, 'human tweak');
    r.git('push', '-q', 'origin', 'agent-fix/issue-1');
    r.git('checkout', '-q', 'main');
    for (let i = 2; i <= 5; i++) commitAs(r.dir, HUMAN, { [`h${i}.txt`]: `${i}\n` }, `main ${i}`);
    r.git('push', '-q', 'origin', 'main');
    const mainTip = r.git('rev-parse', 'main');

    const shallow = cloneShallow(r.remoteUrl);
    expect(shallow.git('rev-parse', '--is-shallow-repository')).toBe('true');
    const logs: string[] = [];
    const git = await openGit(shallow.dir, { log: (m) => logs.push(m) });
    expect(await git.headSha()).toBe(mainTip);
    const tip = await git.fetchBranch('origin', 'agent-fix/issue-1');
    expect(tip).toBe(human);
    const commits = await git.commitsBetween(mainTip, human);
    expect(commits.map((c) => c.sha)).toEqual([human, bot]);
    expect(commits[0]).toEqual({ sha: human, authorName: HUMAN.name, authorEmail: HUMAN.email, committerEmail: HUMAN.email, subject: 'human tweak' });
    expect(commits[1].authorEmail).toBe(BOT.email);
    expect(logs.some((l) => /shallow clone/.test(l))).toBe(true);
    expect(await git.isAncestor(forkPoint, mainTip)).toBe(true);
    expect(await git.isAncestor(bot, mainTip)).toBe(false);
    expect(await git.isAncestor(mainTip, mainTip)).toBe(true);
  });

  test('shallow clone: isAncestor deepens to see an old ancestor', async () => {
    const r = baseRepo();
    for (let i = 1; i <= 4; i++) commitAs(r.dir, HUMAN, { [`h${i}.txt`]: `${i}\n` }, `main ${i}`);
    r.git('push', '-q', 'origin', 'main');
    const shallow = cloneShallow(r.remoteUrl);
    const git = await openGit(shallow.dir);
    expect(await git.isAncestor(r.sha, await git.headSha())).toBe(true);
  });

  test('push creates with a lease of absence, updates with a lease, and reports rejections', async () => {
    const r = baseRepo();
    const git = await openGit(r.dir);
    writeFiles(r.dir, { 'src/a.ts': 'v1\n' });
    const c1 = await git.commitTree(await git.snapshot(), r.sha, 'v1', BOT);
    expect(await git.push('origin', c1, 'agent-fix/t', null)).toEqual({ kind: 'pushed', sha: c1 });
    expect(r.git('--git-dir', r.remoteDir, 'rev-parse', 'refs/heads/agent-fix/t')).toBe(c1);

    // absence lease fails once the branch exists
    writeFiles(r.dir, { 'src/a.ts': 'v2\n' });
    const c2 = await git.commitTree(await git.snapshot(), r.sha, 'v2', BOT);
    const again = await git.push('origin', c2, 'agent-fix/t', null);
    expect(again.kind).toBe('rejected');
    expect(again.kind === 'rejected' && again.reason).toMatch(/stale info|rejected/);

    // a wrong lease is rejected, the right one force-updates (c2 is not a descendant of c1)
    const stale = await git.push('origin', c2, 'agent-fix/t', r.sha);
    expect(stale.kind).toBe('rejected');
    expect(r.git('--git-dir', r.remoteDir, 'rev-parse', 'refs/heads/agent-fix/t')).toBe(c1);
    expect(await git.push('origin', c2, 'agent-fix/t', c1)).toEqual({ kind: 'pushed', sha: c2 });
    expect(r.git('--git-dir', r.remoteDir, 'rev-parse', 'refs/heads/agent-fix/t')).toBe(c2);
  });

  test('a refusing hook on the remote is a rejection with its message, not an exception', async () => {
    const r = baseRepo();
    const hook = path.join(r.remoteDir, 'hooks', 'pre-receive');
    writeFileSync(hook, '#!/bin/sh\necho "protected branch: no pushes today" >&2\nexit 1\n', { mode: 0o755 });
    const git = await openGit(r.dir);
    const res = await git.push('origin', r.sha, 'agent-fix/hooked', null);
    expect(res.kind).toBe('rejected');
    expect(res.kind === 'rejected' && res.reason).toMatch(/pre-receive hook declined/);
    expect(res.kind === 'rejected' && res.reason).toMatch(/protected branch: no pushes today/);
  });

  test('unreachable remotes throw without leaking credentials', async () => {
    const r = baseRepo();
    r.git('remote', 'add', 'secret', 'https://x-access-token:ghs_SECRET123@127.0.0.1:1/o/r.git');
    const git = await openGit(r.dir);
    const err = await git.push('secret', r.sha, 'agent-fix/x', null).then(
      () => null,
      (e: Error) => e,
    );
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).not.toContain('ghs_SECRET123');
    const err2 = await git.fetchBranch('https://u:ghs_SECRET123@127.0.0.1:1/o/r.git', 'main').then(
      () => null,
      (e: Error) => e,
    );
    expect(err2).toBeInstanceOf(Error);
    expect(err2!.message).not.toContain('ghs_SECRET123');
    expect(redactUrls('fatal: https://user:pass@github.com/o/r and http://tok@h/x')).toBe('fatal: https://***@github.com/o/r and http://***@h/x');
  });

  test('setLocalBranch creates and moves a branch but refuses the checked-out one', async () => {
    const r = baseRepo();
    const git = await openGit(r.dir);
    writeFiles(r.dir, { 'z.txt': 'z\n' });
    const c2 = await git.commitTree(await git.snapshot(), r.sha, 'z', BOT);
    await git.setLocalBranch('agent-fix/local', c2);
    expect(r.git('rev-parse', 'agent-fix/local')).toBe(c2);
    await git.setLocalBranch('agent-fix/local', r.sha);
    expect(r.git('rev-parse', 'agent-fix/local')).toBe(r.sha);
    await expect(git.setLocalBranch('main', c2)).rejects.toThrow(/checked-out/);
    expect(r.git('rev-parse', 'main')).toBe(r.sha);
  });
});
