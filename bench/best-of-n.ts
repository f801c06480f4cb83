/**
 * Benchmark of best-of-N candidates (propose → publish, src/bundle/):
 *   node scripts/run-ts.mjs bench/best-of-n.ts [--reps 3] [--trials 30] [--out bench/results/best-of-n.json]
 *
 * (a) wall time: N = 1, 3, 5 candidates, each its own process (like the cells of a job matrix,
 *     here sharing one machine), on a fixture project whose `node --test` suite has 12 test
 *     files; then the publish side (read, validate and select the N bundles). Median of `reps`.
 * (b) fix rate: a scripted model whose attempt is right with probability p (the draw is seeded
 *     by the candidate's own sampling seed, bundle/candidate.ts, and the trial), one attempt per
 *     candidate (max-iterations 1); for p in {0.3, 0.5} and N in {1, 3, 5}, `trials` trials,
 *     each running its N candidates for real (runFix with the real test command, bundles written,
 *     read, validated and selected). A trial is fixed when the selection publishes a verified
 *     candidate. Nothing is computed from other trials' outcomes.
 * `--path action` measures both through the real modes instead, the bundled action
 * (dist/index.js under node 24, `npm run build` first) against the fake GitHub API: (a) one
 * `mode: run` job against N `mode: propose` jobs started together (each its own process, own
 * checkout, own scripted model, a read-only token) followed by one `mode: publish` job (no model
 * key); (b) per trial, N propose jobs and one publish job; a trial is fixed when publish opened a
 * pull request. Slower (a process per job), so fewer trials.
 * Prints JSON (raw samples included) and writes it to --out.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync, rmSync, mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { makeRepo, cloneShallow, tempDir, cleanupFixtures } from '../test-support/git-fixture.js';
import { ADDER } from '../test-support/run-main.js';
import { editScript, proposeCandidate, bundleSettings } from '../test-support/bundle-world.js';
import { openPatchGit } from '../src/adapters/patch.js';
import { publishProtections, readBundles } from '../src/bundle/read.js';
import { selectBundle } from '../src/bundle/select.js';
import { candidateSampling, fnv1a } from '../src/bundle/candidate.js';
import { startFakeGitHub } from '../test-support/fake-github.js';
import { startScriptedModel } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { actionInputs, runAction, type ActionRun } from '../test-support/run-action.js';
import { cpSync } from 'node:fs';

const arg = (name: string, dflt: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const reps = Number(arg('reps', '3'));
const trials = Number(arg('trials', '30'));
const outFile = arg('out', 'bench/results/best-of-n.json');
const only = arg('only', 'ab');
const via = arg('path', 'library');
const NS = [1, 3, 5];
const PS = [0.3, 0.5];
const RIGHT = 'return a + b;';
const WRONG = 'return a * b;';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

/** A project with a real node:test suite: the add test fails, 23 other files pass (each a little CPU work). */
function suiteFixture(): Record<string, string> {
  const files: Record<string, string> = {
    'package.json': '{ "name": "adder-suite", "type": "module", "private": true }\n',
    'src/add.js': ADDER['src/add.js'],
    'test/add.test.js': "import test from 'node:test';\nimport assert from 'node:assert/strict';\nimport { add } from '../src/add.js';\ntest('add adds', () => assert.equal(add(2, 3), 5));\n",
  };
  for (let i = 1; i <= 11; i++) {
    files[`test/other-${i}.test.js`] = `import test from 'node:test';\nimport assert from 'node:assert/strict';\ntest('other ${i}', () => { let s = 0; for (let k = 0; k < 2e6; k++) s += k % ${i + 2}; assert.ok(s > 0); });\n`;
  }
  return files;
}

// ------------------------------------------------------------------------------- (a)

