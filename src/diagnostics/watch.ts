/**
 * Type and lint feedback as a diff: after the model's edits, the diagnostics of the repository's
 * own checkers that the edits newly introduced, before a test run is spent. Checkers of the
 * whole project (`tsc`, mypy, pyright) and per-file linters (ESLint, ruff):
 *
 * - The baseline of a project checker is taken on the tree before the first write (started early
 *   by `warmUp`, awaited before the first write). In a workspace, a package's own tsconfig.json
 *   (the nearest one above the file) gets its baseline before the first write into that package:
 *   an error an earlier edit in another package caused there counts as there before (a limit).
 * - For a linter, the content of each file before its first write (linted through stdin under
 *   its own name when it is first needed), with the config nearest to the file (ESLint).
 * - After edits: the project checkers again (tsc incremental, mypy's cache, both in a temporary
 *   directory) and the linters on the files written so far; compared with the baseline by
 *   compare.ts, so pre-existing errors and errors that only moved are not reported.
 * - Commands run through `exec`, which the caller builds like the test commands' (same
 *   environment allow-list, network sandbox, memory limit), with a timeout. A checker that times
 *   out, crashes or cannot be read is switched off for the rest of the run, with one note.
 * - A repository without any checker gets no watcher at all (`createDiagnostics` returns null).
 */
import { existsSync, mkdtempSync, promises as fsp, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandResult } from '../ports/shell.js';
import {
  detectCheckers,
  eslintCommand,
  LINTABLE,
  mypyCommand,
  mypyTargets,
  nearestEslintConfig,
  nearestTsconfig,
  nearestUp,
  PYTHON,
  pyrightCommand,
  ruffCommand,
  tscCommand,
  tscProjects,
  type CheckerSetup,
} from './checkers.js';
import { newDiagnostics, renderNewDiagnostics, type RenderOptions } from './compare.js';
import { CHECKERS, parseEslintJson, parseMypyOutput, parsePyrightJson, parseRuffJson, parseTscOutput, type Checker, type Diagnostic } from './parse.js';
import { errorMessage } from '../errors.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 90_000;
const MAX_OUTPUT_CHARS = 2_000_000;

export type CheckExec = (command: string, opts: { timeoutMs: number; maxOutputChars: number }) => Promise<CommandResult>;

export interface DiagnosticsOptions {
  root: string;
  /** Where the checkers write what agent-fix reads (the sandbox's scratch: writable inside it); the temp directory when absent. */
  scratch?: string;
  exec: CheckExec;
  /** Per checker run (default 90 s). */
  timeoutMs?: number;
  render?: RenderOptions;
  /** Overrides detection (tests). */
  setup?: CheckerSetup;
}

/** One check after an edit batch. */
export interface DiagnosticsCheck {
  /** The new diagnostics (all of them, not only the shown ones). */
  fresh: Diagnostic[];
  /** For the model ('' when there is nothing to say). */
  text: string;
  shown: number;
  /** Which checkers ran. */
  ran: Checker[];
  ms: number;
}

export interface DiagnosticsStats {
  checkers: Checker[];
  checks: number;
  /** Diagnostics shown to the model, summed over checks. */
  fedBack: number;
  /** Checkers switched off during the run, with why. */
  off: string[];
  ms: number;
}

/** The watcher for a repository with any checker, or null when it has none (then nothing runs). */
export function createDiagnostics(opts: DiagnosticsOptions): DiagnosticsWatcher | null {
  const setup = opts.setup ?? detectCheckers(opts.root);
  if (!CHECKERS.some((c) => setup[c])) return null;
  return new DiagnosticsWatcher(opts, setup);
}

type Outcome = { ok: true; diagnostics: Diagnostic[] } | { ok: false; why: string; off: boolean };

type ProjectChecker = 'tsc' | 'mypy' | 'pyright';
type FileChecker = 'eslint' | 'ruff';

/** One run of a project checker (a tsc project, mypy, pyright) and its baseline. */
interface ProjectJob {
  checker: ProjectChecker;
  key: string;
  run: () => Promise<Outcome>;
  before: Diagnostic[] | null;
}

const TITLES: Record<Checker, string> = { tsc: 'Type check (tsc)', eslint: 'ESLint', mypy: 'mypy', pyright: 'pyright', ruff: 'ruff' };

