/**
 * Test-integrity guard: reads the unified diff of a proposed change and finds the ways of
 * "cheating to green": deleting or renaming test files, removing test cases, adding
 * skip/only/xfail markers, removing or weakening assertions, updating snapshot files,
 * raising timeouts, editing the test configuration to exclude tests. Each finding names
 * the file, the line and the reason, so the model can be told exactly what was refused.
 * Adding tests is always allowed. Pure.
 *
 * A category can be allowed only when both the policy allows it (action input
 * `test-integrity-allow`) and the task explicitly asks for it (see `taskAsksFor`).
 */
import { parserTells } from '../verify/runners/index.js';
import { isSkipMarker, isSnapshotFile, isTestConfig, isTestFile, testDeclarations } from '../lang/index.js';
import type { TestChangeAnalysis } from './test-blocks.js';

export type IntegrityCategory = 'delete-test' | 'remove-test' | 'skip' | 'assertion' | 'snapshot' | 'timeout' | 'config';

export const INTEGRITY_CATEGORIES: IntegrityCategory[] = ['delete-test', 'remove-test', 'skip', 'assertion', 'snapshot', 'timeout', 'config'];

export interface IntegrityFinding {
  category: IntegrityCategory;
  file: string;
  /** The offending line (added or removed), trimmed. */
  line?: string;
  reason: string;
  /**
   * Set when the diff's lines cannot decide and what the tests do does: `skipped-tests` (a skip
   * marker: refused only when the runner reports a test skipped that was not before, see
   * `newlySkipped`), `changed-expectation` (a snapshot updated: accepted only as a changed
   * expectation the tests prove, verify/expectation.ts), `moved-test` (a test case removed here
   * whose body is added elsewhere in the change: accepted only when the runner reports it
   * passing at its new place, `movedTo`). Absent: the finding refuses as it is.
   */
  judgedBy?: 'skipped-tests' | 'changed-expectation' | 'moved-test';
  /** A moved test's new place: its file and name path (guard/test-blocks.ts). */
  movedTo?: { file: string; test: string[] };
}

export interface FileDiff {
  path: string;
  oldPath: string;
  status: 'added' | 'modified' | 'deleted' | 'renamed';
  added: string[];
  removed: string[];
}

