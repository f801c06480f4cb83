/**
 * Which test runner a command runs, and how to ask it for more without disturbing the
 * user's own configuration: a machine-readable report written to a file of ours (the
 * console output stays as the user knows it), and a selection of the tests related to
 * the changed files. Pure: strings in, commands out; null where the runner cannot be
 * asked safely (then the plain output is parsed and the full command runs).
 */
import path from 'node:path';
import picomatch from 'picomatch';
import type { ParsedFrom } from './types.js';
import { isTestFile } from './test-files.js';
import { MOCHA_REPORTER_FILE, MOCHA_REPORTER_SOURCE, namesSpec, type MochaConfig } from './mocha.js';
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
   * mocha: the project's configuration (`.mocharc.*`, the `mocha` field of package.json),
   * read by the session. mocha adds a configured spec to the files given on the command
   * line (checked with 10.8, 11.8, 12.0), so a selected run gets a configuration without it.
   * Absent: no configuration.
   */
  mochaConfig?: MochaConfig;
}

export interface PlannedRun {
  command: string;
  /** Where the runner writes its machine-readable report (absent: parse the output). */
  reportFile?: string;
  format?: StructuredFormat;
  /** The report is the command's stdout redirected to reportFile (go test -json). */
  stdoutIsReport?: boolean;
  /** Files the command needs (our mocha reporter, a mocha configuration), written before the command runs. */
  support?: { path: string; text: string }[];
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
        // `VAR=x jest`: the variables stay in front of the runner call (`VAR=x npx --no-install jest`).
        const env = segment.match(/^(?:\w+=\S*\s+)*/)?.[0] ?? '';
        info.direct = `${env}${exec} ${segment.slice(env.length).replace(/^(?:npx(?:\s+--no-install)?\s+)/, '')}`;
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
 * `extra`: arguments before ours (a selection of files, a configuration of ours).
 */
function mochaRun(base: string, reportFile: string, extra: string[] = [], support: { path: string; text: string }[] = []): PlannedRun {
  const reporter = path.join(path.dirname(reportFile), MOCHA_REPORTER_FILE);
  const args = extra.length ? ` ${extra.join(' ')}` : '';
  return {
    command: `${base}${args} --reporter ${quote(reporter)} --reporter-option agentFixOutput=${quote(reportFile)}`,
    reportFile,
    format: 'mocha-jsonl',
    support: [{ path: reporter, text: MOCHA_REPORTER_SOURCE }, ...support],
    flavour: 'generic',
    parsedFrom: 'mocha',
  };
}

/** mocha options that take a value (`--require x`, `-t 5000`), mocha 10 to 12. */
const MOCHA_VALUE_FLAGS = new Set([
  '--config', '--package', '--extension', '--file', '--global', '--globals', '--ignore', '--exclude', '--node-option', '-n',
  '--reporter-option', '--reporter-options', '-O', '--require', '-r', '--spec', '--watch-files', '--watch-ignore',
  '--fgrep', '-f', '--grep', '-g', '--reporter', '-R', '--ui', '-u', '--slow', '-s', '--timeout', '--timeouts', '-t', '--retries', '--jobs', '-j',
]);

/** mocha's boolean options (lib/cli/run-option-metadata), with their aliases. */
const MOCHA_BOOLEAN_FLAGS = new Set(
  [
    'allow-uncaught', 'async-only', 'bail', 'check-leaks', 'clear-screen', 'color', 'colors', 'delay', 'diff', 'dry-run', 'exit',
    'fail-hook-affected-tests', 'pass-on-failing-test-suite', 'fail-zero', 'forbid-only', 'forbid-pending', 'full-trace', 'inline-diffs',
    'invert', 'no-colors', 'parallel', 'posix-exit-codes', 'recursive', 'sort', 'watch', 'inspect', 'inspect-brk',
  ].flatMap((n) => [`--${n}`, `--no-${n}`]).concat(['-A', '-b', '-c', '-C', '-i', '-p', '-S', '-w']),
);

/** Splits a command into words: plain words and '…' / "…" quoted ones; null for anything else (escapes, expansions). */
function words(command: string): string[] | null {
  const out: string[] = [];
  const re = /\s*(?:'([^']*)'|"([^"\\$`]*)"|([^\s'"\\]+))/y;
  let current: string | null = null;
  let i = 0;
  while (i < command.length) {
    if (/\s/.test(command[i])) {
      if (current !== null) out.push(current);
      current = null;
      i++;
      continue;
    }
    re.lastIndex = i;
    const m = re.exec(command);
    if (!m || m[0].length === 0) return null;
    current = (current ?? '') + (m[1] ?? m[2] ?? m[3]);
    i = re.lastIndex;
  }
  if (current !== null) out.push(current);
  return out;
}

