/**
 * The dialects of "OpenAI-compatible" on real bugs (issue 29): the CLI bundle on tasks of
 * ../shared/bench/dev-tasks.json, from the issue text and from a CI log, against the scripted
 * server speaking each dialect (src/scripted/dialects.ts), with the oracle session of
 * bench/limits.ts (search, read the fixed and the test files, the upstream fix in one reply,
 * run_tests, finish). `github-models` runs under its 8,000-token cap (the server refuses a larger
 * request with 413; the CLI is given --max-input-tokens 8000 --max-output-tokens 4000); every
 * other dialect without a window (--max-input-tokens 1000000). Per run: whether the harness
 * verified the fix, the requests the server answered and refused (and why), and the server's own
 * count of the prompt tokens.
 *
 *   node scripts/run-ts.mjs bench/dialects.ts [--ids a,b] [--modes issue,ci] [--dialects plain,deepseek,...] [--out FILE]
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Script } from '../src/scripted/script.js';
import { DIALECTS, isDialect, type Dialect } from '../src/scripted/dialects.js';
import { node24 } from '../test-support/run-action.js';
import { fixWithCli } from './cli-run.js';
import { arg, ciText, oracle, prepareTask, type DevTask } from './dev-task.js';

const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-dialects'))!;
const all: DevTask[] = JSON.parse(readFileSync(arg('tasks', '/work/shared/bench/dev-tasks.json')!, 'utf8')).tasks;
const ids = arg('ids')?.split(',');
const tasks = ids ? ids.map((id) => all.find((t) => t.id === id)).filter((t): t is DevTask => t !== undefined) : all;
const modes = (arg('modes', 'issue,ci') ?? '').split(',');
const dialects = (arg('dialects', DIALECTS.join(',')) ?? '').split(',').filter(isDialect);
// `--setup-in-run` (issue 27): the CI log is taken on an installed checkout, as the failing job did;
// then the checkout is cleaned (node_modules too) and the task's install command is the run's own
// setup, in the sandbox
const setupInRun = process.argv.includes('--setup-in-run');

async function runCli(dir: string, t: DevTask, text: string, script: Script, dialect: Dialect) {
  const capped = dialect === 'github-models';
  const flags = capped ? ['--max-input-tokens', '8000', '--max-output-tokens', '4000'] : ['--max-input-tokens', '1000000'];
  const { report, model, wallMs } = await fixWithCli(dir, t, text, script, {
    model: 'scripted',
    server: { dialect, limits: capped ? { maxInputTokens: 8000 } : {} },
    flags: [...flags, ...(setupInRun ? ['--setup-command', t.install_command] : [])],
  });
  const tokens = model.requestTokens;
  return {
    dialect,
    status: report.status as string,
    reason: report.reason as string | undefined,
    requests: tokens.length,
    refused: model.refused.map((r) => `${r.status} ${r.why}`),
    truncated: model.truncated.length,
    peak: tokens.length ? Math.max(...tokens) : 0,
    promptTokens: tokens.reduce((a, b) => a + b, 0),
    stepsConsumed: model.consumed,
    scriptSteps: script.steps.length,
    wallMs,
    ...(report.status !== 'fixed' ? { detail: String(report.detail ?? '').slice(0, 300) } : {}),
  };
}

type Run = Awaited<ReturnType<typeof runCli>>;
const rows: { id: string; mode: string; runs: Run[] }[] = [];
const failures: { id: string; error: string }[] = [];
for (const t of tasks) {
  let dir: string;
  try {
    process.stderr.write(`${t.id}: preparing\n`);
    dir = prepareTask(t, mirrors, work);
  } catch (e) {
    failures.push({ id: t.id, error: e instanceof Error ? e.message.slice(0, 300) : String(e) });
    continue;
  }
  const { script } = oracle(dir, t);
  for (const mode of modes) {
    const text = mode === 'ci' ? ciText(dir, t) : `${t.issue_title}\n\n${t.issue_body}`;
    if (setupInRun) execFileSync('git', ['clean', '-q', '-fdx'], { cwd: dir });
    const runs: Run[] = [];
    for (const d of dialects) {
      const r = await runCli(dir, t, text, script, d);
      runs.push(r);
      process.stderr.write(`${t.id} ${mode} ${d}: ${r.status} requests=${r.requests} refused=[${r.refused.join(', ')}] prompt=${r.promptTokens} peak=${r.peak}${r.detail ? ` (${r.detail.slice(0, 160)})` : ''}\n`);
    }
    rows.push({ id: t.id, mode, runs });
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};
const summary: Record<string, unknown> = {};
for (const d of dialects) {
  const rs = rows.map((r) => r.runs.find((x) => x.dialect === d)!).filter(Boolean);
  summary[d] = {
    runs: rs.length,
    fixed: rs.filter((r) => r.status === 'fixed').length,
    requestsTotal: rs.reduce((n, r) => n + r.requests, 0),
    refusedTotal: rs.reduce((n, r) => n + r.refused.length, 0),
    promptTokensTotal: rs.reduce((n, r) => n + r.promptTokens, 0),
    promptTokensMedian: median(rs.map((r) => r.promptTokens)),
    peakMax: Math.max(0, ...rs.map((r) => r.peak)),
    wallMsMedian: median(rs.map((r) => r.wallMs)),
    reasons: Object.fromEntries([...new Set(rs.map((r) => `${r.status}/${r.reason}`))].map((k) => [k, rs.filter((r) => `${r.status}/${r.reason}` === k).length])),
  };
}
const result = { date: new Date().toISOString(), machine: { nproc: os.cpus().length, node: process.version, e2eNode: node24() }, tasks: tasks.map((t) => t.id), modes, dialects, summary, failures, rows };
const outFile = arg('out');
if (outFile) writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify({ summary, failures }, null, 2)}\n`);
