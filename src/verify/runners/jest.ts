/**
 * jest: detected as a dependency or by its configuration; asked for `--json
 * --outputFile=<ours>` (or the JSON report the invocation already writes is read);
 * related tests by `--findRelatedTests`, given files by `--runTestsByPath`; the plain
 * output (verbose listing, `●` failure headers, `Tests:` summary) parsed when no report
 * exists. The JSON report shape is vitest's too (runners/vitest.ts).
 */
import type { TestCase, TestStatus } from '../types.js';
import { testId } from '../identity.js';
import { failure, relativeTo, totalsOf, type StructuredResult } from './report.js';
import { COMPOUND, quote, SOURCE, type TestRunner } from './runner.js';
import { addTotals, Collector, indentOf, messageFrom, SEP, summaryNumbers, type ParserResult, type TestTotals } from './text.js';

// ------------------------------------------------------------------------- plain output

const JEST_FILE = /^\s*(PASS|FAIL)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$/;
const JEST_TEST = /^(\s+)(✓|✕|○|✎|√|×)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$/;
const JEST_HEADER = /^ {2}● (.+)$/;

function parseJest(lines: string[]): ParserResult {
  const out = new Collector();
  let file = '';
  let listing = false;
  const suites: string[] = [];
  let totals: TestTotals | undefined;
  /** `PASS file`: every test of it passed (the default reporter names none of them). */
  const passedFiles = new Set<string>();

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const f = JEST_FILE.exec(line);
    if (f && !/^\s*FAIL\s.* > /.test(line)) {
      file = f[2].trim();
      if (f[1] === 'PASS') passedFiles.add(file);
      listing = true;
      suites.length = 0;
      continue;
    }
    const summary = /^Tests:\s+(.*)$/.exec(line);
    if (summary) {
      const n = summaryNumbers(summary[1]);
      totals = addTotals(totals, {
        passed: n.get('passed') ?? 0,
        failed: n.get('failed') ?? 0,
        skipped: (n.get('skipped') ?? 0) + (n.get('todo') ?? 0),
      });
      listing = false;
      continue;
    }
    const h = JEST_HEADER.exec(line);
    if (h && file) {
      listing = false;
      const title = h[1].trim();
      if (title === 'Console') continue;
      const parts = title === 'Test suite failed to run' ? [title] : title.split(' › ');
      const id = [file, ...parts].join(SEP);
      const message = messageFrom(lines, i + 1, (l) => JEST_HEADER.test(l) || JEST_FILE.test(l), 3);
      out.add(id, 'failed', message);
      continue;
    }
    if (!listing) continue;
    if (!line.trim()) {
      listing = false;
      continue;
    }
    const t = JEST_TEST.exec(line);
    const indent = indentOf(line);
    const depth = Math.max(0, Math.floor((indent - 2) / 2));
    if (t) {
      let name = t[3];
      let status: TestStatus;
      if (t[2] === '✓' || t[2] === '√') status = 'passed';
      else if (t[2] === '✕' || t[2] === '×') status = 'failed';
      else {
        status = 'skipped';
        name = name.replace(/^(skipped|todo)\s+/, '');
      }
      out.add([file, ...suites.slice(0, depth), name].join(SEP), status);
    } else {
      suites.length = Math.min(suites.length, depth);
      suites.push(line.trim());
    }
  }
  return { tests: out.list(), parsedFrom: 'jest', totals, ...(passedFiles.size ? { passedFiles: [...passedFiles] } : {}) };
}

// ------------------------------------------------------------------------- JSON report (also vitest's)

interface JestAssertion {
  ancestorTitles?: string[];
  title?: string;
  fullName?: string;
  status?: string;
  duration?: number | null;
  failureMessages?: string[];
}
interface JestFile {
  name?: string;
  status?: string;
  message?: string;
  failureMessage?: string;
  assertionResults?: JestAssertion[];
  testExecError?: { message?: string };
}

const JEST_STATUS: Record<string, TestStatus> = {
  passed: 'passed',
  failed: 'failed',
  pending: 'skipped',
  skipped: 'skipped',
  todo: 'skipped',
  disabled: 'skipped',
  focused: 'passed',
};

