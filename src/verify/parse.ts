/**
 * Plain-text fallback parsers for the output of common test runners, used when no
 * machine-readable report is available. Pure functions: text in, test cases out.
 *
 * Recognised: node's test runner (spec reporter and TAP, nested subtests), generic TAP,
 * jest (verbose listing, `●` failure headers, `Tests:` summary), vitest (default and
 * verbose reporters, `FAIL  file > suite > test` details), mocha (spec reporter), pytest
 * (`-v` lines and the short test summary), go test (`--- PASS/FAIL/SKIP` lines and
 * package result lines).
 *
 * Ids are stable between runs of the same suite: durations are never part of an id.
 * Jest, vitest and pytest ids start with the test file; go ids with the package:
 *   `src/math.test.js > math > subtracts`, `tests/test_a.py::test_b[1-2]`,
 *   `example.com/calc > TestTable/negative`, node and mocha: `suite > nested > test`.
 * Only leaves are reported; a parent (suite, test with subtests) appears only when it
 * failed without any failing child (hook failure, crash, file that did not load).
 */
import { stripVTControlCharacters } from 'node:util';
import type { ParsedFrom, TestCase, TestStatus } from './types.js';
import { normaliseId } from './identity.js';

export interface TestTotals {
  passed: number;
  failed: number;
  skipped: number;
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

const MAX_MESSAGE = 300;
const SEP = ' > ';

// ------------------------------------------------------------------------- helpers

/** Terminal escape sequences (colours, cursor moves, OSC links and titles, charset switches) removed: node's own stripper. */
export function stripAnsi(text: string): string {
  return stripVTControlCharacters(text);
}

/** Longer lines are cut: no test line is that long, and it bounds the cost of every regex. */
const MAX_LINE = 2000;

function toLines(text: string): string[] {
  return text.split(/\r?\n/).map((line) => {
    const cr = line.lastIndexOf('\r');
    const visible = cr >= 0 ? line.slice(cr + 1) : line;
    return visible.length > MAX_LINE ? visible.slice(0, MAX_LINE) : visible;
  });
}

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_MESSAGE ? `${oneLine.slice(0, MAX_MESSAGE - 1)}…` : oneLine;
}

/** Test cases in first-seen order; the same id seen twice is merged (failure wins). */
class Collector {
  private readonly byId = new Map<string, TestCase>();
  private static readonly rank: Record<TestStatus, number> = { skipped: 0, passed: 1, failed: 2 };

  add(id: string, status: TestStatus, message?: string, durationMs?: number): void {
    // the shared identity's id form (verify/identity.ts): levels normalised, empty levels dropped
    id = normaliseId(id);
    if (!id) return;
    const msg = message ? shorten(message) : undefined;
    const existing = this.byId.get(id);
    if (!existing) {
      const test: TestCase = { id, status };
      if (msg) test.message = msg;
      if (durationMs !== undefined && Number.isFinite(durationMs)) test.durationMs = durationMs;
      this.byId.set(id, test);
      return;
    }
    if (Collector.rank[status] > Collector.rank[existing.status]) existing.status = status;
    if (msg && !existing.message) existing.message = msg;
  }

  setMessage(id: string, message: string): void {
    const test = this.byId.get(normaliseId(id));
    if (test && !test.message && message.trim()) test.message = shorten(message);
  }

  get size(): number {
    return this.byId.size;
  }

  list(): TestCase[] {
    return [...this.byId.values()];
  }
}

function countsOf(tests: TestCase[]): TestTotals {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const t of tests) totals[t.status]++;
  return totals;
}

/** Reads `N word` pairs out of a summary line: `2 failed, 3 passed, 1 skipped`. */
function summaryNumbers(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of text.matchAll(/(\d+)\s+([a-z]+)/gi)) {
    const word = m[2].toLowerCase();
    found.set(word, (found.get(word) ?? 0) + Number(m[1]));
  }
  return found;
}

function addTotals(into: TestTotals | undefined, add: TestTotals): TestTotals {
  if (!into) return { ...add };
  into.passed += add.passed;
  into.failed += add.failed;
  into.skipped += add.skipped;
  return into;
}

