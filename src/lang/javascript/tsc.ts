/**
 * The TypeScript compiler as a checker: the repository's node_modules/typescript where there is a
 * tsconfig.json (or a workspace root: each package's own tsconfig.json is found per file).
 * `tsc --noEmit --pretty false`, incremental through a build-info file outside the repository; its
 * lines read into diagnostics. A file is judged by its nearest tsconfig.json.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import JSON5 from 'json5';
import { nearestUp, relative, runLines, shellQuote, upFrom, type CheckContext, type Diagnostic, type ProjectChecker, type ProjectRun } from '../../diagnostics/checker.js';
import { isWorkspaceRoot } from './package.js';

/**
 * `projects`: tsconfig.json, or the projects a solution-style tsconfig.json (no files of its own)
 * references; empty in a workspace root without one (each package's own is found per file).
 */
export interface TscSetup {
  bin: string;
  projects: string[];
}

const TSC_BIN = path.join('node_modules', 'typescript', 'bin', 'tsc');
const TSC_LINE = /^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$/;
const TSC_GLOBAL = /^(error|warning) (TS\d+): (.*)$/;

/** `src/a.ts(3,7): error TS2322: …` lines; indented lines continue the message before them (message chains). */
export function parseTscOutput(output: string, root: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  let last: Diagnostic | undefined;
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, '');
    if (line === '') continue;
    const m = TSC_LINE.exec(line);
    if (m) {
      last = { checker: 'tsc', file: relative(root, m[1]), line: Number(m[2]), column: Number(m[3]), code: m[5], message: m[6] };
      out.push(last);
      continue;
    }
    const g = TSC_GLOBAL.exec(line);
    if (g) {
      last = { checker: 'tsc', file: '', line: 0, column: 0, code: g[2], message: g[3] };
      out.push(last);
      continue;
    }
    if (last && /^\s/.test(line)) last.message += `\n${line.trim()}`;
    else last = undefined;
  }
  return out;
}

/** The tsconfig.json nearest to a repo-relative file, up to the root (absolute), or undefined. */
export function nearestTsconfig(root: string, rel: string): string | undefined {
  for (const dir of upFrom(root, rel)) {
    const f = path.join(dir, 'tsconfig.json');
    if (existsSync(f)) return f;
  }
  return undefined;
}

/**
 * The projects to check: tsconfig.json itself, unless it is a solution (`"files": []`, no
 * `include`, `references`): then the referenced projects that exist. tsconfig files are JSON with
 * comments and trailing commas (read with json5); one that cannot be read is checked as it is.
 */
export function tscProjects(tsconfig: string): string[] {
  let config: { files?: unknown; include?: unknown; references?: unknown };
  try {
    config = JSON5.parse(readFileSync(tsconfig, 'utf8'));
  } catch {
    return [tsconfig];
  }
  const solution = Array.isArray(config.files) && config.files.length === 0 && config.include === undefined && Array.isArray(config.references) && config.references.length > 0;
  if (!solution) return [tsconfig];
  const dir = path.dirname(tsconfig);
  const refs = (config.references as { path?: unknown }[])
    .map((r) => (typeof r?.path === 'string' ? path.resolve(dir, r.path) : ''))
    .map((p) => (p && existsSync(p) && statSync(p).isDirectory() ? path.join(p, 'tsconfig.json') : p))
    .filter((p) => p && existsSync(p));
  return refs.length > 0 ? refs : [tsconfig];
}

/** Type check of one project, incremental through a build-info file outside the repository. */
export function tscCommand(bin: string, project: string, buildInfo: string): string {
  return ['node', bin, '--noEmit', '--pretty', 'false', '-p', project, '--incremental', '--tsBuildInfoFile', buildInfo].map(shellQuote).join(' ');
}

/** Per watcher: a file's owning projects (its nearest tsconfig.json and the projects that one references). */
const ownersOf = new WeakMap<CheckContext, Map<string, string[]>>();

/** Whether `project` is the nearest tsconfig.json of the file (or one that nearest solution-style config references). */
function ownedBy(ctx: CheckContext, rel: string, project: string): boolean {
  const cache = ownersOf.get(ctx) ?? new Map<string, string[]>();
  ownersOf.set(ctx, cache);
  let owners = cache.get(rel);
  if (!owners) {
    const nearest = nearestTsconfig(ctx.root, rel);
    owners = nearest ? [nearest, ...tscProjects(nearest)] : [];
    cache.set(rel, owners);
  }
  return owners.length === 0 || owners.includes(project);
}

/** One tsc project: its diagnostics of the files it owns (another project that includes a file does not speak for it). */
function projectRun(bin: string, project: string, ctx: CheckContext): ProjectRun {
  const buildInfo = ctx.scratch('tsc', '.tsbuildinfo');
  const run = async () => {
    const r = await runLines(ctx, tscCommand(bin, project, buildInfo), (output) => parseTscOutput(output, ctx.root));
    if (!r.ok) return r;
    return { ok: true as const, diagnostics: r.diagnostics.filter((d) => !d.file || path.isAbsolute(d.file) || ownedBy(ctx, d.file, project)) };
  };
  return { key: `tsc:${project}`, run };
}

export const tsc: ProjectChecker<'tsc', TscSetup> = {
  id: 'tsc',
  scope: 'project',
  title: 'Type check (tsc)',
  label: 'type check (tsc)',
  reads: /\.(?:[cm]?[jt]sx?|json)$/i,
  detect(root) {
    const bin = path.join(root, TSC_BIN);
    if (!existsSync(bin)) return undefined;
    const project = path.join(root, 'tsconfig.json');
    if (existsSync(project)) return { bin, projects: tscProjects(project) };
    return isWorkspaceRoot(root) ? { bin, projects: [] } : undefined;
  },
  runs: (setup, ctx) => setup.projects.map((p) => projectRun(setup.bin, p, ctx)),
  /** A workspace package's own tsconfig.json (nearest above `rel`) that no run covers yet. */
  runsFor(setup, rel, ctx, known) {
    if (!this.reads.test(rel) || /\.json$/i.test(rel)) return null;
    const config = nearestTsconfig(ctx.root, rel);
    if (!config) return null;
    const projects = tscProjects(config).filter((p) => !known(`tsc:${p}`));
    const bin = nearestUp(ctx.root, path.dirname(config), TSC_BIN) ?? setup.bin;
    return { group: config, runs: projects.map((p) => projectRun(bin, p, ctx)) };
  },
};
