// Runs a TypeScript entry (bench scripts) by bundling it with esbuild into a temporary ESM file.
// Usage: node scripts/run-ts.mjs bench/action-run.ts [args...]
import { build } from 'esbuild';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [entry, ...rest] = process.argv.slice(2);
if (!entry) {
  console.error('usage: node scripts/run-ts.mjs <file.ts> [args...]');
  process.exit(2);
}
// Inside the project, so that the bundle's external imports resolve from node_modules.
mkdirSync(path.join(process.cwd(), '.cache'), { recursive: true });
const dir = mkdtempSync(path.join(process.cwd(), '.cache', 'run-ts-'));
const out = path.join(dir, 'entry.mjs');
// Each source keeps its own location: import.meta.url is replaced by the file's real URL.
const keepLocation = {
  name: 'keep-import-meta-url',
  setup(b) {
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8');
      return { contents: text.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)), loader: 'ts' };
    });
  },
};
await build({ plugins: [keepLocation], entryPoints: [entry], outfile: out, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', loader: { '.pl': 'text' }, logLevel: 'warning', absWorkingDir: process.cwd() });
process.argv = [process.argv[0], path.resolve(entry), ...rest];
try {
  await import(pathToFileURL(out).href);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
