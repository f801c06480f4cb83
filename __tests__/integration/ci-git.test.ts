import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openGit } from '../../src/adapters/git.js';
import { HUMAN, cleanupFixtures, cloneFull, cloneShallow, commitAs, makeRepo } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

function history() {
  const r = makeRepo({ 'src/a.js': 'v1\n' });
  const old = r.sha;
  const mid = commitAs(r.dir, HUMAN, { 'src/a.js': 'v2\n' }, 'v2');
  commitAs(r.dir, HUMAN, { 'src/a.js': 'v3\n', 'README.md': 'x\n' }, 'v3');
  r.git('push', '-q', 'origin', 'main');
  return { r, old, mid };
}

describe('checkoutDetached (CI repair starts from the failing run head_sha)', () => {
  test('in a depth-1 clone of a branch that moved on: fetches the older commit, detaches HEAD there, stays shallow', async () => {
    const { r, mid } = history();
    const c = cloneShallow(r.remoteUrl);
    const git = await openGit(c.dir);
    await git.checkoutDetached('origin', mid);
    expect(await git.headSha()).toBe(mid);
    expect(readFileSync(path.join(c.dir, 'src/a.js'), 'utf8')).toBe('v2\n');
    expect(c.git('rev-parse', '--is-shallow-repository')).toBe('true');
    expect(c.git('rev-parse', '--abbrev-ref', 'HEAD')).toBe('HEAD'); // detached
  });

  test('in a full clone: no fetch needed; a commit the remote does not have is an actionable error', async () => {
    const { r, old } = history();
    const c = cloneFull(r.remoteUrl);
    const git = await openGit(c.dir);
    await git.checkoutDetached('origin', old);
    expect(readFileSync(path.join(c.dir, 'src/a.js'), 'utf8')).toBe('v1\n');
    await expect(git.checkoutDetached('origin', 'f'.repeat(40))).rejects.toThrow(/could not fetch commit f{40} from origin[\s\S]*force-pushed/);
    await expect(git.checkoutDetached('origin', 'main')).rejects.toThrow(/not a full commit id/);
  });

  test('refuses to overwrite local changes', async () => {
    const { r, old } = history();
    const c = cloneFull(r.remoteUrl);
    writeFileSync(path.join(c.dir, 'src/a.js'), 'local edit\n');
    const git = await openGit(c.dir);
    await expect(git.checkoutDetached('origin', old)).rejects.toThrow(/The checkout must be clean/);
    expect(readFileSync(path.join(c.dir, 'src/a.js'), 'utf8')).toBe('local edit\n');
  });
});
