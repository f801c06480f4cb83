/**
 * Type and lint feedback on real repositories (src/diagnostics/): for each task of
 * ../shared/bench/dev-tasks.json, at its buggy commit with the task's own install, the
 * repository's own tsc/ESLint as the watcher finds them, then
 *   fix:  the real upstream fix (fix and test files at the fix commit) written as the model's
 *         edits: every diagnostic reported as new is a false alarm (the fix passed upstream CI);
 *   seed: one error added to the end of the first fixed source file (a type error in a .ts
 *         file under tsc, an unused variable in a .js file under ESLint): it must be reported.
 * With the time of the baseline run and of each check (the load average is recorded too).
 *
 *   node scripts/run-ts.mjs bench/diagnostics.ts [--mirrors /work/.mirror] [--work DIR] [--ids a,b] [--out bench/results/diagnostics.json]
 * Needs the npm registry for the installs (once per repository and package.json).
 *
 * Python (issue 22): `--python bench/results/python-tasks.json` takes the verified tasks of
 * bench/python-tasks.ts (descriptors only; code from the mirrors) and checks them with pyright
 * (the npm package, `--pyright DIR`, default .cache/pyright/node_modules/pyright, linked as the
 * checkout's node_modules/pyright). A project without a pyright configuration gets one for the
 * run (`pyrightconfig.json`: its package directory, `typeCheckingMode: basic`); the seed is
 * `agent_fix_seed: int = "seeded"` at the end of the fixed module.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeShell } from '../src/adapters/shell.js';
import { childEnv } from '../src/verify/env.js';
import { detectCheckers } from '../src/diagnostics/detect.js';
import { LINTABLE } from '../src/lang/javascript/eslint.js';
import { PYTHON } from '../src/lang/python/env.js';
import { checkers as allCheckers } from '../src/lang/index.js';
import { createDiagnostics } from '../src/diagnostics/watch.js';
import { arg, type DevTask } from './dev-task.js';

const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-diagnostics-bench'))!;
const tasksFile = arg('tasks', '/work/shared/bench/dev-tasks.json')!;
const ids = arg('ids')?.split(',');
const python = arg('python');
const pyright = arg('pyright', path.join(process.cwd(), '.cache', 'pyright', 'node_modules', 'pyright'))!;
type PyTask = { task: { id: string; repo: string; buggy_sha: string; fix_sha: string; fix_files: string[]; test_files: string[]; test_command: string } };
const tasks = (
  python
    ? (JSON.parse(readFileSync(python, 'utf8')).tasks as PyTask[]).map(({ task: t }) => ({ ...t, install_command: 'true', test_framework: 'pytest', issue_title: '', issue_body: '', fail_to_pass: [] }))
    : (JSON.parse(readFileSync(tasksFile, 'utf8')).tasks as DevTask[])
).filter((t) => !ids || ids.includes(t.id));

const git = (cwd: string, ...args: string[]) => execFileSync('git', ['-c', 'advice.detachedHead=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 });
const installedFor = new Map<string, string>();
const shell = makeShell();
const env = childEnv(process.env);

function checkout(t: DevTask): string {
  const dir = path.join(work, t.repo.replace('/', '+'));
  if (!existsSync(dir)) {
    mkdirSync(work, { recursive: true });
    execFileSync('git', ['clone', '-q', '--no-checkout', path.join(mirrors, t.repo.replace('/', '+'), 'repo'), dir]);
  }
  git(dir, 'checkout', '-q', '-f', t.buggy_sha);
  git(dir, 'clean', '-q', '-fdx', '-e', 'node_modules');
  if (python) return pythonSetup(dir, t);
  // the task's install, again whenever package.json differs from the one installed
  const pkg = createHash('sha1').update(readFileSync(path.join(dir, 'package.json'))).digest('hex');
  if (installedFor.get(t.repo) !== pkg) {
    process.stderr.write(`  installing ${t.repo} at ${t.buggy_sha.slice(0, 8)}\n`);
    const r = spawnSync('bash', ['-c', t.install_command], { cwd: dir, stdio: 'ignore', env: { ...process.env, CI: 'true' } });
    if (r.status !== 0) process.stderr.write(`  install exited with ${r.status}\n`);
    installedFor.set(t.repo, pkg);
    git(dir, 'checkout', '-q', '-f', t.buggy_sha); // an install may touch tracked files (npm pkg delete ...)
  }
  return dir;
}

/** pyright for a Python task: linked into node_modules; a pyrightconfig.json for the package when the project has none. */
function pythonSetup(dir: string, t: DevTask): string {
  mkdirSync(path.join(dir, 'node_modules'), { recursive: true });
  if (!existsSync(path.join(dir, 'node_modules', 'pyright'))) symlinkSync(pyright, path.join(dir, 'node_modules', 'pyright'), 'dir');
  const own = existsSync(path.join(dir, 'pyrightconfig.json')) || /^\[tool\.pyright\]/m.test(existsSync(path.join(dir, 'pyproject.toml')) ? readFileSync(path.join(dir, 'pyproject.toml'), 'utf8') : '');
  if (!own) writeFileSync(path.join(dir, 'pyrightconfig.json'), JSON.stringify({ include: [t.fix_files[0].split('/').slice(0, t.fix_files[0].startsWith('src/') ? 2 : 1).join('/')], typeCheckingMode: 'basic' }));
  return dir;
}

