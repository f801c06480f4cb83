// Bundles the action (dist/index.js) and the CLI (dist/cli.js). Deterministic, so a rebuild
// into another directory must match the committed dist/ byte for byte (see __tests__/integration/dist-fresh.test.ts).
import { build } from 'esbuild';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonRanksPlugin } from './json-ranks.mjs';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outdir = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const requireShim = "import { createRequire as __afCreateRequire } from 'node:module'; const require = __afCreateRequire(import.meta.url);";

for (const [entry, out, banner] of [
  ['src/index.ts', 'index.js', requireShim],
  ['src/cli.ts', 'cli.js', `#!/usr/bin/env node\n${requireShim}`],
  // the repository map's parser threads (src/context/map.ts)
  ['src/context/map-worker.ts', 'map-worker.js', requireShim],
]) {
  await build({
    absWorkingDir: root,
    entryPoints: [entry],
    outfile: path.join(outdir, out),
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    banner: { js: banner },
    legalComments: 'none',
    plugins: [jsonRanksPlugin],
    // the sandbox's launcher (src/sandbox/launch.pl), a real file bundled as text
    loader: { '.pl': 'text' },
    logLevel: 'warning',
  });
}

// The tree-sitter runtime and grammars (src/code/parser.ts) are WebAssembly files loaded at run
// time from dist/grammars/, next to the bundle. Copied from their npm packages, byte for byte.
export const WASM_FILES = [
  ['web-tree-sitter', 'tree-sitter.wasm'],
  ['tree-sitter-javascript', 'tree-sitter-javascript.wasm'],
  ['tree-sitter-typescript', 'tree-sitter-typescript.wasm'],
  ['tree-sitter-typescript', 'tree-sitter-tsx.wasm'],
  ['tree-sitter-python', 'tree-sitter-python.wasm'],
  ['tree-sitter-go', 'tree-sitter-go.wasm'],
  ['tree-sitter-json', 'tree-sitter-json.wasm'],
];
const require = createRequire(import.meta.url);
mkdirSync(path.join(outdir, 'grammars'), { recursive: true });
for (const [pkg, file] of WASM_FILES) {
  copyFileSync(require.resolve(`${pkg}/${file}`), path.join(outdir, 'grammars', file));
}

// Files of our own that run outside the bundle, found next to it at run time (a module's
// `import.meta.url` is the bundle's there): the mocha reporter (src/verify/runners/mocha.ts
// hands it to the repository's mocha).
export const SHIPPED_FILES = [['src/verify/runners/mocha-reporter.cjs', 'mocha-reporter.cjs']];
for (const [from, to] of SHIPPED_FILES) copyFileSync(path.join(root, from), path.join(outdir, to));
