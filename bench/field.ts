/**
 * The sandbox in the field (issue 27): real repositories' CI setup commands (git in setup, a hook
 * installer, a package manager's install with its network, a Python venv) and their test commands,
 * each run under the sandbox (setup's kind, then the tests' kind, as agent-fix runs them) and
 * without it, on fresh clones of the same commit. What it shows: the same test results in both
 * modes; agent-fix's own `.git` untouched by setup under the sandbox (and touched without it: the
 * control); and the time the sandbox adds to each command (median, p90 over the test runs).
 *
 *   node scripts/run-ts.mjs bench/field.ts --mirrors /work/.mirror [--runs 5] [--only qs,ufo]
 *
 * Mirrors: `<owner>+<name>/repo` git directories (the library's `fetch`); nothing fetched is
 * committed. Raw figures in bench/results/field-<user>.json.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeShell } from '../src/adapters/shell.js';
import { openSandbox, probeSandbox } from '../src/sandbox/sandbox.js';
import { childEnv } from '../src/verify/env.js';
import { ROOT } from '../test-support/run-action.js';
import { arg } from './dev-task.js';

interface FieldRepo {
  id: string;
  repo: string;
  sha: string;
  /** What the repository's CI does before its tests, as one command. */
  setup: string;
  test: string;
  /** Pass and fail counts from the plain output. */
  counts: (out: string) => { passed: number; failed: number };
  what: string;
}

const tap = (out: string) => ({ passed: Number(/^# pass\s+(\d+)/m.exec(out)?.[1] ?? -1), failed: Number(/^# fail\s+(\d+)/m.exec(out)?.[1] ?? 0) });
const vitest = (out: string) => ({ passed: Number(/Tests\s+(?:\d+ failed \| )?(\d+) passed/.exec(out)?.[1] ?? -1), failed: Number(/Tests\s+(\d+) failed/.exec(out)?.[1] ?? 0) });
const unittest = (out: string) => {
  const ran = Number(/^Ran (\d+) tests?/m.exec(out)?.[1] ?? -1);
  const m = /^FAILED \((.*)\)/m.exec(out);
  const failed = m ? [...m[1].matchAll(/(?:failures|errors)=(\d+)/g)].reduce((a, x) => a + Number(x[1]), 0) : 0;
  return { passed: ran - failed, failed };
};

const REPOS: FieldRepo[] = [
  {
    id: 'qs',
    repo: 'ljharb/qs',
    sha: '7ebf48b42a4780b3b0b18f12be727bd57a49256b',
    what: 'npm install with the manifest restored by `git checkout --`, then husky as a hook installer (core.hooksPath)',
    setup: 'npm pkg delete devDependencies.evalmd && npm install --no-audit --no-fund --ignore-scripts; git checkout -- package.json && npx -y husky@9',
    test: 'npx tape test/parse.js test/stringify.js',
    counts: tap,
  },
  {
    id: 'ufo',
    repo: 'unjs/ufo',
    sha: 'eb29945',
    what: 'pnpm through npx (a download into the npm cache), frozen lockfile',
    setup: 'npx -y pnpm@$(node -p "require(\'./package.json\').packageManager.split(\'@\')[1]") install --frozen-lockfile --ignore-scripts',
    test: 'npx vitest run test/',
    counts: vitest,
  },
  {
    id: 'more-itertools',
    repo: 'more-itertools/more-itertools',
    sha: 'HEAD',
    what: 'a Python venv with pip (ensurepip, offline), the package importable from the checkout',
    setup: 'python3 -m venv .venv && .venv/bin/python -m pip --version',
    test: '.venv/bin/python -m unittest discover -s tests -t . -q',
    counts: unittest,
  },
];

const mirrors = arg('mirrors', '/work/.mirror')!;
const runs = Number(arg('runs', '5'));
const only = arg('only')?.split(',');
const work = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-field-'));
const probe = probeSandbox();
if (probe.mode === 'none') throw new Error(`no sandbox here: ${probe.description}`);
const shell = makeShell();
const home = process.env.HOME ?? '/root';

function clone(r: FieldRepo, mode: string): string {
  const dir = path.join(work, `${r.id}-${mode}`);
  rmSync(dir, { recursive: true, force: true });
  execFileSync('git', ['clone', '-q', '--no-checkout', path.join(mirrors, r.repo.replace('/', '+'), 'repo'), dir]);
  execFileSync('git', ['-C', dir, 'checkout', '-q', r.sha]);
  return dir;
}

const q = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(p * (s.length - 1) + 0.5))];
};

