/**
 * Localization of the first request on real bug-fix tasks (../shared/bench/dev-tasks.json or
 * --tasks FILE): for each task, at its buggy commit, the first request the loop would send
 * (system prompt + tool schemas + first message with the repository context), from two inputs:
 *   issue: the issue title and body; the tests pass at the buggy commit (no failing test yet).
 *   ci:    the fix commit's tests checked out on the buggy commit and run with the task's own
 *          test command; its output is the CI log (task text) and the harness's parse of it the baseline.
 * Measures whether every fixed file is NAMED in that request, whether every changed line of the
 * real fix (`git diff buggy fix -- fix_files`, old side; an insertion counts its neighbour) is
 * SHOWN there as code, and the request's tokens (o200k_base). Also the same without context (today).
 *
 *   node scripts/run-ts.mjs bench/localization.ts [--mirrors /work/.mirror] [--modes issue,ci] [--ids a,b]
 *        [--tasks FILE] [--budget 8000] [--out bench/results/localization.json]
 * Other repositories, tasks taken from their own history at run time (issue mode: the commit
 * message is the issue text): the newest `--limit` non-merge commits whose subject starts with
 * "fix" and that change exactly two files, one source file under `--src` and one test file under `--test`:
 *   ... --history unjs/h3 --src src/ --test test/ --limit 10 --modes issue
 * Python (issue 22): the verified tasks of bench/python-tasks.ts (its JSON output: only their
 * descriptors are read, the code comes from the mirrors), CI mode in a venv as that bench makes it:
 *   ... --python bench/results/python-tasks.json
 * and Python history tasks: `--history pallets/click --src src/click/ --test tests/ --modes issue`.
 * Each row also has the fixed file's rank in the localization (`rank`, 1-based; 0: not ranked).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { prepareContext } from '../src/context/index.js';
import { countJsonTokens, countTokens } from '../src/context/tokens.js';
import { firstMessageWithContext, firstUserMessage, systemPrompt } from '../src/agent/prompt.js';
import { TOOL_SPECS } from '../src/agent/tools.js';
import { toTestRun, failureFeedback } from '../src/verify/test-run.js';
import { parseJestJson } from '../src/verify/runners/jest.js';
import { extractFailure } from '../src/ci/log-extract.js';
import type { TestRun } from '../src/verify/types.js';
import { isTestFile } from '../src/lang/index.js';
import { arg, type DevTask } from './dev-task.js';

/** A task of the corpus, or one built from a repository's own history (no runner, no test list). */
type BenchTask = Omit<DevTask, 'test_framework' | 'fail_to_pass'>;


const ROOT = process.cwd();
const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-localization'))!;
const tasksFile = arg('tasks', path.join(ROOT, '..', '..', 'shared', 'bench', 'dev-tasks.json'))!;
const modes = (arg('modes', 'issue,ci') ?? '').split(',');
const budget = Number(arg('budget', '8000'));
const out = arg('out');
const history = arg('history');
const python = arg('python');
const VENV = 'python3 -m venv --system-site-packages --without-pip .venv';
const all: BenchTask[] = history
  ? tasksFromHistory(history)
  : python
    ? pythonTasks(python)
    : JSON.parse(readFileSync(existsSync(tasksFile) ? tasksFile : '/work/shared/bench/dev-tasks.json', 'utf8')).tasks;

/** The verified tasks in bench/python-tasks.ts's JSON output: the commit message as the issue, its own test command in a venv. */
function pythonTasks(file: string): BenchTask[] {
  const data = JSON.parse(readFileSync(file, 'utf8')) as { tasks: { task: { id: string; repo: string; buggy_sha: string; fix_sha: string; message: string; fix_files: string[]; test_files: string[]; test_command: string } }[] };
  return data.tasks.map(({ task: t }) => {
    const [title, ...body] = t.message.trim().split('\n');
    return { id: t.id, repo: t.repo, buggy_sha: t.buggy_sha, fix_sha: t.fix_sha, issue_title: title.trim(), issue_body: body.join('\n').trim(), fix_files: t.fix_files, test_files: t.test_files, install_command: VENV, test_command: `${t.test_command} -p no:cacheprovider` };
  });
}