async function buildWorker(): Promise<{ file: string; dir: string }> {
  mkdirSync(path.join(process.cwd(), '.cache'), { recursive: true });
  const dir = mkdtempSync(path.join(process.cwd(), '.cache', 'best-of-n-'));
  const file = path.join(dir, 'worker.mjs');
  await build({ entryPoints: ['bench/best-of-n-worker.ts'], outfile: file, bundle: true, platform: 'node', format: 'esm', target: 'node20', packages: 'external', logLevel: 'warning' });
  return { file, dir };
}

function runWorker(file: string, job: object): Promise<{ candidate: string; status: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    child.on('close', (code) => {
      if (code !== 0) reject(new Error(`worker exited ${code}: ${err.slice(-2000)}`));
      else resolve(JSON.parse(out.trim().split('\n').pop() ?? '{}'));
    });
  });
}

async function wallTime() {
  const worker = await buildWorker();
  const repo = makeRepo(suiteFixture());
  const publish = cloneShallow(repo.remoteUrl).dir;
  const patches = await openPatchGit(publish);
  const settings = bundleSettings({ testCommand: 'node --test' });
  const expect = { taskKey: 'issue-7', baseSha: repo.sha, protectedPaths: await publishProtections(settings, publish), maxChangedFiles: 10, maxChangedLines: 200 };
  const samples: Record<string, { wallMs: number[]; publishMs: number[]; perCandidateMs: number[][]; verified: number[] }> = {};
  try {
    for (let rep = 0; rep < reps; rep++) {
      for (const n of NS) {
        const outDir = tempDir('agent-fix-bench-bundles-');
        const jobs = Array.from({ length: n }, (_, i) => ({
          remoteUrl: repo.remoteUrl,
          candidate: String(i + 1),
          outDir,
          script: editScript(RIGHT, `candidate ${i + 1}`),
          testCommand: 'node --test',
        }));
        const t0 = performance.now();
        const results = await Promise.all(jobs.map((j) => runWorker(worker.file, j)));
        const wall = performance.now() - t0;
        const t1 = performance.now();
        const s = selectBundle(await readBundles(outDir, expect, patches));
        const pub = performance.now() - t1;
        if (!s.winner) throw new Error(`N=${n}: no winner: ${s.lines.map((l) => l.text).join('; ')}`);
        const k = `N=${n}`;
        samples[k] ??= { wallMs: [], publishMs: [], perCandidateMs: [], verified: [] };
        samples[k].wallMs.push(Math.round(wall));
        samples[k].publishMs.push(Math.round(pub));
        samples[k].perCandidateMs.push(results.map((r) => r.ms));
        samples[k].verified.push(results.filter((r) => r.status === 'fixed').length);
        process.stderr.write(`(a) rep ${rep + 1} N=${n}: wall ${Math.round(wall)} ms, publish ${Math.round(pub)} ms\n`);
        rmSync(outDir, { recursive: true, force: true });
      }
    }
  } finally {
    await patches.dispose();
    rmSync(worker.dir, { recursive: true, force: true });
  }
  const base = median(samples['N=1'].wallMs);
  const summary = Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [k, { medianWallMs: median(v.wallMs), vsOneRun: +(median(v.wallMs) / base).toFixed(2), medianPublishMs: median(v.publishMs), medianCandidateMs: median(v.perCandidateMs.flat()) }]),
  );
  return { fixture: '12 node:test files (1 failing), test command `node --test`, one scripted attempt per candidate', summary, samples };
}

// ------------------------------------------------------------------------------- through the action

const GH_TOKEN = 'ghs_benchBestOfNToken0123456789';

