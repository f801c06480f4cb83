/**
 * Benchmark: the model's `search` tool on a pathological regular expression and on ordinary ones.
 *   node scripts/run-ts.mjs bench/search-regex.ts [--label after] [--max-n 26]   (--max-n 100000 for a linear engine; a backtracking one needs hours past ~45) [--runs 3]
 * Prints JSON (and writes bench/results/search-regex-<label>.json):
 * - pathological: the pattern "(a+)+$" on a file whose only line is n × "a" followed by "!"
 *   (no match; a backtracking engine tries every way to split the a's). For each n, the median
 *   wall time of ToolBox.execute('search') and the longest event-loop stall seen meanwhile
 *   (perf_hooks.monitorEventLoopDelay, 1 ms resolution): the stall is how long the process,
 *   including its timers and signal handlers, could not do anything else;
 * - ordinary: three everyday patterns over this repository's src/ and __tests__/ (real files),
 *   median wall time, so a linear-time engine's cost on normal searches is visible too.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { ToolBox } from '../src/agent/tools.js';
import { ROOT } from '../test-support/run-action.js';

const flag = (name: string, d: string) => (process.argv.includes(name) ? process.argv[process.argv.indexOf(name) + 1] : d);
const label = flag('--label', 'current');
const maxN = Number(flag("--max-n", "26"));
const runs = Number(flag('--runs', '3'));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function timed(box: ToolBox, args: object): Promise<{ ms: number; stallMs: number; content: string }> {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  const t0 = performance.now();
  const r = await box.execute('search', JSON.stringify(args));
  const ms = performance.now() - t0;
  await new Promise((res) => setTimeout(res, 5)); // let the histogram record the last stall
  h.disable();
  return { ms, stallMs: h.max / 1e6, content: r.content };
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-search-bench-'));
const pathological: { n: number; medianMs: number; maxStallMs: number; rawMs: number[]; result: string }[] = [];
try {
  const sizes = [16, 18, 20, 22, 24, 25, 26, 27, 28, 32, 64, 1000, 100_000].filter((n) => n <= maxN);
  for (const n of sizes) {
    const sub = path.join(dir, `n${n}`);
    mkdirSync(sub);
    writeFileSync(path.join(sub, 'line.txt'), `${'a'.repeat(n)}!\n`);
    const box = new ToolBox({ root: sub, listFiles: async () => ['line.txt'], protectedPaths: [] });
    const raw: number[] = [];
    const stalls: number[] = [];
    let result = '';
    for (let i = 0; i < runs; i++) {
      const r = await timed(box, { pattern: '(a+)+$' });
      raw.push(Math.round(r.ms * 100) / 100);
      stalls.push(Math.round(r.stallMs * 100) / 100);
      result = r.content.split('\n')[0].slice(0, 120);
    }
    pathological.push({ n, medianMs: median(raw), maxStallMs: Math.max(...stalls), rawMs: raw, result });
    console.error(`n=${n}: median ${median(raw)} ms, stall ${Math.max(...stalls)} ms`);
  }

  const files = ['src', '__tests__']
    .flatMap((d) => readdirSync(path.join(ROOT, d), { recursive: true, encoding: 'utf8' }).map((f) => `${d}/${f}`))
    .filter((f) => /\.(ts|js|json)$/.test(f));
  const box = new ToolBox({ root: ROOT, listFiles: async () => files, protectedPaths: [] });
  const ordinary: { pattern: string; medianMs: number; rawMs: number[]; result: string }[] = [];
  for (const pattern of ['parseConfig', 'function\\s+\\w+Error\\(', 'await\\s+\\w+\\.execute\\(\'search\'']) {
    const raw: number[] = [];
    let result = '';
    for (let i = 0; i < runs; i++) {
      const r = await timed(box, { pattern });
      raw.push(Math.round(r.ms * 100) / 100);
      result = r.content.split('\n')[0].slice(0, 120);
    }
    ordinary.push({ pattern, medianMs: median(raw), rawMs: raw, result });
  }
  const out = {
    label,
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    files: files.length,
    pattern: '(a+)+$',
    pathological,
    ordinary,
  };
  const text = JSON.stringify(out, null, 2);
  writeFileSync(path.join(ROOT, 'bench/results', `search-regex-${label}.json`), `${text}\n`);
  console.log(text);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
