/**
 * Reading a runner's plain output: the parsers of the runners that recognise it (at most one tree
 * parser, every line parser), and a workspace tool's output (pnpm, yarn, npm, turbo) cut into one
 * part per package, each part's files made repo-relative.
 */
import path from 'node:path';
import { identityOf, SEP } from '../identity.js';
import type { ParsedFrom, TestCase } from '../types.js';
import { allRunners } from './list.js';
import { addTotals, Collector, countsOf, stripAnsi, toLines, type ParserResult, type TestTotals } from './text.js';

export interface ParsedOutput {
  tests: TestCase[];
  parsedFrom: ParsedFrom;
  /**
   * The runner's own summary counts, when it prints leaf counts (jest, vitest, mocha,
   * pytest) — more complete than `tests` when the runner does not list passing tests.
   */
  totals?: TestTotals;
  /**
   * Test files the runner reports as passing whole without naming their tests (vitest's default
   * reporter `✓ a.test.ts (17 tests)`, jest's `PASS a.test.js`), repo-relative where the package
   * and the runner's root are known: a test of such a file passed.
   */
  passedFiles?: string[];
}

/** A workspace package as the output parser needs it (verify/workspaces.ts). */
export interface OutputPackage {
  dir: string;
  name: string;
  /** The runner's root, package-relative (vitest `root: 'test/unit'`): the runner prints files from it. */
  testRoot?: string;
}

/** What else the output parser may know of the run. */
export interface OutputContext {
  /** The repository's absolute path: the root vitest names (`RUN  v4 /abs/packages/dom/test/unit`) becomes repo-relative. */
  root?: string;
  /** The one package the command ran (a workspace command filtered to it): an output without banners or prefixes is its. */
  only?: OutputPackage;
}

/**
 * The banner npm and pnpm print before one package's script: npm `> @scope/name@1.2.3 test`,
 * pnpm `> name@1.2.3 test /abs/path/packages/a` (the root's npm banner is `> test`, no name).
 */
const WORKSPACE_BANNER = /^> (\S+)@\S* [\w:.-]+(?: (\/\S*|[\w.-]+(?:\/[\w.-]+)*))?\s*$/;
/** pnpm's recursive run: `packages/a test$ vitest run` starts a package, `packages/a test: <line>` each line of it. */
const PNPM_START = /^(\S+) ([\w:.-]+)\$ /;
/** yarn's `workspaces foreach` (`-v`/`--verbose`): `[@scope/a]: <line>`. */
const YARN_LINE = /^\[([^\]\s]+)\]: ?(.*)$/;

interface Segment {
  /** The package the part belongs to, as the output names it (a directory, a name, an absolute path). */
  label: { dir?: string; name?: string; path?: string } | null;
  lines: string[];
}

/**
 * The output cut into one part per package, when a workspace tool ran several (or names the one
 * it ran): pnpm's prefixed lines (interleaved when packages run in parallel: each package's
 * lines are gathered, without the prefix), yarn's `[name]: ` lines, npm's and pnpm's banners.
 * Lines outside any package (the tool's own) form an unlabelled part.
 */
function segmentOutput(lines: string[]): Segment[] {
  const starts = new Set<string>();
  for (const l of lines) {
    const m = PNPM_START.exec(l);
    if (m) starts.add(`${m[1]} ${m[2]}`);
  }
  if (starts.size > 0) {
    const parts = new Map<string, string[]>();
    const rest: string[] = [];
    for (const l of lines) {
      let hit = false;
      for (const p of starts) {
        if (l.startsWith(`${p}: `) || l === `${p}:`) {
          const list = parts.get(p) ?? [];
          list.push(l.slice(p.length + 2));
          parts.set(p, list);
          hit = true;
          break;
        }
      }
      if (!hit) rest.push(l);
    }
    if (parts.size > 0) return [{ label: null, lines: rest }, ...[...parts].map(([p, ls]) => ({ label: { dir: p.slice(0, p.lastIndexOf(' ')) }, lines: ls }))];
  }
  const turbo = turboSegments(lines);
  if (turbo) return turbo;
  const yarn = new Map<string, string[]>();
  const yrest: string[] = [];
  for (const l of lines) {
    const m = YARN_LINE.exec(l);
    if (m) yarn.set(m[1], [...(yarn.get(m[1]) ?? []), m[2]]);
    else yrest.push(l);
  }
  if ([...yarn.values()].some((ls) => ls.length >= 3)) return [{ label: null, lines: yrest }, ...[...yarn].map(([name, ls]) => ({ label: { name }, lines: ls }))];
  const banners = lines.flatMap((l, i) => (WORKSPACE_BANNER.test(l) ? [i] : []));
  if (banners.length === 0) return [{ label: null, lines }];
  const out: Segment[] = banners[0] > 0 ? [{ label: null, lines: lines.slice(0, banners[0]) }] : [];
  banners.forEach((b, k) => {
    const m = WORKSPACE_BANNER.exec(lines[b])!;
    out.push({ label: { name: m[1], path: m[2] }, lines: lines.slice(b, banners[k + 1] ?? lines.length) });
  });
  return out;
}

