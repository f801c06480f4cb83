/**
 * Real bugs of real pure-Python projects (issue 22), through the bundles, in issue and CI mode.
 *
 *   node scripts/run-ts.mjs bench/python-tasks.ts [--mirrors /work/.mirror] [--per-repo 3] [--scan 40] [--work DIR] [--repos a+b,c+d] [--skip-ci]
 *
 * The task list is built at run time from the repositories' own history (nothing of theirs is
 * committed): newest first, a commit whose message says "fix" and that changes exactly one
 * module of the package and one or more test files (no other Python file); its parent is the
 * buggy commit. A task is kept only when it is verified with pytest in a virtual environment:
 * the fix commit's test files on the buggy source fail (exit 1, at least one FAILED in `-rA`),
 * and pass (exit 0) with the fix commit's module. The failing ids come from pytest's own `-rA`
 * lines, read with one regular expression (not the harness's parsers).
 *
 * For each verified task:
 *   - issue mode, the CLI bundle (dist/cli.js under node 24): the buggy commit with the fix's
 *     tests, `--setup-command "python3 -m venv --system-site-packages --without-pip .venv"`,
 *     `--test-command "PYTHONPATH=<src> .venv/bin/python -m pytest <test files>"`, the commit
 *     message as the task, a scripted oracle writing the upstream module (must end `fixed`) and
 *     a scripted wrong edit (a note file; must not end `fixed`);
 *   - CI mode, the action bundle (dist/index.js under node 24) against the fake GitHub API: a
 *     failed `workflow_run` whose job log is a real run of the same command at the buggy commit
 *     in the runner's framing, the oracle as model (must be reproduced, by which evidence, and end `fixed`).
 * It does NOT measure a real model's ability to find fixes (no model is reachable here).
 *
 * Mirrors: `<owner>+<name>/repo` git directories with history (the search tool's `fetch`).
 * Needs python3 with pytest (PyPI is not needed: the projects are pure Python without runtime
 * dependencies; the venv sees the interpreter's site-packages). Writes JSON to stdout.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptedModel } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { node24, ROOT } from '../test-support/run-action.js';
import { jobLog, realRun, repairCiRun } from '../test-support/ci-repair.js';
import { cleanupFixtures } from '../test-support/git-fixture.js';
import { arg, writesScript, treeAt } from './dev-task.js';

interface RepoSpec {
  repo: string;
  /** Where the package is imported from (`PYTHONPATH`). */
  pythonpath: string;
  /** The package's directory (a module of the fix must live under it). */
  pkg: string;
}

const REPOS: RepoSpec[] = [
  { repo: 'tkem/cachetools', pythonpath: 'src', pkg: 'src/cachetools/' },
  { repo: 'andialbrecht/sqlparse', pythonpath: '.', pkg: 'sqlparse/' },
  { repo: 'mahmoud/boltons', pythonpath: '.', pkg: 'boltons/' },
  { repo: 'more-itertools/more-itertools', pythonpath: '.', pkg: 'more_itertools/' },
];

export interface PythonTask {
  id: string;
  repo: string;
  buggy_sha: string;
  fix_sha: string;
  message: string;
  fix_files: string[];
  test_files: string[];
  test_command: string;
  fail_to_pass: string[];
}

const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-python-tasks'))!;
const perRepo = Number(arg('per-repo', '3'));
const scan = Number(arg('scan', '40'));
const only = arg('repos')?.split(',');
const SETUP = 'python3 -m venv --system-site-packages --without-pip .venv';

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'advice.detachedHead=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).trim();
const mirrorOf = (repo: string) => path.join(mirrors, repo.replace('/', '+'), 'repo');
const isTest = (f: string) => /(?:^|\/)tests?\//.test(f) && f.endsWith('.py');

/** The command a task runs: the venv's pytest on the fix's test files. */
const commandOf = (spec: RepoSpec, tests: string[]) => `PYTHONPATH=${spec.pythonpath} .venv/bin/python -m pytest ${tests.join(' ')}`;

