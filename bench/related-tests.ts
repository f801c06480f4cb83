/**
 * Related tests first, on a real project: for each task of /work/shared/bench/dev-tasks.json
 * (or --tasks FILE) whose repository is the given checkout, the checkout is put at the buggy
 * commit with the fix's test files applied (so the originally failing tests exist and fail),
 * then:
 *   - the full test command runs (the baseline, timed);
 *   - N repair iterations: a harmless edit of the fix's source files (not the fix), then the
 *     loop's run (`TestSession.runForLoop`: related tests first; they fail, so the full suite
 *     is not run), timed; the originally failing tests must be in the selection;
 *   - the real fix from the fixing commit, then the loop's run (related tests pass, then the
 *     full gate), timed.
 * Prints and writes raw figures (bench/results/related-tests.json).
 *
 * Usage (checkout prepared once, see bench/README.md):
 *   node scripts/run-ts.mjs bench/related-tests.ts --repo /tmp/dayjs [--command "npm test"] [--iterations 3] [--limit 11] [--gate allow|block] [--out FILE]
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { makeShell } from '../src/adapters/shell.js';
import { Redactor } from '../src/redact.js';
import { TestSession } from '../src/verify/session.js';
import type { GateRule } from '../src/verify/compare.js';

interface Task {
  id: string;
  repo: string;
  buggy_sha: string;
  fix_sha: string;
  fix_files: string[];
  test_files: string[];
  fail_to_pass: string[];
}

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}

const repoDir = path.resolve(arg('repo', ''));
if (!arg('repo', '')) {
  console.error('usage: node scripts/run-ts.mjs bench/related-tests.ts --repo <checkout with node_modules> [--command "npx jest"] [--iterations 3] [--limit N]');
  process.exit(2);
}
const command = arg('command', 'npx jest');
const iterations = Number(arg('iterations', '3'));
const limit = Number(arg('limit', '100'));
/** The gate's rule for failures that predate the change (as the product's input preexisting-failures). */
const gateMode = arg('gate', 'allow') === 'block' ? 'block' : 'allow';
const tasksFile = arg('tasks', '/work/shared/bench/dev-tasks.json');
const git = (...a: string[]) => execFileSync('git', ['-C', repoDir, ...a], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).trim();
const origin = git('config', '--get', 'remote.origin.url');
const slug = (origin.match(/([\w.-]+\/[\w.-]+?)(?:\.git)?$/) ?? [])[1] ?? '';
const all: Task[] = (JSON.parse(readFileSync(tasksFile, 'utf8')) as { tasks: Task[] }).tasks;
const tasks = all.filter((t) => slug.endsWith(t.repo.split('/')[1]) || origin.includes(t.repo.replace('/', '+'))).slice(0, limit);
if (tasks.length === 0) {
  console.error(`no task in ${tasksFile} for ${origin}`);
  process.exit(2);
}

