/**
 * Real bugs of real TypeScript monorepos (pnpm workspaces; issue 22 §3), through the bundles, in
 * issue and CI mode.
 *
 *   node scripts/run-ts.mjs bench/monorepo-tasks.ts [--mirrors /work/.mirror] [--ids a,b] [--work DIR] [--skip-ci] [--skip-wrong] [--skip-issue] [--light-setup]
 *
 * The tasks are descriptors (below): repository, buggy and fix commits, the package the fix
 * belongs to, the install and test commands. Nothing of the repositories is committed: each task
 * is checked out from a mirror (`<owner>+<name>/repo`, the search tool's `fetch`) at run time,
 * installed with pnpm from the npm registry (`.cache/pnpm`, installed by .ci/run or here) and
 * verified: the fix commit's test files on the buggy source fail in the owning package (vitest's
 * JSON report, read here with JSON.parse, not the harness's parsers) and pass with the fix's
 * source files. The failing tests (fail-to-pass) are the ones failing before and passing after.
 *
 * For each verified task:
 *   - issue mode, the CLI bundle (dist/cli.js under node 24) on the buggy commit with the fix's
 *     tests, node_modules installed beforehand, `--test-command` the repository's root-like
 *     command, the commit message as the task, a scripted oracle writing the upstream files (must
 *     end `fixed`) and a scripted wrong edit (a note file; must not end `fixed`). Reported: the
 *     package the change belongs to (the harness's own workspace reading, dist/cli.js's JSON:
 *     the related-tests command run in the loop and the files it selected), whether that run
 *     stayed inside the owning package, the fail-to-pass ids seen at baseline (with their package);
 *   - CI mode, the action bundle (dist/index.js under node 24) against the fake GitHub API: a
 *     failed `workflow_run` whose job log is a real run of the failing package's filtered command
 *     (`pnpm --filter <pkg> test`) at the buggy commit, install included, in the runner's framing;
 *     the oracle as model: failing package named, reproduced (by which evidence), fixed.
 * It does NOT measure a real model's ability to find fixes (no model is reachable here).
 * Writes JSON to stdout (progress on stderr).
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { appendFileSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptedModel } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { extractFailure } from '../src/ci/log-extract.js';
import { node24, ROOT } from '../test-support/run-action.js';
import { jobLog, realRun, repairCiRun } from '../test-support/ci-repair.js';
import { cleanupFixtures } from '../test-support/git-fixture.js';
import { arg, writesScript, treeAt } from './dev-task.js';

interface RepoSpec {
  repo: string;
  /** The install (setup) command, at the root: only the packages the tasks test. */
  install: string;
  /** The root-like test command the harness runs as the gate (what CI runs for these packages). */
  test: string;
  /** One package's test command (the failing CI job's), `{pkg}` the package name. */
  packageTest: string;
  /** Verification from the root (`{files}` the fix's test files) when the packages have no vitest configuration of their own. */
  verifyAtRoot?: string;
  /** The package's vitest `root` (package-relative): the verification names the test files from it. */
  testRoot?: string;
  /** Extra vitest options of the verification only (not of the harness's commands): `--typecheck.enabled=false`. */
  verifyOptions?: string;
  /** The test command of CI mode (the harness's `test-command`), when it is not `test`. */
  ciTest?: string;
}

export interface MonorepoTask {
  id: string;
  repo: string;
  buggy_sha: string;
  fix_sha: string;
  /** The owning package: its directory and name. */
  package: { dir: string; name: string };
  fix_files: string[];
  test_files: string[];
}

