// Bundles the action (dist/index.js) and the CLI (dist/cli.js). Deterministic, so a rebuild
// into another directory must match the committed dist/ byte for byte (see __tests__/dist-fresh.test.ts).
import { build } from 'esbuild';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const outdir = path.resolve(process.argv[2] ?? path.join(root, 'dist'));
const requireShim = "import { createRequire as __afCreateRequire } from 'node:module'; const require = __afCreateRequire(import.meta.url);";

for (const [entry, out, banner] of [
  ['src/index.ts', 'index.js', requireShim],
  ['src/cli.ts', 'cli.js', `#!/usr/bin/env node\n${requireShim}`],
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
    logLevel: 'warning',
  });
}