/** Splits `git diff` output into files with their added and removed lines. */
export function parseUnifiedDiff(diff: string): FileDiff[] {
  const files: FileDiff[] = [];
  let cur: FileDiff | null = null;
  let inHunk = false;
  for (const line of diff.split('\n')) {
    const head = line.match(/^diff --git a\/(.+?) b\/(.+)$/);
    if (head) {
      cur = { path: head[2], oldPath: head[1], status: 'modified', added: [], removed: [] };
      files.push(cur);
      inHunk = false;
      continue;
    }
    if (!cur) continue;
    if (!inHunk) {
      if (line.startsWith('new file mode')) cur.status = 'added';
      else if (line.startsWith('deleted file mode')) cur.status = 'deleted';
      else if (line.startsWith('rename from ')) {
        cur.status = 'renamed';
        cur.oldPath = line.slice('rename from '.length);
      } else if (line.startsWith('rename to ')) cur.path = line.slice('rename to '.length);
      else if (line.startsWith('+++ ') && line !== '+++ /dev/null') cur.path = line.slice(4).replace(/^b\//, '');
      else if (line.startsWith('--- ') && line !== '--- /dev/null') cur.oldPath = line.slice(4).replace(/^a\//, '');
    }
    if (line.startsWith('@@')) {
      inHunk = true;
      continue;
    }
    if (!inHunk) continue;
    if (line.startsWith('+')) cur.added.push(line.slice(1));
    else if (line.startsWith('-')) cur.removed.push(line.slice(1));
  }
  return files;
}

/** A test case declared on the line (each language's declarations, src/lang/), with its name. */
function testName(line: string): string | null {
  for (const re of testDeclarations()) {
    const m = line.match(re);
    if (m) return m[2] ?? m[1] ?? line.trim();
  }
  return null;
}

/** Markers that select tests (`.only`, `fit`): what they leave out is not reported as skipped by every runner, so the line decides. */
const FOCUS = /\.(?:only|runIf)\b|\b(?:fit|fdescribe|ftest)\s*\(/;

/**
 * pytest: what drops collected tests from a `conftest.py` or a new pytest configuration (hooks
 * that deselect or ignore, `collect_ignore`, `addopts` selecting with `-k`/`--deselect`/`--ignore`).
 */
const PYTEST_DROPS = /\bpytest_collection_modifyitems\b|\bpytest_ignore_collect\b|\bcollect_ignore(?:_glob)?\b|\.deselect\w*\s*\(|\bpytest_deselected\b|\bitems\s*\[\s*:\s*\]\s*=|\bitems\.(?:remove|pop|clear)\s*\(|\bdel\s+items\b|\baddopts\b.*(?:\s-k\b|--deselect|--ignore|-m\s)/;
const PYTEST_CONFIG = /(?:^|\/)(?:conftest\.py|pytest\.ini)$/;

const ASSERTION = /\b(?:expect|assert\w*|should|t\.(?:equal|deepEqual|strictEqual|ok|true|false|is|same|throws|match|fail)|require\.\w+|Expect\w*|t\.(?:Error|Errorf|Fatal|Fatalf))\b|\bassert\s|\.should\b|\bassert_eq!|\bassert!/;

/** Matchers weaker than the exact ones they may replace. */
const WEAK_MATCHER = /\.(?:toBeDefined|toBeTruthy|toBeFalsy|toBeUndefined|toBeNull|anything|toHaveBeenCalled)\s*\(\s*\)|\.not\.toThrow\s*\(\s*\)|expect\.anything\(\)|^\s*assert\s+(?!.*(?:==|!=|<|>|\bin\b|\bis\b))[^,]+$|assert\s+True\b|\bok\s*\(\s*true\s*\)/;
const STRONG_MATCHER = /\.(?:toBe|toEqual|toStrictEqual|toMatchObject|toThrow|toContain|toHaveLength|toMatch|toHaveBeenCalledWith)\s*\(\s*\S|assert\s+.+(?:==|!=|<|>|\bin\b|\bis\b)|assert_eq!|\b(?:deepEqual|strictEqual|equal)\s*\(/;

const TIMEOUT = /\b(?:jest\.setTimeout|vi\.setConfig|this\.timeout|testTimeout|hookTimeout|timeout\s*[:=]|--timeout|--testTimeout|@pytest\.mark\.timeout|-timeout)\b|\b(?:it|test)\s*\([^)]*,\s*\d{4,}\s*\)/;

const EXCLUDE = /testPathIgnorePatterns|modulePathIgnorePatterns|testMatch|testRegex|\bexclude\b|\bignore\b|--ignore|--deselect|\s-k\s|addopts|norecursedirs|testpaths|--grep|--testNamePattern|--passWithNoTests|coverageThreshold|"test"\s*:/;

function firstNumber(text: string): number | null {
  const m = text.match(/(\d[\d_]*)/);
  return m ? Number(m[1].replace(/_/g, '')) : null;
}

/**
 * Every finding in a diff. `allowed` categories are left out. With `tests` (the change's test
 * files read test by test, guard/test-blocks.ts): a removed test case whose body is added
 * elsewhere is a move the runner decides (`judgedBy: 'moved-test'`), its assertions are not
 * counted as removed, and an existing test weakened (an assertion made vacuous, a swallowing
 * try/catch, fewer or looser assertions in that test) is refused.
 */
export function checkTestIntegrity(diff: string | FileDiff[], allowed: IntegrityCategory[] = [], tests?: TestChangeAnalysis): IntegrityFinding[] {
  const files = typeof diff === 'string' ? parseUnifiedDiff(diff) : diff;
  const findings: IntegrityFinding[] = [];
  const push = (f: IntegrityFinding) => {
    if (!allowed.includes(f.category)) findings.push(f);
  };
  const clip = (s: string) => (s.trim().length > 160 ? `${s.trim().slice(0, 159)}…` : s.trim());

  for (const f of files) {
    const testFile = isTestFile(f.path) || isTestFile(f.oldPath);
    if (isSnapshotFile(f.path) || isSnapshotFile(f.oldPath)) {
      if (f.status === 'modified' && f.removed.length) push({ category: 'snapshot', file: f.path, reason: `updates the snapshot file ${f.path}: a snapshot is the expected output, change the code instead`, judgedBy: 'changed-expectation' });
      else if (f.status !== 'added' || f.removed.length) push({ category: 'snapshot', file: f.path, reason: `updates the snapshot file ${f.path}: a snapshot is the expected output, change the code instead` });
      else push({ category: 'snapshot', file: f.path, reason: `writes a new snapshot file ${f.path}: snapshots must be reviewed by a human` });
      continue;
    }
    if (testFile && f.status === 'deleted') {
      push({ category: 'delete-test', file: f.oldPath, reason: `deletes the test file ${f.oldPath}` });
      continue;
    }
    if (testFile && f.status === 'renamed' && f.oldPath !== f.path) {
      const stillTest = isTestFile(f.path);
      push({ category: 'delete-test', file: f.oldPath, reason: `renames the test file ${f.oldPath} to ${f.path}${stillTest ? '' : ' (where the runner will no longer find it)'}` });
    }
    if (testFile) {
      // Removed test cases: a declaration removed and not added back under the same name.
      const addedNames = new Set(f.added.map(testName).filter((n): n is string => n !== null));
      const moves = (tests?.moved ?? []).filter((m) => m.from === f.oldPath || m.from === f.path);
      const movedLines = new Map<string, number>();
      for (const m of moves) for (const l of m.lines) movedLines.set(l, (movedLines.get(l) ?? 0) + 1);
      for (const line of f.removed) {
        const name = testName(line);
        if (!name || addedNames.has(name)) continue;
        const move = moves.find((m) => m.was[m.was.length - 1] === name);
        if (move) {
          push({ category: 'remove-test', file: f.path, line: clip(line), reason: `moves the test case "${name}" from ${f.path} to ${move.to} ("${move.now.join(' > ')}")`, judgedBy: 'moved-test', movedTo: { file: move.to, test: move.now } });
        } else push({ category: 'remove-test', file: f.path, line: clip(line), reason: `removes the test case "${name}" from ${f.path}` });
      }
      // The lines of moved tests are not removed assertions.
      const removedHere = f.removed.filter((l) => {
        const n = movedLines.get(l.trim()) ?? 0;
        if (!n) return true;
        movedLines.set(l.trim(), n - 1);
        return false;
      });
      for (const w of (tests?.weakened ?? []).filter((x) => x.file === f.path)) {
        push({ category: 'assertion', file: f.path, line: clip(w.line), reason: `${w.reason} in ${f.path}` });
      }
      // Skip / only / xfail markers added.
      const removedSet = new Set(f.removed.map((l) => l.trim()));
      for (const line of f.added) {
        if (removedSet.has(line.trim())) continue;
        if (isSkipMarker(line)) push({ category: 'skip', file: f.path, line: clip(line), reason: `adds a skip/only/xfail marker in ${f.path}`, ...(FOCUS.test(line) ? {} : { judgedBy: 'skipped-tests' as const }) });
      }
      // Assertions removed or weakened (only in existing files: a new file only adds).
      if (f.status !== 'added') {
        const removedAsserts = removedHere.filter((l) => ASSERTION.test(l) && !/^\s*(?:\/\/|#)/.test(l));
        const addedAsserts = f.added.filter((l) => ASSERTION.test(l) && !/^\s*(?:\/\/|#)/.test(l));
        if (removedAsserts.length > addedAsserts.length) {
          push({ category: 'assertion', file: f.path, line: clip(removedAsserts[0]), reason: `removes ${removedAsserts.length - addedAsserts.length} assertion(s) from ${f.path}` });
        }
        for (const line of f.added) {
          if (removedSet.has(line.trim())) continue;
          if (WEAK_MATCHER.test(line) && removedAsserts.some((r) => STRONG_MATCHER.test(r))) {
            push({ category: 'assertion', file: f.path, line: clip(line), reason: `weakens an assertion in ${f.path} (an exact expectation replaced by a looser one)` });
            break;
          }
        }
        for (const line of f.added) {
          if (/^\s*(?:\/\/|#)\s*(?:expect|assert)/.test(line) && !removedSet.has(line.trim())) {
            push({ category: 'assertion', file: f.path, line: clip(line), reason: `comments out an assertion in ${f.path}` });
            break;
          }
        }
      }
    }
    // Timeouts raised anywhere in tests or test configuration.
    if ((testFile || isTestConfig(f.path)) && f.status !== 'added') {
      const before = f.removed.filter((l) => TIMEOUT.test(l));
      for (const line of f.added) {
        if (!TIMEOUT.test(line) || f.removed.some((r) => r.trim() === line.trim())) continue;
        const n = firstNumber(line.replace(/^[^\d]*?(?=\d{2,})/, ''));
        const old = before.map((l) => firstNumber(l.replace(/^[^\d]*?(?=\d{2,})/, ''))).find((x) => x !== null) ?? null;
        if (old === null || (n !== null && n > old)) {
          push({ category: 'timeout', file: f.path, line: clip(line), reason: `${old === null ? 'sets' : 'raises'} a test timeout in ${f.path}` });
          break;
        }
      }
    }
    // Test configuration edited to exclude tests.
    if (isTestConfig(f.path) && f.status !== 'added') {
      const changed = [...f.added, ...f.removed].filter((l) => !f.added.includes(l) || !f.removed.includes(l));
      const hit = changed.find((l) => EXCLUDE.test(l) && !(/package\.json$/.test(f.path) && !/"test"\s*:|jest|vitest|mocha|testPath|exclude|ignore/.test(l)));
      if (hit) push({ category: 'config', file: f.path, line: clip(hit), reason: `edits the test configuration in ${f.path} in a way that can exclude or select tests` });
    }
    // pytest: a conftest.py or pytest.ini, new or edited, whose hooks or options drop collected tests
    if (PYTEST_CONFIG.test(f.path) && !findings.some((x) => x.category === 'config' && x.file === f.path)) {
      const before = new Set(f.removed.map((l) => l.trim()));
      const hit = f.added.find((l) => PYTEST_DROPS.test(l) && !before.has(l.trim()) && !/^\s*#/.test(l));
      if (hit) push({ category: 'config', file: f.path, line: clip(hit), reason: `${f.status === 'added' ? 'adds' : 'edits'} ${f.path} with a hook or option that drops collected tests` });
    }
  }
  return findings;
}

/**
 * The tests a change skips, by what the runner reports before (`baseline`) and after (`run`),
 * not by the lines: more skipped tests than before, or a test that passed before and is skipped
 * now. Turning `{ skip: true }` into `{ skip: 'reason' }`, or removing a skip, skips nothing new.
 * Null when the runner's report cannot tell (the line-based finding then stands). Pure.
 */
export function newlySkipped(
  baseline: { tests: { id: string; status: string }[]; counts: { skipped: number }; parsedFrom: string },
  run: { tests: { id: string; status: string }[]; counts: { skipped: number }; parsedFrom: string; scope?: string },
): string[] | null {
  if (!parserTells(run.parsedFrom).reportsSkips || run.parsedFrom !== baseline.parsedFrom || run.scope === 'related') return null;
  const before = new Map(baseline.tests.map((t) => [t.id, t.status]));
  const skippedNow = run.tests.filter((t) => t.status === 'skipped');
  const wasRunning = skippedNow.filter((t) => before.get(t.id) === 'passed' || before.get(t.id) === 'failed').map((t) => t.id);
  if (wasRunning.length) return wasRunning;
  if (run.counts.skipped > baseline.counts.skipped) {
    const fresh = skippedNow.filter((t) => before.get(t.id) !== 'skipped').map((t) => t.id);
    return fresh.length ? fresh : [`${run.counts.skipped - baseline.counts.skipped} more skipped test(s) than before`];
  }
  return [];
}

/** Words in the task that explicitly ask for a category of test change. */
const ASKS: Record<IntegrityCategory, RegExp> = {
  'delete-test': /\b(?:delete|remove|drop|rename)\b[^.\n]{0,40}\btest(?:s| files?| suites?)?\b|\bobsolete tests?\b/i,
  'remove-test': /\b(?:delete|remove|drop)\b[^.\n]{0,40}\btests?\b|\bobsolete tests?\b/i,
  skip: /\bskip\b|\bxfail\b|\bdisable\b[^.\n]{0,30}\btests?\b|\bquarantine\b/i,
  assertion: /\b(?:relax|loosen|change|update)\b[^.\n]{0,40}\b(?:assertions?|expectations?)\b/i,
  snapshot: /\bsnapshots?\b/i,
  timeout: /\btimeouts?\b/i,
  config: /\b(?:jest|vitest|mocha|pytest|test)\s+(?:config|configuration|settings)\b/i,
};

export function taskAsksFor(category: IntegrityCategory, taskText: string): boolean {
  return ASKS[category].test(taskText);
}

/** Categories allowed for this task: allowed by policy AND asked for by the task. */
export function allowedCategories(policy: IntegrityCategory[], taskText: string): IntegrityCategory[] {
  return policy.filter((c) => taskAsksFor(c, taskText));
}

/** The message the model gets when its change is refused. */
export function renderRefusal(findings: IntegrityFinding[]): string {
  const lines = findings.slice(0, 15).map((f) => `- [${f.category}] ${f.reason}${f.line ? `: \`${f.line}\`` : ''}`);
  if (findings.length > 15) lines.push(`- … and ${findings.length - 15} more`);
  return [
    'REFUSED by the test-integrity guard: the change weakens the tests instead of fixing the code.',
    ...lines,
    'Undo these test changes and fix the code under test instead. Adding new tests (or new assertions) is always allowed.',
  ].join('\n');
}
