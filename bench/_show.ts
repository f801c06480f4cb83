import { readFileSync } from 'node:fs';
import { extractFailure } from '../src/ci/log-extract.js';
const x = extractFailure(readFileSync(process.argv[2], 'utf8'));
console.log(JSON.stringify(x.failures.map((f) => [f.name, f.identity]), null, 0));
console.log(x.failingTests);
