/**
 * Repository map build time and memory on a large checkout: a cold build (empty cache: every
 * file parsed) and a cached build (same commit: nothing parsed), each in a fresh process, with
 * its wall time, CPU time (user + system: what the build costs on a core of its own, the
 * machine being shared) and peak RSS (`process.resourceUsage().maxRSS`).
 *
 *   node scripts/run-ts.mjs bench/localization-map.ts --repo /tmp/prettier [--runs 3] [--workers N] [--out bench/results/localization-map.json]
 * One run = one process: `--child cold|cached` is the measured step. The parser threads are those
 * of the bundle (dist/map-worker.js, so run `npm run build` first); `--workers 0` parses in one thread,
 * the default is what the action uses (the available parallelism, at most 4).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRepoMap } from '../src/context/map.js';

const arg = (name: string, dflt?: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const repo = arg('repo');
if (!repo) throw new Error('--repo <checkout> is required');
const child = arg('child');

if (child) {
  const started = performance.now();
  const cpu0 = process.cpuUsage();
  const workerScript = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'dist', 'map-worker.js');
  const workers = arg('workers');
  const map = await buildRepoMap(repo, { cacheDir: arg('cache')!, workerScript, ...(workers !== undefined ? { workers: Number(workers) } : {}) });
  const ms = performance.now() - started;
  const cpu = process.cpuUsage(cpu0);
  const defs = map.files.reduce((n, f) => n + f.defs.length, 0);
  process.stdout.write(JSON.stringify({ step: child, workers: workers ?? 'default', ms: Math.round(ms), cpuMs: Math.round((cpu.user + cpu.system) / 1000), load: os.loadavg()[0], maxRssMB: Math.round(process.resourceUsage().maxRSS / 1024), stats: map.stats, defs }));
} else {
  const runs = Number(arg('runs', '3'));
  const script = process.argv[1];
  const results: unknown[] = [];
  for (let i = 0; i < runs; i++) {
    const cache = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-map-bench-'));
    for (const step of ['cold', 'cached']) {
      // the bundled entry of run-ts, run again as a child with the same arguments
      const outText = execFileSync(process.execPath, [script.endsWith('.ts') ? path.join(path.dirname(process.argv[1]), '..', 'scripts', 'run-ts.mjs') : script, ...(script.endsWith('.ts') ? [script] : []), '--repo', repo, '--child', step, '--cache', cache, ...(arg('workers') !== undefined ? ['--workers', arg('workers')!] : [])], { encoding: 'utf8', maxBuffer: 16 << 20 });
      const r = JSON.parse(outText);
      results.push({ run: i + 1, ...r });
      process.stderr.write(`${JSON.stringify(r)}\n`);
    }
    rmSync(cache, { recursive: true, force: true });
  }
  const files = Number(execFileSync('git', ['ls-files'], { cwd: repo, encoding: 'utf8', maxBuffer: 64 << 20 }).split('\n').filter(Boolean).length);
  const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
  const out = { date: new Date().toISOString(), machine: { nproc: os.cpus().length, node: process.version }, repo, head, trackedFiles: files, results };
  if (arg('out')) writeFileSync(arg('out')!, JSON.stringify(out, null, 2));
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
}
