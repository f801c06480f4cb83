/**
 * vitest: detected as a dependency or by its configuration; asked for its JSON reporter
 * next to the default one (`--reporter=default --reporter=json --outputFile.json=<ours>`,
 * jest's JSON shape, read by runners/jest.ts), or the JSON report the invocation already
 * writes is read; related tests by `vitest related`, given files by `vitest run <files>`
 * (only for a plain `vitest [run]` invocation); the plain output (default and verbose
 * reporters, `FAIL  file > suite > test` details) parsed when no report exists.
 */
import type { TestStatus } from '../types.js';
import { normaliseId } from '../identity.js';
import { ownJsonReport, withoutJsonReport } from './jest.js';
import { quote, SOURCE, type TestRunner } from './runner.js';
import { addTotals, Collector, messageFrom, SEP, summaryNumbers, type ParserResult, type TestTotals } from './text.js';

// ------------------------------------------------------------------------- plain output

const VITEST_FILE = /^(\s*)(✓|❯|×|↓|✗|√)\s+(\S+)\s+\((\d+) tests?\b[^)]*\)/;
const VITEST_TEST = /^(\s*)(✓|×|↓|√)\s+(.+?)(?:\s+\d+(?:\.\d+)?\s*m?s)?(?:\s+\[[^\]]*\])?\s*$/;
const VITEST_FAIL = /^\s*FAIL\s+(.+?)\s*$/;
/** A test name that starts with its file: `src/a.test.ts > suite > name`. */
const HAS_FILE = /^[^\s>]+\.[cm]?[jt]sx?(?= > )/;

function parseVitest(lines: string[]): ParserResult {
  const out = new Collector();
  let file = '';
  let fileIndent = -1;
  let totals: TestTotals | undefined;
  let lastFailed = '';
  /** Ids from the tree listing, where vitest 4's default reporter leaves out describe levels. */
  const treeIds = new Set<string>();
  /** Files the default reporter shows as passing whole, their tests not named. */
  const passedFiles = new Set<string>();

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const summary = /^\s*Tests\s+(.*?)\s*\(\d+\)\s*$/.exec(line);
    if (summary) {
      const n = summaryNumbers(summary[1]);
      totals = addTotals(totals, {
        passed: n.get('passed') ?? 0,
        failed: n.get('failed') ?? 0,
        skipped: (n.get('skipped') ?? 0) + (n.get('todo') ?? 0),
      });
      continue;
    }
    const fail = VITEST_FAIL.exec(line);
    if (fail) {
      // ` FAIL  src/a.test.ts > suite > name` or, for a file that failed to load,
      // ` FAIL  src/a.test.ts [ src/a.test.ts ]`.
      const id = fail[1].replace(/\s+\[[^\]]*\]$/, '').trim();
      out.add(id, 'failed', messageFrom(lines, i + 1, (l) => VITEST_FAIL.test(l) || /^⎯/.test(l.trim()) || /^\s*❯\s/.test(l), 1));
      continue;
    }
    const arrow = /^\s*→\s+(.+)$/.exec(line);
    if (arrow && lastFailed) {
      out.setMessage(lastFailed, arrow[1]);
      continue;
    }
    const f = VITEST_FILE.exec(line);
    if (f) {
      file = f[3];
      // `✓ a.test.ts (17 tests)`: every test of the file passed (none skipped, none failed)
      if ((f[2] === '✓' || f[2] === '√') && !/\|\s*\d+\s+(?:failed|skipped|todo)/.test(line)) passedFiles.add(file);
      fileIndent = f[1].length;
      lastFailed = '';
      continue;
    }
    const t = VITEST_TEST.exec(line);
    if (!t) continue;
    const indent = t[1].length;
    let name = t[3].trim().replace(/\s+\(retry x\d+\)$/, '');
    if (!HAS_FILE.test(name)) {
      if (!file || indent <= fileIndent) continue;
      name = `${file}${SEP}${name}`;
    }
    const status: TestStatus = t[2] === '✓' || t[2] === '√' ? 'passed' : t[2] === '↓' ? 'skipped' : 'failed';
    out.add(name, status);
    treeIds.add(normaliseId(name));
    lastFailed = status === 'failed' ? name : '';
  }
  // A failed test named by the tree without its describe levels (`file > name`) and by its
  // `FAIL file > suite > name` line is one test: the full name stays.
  const all = out.list();
  const failedFull = all.filter((t) => t.status === 'failed' && !treeIds.has(t.id));
  const tests = all.filter((t) => {
    if (t.status !== 'failed' || !treeIds.has(t.id)) return true;
    const cut = t.id.indexOf(SEP);
    if (cut < 0) return true;
    const file = t.id.slice(0, cut);
    const rest = t.id.slice(cut + SEP.length);
    const full = failedFull.find((f) => f.id !== t.id && f.id.startsWith(`${file}${SEP}`) && f.id.endsWith(`${SEP}${rest}`));
    if (full && !full.message && t.message) full.message = t.message;
    return !full;
  });
  return { tests, parsedFrom: 'vitest', totals, ...(passedFiles.size ? { passedFiles: [...passedFiles] } : {}) };
}