function tasksFromHistory(repo: string): BenchTask[] {
  const mirror = path.join(mirrors, repo.replace('/', '+'), 'repo');
  const src = arg('src', 'src/')!;
  const testDir = arg('test', 'test/')!;
  const limit = Number(arg('limit', '10'));
  const found: BenchTask[] = [];
  const log = git(mirror, 'log', '--no-merges', '--format=%H %P', '-n', '5000', 'HEAD');
  for (const line of log.split('\n')) {
    const [sha, parent, extra] = line.split(' ');
    if (!parent || extra) continue;
    const subject = git(mirror, 'log', '-1', '--format=%s', sha);
    if (!/^fix\b/i.test(subject)) continue;
    const files = git(mirror, 'diff-tree', '--no-commit-id', '--name-only', '-r', sha).split('\n').filter(Boolean);
    if (files.length !== 2) continue;
    const source = files.find((f) => f.startsWith(src) && !f.startsWith(testDir));
    const test = files.find((f) => f.startsWith(testDir));
    if (!source || !test) continue;
    const body = git(mirror, 'log', '-1', '--format=%b', sha).replace(/\(#\d+\)/g, '');
    const py = source.endsWith('.py');
    found.push({ id: `${repo.split('/')[1]}-${sha.slice(0, 8)}`, repo, buggy_sha: parent, fix_sha: sha, issue_title: subject.replace(/\s*\(#\d+\)$/, ''), issue_body: body.trim(), fix_files: [source], test_files: [test], install_command: py ? VENV : 'true', test_command: py ? `.venv/bin/python -m pytest ${test}` : 'npm test' });
    if (found.length >= limit) break;
  }
  return found;
}
const ids = arg('ids')?.split(',');
const tasks = ids ? all.filter((t) => ids.includes(t.id)) : all;

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'advice.detachedHead=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).trim();
}

const installed = new Set<string>();
function checkout(t: BenchTask, withTests: boolean): string {
  const dir = path.join(work, t.repo.replace('/', '+'));
  if (!existsSync(dir)) {
    const mirror = path.join(mirrors, t.repo.replace('/', '+'), 'repo');
    mkdirSync(work, { recursive: true });
    execFileSync('git', ['clone', '-q', '--no-checkout', mirror, dir]);
  }
  git(dir, 'checkout', '-q', '-f', t.buggy_sha);
  git(dir, 'clean', '-q', '-fdx', '-e', 'node_modules', '-e', '.venv');
  if (withTests) {
    git(dir, 'checkout', t.fix_sha, '--', ...t.test_files);
    git(dir, 'reset', '-q');
  }
  return dir;
}

/** Old-side lines the fix changes, per file (an insertion: the line before and after it). */
function changedLines(dir: string, t: BenchTask): Map<string, number[]> {
  const diff = git(dir, 'diff', '-U0', t.buggy_sha, t.fix_sha, '--', ...t.fix_files);
  const res = new Map<string, number[]>();
  let file = '';
  for (const line of diff.split('\n')) {
    const f = /^--- a\/(.+)$/.exec(line);
    if (f) {
      file = f[1];
      res.set(file, []);
      continue;
    }
    const h = /^@@ -(\d+)(?:,(\d+))? /.exec(line);
    if (h && file) {
      const start = Number(h[1]);
      const count = h[2] === undefined ? 1 : Number(h[2]);
      const list = res.get(file)!;
      if (count === 0) list.push(Math.max(1, start), start + 1);
      else for (let i = 0; i < count; i++) list.push(start + i);
    }
  }
  return res;
}

function ciBaseline(dir: string, t: BenchTask): { run: TestRun; log: string } {
  if (!installed.has(t.repo) && !existsSync(path.join(dir, t.install_command === VENV ? '.venv' : 'node_modules'))) {
    process.stderr.write(`  installing ${t.repo}\n`);
    spawnSync('bash', ['-c', t.install_command], { cwd: dir, stdio: 'ignore', env: { ...process.env, CI: 'true' } });
    installed.add(t.repo);
  }
  const started = Date.now();
  const r = spawnSync('bash', ['-c', `${t.test_command} 2>&1`], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, CI: 'true', FORCE_COLOR: '0' } });
  const output = r.stdout ?? '';
  const run = toTestRun(
    { command: t.test_command, output, exitCode: r.status, timedOut: false, durationMs: Date.now() - started } as never,
    { redact: (s: string) => s } as never,
  );
  const jsonFile = path.join(dir, '.jest-result.json');
  if (existsSync(jsonFile)) {
    const s = parseJestJson(readFileSync(jsonFile, 'utf8'), dir);
    if (s) {
      run.tests = s.tests;
      run.structured = true;
    }
  }
  return { run, log: output };
}

interface Row {
  id: string;
  mode: string;
  named: boolean;
  shown: boolean;
  namedBefore: boolean;
  tokens: number;
  tokensBefore: number;
  mapMs: number;
  topFiles: string[];
  /** The fixed files' worst rank in the localization's ranking (1-based; 0: not ranked). */
  rank: number;
  /** The same among the files that are not tests (those localization takes code regions from). */
  srcRank: number;
  missedLines: Record<string, number[]>;
  shownRegions: string[];
}

const rows: Row[] = [];
for (const t of tasks) {
  for (const mode of modes) {
    process.stderr.write(`${t.id} ${mode}\n`);
    const dir = checkout(t, mode === 'ci');
    let baseline: TestRun;
    let text: string;
    if (mode === 'ci') {
      const b = ciBaseline(dir, t);
      baseline = b.run;
      text = extractFailure(b.log).text;
    } else {
      baseline = { command: t.test_command, exitCode: 0, timedOut: false, durationMs: 0, succeeded: true, tests: [], counts: { passed: 0, failed: 0, skipped: 0 }, parsedFrom: 'none', outputTail: '' };
      text = `${t.issue_title}\n\n${t.issue_body}`;
    }
    const task = { key: t.id, title: mode === 'ci' ? `CI failure: ${t.test_command}` : t.issue_title, goal: mode === 'ci' ? text : t.issue_body };
    const repo = await prepareContext(dir, `${task.title}\n${task.goal}`, baseline, { cacheDir: path.join(work, 'cache') });
    const limits = { maxIterations: 5, maxChangedFiles: 10, maxChangedLines: 300 };
    const system = systemPrompt(limits);
    const base = firstUserMessage(task, baseline, failureFeedback(baseline));
    const first = firstMessageWithContext(base, system, TOOL_SPECS, { repo, budgetTokens: budget });
    const fixed = countTokens(system) + countJsonTokens(TOOL_SPECS);
    const changed = changedLines(dir, t);
    const missed: Record<string, number[]> = {};
    for (const [f, lines] of changed) {
      const regions = (first.rendered?.shown ?? []).filter((r) => r.file === f);
      const miss = lines.filter((l) => !regions.some((r) => l >= r.start && l <= r.end));
      // an insertion needs one of its two neighbours
      if (miss.length) missed[f] = miss;
    }
    const insertionOk = (f: string) => {
      const lines = changed.get(f) ?? [];
      const miss = missed[f] ?? [];
      return miss.length < lines.length && lines.length === 2 && miss.length === 1;
    };
    const shown = t.fix_files.every((f) => !missed[f] || insertionOk(f));
    rows.push({
      id: t.id,
      mode,
      named: t.fix_files.every((f) => first.text.includes(f)),
      shown,
      namedBefore: t.fix_files.every((f) => base.includes(f)),
      tokens: fixed + countTokens(first.text),
      tokensBefore: fixed + countTokens(base),
      mapMs: repo.map.stats.ms,
      topFiles: repo.localization.ranked.slice(0, 5).map((r) => r.file.path),
      rank: Math.max(...t.fix_files.map((f) => repo.localization.ranked.findIndex((r) => r.file.path === f) + 1)),
      srcRank: Math.max(...t.fix_files.map((f) => repo.localization.ranked.filter((r) => !isTestFile(r.file.path)).findIndex((r) => r.file.path === f) + 1)),
      missedLines: missed,
      shownRegions: (first.rendered?.shown ?? []).map((r) => `${r.file}:${r.start}-${r.end} ${r.label}`),
    });
    const r = rows[rows.length - 1];
    process.stderr.write(`  named=${r.named} shown=${r.shown} rank=${r.rank}/${r.srcRank} tokens=${r.tokens} top=${r.topFiles.slice(0, 3).join(',')}\n`);
  }
}

const summary: Record<string, unknown> = {};
for (const mode of modes) {
  const rs = rows.filter((r) => r.mode === mode);
  const share = (k: keyof Row) => (rs.length ? rs.filter((r) => r[k]).length / rs.length : 0);
  const toks = rs.map((r) => r.tokens).sort((a, b) => a - b);
  summary[mode] = {
    tasks: rs.length,
    named: share('named'),
    shown: share('shown'),
    namedBefore: share('namedBefore'),
    rank1: rs.filter((r) => r.rank === 1).length,
    rankTop4: rs.filter((r) => r.rank >= 1 && r.rank <= 4).length,
    ranks: rs.map((r) => r.rank).join(' '),
    srcRank1: rs.filter((r) => r.srcRank === 1).length,
    srcRankTop4: rs.filter((r) => r.srcRank >= 1 && r.srcRank <= 4).length,
    srcRanks: rs.map((r) => r.srcRank).join(' '),
    tokensMax: toks[toks.length - 1],
    tokensMedian: toks[Math.floor(toks.length / 2)],
    tokensBeforeMedian: rs.map((r) => r.tokensBefore).sort((a, b) => a - b)[Math.floor(rs.length / 2)],
  };
}
const result = { date: new Date().toISOString(), machine: { nproc: os.cpus().length, node: process.version }, budget, tasksFile, summary, rows };
const json = JSON.stringify(result, null, 2);
if (out) writeFileSync(out, json);
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
