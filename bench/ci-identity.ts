/**
 * One test identity for CI logs and local runs (verify/identity.ts), measured on real runs.
 *
 * For every case the benchmark runs a failing test command twice on the same checkout:
 *   - the local run, the way the harness runs it (verify/plan.ts `planStructured` adds the
 *     runner's machine-readable reporter; tape has none and is read from its TAP output):
 *     its failing tests' identities are the expected ones;
 *   - the CI run, with the default and (where the runner has one) a verbose reporter, its output
 *     wrapped as a GitHub Actions job log (timestamps, `##[group]`, `##[error]`): the log
 *     identities are what ci/log-extract.ts finds in it.
 * It reports identity agreement (a local failing test whose identity the log names exactly, file
 * compared where both know it; and with the tolerated differences of `matchIdentity`), log
 * identities that denote no local failure, and whether `checkReproduction` recognises the
 * failure, with which evidence. A control per case: the same log against a local run in which
 * those tests pass (the fix applied, or the break undone) must be refused.
 *
 * Cases: the tasks of ../shared/bench/dev-tasks.json (dayjs/jest, ufo/vitest, qs/tape; buggy
 * commit + the fix commit's tests), two repositories outside that list with a test broken on
 * purpose (unjs/defu: vitest; ljharb/side-channel: tape; npm/ini: node-tap 16), and the project's own fixture
 * projects (__tests__/fixtures/stacks: jest, vitest, mocha, node:test, pytest, go; a runner whose
 * toolchain is missing is skipped with a message). Nothing fetched is committed: checkouts and
 * logs live under --work.
 *
 *   node scripts/run-ts.mjs bench/ci-identity.ts [--tasks /work/shared/bench/dev-tasks.json] [--mirrors /work/.mirror]
 *     [--work DIR] [--only dev,outside,own] [--ids a,b] [--save-fixtures DIR]
 * `--save-fixtures` writes the logs of the own fixture projects and their expected identities
 * (self-written projects only) for the unit tests (__tests__/fixtures/ci-identity/logs).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { extractFailure } from '../src/ci/log-extract.js';
import { checkReproduction, type Reproduction } from '../src/ci/fingerprint.js';
import { identifyRunner, parseStructured, parseTestOutput, planStructured } from '../src/verify/runners/index.js';
import { identityOf, identityLabel, matchIdentity, sameIdentity, type TestIdentity } from '../src/verify/identity.js';
import type { TestCase, TestRun } from '../src/verify/types.js';
import { arg, type DevTask } from './dev-task.js';

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-ci-identity'))!;
const only = new Set((arg('only', 'dev,outside,own') ?? '').split(','));
const ids = arg('ids')?.split(',');
const saveTo = arg('save-fixtures');


const git = (cwd: string, ...a: string[]) => execFileSync('git', ['-c', 'advice.detachedHead=false', ...a], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).trim();

function sh(cwd: string, command: string, env: Record<string, string> = {}): { code: number | null; out: string } {
  const r = spawnSync('bash', ['-o', 'pipefail', '-c', `${command} 2>&1`], { cwd, encoding: 'utf8', env: { ...process.env, CI: 'true', FORCE_COLOR: '0', ...env }, maxBuffer: 256 << 20, timeout: 600_000 });
  return { code: r.status, out: r.stdout ?? '' };
}

/** The output as a GitHub Actions job log: timestamps, the step's group, the runner's error line. */
function asJobLog(command: string, output: string, exit: number | null, dir: string): string {
  // the checkout sits where the runner puts it
  output = output.split(dir).join('/home/runner/work/project/project');
  let t = Date.parse('2026-01-01T00:00:00Z');
  const stamp = () => `${new Date((t += 37)).toISOString().replace('Z', '0000Z')} `;
  const lines = [
    '##[group]Run actions/checkout@v4',
    'Syncing repository: octo/project',
    '##[endgroup]',
    `##[group]Run ${command}`,
    command,
    'shell: /usr/bin/bash -e {0}',
    '##[endgroup]',
    ...output.replace(/\n$/, '').split('\n'),
    `##[error]Process completed with exit code ${exit ?? 1}.`,
  ];
  return lines.map((l) => stamp() + l).join('\n') + '\n';
}

