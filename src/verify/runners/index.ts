/**
 * The registry of test runners: every caller (detection, the test session, the feedback,
 * CI log reading) goes through these functions, never through a runner module directly.
 * Each runner's knowledge is one module behind the `TestRunner` interface (runner.ts).
 *
 * The order of `RUNNERS` is the order of precedence: detection asks the node runners
 * (vitest, jest, mocha, node:test) when package.json has no test script, then pytest, go,
 * cargo, make; of the plain-output parsers that draw trees the first that recognises an
 * output applies, the line parsers (TAP, pytest, go, cargo) all apply.
 */
import path from 'node:path';
import { identityOf, SEP } from '../identity.js';
import type { ParsedFrom, TestCase } from '../types.js';
import { cargo } from './cargo.js';
import { go, goJsonToText, parseGoJson } from './go.js';
import { jest, parseJestJson } from './jest.js';
import { parseJUnit } from './junit.js';
import { make } from './make.js';
import { mocha, parseMochaJsonl } from './mocha.js';
import { nodeTest } from './node-test.js';
import { pytest } from './pytest.js';
import type { StructuredFormat, StructuredResult } from './report.js';
import { COMPOUND, core, quote, type Appendable, type PackageJson, type PlannedRun, type RunnerId, type RunnerInfo, type TestRunner } from './runner.js';
import { tap } from './tap.js';
import { owningPackages, readWorkspaces } from '../workspaces.js';
import { addTotals, Collector, countsOf, stripAnsi, toLines, type ParserResult, type TestTotals } from './text.js';
import { vitest } from './vitest.js';

export type { PlannedRun, RunnerId, RunnerInfo, TestRunner } from './runner.js';
export type { StructuredFormat, StructuredResult } from './report.js';
export type { TestTotals } from './text.js';
export { TAP_SUMMARY as TAP_SUMMARY_LINE } from './tap.js';
export { subtestFailure as pytestSubtestFailure } from './pytest.js';

export const RUNNERS: readonly TestRunner[] = [vitest, jest, mocha, nodeTest, tap, pytest, go, cargo, make];

export function runnerById(id: RunnerId): TestRunner | undefined {
  return RUNNERS.find((r) => r.id === id);
}

// ------------------------------------------------------------------------- which runner a command runs

function runnerOf(invocation: string): RunnerId {
  // A compound script (`tsc && jest`): the first part that runs a known runner.
  const parts = invocation.split(/&&|\|\||;/);
  if (parts.length > 1) {
    for (const part of parts) {
      const r = runnerOf(part);
      if (r !== 'unknown') return r;
    }
    return 'unknown';
  }
  const c = core(invocation);
  return RUNNERS.find((r) => r.invokedBy(c))?.id ?? 'unknown';
}

