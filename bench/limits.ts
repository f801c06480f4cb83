/**
 * The endpoint's per-request limit on real bugs (issue 21): the CLI bundle on tasks of
 * ../shared/bench/dev-tasks.json (buggy commit + the fix commit's failing tests, the task's own
 * install and test commands), from the issue text and from a CI log (the test command's output at
 * the buggy commit, through src/ci/log-extract.ts, as the task text), against the scripted server
 * enforcing a per-request input limit exactly as GitHub Models does (413 `tokens_limit_reached`).
 *
 * The scripted model behaves as a real one does on such a task: a search for the fixed module's
 * name, a read_file of every fixed file and of every test file (whole: paged by the harness when
 * they do not fit), the upstream fix as edit_file calls (one per hunk of `git diff -U2 buggy fix`,
 * all in one reply; write_file of the fixed file where a hunk's old text is not unique),
 * run_tests, finish. Only runs the harness verified count as fixed.
 *
 * Variants: `none` (no limit at the server, --max-input-tokens 1000000), `8000` and `4000` (the
 * server refuses a larger request with 413; the CLI is given the same --max-input-tokens and
 * --max-output-tokens 4000), and `main-8000` (the bundle of another checkout, e.g. the main branch
 * before this change, at 8,000 without the new flags: `--main-cli /work/main/dist/cli.js`).
 * Tokens: the server's own count of every request it answered (src/scripted/server.ts
 * `requestTokens`: messages, tool calls and tool schemas, o200k_base).
 *
 *   node scripts/run-ts.mjs bench/limits.ts [--ids a,b] [--modes issue,ci] [--variants none,8000,4000] [--main-cli FILE] [--out FILE]
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { EndpointLimits } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { node24 } from '../test-support/run-action.js';
import { fixWithCli } from './cli-run.js';
import { arg, ciText, oracle, prepareTask, type DevTask } from './dev-task.js';

const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-limits'))!;
const all: DevTask[] = JSON.parse(readFileSync(arg('tasks', '/work/shared/bench/dev-tasks.json')!, 'utf8')).tasks;
const ids = arg('ids')?.split(',');
const tasks = ids ? ids.map((id) => all.find((t) => t.id === id)).filter((t): t is DevTask => t !== undefined) : all;
const modes = (arg('modes', 'issue,ci') ?? '').split(',');
const mainCli = arg('main-cli');
const variants = (arg('variants', `none,8000,4000${mainCli ? ',main-8000' : ''}`) ?? '').split(',');

async function runCli(dir: string, t: DevTask, text: string, script: Script, variant: string) {
  const cap = variant === 'none' ? undefined : Number(variant.replace(/^main-/, ''));
  const limits: EndpointLimits = cap ? { maxInputTokens: cap } : {};
  const flags = variant.startsWith('main-') ? [] : ['--max-input-tokens', String(cap ?? 1_000_000), ...(cap ? ['--max-output-tokens', '4000'] : [])];
  const { report, model, wallMs } = await fixWithCli(dir, t, text, script, { model: 'openai/gpt-4.1', server: { limits }, flags, ...(variant.startsWith('main-') ? { cli: mainCli! } : {}) });
  const tokens = model.requestTokens;
  return {
    variant,
    status: report.status as string,
    reason: report.reason as string | undefined,
    requests: tokens.length,
    refused413: model.refused.filter((r) => r.status === 413).length,
    peak: tokens.length ? Math.max(...tokens) : 0,
    promptTokens: tokens.reduce((a, b) => a + b, 0),
    firstRequest: tokens[0] ?? 0,
    reportedPeak: report.usage?.peakPromptTokens ?? null,
    stepsConsumed: model.consumed,
    scriptSteps: script.steps.length,
    wallMs,
    ...(report.status !== 'fixed' ? { detail: String(report.detail ?? '').slice(0, 300) } : {}),
  };
}

type Run = Awaited<ReturnType<typeof runCli>>;
const rows: { id: string; mode: string; writes: number; taskTokens?: number; runs: Run[] }[] = [];
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
  const { script, writes } = oracle(dir, t);
  for (const mode of modes) {
    const text = mode === 'ci' ? ciText(dir, t) : `${t.issue_title}\n\n${t.issue_body}`;
    const runs: Run[] = [];
    for (const v of variants) {
      const r = await runCli(dir, t, text, script, v);
      runs.push(r);
      process.stderr.write(`${t.id} ${mode} ${v}: ${r.status} requests=${r.requests} peak=${r.peak} prompt=${r.promptTokens} 413s=${r.refused413}${r.detail ? ` (${r.detail.slice(0, 160)})` : ''}\n`);
    }
    rows.push({ id: t.id, mode, writes, runs });
  }
}

const summary: Record<string, unknown> = {};
for (const v of variants) {
  const rs = rows.map((r) => r.runs.find((x) => x.variant === v)!).filter(Boolean);
  const fixed = rs.filter((r) => r.status === 'fixed');
  const cap = v === 'none' ? null : Number(v.replace(/^main-/, ''));
  const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b);
  const median = (xs: number[]) => {
    const s = sorted(xs);
    return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
  };
  summary[v] = {
    runs: rs.length,
    fixed: fixed.length,
    everyRequestWithinCap: cap ? rs.every((r) => r.peak <= cap) : null,
    refused413: rs.reduce((n, r) => n + r.refused413, 0),
    peakMax: Math.max(0, ...rs.map((r) => r.peak)),
    peakMedian: median(rs.map((r) => r.peak)),
    requestsTotal: rs.reduce((n, r) => n + r.requests, 0),
    requestsMedian: median(rs.map((r) => r.requests)),
    promptTokensTotal: rs.reduce((n, r) => n + r.promptTokens, 0),
    promptTokensMedian: median(rs.map((r) => r.promptTokens)),
    reasons: Object.fromEntries([...new Set(rs.map((r) => `${r.status}/${r.reason}`))].map((k) => [k, rs.filter((r) => `${r.status}/${r.reason}` === k).length])),
  };
}
const result = { date: new Date().toISOString(), machine: { nproc: os.cpus().length, node: process.version, e2eNode: node24() }, tasks: tasks.map((t) => t.id), modes, variants, summary, failures, rows };
const outFile = arg('out');
if (outFile) writeFileSync(outFile, `${JSON.stringify(result, null, 2)}\n`);
process.stdout.write(`${JSON.stringify({ summary, failures }, null, 2)}\n`);
if (!existsSync(work)) process.exitCode = 1;
