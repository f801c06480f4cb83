/**
 * A parser thread of the repository map (map.ts, parseInWorkers): parses the chunks of files it
 * is sent and answers each with their symbols, in order. Bundled as dist/map-worker.js.
 */
import { parentPort } from 'node:worker_threads';
import { parseFile, type CacheEntry, type ParseJob } from './map.js';

parentPort?.on('message', async (job: ParseJob) => {
  const out: (CacheEntry | null)[] = [];
  for (const f of job.files) out.push(await parseFile(job.root, f.path, f.language, job.maxBytes));
  parentPort?.postMessage(out);
});