const VITEST_JSON = /(?:^|\s)--reporter(?:=|\s+)json(?=\s|$)/;
/** A plain `vitest [run]` invocation: the only one whose files the harness replaces. */
const PLAIN_VITEST = /^(?:npx\s+(?:--no-install\s+)?)?vitest(?:\s+run|\s+--run)?\s*$/;
const REPORT_FLAGS = '--reporter=default --reporter=json --outputFile.json=';
/** Options of an invocation that decide which configuration (and so which tests) a selection runs with. */
const KEPT = /^(?:--config|-c|--project|--root|-r|--dir)=/;

/**
 * A `vitest [run] [--option…]` invocation (no file filters, no option taking a separate value):
 * the options a selection keeps (configuration, project, root, dir); the others (`--coverage`,
 * `--typecheck`, reporters) are the full run's. Null when the invocation names files or values
 * the harness cannot read.
 */
export function selectionOptions(invocation: string): string[] | null {
  const c = invocation.trim().replace(/^npx\s+(?:--no-install\s+)?/, '');
  if (PLAIN_VITEST.test(c)) return [];
  const words = c.split(/\s+/);
  if (words[0] !== 'vitest') return null;
  const kept: string[] = [];
  for (const w of words.slice(1)) {
    if (w === 'run' || w === '--run') continue;
    if (!w.startsWith('-')) return null;
    if (KEPT.test(w)) kept.push(w);
    else if (/^(?:--config|-c|--project|--root|-r|--dir|--reporter|--outputFile\S*|--environment|--pool|-t|--testNamePattern)$/.test(w)) return null;
  }
  return kept;
}

export const vitest: TestRunner = {
  id: 'vitest',
  stack: 'node',
  parsedFrom: 'vitest',
  reportsSkips: true,
  countsTests: true,
  invokedBy: (c) => /^(?:\.\/node_modules\/\.bin\/)?vitest\b/.test(c),
  directCall: true,
  async detect({ pkg, files }) {
    const deps = { ...(pkg?.dependencies ?? {}), ...(pkg?.devDependencies ?? {}) };
    if ('vitest' in deps || files.some((f) => /^vitest\.config\.[cm]?[jt]s$/.test(f))) {
      return { setup: null, test: 'vitest run', reason: 'vitest is a dependency or configured' };
    }
    return null;
  },
  reportExtension: 'json',
  ownReport(invocation) {
    // `--reporter=json` among other reporters writes to `--outputFile.json` only.
    if (/--reporter(?:=|\s+)(?!json\b)\S+/.test(invocation) && !/--outputFile\.json/.test(invocation)) return null;
    return ownJsonReport(invocation, VITEST_JSON);
  },
  withoutOwnReport: (invocation) => withoutJsonReport(invocation, VITEST_JSON),
  compose: (info, reportFile) => ({
    command: `${info.base} ${REPORT_FLAGS}${quote(reportFile)}`,
    reportFile,
    format: 'jest-json',
    flavour: 'generic',
    parsedFrom: 'vitest',
  }),
  related(info, changed, _allFiles, reportFile) {
    const options = selectionOptions(info.invocation);
    if (!options) return null;
    const files = changed.filter((p) => SOURCE.test(p));
    if (files.length === 0) return null;
    return {
      command: `npx --no-install vitest related --run ${files.map(quote).join(' ')} --passWithNoTests ${options.map((o) => `${o} `).join('')}${REPORT_FLAGS}${quote(reportFile)}`,
      reportFile,
      format: 'jest-json',
      flavour: 'generic',
      parsedFrom: 'vitest',
    };
  },
  findsRelated: true,
  files(info, testFiles, reportFile) {
    const options = selectionOptions(info.invocation);
    if (!options) return null;
    return {
      command: `npx --no-install vitest run ${testFiles.map(quote).join(' ')} ${options.map((o) => `${o} `).join('')}${REPORT_FLAGS}${quote(reportFile)}`,
      reportFile,
      format: 'jest-json',
      flavour: 'generic',
      parsedFrom: 'vitest',
    };
  },
  display: (command) => command.replace(/ --reporter=default --reporter=json --outputFile\.json=\S+/g, ''),
  output: [
    {
      kind: 'tree',
      detect: (t) =>
        /^\s*RUN\s+v\d/m.test(t) ||
        /^\s*Test Files\s+\d/m.test(t) ||
        /^\s*(?:✓|×)\s+[^\s>]+\.[cm]?[jt]sx?\s+(?:>|\(\d+ tests?)/m.test(t),
      parse: parseVitest,
    },
  ],
};
