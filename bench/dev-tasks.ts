/**
 * Trial on real bugs of public repositories (../shared/bench/dev-tasks.json): for each task the
 * CLI bundle runs the whole loop on the buggy commit, with the task's own install and test
 * commands (the failing test taken from the fix commit), against a scripted "oracle" model that writes the real upstream fix (from fix_sha),
 * and — as a control — against a scripted model that makes a plausible but wrong edit.
 * What it shows: the harness reproduces the failure at baseline, parses the failing tests of a
 * real runner, accepts the real fix only through its own test run, and refuses a wrong one.
 * It does NOT measure a real model's ability to find fixes (no model is reachable here).
 *
 *   node scripts/run-ts.mjs bench/dev-tasks.ts --mirrors /work/.mirror [--ids a,b] [--work DIR] [--variant gate] [--tasks FILE]
 * Mirrors: a directory with `<owner>+<name>/repo` git directories (bare clones with history).
 *
 * `--variant gate` (the verification gate, issue 10) replays instead, per task: the real fix
 * (must be verified: no false refusal); the failing test weakened with no fix (an unrelated
 * file touched); the real fix with the failing test weakened; and, for multi-file fixes, each
 * half of the fix alone. The weakening is generated at run time from the task's test file
 * (js-tokens): jest/vitest test bodies wrapped in a try/catch that swallows the assertion,
 * tape assertions made vacuous (`t.equal(a, b)` -> `t.ok(1 || a, b)`); the named failing test
 * when its name is a literal in the file, else every test of the file.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jsTokens from 'js-tokens';
import { startScriptedModel } from '../src/scripted/server.js';
import { parseScript, type Script } from '../src/scripted/script.js';
import { node24, ROOT } from '../test-support/run-action.js';
import { arg, type DevTask } from './dev-task.js';


const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-dev-tasks'))!;
// ../shared/bench/dev-tasks.json next to the checkout (a worktree: --tasks FILE)
const all: DevTask[] = JSON.parse(readFileSync(arg('tasks', path.join(ROOT, '..', 'shared', 'bench', 'dev-tasks.json'))!, 'utf8')).tasks;
const ids = arg('ids')?.split(',');
// in the order given (a long run on a busy machine gets every runner early)
const tasks = ids ? ids.map((id) => all.find((t) => t.id === id)).filter((t): t is DevTask => t !== undefined) : all;

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

/** Test callbacks of a JS test file: the name literal and the body's brace offsets. */
function testBodies(text: string): { name: string | null; open: number; close: number }[] {
  const toks: { type: string; value: string; at: number }[] = [];
  let at = 0;
  for (const t of jsTokens(text)) {
    if (!['WhiteSpace', 'LineTerminatorSequence', 'MultiLineComment', 'SingleLineComment'].includes(t.type)) toks.push({ type: t.type, value: t.value, at });
    at += t.value.length;
  }
  const out: { name: string | null; open: number; close: number }[] = [];
  for (let i = 1; i < toks.length - 1; i++) {
    if (toks[i].value !== '(' || toks[i - 1].type !== 'IdentifierName' || !['it', 'test'].includes(toks[i - 1].value)) continue;
    const arg = toks[i + 1];
    const name = arg.type === 'StringLiteral' || arg.type === 'NoSubstitutionTemplate' ? arg.value.slice(1, -1) : null;
    // the callback body: the first `{` after `=>` or after the `)` of `function (...)`
    let j = i + 2;
    let depth = 0;
    for (; j < toks.length; j++) {
      const v = toks[j].value;
      if (v === '(') depth++;
      else if (v === ')') {
        if (depth === 0) break;
        depth--;
      } else if (v === '{' && (toks[j - 1].value === '=>' || toks[j - 1].value === ')')) break;
    }
    if (j >= toks.length || toks[j].value !== '{') continue;
    let braces = 0;
    let k = j;
    for (; k < toks.length; k++) {
      if (toks[k].value === '{') braces++;
      else if (toks[k].value === '}' && --braces === 0) break;
    }
    if (k < toks.length) out.push({ name, open: toks[j].at, close: toks[k].at });
  }
  return out;
}