const PNPM = path.join(ROOT, '.cache', 'pnpm', 'node_modules', '.bin');
const REPOS: Record<string, RepoSpec> = {
  'fabian-hiller/valibot': {
    repo: 'fabian-hiller/valibot',
    install: 'pnpm install --frozen-lockfile --ignore-scripts --filter valibot --filter @valibot/to-json-schema',
    // both packages' `test` script (`vitest --typecheck`; CI=true: one run, no watch), pnpm's
    // prefixed output; --no-bail: a failing package does not stop the other
    // `--reporter=verbose` after `--` (to each package's vitest): the default reporter names only the
    // files of passing tests, so the fixed tests are not seen passing while an excused failure keeps the
    // exit code at 1 (measured: valibot-45a78e1c refused as tests-still-failing without it)
    test: 'CI=true pnpm --filter valibot --filter @valibot/to-json-schema --no-bail test -- --reporter=verbose',
    packageTest: 'CI=true pnpm --filter {pkg} test',
  },
  // vuejs/core: one root vitest configuration (aliases, `unit` project) for every package; the packages
  // have no `test` script of their own, so a package's tests are the root vitest on its directory
  'vuejs/core': {
    repo: 'vuejs/core',
    install: 'pnpm install --frozen-lockfile --ignore-scripts',
    // the `unit` project (what `pnpm test-unit` runs) on the two packages the tasks touch; verbose:
    // every passing test named (see valibot)
    test: 'CI=true pnpm vitest run --project unit packages/reactivity packages/compiler-core --reporter=verbose',
    packageTest: 'CI=true pnpm vitest run --project unit {dir}',
    verifyAtRoot: 'CI=true pnpm vitest run --project unit {files}',
  },
  // floating-ui/floating-ui (issue 31): pnpm workspace, each package's own vitest (`vitest run`), default
  // reporter; @floating-ui/dom's vitest `root: './test/unit'` (and a vite `root` elsewhere). Setup is CI's
  // (.github/actions/setup + unit: `pnpm install`, `pnpm run build`; scripts ignored here). Issue mode: the
  // maintainers' filtered form (`pnpm --filter @floating-ui/dom run test:browser` in their CI, `test` here:
  // no browser); CI mode: the unit job's own `pnpm run test` (the root script `turbo test`).
  'floating-ui/floating-ui': {
    repo: 'floating-ui/floating-ui',
    // CI builds every package first (`pnpm run build`, 75 s idle, over 10 min on this shared machine); the unit
    // tests need only the `config` package built (turbo's own `test` dependsOn `config#build`): `--light-setup`
    install: process.argv.includes('--light-setup') ? 'pnpm install --frozen-lockfile --ignore-scripts && pnpm --filter config build' : 'pnpm install --frozen-lockfile --ignore-scripts && pnpm run build',
    test: 'pnpm --filter {pkg} test',
    packageTest: 'pnpm run test',
    ciTest: 'pnpm run test',
    testRoot: 'test/unit',
  },
  // vuejs/router (issue 31): pnpm workspace, CI `pnpm run -r test:unit` (packages/router's `vitest --coverage
  // run`, default reporter, pnpm's prefixed output), unmodified in both modes. Setup: `pnpm install` only
  // (CI also runs `pnpm run -r build`; the unit tests run from the sources, measured without it for time).
  'vuejs/router': {
    repo: 'vuejs/router',
    install: 'pnpm install --frozen-lockfile --ignore-scripts',
    test: 'pnpm run -r test:unit',
    packageTest: 'pnpm run -r test:unit',
    verifyOptions: '--typecheck.enabled=false',
  },
  // colinhacks/zod is NOT runnable here (measured 2026-11-27 by the previous helper): its vitest did not
  // exit within 120 s (results printed, process left running; with or without
  // `--typecheck.enabled=false`), and the package's own `test` script fails at startup. Its descriptors
  // (fixes ca246d26, 2a5164f5, f150020d in packages/zod) were removed from TASKS; vuejs/core replaces it.
};

