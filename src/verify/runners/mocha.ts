/**
 * mocha: detected as a dependency or by its configuration. mocha takes one reporter only,
 * so the harness hands it its own (`mocha-reporter.cjs`, shipped next to the bundle and
 * copied into the run's temporary directory): it prints what mocha's spec reporter prints
 * and writes one JSON line per test, failing hook and the run's end. mocha cannot find
 * related tests: a selection of test files is run instead, soundly or not at all
 * (`mochaSelection`, with the project's configuration read by mocha-config.ts). The plain
 * spec output is parsed when no report exists.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestCase, TestStatus } from '../types.js';
import { testId } from '../identity.js';
import { isJsTestFile } from '../../lang/javascript/files.js';
import { failure, oneLine, relativeTo, totalsOf, type StructuredResult } from './report.js';
import { quote, type PlannedRun, type RunnerInfo, type SupportFile, type TestRunner } from './runner.js';
import { Collector, indentOf, messageFrom, SEP, stripAnsi, type ParserResult, type TestTotals } from './text.js';
import {
  asFlag,
  asList,
  globMatcher,
  jsConfigWrapper,
  namesSpec,
  parseMochaCall,
  readMochaConfig,
  specMatcher,
  withoutSpec,
} from './mocha-config.js';

/** The reporter, a plain CommonJS file shipped next to this module (the build copies it next to the bundle: dist/). */
export const MOCHA_REPORTER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'mocha-reporter.cjs');
/** Its name in the run's temporary directory (where mocha loads it from). */
export const MOCHA_REPORTER_FILE = 'agent-fix-mocha-reporter.cjs';
const MOCHA_CONFIG_FILE = 'agent-fix-mocharc';
const MOCHA_PACKAGE_FILE = 'agent-fix-mocha-package.json';

// ------------------------------------------------------------------------- plain output (spec reporter)

const MOCHA_PASS = /^(\s+)(✓|✔)\s+(.+?)(?:\s+\(\d+m?s\))?\s*$/;
const MOCHA_FAIL = /^(\s+)(\d+)\)\s+(.+?)\s*$/;
const MOCHA_PENDING = /^(\s+)-\s+(.+?)\s*$/;

function parseMocha(lines: string[]): ParserResult {
  const out = new Collector();
  const suites: string[] = [];
  const byNumber = new Map<string, string>();
  let totals: TestTotals | undefined;
  let details = false;
  let current: TestTotals | undefined;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const sum = /^\s*(\d+)\s+(passing|failing|pending)\b/.exec(line);
    if (sum) {
      if (!details) {
        details = true;
        current = { passed: 0, failed: 0, skipped: 0 };
        totals = totals ?? { passed: 0, failed: 0, skipped: 0 };
      }
      const n = Number(sum[1]);
      const key = sum[2] === 'passing' ? 'passed' : sum[2] === 'failing' ? 'failed' : 'skipped';
      if (current && totals) {
        current[key] += n;
        totals[key] += n;
      }
      continue;
    }
    if (details) {
      // `  1) suite\n       nested\n       test name:\n     Error: message`
      const head = /^\s+(\d+)\)\s+(.*)$/.exec(line);
      if (head && byNumber.has(head[1])) {
        let j = i;
        while (j < lines.length && j < i + 12 && !/:\s*$/.test(lines[j])) j++;
        const message = messageFrom(lines, j + 1, (l) => /^\s+\d+\)\s/.test(l));
        out.setMessage(byNumber.get(head[1]) as string, message);
        i = j;
        continue;
      }
      // A new run (another mocha invocation) starts with a suite or a test line.
      if (MOCHA_PASS.test(line)) {
        details = false;
        suites.length = 0;
        byNumber.clear();
      } else continue;
    }
    if (!line.trim()) continue;
    const indent = indentOf(line);
    if (indent < 2) continue;
    const depth = Math.max(0, Math.floor((indent - 2) / 2));
    const pass = MOCHA_PASS.exec(line);
    const fail = pass ? null : MOCHA_FAIL.exec(line);
    const pending = pass || fail ? null : MOCHA_PENDING.exec(line);
    if (pass) out.add([...suites.slice(0, depth), pass[3]].join(SEP), 'passed');
    else if (fail) {
      const id = [...suites.slice(0, depth), fail[3]].join(SEP);
      byNumber.set(fail[2], id);
      out.add(id, 'failed');
    } else if (pending) out.add([...suites.slice(0, depth), pending[2]].join(SEP), 'skipped');
    else if (indent % 2 === 0) {
      suites.length = Math.min(suites.length, depth);
      suites.push(line.trim());
    }
  }
  return { tests: out.list(), parsedFrom: 'mocha', totals };
}

// ------------------------------------------------------------------------- the JSON lines of our reporter

