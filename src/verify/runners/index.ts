/**
 * The registry of test runners: every caller (detection, the test session, the feedback,
 * CI log reading) goes through these functions, never through a runner module directly.
 * Each runner's knowledge is one module behind the `TestRunner` interface (runner.ts).
 *
 * The runners are the languages' (src/lang/<id>/ names its runners), then make (list.ts); that
 * order is the order of precedence: detection asks the node runners (vitest, jest, mocha,
 * node:test) when package.json has no test script, then pytest, go, cargo, make; of the
 * plain-output parsers that draw trees the first that recognises an output applies, the line
 * parsers (TAP, pytest, go, cargo) all apply. Reading plain output is output.ts.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { ParsedFrom } from '../types.js';
import { goJsonToText, parseGoJson } from './go.js';
import { parseJestJson } from './jest.js';
import { parseJUnit } from './junit.js';
import { parseMochaJsonl } from './mocha.js';
import type { StructuredFormat, StructuredResult } from './report.js';
import { COMPOUND, core, quote, type Appendable, type PackageJson, type PlannedRun, type RunnerId, type RunnerInfo } from './runner.js';
import { allRunners, runnerById } from './list.js';
import { owningPackages, readWorkspaces, type Workspaces } from '../workspaces.js';
import { parseWorkspaceCommand, resolveTargets, rootScriptCommand } from '../workspace-command.js';
import { runnerRoot } from '../runner-root.js';

export type { PlannedRun, RunnerId, RunnerInfo, TestRunner } from './runner.js';
export type { StructuredFormat, StructuredResult } from './report.js';
export type { TestTotals } from './text.js';
export { TAP_SUMMARY as TAP_SUMMARY_LINE } from './tap.js';
export { subtestFailure as pytestSubtestFailure } from './pytest.js';

export { allRunners, runnerById } from './list.js';
export { inPackage, parseTestOutput, type OutputContext, type OutputPackage, type ParsedOutput } from './output.js';

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
  return allRunners().find((r) => r.invokedBy(c))?.id ?? 'unknown';
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

/** What the parser that read a run (its `parsedFrom`) tells: whether it names skipped tests, whether its counts are test cases. */
export function parserTells(parsedFrom: string): { reportsSkips: boolean; countsTests: boolean } {
  const r = allRunners().find((x) => x.parsedFrom === parsedFrom);
  return { reportsSkips: r?.reportsSkips === true, countsTests: r?.countsTests === true };
}

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
  for (const r of allRunners()) if (r.display) c = r.display(c);
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

