/**
 * The repository map's parser threads (dist/map-worker.js, the bundled worker the action uses):
 * a cold build in worker threads gives exactly the map of a build in one thread.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildRepoMap } from '../../src/context/map.js';
import { makeRepo, cleanupFixtures } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

test('worker threads and one thread build the same map; a missing worker script falls back to one thread', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 260; i++) {
    files[`src/m${i}.ts`] = `import { f${(i + 1) % 260} } from './m${(i + 1) % 260}.js';\nexport function f${i}(x: number): number {\n  return f${(i + 1) % 260}(x) + ${i};\n}\nexport class C${i} {\n  run() {\n    return f${i}(1);\n  }\n}\n`;
  }
  files['src/broken.py'] = 'def ok():\n    return 1\n';
  files['big/huge.js'] = `export const big = ${JSON.stringify('x'.repeat(300_000))};\n`;
  const repo = makeRepo(files);
  const workerScript = path.join(ROOT, 'dist', 'map-worker.js');
  const threads = await buildRepoMap(repo.dir, { cacheDir: null, workers: 3, workerScript });
  const one = await buildRepoMap(repo.dir, { cacheDir: null, workers: 0 });
  const missing = await buildRepoMap(repo.dir, { cacheDir: null, workers: 3, workerScript: path.join(repo.dir, 'no-such-worker.js') });
  expect(threads.stats).toMatchObject({ mapped: 261, parsed: 261, skipped: 1, threads: 3 });
  expect(one.stats.threads).toBe(1);
  expect(missing.stats.threads).toBe(1);
  expect(threads.files).toEqual(one.files);
  expect(missing.files).toEqual(one.files);
  expect(threads.files.find((f) => f.path === 'src/m7.ts')).toMatchObject({
    imports: ['./m8.js'],
    defs: [
      { name: 'f7', kind: 'function', line: 2, endLine: 4 },
      { name: 'C7', kind: 'class', line: 5, endLine: 9 },
      { name: 'run', kind: 'method', parent: 'C7', line: 6, endLine: 8 },
    ],
  });
}, 120_000);
