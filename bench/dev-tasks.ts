/**
 * Trial on real bugs of public repositories (../shared/bench/dev-tasks.json): for each task the
 * CLI bundle runs the whole loop on the buggy commit, with the task's own install and test
 * commands (the failing test taken from the fix commit), against a scripted "oracle" model that writes the real upstream fix (from fix_sha),
 * and — as a control — against a scripted model that makes a plausible but wrong edit.
 * What it shows: the harness reproduces the failure at baseline, parses the failing tests of a
 * real runner, accepts the real fix only through its own test run, and refuses a wrong one.
 * It does NOT measure a real model's ability to find fixes (no model is reachable here).
 *
 *   node scripts/run-ts.mjs bench/dev-tasks.ts --mirrors /work/.mirror [--ids a,b] [--work DIR] [--variant gate|no-test] [--replays real,weak-fix,weak,buggy,vacuous-extra] [--tasks FILE] [--cli dist/cli.js of another build]
 * Mirrors: a directory with `<owner>+<name>/repo` git directories (bare clones with history).
 *
 * `--variant no-test` (issue 23) replays the task as an issue with no failing test: the checkout
 * at the buggy commit WITHOUT the upstream test change; the oracle writes the test change and the
 * fix (must be verified, changed expectations listed); the same test change weakened, with and
 * without the fix, and set to the buggy output (expected values replaced by what the buggy code
 * gives, generated at run time from the failures), without the fix: each must be refused.
 * `--replays …,vacuous-extra` adds the real fix and test change plus one more new test that asserts
 * nothing (a swallowing try/catch, a constant): accepted, with that test named as not evidence.
 *
 * `--setup-in-run` (issue 27): the checkout is not installed beforehand; the task's install command
 * is the run's `--setup-command`, so setup, baseline, fix and verdict all run end to end in the
 * sandbox (`--sandbox off` runs the same without it, for comparison).
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
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import jsTokens from 'js-tokens';
import { startScriptedModel } from '../src/scripted/server.js';
import { parseScript, type Script } from '../src/scripted/script.js';
import { node24, ROOT } from '../test-support/run-action.js';
import { arg, writesScript, benchGit, prepareTask, type DevTask } from './dev-task.js';


const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-dev-tasks'))!;
// ../shared/bench/dev-tasks.json next to the checkout (a worktree: --tasks FILE)
const all: DevTask[] = JSON.parse(readFileSync(arg('tasks', path.join(ROOT, '..', 'shared', 'bench', 'dev-tasks.json'))!, 'utf8')).tasks;
const ids = arg('ids')?.split(',');
// in the order given (a long run on a busy machine gets every runner early)
const tasks = ids ? ids.map((id) => all.find((t) => t.id === id)).filter((t): t is DevTask => t !== undefined) : all;

const git = benchGit;
const setupInRun = process.argv.includes('--setup-in-run');
const sandboxOff = arg('sandbox') === 'off';

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
function weaken(t: DevTask, dir: string, read: (f: string) => string = (f) => readFileSync(path.join(dir, f), 'utf8')): { files: Record<string, string>; targeted: boolean } {
  const files: Record<string, string> = {};
  let targeted = true;
  for (const f of t.test_files) {
    const text = read(f);
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

/** The upstream test change of the task: its test files as in the fix commit. */
const fixTests = (t: DevTask, dir: string): Record<string, string> => Object.fromEntries(t.test_files.map((f) => [f, git(dir, 'show', `${t.fix_sha}:${f}`) + '\n']));

/**
 * The upstream test change with each failing assertion's expected value set to what the buggy
 * code gives: the test change run on the buggy code once (jest/vitest JSON, or tape's TAP), and
 * on each failure's line (from its stack) the expected literal replaced by the received one.
 * Null when no failure names a line and two scalar values.
 */
