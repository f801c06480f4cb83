/**
 * One candidate of bench/best-of-n.ts as its own process (a matrix cell): reads a JSON job from
 * argv[2], runs the fix against a scripted model in a fresh clone, writes the bundle, prints
 * one JSON line with its timings.
 */
import { proposeCandidate } from '../test-support/bundle-world.js';
import { cleanupFixtures } from '../test-support/git-fixture.js';
import type { Script } from '../src/scripted/script.js';

interface Job {
  remoteUrl: string;
  candidate: string;
  outDir: string;
  script: Script;
  testCommand: string;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const t0 = performance.now();
const r = await proposeCandidate({
  remoteUrl: job.remoteUrl,
  script: job.script,
  candidate: job.candidate,
  outDir: job.outDir,
  settings: { testCommand: job.testCommand },
});
process.stdout.write(`${JSON.stringify({ candidate: job.candidate, status: r.status, ms: Math.round(performance.now() - t0), startupMs: Math.round(t0) })}\n`);
cleanupFixtures();
