/**
 * The harness's test runs for one fix: structured results where the runner can write them
 * (plain-output parsing otherwise), reconciled with the exit code; the baseline run twice
 * when it fails (flaky tests marked); inside the loop the tests related to the changed
 * files first, then the full command as the gate, re-run once when tests newly fail so a
 * flaky test does not block a fix; each run the loop gets comes with its verdict (compare.ts),
 * judged here once; the runs of the fail-to-pass proof of tests the model wrote.
 */
import { isTestFileByName } from '../lang/index.js';
import { languageOfFile, stemOfTest } from '../lang/index.js';
import { copyFile, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { CommandResult } from '../ports/shell.js';
import type { Redactor } from '../redact.js';
import type { JudgedRun, TestCase, TestRun } from './types.js';
import { compareRuns, STRICT_GATE, type GateRule } from './compare.js';
import {
  displayCommand,
  findsRelated,
  identifyRunner,
  loadRunner,
  parseStructured,
  planFiles,
  planRelated,
  relatedByImports,
  planStructured,
  reportAsOutput,
  reportExtension,
  type OutputContext,
  type PlannedRun,
  type RunnerInfo,
} from './runners/index.js';
import { firstRepoFrame } from './runners/report.js';
import type { PackageJson } from './runners/runner.js';
import { reconcile } from './reconcile.js';
import { toTestRun } from './test-run.js';
import { ImportGraph, testsReaching } from './imports.js';
import { stillFailingFiles, testFileOf, type FileLink, type TestLinks } from './tolerance.js';

export interface SessionDeps {
  root: string;
  testCommand: string;
  /** Runs a shell command in the repository (env, timeout, caps applied by the caller). */
  exec: (command: string) => Promise<CommandResult>;
  redactor: Redactor;
  /** Repo-relative files changed since the baseline (working tree). */
  changedFiles?: () => Promise<string[]>;
  listFiles?: () => Promise<string[]>;
  /** Run the related tests first inside the loop (default true). */
  relatedFirst?: boolean;
  /** Ask the runner for a machine-readable report (default true). */
  structured?: boolean;
  /** Where the runner writes its report for agent-fix (the sandbox's scratch: writable inside it); the temp directory when absent. */
  scratch?: string;
  /**
   * Where the runner's own report file in the checkout (jest's `--outputFile=x`) is read after a run:
   * in the sandbox a test run's writes to the checkout are thrown away, but for this file
   * (RunSandbox.exportFile). The checkout's file when absent.
   */
  exportFile?: (rel: string) => string;
}

/** One entry per command the harness ran, for the report. */
export interface CommandRecord {
  purpose: 'baseline' | 'baseline-rerun' | 'related' | 'gate' | 'gate-rerun' | 'proof-before' | 'proof-after' | 'relatedness' | 'original-tests';
  command: string;
  exitCode: number | null;
  timedOut: boolean;
  durationMs: number;
  counts: TestRun['counts'];
}

/** Ids whose status differs between two runs of the same code (a test missing from one run is not compared). */
export function differingTests(a: TestRun, b: TestRun): string[] {
  const other = new Map(b.tests.map((t) => [t.id, t.status]));
  const out: string[] = [];
  for (const t of a.tests) {
    const s = other.get(t.id);
    if (s !== undefined && s !== t.status && (s === 'failed' || t.status === 'failed')) out.push(t.id);
  }
  return out;
}

/** Frames that name a file by its base name only (go prints `calc_test.go:13`): the repo path when it is unique. */
export function resolveFrames(tests: TestCase[], allFiles: string[]): TestCase[] {
  const known = new Set(allFiles);
  return tests.map((t) => {
    if (!t.frame) return t;
    const m = t.frame.match(/^(.+?)(:\d+(?::\d+)?)$/);
    if (!m || known.has(m[1])) return t;
    // a runner printing from its root (vitest `root: 'test/unit'`): the frame beside the test's own file
    const testFile = t.file ?? t.id.split(' > ')[0];
    const beside = testFile.includes('/') ? path.posix.join(path.posix.dirname(testFile), m[1]) : null;
    if (beside && known.has(beside)) return { ...t, frame: `${beside}${m[2]}` };
    const hits = allFiles.filter((f) => f.endsWith(`/${m[1]}`));
    return hits.length === 1 ? { ...t, frame: `${hits[0]}${m[2]}` } : t;
  });
}

/** Repo files holding the tests that failed in `run` (from the runner's file, or the id's file prefix). */
export function failingTestFiles(run: TestRun | null, allFiles: string[]): string[] {
  if (!run) return [];
  const known = new Set(allFiles);
  const out = new Set<string>();
  for (const t of run.tests) {
    if (t.status !== 'failed') continue;
    const candidate = t.file ?? t.id.split(' > ')[0].split('::')[0];
    if (known.has(candidate)) out.add(candidate);
  }
  return [...out];
}

/**
 * Test files named after the changed source files (`src/plugin/duration/index.js` ->
 * `test/plugin/duration.test.js`), within the language (src/lang/: a change to math.js selects
 * math.test.js, not test_math.py); a language that names no test after a source selects none.
 */
export function testFilesNamedAfter(changed: string[], allFiles: string[]): string[] {
  const stems = new Set<string>();
  for (const c of changed) {
    const lang = languageOfFile(c);
    if (isTestFileByName(c) || !lang?.stemOfTest) continue;
    const parts = c.split('/');
    const base = parts[parts.length - 1].replace(/\.[^.]+$/, '');
    stems.add(`${lang.id}:${base === 'index' && parts.length > 1 ? parts[parts.length - 2] : base}`);
  }
  if (stems.size === 0) return [];
  return allFiles.filter((f) => {
    if (!isTestFileByName(f)) return false;
    const named = stemOfTest(f);
    return named !== null && stems.has(`${named.language}:${named.stem}`);
  });
}

async function mtime(file: string): Promise<number | null> {
  try {
    return (await stat(file)).mtimeMs;
  } catch {
    return null;
  }
}

export class TestSession {
  readonly info: RunnerInfo;
  readonly commands: CommandRecord[] = [];
  private baselineRun: TestRun | null = null;
  private seq = 0;
  /** How the gate treats failures that predate the change, when a run is not given its rule (a session used on its own, benchmarks). */
  gate: GateRule = STRICT_GATE;

  private constructor(
    private readonly deps: SessionDeps,
    info: RunnerInfo,
    private readonly tmp: string,
  ) {
    this.info = info;
  }

  static async create(deps: SessionDeps): Promise<TestSession> {
    let script: string | null = null;
    let pkg: PackageJson | null = null;
    try {
      pkg = JSON.parse(await readFile(path.join(deps.root, 'package.json'), 'utf8')) as PackageJson;
      if (typeof pkg.scripts?.test === 'string') script = pkg.scripts.test;
    } catch {
      // not a node project
    }
    const tmp = await mkdtemp(path.join(deps.scratch ?? os.tmpdir(), 'agent-fix-tests-'));
    const info = await loadRunner(identifyRunner(deps.testCommand, script), deps.root, pkg, deps.testCommand);
    return new TestSession(deps, info, tmp);
  }

  async dispose(): Promise<void> {
    await rm(this.tmp, { recursive: true, force: true });
  }

  get baseline(): TestRun | null {
    return this.baselineRun;
  }

  /** Uses a run taken elsewhere as the baseline (benchmarks, or a baseline run without the flaky re-run). */
  useBaseline(run: TestRun): void {
    this.baselineRun = run;
  }

  private reportPath(): string {
    this.seq++;
    return path.join(this.tmp, `report-${this.seq}.${reportExtension(this.info.runner)}`);
  }

  private plainPlan(): PlannedRun {
    return { command: this.deps.testCommand, flavour: 'generic', parsedFrom: 'none' };
  }

  /** The runner's related-test selection for the current verification (attachLinks). */
  private selection: { key: string; selected: Set<string> | null } | null = null;

  /** Set when the runner rejected our reporter flags: the plain command from then on. */
  private structuredOff = false;

  private fullPlan(): PlannedRun {
    if (this.deps.structured === false || this.structuredOff) return this.plainPlan();
    return planStructured(this.deps.testCommand, this.info, this.reportPath());
  }

  /**
   * What the output parser needs beyond the workspaces: the repository's path (vitest's root line)
   * and, for a command that runs one package (a filtered workspace command, or a selection run in
   * the package's directory), that package: an output without prefixes is its.
   */
  private outputContext(plan: PlannedRun): OutputContext {
    const ctx: OutputContext = { root: this.deps.root };
    const pkgs = this.info.target?.packages ?? [];
    const cd = /^cd (\S+) && /.exec(plan.command)?.[1]?.replace(/^'|'$/g, '');
    const one = cd ? (this.info.workspace?.packages.find((p) => p.dir === cd) ?? pkgs.find((p) => p.dir === cd)) : pkgs.length === 1 ? pkgs[0] : undefined;
    if (one) ctx.only = { dir: one.dir, name: one.name, testRoot: one.testRoot };
    return ctx;
  }

  /** Runs one planned command and turns it into a reconciled TestRun. */
  async execute(plan: PlannedRun, scope: 'full' | 'related', purpose: CommandRecord['purpose']): Promise<TestRun> {
    const { redactor, root } = this.deps;
    const reportPath = plan.reportFile && plan.ownReport ? (this.deps.exportFile?.(plan.reportFile) ?? path.resolve(root, plan.reportFile)) : plan.reportFile;
    // The user's own report file is never deleted: it counts only when this run wrote it. Its
    // sandbox export (agent-fix's copy) is emptied first, so no run reads what an earlier one wrote.
    if (reportPath && plan.reportFile && plan.ownReport && reportPath !== path.resolve(root, plan.reportFile)) await writeFile(reportPath, '');
    const before = reportPath && plan.ownReport ? await mtime(reportPath) : null;
    if (reportPath && !plan.ownReport) await rm(reportPath, { force: true });
    for (const file of plan.support ?? []) {
      if ('copyOf' in file) {
        await copyFile(file.copyOf, file.path).catch((e: NodeJS.ErrnoException) => {
          throw new Error(`agent-fix's own file ${file.copyOf} could not be copied for the test run (${e.code ?? e.message}): the installation is incomplete (the build ships it next to dist/index.js).`);
        });
      }
      else await writeFile(file.path, file.text);
    }
    const r = await this.deps.exec(plan.command);
    let content: string | null = null;
    if (reportPath && (!plan.ownReport || (await mtime(reportPath)) !== before)) {
      try {
        content = await readFile(reportPath, 'utf8');
      } catch {
        content = null;
      }
    }
    let output = r.output;
    if (plan.stdoutIsReport) output = `${content ? reportAsOutput(plan.format, content) : ''}${output}`;
    let run = toTestRun({ ...r, output, command: this.deps.testCommand }, redactor, undefined, this.info.workspace?.packages, this.outputContext(plan));
    // go -json: build failures are plain lines on stdout (in the report) and stderr (in the output).
    const reportText = plan.stdoutIsReport && content !== null ? `${content}\n${r.output}` : content;
    const parsed = reportText && plan.format ? parseStructured(plan.format, reportText, root, plan.flavour) : null;
    if (parsed && (parsed.tests.length > 0 || r.exitCode === 0)) {
      const clean = (t: TestCase): TestCase => {
        const c = { ...t };
        if (c.message) c.message = redactor.redact(c.message);
        if (c.details) c.details = redactor.redact(c.details);
        return c;
      };
      run = {
        ...run,
        tests: parsed.tests.map(clean),
        counts: parsed.totals,
        parsedFrom: plan.parsedFrom,
        structured: true,
        loadErrors: parsed.loadErrors,
      };
    } else if (run.parsedFrom === 'none' && plan.parsedFrom !== 'none' && run.tests.length > 0) {
      run = { ...run, parsedFrom: plan.parsedFrom };
    }
    if (run.structured && this.deps.listFiles && run.tests.some((t) => t.frame)) run = { ...run, tests: resolveFrames(run.tests, await this.deps.listFiles()) };
    // Plain output: the first in-repo frame of a failure's text (evidence for tolerance.ts).
    if (!run.structured && run.tests.some((t) => t.status === 'failed' && !t.frame && t.details)) {
      run = { ...run, tests: run.tests.map((t) => (t.status === 'failed' && !t.frame && t.details ? { ...t, frame: firstRepoFrame(t.details.replace(/['"`]/g, ' '), root) } : t)) };
      // frames printed from a runner's root (a package's vitest root) made repo-relative
      if (this.deps.listFiles && run.tests.some((t) => t.frame)) run = { ...run, tests: resolveFrames(run.tests, await this.deps.listFiles()) };
    }
    run.executed = redactor.redact(plan.command);
    run.scope = scope;
    run = reconcile(run);
    this.commands.push({ purpose, command: displayCommand(run.executed ?? run.command), exitCode: run.exitCode, timedOut: run.timedOut, durationMs: run.durationMs, counts: run.counts });
    return run;
  }

  /** The baseline: the full command on the untouched code; run twice when it fails, to mark flaky tests. */
  async runBaseline(): Promise<TestRun> {
    const plan = this.fullPlan();
    let first = await this.execute(plan, 'full', 'baseline');
    if (plan.reportFile && !plan.ownReport && !first.structured && first.tests.length === 0 && !first.succeeded) {
      // No report and nothing parsed: maybe our flags broke the command (an old runner, a
      // wrapper that rejects them). The command as given decides; if it behaves differently,
      // the session stays with it.
      const plain = await this.execute(this.plainPlan(), 'full', 'baseline');
      if (plain.succeeded || plain.tests.length > 0 || plain.exitCode !== first.exitCode) {
        this.structuredOff = true;
        first = plain;
      }
    }
    let run = first;
    if (!first.succeeded && first.tests.some((t) => t.status === 'failed') && first.exitCode !== 127) {
      const second = await this.execute(this.fullPlan(), 'full', 'baseline-rerun');
      const flaky = differingTests(first, second);
      if (flaky.length) run = { ...first, flaky };
    }
    this.baselineRun = run;
    return run;
  }

  /**
   * Rule `allow`: for the test files of the failures that predate the change and remain,
   * what connects them to the files the change touched (tolerance.ts): the runner's own
   * related-test selection (jest, vitest: one related run on the changed files) and the
   * repository's import graph. Attached to the run, so the gate decides from the run alone.
   */
  async attachLinks(run: TestRun, gate: GateRule = this.gate): Promise<TestRun> {
    const baseline = this.baselineRun;
    if (gate.preexisting !== 'allow' || run.succeeded || !baseline || !this.deps.changedFiles) return run;
    const files = stillFailingFiles(baseline, run);
    if (files.length === 0) return run;
    const changed = (await this.deps.changedFiles()).filter((p) => !p.startsWith('..'));
    const all = [...new Set([...(this.deps.listFiles ? await this.deps.listFiles() : []), ...changed])];
    const graph = this.importGraph(all);
    // The runner's selection, once per verification (the related run and the gate see the same tree).
    const key = changed.join('\0');
    let selected: Set<string> | null = this.selection?.key === key ? this.selection.selected : null;
    if (this.selection?.key !== key && findsRelated(this.info.runner) && !this.structuredOff && changed.length) {
      const plan = planRelated(this.info, changed, all, this.reportPath());
      if (plan) {
        const r = await this.execute(plan, 'related', 'relatedness');
        if (r.structured) selected = new Set([...r.tests.map((t) => testFileOf(t)).filter((f): f is string => !!f), ...(r.loadErrors ?? [])]);
      }
      this.selection = { key, selected };
    }
    const links: TestLinks = { changed, files: {} };
    for (const f of files) {
      const reach = await graph.reach(f, changed);
      const link: FileLink = { runner: selected === null ? 'none' : selected.has(f) ? 'selected' : 'not-selected', graph: reach.status, detail: reach.detail };
      links.files[f] = link;
    }
    return { ...run, links };
  }

  /** The repository's import graph over `files`, read from the working tree. */
  private importGraph(files: string[]): ImportGraph {
    return new ImportGraph({
      files,
      read: async (f) => {
        try {
          return await readFile(path.join(this.deps.root, f), 'utf8');
        } catch {
          return null;
        }
      },
    });
  }

  /**
   * The verdict on a run (compare.ts, the one judge), against the baseline. Without a baseline
   * (a session used on its own) against an empty passing one: every failing test counts.
   */
  private judge(run: TestRun, gate: GateRule): JudgedRun {
    const baseline: TestRun = this.baselineRun ?? { command: run.command, exitCode: 0, timedOut: false, durationMs: 0, succeeded: true, tests: [], counts: { passed: 0, failed: 0, skipped: 0 }, parsedFrom: run.parsedFrom, outputTail: '' };
    return { run, verdict: compareRuns(baseline, run, gate) };
  }

  /**
   * The full command (the gate), re-run once when tests newly fail, to tell flaky tests from
   * real ones; with the verdict on the run it returns (callers use it as is, never judge again).
   */
  async runGate(gate: GateRule = this.gate): Promise<JudgedRun> {
    const first = this.judge(await this.attachLinks(await this.execute(this.fullPlan(), 'full', 'gate'), gate), gate);
    const baseline = this.baselineRun;
    if (!baseline || first.run.timedOut || first.verdict.ok || first.verdict.newlyFailing.length === 0) return first;
    const second = await this.execute(this.fullPlan(), 'full', 'gate-rerun');
    const flaky = [...new Set([...differingTests(first.run, second), ...(baseline.flaky ?? [])])];
    return flaky.length ? this.judge({ ...first.run, flaky }, gate) : first;
  }

  /**
   * Inside the loop: the tests related to the changed files first (fast feedback), always
   * including the test files of the tests that failed at baseline; when those pass (or fail
   * only the way the gate tolerates), the full gate. When the runner's own selection finds no test, test files named after the
   * changed files are tried.
   */
  async runForLoop(gate: GateRule = this.gate): Promise<JudgedRun> {
    this.selection = null;
    if (this.deps.relatedFirst !== false && this.deps.changedFiles && !this.structuredOff) {
      const changed = (await this.deps.changedFiles()).filter((p) => !p.startsWith('..'));
      const all = this.deps.listFiles ? await this.deps.listFiles() : [];
      // pytest and other runners that cannot find related tests: the test files importing a changed file
      const importers = relatedByImports(this.info.runner) ? await testsReaching(this.importGraph(all), all.filter(isTestFileByName), changed) : [];
      const selection = [...new Set([...changed, ...importers, ...failingTestFiles(this.baselineRun, all)])];
      const plan = planRelated(this.info, selection, all, this.reportPath());
      let related: TestRun | null = plan ? await this.execute(plan, 'related', 'related') : null;
      if (related) related = await this.attachLinks(related, gate);
      const ranNothing = (r: TestRun | null) => !r || (r.counts.passed + r.counts.failed === 0 && !(r.loadErrors?.length) && r.succeeded);
      if (ranNothing(related)) {
        const named = testFilesNamedAfter(changed, all);
        const byName = named.length ? planFiles(this.info, named, this.reportPath()) : null;
        if (byName) related = await this.attachLinks(await this.execute(byName, 'related', 'related'), gate);
      }
      // The related tests decide the attempt when they already show it cannot pass the gate
      // (judged like the gate, so failures that predate the change count as the gate counts them).
      if (related && !related.succeeded && this.baselineRun) {
        const judged = this.judge(related, gate);
        if (!judged.verdict.ok) return judged;
      }
    }
    return this.runGate(gate);
  }

  /** Runs only the given test files with the current working tree; null when the runner cannot select files. */
  async runFiles(testFiles: string[], purpose: CommandRecord['purpose']): Promise<TestRun | null> {
    if (this.structuredOff) return null;
    const plan = planFiles(this.info, testFiles, this.reportPath());
    if (!plan) return null;
    return this.execute(plan, 'related', purpose);
  }

  /** The full command with the current working tree (used by the proof when files cannot be selected). */
  async runFull(purpose: CommandRecord['purpose']): Promise<TestRun> {
    return this.execute(this.fullPlan(), 'full', purpose);
  }
}
