/**
 * The CLI bundle exits only after its output reached the pipe: a large `--json` report read
 * through a pipe (a script, `| jq`) arrives whole. The control shows what `process.exit` right
 * after the write did: the report cut at the pipe's buffer.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { node24, ROOT } from '../../test-support/run-action.js';

const SIZE = 2 * 1024 * 1024;

/** Runs node 24 on a module that imports the CLI bundle, writes SIZE bytes and exits with `exit`. */
function run(exit: string): Promise<{ bytes: number; code: number | null }> {
  const cli = pathToFileURL(path.join(ROOT, 'dist', 'cli.js')).href;
  const source = `import * as cli from ${JSON.stringify(cli)};\nprocess.stdout.write('x'.repeat(${SIZE}));\n${exit};\n`;
  return new Promise((resolve, reject) => {
    const child = spawn(node24(), ['--input-type=module', '-e', source], { stdio: ['ignore', 'pipe', 'pipe'] });
    let bytes = 0;
    child.stdout.on('data', (b: Buffer) => (bytes += b.length));
    child.on('error', reject);
    child.on('close', (code) => resolve({ bytes, code }));
  });
}

describe('the CLI bundle on a pipe', () => {
  test('exitWhenFlushed delivers every byte, then exits with the code', async () => {
    const r = await run('cli.exitWhenFlushed(3)');
    expect(r).toEqual({ bytes: SIZE, code: 3 });
  });

  test('control: process.exit right after the write loses the rest', async () => {
    const r = await run('process.exit(3)');
    expect(r.code).toBe(3);
    expect(r.bytes).toBeLessThan(SIZE);
  });
});