function sh(cwd: string, command: string): { code: number | null; out: string } {
  const r = spawnSync('bash', ['-c', `${command} 2>&1`], { cwd, encoding: 'utf8', timeout: 300_000, maxBuffer: 64 << 20, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', NO_COLOR: '1' } });
  return { code: r.status, out: r.stdout ?? '' };
}

/** A clean clone of the mirror (untracked files and the venv kept out of git's view). */
function cloneAt(repo: string, dir: string, sha: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  execFileSync('git', ['clone', '-q', '--no-checkout', mirrorOf(repo), dir]);
  git(dir, 'checkout', '-q', sha);
  appendFileSync(path.join(dir, '.git', 'info', 'exclude'), '.venv/\n__pycache__/\n.pytest_cache/\n*.pyc\n');
}

/** Candidate fix commits, newest first, and the verified tasks among them. */
function discover(spec: RepoSpec): { scanned: number; candidates: number; tasks: PythonTask[]; rejected: Record<string, number> } {
  const mirror = mirrorOf(spec.repo);
  const shas = git(mirror, 'log', '--no-merges', '-i', '--grep=fix', '--format=%H', '-n', '2000').split('\n').filter(Boolean);
  const dir = path.join(work, 'verify', spec.repo.replace('/', '+'));
  cloneAt(spec.repo, dir, shas[0]);
  sh(dir, SETUP);
  const tasks: PythonTask[] = [];
  const rejected: Record<string, number> = {};
  const reject = (why: string) => (rejected[why] = (rejected[why] ?? 0) + 1);
  let candidates = 0;
  let scanned = 0;
  for (const sha of shas) {
    if (tasks.length >= perRepo || candidates >= scan) break;
    scanned++;
    const changes = git(mirror, 'diff-tree', '--no-commit-id', '-r', '--name-status', `${sha}^`, sha)
      .split('\n')
      .filter(Boolean)
      .map((l) => l.split('\t'));
    const py = changes.filter(([, f]) => f?.endsWith('.py'));
    const src = py.filter(([, f]) => f.startsWith(spec.pkg) && !isTest(f));
    const tests = py.filter(([, f]) => isTest(f));
    if (src.length !== 1 || src[0][0] !== 'M' || tests.length === 0 || tests.some(([s]) => s !== 'M' && s !== 'A') || src.length + tests.length !== py.length) continue;
    candidates++;
    const fixFile = src[0][1];
    const testFiles = tests.map(([, f]) => f);
    git(dir, 'checkout', '-q', '-f', `${sha}^`);
    git(dir, 'clean', '-fdxq', '-e', '.venv');
    git(dir, 'checkout', sha, '--', ...testFiles);
    const command = commandOf(spec, testFiles);
    const before = sh(dir, `${command} -p no:cacheprovider -rA -q`);
    // `FAILED tests/t.py::test_x[a b] - message`: the id runs to the ` - ` before the message (parameters may hold spaces)
    const failed = [...before.out.matchAll(/^(?:FAILED|ERROR) (\S+\.py::.+?)(?: - .*)?$/gm)].map((m) => m[1].trim());
    if (before.code !== 1 || failed.length === 0) {
      reject(before.code === 1 ? 'fails without a named test' : `buggy commit exits ${before.code}`);
      continue;
    }
    git(dir, 'checkout', sha, '--', fixFile);
    const after = sh(dir, `${command} -p no:cacheprovider -q`);
    if (after.code !== 0) {
      reject(`fix commit exits ${after.code}`);
      continue;
    }
    const message = git(mirror, 'log', '-1', '--format=%B', sha);
    tasks.push({ id: `${spec.repo.split('/')[1]}-${sha.slice(0, 8)}`, repo: spec.repo, buggy_sha: git(mirror, 'rev-parse', `${sha}^`), fix_sha: sha, message, fix_files: [fixFile], test_files: testFiles, test_command: command, fail_to_pass: [...new Set(failed)] });
  }
  return { scanned, candidates, tasks, rejected };
}

/** The task's checkout for the CLI: the buggy commit with the fix's tests committed on top. */
function prepare(t: PythonTask): string {
  const dir = path.join(work, 'tasks', t.id);
  cloneAt(t.repo, dir, t.buggy_sha);
  git(dir, 'checkout', t.fix_sha, '--', ...t.test_files);
  git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'bench: failing test from the fix commit');
  return dir;
}

const fixOf = (t: PythonTask) => Object.fromEntries(t.fix_files.map((f) => [f, git(mirrorOf(t.repo), 'show', `${t.fix_sha}:${f}`) + '\n']));

/** Do the ids the harness names as failing at baseline cover pytest's own failing ids? */
function covered(expected: string[], failing: string[]): string {
  const norm = (s: string) => s.replace(/\[.*$/, '').toLowerCase();
  return `${expected.filter((e) => failing.some((f) => f === e || norm(f) === norm(e))).length}/${expected.length}`;
}

async function issueMode(t: PythonTask, dir: string, s: Script) {
  const model = await startScriptedModel(s);
  const t0 = performance.now();
  // the report goes to a file: on a pipe, the CLI's large JSON reports (thousands of tests) were cut short
  const outFile = path.join(work, `${t.id}-${Date.now()}.json`);
  const fd = openSync(outFile, 'w');
  const child = spawn(node24(), [path.join(ROOT, 'dist', 'cli.js'), 'fix', t.message, '--repo', dir, '--setup-command', SETUP, '--test-command', t.test_command, '--base-url', model.url, '--model', 'scripted-oracle', '--max-iterations', '1', '--json'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'bench-key-123456' },
    stdio: ['ignore', fd, 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  closeSync(fd);
  await model.close();
  const out = readFileSync(outFile, 'utf8');
  if (!out.trim().startsWith('{')) return { error: `cli exited ${code}: ${err.slice(-600)}` };
  let report;
  try {
    report = JSON.parse(out);
  } catch (e) {
    return { error: `cli exited ${code}, its JSON did not parse (${out.length} characters): ${String(e).slice(0, 200)}` };
  }
  const failing: string[] = (report.baseline?.tests ?? []).filter((x: { status: string }) => x.status === 'failed').map((x: { id: string }) => x.id);
  const proof = report.tests?.proof;
  return {
    status: report.status as string,
    wallMs: Math.round(performance.now() - t0),
    runner: report.tests?.runner as string | undefined,
    parsedFrom: report.baseline?.parsedFrom as string | undefined,
    baseline: report.baseline?.counts,
    final: report.final?.counts,
    failToPassSeen: covered(t.fail_to_pass, failing),
    // the fail-to-pass proof: how many tests it counts as fixed (failing or missing before, passing after)
    proof: proof ? { status: proof.status as string, fixed: (proof.tests ?? []).filter((x: { before: string; after: string }) => x.before !== 'passed' && x.after === 'passed').length } : null,
    detail: String(report.detail ?? '').slice(0, 300),
  };
}

async function ciMode(t: PythonTask) {
  const open: { close(): Promise<void> }[] = [];
  const t0 = performance.now();
  try {
    const { text: files, binary } = treeAt(mirrorOf(t.repo), t.fix_sha, ['.venv/', '__pycache__/', '.pytest_cache/']);
    const broken = Object.fromEntries(t.fix_files.map((f) => [f, git(mirrorOf(t.repo), 'show', `${t.buggy_sha}:${f}`) + '\n']));
    let logLines = 0;
    const { r } = await repairCiRun(open, {
      repo: t.repo.split('/')[1],
      files,
      binary,
      broken,
      script: writesScript(`oracle ${t.id}`, fixOf(t)),
      inputs: { 'setup-command': SETUP, 'test-command': t.test_command, 'max-iterations': '1', 'max-changed-lines': '2000' },
      log: (url) => {
        const { output, dir } = realRun(url, `${SETUP} && ${t.test_command}`);
        const log = jobLog(t.repo.split('/')[1], t.test_command, output, dir);
        logLines = log.split('\n').length;
        return log;
      },
    });
    const rep = /Reproduction: (reproduced \(evidence: [\w-]+\)|[^\n]+)/.exec(r.stdout)?.[1] ?? null;
    const why = r.outputs.status === 'fixed' ? undefined : { reason: r.outputs.reason, summary: r.summary.replace(/\s+/g, ' ').slice(0, 600) };
    return { status: r.outputs.status, reproduction: rep, logLines, wallMs: Math.round(performance.now() - t0), ...why };
  } catch (e) {
    return { error: e instanceof Error ? e.message.slice(0, 400) : String(e) };
  } finally {
    for (const s of open) await s.close();
    cleanupFixtures();
  }
}

const discovered: Record<string, unknown> = {};
const tasks: PythonTask[] = [];
for (const spec of REPOS.filter((s) => !only || only.includes(s.repo.replace('/', '+')))) {
  if (!existsSync(mirrorOf(spec.repo))) {
    discovered[spec.repo] = { error: `no mirror at ${mirrorOf(spec.repo)}` };
    continue;
  }
  const d = discover(spec);
  discovered[spec.repo] = { scanned: d.scanned, candidates: d.candidates, verified: d.tasks.length, rejected: d.rejected };
  console.error(JSON.stringify({ repo: spec.repo, ...(discovered[spec.repo] as object) }));
  tasks.push(...d.tasks);
}
const results: unknown[] = [];
for (const t of tasks) {
  mkdirSync(work, { recursive: true });
  const dir = prepare(t);
  const oracle = await issueMode(t, dir, writesScript(`oracle ${t.id}`, fixOf(t)));
  git(dir, 'checkout', '-q', '-f', 'HEAD');
  const wrong = await issueMode(t, dir, writesScript(`wrong ${t.id}`, { [`${t.fix_files[0]}.note.txt`]: 'looked at this\n' }));
  const ci = arg('skip-ci') !== undefined || process.argv.includes('--skip-ci') ? null : await ciMode(t);
  const row = { task: t, issue: { oracle, wrongEdit: wrong }, ci };
  results.push(row);
  console.error(JSON.stringify({ id: t.id, oracle: oracle.status ?? oracle, wrong: wrong.status ?? wrong, ci: ci && ('status' in ci ? `${ci.status} / ${ci.reproduction}` : ci) }));
}
console.log(JSON.stringify({ date: new Date().toISOString(), node: node24(), python: sh('.', 'python3 --version').out.trim(), pytest: sh('.', 'python3 -m pytest --version').out.trim(), discovered, tasks: results }, null, 2));