async function measure(r: FieldRepo, sandboxed: boolean) {
  const dir = clone(r, sandboxed ? 'on' : 'off');
  const box = sandboxed ? openSandbox(probe, dir, [], home) : null;
  const env = (box ? box.env.bind(box) : (e: Record<string, string>) => e)(childEnv({ ...process.env, HOME: home, CI: 'true' }));
  const gitConfig = () => readFileSync(path.join(dir, '.git', 'config'), 'utf8');
  const before = gitConfig();
  const opts = (kind: 'setup' | 'tests') => ({ cwd: dir, env, timeoutMs: 900_000, maxOutputChars: 2_000_000, wrapper: box?.wrapper(kind, kind === 'setup') });
  const t0 = performance.now();
  const setup = await shell.run(r.setup, opts('setup'));
  const setupMs = Math.round(performance.now() - t0);
  const tests: { ms: number; exit: number | null; passed: number; failed: number }[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    const run = await shell.run(r.test, opts('tests'));
    tests.push({ ms: Math.round(performance.now() - t), exit: run.exitCode, ...r.counts(run.output) });
    if (i === 0 && run.exitCode !== 0) console.error(`${r.id} ${sandboxed ? 'on' : 'off'}: tests exit ${run.exitCode}\n${run.output.slice(-1500)}`);
  }
  if (setup.exitCode !== 0) console.error(`${r.id} ${sandboxed ? 'on' : 'off'}: setup exit ${setup.exitCode}\n${setup.output.slice(-1500)}`);
  const ms = tests.map((t) => t.ms);
  return {
    setup: { exit: setup.exitCode, ms: setupMs },
    tests: { exits: [...new Set(tests.map((t) => t.exit))], passed: [...new Set(tests.map((t) => t.passed))], failed: [...new Set(tests.map((t) => t.failed))], median: q(ms, 0.5), p90: q(ms, 0.9), samples: ms },
    agentFixGitConfigChanged: gitConfig() !== before,
  };
}

const rows: unknown[] = [];
for (const r of REPOS.filter((x) => !only || only.includes(x.id))) {
  if (!existsSync(path.join(mirrors, r.repo.replace('/', '+'), 'repo'))) {
    rows.push({ id: r.id, skipped: `no mirror of ${r.repo}` });
    continue;
  }
  const on = await measure(r, true);
  const off = await measure(r, false);
  const row = {
    id: r.id,
    repo: r.repo,
    what: r.what,
    sameResults: JSON.stringify([on.setup.exit, on.tests.exits, on.tests.passed, on.tests.failed]) === JSON.stringify([off.setup.exit, off.tests.exits, off.tests.passed, off.tests.failed]),
    addedMs: { median: on.tests.median - off.tests.median, p90: on.tests.p90 - off.tests.p90 },
    sandbox: on,
    none: off,
  };
  rows.push(row);
  console.error(JSON.stringify(row));
}
const user = process.getuid?.() === 0 ? 'root' : 'nobody';
const out = { date: new Date().toISOString(), machine: `${os.cpus().length} cores, ${os.totalmem() >> 30} GiB, load ${os.loadavg().map((l) => l.toFixed(1)).join(' ')}`, user, runs, repos: rows };
mkdirSync(path.join(ROOT, 'bench', 'results'), { recursive: true });
writeFileSync(path.join(ROOT, 'bench', 'results', `field-${user}.json`), JSON.stringify(out, null, 2) + '\n');
console.log(JSON.stringify(out, null, 2));
rmSync(work, { recursive: true, force: true });
