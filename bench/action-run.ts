/**
 * Benchmark (issue → PR, whole action run): the bundled action under node 24 against the fake
 * GitHub API and a zero-latency scripted model, with a trivial test command.
 *   node scripts/run-ts.mjs bench/action-run.ts [--runs 10]
 * Prints JSON with the raw samples and the medians.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeGitHub } from '../test-support/fake-github.js';
import { startScriptedModel } from '../src/scripted/server.js';
import { parseScript, type Script } from '../src/scripted/script.js';
import { makeRepo, cloneShallow, tempDir, cleanupFixtures } from '../test-support/git-fixture.js';
import { runAction, node24, ROOT } from '../test-support/run-action.js';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1]) || 10;
const TOKEN = 'ghs_benchFakeToken0123456789';
const files = { 'status.txt': 'broken\n', 'README.md': '# bench fixture\n' };
const TEST = 'grep -q fixed status.txt';

/** A script with `failures` rejected attempts before the fixing one. */
function script(failures: number): Script {
  const steps: Script['steps'] = [];
  for (let i = 0; i < failures; i++) {
    // a real edit each time: verified (test run), rejected, rolled back to the original README
    steps.push({ toolCalls: [{ name: 'edit_file', arguments: { path: 'README.md', old_string: '# bench fixture', new_string: `# bench fixture ${i}` } }] });
    steps.push({ toolCalls: [{ name: 'finish', arguments: { summary: `attempt ${i + 1}` } }] });
  }
  steps.push({ toolCalls: [{ name: 'edit_file', arguments: { path: 'status.txt', old_string: 'broken', new_string: 'fixed' } }] });
  steps.push({ toolCalls: [{ name: 'finish', arguments: { summary: 'fixed the status' } }] });
  return parseScript({ label: 'bench', steps });
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function once(failures: number): Promise<{ ms: number; rss: number; status: string; iterations: string }> {
  const repo = makeRepo(files);
  const github = await startFakeGitHub({ owner: 'octo', repo: 'bench', token: TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel(script(failures));
  github.setPermission('maintainer', 'write');
  github.addIssue({ number: 1, title: 'status is broken', body: 'make the status fixed', author: 'reporter', labels: ['agent-fix'] });
  const checkout = cloneShallow(repo.remoteUrl);
  const temp = tempDir('agent-fix-bench-');
  const rssFile = path.join(temp, 'rss');
  const t0 = performance.now();
  const r = await runAction({
    workspace: checkout.dir,
    tempDir: temp,
    eventName: 'issues',
    repository: 'octo/bench',
    apiUrl: github.url,
    payload: { action: 'labeled', label: { name: 'agent-fix' }, issue: { number: 1, title: 'status is broken', body: 'x', state: 'open', user: { login: 'reporter' } }, sender: { login: 'maintainer', type: 'User' } },
    inputs: { 'github-token': TOKEN, 'api-key': 'bench-key-123456', 'base-url': model.url, model: 'scripted', 'test-command': TEST, 'max-iterations': String(failures + 1) },
    extraEnv: { NODE_OPTIONS: `--import=${path.join(ROOT, 'bench', 'rss-probe.mjs')}`, AGENT_FIX_RSS_FILE: rssFile },
  });
  const ms = performance.now() - t0;
  await github.close();
  await model.close();
  if (r.outputs.status !== 'fixed') throw new Error(`bench run not fixed: ${r.stdout.slice(-2000)}`);
  const transcript = JSON.parse(readFileSync(r.outputs['transcript-path'], 'utf8')) as { entries: { event: { type: string } }[] };
  const verifications = transcript.entries.filter((e) => e.event.type === 'test-run').length;
  // baseline + one verification per attempt: proves every attempt really ran the tests
  if (verifications !== failures + 2) throw new Error(`expected ${failures + 2} test runs, saw ${verifications}`);
  return { ms, rss: Number(readFileSync(rssFile, 'utf8')), status: r.outputs.status, iterations: r.outputs.iterations };
}

const MANY = 5;
const single: number[] = [];
const many: number[] = [];
const rss: number[] = [];
await once(0); // warm-up (file cache), not counted
for (let i = 0; i < runs; i++) {
  const a = await once(0);
  single.push(a.ms);
  rss.push(a.rss);
  const b = await once(MANY);
  many.push(b.ms);
  rss.push(b.rss);
}
cleanupFixtures();
const perIteration = (median(many) - median(single)) / MANY;
console.log(
  JSON.stringify(
    {
      node: node24(),
      testCommand: TEST,
      runs,
      wallMsOneIteration: { median: Math.round(median(single)), samples: single.map(Math.round) },
      wallMsSixIterations: { median: Math.round(median(many)), samples: many.map(Math.round) },
      harnessOverheadPerIterationMs: Math.round(perIteration),
      peakRssMB: { max: +(Math.max(...rss) / 2 ** 20).toFixed(1), median: +(median(rss) / 2 ** 20).toFixed(1) },
    },
    null,
    2,
  ),
);