/** turbo's task lines: `@scope/a:test: <line>`; each task announces itself with `@scope/a:test: cache miss|bypass|hit…`. */
const TURBO_TASK = /^(\S+?):([\w:.-]*[A-Za-z][\w:.-]*): cache (?:miss|bypass|hit)/;

/** turbo's output cut by task (`<package>:<task>: ` prefixes, interleaved when tasks run in parallel), or null. */
function turboSegments(lines: string[]): Segment[] | null {
  const tasks = new Map<string, string>();
  for (const l of lines) {
    const m = TURBO_TASK.exec(l);
    if (m) tasks.set(`${m[1]}:${m[2]}`, m[1]);
  }
  if (tasks.size === 0) return null;
  const parts = new Map<string, string[]>();
  const rest: string[] = [];
  for (const l of lines) {
    const colon = l.indexOf(': ');
    const key = colon > 0 ? l.slice(0, colon) : l.endsWith(':') ? l.slice(0, -1) : '';
    if (tasks.has(key)) parts.set(key, [...(parts.get(key) ?? []), colon > 0 ? l.slice(colon + 2) : '']);
    else rest.push(l);
  }
  return [{ label: null, lines: rest }, ...[...parts].map(([key, ls]) => ({ label: { name: tasks.get(key)! }, lines: ls }))];
}

/**
 * The repo-relative directory of the package a part belongs to: the workspaces known (a
 * directory, a name or an absolute path ending in a package's directory), else the directory
 * pnpm names. Null for the root or a name that cannot be resolved without the workspaces.
 */
