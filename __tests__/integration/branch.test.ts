import { spawnSync } from 'node:child_process';
import { BRANCH_PREFIX, branchForTask, branchNameProblem, isAgentBranch, isValidBranchName, slugify } from '../../src/publish/branch.js';

describe('branchForTask', () => {
  test('prefixes the task key', () => {
    expect(BRANCH_PREFIX).toBe('agent-fix/');
    expect(branchForTask('issue-42')).toBe('agent-fix/issue-42');
    expect(branchForTask('ci-3f2a9c')).toBe('agent-fix/ci-3f2a9c');
  });

  test.each([
    ['', /empty/],
    ['  ', /empty/],
    ['a..b', /\.\./],
    ['has space', /space/],
    ['x~1', /~/],
    ['x^', /\^/],
    ['a:b', /:/],
    ['glob*', /\*/],
    ['q?', /\?/],
    ['[x', /\[/],
    ['back\\slash', /\\/],
    ['end.', /ends with "\."/],
    ['end/', /"\/"/],
    ['a//b', /"\/\/"/],
    ['x.lock', /\.lock/],
    ['.hidden', /starts with "\."/],
    ['a/.b', /starts with "\."/],
    ['at@{1}', /@\{/],
    ['tab\there', /control|space/],
    ['del\x7f', /control/],
  ])('rejects %j', (key, why) => {
    expect(() => branchForTask(key)).toThrow(why);
  });

  test('accepts what git accepts', () => {
    expect(branchForTask('issue-42/retry_1.fix')).toBe('agent-fix/issue-42/retry_1.fix');
    expect(branchForTask('@')).toBe('agent-fix/@');
  });
});

describe('branch name rules', () => {
  test('match git check-ref-format --branch for common cases', () => {
    expect(isValidBranchName('main')).toBe(true);
    expect(isValidBranchName('feature/x-1')).toBe(true);
    expect(isValidBranchName('@')).toBe(false); // git branch @ refuses it too (it means HEAD)
    expect(isValidBranchName('HEAD')).toBe(false);
    expect(isValidBranchName('-dash')).toBe(false);
    expect(isValidBranchName('/lead')).toBe(false);
    expect(branchNameProblem('ok/name')).toBeNull();
  });

  test('agree with git itself', () => {
    const names = ['main', 'a/b', 'a..b', 'a b', 'x.lock', 'a/.b', '.a', 'a.', 'a//b', 'a/', 'x@{1}', 'x@y', 'a~', 'a^', 'a:b', 'a?', 'a*', 'a[b', 'a\\b', 'é/ü', 'a.lock/b', 'a/b.lock', '-x', 'a\tb'];
    for (const n of names) {
      const git = spawnSync('git', ['check-ref-format', '--branch', n], { encoding: 'utf8' });
      expect([n, isValidBranchName(n)]).toEqual([n, git.status === 0]);
    }
  });
});

describe('slugify', () => {
  test('lowercase ascii words joined by dashes', () => {
    expect(slugify('Fix the parser: handle "quoted" values!')).toBe('fix-the-parser-handle-quoted-values');
    expect(slugify('  Crash in   CSV_export (v2.1) ')).toBe('crash-in-csv-export-v2-1');
  });

  test('folds accents and drops other scripts', () => {
    expect(slugify('Café crème brûlée')).toBe('cafe-creme-brulee');
    expect(slugify('修复 bug')).toBe('bug');
  });

  test('falls back to task when nothing is left', () => {
    expect(slugify('')).toBe('task');
    expect(slugify('!!! ???')).toBe('task');
    expect(slugify('日本語')).toBe('task');
  });

  test('respects the maximum length at word boundaries', () => {
    const s = slugify('one two three four five six seven eight nine ten eleven twelve');
    expect(s.length).toBeLessThanOrEqual(40);
    expect(s).toBe('one-two-three-four-five-six-seven-eight');
    expect(slugify('alpha beta gamma', 10)).toBe('alpha-beta');
    expect(slugify('supercalifragilistic word', 5)).toBe('super');
    expect(slugify('a b', 1)).toBe('a');
  });

  test('its output is always a valid branch component', () => {
    for (const t of ['..', '.lock', 'a.lock', 'x@{y}', '-lead', 'HEAD', 'con']) {
      expect(isValidBranchName(`${BRANCH_PREFIX}${slugify(t)}`)).toBe(true);
    }
  });
});

describe('isAgentBranch', () => {
  test('recognises our branches only', () => {
    expect(isAgentBranch('agent-fix/issue-42')).toBe(true);
    expect(isAgentBranch('agent-fix/')).toBe(false);
    expect(isAgentBranch('agent-fix')).toBe(false);
    expect(isAgentBranch('main')).toBe(false);
    expect(isAgentBranch('feature/agent-fix/x')).toBe(false);
    expect(isAgentBranch('refs/heads/agent-fix/issue-42')).toBe(false);
    expect(isAgentBranch('agent-fix/bad..name')).toBe(false);
  });
});