interface LocalRun {
  tests: TestCase[];
  run: TestRun;
  structured: boolean;
}

/** The harness's own run of the command: structured reporter when the runner has one. */
function localRun(dir: string, command: string, env: Record<string, string> = {}): LocalRun {
  let script: string | null = null;
  try {
    script = (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { scripts?: Record<string, string> }).scripts?.test ?? null;
  } catch {
    script = null;
  }
  const info = identifyRunner(command, script);
  const reportFile = path.join(dir, '.agent-fix-report');
  rmSync(reportFile, { force: true });
  const plan = planStructured(command, info, reportFile);
  for (const s of plan.support ?? []) {
    if ('text' in s) writeFileSync(s.path, s.text);
    else copyFileSync(s.copyOf, s.path);
  }
  const r = sh(dir, plan.command, env);
  let tests: TestCase[] = [];
  let structured = false;
  const reportPath = plan.reportFile && existsSync(plan.reportFile) ? plan.reportFile : null;
  if (plan.format && (reportPath || plan.format === 'go-json')) {
    const text = plan.format === 'go-json' ? r.out : readFileSync(reportPath as string, 'utf8');
    const parsed = parseStructured(plan.format, text, dir, plan.flavour);
    if (parsed) {
      tests = parsed.tests;
      structured = true;
    }
  }
  if (!structured) tests = parseTestOutput(r.out).tests;
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const t of tests) counts[t.status]++;
  const run: TestRun = { command, exitCode: r.code, timedOut: false, durationMs: 0, succeeded: r.code === 0, tests, counts, parsedFrom: 'none', outputTail: r.out.slice(-4000) };
  return { tests, run, structured };
}

interface Variant {
  reporter: string;
  command: string;
}

interface Row {
  source: 'dev' | 'outside' | 'own';
  case: string;
  runner: string;
  reporter: string;
  localStructured: boolean;
  localFailing: number;
  exact: number;
  tolerant: number;
  logFailures: number;
  logUnmatched: string[];
  missed: string[];
  reproduction: string;
  control: string;
}

const rows: Row[] = [];
const logPath = (name: string, reporter: string) => path.join(work, 'logs', `${name.replace(/\//g, '+')}-${reporter}.log`);
const skipped: { case: string; why: string }[] = [];

