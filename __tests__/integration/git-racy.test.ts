/**
 * Regression: a same-size edit made within the same second as the checkout must show in the
 * snapshot (git's racy-clean check needs the index's own mtime, which snapshot() preserves).
 */
import { statSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openGit } from '../../src/adapters/git.js';
import { cleanupFixtures, cloneShallow, gitIn, makeRepo } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

test('a same-size edit with the same mtime second as the index is not lost', async () => {
  const repo = makeRepo({ 'src/add.js': 'return a - b;\n' });
  const { dir } = cloneShallow(repo.remoteUrl);
  const file = path.join(dir, 'src/add.js');
  const index = path.join(dir, '.git', 'index');
  // ctime cannot be set by a test; ignore it so only the mtime logic decides, as in a same-second edit
  gitIn(dir)('config', 'core.trustctime', 'false');
  const git = await openGit(dir);
  const before = await git.snapshot();
  const orig = statSync(file);
  // let the clock pass the checkout's second, so a fresh copy of the index would look newer than the file
  await new Promise((resolve) => setTimeout(resolve, 1100));
  writeFileSync(file, 'return a + b;\n');
  // the edit happened in the same second as the checkout wrote the file and the index:
  // same size, same inode, same mtime as the index's stat cache
  utimesSync(file, orig.atime, orig.mtime);
  utimesSync(index, orig.atime, orig.mtime);
  // a fresh GitPort seeds its snapshot index from the real index (the path the fix is about)
  const after = await (await openGit(dir)).snapshot();
  expect(after).not.toBe(before);
  expect(gitIn(dir)('cat-file', '-p', `${after}:src/add.js`)).toBe('return a + b;');
});
