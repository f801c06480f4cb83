import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ALWAYS_PROTECTED, resolveRepoPath } from '../../src/workspace/paths.js';

let root: string;
let outside: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'af-paths-')));
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'af-outside-')));
  fs.mkdirSync(path.join(root, 'src'));
  fs.writeFileSync(path.join(root, 'src', 'a.ts'), 'export {};\n');
  fs.mkdirSync(path.join(root, '.git'));
  fs.writeFileSync(path.join(root, '.git', 'config'), '[core]\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

function refused(requested: string, globs: string[] = [], access?: 'read' | 'write'): string {
  const r = resolveRepoPath(root, requested, globs, access);
  if (r.ok) throw new Error(`expected "${requested}" to be refused, got ${r.rel}`);
  return r.error;
}

describe('resolveRepoPath', () => {
  test('ALWAYS_PROTECTED covers workflows and .git', () => {
    expect(ALWAYS_PROTECTED).toEqual(['.github/workflows/**', '.git/**']);
  });

  test('resolves plain relative paths, existing or not', () => {
    expect(resolveRepoPath(root, 'src/a.ts', [])).toEqual({ ok: true, abs: path.join(root, 'src', 'a.ts'), rel: 'src/a.ts' });
    expect(resolveRepoPath(root, './src/new/dir/b.ts', [])).toEqual({
      ok: true,
      abs: path.join(root, 'src', 'new', 'dir', 'b.ts'),
      rel: 'src/new/dir/b.ts',
    });
  });

  test('normalizes inner .. that stays inside and backslashes', () => {
    const r = resolveRepoPath(root, 'src/../src/a.ts', []);
    expect(r).toMatchObject({ ok: true, rel: 'src/a.ts' });
    expect(resolveRepoPath(root, 'src\\a.ts', [])).toMatchObject({ ok: true, rel: 'src/a.ts' });
  });

  test('accepts an absolute path inside the root', () => {
    expect(resolveRepoPath(root, path.join(root, 'src', 'a.ts'), [])).toMatchObject({ ok: true, rel: 'src/a.ts' });
  });

  test('refuses empty paths', () => {
    expect(refused('')).toMatch(/empty/);
    expect(refused('   ')).toMatch(/empty/);
  });

  test('refuses .. escapes with an actionable message', () => {
    expect(refused('../x')).toBe('Path "../x" is outside the repository; use a path relative to the repository root.');
    expect(refused('src/../../x')).toMatch(/outside the repository/);
    expect(refused('..')).toMatch(/outside the repository/);
  });

  test('refuses absolute paths outside the root', () => {
    expect(refused(path.join(outside, 'secret.txt'))).toMatch(/outside the repository/);
    expect(refused('/etc/passwd')).toMatch(/outside the repository/);
  });

  test('refuses a sibling directory whose name starts with the root name', () => {
    const sibling = root + '-evil';
    expect(refused(sibling + '/x')).toMatch(/outside the repository/);
  });

  test('refuses anything in .git, for reading too', () => {
    expect(refused('.git/config')).toMatch(/\.git/);
    expect(refused('.git/config', [], 'read')).toMatch(/\.git/);
    expect(refused('.git')).toMatch(/\.git/);
    expect(refused('sub/.git/hooks/pre-commit')).toMatch(/\.git/);
    expect(refused('.GIT/config')).toMatch(/\.git/);
  });

  test('refuses a symlinked file that points outside', () => {
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'link.txt'));
    expect(refused('link.txt', [], 'read')).toMatch(/symbolic link.*outside/);
  });

  test('refuses a new file under a symlinked directory that points outside', () => {
    fs.symlinkSync(outside, path.join(root, 'out'));
    expect(refused('out/new/file.txt')).toMatch(/symbolic link.*outside/);
    expect(fs.existsSync(path.join(outside, 'new'))).toBe(false);
  });

  test('refuses a dangling symlink (a write would land wherever it points)', () => {
    fs.symlinkSync(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling.txt'));
    expect(refused('dangling.txt')).toMatch(/broken symbolic link/);
  });

  test('refuses a symlink that points into .git', () => {
    fs.symlinkSync(path.join(root, '.git'), path.join(root, 'gitdir'));
    expect(refused('gitdir/config', [], 'read')).toMatch(/resolves into \.git/);
  });

  test('allows a symlink that stays inside the repository', () => {
    fs.symlinkSync(path.join(root, 'src'), path.join(root, 'lib'));
    expect(resolveRepoPath(root, 'lib/a.ts', [])).toMatchObject({ ok: true, rel: 'lib/a.ts' });
  });

  test('refuses workflows with the glob in the message', () => {
    expect(refused('.github/workflows/ci.yml')).toBe('".github/workflows/ci.yml" is protected (.github/workflows/**): agent-fix never edits it.');
    expect(refused('.github/workflows/x.yml')).toMatch(/protected/);
    expect(refused('.GitHub/Workflows/x.yml')).toMatch(/protected/);
  });

  test('refuses a policy glob, allows other files', () => {
    expect(refused('package-lock.json', ['package-lock.json', 'secrets/**'])).toMatch(/protected \(package-lock\.json\)/);
    expect(refused('secrets/deep/key.pem', ['package-lock.json', 'secrets/**'])).toMatch(/secrets\/\*\*/);
    expect(resolveRepoPath(root, 'src/a.ts', ['package-lock.json', 'secrets/**']).ok).toBe(true);
  });

  test('refuses writing through a symlink to a protected file', () => {
    fs.mkdirSync(path.join(root, '.github', 'workflows'), { recursive: true });
    fs.writeFileSync(path.join(root, '.github', 'workflows', 'ci.yml'), 'on: push\n');
    fs.symlinkSync(path.join(root, '.github', 'workflows', 'ci.yml'), path.join(root, 'ci.yml'));
    expect(refused('ci.yml')).toMatch(/resolves to "\.github\/workflows\/ci\.yml"/);
  });

  test("read access allows protected files (not .git)", () => {
    expect(resolveRepoPath(root, '.github/workflows/ci.yml', ['secrets/**'], 'read')).toMatchObject({ ok: true, rel: '.github/workflows/ci.yml' });
    expect(resolveRepoPath(root, 'secrets/a', ['secrets/**'], 'read').ok).toBe(true);
  });

  test('the root itself resolves to an empty rel', () => {
    expect(resolveRepoPath(root, '.', [], 'read')).toEqual({ ok: true, abs: root, rel: '' });
  });
});
