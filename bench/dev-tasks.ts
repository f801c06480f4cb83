/**
 * Trial on real bugs of public repositories (../shared/bench/dev-tasks.json): for each task the
 * CLI bundle runs the whole loop on the buggy commit, with the task's own install and test
 * commands (the failing test taken from the fix commit), against a scripted "oracle" model that writes the real upstream fix (from fix_sha),
 * and — as a control — against a scripted model that makes a plausible but wrong edit.
 * What it shows: the harness reproduces the failure at baseline, parses the failing tests of a
 * real runner, accepts the real fix only through its own test run, and refuses a wrong one.
 * It does NOT measure a real model's ability to find fixes (no model is reachable here).
 *
 *   node scripts/run-ts.mjs bench/dev-tasks.ts --mirrors /work/.mirror [--ids a,b] [--work DIR]
 * Mirrors: a directory with `<owner>+<name>/repo` git directories (bare clones with history).
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptedModel } from '../src/scripted/server.js';
import { parseScript, type Script } from '../src/scripted/script.js';
import { node24, ROOT } from '../test-support/run-action.js';

interface DevTask {
  id: string;
  repo: string;
  buggy_sha: string;
  fix_sha: string;
  issue_title: string;
  issue_body: string;
  fix_files: string[];
  test_files: string[];
  install_command: string;
  test_command: string;
  fail_to_pass: string[];
}

const arg = (name: string, dflt?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-dev-tasks'))!;
const all: DevTask[] = JSON.parse(readFileSync(path.join(ROOT, '..', 'shared', 'bench', 'dev-tasks.json'), 'utf8')).tasks;
const ids = arg('ids')?.split(',');
const tasks = ids ? all.filter((t) => ids.includes(t.id)) : all;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'advice.detachedHead=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).trim();

function prepare(t: DevTask): string {
  const mirror = path.join(mirrors, t.repo.replace('/', '+'), 'repo');
  if (!existsSync(mirror)) throw new Error(`no mirror for ${t.repo} at ${mirror}`);
  const dir = path.join(work, t.id);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync('git', ['clone', '-q', '--no-checkout', mirror, dir]);
  git(dir, 'checkout', '-q', t.buggy_sha);
  // the failing test that reproduces the bug comes from the fix commit (as a maintainer's
  // reproduction would), the source stays buggy
  git(dir, 'checkout', t.fix_sha, '--', ...t.test_files);
  git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'bench: failing test from the fix commit');
  execFileSync('bash', ['-c', t.install_command], { cwd: dir, stdio: 'ignore', env: { ...process.env, CI: 'true' } });
  // the install may leave untracked files (lockfiles); the CLI refuses a dirty checkout, so
  // commit them on a throwaway local commit the way a CI checkout would already contain them
  if (git(dir, 'status', '--porcelain')) {
    git(dir, 'add', '-A');
    git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'bench: install artifacts');
  }
  return dir;
}

function oracle(t: DevTask, dir: string): Script {
  const steps: Script['steps'] = t.fix_files.map((f) => ({ toolCalls: [{ name: 'write_file', arguments: { path: f, content: git(dir, 'show', `${t.fix_sha}:${f}`) + '\n' } }] }));
  steps.push({ toolCalls: [{ name: 'finish', arguments: { summary: `upstream fix ${t.fix_sha.slice(0, 8)}` } }] });
  return parseScript({ label: `oracle ${t.id}`, steps });
}

/** A wrong fix: the fix file with one line appended that changes nothing the tests check. */
function wrong(t: DevTask): Script {
  const f = t.fix_files[0];
  return parseScript({
    label: `wrong ${t.id}`,
    steps: [
      { toolCalls: [{ name: 'read_file', arguments: { path: f, start_line: 1, end_line: 5 } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: `${f}.note.txt`, content: 'looked at this\n' } }] },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'wrong on purpose' } }] },
    ],
  });
}

async function runCli(dir: string, t: DevTask, script: Script) {
  const model = await startScriptedModel(script);
  const t0 = performance.now();
  const child = spawn(node24(), [path.join(ROOT, 'dist', 'cli.js'), 'fix', `${t.issue_title}\n\n${t.issue_body}`, '--repo', dir, '--test-command', t.test_command, '--base-url', model.url, '--model', 'scripted-oracle', '--max-iterations', '1', '--json'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'bench-key-123456' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  const wallMs = performance.now() - t0;
  await model.close();
  if (!out.trim().startsWith('{')) throw new Error(`cli failed (${code}): ${err.slice(-1500)}`);
  const report = JSON.parse(out);
  const failingBefore: string[] = (report.baseline?.tests ?? []).filter((x: { status: string }) => x.status === 'failed').map((x: { id: string }) => x.id);
  // runners and the data set join suite and test names differently (' > ', ' ', '›'): compare letters only
  const norm = (s: string) => s.replace(/[\s>›]+/g, '');
  const found = t.fail_to_pass.filter((name) => failingBefore.some((id) => norm(id).endsWith(norm(name.includes(' > ') && /\.[jt]s > /.test(name) ? name.slice(name.indexOf(' > ') + 3) : name))));
  return {
    code,
    wallMs: Math.round(wallMs),
    status: report.status,
    reason: report.reason,
    baseline: { exit: report.baseline?.exitCode, ...report.baseline?.counts, parsedFrom: report.baseline?.parsedFrom, ms: Math.round(report.baseline?.durationMs ?? 0) },
    final: report.final ? { exit: report.final.exitCode, ...report.final.counts, ms: Math.round(report.final.durationMs) } : null,
    failToPassSeenFailingAtBaseline: `${found.length}/${t.fail_to_pass.length}`,
    failingAtBaseline: failingBefore.slice(0, 10),
    changed: (report.changes ?? []).map((c: { path: string }) => c.path),
  };
}

const results: unknown[] = [];
for (const t of tasks) {
  const started = performance.now();
  try {
    const dir = prepare(t);
    const prepMs = Math.round(performance.now() - started);
    const fixed = await runCli(dir, t, oracle(t, dir));
    const control = await runCli(dir, t, wrong(t));
    const row = { id: t.id, prepMs, oracle: fixed, wrongEdit: control };
    results.push(row);
    console.error(JSON.stringify(row));
  } catch (e) {
    const row = { id: t.id, error: e instanceof Error ? e.message : String(e) };
    results.push(row);
    console.error(JSON.stringify(row));
  }
}
console.log(JSON.stringify({ date: new Date().toISOString(), node: node24(), tasks: results }, null, 2));