/** The descriptors: real fix commits (message says fix) changing one package's source and its tests. */
const TASKS: Omit<MonorepoTask, 'buggy_sha'>[] = [
  { id: 'valibot-45a78e1c', repo: 'fabian-hiller/valibot', fix_sha: '45a78e1cac1857542da053c49ac202e33c80fb9f', package: { dir: 'packages/to-json-schema', name: '@valibot/to-json-schema' }, fix_files: ['packages/to-json-schema/src/convertSchema.ts'], test_files: ['packages/to-json-schema/src/convertSchema.test.ts'] },
  { id: 'valibot-d9b7fabe', repo: 'fabian-hiller/valibot', fix_sha: 'd9b7fabee34b136dc88fe528623dd75377c76212', package: { dir: 'packages/to-json-schema', name: '@valibot/to-json-schema' }, fix_files: ['packages/to-json-schema/src/convertSchema.ts'], test_files: ['packages/to-json-schema/src/convertSchema.test.ts'] },
  { id: 'valibot-851f2f0b', repo: 'fabian-hiller/valibot', fix_sha: '851f2f0b509d0858ba345f0d84e69bac807ba133', package: { dir: 'packages/to-json-schema', name: '@valibot/to-json-schema' }, fix_files: ['packages/to-json-schema/src/convertSchema.ts', 'packages/to-json-schema/src/toJsonSchema.ts'], test_files: ['packages/to-json-schema/src/convertSchema.test.ts', 'packages/to-json-schema/src/toJsonSchema.test.ts'] },
  { id: 'valibot-ff9348ab', repo: 'fabian-hiller/valibot', fix_sha: 'ff9348ab3a62baca86afc1b8cc835dc5dbc7b574', package: { dir: 'library', name: 'valibot' }, fix_files: ['library/src/actions/partialCheck/partialCheck.ts', 'library/src/actions/partialCheck/partialCheckAsync.ts'], test_files: ['library/src/actions/partialCheck/partialCheck.test.ts', 'library/src/actions/partialCheck/partialCheckAsync.test.ts'] },
  { id: 'valibot-79ee211e', repo: 'fabian-hiller/valibot', fix_sha: '79ee211e07f996c60070fd46e107d5832445b00d', package: { dir: 'library', name: 'valibot' }, fix_files: ['library/src/schemas/enum/enum.ts'], test_files: ['library/src/schemas/enum/enum.test.ts', 'library/src/schemas/enum/enum.test-d.ts'] },
  { id: 'vue-aba7feda', repo: 'vuejs/core', fix_sha: 'aba7feda1703e69e5a7c37f784718de0371adadc', package: { dir: 'packages/reactivity', name: '@vue/reactivity' }, fix_files: ['packages/reactivity/src/baseHandlers.ts'], test_files: ['packages/reactivity/__tests__/readonly.spec.ts'] },
  { id: 'vue-5953c9ff', repo: 'vuejs/core', fix_sha: '5953c9ff90090e128372f645d377bd99137a5fb4', package: { dir: 'packages/compiler-core', name: '@vue/compiler-core' }, fix_files: ['packages/compiler-core/src/babelUtils.ts'], test_files: ['packages/compiler-core/__tests__/transforms/transformExpressions.spec.ts'] },
  { id: 'vue-9b029239', repo: 'vuejs/core', fix_sha: '9b029239edf88558465b941e1e4c085f92b1ebff', package: { dir: 'packages/compiler-core', name: '@vue/compiler-core' }, fix_files: ['packages/compiler-core/src/babelUtils.ts'], test_files: ['packages/compiler-core/__tests__/utils.spec.ts'] },
  { id: 'vue-f05a8d61', repo: 'vuejs/core', fix_sha: 'f05a8d613bd873b811cfdb9979ccac8382dba322', package: { dir: 'packages/compiler-core', name: '@vue/compiler-core' }, fix_files: ['packages/compiler-core/src/tokenizer.ts'], test_files: ['packages/compiler-core/__tests__/parse.spec.ts'] },
  { id: 'floating-ad0a73f1', repo: 'floating-ui/floating-ui', fix_sha: 'ad0a73f1f13a9a03fc68c41bbf6fe7fc6142a451', package: { dir: 'packages/dom', name: '@floating-ui/dom' }, fix_files: ['packages/dom/src/utils/getViewportRect.ts'], test_files: ['packages/dom/test/unit/getViewportRect.test.ts'] },
  { id: 'floating-705a03cb', repo: 'floating-ui/floating-ui', fix_sha: '705a03cb8f32b9af228a1f112a6009fb2c54c088', package: { dir: 'packages/dom', name: '@floating-ui/dom' }, fix_files: ['packages/dom/src/platform/getClientRects.ts'], test_files: ['packages/dom/test/unit/getClientRects.test.ts'] },
  { id: 'router-20521b03', repo: 'vuejs/router', fix_sha: '20521b033352223f898cdb17505c520a5646e812', package: { dir: 'packages/router', name: 'vue-router' }, fix_files: ['packages/router/src/matcher/pathTokenizer.ts'], test_files: ['packages/router/__tests__/matcher/pathParser.spec.ts'] },
  { id: 'router-846640e4', repo: 'vuejs/router', fix_sha: '846640e4b50030223ca909b4f1f6d8179b833c1d', package: { dir: 'packages/router', name: 'vue-router' }, fix_files: ['packages/router/src/experimental/route-resolver/matchers/matcher-pattern.ts'], test_files: ['packages/router/src/experimental/route-resolver/matchers/matcher-pattern.spec.ts'] },
  { id: 'vue-295b5ec1', repo: 'vuejs/core', fix_sha: '295b5ec19b6a52c4a56652cc4d6e93a4ea7c14ed', package: { dir: 'packages/reactivity', name: '@vue/reactivity' }, fix_files: ['packages/reactivity/src/reactive.ts'], test_files: ['packages/reactivity/__tests__/reactive.spec.ts'] },
];

