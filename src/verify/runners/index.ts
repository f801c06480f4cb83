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
import { readFile } from 'node:fs/promises';
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
import { owningPackages, readWorkspaces, type Workspaces } from '../workspaces.js';
import { parseWorkspaceCommand, resolveTargets, rootScriptCommand } from '../workspace-command.js';
import { runnerRoot } from '../runner-root.js';
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

/**
 * What the runner needs to know of the project to compose commands (mocha: its configuration),
 * added to `info`; in a monorepo, its packages with their runners' roots, and the packages a
 * workspace command (`testCommand`: `pnpm --filter a test`, `turbo run test`, …) runs, whose runner
 * then decides (one package: its runner, reporter flags passed through the workspace tool).
 */
export async function loadRunner(info: RunnerInfo, root: string, pkg: PackageJson | null, testCommand?: string): Promise<RunnerInfo> {
  const ws = await readWorkspaces(root);
  const target = ws && testCommand ? await workspaceTarget(testCommand, root, pkg, ws) : null;
  if (target) info = target;
  const load = runnerById(info.runner)?.load;
  const loaded = load ? { ...info, ...(await load(target?.target?.packages.length === 1 ? path.join(root, target.target.packages[0].dir) : root, pkg)) } : info;
  if (!ws) return loaded;
  const packages = await Promise.all(
    ws.packages.map(async (p) => {
      const runner = p.testScript ? runnerOf(p.testScript) : 'unknown';
      const testRoot = runner === 'vitest' || runner === 'jest' ? await runnerRoot(runner, path.join(root, p.dir)) : '';
      return testRoot ? { ...p, testRoot } : p;
    }),
  );
  return { ...loaded, workspace: { root, tool: ws.tool, packages } };
}

