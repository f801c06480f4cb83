/**
 * Benchmark (CI repair): failure-context extraction from large GitHub Actions job logs.
 *   node scripts/run-ts.mjs bench/ci-log-extract.ts [--runs 5] [--mb 50]
 * Prints JSON: per log shape, the size, the median and raw wall times of extractFailure, the
 * estimated tokens of the context (3 characters per token), and whether every failing test
 * name in the log was kept.
 *
 * Log shapes (all with the runner's timestamp prefix on every line):
 * - typical: runner framing, 20k lines of dependency-install chatter, then a test suite printing
 *   passing tests (node:test spec lines) with 40 failing tests spread through it, each with an
 *   assertion message and a stack of repository and node-internal frames, then the summary;
 * - errors-everywhere: every line is a distinct error line (worst case for the block builder);
 * - long-lines: lines of 100,000 characters (worst case for per-line work);
 * - scaling: the typical shape at a tenth and half of the size, to show the time is linear.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { extractFailure } from '../src/ci/log-extract.js';
import { ROOT } from '../test-support/run-action.js';

const arg = (name: string, d: number) => (process.argv.includes(name) ? Number(process.argv[process.argv.indexOf(name) + 1]) : d);
const runs = arg('--runs', 5);
const MB = arg('--mb', 50);
const FAILING = 40;

let clock = Date.parse('2026-11-21T09:00:00Z');
const ts = () => `${new Date((clock += 3)).toISOString().replace(/\.(\d{3})Z$/, '.$10000Z')} `;

function typical(targetBytes: number): { log: string; failing: string[] } {
  const parts: string[] = [];
  let size = 0;
  const add = (line: string) => {
    const l = ts() + line;
    parts.push(l);
    size += l.length + 1;
  };
  for (const l of ['##[group]Run actions/checkout@v5', 'with:', '  fetch-depth: 1', '##[endgroup]', '##[group]Run npm ci', 'npm ci', 'shell: /usr/bin/bash -e {0}', '##[endgroup]']) add(l);
  for (let i = 0; i < 20_000; i++) add(`npm http fetch GET 200 https://registry.npmjs.org/package-${i % 997}/-/package-${i % 997}-1.${i % 13}.0.tgz ${i % 300}ms (cache miss)`);
  add('##[group]Run npm test');
  add('##[endgroup]');
  const failing: string[] = [];
  // the number of passing-test lines that makes the log reach the target size
  const passLine = '✔ module_000 > suite_000 > computes the expected value for input 000000 (0.123456ms)';
  const perFailure = 700;
  const passing = Math.max(0, Math.floor((targetBytes - size - FAILING * perFailure - 2000) / (passLine.length + 30)));
  const every = Math.floor(passing / (FAILING + 1));
  let f = 0;
  for (let i = 0; i < passing; i++) {
    add(`✔ module_${String(i % 1000).padStart(3, '0')} > suite_${String(i % 37).padStart(3, '0')} > computes the expected value for input ${String(i).padStart(6, '0')} (0.${(i * 7919) % 1000000}ms)`);
    if (every > 0 && i % every === every - 1 && f < FAILING) {
      const name = `billing > invoice ${f} > applies tax rule ${f * 3} to line items`;
      failing.push(name);
      add(`✖ ${name} (1.${f}ms)`);
      add(`  AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:`);
      add(`  ${1000 + f} !== ${1100 + f}`);
      add(`      at TestContext.<anonymous> (file:///home/runner/work/shop/shop/test/billing-${f}.test.js:${10 + f}:12)`);
      add(`      at applyTax (file:///home/runner/work/shop/shop/src/tax.js:${40 + f}:9)`);
      add(`      at Test.runInAsyncScope (node:async_hooks:214:14)`);
      add(`      at Test.run (node:internal/test_runner/test:1047:25)`);
      f++;
    }
  }
  add(`ℹ tests ${passing + f}`);
  add(`ℹ pass ${passing}`);
  add(`ℹ fail ${f}`);
  add('##[error]Process completed with exit code 1.');
  return { log: parts.join('\n'), failing };
}

function errorsEverywhere(targetBytes: number): { log: string; failing: string[] } {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    const l = `${ts()}TypeError: cannot read property p${i} of undefined in handler h${i % 5000}`;
    parts.push(l);
    size += l.length + 1;
  }
  return { log: parts.join('\n'), failing: [] };
}

function longLines(targetBytes: number): { log: string; failing: string[] } {
  const chunk = 'x'.repeat(99_000) + ' Error: buried ' + 'y'.repeat(985);
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < targetBytes; i++) {
    parts.push(ts() + chunk);
    size += chunk.length + 30;
  }
  parts.push(`${ts()}✖ the one failing test`);
  return { log: parts.join('\n'), failing: ['the one failing test'] };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function measure(label: string, make: () => { log: string; failing: string[] }) {
  const { log, failing } = make();
  const samples: number[] = [];
  let last = extractFailure(log, { repoName: 'shop' }); // warm-up, not counted
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    last = extractFailure(log, { repoName: 'shop' });
    samples.push(performance.now() - t0);
  }
  const kept = failing.filter((n) => last.failingTests.includes(n) && last.text.includes(n));
  return {
    label,
    logMB: +(Buffer.byteLength(log) / 2 ** 20).toFixed(1),
    lines: last.stats.lines,
    medianMs: Math.round(median(samples)),
    samplesMs: samples.map(Math.round),
    contextChars: last.text.length,
    contextTokensEstimated: last.tokens,
    failingTestsInLog: failing.length,
    failingTestsKeptInContext: kept.length,
    repoFramesFound: last.frames.length,
    blocks: last.stats.blocks,
    blocksShown: last.stats.blocksShown,
  };
}

const bytes = MB * 2 ** 20;
const real = readFileSync(path.join(ROOT, '__tests__', 'fixtures', 'ci', 'node-test-failure.log'), 'utf8');
const realX = extractFailure(real, { repoName: 'tiny-shop' });
const results = [
  measure(`typical ${MB} MB`, () => typical(bytes)),
  measure(`typical ${MB / 2} MB`, () => typical(bytes / 2)),
  measure(`typical ${MB / 10} MB`, () => typical(bytes / 10)),
  measure(`errors-everywhere ${MB} MB`, () => errorsEverywhere(bytes)),
  measure(`long-lines ${MB} MB`, () => longLines(bytes)),
];
console.log(
  JSON.stringify(
    {
      node: process.version,
      runs,
      budgetTokens: 4000,
      tokenEstimate: '3 characters per token (conservative for logs)',
      results,
      realFixture: { chars: real.length, tokens: realX.tokens, failingTests: realX.failingTests },
    },
    null,
    2,
  ),
);
