/**
 * Which test runner a command runs, and how to ask it for more without disturbing the
 * user's own configuration: a machine-readable report written to a file of ours (the
 * console output stays as the user knows it), and a selection of the tests related to
 * the changed files. Pure: strings in, commands out; null where the runner cannot be
 * asked safely (then the plain output is parsed and the full command runs).
 */
import path from 'node:path';
import type { ParsedFrom } from '../types.js';
import { MOCHA_REPORTER_FILE, MOCHA_REPORTER_SOURCE } from './mocha.js';
import type { StructuredFormat } from './structured.js';

export type Runner = 'jest' | 'vitest' | 'mocha' | 'node-test' | 'pytest' | 'go' | 'cargo' | 'make' | 'unknown';

export interface RunnerInfo {
  runner: Runner;
  /**
   * Prefix to which runner arguments can be appended: the command itself (`npx jest`) or,
   * when the command is a package script that is exactly one runner invocation,
   * `npm test --` / `pnpm test` / `yarn test`. Null: arguments cannot be appended safely.
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
   * mocha: the project's configuration (`.mocharc.*`, the `mocha` field of package.json)
   * names spec files. mocha adds them to the files given on the command line (checked with
   * 10.8, 11.8, 12.0, positional and `--spec` alike), so no selection of files is possible.
   */
  configSpec?: boolean;
}

export interface PlannedRun {
  command: string;
  /** Where the runner writes its machine-readable report (absent: parse the output). */
  reportFile?: string;
  format?: StructuredFormat;
  /** The report is the command's stdout redirected to reportFile (go test -json). */
  stdoutIsReport?: boolean;
  /** A file the command needs (our mocha reporter), written before the command runs. */
  support?: { path: string; text: string };
  /**
   * The report is the one the user's command already writes (`--json --outputFile=x`):
   * `reportFile` is relative to the repository, never deleted, and read only when the run
   * wrote it.
   */
  ownReport?: boolean;
  flavour: 'pytest' | 'generic';
  parsedFrom: ParsedFrom;
}

const COMPOUND = /&&|\|\||[;|`$<>()]|\n/;

function quote(arg: string): string {
  return /^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

/** Drops `VAR=value` and `cross-env` prefixes, `npx [flags]`, `pnpm|yarn [exec]` before a binary. */
function core(command: string): string {
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

function runnerOf(invocation: string): Runner {
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
  if (/^(?:\.\/node_modules\/\.bin\/)?jest\b/.test(c)) return 'jest';
  if (/^(?:\.\/node_modules\/\.bin\/)?vitest\b/.test(c)) return 'vitest';
  if (/^(?:\.\/node_modules\/\.bin\/)?mocha\b/.test(c)) return 'mocha';
  if (/^node\b.*\s--test\b/.test(c)) return 'node-test';
  if (/^(?:pytest|py\.test|python3?\s+-m\s+pytest)\b/.test(c)) return 'pytest';
  if (/^go\s+test\b/.test(c)) return 'go';
  if (/^cargo\s+test\b/.test(c)) return 'cargo';
  if (/^make\s+test\b/.test(c)) return 'make';
  return 'unknown';
}

/** `testScript`: the package.json `test` script, when the command runs it. */
export function identifyRunner(testCommand: string, testScript: string | null): RunnerInfo {
  const cmd = testCommand.trim();
  const script = cmd.match(/^(npm|pnpm|yarn)(?:\s+run)?\s+test\s*(?:--\s*)?$/);
  if (script && testScript !== null) {
    const runner = runnerOf(testScript);
    const simple = !COMPOUND.test(testScript);
    const manager = script[1];
    const base = simple && runner !== 'unknown' ? (manager === 'npm' ? 'npm test --' : `${manager} test`) : null;
    const info: RunnerInfo = { runner, base, invocation: testScript };
    if (!base && (runner === 'jest' || runner === 'vitest' || runner === 'mocha')) {
      const segment = testScript.split(/&&|\|\||;/).map((p) => p.trim()).find((p) => runnerOf(p) === runner);
      if (segment && !/[|`$<>()]/.test(segment)) {
        const exec = manager === 'npm' ? 'npx --no-install' : `${manager} exec`;
        info.direct = `${exec} ${segment.replace(/^(?:npx(?:\s+--no-install)?\s+)/, '')}`;
      }
    }
    return info;
  }
  const runner = runnerOf(cmd);
  return { runner, base: COMPOUND.test(cmd) ? null : cmd, invocation: cmd };
}

const PARSED_FROM: Record<Runner, ParsedFrom> = {
  jest: 'jest',
  vitest: 'vitest',
  mocha: 'mocha',
  'node-test': 'node-test',
  pytest: 'pytest',
  go: 'go',
  cargo: 'cargo',
  make: 'none',
  unknown: 'none',
};