/** A fresh repository and fake GitHub with issue 7, and the three kinds of job of the workflow, each a dist/index.js process. */
async function actionWorld(files: Record<string, string>, testCommand: string) {
  const repo = makeRepo(files);
  const github = await startFakeGitHub({ owner: 'octo', repo: 'adder', token: GH_TOKEN, gitDir: repo.remoteDir });
  github.setPermission('maintainer', 'write');
  github.addIssue({ number: 7, title: 'add is wrong', body: 'add(2, 3) returns -1', author: 'reporter', labels: ['agent-fix'] });
  const payload = {
    action: 'labeled',
    label: { name: 'agent-fix' },
    issue: { number: 7, title: 'add is wrong', body: 'add(2, 3) returns -1', state: 'open', user: { login: 'reporter', type: 'User' }, updated_at: new Date().toISOString() },
    repository: { name: 'adder', full_name: 'octo/adder', owner: { login: 'octo' } },
    sender: { login: 'maintainer', type: 'User' },
  };
  const job = async (inputs: Record<string, string>, script: Script | null): Promise<ActionRun & { ms: number }> => {
    const model = script ? await startScriptedModel(script) : null;
    const t0 = performance.now();
    try {
      const r = await runAction({
        workspace: cloneShallow(repo.remoteUrl).dir,
        tempDir: tempDir('agent-fix-bench-runner-'),
        eventName: 'issues',
        payload,
        repository: 'octo/adder',
        apiUrl: github.url,
        inputs: actionInputs({ token: GH_TOKEN, apiKey: model ? 'sk-bench-key-0123456789' : '', baseUrl: model?.url ?? 'http://127.0.0.1:9/v1' }, { 'test-command': testCommand, 'max-iterations': '1', ...inputs }),
      });
      return { ...r, ms: performance.now() - t0 };
    } finally {
      await model?.close();
    }
  };
  /** N propose jobs started together (read-only token), their bundles merged, then one publish job. */
  const proposeAndPublish = async (scripts: Script[]) => {
    const merged = tempDir('agent-fix-bench-merged-');
    github.setReadOnly(true);
    const t0 = performance.now();
    const proposed = await Promise.all(scripts.map((sc, i) => job({ mode: 'propose', candidate: String(i + 1), bundles: tempDir('agent-fix-bench-out-') }, sc)));
    const proposeMs = performance.now() - t0;
    github.setReadOnly(false);
    if (github.writeAttempts.length > 0) throw new Error(`a propose job attempted ${github.writeAttempts.length} write(s)`);
    for (const r of proposed) if (r.outputs['bundle-path']) cpSync(r.outputs['bundle-path'], merged, { recursive: true });
    const published = await job({ mode: 'publish', bundles: merged }, null);
    return { proposed, proposeMs, published };
  };
  return { repo, github, job, proposeAndPublish, close: () => github.close() };
}

async function wallTimeAction() {
  const samples: Record<string, { wallMs: number[]; proposeMs: number[]; publishMs: number[]; perCandidateMs: number[][]; status: string[] }> = {};
  const add = (k: string) => (samples[k] ??= { wallMs: [], proposeMs: [], publishMs: [], perCandidateMs: [], status: [] });
  for (let rep = 0; rep < reps; rep++) {
    // one job, mode: run
    const one = await actionWorld(suiteFixture(), 'node --test');
    try {
      const r = await one.job({}, editScript(RIGHT, 'run'));
      if (r.outputs.status !== 'fixed') throw new Error(`mode run ended ${r.outputs.status}: ${r.stderr.slice(-500)}`);
      add('run').wallMs.push(Math.round(r.ms));
      samples.run.status.push(r.outputs.status);
      process.stderr.write(`(a/action) rep ${rep + 1} run: ${Math.round(r.ms)} ms\n`);
    } finally {
      await one.close();
    }
    for (const n of NS) {
      const w = await actionWorld(suiteFixture(), 'node --test');
      try {
        const r = await w.proposeAndPublish(Array.from({ length: n }, (_, i) => editScript(RIGHT, `candidate ${i + 1}`)));
        if (r.published.outputs.status !== 'fixed') throw new Error(`N=${n}: publish ended ${r.published.outputs.status}: ${r.published.stdout.slice(-800)}`);
        const k = add(`N=${n}`);
        k.proposeMs.push(Math.round(r.proposeMs));
        k.publishMs.push(Math.round(r.published.ms));
        k.wallMs.push(Math.round(r.proposeMs + r.published.ms));
        k.perCandidateMs.push(r.proposed.map((p) => Math.round(p.ms)));
        k.status.push(r.published.outputs.status);
        process.stderr.write(`(a/action) rep ${rep + 1} N=${n}: propose ${Math.round(r.proposeMs)} ms + publish ${Math.round(r.published.ms)} ms\n`);
      } finally {
        await w.close();
      }
    }
  }
  const base = median(samples.run.wallMs);
  const summary = Object.fromEntries(
    Object.entries(samples).map(([k, v]) => [
      k,
      { medianWallMs: median(v.wallMs), vsOneRun: +(median(v.wallMs) / base).toFixed(2), ...(v.proposeMs.length ? { medianProposeMs: median(v.proposeMs), medianPublishMs: median(v.publishMs), medianCandidateMs: median(v.perCandidateMs.flat()) } : {}) },
    ]),
  );
  return { path: 'action (dist/index.js under node 24, fake GitHub)', fixture: '12 node:test files (1 failing), test command `node --test`, one scripted attempt per candidate', summary, samples };
}

