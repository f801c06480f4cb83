// The tokenizer's ranks (gpt-tokenizer's o200k_base: 200k strings) as one JSON string in the
// bundle instead of a 2 MB array literal. V8 parses a JSON string far more cheaply than the same
// data as JavaScript: measured on node 24, loading the tokenizer takes 93-96 MB of peak RSS
// instead of 115 MB (BENCHMARKS.md, bench/tokenizer-load.ts). The data is the package's own, unchanged; the test
// __tests__/integration/json-ranks.test.ts compares the tokens of both.
import { pathToFileURL } from 'node:url';

/** Files whose default export is a ranks array (gpt-tokenizer/esm/bpeRanks/*.js). */
export const RANKS_FILE = /[\\/]gpt-tokenizer[\\/]esm[\\/]bpeRanks[\\/][a-z0-9_]+\.js$/;

/** The module source that replaces a ranks file: the same array, parsed from a JSON string. */
export async function jsonRanksSource(file) {
  const { default: ranks } = await import(pathToFileURL(file).href);
  if (!Array.isArray(ranks)) throw new Error(`${file}: the default export is not an array`);
  // JSON would turn a hole into null, which the tokenizer would read as a token; none may exist
  for (let i = 0; i < ranks.length; i++) if (!(i in ranks)) throw new Error(`${file}: rank ${i} is a hole`);
  return `export default JSON.parse(${JSON.stringify(JSON.stringify(ranks))});\n`;
}

/** esbuild plugin: every ranks file loads through jsonRanksSource. */
export const jsonRanksPlugin = {
  name: 'json-ranks',
  setup(build) {
    build.onLoad({ filter: RANKS_FILE }, async (args) => ({ contents: await jsonRanksSource(args.path), loader: 'js' }));
  },
};