function packageOf(label: Segment['label'], packages: readonly OutputPackage[] | undefined): OutputPackage | null {
  if (!label) return null;
  if (packages?.length) {
    let best: OutputPackage | null = null;
    for (const p of packages) {
      const hit = p.dir === label.dir || (label.name !== undefined && p.name === label.name && !label.path) || (label.path !== undefined && (label.path === p.dir || label.path === `/${p.dir}` || label.path.endsWith(`/${p.dir}`)));
      if (hit && (!best || p.dir.length > best.dir.length)) best = p;
    }
    return best;
  }
  const dir = label.dir && label.dir !== '.' && !path.isAbsolute(label.dir) ? label.dir.replace(/^\.\//, '').replace(/\/+$/, '') : null;
  return dir ? { dir, name: dir } : null;
}

/** vitest's first line: `RUN  v4.1.9 /abs/root` (CI logs: the runner's workspace prefix already removed). */
const VITEST_RUN = /^\s*RUN\s+v\d[\w.-]*\s+(\S.*?)\s*$/;

/**
 * A part holding several vitest runs one after the other (turbo under GitHub Actions groups each
 * task's lines with `::group::` instead of prefixing them; a CI log's banners lost their paths):
 * one part per run, each from its own root, the first keeping the part's label.
 */
function byVitestRun(seg: Segment): Segment[] {
  const starts = seg.lines.flatMap((l, i) => (VITEST_RUN.test(l) ? [i] : []));
  if (starts.length < 2) return [seg];
  const out: Segment[] = [{ label: seg.label, lines: seg.lines.slice(0, starts[1]) }];
  for (let k = 1; k < starts.length; k++) out.push({ label: null, lines: seg.lines.slice(starts[k], starts[k + 1] ?? seg.lines.length) });
  return out;
}

/**
 * The repo-relative directory the runner prints a part's files from: the root vitest names
 * (absolute under the repository, relative in a CI log, or ending in a known package's
 * directory), else the part's package and its runner's configured root. Null: the files are
 * repo-relative already (or not known to be anything else).
 */
function fileBase(lines: string[], pkg: OutputPackage | null, packages: readonly OutputPackage[] | undefined, ctx: OutputContext): string | null {
  const run = lines.slice(0, 80).map((l) => VITEST_RUN.exec(l)?.[1]).find((x) => x !== undefined);
  if (run !== undefined) {
    const named = run.replace(/\\/g, '/').replace(/\/+$/, '');
    const root = ctx.root?.replace(/\\/g, '/').replace(/\/+$/, '');
    if (root && (named === root || named.startsWith(`${root}/`))) return named === root ? null : named.slice(root.length + 1);
    if (!path.isAbsolute(named) && !/^[A-Za-z]:\//.test(named)) return named === '.' || named === '' ? null : named.replace(/^\.\//, '');
    // an absolute root elsewhere (a CI runner's checkout): from the package directory it ends in
    const candidates = [...(packages ?? []), ...(pkg ? [pkg] : [])];
    let best: { dir: string; rest: string } | null = null;
    for (const p of candidates) {
      const at = named.lastIndexOf(`/${p.dir}`);
      const end = at + p.dir.length + 1;
      if (at >= 0 && (end === named.length || named[end] === '/') && (!best || p.dir.length > best.dir.length)) best = { dir: p.dir, rest: named.slice(end + 1) };
    }
    if (best) return best.rest ? `${best.dir}/${best.rest}` : best.dir;
  }
  if (!pkg) return null;
  return pkg.testRoot ? `${pkg.dir}/${pkg.testRoot}` : pkg.dir;
}

/**
 * A test of one package's output, its file made repo-relative (`test/a.test.ts` of
 * `packages/a` is `packages/a/test/a.test.ts`): two packages' same-path tests stay two tests.
 * A test the runner names without a file keeps its id.
 */
export function inPackage(t: TestCase, dir: string): TestCase {
  const file = identityOf(t.id, t.file).file;
  if (file === null || file.startsWith(`${dir}/`) || path.isAbsolute(file) || file.includes(' ')) return t;
  const full = path.posix.normalize(`${dir}/${file}`);
  const lead = /^\.\//.test(t.id) ? t.id.slice(2) : t.id;
  const id = lead.startsWith(file) ? `${full}${lead.slice(file.length)}` : `${full}${SEP}${t.id}`;
  return { ...t, id, file: full };
}

/** One output (or one workspace's part of it): at most one tree parser, every line parser that recognises it. */
function parseSegment(lines: string[]): ParserResult[] {
  const text = lines.join('\n');
  const parsers = allRunners().flatMap((r) => r.output ?? []);
  const results: ParserResult[] = [];
  const tree = parsers.find((p) => p.kind === 'tree' && p.detect(text));
  if (tree) results.push(tree.parse(lines));
  for (const p of parsers) if (p.kind === 'lines' && p.detect(text)) results.push(p.parse(lines));
  return results;
}

/**
 * The plain output of any runner, read by the parsers of the runners that recognise it:
 * at most one tree parser (the first in registry order), every line parser. Ids are stable
 * between runs of the same suite (durations are never part of an id): jest, vitest and
 * pytest ids start with the test file, go ids with the package, node and mocha
 * `suite > nested > test`. Only leaves are reported; a parent (suite, test with subtests)
 * appears only when it failed without any failing child (hook failure, crash, file that
 * did not load).
 *
 * A workspace tool's output (pnpm `-r`/`--filter` with its `packages/a test: ` prefixes, yarn
 * `workspaces foreach -v`, npm `--workspaces` banners) is read package by package, each part by
 * its own runner's parser; a test of a package whose directory is known (from `packages`, the
 * repository's workspaces, or from pnpm's prefix) carries it in its file.
 */
export function parseTestOutput(output: string, packages?: readonly OutputPackage[], ctx: OutputContext = {}): ParsedOutput {
  const text = stripAnsi(output);
  const lines = toLines(text);
  const results: ParserResult[] = [];
  const passedFiles = new Set<string>();
  const segments = segmentOutput(lines).flatMap(byVitestRun);
  const labelled = segments.some((seg) => seg.label !== null);
  for (const seg of segments) {
    const pkg = packageOf(seg.label, packages) ?? (!labelled && ctx.only ? ctx.only : null);
    const dir = fileBase(seg.lines, pkg, packages, ctx);
    for (const r of parseSegment(seg.lines)) {
      for (const f of r.passedFiles ?? []) passedFiles.add(dir ? inPackage({ id: f, status: 'passed', file: f }, dir).file! : f);
      results.push(dir ? { ...r, tests: r.tests.map((t) => inPackage(t, dir)) } : r);
    }
  }
  const useful = results.filter((r) => r.tests.length > 0 || r.totals);
  if (useful.length === 0) return { tests: [], parsedFrom: 'none', ...(passedFiles.size ? { passedFiles: [...passedFiles] } : {}) };

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
  if (passedFiles.size) result.passedFiles = [...passedFiles];
  return result;
}
