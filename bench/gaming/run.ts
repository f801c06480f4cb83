/**
 * The gaming benchmark (issue 28): every case of `corpus.ts` written as a small project in a
 * temporary directory, its real test command run on the buggy source (it must fail) and on the
 * changed source (it must pass: the positive control that the change really turns the tests
 * green), and the detector run on the change. Prints one line per case and the counts; the raw
 * results go to `bench/results/gaming.json`.
 *
 *   node scripts/run-ts.mjs bench/gaming/run.ts [--only id,id] [--no-run]
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { COMMANDS, CORPUS, detectCase, type CorpusCase } from './corpus.js';
import { arg } from '../dev-task.js';

const root = process.cwd();
const only = arg('only')?.split(',');
const runTests = !process.argv.includes('--no-run');

function write(dir: string, files: Record<string, string>): void {
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, p)), { recursive: true });
    writeFileSync(path.join(dir, p), text);
  }
}

function run(dir: string, command: string): { exit: number | null; ms: number; tail: string } {
  const t0 = Date.now();
  // the runners set these themselves (jest sets NODE_ENV only when it is not set at all)
  const env: NodeJS.ProcessEnv = { ...process.env, CI: '1', FORCE_COLOR: '0' };
  for (const k of ['NODE_ENV', 'JEST_WORKER_ID', 'VITEST', 'PYTEST_CURRENT_TEST', 'NODE_TEST_CONTEXT']) delete env[k];
  const r = spawnSync('bash', ['-c', command], { cwd: dir, encoding: 'utf8', timeout: 120_000, env });
  return { exit: r.status, ms: Date.now() - t0, tail: `${r.stdout ?? ''}${r.stderr ?? ''}`.slice(-600) };
}

/** The case's project before and after the change, under its real test command. */
function control(c: CorpusCase): { before: number | null; after: number | null; tail: string } {
  const dir = mkdtempSync(path.join(os.tmpdir(), `gaming-${c.id}-`));
  try {
    if (!['pytest', 'unittest'].includes(c.framework)) symlinkSync(path.join(root, 'node_modules'), path.join(dir, 'node_modules'));
    write(dir, { ...c.files, [c.source.path]: c.source.before });
    const before = run(dir, COMMANDS[c.framework]);
    write(dir, { [c.source.path]: c.source.after });
    const after = run(dir, COMMANDS[c.framework]);
    return { before: before.exit, after: after.exit, tail: after.exit === 0 ? '' : after.tail };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const rows: Record<string, unknown>[] = [];
let gaming = 0;
let flagged = 0;
let real = 0;
let falseFlags = 0;
let greenControls = 0;
let redBefore = 0;
for (const c of CORPUS) {
  if (only && !only.includes(c.id)) continue;
  const found = await detectCase(c);
  const ctl = runTests ? control(c) : null;
  const hit = c.expect ? found.some((f) => f.kind === c.expect) : found.length > 0;
  if (c.expect) {
    gaming++;
    if (hit) flagged++;
  } else {
    real++;
    if (hit) falseFlags++;
  }
  if (ctl?.after === 0) greenControls++;
  if (ctl && ctl.before !== 0) redBefore++;
  const ok = (c.expect ? hit : !hit) && (!ctl || (ctl.before !== 0 && ctl.after === 0));
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${c.id.padEnd(34)} ${c.framework.padEnd(9)} ${(c.expect ?? 'real fix').padEnd(24)} tests before/after: ${ctl ? `${ctl.before}/${ctl.after}` : 'not run'}  found: ${found.map((f) => f.kind).join(', ') || 'nothing'}`);
  if (ctl?.tail) console.log(ctl.tail.replace(/^/gm, '      '));
  rows.push({ id: c.id, framework: c.framework, expect: c.expect, found: found.map((f) => ({ kind: f.kind, line: f.line, code: f.code })), testsBefore: ctl?.before ?? null, testsAfter: ctl?.after ?? null });
}
const total = rows.length;
const summary = { date: new Date().toISOString(), node: process.version, nproc: os.cpus().length, cases: total, gaming, gamingFlagged: flagged, realFixes: real, realFixesFlagged: falseFlags, testsRedBefore: runTests ? redBefore : null, testsGreenAfter: runTests ? greenControls : null };
console.log(`\ngaming changes flagged: ${flagged}/${gaming}; real fixes flagged: ${falseFlags}/${real}${runTests ? `; tests failing before the change: ${redBefore}/${total}; passing after it (positive control): ${greenControls}/${total}` : ''}`);
mkdirSync(path.join(root, 'bench', 'results'), { recursive: true });
writeFileSync(path.join(root, 'bench', 'results', 'gaming.json'), `${JSON.stringify({ summary, rows }, null, 2)}\n`);
process.exitCode = flagged === gaming && falseFlags === 0 && (!runTests || (greenControls === total && redBefore === total)) ? 0 : 1;
