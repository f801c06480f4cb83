/** check-dist: the committed bundle must be exactly what the sources build to. */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..', '..');

test('dist/ is fresh: rebuilding the sources gives the committed bundle byte for byte', () => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-dist-'));
  try {
    execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), out], { cwd: root, stdio: 'pipe' });
    const grammars = readdirSync(path.join(out, 'grammars')).map((f) => `grammars/${f}`);
    expect(grammars).toContain('grammars/tree-sitter.wasm');
    expect(readdirSync(path.join(root, 'dist', 'grammars')).sort()).toEqual(readdirSync(path.join(out, 'grammars')).sort());
    // Files of ours that run outside the bundle (the mocha reporter), copied next to it.
    expect(readdirSync(out)).toContain('mocha-reporter.cjs');
    for (const file of ['index.js', 'cli.js', 'map-worker.js', 'mocha-reporter.cjs', ...grammars]) {
      const fresh = readFileSync(path.join(out, file));
      const committed = readFileSync(path.join(root, 'dist', file));
      if (!fresh.equals(committed)) {
        throw new Error(`dist/${file} is stale: run \`npm run build\` and commit dist/.`);
      }
    }
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