const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-monorepo-tasks'))!;
const ids = arg('ids')?.split(',');
const skipCi = process.argv.includes('--skip-ci');
const skipWrong = process.argv.includes('--skip-wrong');
/** CI mode only (a task's issue mode measured by an earlier run). */
const skipIssue = process.argv.includes('--skip-issue');
const ENV = { ...process.env, PATH: `${PNPM}:${process.env.PATH ?? ''}`, NO_COLOR: '1', FORCE_COLOR: '0' };

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'advice.detachedHead=false', ...args], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 64 << 20 }).trim();
const mirrorOf = (repo: string) => path.join(mirrors, repo.replace('/', '+'), 'repo');
const runnable = (t: MonorepoTask) => t.test_files.filter((f) => !f.endsWith('.test-d.ts'));
const cmdFor = (spec: RepoSpec, t: MonorepoTask) => spec.packageTest.replace('{pkg}', t.package.name).replace('{dir}', t.package.dir).replace('{files}', runnable(t).join(' '));
const testOf = (spec: RepoSpec, t: MonorepoTask) => spec.test.replace('{files}', runnable(t).join(' ')).replace('{pkg}', t.package.name);

function sh(cwd: string, command: string, timeout = 1_800_000): { code: number | null; out: string } {
  const r = spawnSync('bash', ['-c', `${command} 2>&1`], { cwd, encoding: 'utf8', timeout, maxBuffer: 64 << 20, env: ENV, stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: r.status, out: r.stdout ?? '' };
}

function ensurePnpm(): void {
  if (existsSync(path.join(PNPM, 'pnpm'))) return;
  const dir = path.dirname(path.dirname(PNPM));
  mkdirSync(dir, { recursive: true });
  sh(dir, `echo '{"name":"pnpm-cache","private":true}' > package.json && npm install --quiet --no-audit --no-fund --no-save pnpm@9`);
  if (!existsSync(path.join(PNPM, 'pnpm'))) throw new Error('pnpm could not be installed from the npm registry');
}

function cloneAt(repo: string, dir: string, sha: string): void {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(path.dirname(dir), { recursive: true });
  execFileSync('git', ['clone', '-q', '--no-checkout', mirrorOf(repo), dir]);
  git(dir, 'checkout', '-q', sha);
  appendFileSync(path.join(dir, '.git', 'info', 'exclude'), 'node_modules/\n.vitest-report*.json\n');
}

/** The failing and passing test ids of a vitest JSON report (`file > ancestors > title`, file relative to the root). */
function vitestJson(file: string, root: string): { failed: string[]; passed: string[] } | null {
  let data: { testResults?: { name: string; assertionResults?: { ancestorTitles: string[]; title: string; status: string }[] }[] };
  try {
    data = JSON.parse(readFileSync(file, 'utf8')) as typeof data;
  } catch {
    return null;
  }
  const failed: string[] = [];
  const passed: string[] = [];
  for (const f of data.testResults ?? []) {
    for (const a of f.assertionResults ?? []) {
      const id = [path.relative(root, f.name), ...a.ancestorTitles, a.title].join(' > ');
      if (a.status === 'failed') failed.push(id);
      else if (a.status === 'passed') passed.push(id);
    }
  }
  return { failed, passed };
}

/** Checks the task out at its buggy commit with the fix's tests, installs, and verifies fail-before / pass-after. */
function verify(t: MonorepoTask, spec: RepoSpec, dir: string): { ok: boolean; why?: string; failToPass: string[]; installMs: number } {
  cloneAt(t.repo, dir, t.buggy_sha);
  git(dir, 'checkout', t.fix_sha, '--', ...t.test_files);
  const t0 = performance.now();
  const inst = sh(dir, spec.install);
  const installMs = Math.round(performance.now() - t0);
  if (inst.code !== 0) return { ok: false, why: `install exits ${inst.code}: ${inst.out.slice(-400)}`, failToPass: [], installMs };
  const run = (label: string) => {
    const report = path.join(dir, `.vitest-report-${label}.json`);
    const files = runnable(t);
    // the package's vitest on the fix's test files, in the package's directory (its own configuration)
    const inPkg = spec.verifyAtRoot
      ? `${spec.verifyAtRoot.replace('{files}', files.join(' '))} --reporter=json --outputFile=${report}`
      : `cd ${t.package.dir} && CI=true pnpm exec vitest run ${files.map((f) => path.posix.relative(spec.testRoot ?? '', f.slice(t.package.dir.length + 1))).join(' ')} ${spec.verifyOptions ?? ''} --reporter=json --outputFile=${report}`;
    const r = sh(dir, inPkg);
    return { code: r.code, parsed: vitestJson(report, dir), out: r.out };
  };
  const before = run('before');
  if (before.code === 0 || !before.parsed || before.parsed.failed.length === 0) return { ok: false, why: `buggy commit exits ${before.code} with ${before.parsed?.failed.length ?? 'no report'} failing: ${before.out.slice(-300)}`, failToPass: [], installMs };
  for (const f of t.fix_files) git(dir, 'checkout', t.fix_sha, '--', f);
  const after = run('after');
  if (after.code !== 0 || !after.parsed) return { ok: false, why: `fix commit exits ${after.code}: ${after.out.slice(-300)}`, failToPass: [], installMs };
  const failToPass = before.parsed.failed.filter((id) => after.parsed!.passed.includes(id));
  // back to the buggy source with the fix's tests, committed: the CLI's starting point
  git(dir, 'checkout', t.buggy_sha, '--', ...t.fix_files.filter((f) => git(mirrorOf(t.repo), 'ls-tree', '--name-only', t.buggy_sha, '--', f) !== ''));
  rmSync(path.join(dir, '.vitest-report-before.json'), { force: true });
  rmSync(path.join(dir, '.vitest-report-after.json'), { force: true });
  git(dir, 'add', '-A', '--', ...t.test_files);
  git(dir, '-c', 'user.name=bench', '-c', 'user.email=bench@example.com', 'commit', '-q', '-m', 'bench: failing test from the fix commit');
  return { ok: failToPass.length > 0, why: failToPass.length ? undefined : 'no test fails before and passes after', failToPass, installMs };
}

const fixOf = (t: MonorepoTask) => Object.fromEntries(t.fix_files.map((f) => [f, git(mirrorOf(t.repo), 'show', `${t.fix_sha}:${f}`) + '\n']));

/** Is a failing id at baseline (the harness's) the same test as one of vitest's own (file relative to the root)? */
function seen(expected: string[], failing: string[]): string {
  const norm = (s: string) => s.replace(/\s+/g, ' ').trim();
  return `${expected.filter((e) => failing.some((f) => norm(f) === norm(e))).length}/${expected.length}`;
}

async function issueMode(t: MonorepoTask, spec: RepoSpec, dir: string, s: Script, failToPass: string[]) {
  const model = await startScriptedModel(s);
  const t0 = performance.now();
  const outFile = path.join(work, `${t.id}-${Date.now()}.json`);
  const fd = openSync(outFile, 'w');
  const message = git(mirrorOf(t.repo), 'log', '-1', '--format=%B', t.fix_sha);
  const child = spawn(node24(), [path.join(ROOT, 'dist', 'cli.js'), 'fix', message, '--repo', dir, '--test-command', testOf(spec, t), '--base-url', model.url, '--model', 'scripted-oracle', '--max-iterations', '1', '--json'], {
    env: { PATH: ENV.PATH, HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'bench-key-123456', NO_COLOR: '1' },
    stdio: ['ignore', fd, 'pipe'],
  });
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d));
  const code = await new Promise<number | null>((r) => child.on('close', r));
  closeSync(fd);
  await model.close();
  const out = readFileSync(outFile, 'utf8');
  let report;
  try {
    report = JSON.parse(out);
  } catch (e) {
    return { error: `cli exited ${code}: ${err.slice(-600)} ${String(e).slice(0, 100)}` };
  }
  const commands: { purpose: string; command: string; exitCode: number | null; counts: unknown; durationMs: number }[] = report.tests?.commands ?? [];
  const related = commands.filter((c) => c.purpose === 'related');
  const failing: string[] = (report.baseline?.tests ?? []).filter((x: { status: string }) => x.status === 'failed').map((x: { id: string }) => x.id);
  const proof = report.tests?.proof;
  return {
    status: report.status as string,
    wallMs: Math.round(performance.now() - t0),
    runner: report.tests?.runner as string | undefined,
    baseline: report.baseline?.counts,
    final: report.final?.counts,
    // the related-tests run(s) inside the loop: their commands, and whether they stayed in the owning package
    related: related.map((c) => ({ command: c.command, exitCode: c.exitCode, counts: c.counts })),
    relatedInPackage: related.length > 0 && related.every((c) => c.command.includes(`cd ${t.package.dir} `) || c.command.includes(`--project ${t.package.name}`) || c.command.includes(`${t.package.dir}/`)),
    failToPassSeen: seen(failToPass, failing),
    failingAtBaseline: failing.slice(0, 12),
    proof: proof ? { status: proof.status as string, fixed: (proof.tests ?? []).filter((x: { before: string; after: string }) => x.before !== 'passed' && x.after === 'passed').length } : null,
    detail: String(report.detail ?? '').slice(0, 300),
  };
}

