/**
 * TAP, as tape and other plain TAP producers print it, node's TAP reporter (nested subtests
 * with durations) and node-tap 12–21 (nested subtests whose points carry `# time=…`, their
 * assertions as points without a `# Subtest:` heading). Only the output is read: a TAP
 * producer's command is not recognised (it runs as given, `unknown`), whatever prints TAP is
 * parsed.
 *
 * A directive is never part of a test's name (`# time=64.386ms`, `# SKIP why`, `# TODO`, tape's
 * `# SKIP name` heading): the CI log and the local run name the same test the same way.
 * node-tap's assertions (`ok 1 - should be equal` inside a subtest) are folded into the subtest
 * they belong to, as tape's are into their `# name` heading: the identity is the test, never
 * the assertion message.
 */
import type { TestStatus } from '../types.js';
import type { TestRunner } from './runner.js';
import { Collector, indentOf, SEP, type ParserResult } from './text.js';

interface TreeNode {
  indent: number;
  name: string;
  status: TestStatus;
  message?: string;
  durationMs?: number;
  children: TreeNode[];
  /** A node-tap assertion: a plain point (no `# Subtest:` heading, no directive, no children). */
  assertion?: boolean;
}

/** node-tap's subtests (`# Subtest:` headed) keep their assertions only as the failure message. */
function foldAssertions(node: TreeNode): { node: TreeNode; folded: boolean } {
  const kept: TreeNode[] = [];
  let folded = false;
  let failedAssertion: TreeNode | undefined;
  for (const c of node.children) {
    if (c.assertion) {
      folded = true;
      if (c.status === 'failed' && !failedAssertion) failedAssertion = c;
      continue;
    }
    const f = foldAssertions(c);
    folded ||= f.folded;
    kept.push(f.node);
  }
  if (!folded) return { node, folded };
  const status: TestStatus = failedAssertion ? 'failed' : node.status;
  const message = status === 'failed' && failedAssertion && !hasFailure(kept) ? [failedAssertion.name, failedAssertion.message].filter(Boolean).join(': ') : node.message;
  return { node: { ...node, status, message, children: kept }, folded };
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
/** A point's directive: `# SKIP why`, `# TODO`, node-tap's `# time=12.3ms` (not escaped `\#`). */
const DIRECTIVE = /\s*(?<!\\)#\s*(SKIP\b|TODO\b|time=).*$/i;

/** A point's name and directive (`skip`, `todo`, or `time` alone: a timing is no directive of status). */
export function tapPointName(rest: string): { name: string; skipped: boolean } {
  let text = rest;
  let skipped = false;
  for (let i = 0; i < 3; i++) {
    const d = DIRECTIVE.exec(text);
    if (!d) break;
    if (!/^time=/i.test(d[1])) skipped = true;
    text = text.slice(0, d.index);
  }
  return { name: text.replace(/\\#/g, '#').replace(/\\\\/g, '\\').trim(), skipped };
}

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

/**
 * Closing lines are not test names: tape's (`# tests 12`, `# pass 11`, `# fail 1`, `# ok`),
 * node-tap's (`# failed 1 of 5 tests`, `# todo: 1`, `# skip: 1`, `# time=37.9ms`) and node's
 * (`# duration_ms 12`, `# cancelled 0`, `# suites 0`).
 */
export const TAP_SUMMARY =
  /^#\s+(?:(?:tests|pass|fail|skip|todo|ok|not ok|suites|cancelled)\b(?:\s+\d+)?\s*$|(?:todo|skip):\s*\d+\s*$|failed \d+(?: of \d+)? tests?\s*$|time=[\d.]+m?s\s*$|duration_ms\b)/;

/**
 * tape (and other plain TAP producers) name each test with a `# name` comment followed by its
 * assertions: the test is the group, failed when any of its assertions failed.
 */
function tapGroups(nodes: (TreeNode & { group?: string })[], skippedHeadings: string[]): ParserResult | null {
  if (!nodes.some((n) => n.group !== undefined)) return null;
  const groups = new Map<string, TreeNode[]>();
  for (const h of skippedHeadings) groups.set(h, []);
  for (const n of nodes) {
    const g = n.group ?? n.name;
    if (!groups.has(g)) groups.set(g, []);
    groups.get(g)!.push(n);
  }
  const out = new Collector();
  for (const [name, members] of groups) {
    if (members.length === 0) {
      out.add(name, 'skipped');
      continue;
    }
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
  /** `# Subtest:` headings not yet closed by their point, by indent. */
  const headed = new Set<number>();
  /** tape's `# SKIP name` headings (a skipped test prints no assertion). */
  const skippedHeadings: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const sub = /^(\s*)# Subtest: /.exec(line);
    if (sub) {
      nodeStyle = true;
      headed.add(sub[1].length);
    }
    const g = /^# (.+?)\s*$/.exec(line);
    if (g && !TAP_SUMMARY.test(line) && !line.startsWith('# Subtest:')) {
      // tape prints a skipped or todo test's heading with its directive first: `# SKIP name`
      const directive = /^(SKIP|TODO)\s+(.+)$/.exec(g[1]);
      const heading = directive ? directive[2] : g[1];
      // the same name twice (a test repeated in a loop): number it like repeated assertions
      const n = (groupNames.get(heading) ?? 0) + 1;
      groupNames.set(heading, n);
      group = n > 1 ? `${heading} [${n}]` : heading;
      if (directive) skippedHeadings.push(group);
      crashedAfter = i;
      continue;
    }
    if (/^\s*1\.\.\d+/.test(line)) sawPlan = true;
    const m = TAP_POINT.exec(line);
    if (!m) continue;
    const indent = m[1].length;
    const point = tapPointName(m[4]);
    const name = point.name || `test ${m[3]}`;
    let status: TestStatus = m[2] === 'ok' ? 'passed' : 'failed';
    if (point.skipped) status = 'skipped';
    const extra = tapMessage(lines, i + 1, indent);
    if (extra.durationMs !== undefined) nodeStyle = true;
    const children: TreeNode[] = [];
    while (open.length && open[open.length - 1].indent > indent) children.unshift(open.pop() as TreeNode);
    const wasHeaded = headed.delete(indent);
    for (const h of [...headed]) if (h > indent) headed.delete(h);
    open.push({
      indent,
      name,
      status,
      message: status === 'failed' ? extra.message : undefined,
      durationMs: extra.durationMs,
      children,
      group: indent === 0 ? group : undefined,
      assertion: !wasHeaded && !point.skipped && children.length === 0,
    });
  }
  if (!nodeStyle && group !== undefined && crashedAfter >= 0 && !sawPlan) {
    // The process died inside the test under the last heading (tape prints no plan then): that test failed.
    const error = lines.slice(crashedAfter + 1).find((l) => /^\s*(?:[A-Z]\w*)?Error\b|^\s*\w+Error:/.test(l));
    open.push({ indent: 0, name: 'did not finish', status: 'failed', message: error?.trim() ?? 'the test run stopped inside this test', children: [], group });
  }
  if (!nodeStyle) {
    const grouped = tapGroups(open, skippedHeadings);
    if (grouped) return grouped;
  }
  // node-tap: a subtest's assertions fold into it (top-level points have no subtest to fold into)
  let folded = false;
  const roots = nodeStyle
    ? open.map((n) => {
        const f = foldAssertions(n);
        folded ||= f.folded;
        return f.node;
      })
    : open;
  const out = new Collector();
  flattenTree(roots, [], out);
  return { tests: out.list(), parsedFrom: nodeStyle && !folded ? 'node-test' : 'tap' };
}

export const tap: TestRunner = {
  id: 'tap',
  stack: 'node',
  parsedFrom: 'tap',
  reportsSkips: true,
  invokedBy: () => false,
  output: [{ kind: 'lines', detect: (t) => /^\s*(?:not )?ok \d+\b/m.test(t), parse: parseTap }],
};
