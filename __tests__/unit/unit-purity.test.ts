/**
 * The unit folder holds pure tests only: no git, no child process, no server, no temporary files,
 * no built artifact (dist/). Read statically: each unit test file and the test-support modules it
 * imports (transitively) are searched for the imports and calls that do those things. A test that
 * needs one belongs in __tests__/integration/. Reading a fixture file of the repository is fine.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const UNIT = path.join(ROOT, '__tests__', 'unit');

/** Modules whose import makes a test impure: processes, servers, and the worlds built on them. */
const IMPURE_MODULES: [RegExp, string][] = [
  [/^(node:)?child_process$/, 'child processes'],
  [/^execa$/, 'child processes'],
  [/^(node:)?(http|https|net|dgram|worker_threads|cluster)$/, 'servers or threads'],
  [/\/src\/adapters\/(git|shell)(\.js)?$/, 'git or the shell'],
  [/\/src\/scripted\/server(\.js)?$/, 'the scripted model server'],
  [/\/test-support\/(git-fixture|fake-github|fake-github\/.*|loop-world|run-action|run-main|bundle-world|ci-repair|stacks|diagnostics-harness|workflows)(\.js)?$/, 'a test world (git, servers, processes)'],
  [/(^|\/)dist\//, 'a built artifact (dist/)'],
];

/** Calls that write the file system, spawn, or listen. */
const IMPURE_CALLS: [RegExp, string][] = [
  [/\b(mkdtemp|mkdtempSync|tmpdir)\s*\(/, 'temporary files'],
  [/\b(writeFileSync|appendFileSync|mkdirSync|rmSync|symlinkSync|copyFileSync|renameSync|unlinkSync)\s*\(/, 'writes files'],
  [/\b(spawn|spawnSync|execSync|execFile|execFileSync|fork)\s*\(/, 'child processes'],
  [/\bcreateServer\s*\(/, 'servers'],
  [/['"`][^'"`]*\bdist\/(index|cli|map-worker)\.js/, 'a built artifact (dist/)'],
];

/** The module specifiers a source imports (static and dynamic imports, re-exports). */
function importsOf(source: string): string[] {
  const found = new Set<string>();
  for (const m of source.matchAll(/^\s*(?:import|export)\s[^'"`;]*?from\s*['"]([^'"]+)['"]/gm)) found.add(m[1]);
  for (const m of source.matchAll(/^\s*import\s*['"]([^'"]+)['"]/gm)) found.add(m[1]);
  for (const m of source.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g)) found.add(m[1]);
  return [...found];
}

/** `import type` lines bring in nothing at run time. */
function runtimeSource(source: string): string {
  return source.replace(/^\s*(?:import|export)\s+type\s[^;]*;/gm, '');
}

/** What makes the test in `file` (with `source`) impure: one line per finding; test-support modules it imports are read too. */
export function impurities(file: string, source: string, read: (file: string) => string = (f) => readFileSync(f, 'utf8')): string[] {
  const findings: string[] = [];
  const seen = new Set<string>();
  const visit = (at: string, text: string, via: string) => {
    if (seen.has(at)) return;
    seen.add(at);
    const code = runtimeSource(text);
    for (const spec of importsOf(code)) {
      const resolved = spec.startsWith('.') ? path.resolve(path.dirname(at), spec) : spec;
      const shown = spec.startsWith('.') ? path.relative(ROOT, resolved) : spec;
      for (const [pattern, why] of IMPURE_MODULES) {
        if (pattern.test(resolved.split(path.sep).join('/'))) findings.push(`${via}imports ${shown}: ${why}`);
      }
      // follow the shared test modules (src/ is the code under test, judged by its own tests)
      if (spec.startsWith('.') && resolved.startsWith(path.join(ROOT, 'test-support') + path.sep) && /\.(js|ts)$/.test(resolved)) {
        const ts = resolved.replace(/\.js$/, '.ts');
        let next: string | null = null;
        try {
          next = read(ts);
        } catch {
          next = null;
        }
        if (next !== null) visit(ts, next, `${via}${path.relative(ROOT, ts)} `);
      }
    }
    for (const [pattern, why] of IMPURE_CALLS) {
      const m = pattern.exec(code);
      if (m) findings.push(`${via}calls ${m[0].trim()}: ${why}`);
    }
  };
  visit(file, source, '');
  return findings;
}

describe('__tests__/unit holds pure tests only', () => {
  const files = readdirSync(UNIT).filter((f) => f.endsWith('.test.ts') && f !== 'unit-purity.test.ts');

  test('there are unit tests to check', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  test.each(files)('%s', (name) => {
    const file = path.join(UNIT, name);
    expect(impurities(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  test('the shared builders stay pure (a unit test may import them)', () => {
    const file = path.join(ROOT, 'test-support', 'builders.ts');
    expect(impurities(file, readFileSync(file, 'utf8'))).toEqual([]);
  });

  test('control: a misfiled test is caught, by its imports, by the shared modules it imports, and by its calls', () => {
    const at = path.join(UNIT, 'misfiled.test.ts');
    const misfiled = [
      "import { execFileSync } from 'node:child_process';",
      "import { makeRepo } from '../../test-support/git-fixture.js';",
      "import { startFakeGitHub } from '../../test-support/fake-github.js';",
      "import { openLoopWorld } from '../../test-support/loop-world.js';",
      "import type { FakeGitHub } from '../../test-support/fake-github.js';",
      "const dir = mkdtempSync(path.join(tmpdir(), 'x-'));",
      "const out = spawnSync('node', ['dist/cli.js']);",
    ].join('\n');
    const found = impurities(at, misfiled);
    expect(found).toEqual(
      expect.arrayContaining([
        'imports node:child_process: child processes',
        'imports test-support/git-fixture.js: a test world (git, servers, processes)',
        'imports test-support/fake-github.js: a test world (git, servers, processes)',
        'imports test-support/loop-world.js: a test world (git, servers, processes)',
        // followed into the shared module: loop-world.ts imports git and the shell
        'test-support/loop-world.ts imports src/adapters/git.js: git or the shell',
        'calls mkdtempSync(: temporary files',
        'calls spawnSync(: child processes',
        "calls 'dist/cli.js: a built artifact (dist/)",
      ]),
    );
    // a type-only import brings nothing in at run time
    expect(impurities(at, "import type { FakeGitHub } from '../../test-support/fake-github.js';")).toEqual([]);
  });

  test('control: a real integration test, put here, would be caught', () => {
    const file = path.join(ROOT, '__tests__', 'integration', 'loop.test.ts');
    const found = impurities(path.join(UNIT, 'loop.test.ts'), readFileSync(file, 'utf8'));
    expect(found.length).toBeGreaterThan(0);
  });
});