/** A mocha invocation taken apart: what comes before mocha, mocha, its options and the spec files it names. */
interface MochaCall {
  /** Words before the binary: `VAR=x`, `cross-env …`, `npx --no-install`, `pnpm exec`. */
  prefix: string[];
  bin: string;
  /** The options, with their values, in order (spec files and `--spec` left out). */
  options: string[];
  /** Spec files, directories or globs named by the invocation (positional or `--spec`). */
  specs: string[];
  extension: string[];
  ignore: string[];
  recursive?: boolean;
}

/**
 * The invocation taken apart, or null when that cannot be done safely: quoting beyond plain
 * '…' / "…", `--`, a configuration or package.json of its own (`--config`, `--package`,
 * `--no-config`, `--no-package`), bundled short flags, or an unknown option followed by a
 * word (the word may be its value or a spec file, depending on mocha's version).
 */
function parseMochaCall(invocation: string): MochaCall | null {
  const w = words(invocation);
  if (!w) return null;
  let i = 0;
  const prefix: string[] = [];
  while (i < w.length) {
    if (/^\w+=/.test(w[i]) || w[i] === 'cross-env') prefix.push(w[i++]);
    else if (w[i] === 'npx') {
      prefix.push(w[i++]);
      while (i < w.length && /^(?:--no-install|--yes|-y)$/.test(w[i])) prefix.push(w[i++]);
    } else if (w[i] === 'pnpm' || w[i] === 'yarn') {
      prefix.push(w[i++]);
      if (w[i] === 'exec') prefix.push(w[i++]);
    } else break;
  }
  if (!/^(?:\.\/node_modules\/\.bin\/)?mocha$/.test(w[i] ?? '')) return null;
  const call: MochaCall = { prefix, bin: w[i], options: [], specs: [], extension: [], ignore: [] };
  for (i++; i < w.length; i++) {
    const a = w[i];
    if (!a.startsWith('-') || a === '-') {
      call.specs.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq === -1 ? a : a.slice(0, eq);
    if (a === '--' || /^--(?:no-)?(?:config|package)$/.test(name)) return null;
    if (MOCHA_VALUE_FLAGS.has(name)) {
      let value: string;
      if (eq !== -1) value = a.slice(eq + 1);
      else {
        if (i + 1 >= w.length) return null;
        value = w[++i];
      }
      if (name === '--spec') {
        call.specs.push(value);
        continue;
      }
      if (name === '--extension') call.extension.push(...value.split(',').filter(Boolean));
      if (name === '--ignore' || name === '--exclude') call.ignore.push(value);
      call.options.push(name, value);
      continue;
    }
    if (/^-[^-]./.test(a)) return null;
    if (name === '--recursive') call.recursive = true;
    if (name === '--no-recursive') call.recursive = false;
    if (!MOCHA_BOOLEAN_FLAGS.has(name) && eq === -1 && i + 1 < w.length && !w[i + 1].startsWith('-')) return null;
    call.options.push(a);
  }
  return call;
}

/**
 * A matcher for a glob as mocha's glob reads it (`*`, `**`, `?`, `[…]`, `{a,b}`, `{1..3}`);
 * null for what is not judged: extglobs (`+(a|b)`) and unbalanced brackets or braces.
 */
function globMatcher(glob: string): ((file: string) => boolean) | null {
  if (/[!+@*?]\(/.test(glob)) return null;
  try {
    // glob negates a class with `[!…]`; picomatch reads that as a class holding `!`, so say `[^…]`
    return picomatch(glob.replace(/\[!/g, '[^'), { dot: false, strictBrackets: true });
  } catch {
    return null;
  }
}

/**
 * Whether mocha, given `spec`, runs `file` (repo-relative): the file itself, the file with
 * one of the extensions added, a file of the directory (of its subdirectories with
 * `recursive`) with one of the extensions, or a file the glob matches. Hidden files and
 * directories are never matched (mocha's glob and directory lookup skip hidden files).
 * Null when the spec cannot be judged (absolute, `..`, an extglob).
 */
function specMatcher(spec: string, extension: string[], recursive: boolean): ((file: string) => boolean) | null {
  const s = spec.replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
  if (spec.startsWith('/') || s.split('/').includes('..')) return null;
  const visible = (f: string) => !f.split('/').some((part) => part.startsWith('.'));
  if (/[*?[\]{}]/.test(s)) {
    const matches = globMatcher(s);
    return matches ? (f) => visible(f) && matches(f) : null;
  }
  const exts = extension.map((e) => (e.startsWith('.') ? e : `.${e}`));
  return (f) => {
    if (f === s) return true;
    if (!visible(f)) return false;
    if (exts.some((e) => f === s + e)) return true;
    const rest = s === '' || s === '.' ? f : f.startsWith(`${s}/`) ? f.slice(s.length + 1) : null;
    return rest !== null && (recursive || !rest.includes('/')) && exts.some((e) => f.endsWith(e));
  };
}

const asList = (v: unknown): string[] => (v === undefined || v === null ? [] : (Array.isArray(v) ? v : [v]).map(String));
const asFlag = (v: unknown): boolean | undefined => (v === undefined ? undefined : v === true || v === 'true');

/** The configuration of ours that mocha loads instead of the project's: its options without the spec. */
function jsConfigWrapper(file: string): string {
  return [
    "'use strict';",
    '// agent-fix: the project\'s mocha configuration without its spec, for a run of selected test files.',
    '// mocha loads this file as it loads the project\'s; the project\'s file is loaded the way mocha loads it (require, relative to the working directory).',
    `var loaded = require(require('path').resolve(${JSON.stringify(file)}));`,
    'var options = Object.assign({}, loaded !== null && loaded !== undefined && loaded.default !== undefined && loaded.default !== null ? loaded.default : loaded);',
    'delete options.spec;',
    'delete options._;',
    'module.exports = options;',
    '',
  ].join('\n');
}

function withoutSpec(options: Record<string, unknown>): Record<string, unknown> {
  const { spec: _spec, _: _positional, ...rest } = options;
  return rest;
}

const MOCHA_CONFIG_FILE = 'agent-fix-mocharc';
const MOCHA_PACKAGE_FILE = 'agent-fix-mocha-package.json';

/**
 * mocha running only `files` (repo-relative), the tests the full command runs among them;
 * null when that cannot be done soundly. mocha adds the spec files of the invocation and of
 * the configuration to the files it is given, so:
 * - spec files named by the invocation (`mocha 'test/*.test.js'`, `mocha --recursive test`)
 *   are replaced by ours: the invocation is rebuilt word by word (through the package
 *   manager's exec when it is the package script), when it can be taken apart safely;
 * - a configuration that names spec files is replaced for this run by one of ours without
 *   them (`--config <tmp>/agent-fix-mocharc.json`, everything else kept; a JS file is loaded
 *   by a small wrapper of ours, which mocha loads the way it loads the project's), and a
 *   package.json `mocha` field that does by a package file of ours (`--package <tmp>/…`),
 *   so mocha merges the two as it always does;
 * - only files the full command runs are kept: those the specs (invocation, configuration,
 *   else mocha's default `test`), `extension`, `recursive` and `ignore` select. Under a JS
 *   configuration these are unknown: the files are kept as given when the invocation names
 *   no spec, and only globs and files of the invocation are judged otherwise.
 */
function mochaSelection(info: RunnerInfo, files: string[], reportFile: string): PlannedRun | null {
  const base = info.base;
  if (!base || files.length === 0) return null;
  const config = info.mochaConfig ?? {};
  if (config.unselectable) return null;
  const call = parseMochaCall(info.invocation.trim());
  if (!call) return null;
  const tmp = path.dirname(reportFile);
  const rc = config.options;
  const pkg = config.pkg;
  const js = config.file !== undefined && rc === undefined;

  // Which of the files the full command runs.
  const specs = [...call.specs];
  if (!js) specs.push(...asList(rc?.spec), ...asList(rc?._));
  specs.push(...asList(pkg?.spec), ...asList(pkg?._));
  let keep: (f: string) => boolean = () => true;
  if (!js || call.specs.length > 0) {
    const configured = [...call.extension, ...(js ? [] : asList(rc?.extension)), ...asList(pkg?.extension)];
    const extension = configured.length ? configured : ['js', 'cjs', 'mjs'];
    const recursive = call.recursive ?? (js ? undefined : asFlag(rc?.recursive)) ?? asFlag(pkg?.recursive) ?? false;
    const judged = js ? call.specs : specs.length ? specs : ['test'];
    // Under a JS configuration, a directory's files depend on its extension / recursive: not judged.
    if (js && judged.some((s) => !/[*?[\]{}]/.test(s) && !/\.[cm]?[jt]sx?$/.test(s))) return null;
    const matchers = judged.map((s) => specMatcher(s, extension, recursive));
    const ignoreList = [...call.ignore, ...(js ? [] : [...asList(rc?.ignore), ...asList(rc?.exclude)]), ...asList(pkg?.ignore), ...asList(pkg?.exclude)];
    const ignores = ignoreList.map((g) => globMatcher(g.replace(/^(?:\.\/)+/, '')));
    if (matchers.some((m) => m === null) || ignores.some((r) => r === null)) return null;
    keep = (f) => matchers.some((m) => m!(f)) && !ignores.some((r) => r!(f));
  }
  const selected = files.filter(keep);
  if (selected.length === 0) return null;

  // The configuration of ours, when the project's names spec files.
  const extra: string[] = [];
  const support: { path: string; text: string }[] = [];
  if (rc && namesSpec(rc)) {
    const file = path.join(tmp, `${MOCHA_CONFIG_FILE}.json`);
    support.push({ path: file, text: `${JSON.stringify(withoutSpec(rc), null, 2)}\n` });
    extra.push('--config', quote(file));
  } else if (js && config.jsSpec) {
    const file = path.join(tmp, `${MOCHA_CONFIG_FILE}.cjs`);
    support.push({ path: file, text: jsConfigWrapper(config.file!) });
    extra.push('--config', quote(file));
  }
  if (pkg && namesSpec(pkg)) {
    const file = path.join(tmp, MOCHA_PACKAGE_FILE);
    support.push({ path: file, text: `${JSON.stringify({ mocha: withoutSpec(pkg) }, null, 2)}\n` });
    extra.push('--package', quote(file));
  }

  let command = base;
  if (call.specs.length > 0) {
    // The invocation's own spec files go: it is rebuilt with ours.
    const rest = [call.bin, ...call.options].map(quote);
    if (base === info.invocation) command = [...call.prefix.map(quote), ...rest].join(' ');
    else {
      // A package script (`npm test --`): the script cannot lose its arguments, mocha runs through the package manager.
      const exec = /^npm\b/.test(base) ? 'npx --no-install' : /^pnpm\b/.test(base) ? 'pnpm exec' : /^yarn\b/.test(base) ? 'yarn exec' : null;
      if (!exec || call.prefix.includes('cross-env')) return null;
      const env = call.prefix.filter((p) => /^\w+=/.test(p));
      command = [...env.map(quote), exec, ...rest].join(' ');
    }
  }
  return mochaRun(command, reportFile, [...selected.map(quote), ...extra], support);
}

/** A JS/TS file that is a test file by name or place (`*.test.js`, `test/…`, `spec/…`). */
const JS_TEST = { test: (f: string) => isTestFile(f) && /\.[cm]?[jt]sx?$/.test(f) };

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
      return tests.length ? mochaSelection(info, tests, reportFile) : null;
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
      return mochaSelection(info, testFiles, reportFile);
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
    .replace(/ --config \S*agent-fix-mocharc\.(?:json|cjs)'?| --package \S*agent-fix-mocha-package\.json'?/g, '')
    .replace(/ --reporter \S*agent-fix-mocha-reporter\.cjs'? --reporter-option agentFixOutput=\S+/g, '')
    .replace(/^go test -json /, 'go test ')
    .replace(/ > \S+$/, '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/ --$/, '');
}