export function parseJestJson(text: string, root: string): StructuredResult | null {
  let data: { testResults?: JestFile[] };
  try {
    // jest may print a warning line before the JSON when it goes to stdout.
    const start = text.indexOf('{');
    data = JSON.parse(start > 0 ? text.slice(start) : text);
  } catch {
    return null;
  }
  if (!data || !Array.isArray(data.testResults)) return null;
  const tests: TestCase[] = [];
  const loadErrors: string[] = [];
  for (const file of data.testResults) {
    const rel = relativeTo(root, file.name ?? 'unknown');
    const assertions = file.assertionResults ?? [];
    for (const a of assertions) {
      const titles = [...(a.ancestorTitles ?? []), a.title ?? a.fullName ?? '?'];
      const test: TestCase = { id: testId([rel, ...titles]), status: JEST_STATUS[a.status ?? ''] ?? 'skipped', file: rel };
      if (typeof a.duration === 'number') test.durationMs = a.duration;
      if (test.status === 'failed') failure(test, (a.failureMessages ?? []).join('\n'), root);
      tests.push(test);
    }
    const fileFailed = file.status === 'failed';
    if (fileFailed && !assertions.some((a) => a.status === 'failed')) {
      // The file did not load (syntax error, missing import) or failed outside any test.
      const test: TestCase = { id: rel, status: 'failed', file: rel };
      failure(test, file.testExecError?.message ?? file.failureMessage ?? file.message ?? 'Test suite failed to run', root);
      tests.push(test);
      loadErrors.push(rel);
    }
  }
  return { tests, loadErrors, totals: totalsOf(tests) };
}

// ------------------------------------------------------------------------- the invocation's own report

/** `--outputFile=x`, `--outputFile x`, `--outputFile.json=x` (vitest). */
export const OUTPUT_FILE = /(?:^|\s)--outputFile(?:\.json)?(?:=|\s+)(?:'([^']+)'|"([^"]+)"|(\S+))/;

/**
 * The JSON report file the invocation already asks for, when it does (`json`: the runner's
 * JSON reporter flag). Adding our own flags would clash with them (the runner takes one
 * output file), so the harness reads that file instead.
 */
export function ownJsonReport(invocation: string, json: RegExp): string | null {
  if (COMPOUND.test(invocation) || !json.test(invocation)) return null;
  const m = invocation.match(OUTPUT_FILE);
  return m ? (m[1] ?? m[2] ?? m[3]) : null;
}

/** The invocation without its own JSON report flags. */
export function withoutJsonReport(invocation: string, json: RegExp): string {
  return invocation
    .replace(new RegExp(OUTPUT_FILE.source, 'g'), ' ')
    .replace(new RegExp(json.source, 'g'), ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

const JEST_JSON = /(?:^|\s)--json(?=\s|$)/;

export const jest: TestRunner = {
  id: 'jest',
  stack: 'node',
  parsedFrom: 'jest',
  reportsSkips: true,
  countsTests: true,
  invokedBy: (c) => /^(?:\.\/node_modules\/\.bin\/)?jest\b/.test(c),
  directCall: true,
  async detect({ pkg, files }) {
    const deps = { ...(pkg?.dependencies ?? {}), ...(pkg?.devDependencies ?? {}) };
    if ('jest' in deps || pkg?.jest !== undefined || files.some((f) => /^jest\.config\.[cm]?[jt]s(?:on)?$/.test(f))) {
      return { setup: null, test: 'jest', reason: 'jest is a dependency or configured' };
    }
    return null;
  },
  reportExtension: 'json',
  ownReport: (invocation) => ownJsonReport(invocation, JEST_JSON),
  withoutOwnReport: (invocation) => withoutJsonReport(invocation, JEST_JSON),
  compose: (info, reportFile) => ({
    command: `${info.base} --json --outputFile=${quote(reportFile)}`,
    reportFile,
    format: 'jest-json',
    flavour: 'generic',
    parsedFrom: 'jest',
  }),
  related(info, changed, _allFiles, reportFile) {
    const files = changed.filter((p) => SOURCE.test(p) || /\.(?:json|mjs|cjs)$/.test(p));
    if (files.length === 0) return null;
    return {
      command: `${info.base} --findRelatedTests ${files.map(quote).join(' ')} --passWithNoTests --json --outputFile=${quote(reportFile)}`,
      reportFile,
      format: 'jest-json',
      flavour: 'generic',
      parsedFrom: 'jest',
    };
  },
  findsRelated: true,
  files: (info, testFiles, reportFile) => ({
    command: `${info.base} --runTestsByPath ${testFiles.map(quote).join(' ')} --json --outputFile=${quote(reportFile)}`,
    reportFile,
    format: 'jest-json',
    flavour: 'generic',
    parsedFrom: 'jest',
  }),
  display: (command) => command.replace(/ --json --outputFile=\S+/g, ''),
  output: [
    {
      kind: 'tree',
      detect: (t) => /^Tests:\s+\d/m.test(t) || (/^\s*(?:PASS|FAIL)\s+\S/m.test(t) && /^ {2}● /m.test(t)) || /^\s*(?:PASS|FAIL)\s+\S+\.[cm]?[jt]sx?\s*(?:\(.*\))?$/m.test(t),
      parse: parseJest,
    },
  ],
};