/** The command that also writes a machine-readable report to `reportFile`; plain command when not possible. */
export function planStructured(testCommand: string, info: RunnerInfo, reportFile: string): PlannedRun {
  const plain: PlannedRun = { command: testCommand, flavour: 'generic', parsedFrom: PARSED_FROM[info.runner] };
  const own = ownReportFile(info.runner, info.invocation);
  if (own) return { command: testCommand, reportFile: own, ownReport: true, format: 'jest-json', flavour: 'generic', parsedFrom: PARSED_FROM[info.runner] };
  const base = info.base;
  if (!base) return plain;
  const f = quote(reportFile);
  switch (info.runner) {
    case 'jest':
      return { command: `${base} --json --outputFile=${f}`, reportFile, format: 'jest-json', flavour: 'generic', parsedFrom: 'jest' };
    case 'vitest':
      return { command: `${base} --reporter=default --reporter=json --outputFile.json=${f}`, reportFile, format: 'jest-json', flavour: 'generic', parsedFrom: 'vitest' };
    case 'pytest':
      return { command: `${base} --junitxml=${f} -o junit_family=xunit1`, reportFile, format: 'junit', flavour: 'pytest', parsedFrom: 'pytest' };
    case 'node-test': {
      // Only a direct `node ... --test` invocation: reporter flags go right after `node`.
      if (base !== info.invocation || !/^node\s/.test(base)) return plain;
      const flags = `--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=${f}`;
      return { command: base.replace(/^node\s/, `node ${flags} `), reportFile, format: 'junit', flavour: 'generic', parsedFrom: 'node-test' };
    }
    case 'mocha':
      return mochaRun(base, reportFile);
    case 'go':
      if (base !== info.invocation || /\s-json\b/.test(base)) return plain;
      return { command: `${base.replace(/^go\s+test\b/, 'go test -json')} > ${f}`, reportFile, format: 'go-json', stdoutIsReport: true, flavour: 'generic', parsedFrom: 'go' };
    default:
      return plain;
  }
}

/**
 * mocha with our reporter (`mocha.ts`): it prints spec-style output and writes
 * the report. mocha takes the last `--reporter` given and a command-line reporter over the
 * configuration's (checked with 10.8, 11.8, 12.0), so a reporter of the user's is replaced
 * for our runs only; the user's `--reporter-option`s are merged with ours and ignored.
 */
function mochaRun(base: string, reportFile: string, files: string[] = []): PlannedRun {
  const reporter = path.join(path.dirname(reportFile), MOCHA_REPORTER_FILE);
  const selection = files.length ? ` ${files.map(quote).join(' ')}` : '';
  return {
    command: `${base}${selection} --reporter ${quote(reporter)} --reporter-option agentFixOutput=${quote(reportFile)}`,
    reportFile,
    format: 'mocha-jsonl',
    support: { path: reporter, text: MOCHA_REPORTER_SOURCE },
    flavour: 'generic',
    parsedFrom: 'mocha',
  };
}

/** mocha options that take a value (`--require x`, `-t 5000`). */
const MOCHA_VALUE_FLAGS = new Set([
  '--config', '--package', '--extension', '--file', '--global', '--globals', '--ignore', '--exclude', '--node-option', '-n',
  '--reporter-option', '--reporter-options', '-O', '--require', '-r', '--spec', '--watch-files', '--watch-ignore',
  '--fgrep', '-f', '--grep', '-g', '--reporter', '-R', '--ui', '-u', '--slow', '-s', '--timeout', '-t', '--retries', '--jobs', '-j',
]);

/**
 * Whether mocha can be asked to run only given files: the invocation names no files of its
 * own (flags only; mocha would run its files and ours), no `--spec`, no other configuration
 * file, and the project's configuration names no spec (mocha would add it to ours).
 */
function mochaSelectable(info: RunnerInfo): boolean {
  if (info.configSpec) return false;
  const args = core(info.invocation).replace(/^(?:\.\/node_modules\/\.bin\/)?mocha\b/, '').split(/\s+/).filter(Boolean);
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!a.startsWith('-')) return false;
    const name = a.split('=')[0];
    if (name === '--spec' || name === '--config' || name === '--package' || name === '--no-config' || name === '--no-package') return false;
    if (MOCHA_VALUE_FLAGS.has(name) && !a.includes('=')) i++;
  }
  return true;
}

/** A JS/TS file that is a test file by name or place (`*.test.js`, `test/…`, `spec/…`). */
const JS_TEST = /\.(?:test|spec)\.[cm]?[jt]sx?$|(?:^|\/)(?:test|tests|spec|__tests__)\/(?:.*\/)?[^/]+\.[cm]?[jt]sx?$/;