/** First lines of an error block worth showing: skips blanks, stack frames and code frames. */
function messageFrom(lines: string[], start: number, stopAt: (line: string, index: number) => boolean, maxLines = 2): string {
  const picked: string[] = [];
  for (let i = start; i < lines.length && picked.length < maxLines; i++) {
    const line = lines[i];
    if (stopAt(line, i)) break;
    const text = line.trim();
    if (!text) continue;
    if (/^at\s/.test(text) || /^>?\s*\d+\s*\|/.test(text) || /^\|/.test(text)) {
      if (picked.length) break;
      continue;
    }
    picked.push(text);
  }
  return picked.join(' ');
}

interface ParserResult {
  tests: TestCase[];
  parsedFrom: ParsedFrom;
  totals?: TestTotals;
}

// ------------------------------------------------------------------------- node spec

const NODE_SPEC_LINE = /^(\s*)(✔|✖|﹣|▶|⚠)\s+(.+?)(?:\s+\((\d+(?:\.\d+)?)ms\))?(\s+#\s*(?:SKIP|TODO)\b.*)?$/;

function parseNodeSpec(lines: string[]): ParserResult {
  const out = new Collector();
  interface Frame { indent: number; name: string; childFailed: boolean }
  const stack: Frame[] = [];
  let inFailureSummary = false;
  let afterTestAt = false;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^✖ failing tests:\s*$/.test(line)) {
      inFailureSummary = true;
      stack.length = 0;
      continue;
    }
    if (inFailureSummary) {
      // `test at file:line:col` then `✖ name (dur)` then the indented error, repeated.
      if (/^test at \S/.test(line)) {
        afterTestAt = true;
        continue;
      }
      if (!line.trim() || /^\s/.test(line)) continue;
      if (afterTestAt && line.startsWith('✖')) {
        // Newer node prints the errors only here: give the message to the first failed
        // test of that name still without one (the summary keeps the order of failures).
        afterTestAt = false;
        const m = NODE_SPEC_LINE.exec(line);
        const name = m ? m[3].trim() : '';
        const message = messageFrom(lines, i + 1, (l) => l.trim() !== '' && indentOf(l) === 0);
        const target = out
          .list()
          .find((t) => t.status === 'failed' && !t.message && (t.id === name || t.id.endsWith(`${SEP}${name}`)));
        if (target && message) out.setMessage(target.id, message);
        continue;
      }
      if (!NODE_SPEC_LINE.test(line) || line.startsWith('ℹ')) continue;
      inFailureSummary = false; // another run starts
    }
    const m = NODE_SPEC_LINE.exec(line);
    if (!m) continue;
    const indent = m[1].length;
    const symbol = m[2];
    const name = m[3].trim();
    const hasDuration = m[4] !== undefined;
    const directive = m[5] ?? '';

    if (symbol === '▶' && !hasDuration) {
      while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
      stack.push({ indent, name, childFailed: false });
      continue;
    }
    while (stack.length && stack[stack.length - 1].indent > indent) stack.pop();
    const top = stack[stack.length - 1];
    if (top && top.indent === indent && top.name === name) {
      // The closing line of a suite or of a test with subtests.
      stack.pop();
      const failedHere = symbol === '✖';
      if (failedHere && !top.childFailed) {
        const id = [...stack.map((f) => f.name), name].join(SEP);
        out.add(id, 'failed', messageFrom(lines, i + 1, (l) => l.trim() !== '' && indentOf(l) <= indent));
      }
      if (failedHere) for (const f of stack) f.childFailed = true;
      continue;
    }
    if (top && top.indent === indent) stack.pop();
    let status: TestStatus;
    if (symbol === '﹣' || /SKIP|TODO/i.test(directive)) status = 'skipped';
    else if (symbol === '✖') status = 'failed';
    else if (symbol === '✔' || symbol === '▶') status = 'passed';
    else continue; // ⚠ (cancelled notices and warnings)
    const id = [...stack.map((f) => f.name), name].join(SEP);
    let message: string | undefined;
    if (status === 'failed') {
      message = messageFrom(lines, i + 1, (l) => l.trim() !== '' && indentOf(l) <= indent);
      for (const f of stack) f.childFailed = true;
    }
    out.add(id, status, message, hasDuration ? Number(m[4]) : undefined);
  }
  return { tests: out.list(), parsedFrom: 'node-test' };
}

// ------------------------------------------------------------------------- TAP

interface TreeNode {
  indent: number;
  name: string;
  status: TestStatus;
  message?: string;
  durationMs?: number;
  children: TreeNode[];
}

function hasFailure(nodes: TreeNode[]): boolean {
  return nodes.some((n) => n.status === 'failed' || hasFailure(n.children));
}