const SEED = {
  tsc: "\nexport const agentFixSeed: number = 'seeded';\n",
  eslint: '\nvar agentFixSeed = 1;\n',
  pyright: '\nagent_fix_seed: int = "seeded"\n',
};

const results: unknown[] = [];
for (const t of tasks) {
  const dir = checkout(t);
  const setup = detectCheckers(dir);
  const checkers = allCheckers().map((c) => c.id).filter((c) => setup[c]);
  const row: Record<string, unknown> = { id: t.id, repo: t.repo, checkers, load: os.loadavg()[0] };
  process.stderr.write(`${t.id}: ${checkers.join('+') || 'no checker'}\n`);
  const w = createDiagnostics({ root: dir, exec: (command, o) => shell.run(command, { cwd: dir, env, ...o }), timeoutMs: 180_000 });
  if (!w) {
    results.push(row);
    continue;
  }
  const write = async (rel: string, text: string) => {
    await w.beforeWrite(rel);
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  };
  const started = Date.now();
  w.warmUp();
  const files = [...t.fix_files, ...t.test_files];
  await w.beforeWrite(files[0]);
  row.baselineMs = Date.now() - started;
  for (const f of files) await write(f, git(dir, 'show', `${t.fix_sha}:${f}`));
  const fix = await w.check(files);
  row.fix = { ms: fix.ms, ran: fix.ran, falseAlarms: fix.fresh.map((d) => `${d.file}:${d.line} ${d.code} ${d.message.split('\n')[0]}`) };
  const target = t.fix_files.find((f) => LINTABLE.test(f) || (setup.pyright && PYTHON.test(f)));
  const kind = target && setup.pyright && PYTHON.test(target) ? 'pyright' : target && setup.tsc && /\.[cm]?tsx?$/.test(target) ? 'tsc' : setup.eslint ? 'eslint' : null;
  if (target && kind) {
    const now = readFileSync(path.join(dir, target), 'utf8');
    const seedLine = now.split('\n').length + (now.endsWith('\n') ? 1 : 0);
    await write(target, now + SEED[kind]);
    const seeded = await w.check(files, [target]);
    const hits = seeded.fresh.filter((d) => d.file === target && d.line >= seedLine - 1);
    row.seed = { kind, file: target, ms: seeded.ms, ran: seeded.ran, detected: hits.length > 0, reported: seeded.fresh.map((d) => `${d.file}:${d.line} ${d.code} ${d.message.split('\n')[0]}`) };
  }
  row.stats = w.stats;
  await w.dispose();
  process.stderr.write(`  ${JSON.stringify(row)}\n`);
  results.push(row);
}

const withCheckers = results.filter((r) => (r as { checkers: string[] }).checkers.length > 0) as { fix: { falseAlarms: string[] }; seed?: { detected: boolean } }[];
const ms = (k: 'fix' | 'seed') => (results as { [x: string]: { ms?: number } | undefined }[]).map((r) => r[k]?.ms).filter((x): x is number => x !== undefined).sort((a, b) => a - b);
const median = (xs: number[]) => xs[Math.floor(xs.length / 2)];
const baselines = (results as { baselineMs?: number }[]).map((r) => r.baselineMs).filter((x): x is number => x !== undefined).sort((a, b) => a - b);
const summary = {
  tasks: results.length,
  baselineMsMedian: median(baselines),
  checkMsMedian: median([...ms('fix'), ...ms('seed')].sort((a, b) => a - b)),
  withCheckers: withCheckers.length,
  falseAlarms: withCheckers.reduce((n, r) => n + r.fix.falseAlarms.length, 0),
  seeded: withCheckers.filter((r) => r.seed).length,
  seedsDetected: withCheckers.filter((r) => r.seed?.detected).length,
};
const out = { date: new Date().toISOString(), machine: { nproc: os.cpus().length, node: process.version, loadAtEnd: os.loadavg() }, summary, results };
if (arg('out')) writeFileSync(arg('out')!, JSON.stringify(out, null, 2));
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
