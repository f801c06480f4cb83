/**
 * Type and lint feedback as a diff: after the model's edits, the diagnostics of the repository's
 * own `tsc` and ESLint that the edits newly introduced, before a test run is spent.
 *
 * - The baseline is taken once, on the tree before the first write: `tsc` on the whole project
 *   (started early by `warmUp`, awaited before the first write), and for ESLint the content of
 *   each file before its first write (linted through stdin when it is first needed).
 * - After edits: `tsc` again (incremental, build info in a temporary directory) and ESLint on the
 *   files written so far; compared with the baseline by compare.ts, so pre-existing errors and
 *   errors that only moved are not reported.
 * - Commands run through `exec`, which the caller builds like the test commands' (same
 *   environment allow-list, network sandbox, memory limit), with a timeout. A checker that times
 *   out, crashes or cannot be read is switched off for the rest of the run, with one note.
 * - A repository without either checker gets no watcher at all (`createDiagnostics` returns null).
 */
import { existsSync, mkdtempSync, promises as fsp, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { CommandResult } from '../ports/shell.js';
import { detectCheckers, eslintCommand, LINTABLE, tscCommand, type CheckerSetup } from './checkers.js';
import { newDiagnostics, renderNewDiagnostics, type RenderOptions } from './compare.js';
import { parseEslintJson, parseTscOutput, type Checker, type Diagnostic } from './parse.js';
import { errorMessage } from '../errors.js';

export const DEFAULT_CHECK_TIMEOUT_MS = 90_000;
const MAX_OUTPUT_CHARS = 2_000_000;

export type CheckExec = (command: string, opts: { timeoutMs: number; maxOutputChars: number }) => Promise<CommandResult>;

export interface DiagnosticsOptions {
  root: string;
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

/** The watcher for a repository with tsc or ESLint, or null when it has neither (then nothing runs). */
export function createDiagnostics(opts: DiagnosticsOptions): DiagnosticsWatcher | null {
  const setup = opts.setup ?? detectCheckers(opts.root);
  if (!setup.tsc && !setup.eslint) return null;
  return new DiagnosticsWatcher(opts, setup);
}

type Outcome = { ok: true; diagnostics: Diagnostic[] } | { ok: false; why: string; off: boolean };

export class DiagnosticsWatcher {
  private readonly tmp: string;
  private baseline: Promise<void> | null = null;
  private tscBefore: Diagnostic[] | null = null;
  /** File content before the model's first write to it (null: the file did not exist). */
  private readonly originals = new Map<string, string | null>();
  private readonly eslintBefore = new Map<string, Diagnostic[]>();
  private readonly off = new Map<Checker, string>();
  private readonly notesToTell: string[] = [];
  private lastFresh = 0;
  private seq = 0;
  readonly stats: DiagnosticsStats;

  constructor(
    private readonly opts: DiagnosticsOptions,
    private readonly setup: CheckerSetup,
  ) {
    this.tmp = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-diag-'));
    this.stats = { checkers: [...(setup.tsc ? ['tsc' as const] : []), ...(setup.eslint ? ['eslint' as const] : [])], checks: 0, fedBack: 0, off: [], ms: 0 };
  }

  /** Starts the baseline type check on the untouched tree (idempotent). */
  warmUp(): void {
    this.baseline ??= this.takeBaseline();
  }

  /** Called before the model's write to `rel`: the baseline must be complete, and the file's original content is kept. */
  async beforeWrite(rel: string): Promise<void> {
    this.warmUp();
    await this.baseline;
    if (!this.originals.has(rel)) {
      const abs = path.join(this.opts.root, rel);
      this.originals.set(rel, existsSync(abs) ? await fsp.readFile(abs, 'utf8').catch(() => null) : null);
    }
  }

  /**
   * The diagnostics the edits so far introduced, after a batch of edits: `changed` are all files
   * the model wrote so far, `batch` those of this batch (repo-relative). A batch that wrote no
   * JavaScript, TypeScript or JSON file changes nothing either checker sees: nothing runs.
   */
  async check(changed: string[], batch: string[] = changed): Promise<DiagnosticsCheck> {
    const started = Date.now();
    if (!batch.some((f) => LINTABLE.test(f) || /\.json$/i.test(f))) return { fresh: [], text: '', shown: 0, ran: [], ms: 0 };
    this.warmUp();
    await this.baseline;
    // tsc and ESLint side by side (separate processes; on a machine with free cores the check takes the longer of the two)
    const lines = new LineCache(this.opts.root);
    const parts = await Promise.all([this.tscPart(lines), this.eslintPart(changed, lines)]);
    const ran = parts.flatMap((p) => (p ? [p.checker] : []));
    const fresh = parts.flatMap((p) => p?.fresh ?? []);
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

  /** The new tsc diagnostics, or null when tsc is not run (absent, off, failed this time). */
  private async tscPart(lines: LineCache): Promise<{ checker: Checker; fresh: Diagnostic[] } | null> {
    if (!this.setup.tsc || !this.tscBefore || this.off.has('tsc')) return null;
    const now = await this.runTsc();
    if (!now.ok) {
      this.turnOff('tsc', now);
      return null;
    }
    return { checker: 'tsc', fresh: newDiagnostics(this.tscBefore, lines.fill(now.diagnostics)) };
  }

  /** The new ESLint errors of the written files (their baselines and the current state linted side by side), or null. */
  private async eslintPart(changed: string[], lines: LineCache): Promise<{ checker: Checker; fresh: Diagnostic[] } | null> {
    if (!this.setup.eslint || this.off.has('eslint')) return null;
    const files = changed.filter((f) => LINTABLE.test(f) && this.originals.has(f) && existsSync(path.join(this.opts.root, f)));
    if (files.length === 0) return null;
    const [before, now] = await Promise.all([this.eslintBaseline(files), this.lint(files)]);
    if (!before.ok || !now.ok) {
      this.turnOff('eslint', before.ok ? now : before);
      return null;
    }
    return { checker: 'eslint', fresh: newDiagnostics(before.diagnostics, lines.fill(now.diagnostics)) };
  }

  async dispose(): Promise<void> {
    await this.baseline?.catch(() => undefined);
    await fsp.rm(this.tmp, { recursive: true, force: true });
  }

  private async takeBaseline(): Promise<void> {
    const started = Date.now();
    if (this.setup.tsc) {
      const r = await this.runTsc();
      if (r.ok) this.tscBefore = new LineCache(this.opts.root).fill(r.diagnostics);
      else this.turnOff('tsc', { ...r, off: true }); // without a baseline nothing can be compared, for the whole run
    }
    this.stats.ms += Date.now() - started;
  }

  private turnOff(checker: Checker, r: Outcome): void {
    if (r.ok) return;
    if (!r.off) {
      this.notesToTell.push(`(${checker} could not be compared this time: ${r.why})`);
      return;
    }
    if (this.off.has(checker)) return;
    const line = `${checker === 'tsc' ? 'Type check (tsc)' : 'ESLint'} is off for the rest of this run: ${r.why}`;
    this.off.set(checker, line);
    this.stats.off.push(line);
    this.notesToTell.push(`(${line}.)`);
  }

  /** Every project (a solution's references one after the other); a diagnostic two projects share counts once. */
  private async runTsc(): Promise<Outcome> {
    const { bin, projects } = this.setup.tsc!;
    const all: Diagnostic[] = [];
    const seen = new Set<string>();
    for (const [i, project] of projects.entries()) {
      const r = await this.exec(tscCommand(bin, project, path.join(this.tmp, `tsc-${i}.tsbuildinfo`)));
      const failed = this.failure(r);
      if (failed) return failed;
      if (r.truncated) return { ok: false, why: 'its output was too long to compare', off: false };
      const diagnostics = parseTscOutput(r.output, this.opts.root);
      if (r.exitCode !== 0 && diagnostics.length === 0) return { ok: false, why: `it exited with ${r.exitCode} without diagnostics: ${firstLine(r.output)}`, off: true };
      for (const d of diagnostics) {
        const key = `${d.file}:${d.line}:${d.column}:${d.code}:${d.message}`;
        if (!seen.has(key)) all.push(d);
        seen.add(key);
      }
    }
    return { ok: true, diagnostics: all };
  }

  /** The errors of each file as it was before the model's first write (linted through stdin; a new file has none). */
  private async eslintBaseline(files: string[]): Promise<Outcome> {
    // a few at a time: each is an ESLint process of its own
    const todo = files.filter((f) => !this.eslintBefore.has(f));
    const results: Outcome[] = [];
    for (let i = 0; i < todo.length; i += 3) results.push(...(await Promise.all(todo.slice(i, i + 3).map((f) => this.lintOriginal(f)))));
    const failed = results.find((r) => !r.ok);
    if (failed) return failed;
    return { ok: true, diagnostics: files.flatMap((f) => this.eslintBefore.get(f) ?? []) };
  }

  /** One file as it was before the model's first write, linted through stdin under its own name. */
  private async lintOriginal(f: string): Promise<Outcome> {
    const original = this.originals.get(f);
    if (original === null || original === undefined) {
      this.eslintBefore.set(f, []);
      return { ok: true, diagnostics: [] };
    }
    const input = path.join(this.tmp, `original-${++this.seq}`);
    await fsp.writeFile(input, original);
    const r = await this.lint([f], input);
    await fsp.rm(input, { force: true });
    if (r.ok) this.eslintBefore.set(f, fillFrom(r.diagnostics, original));
    return r;
  }

  private async lint(files: string[], stdin?: string): Promise<Outcome> {
    const report = path.join(this.tmp, `eslint-${++this.seq}.json`);
    const r = await this.exec(eslintCommand(this.setup.eslint!, report, files, stdin));
    const failed = this.failure(r);
    if (failed) return failed;
    if (r.exitCode !== 0 && r.exitCode !== 1) return { ok: false, why: `it exited with ${r.exitCode}: ${firstLine(r.output)}`, off: true };
    try {
      return { ok: true, diagnostics: parseEslintJson(await fsp.readFile(report, 'utf8'), this.opts.root) };
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
