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
 *
 * The watcher knows no checker by name: each is one file of its language behind the `Checker`
 * interface (checker.ts), listed by the language registry (src/lang/index.ts).
 */
import { existsSync, mkdtempSync, promises as fsp, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandResult } from '../ports/shell.js';
import type { CheckContext, Checker, Diagnostic, FileChecker, Outcome, ProjectChecker, ProjectRun } from './checker.js';
import { detectCheckers, type CheckerSetup } from './detect.js';
import { newDiagnostics, renderNewDiagnostics, type RenderOptions } from './compare.js';
import { checkers as allCheckers } from '../lang/index.js';

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
  /** Which checkers ran (their ids). */
  ran: string[];
  ms: number;
}

export interface DiagnosticsStats {
  /** The checkers the repository has (their ids). */
  checkers: string[];
  checks: number;
  /** Diagnostics shown to the model, summed over checks. */
  fedBack: number;
  /** Checkers switched off during the run, with why. */
  off: string[];
  ms: number;
}

/** The watcher for a repository with any checker, or null when it has none (then nothing runs). */
export function createDiagnostics(opts: DiagnosticsOptions): DiagnosticsWatcher | null {
  const setup: Record<string, unknown> = opts.setup ?? detectCheckers(opts.root);
  if (!allCheckers().some((c) => setup[c.id])) return null;
  return new DiagnosticsWatcher(opts, setup);
}

/** One run of a project checker (a tsc project, mypy, pyright) and its baseline. */
interface ProjectJob extends ProjectRun {
  checker: ProjectChecker;
  before: Diagnostic[] | null;
}

type Part = { checker: string; fresh: Diagnostic[] };

export class DiagnosticsWatcher {
  private readonly tmp: string;
  private readonly ctx: CheckContext;
  /** The repository's checkers with what each found. */
  private readonly present: { checker: Checker; setup: unknown }[];
  private baseline: Promise<void> | null = null;
  private readonly jobs: ProjectJob[] = [];
  /** Runs added for a written file (a workspace package's tsconfig), by group, while their baseline is taken. */
  private readonly adding = new Map<string, Promise<void>>();
  /** File content before the model's first write to it (null: the file did not exist). */
  private readonly originals = new Map<string, string | null>();
  /** `checker\0file` -> the file's errors before the model's first write. */
  private readonly lintBefore = new Map<string, Diagnostic[]>();
  private readonly off = new Map<string, string>();
  private readonly notesToTell: string[] = [];
  private lastFresh = 0;
  private seq = 0;
  readonly stats: DiagnosticsStats;

  constructor(
    private readonly opts: DiagnosticsOptions,
    setup: Record<string, unknown>,
  ) {
    this.tmp = mkdtempSync(path.join(opts.scratch ?? os.tmpdir(), 'agent-fix-diag-'));
    const timeoutMs = opts.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS;
    this.ctx = {
      root: opts.root,
      tmp: this.tmp,
      timeoutMs,
      scratch: (name, ext = '') => path.join(this.tmp, `${name}-${++this.seq}${ext}`),
      exec: (command) => opts.exec(command, { timeoutMs, maxOutputChars: MAX_OUTPUT_CHARS }),
    };
    this.present = allCheckers().flatMap((checker) => (setup[checker.id] ? [{ checker, setup: setup[checker.id] }] : []));
    this.stats = { checkers: this.present.map((p) => p.checker.id), checks: 0, fedBack: 0, off: [], ms: 0 };
    for (const { checker, setup: s } of this.present) {
      if (checker.scope === 'project') this.jobs.push(...checker.runs(s, this.ctx).map((r) => ({ ...r, checker, before: null })));
    }
  }

  /** Starts the baseline of the project checkers on the untouched tree (idempotent). */
  warmUp(): void {
    this.baseline ??= this.takeBaseline(this.jobs.slice());
  }