async function ciMode(t: MonorepoTask, spec: RepoSpec) {
  const open: { close(): Promise<void> }[] = [];
  const t0 = performance.now();
  try {
    const { text: files, binary } = treeAt(mirrorOf(t.repo), t.fix_sha, ['node_modules/']);
    const broken: Record<string, string> = {};
    for (const f of t.fix_files) broken[f] = git(mirrorOf(t.repo), 'show', `${t.buggy_sha}:${f}`) + '\n';
    let logLines = 0;
    let namedPackages: string[] = [];
    const pkgCommand = cmdFor(spec, t);
    const saved = process.env.PATH;
    process.env.PATH = ENV.PATH;
    let r;
    try {
      ({ r } = await repairCiRun(open, {
        repo: t.repo.split('/')[1],
        files,
        binary,
        broken,
        script: writesScript(`oracle ${t.id}`, fixOf(t)),
        inputs: { 'setup-command': spec.install, 'test-command': spec.ciTest ?? testOf(spec, t), 'max-iterations': '1', 'max-changed-lines': '2000' },
        log: (url) => {
          // a real project's install and build take minutes on a loaded machine: the default 180 s cut the log
          const { output, dir, status } = realRun(url, `${spec.install} >/dev/null 2>&1; ${pkgCommand}`, { env: { NO_COLOR: '1' }, timeoutMs: 1_800_000 });
          const log = jobLog(t.repo.split('/')[1], pkgCommand, output, dir);
          appendFileSync(path.join(work, `${t.id}-ci-job.log`), `exit ${status}\n${log}`);
          logLines = log.split('\n').length;
          namedPackages = extractFailure(log, { repoName: t.repo.split('/')[1] }).failingPackages;
          return log;
        },
      }));
    } finally {
      process.env.PATH = saved;
    }
    const rep = /Reproduction: (reproduced \(evidence: [\w-]+\)|[^\n]+)/.exec(r.stdout)?.[1] ?? null;
    appendFileSync(path.join(work, `${t.id}-ci-summary.md`), `${r.summary}\n\n---\n${r.stdout.slice(-20000)}\n`);
    const why = r.outputs.status === 'fixed' ? undefined : { reason: r.outputs.reason, summary: r.summary.replace(/\s+/g, ' ').slice(0, 600) };
    return { status: r.outputs.status, command: pkgCommand, failingPackagesNamed: namedPackages, reproduction: rep, logLines, wallMs: Math.round(performance.now() - t0), ...why };
  } catch (e) {
    return { error: e instanceof Error ? e.message.slice(0, 400) : String(e) };
  } finally {
    for (const s of open) await s.close();
    cleanupFixtures();
  }
}