/** `testScript`: the package.json `test` script, when the command runs it. */
export function identifyRunner(testCommand: string, testScript: string | null): RunnerInfo {
  const cmd = testCommand.trim();
  const script = cmd.match(/^(npm|pnpm|yarn)(?:\s+run)?\s+test\s*(?:--\s*)?$/);
  if (script && testScript !== null) {
    const runner = runnerOf(testScript);
    const simple = !COMPOUND.test(testScript);
    const manager = script[1];
    const appendable = runnerById(runner)?.appendable?.(core(testScript)) ?? true;
    // pnpm (like npm) takes options after `test` as its own (`Unknown option`, or its own `--reporter`): `--` passes them on
    const base = simple && appendable && runner !== 'unknown' ? (manager === 'yarn' ? 'yarn test' : `${manager} test --`) : null;
    const info: RunnerInfo = { runner, base, invocation: testScript };
    if (!base && runnerById(runner)?.directCall) {
      const segment = testScript.split(/&&|\|\||;/).map((p) => p.trim()).find((p) => runnerOf(p) === runner);
      if (segment && !/[|`$<>()]/.test(segment)) {
        const exec = manager === 'npm' ? 'npx --no-install' : `${manager} exec`;
        // `VAR=x jest`: the variables stay in front of the runner call (`VAR=x npx --no-install jest`).
        const env = segment.match(/^(?:\w+=\S*\s+)*/)?.[0] ?? '';
        info.direct = `${env}${exec} ${segment.slice(env.length).replace(/^(?:npx(?:\s+--no-install)?\s+)/, '')}`;
      }
    }
    return info;
  }
  const runner = runnerOf(cmd);
  const appendable = runnerById(runner)?.appendable?.(core(cmd)) ?? true;
  return { runner, base: COMPOUND.test(cmd) || !appendable ? null : cmd, invocation: cmd };
}

/** What the runner needs to know of the project to compose commands (mocha: its configuration), added to `info`. */
export async function loadRunner(info: RunnerInfo, root: string, pkg: PackageJson | null): Promise<RunnerInfo> {
  const load = runnerById(info.runner)?.load;
  const loaded = load ? { ...info, ...(await load(root, pkg)) } : info;
  const ws = await readWorkspaces(root);
  return ws ? { ...loaded, workspace: { root, ...ws } } : loaded;
}

const parsedFromOf = (id: RunnerId): ParsedFrom => runnerById(id)?.parsedFrom ?? 'none';

/** The report file extension for a runner's composed runs. */
export function reportExtension(id: RunnerId): string {
  return runnerById(id)?.reportExtension ?? 'xml';
}

/** Whether the runner finds the tests related to changed files itself (its selection is evidence, verify/tolerance.ts). */
export function findsRelated(id: RunnerId): boolean {
  return runnerById(id)?.findsRelated === true;
}

/** Whether the session should add the test files that import a changed file to the related selection. */
export function relatedByImports(id: RunnerId): boolean {
  return runnerById(id)?.relatedByImports === true;
}

// ------------------------------------------------------------------------- composing commands

/**
 * The JSON report file (jest's shape) the invocation already asks for, when it does: jest
 * `--json --outputFile=x`, vitest `--reporter=json --outputFile=x`.
 */
export function ownReportFile(runner: RunnerId, invocation: string): string | null {
  return runnerById(runner)?.ownReport?.(invocation) ?? null;
}

/** The command that also writes a machine-readable report to `reportFile`; plain command when not possible. */
export function planStructured(testCommand: string, info: RunnerInfo, reportFile: string): PlannedRun {
  const parsedFrom = parsedFromOf(info.runner);
  const plain: PlannedRun = { command: testCommand, flavour: 'generic', parsedFrom };
  const own = ownReportFile(info.runner, info.invocation);
  if (own) return { command: testCommand, reportFile: own, ownReport: true, format: 'jest-json', flavour: 'generic', parsedFrom };
  const runner = runnerById(info.runner);
  if (!info.base || !runner?.compose) return plain;
  return runner.compose(info as Appendable, reportFile) ?? plain;
}

/** The invocation without its own report flags, for the runs the harness composes (related tests, proof). */
function withoutOwnReport(info: RunnerInfo): RunnerInfo {
  const runner = runnerById(info.runner);
  if (!ownReportFile(info.runner, info.invocation) || !runner?.withoutOwnReport) return info;
  // `npm test --` runs the script, which still writes its report: only a direct invocation can drop the flags.
  if (info.base !== info.invocation) return { ...info, base: null, direct: undefined };
  return { ...info, base: runner.withoutOwnReport(info.base!), invocation: runner.withoutOwnReport(info.invocation) };
}

/** The info a selection is composed on: own report flags dropped, the direct runner call of a compound script. */
function selectable(info: RunnerInfo): Appendable | null {
  info = withoutOwnReport(info);
  if (!info.base && info.direct) info = { ...info, base: info.direct, invocation: info.direct };
  return info.base ? (info as Appendable) : null;
}

/**
 * The command that runs only the tests related to `changed` (repo-relative paths that
 * still exist), with the same structured report; null when the runner cannot select, or
 * nothing related was found (then the full command runs).
 */
export function planRelated(info: RunnerInfo, changed: string[], allFiles: string[], reportFile: string): PlannedRun | null {
  const on = selectable(info);
  if (changed.length === 0) return null;
  const own = on ? (runnerById(on.runner)?.related?.(on, changed, allFiles, reportFile) ?? null) : null;
  return own ?? (info.workspace ? planPackageRelated(info.workspace, changed, allFiles, reportFile) : null);
}

/**
 * A monorepo whose root command cannot select tests: when the changed files lie in one package,
 * that package's runner selects the related tests, run in the package's directory (its own
 * configuration applies). Null for changes in several packages or at the root (the full command
 * runs), or a package whose runner cannot select.
 */
function planPackageRelated(ws: NonNullable<RunnerInfo['workspace']>, changed: string[], allFiles: string[], reportFile: string): PlannedRun | null {
  const owners = owningPackages({ tool: ws.tool, packages: ws.packages }, changed);
  if (owners.length !== 1 || changed.some((f) => !f.startsWith(`${owners[0].dir}/`)) || owners[0].testScript === null) return null;
  const p = owners[0];
  const inner = selectable(identifyRunner(`${ws.tool} test`, p.testScript));
  if (!inner) return null;
  const rel = (files: string[]) => files.filter((f) => f.startsWith(`${p.dir}/`)).map((f) => f.slice(p.dir.length + 1));
  const plan = runnerById(inner.runner)?.related?.(inner, rel(changed), rel(allFiles), reportFile) ?? null;
  return plan ? { ...plan, command: `cd ${quote(p.dir)} && ${plan.command}` } : null;
}

/** A command that runs only the given test files (for the fail-to-pass proof); null when not possible. */
export function planFiles(info: RunnerInfo, testFiles: string[], reportFile: string): PlannedRun | null {
  const on = selectable(info);
  if (!on || testFiles.length === 0) return null;
  return runnerById(on.runner)?.files?.(on, testFiles, reportFile) ?? null;
}

/**
 * The command as a person would type it: the reporter plumbing of ours (report flags and
 * file paths) removed. For the report; the executed command is kept in the TestRun.
 */
export function displayCommand(command: string): string {
  let c = command;
  for (const r of RUNNERS) if (r.display) c = r.display(c);
  return c.replace(/\s+/g, ' ').trim().replace(/ --$/, '');
}

// ------------------------------------------------------------------------- reading results

const REPORT_PARSERS: Record<StructuredFormat, (text: string, root: string, flavour: 'pytest' | 'generic') => StructuredResult | null> = {
  'jest-json': (text, root) => parseJestJson(text, root),
  junit: (text, root, flavour) => parseJUnit(text, root, flavour),
  'go-json': (text, root) => parseGoJson(text, root),
  'mocha-jsonl': (text, root) => parseMochaJsonl(text, root),
};

/** A machine-readable report (the format a planned run names) read into test cases. */
export function parseStructured(format: StructuredFormat, text: string, root: string, flavour: 'pytest' | 'generic' = 'generic'): StructuredResult | null {
  return REPORT_PARSERS[format](text, root, flavour);
}

/** The human-readable output a report written to stdout stands for (`go test -json`: the lines it wraps). */
export function reportAsOutput(format: StructuredFormat | undefined, text: string): string {
  return format === 'go-json' ? goJsonToText(text) : text;
}

export interface ParsedOutput {
  tests: TestCase[];
  parsedFrom: ParsedFrom;
  /**
   * The runner's own summary counts, when it prints leaf counts (jest, vitest, mocha,
   * pytest) — more complete than `tests` when the runner does not list passing tests.
   */
  totals?: TestTotals;
}

/** A workspace package as the output parser needs it (verify/workspaces.ts). */
export interface OutputPackage {
  dir: string;
  name: string;
}

/**
 * The banner npm and pnpm print before one package's script: npm `> @scope/name@1.2.3 test`,
 * pnpm `> name@1.2.3 test /abs/path/packages/a` (the root's npm banner is `> test`, no name).
 */
const WORKSPACE_BANNER = /^> (\S+)@\S* [\w:.-]+(?: (\/\S*))?\s*$/;
/** pnpm's recursive run: `packages/a test$ vitest run` starts a package, `packages/a test: <line>` each line of it. */
const PNPM_START = /^(\S+) ([\w:.-]+)\$ /;
/** yarn's `workspaces foreach` (`-v`/`--verbose`): `[@scope/a]: <line>`. */
const YARN_LINE = /^\[([^\]\s]+)\]: ?(.*)$/;

interface Segment {
  /** The package the part belongs to, as the output names it (a directory, a name, an absolute path). */
  label: { dir?: string; name?: string; path?: string } | null;
  lines: string[];
}

/**
 * The output cut into one part per package, when a workspace tool ran several (or names the one
 * it ran): pnpm's prefixed lines (interleaved when packages run in parallel: each package's
 * lines are gathered, without the prefix), yarn's `[name]: ` lines, npm's and pnpm's banners.
 * Lines outside any package (the tool's own) form an unlabelled part.
 */
function segmentOutput(lines: string[]): Segment[] {
  const starts = new Set<string>();
  for (const l of lines) {
    const m = PNPM_START.exec(l);
    if (m) starts.add(`${m[1]} ${m[2]}`);
  }
  if (starts.size > 0) {
    const parts = new Map<string, string[]>();
    const rest: string[] = [];
    for (const l of lines) {
      let hit = false;
      for (const p of starts) {
        if (l.startsWith(`${p}: `) || l === `${p}:`) {
          const list = parts.get(p) ?? [];
          list.push(l.slice(p.length + 2));
          parts.set(p, list);
          hit = true;
          break;
        }
      }
      if (!hit) rest.push(l);
    }
    if (parts.size > 0) return [{ label: null, lines: rest }, ...[...parts].map(([p, ls]) => ({ label: { dir: p.slice(0, p.lastIndexOf(' ')) }, lines: ls }))];
  }
  const yarn = new Map<string, string[]>();
  const yrest: string[] = [];
  for (const l of lines) {
    const m = YARN_LINE.exec(l);
    if (m) yarn.set(m[1], [...(yarn.get(m[1]) ?? []), m[2]]);
    else yrest.push(l);
  }
  if ([...yarn.values()].some((ls) => ls.length >= 3)) return [{ label: null, lines: yrest }, ...[...yarn].map(([name, ls]) => ({ label: { name }, lines: ls }))];
  const banners = lines.flatMap((l, i) => (WORKSPACE_BANNER.test(l) ? [i] : []));
  if (banners.length === 0) return [{ label: null, lines }];
  const out: Segment[] = banners[0] > 0 ? [{ label: null, lines: lines.slice(0, banners[0]) }] : [];
  banners.forEach((b, k) => {
    const m = WORKSPACE_BANNER.exec(lines[b])!;
    out.push({ label: { name: m[1], path: m[2] }, lines: lines.slice(b, banners[k + 1] ?? lines.length) });
  });
  return out;
}

/**
 * The repo-relative directory of the package a part belongs to: the workspaces known (a
 * directory, a name or an absolute path ending in a package's directory), else the directory
 * pnpm names. Null for the root or a name that cannot be resolved without the workspaces.
 */
function packageDir(label: Segment['label'], packages: readonly OutputPackage[] | undefined): string | null {
  if (!label) return null;
  if (packages?.length) {
    let best: OutputPackage | null = null;
    for (const p of packages) {
      const hit = p.dir === label.dir || (label.name !== undefined && p.name === label.name && !label.path) || (label.path !== undefined && (label.path === `/${p.dir}` || label.path.endsWith(`/${p.dir}`)));
      if (hit && (!best || p.dir.length > best.dir.length)) best = p;
    }
    return best?.dir ?? null;
  }
  return label.dir && label.dir !== '.' && !path.isAbsolute(label.dir) ? label.dir.replace(/^\.\//, '').replace(/\/+$/, '') : null;
}

/**
 * A test of one package's output, its file made repo-relative (`test/a.test.ts` of
 * `packages/a` is `packages/a/test/a.test.ts`): two packages' same-path tests stay two tests.
 * A test the runner names without a file keeps its id.
 */
export function inPackage(t: TestCase, dir: string): TestCase {
  const file = identityOf(t.id, t.file).file;
  if (file === null || file.startsWith(`${dir}/`) || path.isAbsolute(file) || file.includes(' ')) return t;
  const full = `${dir}/${file}`;
  const lead = /^\.\//.test(t.id) ? t.id.slice(2) : t.id;
  const id = lead.startsWith(file) ? `${full}${lead.slice(file.length)}` : `${full}${SEP}${t.id}`;
  return { ...t, id, file: full };
}

/** One output (or one workspace's part of it): at most one tree parser, every line parser that recognises it. */
function parseSegment(lines: string[]): ParserResult[] {
  const text = lines.join('\n');
  const parsers = RUNNERS.flatMap((r) => r.output ?? []);
  const results: ParserResult[] = [];
  const tree = parsers.find((p) => p.kind === 'tree' && p.detect(text));
  if (tree) results.push(tree.parse(lines));
  for (const p of parsers) if (p.kind === 'lines' && p.detect(text)) results.push(p.parse(lines));
  return results;
}

/**
 * The plain output of any runner, read by the parsers of the runners that recognise it:
 * at most one tree parser (the first in registry order), every line parser. Ids are stable
 * between runs of the same suite (durations are never part of an id): jest, vitest and
 * pytest ids start with the test file, go ids with the package, node and mocha
 * `suite > nested > test`. Only leaves are reported; a parent (suite, test with subtests)
 * appears only when it failed without any failing child (hook failure, crash, file that
 * did not load).
 *
 * A workspace tool's output (pnpm `-r`/`--filter` with its `packages/a test: ` prefixes, yarn
 * `workspaces foreach -v`, npm `--workspaces` banners) is read package by package, each part by
 * its own runner's parser; a test of a package whose directory is known (from `packages`, the
 * repository's workspaces, or from pnpm's prefix) carries it in its file.
 */
export function parseTestOutput(output: string, packages?: readonly OutputPackage[]): ParsedOutput {
  const text = stripAnsi(output);
  const lines = toLines(text);
  const results: ParserResult[] = [];
  for (const seg of segmentOutput(lines)) {
    const dir = packageDir(seg.label, packages);
    for (const r of parseSegment(seg.lines)) results.push(dir ? { ...r, tests: r.tests.map((t) => inPackage(t, dir)) } : r);
  }
  const useful = results.filter((r) => r.tests.length > 0 || r.totals);
  if (useful.length === 0) return { tests: [], parsedFrom: 'none' };

  const merged = new Collector();
  let best = useful[0];
  for (const r of useful) {
    if (r.tests.length > best.tests.length) best = r;
    for (const t of r.tests) merged.add(t.id, t.status, t.message, t.durationMs);
  }
  const result: ParsedOutput = { tests: merged.list(), parsedFrom: best.parsedFrom };
  if (useful.some((r) => r.totals)) {
    let totals: TestTotals | undefined;
    for (const r of useful) totals = addTotals(totals, r.totals ?? countsOf(r.tests));
    result.totals = totals;
  }
  return result;
}