  /** Called before the model's write to `rel`: the baselines must be complete, and the file's original content is kept. */
  async beforeWrite(rel: string): Promise<void> {
    this.warmUp();
    await this.baseline;
    await this.addedRuns(rel);
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
    if (!batch.some((f) => this.present.some((p) => p.checker.reads.test(f)))) return { fresh: [], text: '', shown: 0, ran: [], ms: 0 };
    this.warmUp();
    await this.baseline;
    // project checkers one after the other, the linters beside them (separate processes)
    const lines = new LineCache(this.opts.root);
    const linters = this.present.filter((p): p is { checker: FileChecker; setup: unknown } => p.checker.scope === 'file');
    const parts = await Promise.all([this.projectParts(lines), ...linters.map((p) => this.lintPart(p.checker, p.setup, changed, lines))]);
    const all = parts.flat();
    const ran = this.present.map((p) => p.checker.id).filter((id) => all.some((p) => p.checker === id));
    const fresh = unique(all.flatMap((p) => p.fresh));
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
  private async projectParts(lines: LineCache): Promise<Part[]> {
    const out: Part[] = [];
    for (const job of this.jobs) {
      if (!job.before || this.off.has(job.checker.id)) continue;
      const now = await job.run();
      if (!now.ok) {
        this.turnOff(job.checker, now);
        continue;
      }
      out.push({ checker: job.checker.id, fresh: newDiagnostics(job.before, lines.fill(now.diagnostics)) });
    }
    return out;
  }

  /** The new errors a linter finds in the written files (their baselines and the current state linted side by side). */
  private async lintPart(checker: FileChecker, setup: unknown, changed: string[], lines: LineCache): Promise<Part[]> {
    if (this.off.has(checker.id)) return [];
    const files = changed.filter((f) => checker.lints.test(f) && this.originals.has(f) && existsSync(path.join(this.opts.root, f)));
    if (files.length === 0) return [];
    const [before, now] = await Promise.all([this.lintBaseline(checker, setup, files), checker.lint(setup, files, this.ctx)]);
    if (!before.ok || !now.ok) {
      this.turnOff(checker, before.ok ? now : before);
      return [];
    }
    return [{ checker: checker.id, fresh: newDiagnostics(before.diagnostics, lines.fill(now.diagnostics)) }];
  }

  async dispose(): Promise<void> {
    await this.baseline?.catch(() => undefined);
    await Promise.all([...this.adding.values()].map((p) => p.catch(() => undefined)));
    await fsp.rm(this.tmp, { recursive: true, force: true });
  }

  private async takeBaseline(jobs: ProjectJob[]): Promise<void> {
    const started = Date.now();
    for (const job of jobs) {
      if (this.off.has(job.checker.id)) continue;
      const r = await job.run();
      if (r.ok) job.before = new LineCache(this.opts.root).fill(r.diagnostics);
      else this.turnOff(job.checker, { ...r, off: true }); // without a baseline nothing can be compared, for the whole run
    }
    this.stats.ms += Date.now() - started;
  }

  /** Runs a file about to be written needs that no job covers yet (a workspace package's own tsconfig.json): added, with their baseline taken now. */
  private async addedRuns(rel: string): Promise<void> {
    for (const { checker, setup } of this.present) {
      if (checker.scope !== 'project' || !checker.runsFor || this.off.has(checker.id)) continue;
      const more = checker.runsFor(setup, rel, this.ctx, (key) => this.jobs.some((j) => j.key === key));
      if (!more) continue;
      const pending = this.adding.get(more.group);
      if (pending) return pending;
      if (more.runs.length === 0) continue;
      const jobs = more.runs.map((r) => ({ ...r, checker, before: null }));
      this.jobs.push(...jobs);
      const p = this.takeBaseline(jobs);
      this.adding.set(more.group, p);
      await p;
    }
  }

  private turnOff(checker: Checker, r: Outcome): void {
    if (r.ok) return;
    if (!r.off) {
      this.notesToTell.push(`(${checker.id} could not be compared this time: ${r.why})`);
      return;
    }
    if (this.off.has(checker.id)) return;
    const line = `${checker.title} is off for the rest of this run: ${r.why}`;
    this.off.set(checker.id, line);
    this.stats.off.push(line);
    this.notesToTell.push(`(${line}.)`);
  }

  /** The errors of each file as it was before the model's first write (linted through stdin; a new file has none). */
  private async lintBaseline(checker: FileChecker, setup: unknown, files: string[]): Promise<Outcome> {
    // a few at a time: each is a process of its own
    const todo = files.filter((f) => !this.lintBefore.has(`${checker.id}\0${f}`));
    const results: Outcome[] = [];
    for (let i = 0; i < todo.length; i += 3) results.push(...(await Promise.all(todo.slice(i, i + 3).map((f) => this.lintOriginal(checker, setup, f)))));
    const failed = results.find((r) => !r.ok);
    if (failed) return failed;
    return { ok: true, diagnostics: files.flatMap((f) => this.lintBefore.get(`${checker.id}\0${f}`) ?? []) };
  }

  /** One file as it was before the model's first write, linted through stdin under its own name. */
  private async lintOriginal(checker: FileChecker, setup: unknown, f: string): Promise<Outcome> {
    const original = this.originals.get(f);
    if (original === null || original === undefined) {
      this.lintBefore.set(`${checker.id}\0${f}`, []);
      return { ok: true, diagnostics: [] };
    }
    const input = this.ctx.scratch('original');
    await fsp.writeFile(input, original);
    const r = await checker.lint(setup, [f], this.ctx, input);
    await fsp.rm(input, { force: true });
    if (r.ok) this.lintBefore.set(`${checker.id}\0${f}`, fillFrom(r.diagnostics, original));
    return r;
  }
}

/** Diagnostics without repeats (two runs may report the same one). */
function unique(ds: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return ds.filter((d) => {
    const key = `${d.checker}:${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
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
