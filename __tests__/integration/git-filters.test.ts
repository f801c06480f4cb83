/**
 * A setup script (or the model's tests) can define a filter driver in .git/config and route
 * files through it with .gitattributes; the harness's own git calls (snapshot, restore,
 * checkout) must never run it. Real git, real repositories, a driver that leaves a marker.
 */
import { appendFileSync, existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { filterOverrides, gitVersionProblem, openGit, parseGitVersion } from '../../src/adapters/git.js';
import { configSources, defaultConfigFiles } from '../../src/ports/git-filters.js';
import { trackedFiles } from '../../src/context/map.js';
import { cleanupFixtures, makeRepo, tempDir, writeFiles } from '../../test-support/git-fixture.js';

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

describe('the configuration is read again exactly when a file it comes from changes', () => {
  const saved = process.env.GIT_CONFIG_GLOBAL;
  afterEach(() => {
    if (saved === undefined) delete process.env.GIT_CONFIG_GLOBAL;
    else process.env.GIT_CONFIG_GLOBAL = saved;
  });

  test('unchanged files: one read for many snapshots; a driver added in the checkout, an included file or the global file is blanked at the next snapshot', async () => {
    const r = repoWithAttributes();
    const markers = tempDir('agent-fix-markers-');
    const elsewhere = tempDir('agent-fix-config-');
    const included = path.join(elsewhere, 'included.cfg');
    const global = path.join(elsewhere, 'global.cfg');
    // an include whose file does not exist yet, and a global file, both written later
    r.git('config', 'include.path', included);
    writeFileSync(global, '[user]\n\tname = someone\n');
    process.env.GIT_CONFIG_GLOBAL = global;
    const git = await openGit(r.dir);
    const first = await git.snapshot();
    for (let i = 0; i < 4; i++) await git.restore(first);
    expect(git.configReads).toBe(1);

    const steps: [string, () => void][] = [
      ['the checkout', () => defineDriver(r.git, markers, 'evil')],
      ['an included file', () => writeFileSync(included, `[filter "x=y"]\n\tclean = \"touch ${path.join(markers, 'inc-clean')}; cat\"\n\trequired = true\n`)],
      ['the global file', () => appendFileSync(global, `[filter "evil"]\n\tprocess = \"sh -c 'touch ${path.join(markers, 'global-process')}; exit 1'\"\n`)],
    ];
    let n = 0;
    for (const [where, change] of steps) {
      change();
      n++;
      writeFiles(r.dir, { 'src/a.js': `export const a = ${n + 1};\n`, 'notes.txt': `changed ${n}\n` });
      const tree = await git.snapshot();
      expect([where, r.git('cat-file', 'blob', `${tree}:src/a.js`)]).toEqual([where, `export const a = ${n + 1};`]);
      await git.restore(first);
      expect([where, readdirSync(markers)]).toEqual([where, []]);
      // read once more for this change, not again for the restore's snapshot
      expect([where, git.configReads]).toEqual([where, 1 + n]);
    }
    // the control: git itself, without the harness's blanks, runs the drivers (the required `process` one fails the command)
    writeFileSync(path.join(r.dir, 'notes.txt'), 'control\n');
    writeFileSync(path.join(r.dir, 'src/a.js'), 'control\n');
    expect(() => r.git('add', 'notes.txt', 'src/a.js')).toThrow();
    expect(readdirSync(markers).length).toBeGreaterThan(0);
  });

  test('configSources names every origin and include target; defaultConfigFiles follows the environment', () => {
    const out = [
      'file:/etc/gitconfig', 'core.x\n1',
      'file:.git/config', 'filter.a.clean\ncat',
      'file:.git/config', 'include.path\nextra/inc.cfg',
      'file:.git/config', 'includeif.gitdir:/w/.path\n~/rel.cfg',
      'command line:', 'core.hookspath\n/dev/null',
      'file:/w/.git/extra/inc.cfg', 'filter.b.smudge\nsh evil.sh',
    ].join('\0') + '\0';
    const s = configSources(out, '/w', '/home/u');
    expect(s.files.sort()).toEqual(['/etc/gitconfig', '/home/u/rel.cfg', '/w/.git/config', '/w/.git/extra/inc.cfg'].sort());
    expect(s.filters).toBe('filter.a.clean\ncat\0filter.b.smudge\nsh evil.sh\0');
    expect(filterOverrides(s.filters).GIT_CONFIG_COUNT).toBe('8');

    const base = { gitDir: '/w/.git/worktrees/t', commonDir: '/w/.git', execPath: '/usr/lib/git-core' };
    expect(defaultConfigFiles({ ...base, env: { HOME: '/home/u' } })).toEqual(['/w/.git/config', '/w/.git/worktrees/t/config.worktree', '/home/u/.gitconfig', '/home/u/.config/git/config', '/etc/gitconfig']);
    expect(defaultConfigFiles({ ...base, execPath: '/opt/git/libexec/git-core', env: { HOME: '/h', XDG_CONFIG_HOME: '/x', GIT_CONFIG_NOSYSTEM: '0' } })).toEqual(['/w/.git/config', '/w/.git/worktrees/t/config.worktree', '/h/.gitconfig', '/x/git/config', '/etc/gitconfig', '/opt/git/etc/gitconfig']);
    expect(defaultConfigFiles({ ...base, env: { GIT_CONFIG_GLOBAL: '/g.cfg', GIT_CONFIG_NOSYSTEM: '1' } })).toEqual(['/w/.git/config', '/w/.git/worktrees/t/config.worktree', '/g.cfg']);
    expect(defaultConfigFiles({ ...base, env: { GIT_CONFIG_SYSTEM: '/s.cfg' } })).toEqual(['/w/.git/config', '/w/.git/worktrees/t/config.worktree', '/s.cfg']);
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

describe('a git too old to blank the drivers is refused (GIT_CONFIG_COUNT: git 2.31)', () => {
  test('versions as git prints them, on Linux, Windows and macOS', () => {
    expect(parseGitVersion('git version 2.39.5\n')).toEqual([2, 39]);
    expect(parseGitVersion('git version 2.45.1.windows.1')).toEqual([2, 45]);
    expect(parseGitVersion('git version 2.39.3 (Apple Git-145)')).toEqual([2, 39]);
    expect(parseGitVersion('bash: git: command not found')).toBeNull();
    expect(gitVersionProblem('git version 2.31.0')).toBeNull();
    expect(gitVersionProblem('git version 3.0.0')).toBeNull();
    expect(gitVersionProblem('git version 2.30.9')).toMatch(/^git 2\.30 is too old: agent-fix needs git 2\.31 or later \(GIT_CONFIG_COUNT.*Install a newer git/);
    expect(gitVersionProblem('git version 1.9.1')).toMatch(/^git 1\.9 is too old/);
    expect(gitVersionProblem('')).toMatch(/^git could not be run or did not say its version \(no output\); agent-fix needs git 2\.31 or later on PATH\.$/);
  });

  test('the git on this machine passes the check, so openGit works', async () => {
    const r = makeRepo({ 'a.txt': 'a\n' });
    await expect(openGit(r.dir)).resolves.toBeDefined();
  });
});