function flattenTree(nodes: TreeNode[], prefix: string[], out: Collector): void {
  // Same name twice among siblings (tape, repeated assertions): number the repeats.
  const seen = new Map<string, number>();
  for (const node of nodes) {
    const n = (seen.get(node.name) ?? 0) + 1;
    seen.set(node.name, n);
    const name = n > 1 ? `${node.name} [${n}]` : node.name;
    const path = [...prefix, name];
    if (node.children.length === 0) {
      out.add(path.join(SEP), node.status, node.message, node.durationMs);
      continue;
    }
    flattenTree(node.children, path, out);
    if (node.status === 'failed' && !hasFailure(node.children)) out.add(path.join(SEP), 'failed', node.message);
  }
}

const TAP_POINT = /^(\s*)(not ok|ok)\s+(\d+)\b(?:\s*-)?\s*(.*)$/;

function tapMessage(lines: string[], start: number, indent: number): { message?: string; durationMs?: number } {
  let message: string | undefined;
  let durationMs: number | undefined;
  let inYaml = false;
  for (let i = start; i < lines.length; i++) {
    const line = lines[i];
    const trimmed = line.trim();
    if (!inYaml) {
      if (trimmed === '---' && indentOf(line) > indent) {
        inYaml = true;
        continue;
      }
      break;
    }
    if (trimmed === '...') break;
    const d = /^duration_ms:\s*([\d.]+)/.exec(trimmed);
    if (d) durationMs = Number(d[1]);
    const e = /^(?:error|message):\s*(.*)$/.exec(trimmed);
    if (e && message === undefined) {
      const value = e[1].trim();
      if (/^[|>][-+]?$/.test(value)) {
        const keyIndent = indentOf(line);
        const block: string[] = [];
        for (let j = i + 1; j < lines.length && block.length < 3; j++) {
          if (lines[j].trim() && indentOf(lines[j]) <= keyIndent) break;
          if (lines[j].trim()) block.push(lines[j].trim());
        }
        message = block.join(' ');
      } else {
        message = value.replace(/^(['"])(.*)\1$/, '$2');
      }
    }
  }
  return { message, durationMs };
}

/** tape's closing lines (`# tests 12`, `# pass 11`, `# fail 1`, `# ok`) are not test names. */
const TAP_SUMMARY = /^#\s+(?:tests|pass|fail|skip|todo|ok|not ok)\b(?:\s+\d+)?\s*$/;

/**
 * tape (and other plain TAP producers) name each test with a `# name` comment followed by its
 * assertions: the test is the group, failed when any of its assertions failed.
 */
function tapGroups(nodes: (TreeNode & { group?: string })[]): ParserResult | null {
  if (!nodes.some((n) => n.group !== undefined)) return null;
  const groups = new Map<string, TreeNode[]>();
  for (const n of nodes) {
    const g = n.group ?? n.name;
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(n);
  }
  const out = new Collector();
  for (const [name, members] of groups) {
    const failed = members.find((n) => n.status === 'failed' || hasFailure(n.children));
    const allSkipped = members.every((n) => n.status === 'skipped');
    const status: TestStatus = failed ? 'failed' : allSkipped ? 'skipped' : 'passed';
    const message = failed ? [failed.name, failed.message].filter(Boolean).join(': ') : undefined;
    out.add(name, status, message);
  }
  return { tests: out.list(), parsedFrom: 'tap' };
}

function parseTap(lines: string[]): ParserResult {
  const open: (TreeNode & { group?: string })[] = [];
  let nodeStyle = false;
  let group: string | undefined;
  const groupNames = new Map<string, number>();
  /** The line of the last `# name` heading; with no plan (`1..N`) anywhere, the run died in that test. */
  let crashedAfter = -1;
  let sawPlan = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^\s*# Subtest: /.test(line)) nodeStyle = true;
    const g = /^# (.+?)\s*$/.exec(line);
    if (g && !TAP_SUMMARY.test(line) && !line.startsWith('# Subtest:')) {
      // the same name twice (a test repeated in a loop): number it like repeated assertions
      const n = (groupNames.get(g[1]) ?? 0) + 1;
      groupNames.set(g[1], n);
      group = n > 1 ? `${g[1]} [${n}]` : g[1];
      crashedAfter = i;
      continue;
    }
    if (/^\s*1\.\.\d+/.test(line)) sawPlan = true;
    const m = TAP_POINT.exec(line);
    if (!m) continue;
    const indent = m[1].length;
    let rest = m[4];
    let directive = '';
    const d = /\s*(?<!\\)#\s*(SKIP|TODO)\b.*$/i.exec(rest);
    if (d) {
      directive = d[1].toUpperCase();
      rest = rest.slice(0, d.index);
    }
    const name = (rest.replace(/\\#/g, '#').replace(/\\\\/g, '\\').trim() || `test ${m[3]}`);
    let status: TestStatus = m[2] === 'ok' ? 'passed' : 'failed';
    if (directive) status = 'skipped';
    const extra = tapMessage(lines, i + 1, indent);
    if (extra.durationMs !== undefined) nodeStyle = true;
    const children: TreeNode[] = [];
    while (open.length && open[open.length - 1].indent > indent) children.unshift(open.pop() as TreeNode);
    open.push({
      indent,
      name,
      status,
      message: status === 'failed' ? extra.message : undefined,
      durationMs: extra.durationMs,
      children,
      group: indent === 0 ? group : undefined,
    });
  }
  if (!nodeStyle && group !== undefined && crashedAfter >= 0 && !sawPlan) {
    // The process died inside the test under the last heading (tape prints no plan then): that test failed.
    const error = lines.slice(crashedAfter + 1).find((l) => /^\s*(?:[A-Z]\w*)?Error\b|^\s*\w+Error:/.test(l));
    open.push({ indent: 0, name: 'did not finish', status: 'failed', message: error?.trim() ?? 'the test run stopped inside this test', children: [], group });
  }
  if (!nodeStyle) {
    const grouped = tapGroups(open);
    if (grouped) return grouped;
  }
  const out = new Collector();
  flattenTree(open, [], out);
  return { tests: out.list(), parsedFrom: nodeStyle ? 'node-test' : 'tap' };
}

// ------------------------------------------------------------------------- jest

const JEST_FILE = /^\s*(PASS|FAIL)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$/;
const JEST_TEST = /^(\s+)(✓|✕|○|✎|√|×)\s+(.+?)(?:\s+\(\d+(?:\.\d+)?\s*m?s\))?\s*$/;
const JEST_HEADER = /^ {2}● (.+)$/;

function parseJest(lines: string[]): ParserResult {
  const out = new Collector();
  let file = '';
  let listing = false;
  const suites: string[] = [];
  let totals: TestTotals | undefined;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const f = JEST_FILE.exec(line);
    if (f && !/^\s*FAIL\s.* > /.test(line)) {
      file = f[2].trim();
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
  return { tests: out.list(), parsedFrom: 'jest', totals };
}

// ------------------------------------------------------------------------- vitest

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
  return { tests, parsedFrom: 'vitest', totals };
}

// ------------------------------------------------------------------------- mocha

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

// ------------------------------------------------------------------------- pytest

const PYTEST_STATUS: Record<string, TestStatus> = {
  PASSED: 'passed',
  FAILED: 'failed',
  ERROR: 'failed',
  SKIPPED: 'skipped',
  XFAIL: 'skipped',
  XPASS: 'passed',
};
const PYTEST_VERBOSE = /^(?:\[gw\d+\]\s+\[\s*\d+%\]\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+(\S+::.+?)\s*$|(\S+\.py::.+?)\s+(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b)/;
const PYTEST_SHORT = /^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\s+(\S+(?:::.+?|\.py))(?:\s+-\s+(.*))?\s*$/;

function parsePytest(lines: string[]): ParserResult {
  const out = new Collector();
  let totals: TestTotals | undefined;
  for (const line of lines) {
    const v = PYTEST_VERBOSE.exec(line);
    if (v) {
      const status = v[1] ?? v[4];
      const id = (v[2] ?? v[3]).replace(/\s+\[\s*\d+%\]$/, '');
      out.add(id, PYTEST_STATUS[status]);
      continue;
    }
    const s = PYTEST_SHORT.exec(line);
    if (s) {
      // SKIPPED lines in the summary read `SKIPPED [1] path:line: reason`: not an id.
      if (s[1] === 'SKIPPED' && /^\[\d+\]$/.test(s[2])) continue;
      out.add(s[2], PYTEST_STATUS[s[1]], s[3]);
      continue;
    }
    const final = /^=+ (.*\b(?:passed|failed|error|errors|skipped|xfailed|xpassed|deselected|no tests ran)\b.*) in [\d.]+s\b.*=+$/.exec(line);
    if (final) {
      const n = summaryNumbers(final[1]);
      totals = addTotals(totals, {
        passed: (n.get('passed') ?? 0) + (n.get('xpassed') ?? 0),
        failed: (n.get('failed') ?? 0) + (n.get('error') ?? 0) + (n.get('errors') ?? 0),
        skipped: (n.get('skipped') ?? 0) + (n.get('xfailed') ?? 0),
      });
    }
  }
  return { tests: out.list(), parsedFrom: 'pytest', totals };
}

// ------------------------------------------------------------------------- go test

const GO_RESULT = /^(\s*)--- (PASS|FAIL|SKIP): (\S+)(?: \(([\d.]+)s\))?/;
const GO_PACKAGE = /^(ok|FAIL)\s+(\S+)(?:\s+(?:[\d.]+s|\(cached\))(?:\s+.*)?|\s+\[([^\]]+)\])?\s*$/;
const GO_LOG = /^\s+(\S+\.go:\d+: .*)$/;

function parseGo(lines: string[]): ParserResult {
  const out = new Collector();
  let pending: { name: string; status: TestStatus; durationMs?: number }[] = [];
  const logs = new Map<string, string>();
  let running = '';
  let lastResult = '';
  let buildError = '';

  const flush = (pkg: string | null, pkgFailed: boolean, why?: string) => {
    const names = new Set(pending.map((p) => p.name));
    const prefix = pkg ? `${pkg}${SEP}` : '';
    let failedInside = false;
    for (const p of pending) {
      const isParent = [...names].some((n) => n.startsWith(`${p.name}/`));
      const childFailed = pending.some((c) => c.name.startsWith(`${p.name}/`) && c.status === 'failed');
      if (p.status === 'failed') failedInside = true;
      if (isParent && !(p.status === 'failed' && !childFailed)) continue;
      out.add(prefix + p.name, p.status, p.status === 'failed' ? logs.get(p.name) : undefined, p.durationMs);
    }
    if (pkg && pkgFailed && !failedInside) {
      out.add(why ? `${pkg}${SEP}[${why}]` : pkg, 'failed', buildError || why || 'package failed');
    }
    pending = [];
    logs.clear();
    running = '';
    lastResult = '';
    buildError = '';
  };

  for (const line of lines) {
    const run = /^=== (?:RUN|CONT)\s+(\S+)/.exec(line);
    if (run) {
      running = run[1];
      lastResult = '';
      continue;
    }
    const r = GO_RESULT.exec(line);
    if (r) {
      const status: TestStatus = r[2] === 'PASS' ? 'passed' : r[2] === 'FAIL' ? 'failed' : 'skipped';
      pending.push({ name: r[3], status, durationMs: r[4] ? Math.round(Number(r[4]) * 1000) : undefined });
      lastResult = r[3];
      continue;
    }
    const log = GO_LOG.exec(line);
    if (log) {
      // -v prints logs before the result line; without -v they follow it.
      const owner = lastResult || running;
      if (owner && !logs.has(owner)) logs.set(owner, log[1]);
      continue;
    }
    const pkg = GO_PACKAGE.exec(line);
    if (pkg) {
      flush(pkg[2], pkg[1] === 'FAIL', pkg[3]);
      continue;
    }
    if (/^#\s+\S+/.test(line)) buildError = '';
    else if (!buildError && /^\S+\.go:\d+:\d+: /.test(line)) buildError = line.trim();
    else if (!buildError && /^panic: /.test(line)) buildError = line.trim();
  }
  if (pending.length) flush(null, false);
  return { tests: out.list(), parsedFrom: 'go' };
}

// ------------------------------------------------------------------------- dispatch

// ------------------------------------------------------------------------- cargo test

/**
 * `cargo test`: one block per test binary (`Running unittests src/lib.rs (...)`,
 * `Running tests/api.rs (...)`, `Doc-tests calc`), `test path::name ... ok|FAILED|ignored`
 * lines, `---- name stdout ----` failure sections, `test result:` summaries.
 * Ids: `src/lib.rs > tests::adds`, `tests/api.rs > works`, `doc-tests calc > src/lib.rs - add (line 5)`.
 */
function parseCargo(lines: string[]): ParserResult {
  const out = new Collector();
  let target = '';
  let totals: TestTotals | undefined;
  let failureOf: string | null = null;
  let failureText: string[] = [];
  const endFailure = () => {
    if (failureOf) out.setMessage(failureOf, failureText.filter((l) => l.trim() && !/^note: run with/.test(l)).join('\n'));
    failureOf = null;
    failureText = [];
  };
  for (const line of lines) {
    const running = /^\s*Running (?:unittests )?(\S+)/.exec(line);
    if (running) {
      endFailure();
      target = running[1];
      continue;
    }
    const doc = /^\s*Doc-tests (\S+)/.exec(line);
    if (doc) {
      endFailure();
      target = `doc-tests ${doc[1]}`;
      continue;
    }
    const t = /^test (.+?) \.\.\. (ok|FAILED|ignored)\b/.exec(line);
    if (t) {
      const status: TestStatus = t[2] === 'ok' ? 'passed' : t[2] === 'FAILED' ? 'failed' : 'skipped';
      out.add(target ? `${target}${SEP}${t[1]}` : t[1], status);
      continue;
    }
    const section = /^---- (.+?) stdout ----$/.exec(line);
    if (section) {
      endFailure();
      failureOf = target ? `${target}${SEP}${section[1]}` : section[1];
      continue;
    }
    const result = /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/.exec(line);
    if (result) {
      endFailure();
      totals = addTotals(totals, { passed: Number(result[1]), failed: Number(result[2]), skipped: Number(result[3]) });
      continue;
    }
    if (failureOf) {
      if (/^failures:\s*$/.test(line)) endFailure();
      else failureText.push(line);
    }
  }
  endFailure();
  const res: ParserResult = { tests: out.list(), parsedFrom: 'cargo' };
  if (totals) res.totals = totals;
  return res;
}

interface Candidate {
  parse: (lines: string[]) => ParserResult;
  detect: (text: string) => boolean;
}

/** Runners that draw ✓/✔/✖ trees: at most one of them is applied to an output. */
const TREE_RUNNERS: Candidate[] = [
  {
    parse: parseVitest,
    detect: (t) =>
      /^\s*RUN\s+v\d/m.test(t) ||
      /^\s*Test Files\s+\d/m.test(t) ||
      /^\s*(?:✓|×)\s+[^\s>]+\.[cm]?[jt]sx?\s+(?:>|\(\d+ tests?)/m.test(t),
  },
  {
    parse: parseJest,
    detect: (t) => /^Tests:\s+\d/m.test(t) || (/^\s*(?:PASS|FAIL)\s+\S/m.test(t) && /^ {2}● /m.test(t)) || /^\s*(?:PASS|FAIL)\s+\S+\.[cm]?[jt]sx?\s*(?:\(.*\))?$/m.test(t),
  },
  { parse: parseMocha, detect: (t) => /^\s*\d+ passing\b/m.test(t) || /^\s*\d+ failing\s*$/m.test(t) },
  {
    parse: parseNodeSpec,
    detect: (t) => /^ℹ (?:tests|pass|fail) \d+/m.test(t) || /^\s*(?:✔|✖) .+ \(\d+(?:\.\d+)?ms\)\s*$/m.test(t),
  },
];

const OTHER_RUNNERS: Candidate[] = [
  { parse: parseTap, detect: (t) => /^\s*(?:not )?ok \d+\b/m.test(t) },
  { parse: parseCargo, detect: (t) => /^test result: (?:ok|FAILED)\. \d+ passed;/m.test(t) || /^test \S+ \.\.\. (?:ok|FAILED|ignored)$/m.test(t) },
  {
    parse: parsePytest,
    detect: (t) =>
      /\.py::\S.*\s(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)\b/.test(t) ||
      /^(?:FAILED|ERROR) \S+(?:::|\.py)/m.test(t) ||
      /^=+ .*\b(?:passed|failed|errors?)\b.* in [\d.]+s\b/m.test(t),
  },
  {
    parse: parseGo,
    detect: (t) => /^\s*--- (?:PASS|FAIL|SKIP): /m.test(t) || /^(?:ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\)|\[)/m.test(t),
  },
];

export function parseTestOutput(output: string): ParsedOutput {
  const text = stripAnsi(output);
  const lines = toLines(text);
  const results: ParserResult[] = [];
  const tree = TREE_RUNNERS.find((c) => c.detect(text));
  if (tree) results.push(tree.parse(lines));
  for (const c of OTHER_RUNNERS) if (c.detect(text)) results.push(c.parse(lines));

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