async function fixRateAction() {
  const rows: { p: number; n: number; fixed: number; trials: number; candidatesVerified: number; rate: number; ci95: [number, number]; expected: number; trialsRaw: { trial: number; verified: boolean[]; pr: boolean }[] }[] = [];
  for (const p of PS) {
    for (const n of NS) {
      let fixed = 0;
      let verifiedRuns = 0;
      const raw: { trial: number; verified: boolean[]; pr: boolean }[] = [];
      for (let t = 0; t < trials; t++) {
        const salt = fnv1a(`p=${p} n=${n} trial=${t}`);
        const rights = Array.from({ length: n }, (_, i) => draw(((candidateSampling(String(i + 1)).seed ?? 0) ^ salt) >>> 0) < p);
        const w = await actionWorld(ADDER, 'node test.js');
        try {
          const r = await w.proposeAndPublish(rights.map((right, i) => editScript(right ? RIGHT : WRONG, `candidate ${i + 1}`)));
          const verified = r.proposed.map((x) => x.outputs.status === 'fixed');
          verified.forEach((v, i) => {
            if (v !== rights[i]) throw new Error(`p=${p} n=${n} trial ${t} candidate ${i + 1}: scripted ${rights[i] ? 'right' : 'wrong'} edit ended ${r.proposed[i].outputs.status}`);
          });
          verifiedRuns += verified.filter(Boolean).length;
          const pr = w.github.pulls.length === 1 && r.published.outputs.status === 'fixed';
          if (pr) fixed++;
          raw.push({ trial: t, verified, pr });
        } finally {
          await w.close();
        }
      }
      rows.push({ p, n, fixed, trials, candidatesVerified: verifiedRuns, rate: +(fixed / trials).toFixed(3), ci95: wilson(fixed, trials), expected: +(1 - (1 - p) ** n).toFixed(3), trialsRaw: raw });
      process.stderr.write(`(b/action) p=${p} N=${n}: ${fixed}/${trials} fixed (expected ${(1 - (1 - p) ** n).toFixed(3)})\n`);
    }
  }
  return { path: 'action (dist/index.js under node 24, fake GitHub)', fixture: 'ADDER (test command `node test.js`), max-iterations 1', rows };
}

// ------------------------------------------------------------------------------- (b)

