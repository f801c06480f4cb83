/**
 * Benchmark: what the tokenizer (gpt-tokenizer's o200k_base) costs to load under node 24, as the
 * package ships its ranks (a 2 MB array literal) and as the bundle carries them (one JSON
 * string, scripts/json-ranks.mjs), and what loading the whole bundle costs.
 *   node scripts/run-ts.mjs bench/tokenizer-load.ts [--runs 5]
 * Each sample is a fresh process: peak RSS (maxRSS) and the time to load and count 4,600 tokens.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { node24, ROOT } from '../test-support/run-action.js';
// @ts-expect-error: a plain ES module of the build scripts, without types
import { jsonRanksSource } from '../scripts/json-ranks.mjs';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 5;
const pkgDir = path.dirname(createRequire(path.join(ROOT, 'package.json')).resolve('gpt-tokenizer/package.json'));
const dir = mkdtempSync(path.join(tmpdir(), 'agent-fix-tokenizer-'));
const url = (p: string) => JSON.stringify(pathToFileURL(p).href);
writeFileSync(path.join(dir, 'ranks.mjs'), await (jsonRanksSource as (f: string) => Promise<string>)(path.join(pkgDir, 'esm/bpeRanks/o200k_base.js')));
const text = 'function hello(world) { return world.map((x) => x * 2); } // héllo 🌍'.repeat(200);
const probe = (body: string) => `const t0 = performance.now();\n${body}\nconst ms = performance.now() - t0;\nprocess.on('exit', () => console.log(JSON.stringify({ n, ms, rssMB: process.resourceUsage().maxRSS / 1024 })));\n`;
const variants: Record<string, string> = {
  'node alone': probe('const n = 0;'),
  'package (array literal)': probe(`const m = await import(${url(path.join(pkgDir, 'esm/encoding/o200k_base.js'))});\nconst n = m.countTokens(${JSON.stringify(text)});`),
  'bundle form (JSON string)': probe(
    `const { GptEncoding } = await import(${url(path.join(pkgDir, 'esm/GptEncoding.js'))});\nconst ranks = (await import(${url(path.join(dir, 'ranks.mjs'))})).default;\nconst n = GptEncoding.getEncodingApi('o200k_base', () => ranks).countTokens(${JSON.stringify(text)});`,
  ),
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const result: Record<string, { rssMB: number[]; ms: number[]; tokens: number }> = {};
for (const [name, source] of Object.entries(variants)) {
  const file = path.join(dir, `${name.replace(/\W+/g, '-')}.mjs`);
  writeFileSync(file, source);
  const samples = Array.from({ length: runs }, () => JSON.parse(execFileSync(node24(), [file], { encoding: 'utf8' })) as { n: number; ms: number; rssMB: number });
  result[name] = { rssMB: samples.map((s) => +s.rssMB.toFixed(1)), ms: samples.map((s) => Math.round(s.ms)), tokens: samples[0].n };
}
// the whole bundle, loaded with no inputs (it stops at the first missing input)
const bundle = Array.from({ length: runs }, () => {
  const out = path.join(dir, 'rss');
  try {
    execFileSync(node24(), [`--import=${path.join(ROOT, 'bench', 'rss-probe.mjs')}`, path.join(ROOT, 'dist', 'index.js')], { env: { PATH: process.env.PATH, AGENT_FIX_RSS_FILE: out }, stdio: 'ignore' });
  } catch {
    // exits 1 without inputs: only its memory is measured
  }
  return +(Number(execFileSync('cat', [out], { encoding: 'utf8' })) / 2 ** 20).toFixed(1);
});
rmSync(dir, { recursive: true, force: true });
console.log(
  JSON.stringify(
    {
      node: node24(),
      runs,
      variants: Object.fromEntries(Object.entries(result).map(([k, v]) => [k, { ...v, medianRssMB: median(v.rssMB), medianMs: median(v.ms) }])),
      bundleLoadRssMB: { samples: bundle, median: median(bundle) },
    },
    null,
    2,
  ),
);