function measure(source: Row['source'], name: string, runner: string, dir: string, local: LocalRun, variants: Variant[], control: LocalRun | null, env: Record<string, string> = {}): void {
  const expected = local.tests.filter((t) => t.status === 'failed').map((t) => ({ id: t.id, identity: identityOf(t.id, t.file) }));
  if (local.run.succeeded) {
    skipped.push({ case: name, why: `the local run passes: ${local.run.outputTail.slice(-300)}` });
    return;
  }
  // a run that fails without a failing test (a crash) has no identity to agree on, but must still be recognised
  for (const v of variants) {
    const r = sh(dir, v.command, env);
    const log = asJobLog(v.command, r.out, r.code, dir);
    mkdirSync(path.join(work, 'logs'), { recursive: true });
    writeFileSync(logPath(name, v.reporter), log);
    if (saveTo && source === 'own') {
      mkdirSync(saveTo, { recursive: true });
      const base = name.replace(/^own\//, '');
      writeFileSync(path.join(saveTo, `${base}-${v.reporter}.log`), log);
      writeFileSync(path.join(saveTo, `${base}.expected.json`), JSON.stringify(expected.map((e) => e.identity), null, 1) + '\n');
    }
    const x = extractFailure(log, { repoName: 'project' });
    const logIds: TestIdentity[] = x.failures.map((f) => f.identity);
    const exact = expected.filter((e) => logIds.some((l) => sameIdentity(l, e.identity)));
    const tolerant = expected.filter((e) => logIds.some((l) => matchIdentity(l, [e.identity]) !== null) || x.failingTests.some((n) => matchIdentity(identityOf(n), [e.identity]) !== null));
    const unmatched = x.failures.filter((f) => !matchIdentity(f.identity, expected.map((e) => e.identity)));
    const evidence = { tests: x.failingTests, failures: x.failures, files: x.failingFiles, errors: x.errors };
    const rep: Reproduction = checkReproduction(evidence, local.run);
    const ctl = control ? checkReproduction(evidence, control.run) : null;
    const row: Row = {
      source,
      case: name,
      runner,
      reporter: v.reporter,
      localStructured: local.structured,
      localFailing: expected.length,
      exact: exact.length,
      tolerant: tolerant.length,
      logFailures: x.failures.length,
      logUnmatched: unmatched.map((u) => identityLabel(u.identity)).slice(0, 5),
      missed: expected.filter((e) => !exact.includes(e)).map((e) => `${e.id} | log: ${x.failures.map((f) => identityLabel(f.identity)).slice(0, 3).join(' ; ')}`).slice(0, 3),
      reproduction: rep.kind === 'reproduced' ? `reproduced (${rep.evidence})` : 'not-reproduced',
      control: ctl ? ctl.kind : 'n/a',
    };
    rows.push(row);
    console.error(JSON.stringify(row));
  }
}

/** Reporter variants of a runner's command (the command without the structured flags). */
function variantsFor(runner: string, base: string): Variant[] {
  switch (runner) {
    case 'jest':
      return [
        { reporter: 'default', command: base },
        { reporter: 'verbose', command: `${base} --verbose` },
      ];
    case 'vitest':
      return [
        { reporter: 'default', command: base },
        { reporter: 'verbose', command: `${base} --reporter=verbose` },
      ];
    case 'mocha':
      return [
        { reporter: 'spec', command: base },
        { reporter: 'tap', command: `${base} --reporter tap` },
      ];
    case 'node-test':
      return [
        { reporter: 'spec', command: base },
        { reporter: 'tap', command: base.replace(/^node /, 'node --test-reporter=tap ') },
      ];
    case 'pytest':
      return [
        { reporter: 'default', command: base },
        { reporter: 'verbose', command: `${base} -v` },
      ];
    case 'go':
      return [
        { reporter: 'default', command: base },
        { reporter: 'verbose', command: base.replace('go test', 'go test -v') },
      ];
    case 'tap':
      // node-tap: its default (classic, or base on 18+) and raw TAP
      return [
        { reporter: 'default', command: base },
        { reporter: 'tap', command: `${base} --reporter=tap` },
      ];
    default:
      return [{ reporter: 'tap', command: base }];
  }
}

// ------------------------------------------------------------------ dev tasks

function devTasks(): void {
  const all: DevTask[] = JSON.parse(readFileSync(arg('tasks', '/work/shared/bench/dev-tasks.json')!, 'utf8')).tasks;
  const tasks = ids ? all.filter((t) => ids.includes(t.id)) : all;
  const installed = new Set<string>();
  for (const t of tasks) {
    const mirror = path.join(mirrors, t.repo.replace('/', '+'), 'repo');
    if (!existsSync(mirror)) {
      skipped.push({ case: t.id, why: `no mirror of ${t.repo} at ${mirror} (bring it with the library's fetch)` });
      continue;
    }
    const dir = path.join(work, 'repos', t.repo.replace('/', '+'));
    if (!existsSync(dir)) {
      mkdirSync(path.dirname(dir), { recursive: true });
      execFileSync('git', ['clone', '-q', '--no-checkout', mirror, dir]);
    }
    git(dir, 'reset', '-q', '--hard');
    git(dir, 'checkout', '-q', '-f', t.buggy_sha);
    git(dir, 'clean', '-qfdx', '-e', 'node_modules');
    git(dir, 'checkout', t.fix_sha, '--', ...t.test_files);
    if (!installed.has(t.repo)) {
      const r = sh(dir, t.install_command);
      if (r.code !== 0) {
        skipped.push({ case: t.id, why: `install failed: ${r.out.slice(-400)}` });
        continue;
      }
      git(dir, 'checkout', '-q', '--', '.');
      git(dir, 'checkout', t.fix_sha, '--', ...t.test_files);
      installed.add(t.repo);
    }
    const runner = t.repo.endsWith('/qs') ? 'tape' : t.repo.endsWith('/ufo') ? 'vitest' : 'jest';
    const env: Record<string, string> = {};
    let cmd = t.test_command;
    const tz = /^TZ=(\S+)\s+/.exec(cmd);
    if (tz) {
      env.TZ = tz[1];
      cmd = cmd.slice(tz[0].length);
    }
    // the CI command: the task's command without its JSON report flags
    const base = cmd.replace(/\s+--json\b/, '').replace(/\s+--reporter=json\b/, '').replace(/\s+--outputFile=\S+/, '');
    const local = localRun(dir, base, env);
    const variants = variantsFor(runner, base);
    // control: the fix applied, the same log must not be "reproduced"
    const measureNow = () => measure('dev', t.id, runner, dir, local, variants, null, env);
    measureNow();
    git(dir, 'checkout', t.fix_sha, '--', ...t.fix_files);
    const fixed = localRun(dir, base, env);
    git(dir, 'checkout', t.buggy_sha, '--', ...t.fix_files);
    // the control rows reuse the logs just measured: recompute with the fixed run
    for (const row of rows.filter((r) => r.case === t.id)) {
      const log = readFileSync(logPath(t.id, row.reporter), 'utf8');
      const x = extractFailure(log, { repoName: 'project' });
      row.control = checkReproduction({ tests: x.failingTests, failures: x.failures, files: x.failingFiles, errors: x.errors }, fixed.run).kind;
    }
  }
}

// ------------------------------------------------------------------ outside the list

interface Outside {
  repo: string;
  runner: 'vitest' | 'tape' | 'tap';
  install: string;
  command: string;
  /** A test broken on purpose: file, text, replacement. */
  breaks: [string, string, string][];
}

const OUTSIDE: Outside[] = [
  {
    repo: 'unjs/defu',
    runner: 'vitest',
    // only what the tests need (the project's lint and type tooling is left out)
    install: 'npm pkg delete devDependencies && npm install --no-audit --no-fund --ignore-scripts --no-package-lock vitest@4 expect-type 2>&1 | tail -2',
    command: 'npx vitest run',
    breaks: [['test/defu.test.ts', 'expect(result).toEqual({ a: "c", d: "c" });', 'expect(result).toEqual({ a: "c", d: "x" });']],
  },
  {
    repo: 'ljharb/side-channel',
    runner: 'tape',
    // only what the tests need (its devDependencies ask for typescript@next)
    install: 'npm pkg delete devDependencies && npm install --no-audit --no-fund --ignore-scripts --no-package-lock tape@5 2>&1 | tail -2',
    command: 'npx tape test/index.js',
    breaks: [['test/index.js', "st.equal(channel.has(o), false, 'nonexistent value yields false');", "st.equal(channel.has(o), true, 'nonexistent value yields false');"]],
  },
  {
    // node-tap 16 (issue 22 §2): its subtests carry `# time=` directives in CI output and locally
    repo: 'npm/ini',
    runner: 'tap',
    install: 'npm pkg delete devDependencies && npm install --no-audit --no-fund --ignore-scripts --no-package-lock tap@16 2>&1 | tail -2',
    // the project's `tap` without the coverage check (one file of the suite)
    command: 'npx tap --no-coverage test/foo.js',
    breaks: [['test/foo.js', "t.not(e.slice(0, 1), '\\n', 'Never a blank first line')", "t.equal(e.slice(0, 1), '\\n', 'Never a blank first line')"]],
  },
];

function outside(): void {
  next: for (const o of OUTSIDE.filter((x) => !ids || ids.includes(x.repo))) {
    const mirror = path.join(mirrors, o.repo.replace('/', '+'), 'repo');
    if (!existsSync(mirror)) {
      skipped.push({ case: o.repo, why: `no mirror at ${mirror}` });
      continue;
    }
    const dir = path.join(work, 'repos', o.repo.replace('/', '+'));
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.dirname(dir), { recursive: true });
    execFileSync('git', ['clone', '-q', mirror, dir]);
    const inst = sh(dir, o.install);
    if (inst.code !== 0) {
      skipped.push({ case: o.repo, why: `install failed: ${inst.out.slice(-300)}` });
      continue;
    }
    git(dir, 'checkout', '-q', '--', '.');
    for (const [file, from, to] of o.breaks) {
      const p = path.join(dir, file);
      const text = readFileSync(p, 'utf8');
      if (!text.includes(from)) {
        skipped.push({ case: o.repo, why: `the test to break is not in ${file} at this commit` });
        continue next;
      }
      writeFileSync(p, text.replace(from, to));
    }
    const local = localRun(dir, o.command);
    measure('outside', o.repo, o.runner, dir, local, variantsFor(o.runner, o.command), null);
    git(dir, 'checkout', '-q', '--', '.');
    const green = localRun(dir, o.command);
    for (const row of rows.filter((r) => r.case === o.repo)) {
      const log = readFileSync(logPath(o.repo, row.reporter), 'utf8');
      const x = extractFailure(log, { repoName: 'project' });
      row.control = checkReproduction({ tests: x.failingTests, failures: x.failures, files: x.failingFiles, errors: x.errors }, green.run).kind;
    }
  }
}

