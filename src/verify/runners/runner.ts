/**
 * One test runner's knowledge behind one interface: how the harness finds it in a project,
 * recognises it in a command, asks it for a machine-readable report and for a selection of
 * tests (related to changed files, or given files), and reads what it prints or writes. Each
 * runner is one module of this folder; `index.ts` is the registry every caller goes through.
 *
 * Composing is pure: strings in, a planned command out; null where the runner cannot be
 * asked safely (then the plain output is parsed and the full command runs).
 */
import type { ParsedFrom } from '../types.js';
import type { StructuredFormat } from './report.js';
import type { ParserResult } from './text.js';
import type { MochaConfig } from './mocha-config.js';

export type RunnerId = 'jest' | 'vitest' | 'mocha' | 'node-test' | 'tap' | 'pytest' | 'go' | 'cargo' | 'make' | 'unknown';

/** A test command as the harness understands it (index.ts `identifyRunner`). */
export interface RunnerInfo {
  runner: RunnerId;
  /**
   * Prefix to which runner arguments can be appended: the command itself (`npx jest`) or,
   * when the command is a package script that is exactly one runner invocation,
   * `npm test --` / `pnpm test --` / `yarn test`. Null: arguments cannot be appended safely.
   */
  base: string | null;
  /** The runner invocation as written (the command, or the package script). */
  invocation: string;
  /**
   * The runner's own invocation inside a compound package script (`tsc && jest` -> `npx
   * --no-install jest`): related tests can run through it while the full command stays the
   * script. Absent when `base` is set or no segment is a plain runner call.
   */
  direct?: string;
  /**
   * mocha: the project's configuration (`.mocharc.*`, the `mocha` field of package.json),
   * read by the session (`TestRunner.load`). mocha adds a configured spec to the files given
   * on the command line (checked with 10.8, 11.8, 12.0), so a selected run gets a
   * configuration without it. Absent: no configuration.
   */
  mochaConfig?: MochaConfig;
  /**
   * The repository is a monorepo (npm, yarn or pnpm workspaces, verify/workspaces.ts): its
   * packages with their test scripts, read by `loadRunner`. Related tests of a change inside one
   * package run through that package's own runner, in its directory.
   */
  workspace?: { root: string; tool: 'npm' | 'yarn' | 'pnpm'; packages: { dir: string; name: string; testScript: string | null; testRoot?: string }[] };
  /**
   * The command runs workspace packages' scripts through a workspace tool (`pnpm --filter a test`,
   * `turbo run test`, verify/workspace-command.ts): the packages it runs, each with its script, its
   * runner and the runner's root (package-relative, verify/runner-root.ts). With one package whose
   * script is one runner call, `runner`, `base` and `direct` are that package's.
   */
  target?: { tool: string; packages: { dir: string; name: string; script: string | null; runner: RunnerId; testRoot: string }[] };
}

/** A RunnerInfo whose runner arguments can be appended (`base` set). */
export type Appendable = RunnerInfo & { base: string };

/** A file the command needs, written (or copied from a file shipped with agent-fix) before it runs. */
export type SupportFile = { path: string; text: string } | { path: string; copyOf: string };

export interface PlannedRun {
  command: string;
  /** Where the runner writes its machine-readable report (absent: parse the output). */
  reportFile?: string;
  format?: StructuredFormat;
  /** The report is the command's stdout redirected to reportFile (go test -json). */
  stdoutIsReport?: boolean;
  /** Files the command needs (our mocha reporter, a mocha configuration), written before the command runs. */
  support?: SupportFile[];
  /**
   * The report is the one the user's command already writes (`--json --outputFile=x`):
   * `reportFile` is relative to the repository, never deleted, and read only when the run
   * wrote it.
   */
  ownReport?: boolean;
  flavour: 'pytest' | 'generic';
  parsedFrom: ParsedFrom;
}

/** The project at its root, as detection looks at it (read once by verify/detect.ts). */
export interface Project {
  root: string;
  /** package.json, parsed; null when absent or unreadable. */
  pkg: PackageJson | null;
  /** Names of the entries at the root. */
  files: string[];
  readText(relative: string): Promise<string | null>;
  exists(relative: string): Promise<boolean>;
  listDir(relative: string): Promise<string[]>;
}

export interface PackageJson {
  scripts?: Record<string, unknown>;
  packageManager?: unknown;
  dependencies?: Record<string, unknown>;
  devDependencies?: Record<string, unknown>;
  jest?: unknown;
  mocha?: unknown;
}