async function readScripts(file: string): Promise<Record<string, unknown> | undefined> {
  try {
    const pkg = JSON.parse(await readFile(file, 'utf8')) as { scripts?: Record<string, unknown> };
    return pkg.scripts && typeof pkg.scripts === 'object' ? pkg.scripts : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The RunnerInfo of a workspace command (verify/workspace-command.ts): null when the command is
 * not one. One package with a script that is one runner call: that runner, arguments appended
 * through the tool (`pnpm --filter a test --`), or none when the tool cannot pass them (nx, a root
 * script that calls the tool). Several packages: their common runner, no appending (each would
 * write the same report file): their outputs are read package by package.
 */
async function workspaceTarget(testCommand: string, root: string, pkg: PackageJson | null, ws: Workspaces): Promise<RunnerInfo | null> {
  let wc = parseWorkspaceCommand(testCommand);
  let viaScript = false;
  if (!wc) {
    const inner = rootScriptCommand(testCommand, pkg?.scripts);
    wc = inner ? parseWorkspaceCommand(inner) : null;
    viaScript = wc !== null;
  }
  if (!wc) return null;
  const scripts = new Map<string, Record<string, unknown> | undefined>();
  for (const p of ws.packages) scripts.set(p.dir, await readScripts(path.join(root, p.dir, 'package.json')));
  const found = resolveTargets(wc, ws.packages, (d) => scripts.get(d));
  if (found.length === 0) return null;
  const packages = await Promise.all(
    found.map(async (p) => {
      const runner = runnerOf(p.script ?? wc.exec ?? '');
      const testRoot = runner === 'vitest' || runner === 'jest' ? await runnerRoot(runner, path.join(root, p.dir)) : '';
      return { ...p, runner, testRoot };
    }),
  );
  const target = { tool: wc.tool, packages };
  const runners = new Set(packages.map((p) => p.runner));
  const runner: RunnerId = runners.size === 1 ? packages[0].runner : 'unknown';
  if (packages.length !== 1 || runner === 'unknown') return { runner, base: null, invocation: testCommand, target };
  const inner = (packages[0].script ?? wc.exec ?? '').trim();
  const appendable = !COMPOUND.test(inner) && (runnerById(runner)?.appendable?.(core(inner)) ?? true);
  const base = appendable && !viaScript && wc.appendBase ? wc.appendBase : null;
  return { runner, base, invocation: inner, target };
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
  if (changed.length === 0) return null;
  // a workspace command: the package's own runner in the package's directory, never the root's
  if (info.target) return planPackageRelated(inPackages(info), changed, allFiles, reportFile, info.workspace?.tool ?? 'npm');
  const on = selectable(info);
  const own = on ? (runnerById(on.runner)?.related?.(on, changed, allFiles, reportFile) ?? null) : null;
  return own ?? (info.workspace ? planPackageRelated(inPackages(info), changed, allFiles, reportFile, info.workspace.tool) : null);
}

/** A package whose own runner can run a selection in its directory: its script and the runner's root. */
interface SelectablePackage {
  dir: string;
  name: string;
  script: string | null;
  testRoot: string;
}

/** The packages the related selection may run in: the workspace command's targets, else every workspace package's `test`. */
function inPackages(info: RunnerInfo): SelectablePackage[] {
  if (info.target) return info.target.packages.map((p) => ({ dir: p.dir, name: p.name, script: p.script, testRoot: p.testRoot }));
  return (info.workspace?.packages ?? []).map((p) => ({ dir: p.dir, name: p.name, script: p.testScript, testRoot: p.testRoot ?? '' }));
}

/**
 * Paths as the package's runner resolves them, from its directory: vitest resolves the files given
 * to `related` and `run` from its `root` (`test/unit`: `../../src/x.ts`), jest from the directory.
 */
function forRunner(runner: RunnerId, testRoot: string, files: string[]): string[] {
  if (runner !== 'vitest' || !testRoot) return files;
  return files.map((f) => path.posix.relative(testRoot, f));
}

/**
 * A monorepo whose root command cannot select tests (or a workspace command): when the changed
 * files lie in one package, that package's runner selects the related tests, run in the
 * package's directory (its own configuration applies), paths as its runner resolves them (its
 * root). Null for changes in several packages or at the root (the full command runs), or a
 * package whose runner cannot select.
 */
function planPackageRelated(packages: SelectablePackage[], changed: string[], allFiles: string[], reportFile: string, tool: string): PlannedRun | null {
  const owners = owningPackages({ tool: 'npm', packages: packages.map((p) => ({ dir: p.dir, name: p.name, testScript: p.script })) }, changed);
  if (owners.length !== 1 || changed.some((f) => !f.startsWith(`${owners[0].dir}/`))) return null;
  const p = packages.find((x) => x.dir === owners[0].dir)!;
  const inner = packageSelectable(p, tool);
  if (!inner) return null;
  const rel = (files: string[]) => forRunner(inner.runner, p.testRoot, files.filter((f) => f.startsWith(`${p.dir}/`)).map((f) => f.slice(p.dir.length + 1)));
  const plan = runnerById(inner.runner)?.related?.(inner, rel(changed), rel(allFiles), reportFile) ?? null;
  return plan ? { ...plan, command: `cd ${quote(p.dir)} && ${plan.command}` } : null;
}

/** The package's runner as called in its directory (`pnpm test --`, or its direct call out of a compound script). */
function packageSelectable(p: SelectablePackage, tool: string): Appendable | null {
  if (p.script === null) return null;
  const manager = tool === 'yarn' || tool === 'pnpm' ? tool : 'npm';
  const exec = p.script.trim();
  // `pnpm --filter a exec vitest run`: the exec'd command is the runner call itself
  const viaScript = identifyRunner(`${manager} test`, exec);
  return selectable(viaScript.runner !== 'unknown' ? viaScript : identifyRunner(exec, null));
}

/** A command that runs only the given test files (for the fail-to-pass proof); null when not possible. */
export function planFiles(info: RunnerInfo, testFiles: string[], reportFile: string): PlannedRun | null {
  if (testFiles.length === 0) return null;
  if (info.target) {
    const owners = owningPackages({ tool: 'npm', packages: info.target.packages.map((p) => ({ dir: p.dir, name: p.name, testScript: p.script })) }, testFiles);
    if (owners.length !== 1 || testFiles.some((f) => !f.startsWith(`${owners[0].dir}/`))) return null;
    const p = info.target.packages.find((x) => x.dir === owners[0].dir)!;
    const inner = packageSelectable({ ...p }, info.workspace?.tool ?? 'npm');
    if (!inner) return null;
    const files = forRunner(inner.runner, p.testRoot, testFiles.map((f) => f.slice(p.dir.length + 1)));
    const plan = runnerById(inner.runner)?.files?.(inner, files, reportFile) ?? null;
    return plan ? { ...plan, command: `cd ${quote(p.dir)} && ${plan.command}` } : null;
  }
  const on = selectable(info);
  if (!on) return null;
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
  /**
   * Test files the runner reports as passing whole without naming their tests (vitest's default
   * reporter `✓ a.test.ts (17 tests)`, jest's `PASS a.test.js`), repo-relative where the package
   * and the runner's root are known: a test of such a file passed.
   */
  passedFiles?: string[];
}

/** A workspace package as the output parser needs it (verify/workspaces.ts). */
export interface OutputPackage {
  dir: string;
  name: string;
  /** The runner's root, package-relative (vitest `root: 'test/unit'`): the runner prints files from it. */
  testRoot?: string;
}

/** What else the output parser may know of the run. */
export interface OutputContext {
  /** The repository's absolute path: the root vitest names (`RUN  v4 /abs/packages/dom/test/unit`) becomes repo-relative. */
  root?: string;
  /** The one package the command ran (a workspace command filtered to it): an output without banners or prefixes is its. */
  only?: OutputPackage;
}

/**
 * The banner npm and pnpm print before one package's script: npm `> @scope/name@1.2.3 test`,
 * pnpm `> name@1.2.3 test /abs/path/packages/a` (the root's npm banner is `> test`, no name).
 */
const WORKSPACE_BANNER = /^> (\S+)@\S* [\w:.-]+(?: (\/\S*|[\w.-]+(?:\/[\w.-]+)*))?\s*$/;
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
  const turbo = turboSegments(lines);
  if (turbo) return turbo;
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

/** turbo's task lines: `@scope/a:test: <line>`; each task announces itself with `@scope/a:test: cache miss|bypass|hit…`. */
const TURBO_TASK = /^(\S+?):([\w:.-]*[A-Za-z][\w:.-]*): cache (?:miss|bypass|hit)/;

/** turbo's output cut by task (`<package>:<task>: ` prefixes, interleaved when tasks run in parallel), or null. */
function turboSegments(lines: string[]): Segment[] | null {
  const tasks = new Map<string, string>();
  for (const l of lines) {
    const m = TURBO_TASK.exec(l);
    if (m) tasks.set(`${m[1]}:${m[2]}`, m[1]);
  }
  if (tasks.size === 0) return null;
  const parts = new Map<string, string[]>();
  const rest: string[] = [];
  for (const l of lines) {
    const colon = l.indexOf(': ');
    const key = colon > 0 ? l.slice(0, colon) : l.endsWith(':') ? l.slice(0, -1) : '';
    if (tasks.has(key)) parts.set(key, [...(parts.get(key) ?? []), colon > 0 ? l.slice(colon + 2) : '']);
    else rest.push(l);
  }
  return [{ label: null, lines: rest }, ...[...parts].map(([key, ls]) => ({ label: { name: tasks.get(key)! }, lines: ls }))];
}

/**
 * The repo-relative directory of the package a part belongs to: the workspaces known (a
 * directory, a name or an absolute path ending in a package's directory), else the directory
 * pnpm names. Null for the root or a name that cannot be resolved without the workspaces.
 */
function packageOf(label: Segment['label'], packages: readonly OutputPackage[] | undefined): OutputPackage | null {
  if (!label) return null;
  if (packages?.length) {
    let best: OutputPackage | null = null;
    for (const p of packages) {
      const hit = p.dir === label.dir || (label.name !== undefined && p.name === label.name && !label.path) || (label.path !== undefined && (label.path === p.dir || label.path === `/${p.dir}` || label.path.endsWith(`/${p.dir}`)));
      if (hit && (!best || p.dir.length > best.dir.length)) best = p;
    }
    return best;
  }
  const dir = label.dir && label.dir !== '.' && !path.isAbsolute(label.dir) ? label.dir.replace(/^\.\//, '').replace(/\/+$/, '') : null;
  return dir ? { dir, name: dir } : null;
}

/** vitest's first line: `RUN  v4.1.9 /abs/root` (CI logs: the runner's workspace prefix already removed). */
const VITEST_RUN = /^\s*RUN\s+v\d[\w.-]*\s+(\S.*?)\s*$/;

/**
 * A part holding several vitest runs one after the other (turbo under GitHub Actions groups each
 * task's lines with `::group::` instead of prefixing them; a CI log's banners lost their paths):
 * one part per run, each from its own root, the first keeping the part's label.
 */
function byVitestRun(seg: Segment): Segment[] {
  const starts = seg.lines.flatMap((l, i) => (VITEST_RUN.test(l) ? [i] : []));
  if (starts.length < 2) return [seg];
  const out: Segment[] = [{ label: seg.label, lines: seg.lines.slice(0, starts[1]) }];
  for (let k = 1; k < starts.length; k++) out.push({ label: null, lines: seg.lines.slice(starts[k], starts[k + 1] ?? seg.lines.length) });
  return out;
}

/**
 * The repo-relative directory the runner prints a part's files from: the root vitest names
 * (absolute under the repository, relative in a CI log, or ending in a known package's
 * directory), else the part's package and its runner's configured root. Null: the files are
 * repo-relative already (or not known to be anything else).
 */
function fileBase(lines: string[], pkg: OutputPackage | null, packages: readonly OutputPackage[] | undefined, ctx: OutputContext): string | null {
  const run = lines.slice(0, 80).map((l) => VITEST_RUN.exec(l)?.[1]).find((x) => x !== undefined);
  if (run !== undefined) {
    const named = run.replace(/\\/g, '/').replace(/\/+$/, '');
    const root = ctx.root?.replace(/\\/g, '/').replace(/\/+$/, '');
    if (root && (named === root || named.startsWith(`${root}/`))) return named === root ? null : named.slice(root.length + 1);
    if (!path.isAbsolute(named) && !/^[A-Za-z]:\//.test(named)) return named === '.' || named === '' ? null : named.replace(/^\.\//, '');
    // an absolute root elsewhere (a CI runner's checkout): from the package directory it ends in
    const candidates = [...(packages ?? []), ...(pkg ? [pkg] : [])];
    let best: { dir: string; rest: string } | null = null;
    for (const p of candidates) {
      const at = named.lastIndexOf(`/${p.dir}`);
      const end = at + p.dir.length + 1;
      if (at >= 0 && (end === named.length || named[end] === '/') && (!best || p.dir.length > best.dir.length)) best = { dir: p.dir, rest: named.slice(end + 1) };
    }
    if (best) return best.rest ? `${best.dir}/${best.rest}` : best.dir;
  }
  if (!pkg) return null;
  return pkg.testRoot ? `${pkg.dir}/${pkg.testRoot}` : pkg.dir;
}

/**
 * A test of one package's output, its file made repo-relative (`test/a.test.ts` of
 * `packages/a` is `packages/a/test/a.test.ts`): two packages' same-path tests stay two tests.
 * A test the runner names without a file keeps its id.
 */
export function inPackage(t: TestCase, dir: string): TestCase {
  const file = identityOf(t.id, t.file).file;
  if (file === null || file.startsWith(`${dir}/`) || path.isAbsolute(file) || file.includes(' ')) return t;
  const full = path.posix.normalize(`${dir}/${file}`);
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
export function parseTestOutput(output: string, packages?: readonly OutputPackage[], ctx: OutputContext = {}): ParsedOutput {
  const text = stripAnsi(output);
  const lines = toLines(text);
  const results: ParserResult[] = [];
  const passedFiles = new Set<string>();
  const segments = segmentOutput(lines).flatMap(byVitestRun);
  const labelled = segments.some((seg) => seg.label !== null);
  for (const seg of segments) {
    const pkg = packageOf(seg.label, packages) ?? (!labelled && ctx.only ? ctx.only : null);
    const dir = fileBase(seg.lines, pkg, packages, ctx);
    for (const r of parseSegment(seg.lines)) {
      for (const f of r.passedFiles ?? []) passedFiles.add(dir ? inPackage({ id: f, status: 'passed', file: f }, dir).file! : f);
      results.push(dir ? { ...r, tests: r.tests.map((t) => inPackage(t, dir)) } : r);
    }
  }
  const useful = results.filter((r) => r.tests.length > 0 || r.totals);
  if (useful.length === 0) return { tests: [], parsedFrom: 'none', ...(passedFiles.size ? { passedFiles: [...passedFiles] } : {}) };

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
  if (passedFiles.size) result.passedFiles = [...passedFiles];
  return result;
}