// ------------------------------------------------------------------ own fixture projects

const PROBES: Record<string, string[]> = { pytest: ['python3', '-m', 'pytest', '--version'], go: ['go', 'version'] };
const COMMANDS: Record<string, string> = {
  jest: 'npx --no-install jest',
  vitest: 'npx --no-install vitest run',
  mocha: 'npx --no-install mocha',
  'node-test': 'node --test',
  pytest: 'python3 -m pytest',
  go: 'go test ./...',
  tape: 'node test/index.js',
};

/** The test-intelligence stacks (passing, failing, erroring tests) and the naming projects (levels, parameters, long names, tape). */
const OWN: { name: string; from: string; runner: string }[] = [
  ...['jest', 'vitest', 'mocha', 'node-test', 'pytest', 'go'].map((r) => ({ name: `stacks-${r}`, from: path.join('stacks', r), runner: r })),
  ...['jest', 'vitest', 'mocha', 'node-test', 'pytest', 'go', 'tape'].map((r) => ({ name: `names-${r}`, from: path.join('ci-identity', r), runner: r })),
];

function own(): void {
  for (const s of OWN) {
    const probe = PROBES[s.runner];
    if (probe && spawnSync(probe[0], probe.slice(1), { stdio: 'ignore' }).status !== 0) {
      skipped.push({ case: `own/${s.name}`, why: `${probe[0]} is not installed (.ci/run installs it)` });
      continue;
    }
    const dir = path.join(work, 'own', s.name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(path.dirname(dir), { recursive: true });
    cpSync(path.join(ROOT, '__tests__', 'fixtures', s.from), dir, { recursive: true });
    // the flaky tests alternate between runs: left out, a log and a local run must see the same failures
    for (const f of ['test/flaky.test.js', 'tests/test_flaky.py', 'flaky']) rmSync(path.join(dir, f), { recursive: true, force: true });
    if (existsSync(path.join(dir, 'package.json'))) symlinkSync(realpathSync(path.join(ROOT, 'node_modules')), path.join(dir, 'node_modules'), 'dir');
    const command = COMMANDS[s.runner];
    const local = localRun(dir, command);
    measure('own', `own/${s.name}`, s.runner, dir, local, variantsFor(s.runner, command), null);
  }
}

mkdirSync(work, { recursive: true });
if (only.has('dev')) devTasks();
if (only.has('outside')) outside();
if (only.has('own')) own();

const sum = (f: (r: Row) => number, rs = rows) => rs.reduce((a, r) => a + f(r), 0);
const bySource = (src: string) => rows.filter((r) => r.source === src);
const summary = Object.fromEntries(
  ['dev', 'outside', 'own', 'all'].map((src) => {
    const rs = src === 'all' ? rows : bySource(src);
    return [
      src,
      {
        logs: rs.length,
        localFailing: sum((r) => r.localFailing, rs),
        exact: sum((r) => r.exact, rs),
        tolerant: sum((r) => r.tolerant, rs),
        agreementExactPct: rs.length ? Math.round((1000 * sum((r) => r.exact, rs)) / sum((r) => r.localFailing, rs)) / 10 : null,
        logUnmatched: sum((r) => r.logUnmatched.length, rs),
        reproduced: rs.filter((r) => r.reproduction.startsWith('reproduced')).length,
        byIdentity: rs.filter((r) => r.reproduction === 'reproduced (test-identity)').length,
        controlsRefused: rs.filter((r) => r.control === 'not-reproduced').length,
        controls: rs.filter((r) => r.control !== 'n/a').length,
      },
    ];
  }),
);
console.log(JSON.stringify({ date: new Date().toISOString(), node: process.version, nproc: os.cpus().length, summary, skipped, rows }, null, 2));