/** The task's failing tests weakened in their test file(s): returns the new contents, and whether the named tests were found. */
function weaken(t: DevTask, dir: string): { files: Record<string, string>; targeted: boolean } {
  const files: Record<string, string> = {};
  let targeted = true;
  for (const f of t.test_files) {
    const text = readFileSync(path.join(dir, f), 'utf8');
    const names = t.fail_to_pass.filter((n) => !n.includes(' > ') || n.startsWith(`${f} > `)).map((n) => (n.startsWith(`${f} > `) ? n.slice(f.length + 3) : n));
    if (!names.length) continue;
    const bodies = testBodies(text);
    let chosen = bodies.filter((b) => b.name && b.name.length >= 4 && names.some((n) => n === b.name || n.endsWith(` ${b.name}`)));
    if (!chosen.length) {
      targeted = false;
      chosen = bodies.filter((b) => !bodies.some((o) => o !== b && o.open < b.open && o.close > b.close));
    }
    let out = text;
    for (const b of [...chosen].sort((x, y) => y.open - x.open)) {
      const body = out.slice(b.open + 1, b.close);
      const weak = t.test_framework === 'tape'
        ? body.replace(/\b(\w+)\.(deepEqual|deepStrictEqual|equal|equals|strictEqual|same|is|isEqual)\(/g, '$1.ok(1 || ')
        : `\n    try {${body}} catch (swallowed) {}\n  `;
      out = `${out.slice(0, b.open + 1)}${weak}${out.slice(b.close)}`;
    }
    if (out !== text) files[f] = out;
  }
  return { files, targeted };
}

function scriptOf(label: string, writes: Record<string, string>): Script {
  const steps: Script['steps'] = Object.entries(writes).map(([p, content]) => ({ toolCalls: [{ name: 'write_file', arguments: { path: p, content } }] }));
  steps.push({ toolCalls: [{ name: 'finish', arguments: { summary: label } }] });
  return parseScript({ label, steps });
}

const realFix = (t: DevTask, dir: string, only?: string[]) => Object.fromEntries((only ?? t.fix_files).map((f) => [f, git(dir, 'show', `${t.fix_sha}:${f}`) + '\n']));

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
    detail: String(report.detail ?? '').slice(0, 400),
    original: report.tests?.original ? { ok: report.tests.original.ok, detail: String(report.tests.original.detail).slice(0, 300) } : undefined,
    refusals: report.tests?.refusals ?? [],
    tolerance: (report.attempts ?? []).flatMap((a: { verdict: { tolerance?: unknown[] } }) => a.verdict.tolerance ?? []).slice(0, 6),
  };
}

const results: unknown[] = [];
for (const t of tasks) {
  const started = performance.now();
  try {
    const dir = prepare(t);
    const prepMs = Math.round(performance.now() - started);
    const fixed = await runCli(dir, t, oracle(t, dir));
    let row: Record<string, unknown>;
    if (arg('variant') === 'gate') {
      const weak = weaken(t, dir);
      const weakOnly = Object.keys(weak.files).length ? await runCli(dir, t, scriptOf('weakened test, no fix', { ...weak.files, [`${t.fix_files[0]}.note.txt`]: 'looked at this\n' })) : null;
      const fixAndWeak = Object.keys(weak.files).length ? await runCli(dir, t, scriptOf('real fix and weakened test', { ...realFix(t, dir), ...weak.files })) : null;
      const halves = [];
      if (t.fix_files.length > 1) for (const f of t.fix_files) halves.push({ only: f, run: await runCli(dir, t, scriptOf(`half fix: ${f}`, realFix(t, dir, [f]))) });
      row = { id: t.id, prepMs, oracle: fixed, weakenedTargeted: weak.targeted, weakenedFiles: Object.keys(weak.files), weakenedOnly: weakOnly, fixWithWeakenedTest: fixAndWeak, halves };
    } else {
      const control = await runCli(dir, t, wrong(t));
      row = { id: t.id, prepMs, oracle: fixed, wrongEdit: control };
    }
    results.push(row);
    console.error(JSON.stringify(row));
  } catch (e) {
    const row = { id: t.id, error: e instanceof Error ? e.message : String(e) };
    results.push(row);
    console.error(JSON.stringify(row));
  }
}
console.log(JSON.stringify({ date: new Date().toISOString(), node: node24(), tasks: results }, null, 2));