const shell = makeShell();
const env: Record<string, string> = {};
for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
Object.assign(env, { CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0' });
const exec = (cmd: string) => shell.run(cmd, { cwd: repoDir, timeoutMs: 600_000, env, maxOutputChars: 2_000_000 });
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
/** `file > a b c` (dev-tasks) vs `file > a > b > c` (ours). */
const norm = (id: string) => {
  const [file, ...rest] = id.split(' > ');
  return `${file} > ${rest.join(' ').replace(/\s+/g, ' ').trim()}`;
};

const results: unknown[] = [];
const fullTimes: number[] = [];
const iterationTimes: number[] = [];
let allSelected = true;
for (const task of tasks) {
  git('checkout', '-q', '-f', task.buggy_sha);
  git('clean', '-q', '-fdx', '-e', 'node_modules');
  for (const f of task.test_files) writeFileSync(path.join(repoDir, f), git('show', `${task.fix_sha}:${f}`) + '\n');
  const changed = new Set<string>();
  const session = await TestSession.create({
    root: repoDir,
    testCommand: command,
    exec,
    redactor: new Redactor(),
    changedFiles: async () => [...changed],
    listFiles: async () => git('ls-files').split('\n'),
  });
  const baseline = await session.runFull('baseline');
  // runForLoop judges against the baseline (its verdict comes with the run) and selects its failing tests' files.
  session.useBaseline(baseline);
  const originallyFailing = task.fail_to_pass.map(norm);
  const failingAtBaseline = baseline.tests.filter((t) => t.status === 'failed').map((t) => norm(t.id));
  // The task is about its fail-to-pass tests (as an issue naming them); other failures may predate it.
  const gate: GateRule = gateMode === 'block' ? { preexisting: 'block' } : { preexisting: 'allow', targets: baseline.tests.filter((t) => originallyFailing.includes(norm(t.id))).map((t) => t.id) };
  session.gate = gate;
  const perIteration: { ms: number; scope: string | undefined; selectedTests: number; failingSelected: boolean; command: string }[] = [];
  for (let i = 1; i <= iterations; i++) {
    for (const f of task.fix_files) {
      changed.add(f);
      writeFileSync(path.join(repoDir, f), `${readFileSync(path.join(repoDir, f), 'utf8')}\n// attempt ${i}\n`);
    }
    const before = session.commands.length;
    const t0 = Date.now();
    const { run } = await session.runForLoop();
    const ms = Date.now() - t0;
    const ids = new Set(run.tests.map((t) => norm(t.id)));
    const failingSelected = originallyFailing.every((id) => ids.has(id));
    if (!failingSelected) allSelected = false;
    perIteration.push({ ms, scope: run.scope, selectedTests: run.tests.length, failingSelected, command: session.commands.slice(before).map((c) => c.command).join(' ; ') });
    iterationTimes.push(ms);
  }
  for (const f of task.fix_files) writeFileSync(path.join(repoDir, f), git('show', `${task.fix_sha}:${f}`) + '\n');
  const before = session.commands.length;
  const t0 = Date.now();
  const { run: fixed, verdict } = await session.runForLoop();
  const finalMs = Date.now() - t0;
  fullTimes.push(baseline.durationMs);
  const row = {
    task: task.id,
    fullSuiteMs: baseline.durationMs,
    fullSuiteTests: baseline.counts,
    failingAtBaseline,
    originallyFailing,
    iterations: perIteration,
    medianIterationMs: median(perIteration.map((p) => p.ms)),
    speedup: baseline.durationMs / median(perIteration.map((p) => p.ms)),
    finalIteration: { ms: finalMs, succeeded: fixed.succeeded, gate: gateMode, verified: verdict.ok, preexisting: verdict.preexisting?.length ?? 0, scope: fixed.scope, commands: session.commands.slice(before).map((c) => ({ purpose: c.purpose, ms: c.durationMs, exit: c.exitCode, counts: c.counts })) },
  };
  results.push(row);
  console.log(
    `${task.id}: full ${(baseline.durationMs / 1000).toFixed(1)} s (${baseline.counts.passed}+${baseline.counts.failed} tests), ` +
      `median repair iteration ${(row.medianIterationMs / 1000).toFixed(2)} s (x${row.speedup.toFixed(1)}), failing tests selected: ${perIteration.every((p) => p.failingSelected)}, ` +
      `final (related + gate) ${(finalMs / 1000).toFixed(1)} s, command succeeded: ${fixed.succeeded}, verified (gate ${gateMode}): ${row.finalIteration.verified}`,
  );
  await session.dispose();
}
git('checkout', '-q', '-f', tasks[0].buggy_sha);
git('clean', '-q', '-fdx', '-e', 'node_modules');

const summary = {
  date: new Date().toISOString(),
  machine: { cpus: (await import('node:os')).cpus().length, node: process.version },
  repo: origin,
  command,
  iterationsPerTask: iterations,
  medianFullSuiteMs: median(fullTimes),
  medianIterationMs: median(iterationTimes),
  speedup: median(fullTimes) / median(iterationTimes),
  everyOriginallyFailingTestSelected: allSelected,
  tasks: results,
};
console.log(
  `\nmedian full suite ${(summary.medianFullSuiteMs / 1000).toFixed(1)} s, median repair iteration ${(summary.medianIterationMs / 1000).toFixed(2)} s: ` +
    `${summary.speedup.toFixed(1)}x faster; every originally failing test selected: ${allSelected}`,
);
mkdirSync(path.join(process.cwd(), 'bench', 'results'), { recursive: true });
writeFileSync(path.resolve(arg('out', path.join('bench', 'results', 'related-tests.json'))), `${JSON.stringify(summary, null, 2)}\n`);
