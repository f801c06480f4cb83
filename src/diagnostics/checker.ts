/**
 * One interface for a type checker or linter of the repository's own (tsc, ESLint, mypy, pyright,
 * ruff, …): a checker is one file of its language (`src/lang/<id>/`) implementing `Checker`, from
 * finding the repository's configured and installed binary to reading its output. The watcher
 * (watch.ts) knows no checker by name; a new checker is its file and an entry in its language's
 * `checkers`.
 *
 * Two shapes: a project checker (tsc, mypy, pyright) checks the whole project before the first
 * edit and after each batch; a file checker (ESLint, ruff) lints the written files and, through
 * stdin, their content before the first write.
 */
import { existsSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import type { CommandResult } from '../ports/shell.js';
import { errorMessage } from '../errors.js';

export interface Diagnostic {
  /** The checker's id ('tsc', 'eslint', 'mypy', 'pyright', 'ruff', …). */
  checker: string;
  /** Repo-relative path with '/' separators; '' for a diagnostic about no file (e.g. a tsconfig error). */
  file: string;
  line: number;
  column: number;
  /** 'TS2322', the ESLint rule id ('parse' for a fatal parse error), mypy's error code, pyright's rule, ruff's rule code. */
  code: string;
  message: string;
  /** The trimmed source line the diagnostic points to (filled in by the watcher), to recognise it after lines moved. */
  text?: string;
}

/** A checker run's result: its diagnostics, or why it could not be read (`off`: switched off for the rest of the run). */
export type Outcome = { ok: true; diagnostics: Diagnostic[] } | { ok: false; why: string; off: boolean };

/** What a checker gets from the watcher to run: the repository, a scratch directory outside it, the command runner. */
export interface CheckContext {
  root: string;
  /** A new file name in the watcher's temporary directory (`tsc-3.tsbuildinfo`); nothing is created. */
  scratch(name: string, ext?: string): string;
  /** The watcher's temporary directory (caches that live as long as the watcher: mypy's). */
  tmp: string;
  /** Runs a command with the watcher's timeout and output cap (the same sandbox and environment as the test commands). */
  exec(command: string): Promise<CommandResult>;
  timeoutMs: number;
}

interface CheckerBase<Id extends string, S> {
  id: Id;
  /** For a line saying it was switched off: 'Type check (tsc)'. */
  title: string;
  /** For the message to the model: 'type check (tsc)'. */
  label: string;
  /** The files it reads: an edit batch without any of them runs nothing. */
  reads: RegExp;
  /** The repository's configured and installed checker, or undefined (then it never runs). */
  detect(root: string): S | undefined;
}

/** One run of a project checker (a tsc project, mypy), with the key that names it among the watcher's runs. */
export interface ProjectRun {
  key: string;
  run: () => Promise<Outcome>;
}

export interface ProjectChecker<Id extends string = string, S = any> extends CheckerBase<Id, S> {
  scope: 'project';
  /** The runs a check is made of (tsc: one per project), known before any edit. */
  runs(setup: S, ctx: CheckContext): ProjectRun[];
  /**
   * Runs a file about to be written needs that are not known yet (a workspace package's own
   * tsconfig.json), grouped under `group` so they are added once; null when it needs none.
   * `known` tells the keys the watcher has.
   */
  runsFor?(setup: S, rel: string, ctx: CheckContext, known: (key: string) => boolean): { group: string; runs: ProjectRun[] } | null;
}

export interface FileChecker<Id extends string = string, S = any> extends CheckerBase<Id, S> {
  scope: 'file';
  /** The files it lints. */
  lints: RegExp;
  /** Lints `files` (repo-relative), or the content in the file `stdin` as `files[0]`. */
  lint(setup: S, files: string[], ctx: CheckContext, stdin?: string): Promise<Outcome>;
}

export type Checker<Id extends string = string, S = any> = ProjectChecker<Id, S> | FileChecker<Id, S>;

/** The setup a checker's `detect` finds. */
export type SetupOf<C> = C extends Checker<string, infer S> ? S : never;

// ------------------------------------------------------------------------- shared by the checkers

/** A path as a diagnostic names it: repo-relative with '/' (absolute when outside the repository). */
export function relative(root: string, file: string): string {
  const abs = path.resolve(root, file);
  const rel = path.relative(root, abs);
  return (rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel).split(path.sep).join('/');
}

/** A word for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The nearest file `name` (a path under a directory, e.g. node_modules/typescript/bin/tsc) from the directory `fromDir` up to the root. */
export function nearestUp(root: string, fromDir: string, name: string): string | undefined {
  let dir = path.resolve(fromDir);
  const top = path.resolve(root);
  for (;;) {
    const cand = path.join(dir, name);
    if (existsSync(cand)) return cand;
    if (dir === top || !dir.startsWith(top + path.sep)) return undefined;
    dir = path.dirname(dir);
  }
}

/** Directories from `rel`'s own (a repo-relative file) up to the root, nearest first, as absolute paths. */
export function upFrom(root: string, rel: string): string[] {
  const dirs: string[] = [];
  let dir = path.posix.dirname(rel.split(path.sep).join('/'));
  for (;;) {
    dirs.push(dir === '.' ? root : path.join(root, dir));
    if (dir === '.' || dir === '/' || dir === '') break;
    dir = path.posix.dirname(dir);
  }
  return dirs;
}

export function firstLine(output: string): string {
  const line = output.split('\n').find((l) => l.trim() !== '') ?? '(no output)';
  return line.length > 200 ? line.slice(0, 200) + '…' : line;
}

/** A run that did not complete (could not start, timed out, killed): switched off; null when it completed. */
export function failure(r: CommandResult, ctx: CheckContext): Outcome | null {
  if (r.spawnError) return { ok: false, why: `it could not be started (${r.spawnError})`, off: true };
  if (r.timedOut) return { ok: false, why: `it took longer than ${Math.round(ctx.timeoutMs / 1000)} s and was stopped`, off: true };
  if (r.signal) return { ok: false, why: `it was killed (${r.signal})`, off: true };
  return null;
}

/** A checker printing its diagnostics as lines (tsc, mypy): a non-zero exit without any diagnostic means it could not check. */
export async function runLines(ctx: CheckContext, command: string, parse: (output: string) => Diagnostic[]): Promise<Outcome> {
  const r = await ctx.exec(command);
  const failed = failure(r, ctx);
  if (failed) return failed;
  if (r.truncated) return { ok: false, why: 'its output was too long to compare', off: false };
  const diagnostics = parse(r.output);
  if (r.exitCode !== 0 && diagnostics.length === 0) return { ok: false, why: `it exited with ${r.exitCode} without diagnostics: ${firstLine(r.output)}`, off: true };
  return { ok: true, diagnostics };
}

/** A linter writing a JSON report to a file (ESLint, ruff): exit 0 or 1 and a report it can read, or it is switched off. */
export async function runReport(ctx: CheckContext, name: string, command: (report: string) => string, parse: (text: string) => Diagnostic[]): Promise<Outcome> {
  const report = ctx.scratch(name, '.json');
  const r = await ctx.exec(command(report));
  const failed = failure(r, ctx);
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
