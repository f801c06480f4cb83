/**
 * The bundle carries the tokenizer's ranks as one JSON string (scripts/json-ranks.mjs): the
 * tokens must be exactly the package's on real code and on text outside ASCII, and the bundle
 * must really carry that form. Runs under node 24 in a child process, as the action does.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { node24, ROOT } from '../../test-support/run-action.js';
import { cleanupFixtures, tempDir } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

test('the JSON form of the ranks gives the same tokens as gpt-tokenizer on source files and unicode text', () => {
  const dir = tempDir('agent-fix-ranks-');
  const corpus = [
    ...readdirSync(path.join(ROOT, 'src/agent')).filter((f) => f.endsWith('.ts')).map((f) => path.join(ROOT, 'src/agent', f)),
    path.join(ROOT, 'README.md'),
    path.join(ROOT, 'package-lock.json'),
  ];
  const unicode = path.join(dir, 'unicode.txt');
  writeFileSync(unicode, 'héllo wörld — ünïcödé 日本語のテキスト 🙂🚀 Ελληνικά עברית العربية\u0000\u0001\t\r\n  indented\n<|endoftext|> not special here\n'.repeat(20));
  corpus.push(unicode);
  const script = path.join(dir, 'compare.mjs');
  writeFileSync(
    script,
    `
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { jsonRanksSource, RANKS_FILE } from ${JSON.stringify(pathToUrl(path.join(ROOT, 'scripts/json-ranks.mjs')))};
const require = createRequire(${JSON.stringify(pathToUrl(path.join(ROOT, 'package.json')))});
const pkgDir = require.resolve('gpt-tokenizer/package.json').replace(/package\\.json$/, '');
const file = pkgDir + 'esm/bpeRanks/o200k_base.js';
if (!RANKS_FILE.test(file)) throw new Error('the plugin filter does not match ' + file);
const out = ${JSON.stringify(path.join(dir, 'ranks.mjs'))};
writeFileSync(out, await jsonRanksSource(file));
const { default: ranks } = await import(pathToFileURL(out).href);
const { GptEncoding } = await import(pathToFileURL(pkgDir + 'esm/GptEncoding.js').href);
const pkg = await import(pathToFileURL(pkgDir + 'esm/encoding/o200k_base.js').href);
const mine = GptEncoding.getEncodingApi('o200k_base', () => ranks);
const result = { files: 0, tokens: 0, differing: [] };
for (const f of process.argv.slice(2)) {
  const text = readFileSync(f, 'utf8');
  const plain = { allowedSpecial: new Set(), disallowedSpecial: new Set() };
  const a = pkg.encode(text, plain), b = mine.encode(text, plain);
  result.files++;
  result.tokens += a.length;
  if (a.length !== b.length || a.some((t, i) => t !== b[i]) || mine.decode(b) !== text) result.differing.push(f);
}
console.log(JSON.stringify(result));
`,
  );
  const result = JSON.parse(execFileSync(node24(), [script, ...corpus], { encoding: 'utf8', maxBuffer: 64 << 20 })) as { files: number; tokens: number; differing: string[] };
  expect(result.differing).toEqual([]);
  expect(result.files).toBe(corpus.length);
  expect(result.tokens).toBeGreaterThan(50_000);
});

test('the bundles carry the ranks as a JSON string, not as an array literal', () => {
  for (const bundle of ['index.js', 'cli.js']) {
    const text = readFileSync(path.join(ROOT, 'dist', bundle), 'utf8');
    const at = text.indexOf('// node_modules/gpt-tokenizer/esm/bpeRanks/o200k_base.js');
    expect([bundle, at]).not.toEqual([bundle, -1]);
    expect([bundle, /^var \w+ = JSON\.parse\(/.test(text.slice(at).split('\n')[1])]).toEqual([bundle, true]);
  }
});

function pathToUrl(p: string): string {
  return new URL(`file://${p}`).href;
}