/** `--flag=value` or `--flag value`. */
const OUTPUT_FILE = /(?:^|\s)--outputFile(?:\.json)?(?:=|\s+)(?:'([^']+)'|"([^"]+)"|(\S+))/;
const JEST_JSON = /(?:^|\s)--json(?=\s|$)/;
const VITEST_JSON = /(?:^|\s)--reporter(?:=|\s+)json(?=\s|$)/;

/**
 * The JSON report file the invocation already asks for, when it does: jest `--json
 * --outputFile=x`, vitest `--reporter=json --outputFile=x` (the only reporter, or with
 * `--outputFile.json=x`). Adding our own flags would clash with them (the runner takes one
 * output file), so the harness reads that file instead.
 */
export function ownReportFile(runner: Runner, invocation: string): string | null {
  if (COMPOUND.test(invocation)) return null;
  const json = runner === 'jest' ? JEST_JSON : runner === 'vitest' ? VITEST_JSON : null;
  if (!json || !json.test(invocation)) return null;
  if (runner === 'vitest' && /--reporter(?:=|\s+)(?!json\b)\S+/.test(invocation) && !/--outputFile\.json/.test(invocation)) return null;
  const m = invocation.match(OUTPUT_FILE);
  return m ? (m[1] ?? m[2] ?? m[3]) : null;
}

/** The invocation without its own report flags, for the runs the harness composes (related tests, proof). */
function withoutOwnReport(info: RunnerInfo): RunnerInfo {
  if (!ownReportFile(info.runner, info.invocation)) return info;
  const strip = (c: string) =>
    c
      .replace(new RegExp(OUTPUT_FILE.source, 'g'), ' ')
      .replace(new RegExp(info.runner === 'jest' ? JEST_JSON.source : VITEST_JSON.source, 'g'), ' ')
      .replace(/\s+/g, ' ')
      .trim();
  // `npm test --` runs the script, which still writes its report: only a direct invocation can drop the flags.
  if (info.base !== info.invocation) return { ...info, base: null, direct: undefined };
  return { ...info, base: strip(info.base), invocation: strip(info.invocation) };
}

const SOURCE = /\.(?:[cm]?[jt]sx?)$/;
const PY_TEST = /(?:^|\/)(?:test_[^/]*|[^/]*_test)\.py$/;

/**
 * The command that runs only the tests related to `changed` (repo-relative paths that
 * still exist), with the same structured report; null when the runner cannot select, or
 * nothing related was found (then the full command runs).
 */
export function planRelated(info: RunnerInfo, changed: string[], allFiles: string[], reportFile: string): PlannedRun | null {
  info = withoutOwnReport(info);
  if (!info.base && info.direct) info = { ...info, base: info.direct, invocation: info.direct };
  if (!info.base || changed.length === 0) return null;
  const f = quote(reportFile);
  switch (info.runner) {
    case 'jest': {
      const files = changed.filter((p) => SOURCE.test(p) || /\.(?:json|mjs|cjs)$/.test(p));
      if (files.length === 0) return null;
      return {
        command: `${info.base} --findRelatedTests ${files.map(quote).join(' ')} --passWithNoTests --json --outputFile=${f}`,
        reportFile,
        format: 'jest-json',
        flavour: 'generic',
        parsedFrom: 'jest',
      };
    }
    case 'vitest': {
      if (!/^(?:npx\s+(?:--no-install\s+)?)?vitest(?:\s+run|\s+--run)?\s*$/.test(info.invocation.trim())) return null;
      const files = changed.filter((p) => SOURCE.test(p));
      if (files.length === 0) return null;
      return {
        command: `npx --no-install vitest related --run ${files.map(quote).join(' ')} --passWithNoTests --reporter=default --reporter=json --outputFile.json=${f}`,
        reportFile,
        format: 'jest-json',
        flavour: 'generic',
        parsedFrom: 'vitest',
      };
    }
    case 'pytest': {
      // Only when the command names no paths of its own (flags only).
      const args = core(info.base).replace(/^(?:pytest|py\.test|python3?\s+-m\s+pytest)\s*/, '').split(/\s+/).filter(Boolean);
      if (args.some((a) => !a.startsWith('-'))) return null;
      const tests = new Set<string>(changed.filter((p) => PY_TEST.test(p)));
      for (const p of changed) {
        if (!p.endsWith('.py') || PY_TEST.test(p)) continue;
        const stem = p.split('/').pop()!.replace(/\.py$/, '');
        for (const t of allFiles) {
          const name = t.split('/').pop()!;
          if (PY_TEST.test(t) && (name === `test_${stem}.py` || name === `${stem}_test.py`)) tests.add(t);
        }
      }
      if (tests.size === 0) return null;
      return {
        command: `${info.base} ${[...tests].map(quote).join(' ')} --junitxml=${f} -o junit_family=xunit1`,
        reportFile,
        format: 'junit',
        flavour: 'pytest',
        parsedFrom: 'pytest',
      };
    }
    case 'go': {
      if (info.base !== info.invocation || !/\s\.\/\.\.\.(?:\s|$)/.test(info.base)) return null;
      const dirs = [...new Set(changed.filter((p) => p.endsWith('.go')).map((p) => (p.includes('/') ? `./${p.slice(0, p.lastIndexOf('/'))}` : '.')))];
      if (dirs.length === 0) return null;
      const cmd = info.base.replace(/\s\.\/\.\.\.(?=\s|$)/, ` ${dirs.map(quote).join(' ')}`).replace(/^go\s+test\b/, 'go test -json');
      return { command: `${cmd} > ${f}`, reportFile, format: 'go-json', stdoutIsReport: true, flavour: 'generic', parsedFrom: 'go' };
    }
    case 'mocha': {
      // mocha cannot find related tests: the test files among the selection (the changed
      // ones, those of the baseline's failures); none: null, and the caller tries the test
      // files named after the changed sources (planFiles).
      const tests = changed.filter((p) => JS_TEST.test(p));
      if (tests.length === 0 || !mochaSelectable(info)) return null;
      return mochaRun(info.base, reportFile, tests);
    }
    default:
      return null;
  }
}