/** mulberry32: a small seeded PRNG, one draw. */
function draw(seed: number): number {
  let t = (seed + 0x6d2b79f5) >>> 0;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

function wilson(k: number, n: number): [number, number] {
  const z = 1.96;
  const p = k / n;
  const d = 1 + (z * z) / n;
  const c = p + (z * z) / (2 * n);
  const m = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [+((c - m) / d).toFixed(3), +((c + m) / d).toFixed(3)];
}

async function fixRate() {
  const repo = makeRepo(ADDER);
  const publish = cloneShallow(repo.remoteUrl).dir;
  const patches = await openPatchGit(publish);
  const settings = bundleSettings();
  const expect = { taskKey: 'issue-7', baseSha: repo.sha, protectedPaths: await publishProtections(settings, publish), maxChangedFiles: 10, maxChangedLines: 200 };
  const rows: { p: number; n: number; fixed: number; trials: number; candidateRuns: number; candidatesVerified: number; rate: number; ci95: [number, number]; expected: number; trialsRaw: { trial: number; verified: boolean[]; winner: string | null }[] }[] = [];
  try {
    for (const p of PS) {
      for (const n of NS) {
        let fixed = 0;
        let verifiedRuns = 0;
        const raw: { trial: number; verified: boolean[]; winner: string | null }[] = [];
        for (let t = 0; t < trials; t++) {
          const outDir = tempDir('agent-fix-bench-rate-');
          const salt = fnv1a(`p=${p} n=${n} trial=${t}`);
          const verified: boolean[] = [];
          for (let c = 1; c <= n; c++) {
            const seed = candidateSampling(String(c)).seed ?? 0;
            const right = draw((seed ^ salt) >>> 0) < p;
            const r = await proposeCandidate({ remoteUrl: repo.remoteUrl, script: editScript(right ? RIGHT : WRONG, `candidate ${c}`), candidate: String(c), outDir });
            rmSync(path.dirname(r.checkout), { recursive: true, force: true });
            verified.push(r.status === 'fixed');
            if (r.status === 'fixed') verifiedRuns++;
            if ((r.status === 'fixed') !== right) throw new Error(`p=${p} n=${n} trial ${t} candidate ${c}: scripted ${right ? 'right' : 'wrong'} edit ended ${r.status}`);
          }
          const s = selectBundle(await readBundles(outDir, expect, patches));
          if (s.winner) fixed++;
          raw.push({ trial: t, verified, winner: s.winner?.manifest.candidate.id ?? null });
          rmSync(outDir, { recursive: true, force: true });
        }
        const rate = fixed / trials;
        rows.push({ p, n, fixed, trials, candidateRuns: n * trials, candidatesVerified: verifiedRuns, rate: +rate.toFixed(3), ci95: wilson(fixed, trials), expected: +(1 - (1 - p) ** n).toFixed(3), trialsRaw: raw });
        process.stderr.write(`(b) p=${p} N=${n}: ${fixed}/${trials} fixed (expected ${(1 - (1 - p) ** n).toFixed(3)})\n`);
      }
    }
  } finally {
    await patches.dispose();
  }
  return { fixture: 'ADDER (test command `node test.js`), max-iterations 1', rows };
}

const started = new Date().toISOString();
const result: Record<string, unknown> = { date: started, machine: { nproc: os.cpus().length, node: process.version, platform: `${os.platform()} ${os.release()}` }, command: `node scripts/run-ts.mjs bench/best-of-n.ts ${process.argv.slice(2).join(' ')}`.trim(), path: via, reps, trials };
const load = () => os.loadavg().map((x) => +x.toFixed(2));
if (only.includes('a')) {
  const before = load();
  result.wallTime = { loadAverageBefore: before, ...(await (via === 'action' ? wallTimeAction() : wallTime())), loadAverageAfter: load() };
}
if (only.includes('b')) {
  const before = load();
  result.fixRate = { loadAverageBefore: before, ...(await (via === 'action' ? fixRateAction() : fixRate())), loadAverageAfter: load() };
}
cleanupFixtures();
writeFileSync(outFile, `${JSON.stringify(result, null, 1)}\n`);
process.stdout.write(`${JSON.stringify(result, (k, v) => (k === 'trialsRaw' || k === 'samples' ? undefined : v), 1)}\n`);
