/**
 * A setup script (or the model's tests) can define a filter driver in .git/config and route
 * files through it with .gitattributes; the harness's own git calls (snapshot, restore,
 * checkout) must never run it. Real git, real repositories, a driver that leaves a marker.
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { filterOverrides, openGit } from '../src/adapters/git.js';
import { trackedFiles } from '../src/context/map.js';
import { cleanupFixtures, makeRepo, tempDir, writeFiles } from '../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

/** A repository whose .gitattributes routes every .js file through the driver `evil` (undefined at first). */
function repoWithAttributes() {
  return makeRepo({ '.gitattributes': '*.js filter=evil\n*.txt filter=x=y\n', 'src/a.js': 'export const a = 1;\n', 'notes.txt': 'n\n' });
}

/** What a setup script would do: define the driver in the checkout's own config, each command leaving a marker. */
function defineDriver(git: (...a: string[]) => string, markers: string, name = 'evil') {
  git('config', `filter.${name}.clean`, `touch ${path.join(markers, `${name}-clean`)}; cat`);
  git('config', `filter.${name}.smudge`, `touch ${path.join(markers, `${name}-smudge`)}; cat`);
  git('config', `filter.${name}.required`, 'true');
}

describe('filter drivers never run in the harness git calls', () => {
  test('snapshot (add -A) and restore (checkout-index, update-index) run no clean or smudge command', async () => {
    const r = repoWithAttributes();
    const markers = tempDir('agent-fix-markers-');
    const git = await openGit(r.dir);
    const pristine = await git.snapshot();
    // the setup step defines the drivers after the harness opened the checkout
    defineDriver(r.git, markers);
    defineDriver(r.git, markers, 'x=y');
    writeFiles(r.dir, { 'src/a.js': 'export const a = 2;\n', 'src/new.js': 'export const n = 0;\n', 'notes.txt': 'changed\n' });
    const edited = await git.snapshot();
    expect(edited).not.toBe(pristine);
    // the tree holds the bytes as written: no filter converted them
    expect(r.git('cat-file', 'blob', `${edited}:src/a.js`)).toBe('export const a = 2;');
    await git.restore(pristine);
    expect(readFileSync(path.join(r.dir, 'src/a.js'), 'utf8')).toBe('export const a = 1;\n');
    expect(existsSync(path.join(r.dir, 'src/new.js'))).toBe(false);
    await git.restore(edited);
    expect(readFileSync(path.join(r.dir, 'notes.txt'), 'utf8')).toBe('changed\n');
    for (const m of ['evil-clean', 'evil-smudge', 'x=y-clean', 'x=y-smudge']) expect(existsSync(path.join(markers, m))).toBe(false);
    // the control: git itself, without the harness's blanks, does run the driver
    writeFileSync(path.join(r.dir, 'src/a.js'), 'export const a = 3;\n');
    r.git('add', 'src/a.js');
    expect(existsSync(path.join(markers, 'evil-clean'))).toBe(true);
  });

  test('a long-running `process` driver is blanked too, and checkoutDetached runs no smudge', async () => {
    const r = repoWithAttributes();
    r.git('commit', '--allow-empty', '-qm', 'second');
    const second = r.git('rev-parse', 'HEAD');
    writeFiles(r.dir, { 'src/a.js': 'export const a = 5;\n' });
    r.git('commit', '-qam', 'third');
    const third = r.git('rev-parse', 'HEAD');
    const markers = tempDir('agent-fix-markers-');
    r.git('config', 'filter.evil.process', `sh -c 'touch ${path.join(markers, 'process')}; exit 1'`);
    r.git('config', 'filter.evil.required', 'true');
    const git = await openGit(r.dir);
    await git.checkoutDetached('origin', second);
    expect(readFileSync(path.join(r.dir, 'src/a.js'), 'utf8')).toBe('export const a = 1;\n');
    writeFiles(r.dir, { 'src/a.js': 'export const a = 9;\n' });
    const tree = await git.snapshot();
    expect(r.git('cat-file', 'blob', `${tree}:src/a.js`)).toBe('export const a = 9;');
    expect(existsSync(path.join(markers, 'process'))).toBe(false);
    // the control: git itself runs the driver (which fails, being required)
    await git.restore(await git.snapshot().then(() => r.git('rev-parse', 'HEAD^{tree}')));
    expect(() => r.git('checkout', '-q', '--detach', third)).toThrow();
    expect(existsSync(path.join(markers, 'process'))).toBe(true);
  });
});

test('the repository map lists tracked files (git status) without running a filter driver or an fsmonitor', async () => {
  const r = repoWithAttributes();
  const markers = tempDir('agent-fix-markers-');
  defineDriver(r.git, markers);
  const fsmonitor = path.join(markers, 'fsmonitor.sh');
  writeFileSync(fsmonitor, `#!/bin/sh\ntouch '${path.join(markers, 'fsmonitor-ran')}'\n`, { mode: 0o755 });
  r.git('config', 'core.fsmonitor', fsmonitor);
  // a stat-dirty file: status must hash it to know whether it changed
  writeFileSync(path.join(r.dir, 'src/a.js'), 'export const a = 7;\n');
  const files = await trackedFiles(r.dir);
  expect(files.find((f) => f.path === 'src/a.js')?.key).toBe('');
  expect(files.find((f) => f.path === 'notes.txt')?.key).toMatch(/^[0-9a-f]{40}$/);
  expect(readdirSync(markers).filter((f) => f !== 'fsmonitor.sh')).toEqual([]);
  // the control: plain git status on the same checkout runs the clean filter
  r.git('status', '--porcelain');
  expect(existsSync(path.join(markers, 'evil-clean'))).toBe(true);
});

describe('filterOverrides', () => {
  const cfg = (entries: [string, string][]) => entries.map(([k, v]) => `${k}\n${v}\0`).join('');

  test('blanks every defined driver, whatever its name, and keeps Git LFS exactly as installed', () => {
    const env = filterOverrides(
      cfg([
        ['filter.lfs.clean', 'git-lfs clean -- %f'],
        ['filter.lfs.smudge', 'git-lfs smudge -- %f'],
        ['filter.lfs.process', 'git-lfs filter-process'],
        ['filter.lfs.required', 'true'],
        ['filter.a.b=c.clean', 'sh evil.sh'],
      ]),
    );
    expect(env.GIT_CONFIG_COUNT).toBe('4');
    const pairs = Array.from({ length: 4 }, (_, i) => [env[`GIT_CONFIG_KEY_${i}`], env[`GIT_CONFIG_VALUE_${i}`]]);
    expect(pairs).toEqual([
      ['filter.a.b=c.clean', ''],
      ['filter.a.b=c.smudge', ''],
      ['filter.a.b=c.process', ''],
      ['filter.a.b=c.required', 'false'],
    ]);
  });

  test('an `lfs` driver with any other command is blanked; no driver, no overrides', () => {
    const env = filterOverrides(cfg([['filter.lfs.clean', 'git-lfs clean -- %f; touch /tmp/x']]));
    expect(env.GIT_CONFIG_COUNT).toBe('4');
    expect(env.GIT_CONFIG_KEY_0).toBe('filter.lfs.clean');
    expect(filterOverrides('')).toEqual({ GIT_CONFIG_COUNT: '0' });
  });
});