/** The files each checker reads: an edit batch without any of them runs nothing. */
const READS: Record<Checker, RegExp> = { tsc: /\.(?:[cm]?[jt]sx?|json)$/i, eslint: LINTABLE, mypy: /\.(?:pyi?|toml|ini|cfg)$/i, pyright: /\.(?:pyi?|toml|json)$/i, ruff: /\.(?:pyi?|toml)$/i };
const LINTS: Record<FileChecker, RegExp> = { eslint: LINTABLE, ruff: PYTHON };

export class DiagnosticsWatcher {
  private readonly tmp: string;
  private baseline: Promise<void> | null = null;
  private readonly jobs: ProjectJob[] = [];
  /** Package projects whose baseline is being taken (workspaces). */
  private readonly adding = new Map<string, Promise<void>>();
  /** File content before the model's first write to it (null: the file did not exist). */
  private readonly originals = new Map<string, string | null>();
  /** `checker\0file` -> the file's errors before the model's first write. */
  private readonly lintBefore = new Map<string, Diagnostic[]>();
  private readonly off = new Map<Checker, string>();
  private readonly notesToTell: string[] = [];
  private lastFresh = 0;
  private seq = 0;
  readonly stats: DiagnosticsStats;

  constructor(
    private readonly opts: DiagnosticsOptions,
    private readonly setup: CheckerSetup,
  ) {
    this.tmp = mkdtempSync(path.join(opts.scratch ?? os.tmpdir(), 'agent-fix-diag-'));
    this.stats = { checkers: CHECKERS.filter((c) => setup[c]), checks: 0, fedBack: 0, off: [], ms: 0 };
    for (const project of setup.tsc?.projects ?? []) this.jobs.push(this.tscJob(setup.tsc!.bin, project));
    if (setup.mypy) this.jobs.push({ checker: 'mypy', key: 'mypy', run: () => this.runMypy(), before: null });
    if (setup.pyright) this.jobs.push({ checker: 'pyright', key: 'pyright', run: () => this.runPyright(), before: null });
  }

  /** Starts the baseline of the project checkers on the untouched tree (idempotent). */
  warmUp(): void {
    this.baseline ??= this.takeBaseline(this.jobs.slice());
  }

  /** Called before the model's write to `rel`: the baselines must be complete, and the file's original content is kept. */
  async beforeWrite(rel: string): Promise<void> {
    this.warmUp();
    await this.baseline;
    await this.packageBaseline(rel);
    if (!this.originals.has(rel)) {
      const abs = path.join(this.opts.root, rel);
      this.originals.set(rel, existsSync(abs) ? await fsp.readFile(abs, 'utf8').catch(() => null) : null);
    }
  }