ensurePnpm();
mkdirSync(work, { recursive: true });
const results: unknown[] = [];
// in the order --ids gives
for (const d of ids ? ids.flatMap((id) => TASKS.filter((x) => x.id === id)) : TASKS) {
  if (!existsSync(mirrorOf(d.repo))) {
    results.push({ id: d.id, error: `no mirror at ${mirrorOf(d.repo)}` });
    continue;
  }
  const t: MonorepoTask = { ...d, buggy_sha: git(mirrorOf(d.repo), 'rev-parse', `${d.fix_sha}^`) };
  const spec = REPOS[t.repo];
  const dir = path.join(work, 'tasks', t.id);
  const v = verify(t, spec, dir);
  console.error(JSON.stringify({ id: t.id, verified: v.ok, why: v.why, failToPass: v.failToPass.length, installMs: v.installMs }));
  if (!v.ok) {
    results.push({ task: t, verified: false, why: v.why });
    continue;
  }
  const oracle = skipIssue ? { skipped: true as const } : await issueMode(t, spec, dir, writesScript(`oracle ${t.id}`, fixOf(t)), v.failToPass);
  git(dir, 'checkout', '-q', '-f', 'HEAD');
  git(dir, 'clean', '-q', '-fd', '-e', 'node_modules');
  const wrong = skipWrong || skipIssue ? { skipped: true } : await issueMode(t, spec, dir, writesScript(`wrong ${t.id}`, { [`${t.fix_files[0]}.note.txt`]: 'looked at this\n' }), v.failToPass);
  const ci = skipCi ? null : await ciMode(t, spec);
  const row = { task: { ...t, fail_to_pass: v.failToPass, install_ms: v.installMs, test_command: testOf(spec, t), install: spec.install }, issue: { oracle, wrongEdit: wrong }, ci };
  results.push(row);
  appendFileSync(path.join(work, 'rows.jsonl'), `${JSON.stringify(row)}\n`);
  console.error(JSON.stringify({ id: t.id, oracle: 'status' in oracle ? oracle.status : oracle, related: 'related' in oracle ? oracle.related : null, wrong: 'status' in wrong ? wrong.status : wrong, ci: ci && ('status' in ci ? `${ci.status} / ${ci.reproduction} / ${ci.failingPackagesNamed}` : ci) }));
}
console.log(JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2));