/** What detection found: the commands, and why. */
export interface Detection {
  setup: string | null;
  /** node runners: the bare runner call (`vitest run`), run through the package manager by detect.ts. */
  test: string;
  reason: string;
}

/** A plain-output parser: whether the output looks like this runner's, and the parse. */
export interface OutputParser {
  /**
   * `tree`: the runner draws ✓/✔/✖ trees, and at most one tree parser applies to an output
   * (the first that recognises it); `lines`: line formats that may appear next to others.
   */
  kind: 'tree' | 'lines';
  detect(text: string): boolean;
  parse(lines: string[]): ParserResult;
}

export interface TestRunner {
  id: RunnerId;
  /** The ecosystem the runner belongs to, for the report (`stack`). */
  stack: 'node' | 'python' | 'go' | 'rust' | 'make';
  /** What a run of this runner reports as its source when its results are read. */
  parsedFrom: ParsedFrom;
  /** Whether a single command (`VAR=x`, `npx`, `pnpm exec` prefixes removed) runs this runner. */
  invokedBy(core: string): boolean;
  /**
   * Whether runner arguments can be appended to a command that runs it (absent: yes). No for a
   * wrapper whose own configuration decides what runs (`tox`, `hatch test` for pytest).
   */
  appendable?(core: string): boolean;
  /** A node runner that can be called directly (`npx --no-install jest`) out of a compound package script. */
  directCall?: boolean;
  /**
   * Finds the runner in a project whose test command is not configured. node runners are
   * asked only when package.json has no real test script.
   */
  detect?(project: Project): Promise<Detection | null>;
  /** Reads what the compose steps need from the project (mocha: its configuration). */
  load?(root: string, pkg: PackageJson | null): Promise<Partial<RunnerInfo>>;
  /** The report file extension (`report-<n>.<ext>` in the session's temporary directory). */
  reportExtension?: 'json' | 'jsonl' | 'xml';
  /** The report file the invocation already writes (`--json --outputFile=x`), when it does. */
  ownReport?(invocation: string): string | null;
  /** The invocation without its own report flags. */
  withoutOwnReport?(invocation: string): string;
  /** The full command that also writes a machine-readable report to `reportFile`; null: plain output. */
  compose?(info: Appendable, reportFile: string): PlannedRun | null;
  /** The tests related to `changed` (repo-relative paths that exist); null: no selection. */
  related?(info: Appendable, changed: string[], allFiles: string[], reportFile: string): PlannedRun | null;
  /** The runner finds related tests itself (jest `--findRelatedTests`): its selection is evidence of relatedness (verify/tolerance.ts). */
  findsRelated?: boolean;
  /**
   * The runner cannot find related tests itself, but `related` takes test files among the changed
   * ones: the session adds the test files whose imports reach a changed file (verify/imports.ts).
   */
  relatedByImports?: boolean;
  /** Its reports name skipped tests, so a skip marker is judged by what it reports (guard/test-integrity.ts `newlySkipped`). */
  reportsSkips?: boolean;
  /** Its counts are test cases (not assertions, as TAP's are): a moved test may be judged by the passing count (verify/judge.ts). */
  countsTests?: boolean;
  /** Only the given test files; null when not possible. */
  files?(info: Appendable, testFiles: string[], reportFile: string): PlannedRun | null;
  /** The command with the reporter plumbing of `compose`/`related`/`files` removed (for humans). */
  display?(command: string): string;
  /** Plain-output parsers. */
  output?: OutputParser[];
}

/** A shell word: as is when plain, else single-quoted. */
export function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Shell syntax after which arguments cannot be appended to a command. */
export const COMPOUND = /&&|\|\||[;|`$<>()]|\n/;

/** Drops `VAR=value` and `cross-env` prefixes, `npx [flags]`, `pnpm|yarn [exec]` before a binary. */
export function core(command: string): string {
  let c = command.trim();
  let prev: string;
  do {
    prev = c;
    c = c.replace(/^\w+=\S*\s+/, '');
    c = c.replace(/^cross-env\s+/, '');
    c = c.replace(/^npx(?:\s+(?:--no-install|--yes|-y))*\s+/, '');
    c = c.replace(/^(?:pnpm|yarn)(?:\s+exec)?\s+(?!test\b|run\b|install\b)/, '');
  } while (c !== prev);
  return c;
}

/** JS/TS source files. */
export const SOURCE = /\.(?:[cm]?[jt]sx?)$/;