  /**
   * The diagnostics the edits so far introduced, after a batch of edits: `changed` are all files
   * the model wrote so far, `batch` those of this batch (repo-relative). A batch that wrote no
   * file any configured checker reads changes nothing they see: nothing runs.
   */
  async check(changed: string[], batch: string[] = changed): Promise<DiagnosticsCheck> {
    const started = Date.now();
    if (!batch.some((f) => this.stats.checkers.some((c) => READS[c].test(f)))) return { fresh: [], text: '', shown: 0, ran: [], ms: 0 };
    this.warmUp();
    await this.baseline;
    // project checkers one after the other, the linters beside them (separate processes)
    const lines = new LineCache(this.opts.root);
    const parts = await Promise.all([this.projectParts(lines), this.lintPart('eslint', changed, lines), this.lintPart('ruff', changed, lines)]);
    const all = parts.flat();
    const ran = CHECKERS.filter((c) => all.some((p) => p.checker === c));
    const seen = new Set<string>();
    const fresh = all
      .flatMap((p) => p.fresh)
      .filter((d) => {
        const key = `${d.checker}:${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    const rendered = renderNewDiagnostics(fresh, this.opts.render);
    let text = rendered.text;
    if (!text && this.lastFresh > 0 && ran.length > 0) text = 'The errors your earlier edits introduced are gone (no new type or lint errors).';
    if (this.notesToTell.length) text = [text, ...this.notesToTell.splice(0)].filter(Boolean).join('\n');
    this.lastFresh = fresh.length;
    const ms = Date.now() - started;
    this.stats.checks++;
    this.stats.fedBack += rendered.shown;
    this.stats.ms += ms;
    return { fresh, text, shown: rendered.shown, ran, ms };
  }

  /** The new diagnostics of every project checker with a baseline that is on (a run that fails this time is left out). */
  private async projectParts(lines: LineCache): Promise<{ checker: Checker; fresh: Diagnostic[] }[]> {
    const out: { checker: Checker; fresh: Diagnostic[] }[] = [];
    for (const job of this.jobs) {
      if (!job.before || this.off.has(job.checker)) continue;
      const now = await job.run();
      if (!now.ok) {
        this.turnOff(job.checker, now);
        continue;
      }
      out.push({ checker: job.checker, fresh: newDiagnostics(job.before, lines.fill(now.diagnostics)) });
    }
    return out;
  }

  /** The new errors a linter finds in the written files (their baselines and the current state linted side by side). */
  private async lintPart(checker: FileChecker, changed: string[], lines: LineCache): Promise<{ checker: Checker; fresh: Diagnostic[] }[]> {
    if (!this.setup[checker] || this.off.has(checker)) return [];
    const files = changed.filter((f) => LINTS[checker].test(f) && this.originals.has(f) && existsSync(path.join(this.opts.root, f)));
    if (files.length === 0) return [];
    const [before, now] = await Promise.all([this.lintBaseline(checker, files), this.lint(checker, files)]);
    if (!before.ok || !now.ok) {
      this.turnOff(checker, before.ok ? now : before);
      return [];
    }
    return [{ checker, fresh: newDiagnostics(before.diagnostics, lines.fill(now.diagnostics)) }];
  }

  async dispose(): Promise<void> {
    await this.baseline?.catch(() => undefined);
    await Promise.all([...this.adding.values()].map((p) => p.catch(() => undefined)));
    await fsp.rm(this.tmp, { recursive: true, force: true });
  }

  private tscJob(bin: string, project: string): ProjectJob {
    const info = path.join(this.tmp, `tsc-${this.jobs.length}-${++this.seq}.tsbuildinfo`);
    return { checker: 'tsc', key: `tsc:${project}`, run: () => this.runTsc(bin, project, info), before: null };
  }

  private async takeBaseline(jobs: ProjectJob[]): Promise<void> {
    const started = Date.now();
    for (const job of jobs) {
      if (this.off.has(job.checker)) continue;
      const r = await job.run();
      if (r.ok) job.before = new LineCache(this.opts.root).fill(r.diagnostics);
      else this.turnOff(job.checker, { ...r, off: true }); // without a baseline nothing can be compared, for the whole run
    }
    this.stats.ms += Date.now() - started;
  }

  /** A workspace package's own tsconfig.json (nearest above `rel`) that no job covers yet: its job, with its baseline taken now. */
  private async packageBaseline(rel: string): Promise<void> {
    if (!this.setup.tsc || this.off.has('tsc') || !READS.tsc.test(rel) || /\.json$/i.test(rel)) return;
    const config = nearestTsconfig(this.opts.root, rel);
    if (!config) return;
    const pending = this.adding.get(config);
    if (pending) return pending;
    const projects = tscProjects(config).filter((p) => !this.jobs.some((j) => j.key === `tsc:${p}`));
    if (projects.length === 0) return;
    const bin = nearestUp(this.opts.root, path.dirname(config), path.join('node_modules', 'typescript', 'bin', 'tsc')) ?? this.setup.tsc.bin;
    const jobs = projects.map((p) => this.tscJob(bin, p));
    this.jobs.push(...jobs);
    const p = this.takeBaseline(jobs);
    this.adding.set(config, p);
    return p;
  }

  private turnOff(checker: Checker, r: Outcome): void {
    if (r.ok) return;
    if (!r.off) {
      this.notesToTell.push(`(${checker} could not be compared this time: ${r.why})`);
      return;
    }
    if (this.off.has(checker)) return;
    const line = `${TITLES[checker]} is off for the rest of this run: ${r.why}`;
    this.off.set(checker, line);
    this.stats.off.push(line);
    this.notesToTell.push(`(${line}.)`);
  }

  /** One tsc project. */
  private async runTsc(bin: string, project: string, buildInfo: string): Promise<Outcome> {
    const r = await this.exec(tscCommand(bin, project, buildInfo));
    const failed = this.failure(r);
    if (failed) return failed;
    if (r.truncated) return { ok: false, why: 'its output was too long to compare', off: false };
    const diagnostics = parseTscOutput(r.output, this.opts.root);
    if (r.exitCode !== 0 && diagnostics.length === 0) return { ok: false, why: `it exited with ${r.exitCode} without diagnostics: ${firstLine(r.output)}`, off: true };
    // a file is judged by its own (nearest) tsconfig.json: another project that includes it does not speak for it
    return { ok: true, diagnostics: diagnostics.filter((d) => !d.file || path.isAbsolute(d.file) || this.ownedBy(d.file, project)) };
  }

  private readonly owners = new Map<string, string[]>();

  /** Whether `project` is the nearest tsconfig.json of the file (or one that nearest solution-style config references). */
  private ownedBy(rel: string, project: string): boolean {
    let owners = this.owners.get(rel);
    if (!owners) {
      const nearest = nearestTsconfig(this.opts.root, rel);
      owners = nearest ? [nearest, ...tscProjects(nearest)] : [];
      this.owners.set(rel, owners);
    }
    return owners.length === 0 || owners.includes(project);
  }

  /** mypy on the project (exit 1: errors found; 2: it could not check). */
  private async runMypy(): Promise<Outcome> {
    const r = await this.exec(mypyCommand(this.setup.mypy!, path.join(this.tmp, 'mypy-cache'), mypyTargets(this.opts.root)));
    const failed = this.failure(r);
    if (failed) return failed;
    if (r.truncated) return { ok: false, why: 'its output was too long to compare', off: false };
    const diagnostics = parseMypyOutput(r.output, this.opts.root);
    if (r.exitCode !== 0 && diagnostics.length === 0) return { ok: false, why: `it exited with ${r.exitCode} without diagnostics: ${firstLine(r.output)}`, off: true };
    return { ok: true, diagnostics };
  }

  /** pyright on the project (exit 0 or 1: a report; anything else: it could not check). */
  private async runPyright(): Promise<Outcome> {
    const report = path.join(this.tmp, `pyright-${++this.seq}.json`);
    const r = await this.exec(pyrightCommand(this.setup.pyright!, report));
    const failed = this.failure(r);
    if (failed) return failed;
    try {
      const text = await fsp.readFile(report, 'utf8').catch(() => '');
      if (r.exitCode !== 0 && r.exitCode !== 1) return { ok: false, why: `it exited with ${r.exitCode}: ${firstLine(r.output || text)}`, off: true };
      return { ok: true, diagnostics: parsePyrightJson(text, this.opts.root) };
    } catch (e) {
      return { ok: false, why: `its report could not be read (${errorMessage(e)})`, off: true };
    } finally {
      await fsp.rm(report, { force: true });
    }
  }

  /** The errors of each file as it was before the model's first write (linted through stdin; a new file has none). */
  private async lintBaseline(checker: FileChecker, files: string[]): Promise<Outcome> {
    // a few at a time: each is a process of its own
    const todo = files.filter((f) => !this.lintBefore.has(`${checker}\0${f}`));
    const results: Outcome[] = [];
    for (let i = 0; i < todo.length; i += 3) results.push(...(await Promise.all(todo.slice(i, i + 3).map((f) => this.lintOriginal(checker, f)))));
    const failed = results.find((r) => !r.ok);
    if (failed) return failed;
    return { ok: true, diagnostics: files.flatMap((f) => this.lintBefore.get(`${checker}\0${f}`) ?? []) };
  }

  /** One file as it was before the model's first write, linted through stdin under its own name. */
  private async lintOriginal(checker: FileChecker, f: string): Promise<Outcome> {
    const original = this.originals.get(f);
    if (original === null || original === undefined) {
      this.lintBefore.set(`${checker}\0${f}`, []);
      return { ok: true, diagnostics: [] };
    }
    const input = path.join(this.tmp, `original-${++this.seq}`);
    await fsp.writeFile(input, original);
    const r = await this.lint(checker, [f], input);
    await fsp.rm(input, { force: true });
    if (r.ok) this.lintBefore.set(`${checker}\0${f}`, fillFrom(r.diagnostics, original));
    return r;
  }

  /** A linter on files (or one file's content from `stdin`); ESLint per nearest config, run from its directory. */
  private async lint(checker: FileChecker, files: string[], stdin?: string): Promise<Outcome> {
    if (checker === 'ruff') return this.lintRun('ruff', (report) => ruffCommand(this.setup.ruff!, report, files, stdin), (t) => parseRuffJson(t, this.opts.root));
    const groups = new Map<string, { dir: string; bin: string; legacy: boolean; files: string[] }>();
    for (const f of files) {
      const c = nearestEslintConfig(this.opts.root, f);
      if (!c) continue; // no config applies to it: ESLint has nothing to say
      const g = groups.get(c.dir) ?? { dir: c.dir, bin: c.bin, legacy: c.legacy, files: [] };
      g.files.push(path.relative(c.dir, path.join(this.opts.root, f)).split(path.sep).join('/'));
      groups.set(c.dir, g);
    }
    const all: Diagnostic[] = [];
    for (const g of groups.values()) {
      const cwd = path.relative(this.opts.root, g.dir);
      const r = await this.lintRun('eslint', (report) => eslintCommand(g, report, g.files, stdin, cwd), (t) => parseEslintJson(t, this.opts.root));
      if (!r.ok) return r;
      all.push(...r.diagnostics);
    }
    return { ok: true, diagnostics: all };
  }

  private async lintRun(checker: FileChecker, command: (report: string) => string, parse: (text: string) => Diagnostic[]): Promise<Outcome> {
    const report = path.join(this.tmp, `${checker}-${++this.seq}.json`);
    const r = await this.exec(command(report));
    const failed = this.failure(r);
    if (failed) return failed;
    if (r.exitCode !== 0 && r.exitCode !== 1) return { ok: false, why: `it exited with ${r.exitCode}: ${firstLine(r.output)}`, off: true };
    try {
      return { ok: true, diagnostics: parse(await fsp.readFile(report, 'utf8')) };
    } catch (e) {
      return { ok: false, why: `its report could not be read (${errorMessage(e)})`, off: true };
    } finally {
      await fsp.rm(report, { force: true });
    }
  }

  private exec(command: string): Promise<CommandResult> {
    return this.opts.exec(command, { timeoutMs: this.opts.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS, maxOutputChars: MAX_OUTPUT_CHARS });
  }

  private failure(r: CommandResult): Outcome | null {
    if (r.spawnError) return { ok: false, why: `it could not be started (${r.spawnError})`, off: true };
    if (r.timedOut) return { ok: false, why: `it took longer than ${Math.round((this.opts.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS) / 1000)} s and was stopped`, off: true };
    if (r.signal) return { ok: false, why: `it was killed (${r.signal})`, off: true };
    return null;
  }
}

function firstLine(output: string): string {
  const line = output.split('\n').find((l) => l.trim() !== '') ?? '(no output)';
  return line.length > 200 ? line.slice(0, 200) + '…' : line;
}

/** Fills in the source line each diagnostic points to, from the files as they are now. */
class LineCache {
  private readonly files = new Map<string, string[] | null>();
  constructor(private readonly root: string) {}

  fill(ds: Diagnostic[]): Diagnostic[] {
    for (const d of ds) {
      if (!d.file || d.line < 1 || path.isAbsolute(d.file)) continue;
      let lines = this.files.get(d.file);
      if (lines === undefined) {
        try {
          lines = readFileSync(path.join(this.root, d.file), 'utf8').split(/\r?\n/);
        } catch {
          lines = null;
        }
        this.files.set(d.file, lines);
      }
      const text = lines?.[d.line - 1];
      if (text !== undefined) d.text = text.trim();
    }
    return ds;
  }
}

function fillFrom(ds: Diagnostic[], content: string): Diagnostic[] {
  const lines = content.split(/\r?\n/);
  for (const d of ds) {
    const text = d.line >= 1 ? lines[d.line - 1] : undefined;
    if (text !== undefined) d.text = text.trim();
  }
  return ds;
}