interface MochaLine {
  type?: string;
  path?: unknown;
  state?: string;
  file?: string;
  duration?: number;
  message?: string;
  details?: string;
}

/**
 * The JSON lines of our mocha reporter: one per test (passed / failed / skipped) and per
 * failing hook, `suite > nested > title` like the spec output (a hook: `suite > "before
 * all" hook for "test"`). A test reported twice (it passed, then failed asynchronously)
 * counts as failed. Lines that are not JSON (a truncated last line) are skipped.
 */
export function parseMochaJsonl(text: string, root: string): StructuredResult | null {
  const byId = new Map<string, TestCase>();
  let lines = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) continue;
    let e: MochaLine;
    try {
      e = JSON.parse(line) as MochaLine;
    } catch {
      continue;
    }
    lines++;
    if (e.type !== 'test' && e.type !== 'hook') continue;
    const titles = Array.isArray(e.path) ? e.path.filter((t): t is string => typeof t === 'string' && t !== '') : [];
    if (titles.length === 0) continue;
    const id = testId(titles);
    const status: TestStatus = e.state === 'passed' ? 'passed' : e.state === 'failed' ? 'failed' : 'skipped';
    const previous = byId.get(id);
    if (previous?.status === 'failed') continue;
    const test: TestCase = { id, status };
    if (e.file) test.file = relativeTo(root, e.file);
    if (typeof e.duration === 'number') test.durationMs = e.duration;
    if (status === 'failed') {
      failure(test, e.details || e.message || 'failed', root);
      if (e.message?.trim()) test.message = oneLine(stripAnsi(e.message));
    }
    byId.set(id, test);
  }
  if (lines === 0 && text.trim()) return null;
  const tests = [...byId.values()];
  return { tests, loadErrors: [], totals: totalsOf(tests) };
}

// ------------------------------------------------------------------------- commands

/**
 * mocha with our reporter (`mocha-reporter.cjs`): it prints spec-style output and writes
 * the report. mocha takes the last `--reporter` given and a command-line reporter over the
 * configuration's (checked with 10.8, 11.8, 12.0), so a reporter of the user's is replaced
 * for our runs only; the user's `--reporter-option`s are merged with ours and ignored.
 * `extra`: arguments before ours (a selection of files, a configuration of ours).
 */
function mochaRun(base: string, reportFile: string, extra: string[] = [], support: SupportFile[] = []): PlannedRun {
  const reporter = path.join(path.dirname(reportFile), MOCHA_REPORTER_FILE);
  const args = extra.length ? ` ${extra.join(' ')}` : '';
  return {
    command: `${base}${args} --reporter ${quote(reporter)} --reporter-option agentFixOutput=${quote(reportFile)}`,
    reportFile,
    format: 'mocha-jsonl',
    support: [{ path: reporter, copyOf: MOCHA_REPORTER }, ...support],
    flavour: 'generic',
    parsedFrom: 'mocha',
  };
}

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
const JS_TEST = { test: isJsTestFile };

export const mocha: TestRunner = {
  id: 'mocha',
  stack: 'node',
  parsedFrom: 'mocha',
  reportsSkips: true,
  countsTests: true,
  invokedBy: (c) => /^(?:\.\/node_modules\/\.bin\/)?mocha\b/.test(c),
  directCall: true,
  async detect({ pkg, files }) {
    const deps = { ...(pkg?.dependencies ?? {}), ...(pkg?.devDependencies ?? {}) };
    if ('mocha' in deps || pkg?.mocha !== undefined || files.some((f) => /^\.mocharc/.test(f))) {
      return { setup: null, test: 'mocha', reason: 'mocha is a dependency or configured' };
    }
    return null;
  },
  load: async (root, pkg) => ({ mochaConfig: await readMochaConfig(root, pkg) }),
  reportExtension: 'jsonl',
  compose: (info, reportFile) => mochaRun(info.base, reportFile),
  related(info, changed, _allFiles, reportFile) {
    // mocha cannot find related tests: the test files among the selection (the changed
    // ones, those of the baseline's failures); none: null, and the caller tries the test
    // files named after the changed sources (`files`).
    const tests = changed.filter((p) => JS_TEST.test(p));
    return tests.length ? mochaSelection(info, tests, reportFile) : null;
  },
  files: (info, testFiles, reportFile) => mochaSelection(info, testFiles, reportFile),
  display: (command) =>
    command
      .replace(/ --config \S*agent-fix-mocharc\.(?:json|cjs)'?| --package \S*agent-fix-mocha-package\.json'?/g, '')
      .replace(/ --reporter \S*agent-fix-mocha-reporter\.cjs'? --reporter-option agentFixOutput=\S+/g, ''),
  output: [{ kind: 'tree', detect: (t) => /^\s*\d+ passing\b/m.test(t) || /^\s*\d+ failing\s*$/m.test(t), parse: parseMocha }],
};
