/**
 * TAP, as tape and other plain TAP producers print it (and node's TAP reporter, nested
 * subtests with durations). Only the output is read: a TAP producer's command is not
 * recognised (it runs as given, `unknown`), whatever prints TAP is parsed.
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

export const tap: TestRunner = {
  id: 'tap',
  stack: 'node',
  parsedFrom: 'tap',
  invokedBy: () => false,
  output: [{ kind: 'lines', detect: (t) => /^\s*(?:not )?ok \d+\b/m.test(t), parse: parseTap }],
};