function buggyOutput(t: DevTask, dir: string): { files: Record<string, string>; replaced: number } | null {
  const tests = fixTests(t, dir);
  const lines = new Map(Object.entries(tests).map(([f, text]) => [f, text.split('\n')]));
  for (const [f, text] of Object.entries(tests)) writeFileSync(path.join(dir, f), text);
  let out = '';
  try {
    out = execFileSync('bash', ['-c', `${t.test_command} 2>&1; true`], { cwd: dir, encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, CI: 'true' } });
    const json = path.join(dir, '.jest-result.json');
    if (existsSync(json)) {
      out += '\n' + JSON.parse(readFileSync(json, 'utf8')).testResults.flatMap((r: { assertionResults: { failureMessages?: string[] }[] }) => r.assertionResults.flatMap((a) => a.failureMessages ?? [])).join('\n');
      if (!git(dir, 'ls-files', '.jest-result.json')) rmSync(json);
    }
  } finally {
    git(dir, 'checkout', '-q', '--', '.');
    git(dir, 'clean', '-qfd', '--', ...t.test_files.map((f) => path.dirname(f)));
  }
  const plain = out.replace(/\u001b\[[0-9;]*m/g, '');
  const strip = (v: string) => v.trim().replace(/^(['"])(.*)\1$/, '$2');
  let replaced = 0;
  // each failure's expected and received values, and its line: the first frame in a test file after the message
  const patterns: [RegExp, number, number][] = [
    [/Expected[^:\n]*:\s*(.+)\n\s*Received[^:\n]*:\s*(.+)/g, 1, 2], // jest
    [/expected:\s*(.+)\n\s*actual:\s*(.+)/g, 1, 2], // tape's YAML block
    [/expected (.+?) to (?:be|equal|deeply equal|strictly equal|eql) (.+?)(?: \/\/[^\n]*)?$/gm, 2, 1], // vitest, chai
  ];
  const pairs: { expected: string; received: string; file: string; line: number }[] = [];
  for (const [re, e, r] of patterns) {
    for (const m of plain.matchAll(re)) {
      const rest = plain.slice(m.index ?? 0, (m.index ?? 0) + 4000);
      const at = t.test_files
        .map((f) => ({ f, m: new RegExp(`${f.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}:(\\d+):\\d+`).exec(rest) }))
        .filter((x) => x.m)
        .sort((a, b) => (a.m!.index ?? 0) - (b.m!.index ?? 0))[0];
      if (at) pairs.push({ expected: m[e], received: m[r], file: at.f, line: Number(at.m![1]) });
    }
  }
  for (const p of pairs) {
    const f = t.test_files.find((x) => p.file.endsWith(x));
    const src = f ? lines.get(f) : undefined;
    if (!f || !src) continue;
    const e = strip(p.expected);
    const r = strip(p.received);
    if (!e || e === r || /^[[{]$/.test(e)) continue;
    // the assertion may span lines: the failure's line and the next few
    for (let i = p.line - 1; i < Math.min(src.length, p.line + 4); i++) {
      if (src[i].includes(e)) {
        src[i] = src[i].replace(e, r);
        replaced++;
        break;
      }
    }
  }
  if (!replaced) return null;
  return { files: Object.fromEntries([...lines].map(([f, l]) => [f, l.join('\n')])), replaced };
}

/**
 * The upstream test change with one more new test that asserts nothing, next to the real ones:
 * jest/vitest, a copy of the first test of the first test file under a new name with its body in
 * a try/catch that swallows; tape, a new top-level test whose assertion is a constant.
 */
function vacuousExtra(t: DevTask, dir: string): Record<string, string> | null {
  const f = t.test_files[0];
  const text = fixTests(t, dir)[f];
  if (!text) return null;
  if (t.test_framework === 'tape') {
    const name = /^\s*var\s+(\w+)\s*=\s*require\(['"]tape['"]\)/m.exec(text)?.[1];
    return name ? { [f]: `${text}\n${name}('agent-fix bench: extra check', function (t) {\n    t.ok(1 || t, 'works');\n    t.end();\n});\n` } : null;
  }
  const first = testBodies(text).find((b) => b.name);
  if (!first) return null;
  return { [f]: `${text}\nit('agent-fix bench: extra check', () => {\n  try {${text.slice(first.open + 1, first.close)}} catch (swallowed) {}\n})\n` };
}

const realFix = (t: DevTask, dir: string, only?: string[]) => Object.fromEntries((only ?? t.fix_files).map((f) => [f, git(dir, 'show', `${t.fix_sha}:${f}`) + '\n']));

async function runCli(dir: string, t: DevTask, script: Script) {
  const model = await startScriptedModel(script);
  const t0 = performance.now();
  const setup = setupInRun ? ['--setup-command', t.install_command] : [];
  const child = spawn(node24(), [arg('cli', path.join(ROOT, 'dist', 'cli.js'))!, 'fix', `${t.issue_title}\n\n${t.issue_body}`, '--repo', dir, '--test-command', t.test_command, ...setup, '--base-url', model.url, '--model', 'scripted-oracle', '--max-iterations', '1', '--json'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'bench-key-123456', ...(sandboxOff ? { AGENT_FIX_SANDBOX: 'off' } : {}) },
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
  // `--dump DIR`: each run's whole JSON report (attempts, refusals, the judge's messages) for a closer look
  const dump = arg('dump');
  if (dump) writeFileSync(path.join(dump, `${t.id}-${(script.label ?? 'run').replace(/[^\w]+/g, '-')}.json`), out);
  const failingBefore: string[] = (report.baseline?.tests ?? []).filter((x: { status: string }) => x.status === 'failed').map((x: { id: string }) => x.id);
  // runners and the data set join suite and test names differently (' > ', ' ', '›'): compare letters only
  const norm = (s: string) => s.replace(/[\s>›]+/g, '');
  const found = t.fail_to_pass.filter((name) => failingBefore.some((id) => norm(id).endsWith(norm(name.includes(' > ') && /\.[jt]s > /.test(name) ? name.slice(name.indexOf(' > ') + 3) : name))));
  return {
    code,
    wallMs: Math.round(wallMs),
    sandbox: String(report.safety?.sandbox ?? report.sandbox ?? '').slice(0, 120),
    status: report.status,
    reason: report.reason,
    baseline: { exit: report.baseline?.exitCode, ...report.baseline?.counts, parsedFrom: report.baseline?.parsedFrom, ms: Math.round(report.baseline?.durationMs ?? 0) },
    final: report.final ? { exit: report.final.exitCode, ...report.final.counts, ms: Math.round(report.final.durationMs) } : null,
    failToPassSeenFailingAtBaseline: `${found.length}/${t.fail_to_pass.length}`,
    failingAtBaseline: failingBefore.slice(0, 10),
    changed: (report.changes ?? []).map((c: { path: string }) => c.path),
    detail: String(report.detail ?? '').slice(0, 400),
    original: report.tests?.original ? { ok: report.tests.original.ok, detail: String(report.tests.original.detail).slice(0, 300) } : undefined,
    changedExpectations: report.tests?.original?.changedExpectations ?? [],
    proof: report.tests?.proof ? { status: report.tests.proof.status, detail: String(report.tests.proof.detail).slice(0, 200) } : undefined,
    refusals: report.tests?.refusals ?? [],
    tolerance: (report.attempts ?? []).flatMap((a: { verdict: { tolerance?: unknown[] } }) => a.verdict.tolerance ?? []).slice(0, 6),
  };
}

const results: unknown[] = [];
for (const t of tasks) {
  const started = performance.now();
  try {
    const noTest = arg('variant') === 'no-test';
    const dir = prepareTask(t, mirrors, work, !noTest, !setupInRun);
    const prepMs = Math.round(performance.now() - started);
    // `--replays real,weak-fix,weak,buggy,vacuous-extra` (no-test variant): which replays run (default the first four)
    const replays = (arg('replays') ?? 'real,weak-fix,weak,buggy').split(',');
    const fixed = noTest && !replays.includes('real') ? null : await runCli(dir, t, noTest ? writesScript(`upstream test change and fix ${t.fix_sha.slice(0, 8)}`, { ...fixTests(t, dir), ...realFix(t, dir) }) : oracle(t, dir));
    let row: Record<string, unknown>;
    if (noTest) {
      // the cheats of the same task: the upstream test change weakened, with and without the fix;
      // the upstream test change with its expected values set to what the buggy code gives, no fix
      const weak = weaken(t, dir, (f) => fixTests(t, dir)[f] ?? '');
      const note = { [`${t.fix_files[0]}.note.txt`]: 'looked at this\n' };
      const fixAndWeak = Object.keys(weak.files).length && replays.includes('weak-fix') ? await runCli(dir, t, writesScript('real fix and weakened test', { ...fixTests(t, dir), ...weak.files, ...realFix(t, dir) })) : null;
      const weakOnly = Object.keys(weak.files).length && replays.includes('weak') ? await runCli(dir, t, writesScript('weakened test, no fix', { ...fixTests(t, dir), ...weak.files, ...note })) : null;
      const buggy = replays.includes('buggy') ? buggyOutput(t, dir) : null;
      const buggyOnly = buggy ? await runCli(dir, t, writesScript('test set to the buggy output, no fix', { ...fixTests(t, dir), ...buggy.files, ...note })) : null;
      // the real fix and test change plus one more new test that asserts nothing (must be accepted, that test named as not evidence)
      const extra = replays.includes('vacuous-extra') ? vacuousExtra(t, dir) : null;
      const fixAndVacuous = extra ? await runCli(dir, t, writesScript('real fix and a vacuous extra test', { ...fixTests(t, dir), ...extra, ...realFix(t, dir) })) : null;
      row = { id: t.id, prepMs, oracle: fixed, weakenedTargeted: weak.targeted, fixWithWeakenedTest: fixAndWeak, weakenedOnly: weakOnly, buggyOutput: buggy ? { replaced: buggy.replaced, run: buggyOnly } : replays.includes('buggy') ? { notGenerated: true } : null, ...(extra ? { fixWithVacuousExtraTest: fixAndVacuous } : {}) };
    } else if (arg('variant') === 'gate') {
      const weak = weaken(t, dir);
      const weakOnly = Object.keys(weak.files).length ? await runCli(dir, t, writesScript('weakened test, no fix', { ...weak.files, [`${t.fix_files[0]}.note.txt`]: 'looked at this\n' })) : null;
      const fixAndWeak = Object.keys(weak.files).length && replays.includes('weak-fix') ? await runCli(dir, t, writesScript('real fix and weakened test', { ...realFix(t, dir), ...weak.files })) : null;
      const halves = [];
      if (t.fix_files.length > 1) for (const f of t.fix_files) halves.push({ only: f, run: await runCli(dir, t, writesScript(`half fix: ${f}`, realFix(t, dir, [f]))) });
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
