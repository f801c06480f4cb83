// ESLint rule `local/no-type-cycle`: import-x/no-cycle skips type-only imports, so a circle that
// runs through `import type` (or a type-position `import('…')`) stays invisible to it. This rule
// sees every import of the project's TypeScript files, types included, and reports the import
// that closes a circle, with the circle. The graph is read once per lint run (plain text:
// `from '…'`, `import '…'`, `import('…')`, `export … from '…'` with relative paths).
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

const SPEC = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)(['"])(\.{1,2}\/[^'"]+)\1/gm;
const graph = new Map();

function resolveSpec(fromFile, spec) {
  const base = path.resolve(path.dirname(fromFile), spec);
  const candidates = [base.replace(/\.js$/, '.ts'), base, `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => c.endsWith('.ts') && existsSync(c)) ?? null;
}

function importsOf(file, text) {
  if (graph.has(file) && text === undefined) return graph.get(file);
  let src = text;
  if (src === undefined) {
    try {
      src = readFileSync(file, 'utf8');
    } catch {
      src = '';
    }
  }
  // comments hold examples of imports, not imports
  const code = src.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1');
  const out = [];
  for (const m of code.matchAll(SPEC)) {
    const to = resolveSpec(file, m[2]);
    if (to && !out.includes(to)) out.push(to);
  }
  if (text === undefined) graph.set(file, out);
  return out;
}

/** A path from `start` back to `target` through the import graph, or null. */
function pathBack(start, target) {
  const seen = new Set([start]);
  const queue = [[start]];
  while (queue.length) {
    const route = queue.shift();
    for (const next of importsOf(route[route.length - 1])) {
      if (next === target) return route;
      if (seen.has(next)) continue;
      seen.add(next);
      queue.push([...route, next]);
    }
  }
  return null;
}

export default {
  meta: {
    type: 'problem',
    docs: { description: 'Forbid import circles, type-only imports included.' },
    schema: [],
    messages: { cycle: 'Import circle (types included): {{route}}' },
  },
  create(context) {
    const file = context.physicalFilename;
    if (!file.endsWith('.ts')) return {};
    const text = context.sourceCode.getText();
    const cwd = context.cwd;
    return {
      Program(node) {
        for (const to of importsOf(file, text)) {
          if (to === file) continue;
          const back = pathBack(to, file);
          if (!back) continue;
          const route = [file, ...back, file].map((f) => path.relative(cwd, f)).join(' → ');
          context.report({ node, messageId: 'cycle', data: { route } });
          return;
        }
      },
    };
  },
};
