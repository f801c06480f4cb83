/**
 * The gaming detector on the gold fixes of real public bugs (issue 28: none may be flagged):
 * every task of `../shared/bench/dev-tasks.json`, of the Python benchmark
 * (`bench/results/python-tasks.json`) and of the monorepo benchmark
 * (`bench/results/monorepo-tasks*.json`). Each upstream fix is read from the repository's mirror
 * (`<mirrors>/<owner>+<name>/repo`, the library's fetch; nothing of it is written here): its
 * source files before (buggy commit) and after (fix commit) with the lines the fix adds, and its
 * test files at the fix commit, in two variants:
 *
 * - `failing`: the fix's tests are in the repository and fail (the task's `fail_to_pass`);
 * - `no-test` (the no-test replays, dev-tasks `--variant no-test`): the issue alone, the fix adds
 *   or edits the tests itself, so the tests in question are the ones it adds or edits.
 *
 *   node scripts/run-ts.mjs bench/gaming/gold.ts [--mirrors /work/.mirror] [--tasks ../shared/bench/dev-tasks.json]
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { addedLines, detectGaming, expectationsFor, gamingLine, type TestText } from '../../src/guard/gaming/index.js';
import { isTestFile } from '../../src/lang/index.js';
import { languageOf } from '../../src/code/parser.js';
import { arg } from '../dev-task.js';

interface GoldTask {
  suite: string;
  id: string;
  repo: string;
  buggy_sha: string;
  fix_sha: string;
  fail_to_pass: string[];
}

const mirrors = arg('mirrors', '/work/.mirror')!;
const root = process.cwd();

function tasks(): GoldTask[] {
  const out: GoldTask[] = [];
  const dev = JSON.parse(readFileSync(arg('tasks', path.join(root, '..', 'shared', 'bench', 'dev-tasks.json'))!, 'utf8'));
  for (const t of dev.tasks) out.push({ suite: 'dev-tasks', ...pick(t) });
  const py = JSON.parse(readFileSync(path.join(root, 'bench', 'results', 'python-tasks.json'), 'utf8'));
  for (const r of py.tasks) out.push({ suite: 'python', ...pick(r.task) });
  for (const f of readdirSync(path.join(root, 'bench', 'results')).filter((x) => /^monorepo-tasks.*\.json$/.test(x))) {
    const m = JSON.parse(readFileSync(path.join(root, 'bench', 'results', f), 'utf8'));
    for (const r of m.results ?? []) if (r.task?.buggy_sha && !out.some((o) => o.id === r.task.id)) out.push({ suite: 'monorepo', ...pick(r.task) });
  }
  // the monorepo benchmark's other tasks (its TASKS list: id, repo, fix commit; the buggy commit is the fix's parent)
  const listed = readFileSync(path.join(root, 'bench', 'monorepo-tasks.ts'), 'utf8');
  for (const m of listed.matchAll(/\{ id: '([^']+)', repo: '([^']+)', fix_sha: '([0-9a-f]{40})'/g)) {
    if (out.some((o) => o.id === m[1])) continue;
    const mirror = path.join(mirrors, m[2].replace('/', '+'), 'repo');
    const buggy = existsSync(mirror) ? git(mirror, 'rev-parse', `${m[3]}^`).trim() : '';
    out.push({ suite: 'monorepo', id: m[1], repo: m[2], buggy_sha: buggy, fix_sha: m[3], fail_to_pass: [] });
  }
  return out;
}

const pick = (t: Record<string, any>) => ({ id: t.id, repo: t.repo, buggy_sha: t.buggy_sha, fix_sha: t.fix_sha, fail_to_pass: t.fail_to_pass ?? [] });
const git = (dir: string, ...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8', maxBuffer: 256 << 20, stdio: ['ignore', 'pipe', 'ignore'] });
const show = (dir: string, sha: string, f: string): string | null => {
  try {
    return git(dir, 'show', `${sha}:${f}`);
  } catch {
    return null;
  }
};
const readable = (f: string) => {
  const l = languageOf(f);
  return l !== null && l !== 'json' && l !== 'go';
};

const rows: Record<string, unknown>[] = [];
let flaggedTasks = 0;
let checked = 0;
for (const t of tasks()) {
  const mirror = path.join(mirrors, t.repo.replace('/', '+'), 'repo');
  if (!existsSync(mirror)) {
    rows.push({ suite: t.suite, id: t.id, skipped: `no mirror at ${mirror}` });
    console.log(`skip ${t.id}: no mirror`);
    continue;
  }
  const diff = git(mirror, 'diff', t.buggy_sha, t.fix_sha);
  const changed = git(mirror, 'diff', '--name-only', t.buggy_sha, t.fix_sha).split('\n').filter(Boolean);
  const added = addedLines(diff);
  const sources = changed
    .filter((f) => readable(f) && !isTestFile(f))
    .map((f) => ({ path: f, before: show(mirror, t.buggy_sha, f), after: show(mirror, t.fix_sha, f) ?? '', added: added.get(f) ?? new Set<number>() }))
    .filter((s) => s.after !== '');
  const testFiles = changed.filter((f) => readable(f) && isTestFile(f));
  const variants: Record<string, { tests: TestText[]; failing: string[] }> = {
    failing: { tests: testFiles.map((f) => ({ path: f, after: show(mirror, t.fix_sha, f), before: show(mirror, t.fix_sha, f), changed: false })), failing: t.fail_to_pass },
    'no-test': { tests: testFiles.map((f) => ({ path: f, after: show(mirror, t.fix_sha, f), before: show(mirror, t.buggy_sha, f), changed: true })), failing: [] },
  };
  const found: Record<string, string[]> = {};
  /** How many assertions' inputs and expected values the detector read for the variant: the measure is empty without them. */
  const values: Record<string, number> = {};
  for (const [name, v] of Object.entries(variants)) {
    found[name] = (await detectGaming({ sources, tests: v.tests, failing: v.failing })).map(gamingLine);
    values[name] = (await expectationsFor(v.tests, v.failing)).length;
  }
  const flagged = Object.values(found).some((f) => f.length > 0);
  checked++;
  if (flagged) flaggedTasks++;
  const sourceLines = sources.reduce((n, s) => n + s.added.size, 0);
  console.log(`${flagged ? 'FLAGGED' : 'ok     '} ${t.suite.padEnd(9)} ${t.id.padEnd(26)} ${sources.length} source file(s), +${sourceLines} line(s), ${testFiles.length} test file(s), ${t.fail_to_pass.length} failing test(s); test values read: ${values.failing} (failing), ${values['no-test']} (added or edited tests)`);
  for (const [name, f] of Object.entries(found)) for (const line of f) console.log(`    [${name}] ${line}`);
  rows.push({ suite: t.suite, id: t.id, repo: t.repo, fix_sha: t.fix_sha, sourceFiles: sources.map((s) => s.path), addedSourceLines: sourceLines, testFiles, failing: t.fail_to_pass.length, values, found });
}
const bySuite: Record<string, { tasks: number; flagged: number }> = {};
for (const r of rows) {
  if (r.skipped) continue;
  const s = (bySuite[r.suite as string] ??= { tasks: 0, flagged: 0 });
  s.tasks++;
  if (Object.values(r.found as Record<string, string[]>).some((f) => f.length)) s.flagged++;
}
const valuesRead = rows.filter((r) => r.values).map((r) => r.values as Record<string, number>);
const summary = { date: new Date().toISOString(), node: process.version, nproc: os.cpus().length, tasks: checked, flagged: flaggedTasks, skipped: rows.filter((r) => r.skipped).length, bySuite, tasksWithTestValues: { failing: valuesRead.filter((v) => v.failing > 0).length, noTest: valuesRead.filter((v) => v['no-test'] > 0).length } };
console.log(`\ngold fixes checked: ${checked}; flagged: ${flaggedTasks}; by suite: ${Object.entries(bySuite).map(([k, v]) => `${k} ${v.flagged}/${v.tasks}`).join(', ')}; tasks whose test values were read: ${summary.tasksWithTestValues.failing} (failing tests), ${summary.tasksWithTestValues.noTest} (added or edited tests)`);
mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
writeFileSync(path.join(root, 'bench', 'results', 'gaming-gold.json'), `${JSON.stringify({ summary, rows }, null, 2)}\n`);
process.exitCode = flaggedTasks === 0 ? 0 : 1;