/** A command that runs only the given test files (for the fail-to-pass proof); null when not possible. */
export function planFiles(info: RunnerInfo, testFiles: string[], reportFile: string): PlannedRun | null {
  info = withoutOwnReport(info);
  if (!info.base && info.direct) info = { ...info, base: info.direct, invocation: info.direct };
  if (!info.base || testFiles.length === 0) return null;
  const files = testFiles.map(quote).join(' ');
  const f = quote(reportFile);
  switch (info.runner) {
    case 'jest':
      return { command: `${info.base} --runTestsByPath ${files} --json --outputFile=${f}`, reportFile, format: 'jest-json', flavour: 'generic', parsedFrom: 'jest' };
    case 'vitest':
      if (!/^(?:npx\s+(?:--no-install\s+)?)?vitest(?:\s+run|\s+--run)?\s*$/.test(info.invocation.trim())) return null;
      return { command: `npx --no-install vitest run ${files} --reporter=default --reporter=json --outputFile.json=${f}`, reportFile, format: 'jest-json', flavour: 'generic', parsedFrom: 'vitest' };
    case 'pytest':
      return { command: `${info.base} ${files} --junitxml=${f} -o junit_family=xunit1`, reportFile, format: 'junit', flavour: 'pytest', parsedFrom: 'pytest' };
    case 'node-test': {
      // A direct `node --test [files]`: the same flags with our files instead.
      if (info.base !== info.invocation || !/^node\s+--test\s*(?:\S+\s*)*$/.test(info.base) || /--test-/.test(info.base)) return null;
      const flags = `--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=${f}`;
      return { command: `node ${flags} --test ${files}`, reportFile, format: 'junit', flavour: 'generic', parsedFrom: 'node-test' };
    }
    case 'go': {
      if (info.base !== info.invocation) return null;
      const dirs = [...new Set(testFiles.map((p) => (p.includes('/') ? `./${p.slice(0, p.lastIndexOf('/'))}` : '.')))];
      return { command: `go test -json ${dirs.map(quote).join(' ')} > ${f}`, reportFile, format: 'go-json', stdoutIsReport: true, flavour: 'generic', parsedFrom: 'go' };
    }
    case 'mocha':
      return mochaSelectable(info) ? mochaRun(info.base, reportFile, testFiles) : null;
    default:
      return null;
  }
}

/**
 * The command as a person would type it: the reporter plumbing of ours (report flags and
 * file paths) removed. For the report; the executed command is kept in the TestRun.
 */
export function displayCommand(command: string): string {
  return command
    .replace(/ --json --outputFile=\S+/g, '')
    .replace(/ --reporter=default --reporter=json --outputFile\.json=\S+/g, '')
    .replace(/ --junitxml=\S+ -o junit_family=xunit1/g, '')
    .replace(/--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=\S+ /g, '')
    .replace(/ --reporter \S*agent-fix-mocha-reporter\.cjs'? --reporter-option agentFixOutput=\S+/g, '')
    .replace(/^go test -json /, 'go test ')
    .replace(/ > \S+$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/ --$/, '');
}
