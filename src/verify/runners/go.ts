/**
 * go test: detected by go.mod; asked for `go test -json` (stdout redirected into the report
 * file: the event stream, with build failures as plain lines); related tests are the
 * packages of the changed `.go` files (only for a `./...` invocation), given files run as
 * their packages; the plain output (`--- PASS/FAIL/SKIP` lines, package results) parsed
 * when no report exists.
 */
import type { TestCase, TestStatus } from '../types.js';
import { testId } from '../identity.js';
import { failure, totalsOf, type StructuredResult } from './report.js';
import { quote, type TestRunner } from './runner.js';
import { Collector, SEP, type ParserResult } from './text.js';

// ------------------------------------------------------------------------- plain output

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

// ------------------------------------------------------------------------- go test -json

interface GoEvent {
  Action?: string;
  Package?: string;
  Test?: string;
  Elapsed?: number;
  Output?: string;
}

/** `go test -json` event stream; non-JSON lines (build errors on stderr) are ignored. */
export function parseGoJson(text: string, root: string): StructuredResult | null {
  const events: GoEvent[] = [];
  // Build failures are plain lines (stdout `FAIL pkg [build failed]`, stderr `# pkg` + errors).
  const buildOut = new Map<string, string[]>();
  const buildFailed: string[] = [];
  let block: string | null = null;
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) {
      const head = line.match(/^# (\S+)/);
      const failed = line.match(/^FAIL\s+(\S+)\s+\[(?:build|setup) failed\]/);
      if (head) block = head[1];
      else if (failed) {
        if (!buildFailed.includes(failed[1])) buildFailed.push(failed[1]);
        block = null;
      } else if (block && line.trim()) (buildOut.get(block) ?? buildOut.set(block, []).get(block)!).push(line);
      continue;
    }
    try {
      events.push(JSON.parse(line) as GoEvent);
    } catch {
      // a truncated line
    }
  }
  const byId = new Map<string, { pkg: string; name: string; status?: TestStatus; out: string[]; elapsed?: number }>();
  const pkgOut = new Map<string, string[]>();
  const pkgStatus = new Map<string, string>();
  for (const e of events) {
    const pkg = e.Package ?? '';
    if (!e.Test) {
      if (e.Output) (pkgOut.get(pkg) ?? pkgOut.set(pkg, []).get(pkg)!).push(e.Output);
      if (e.Action === 'pass' || e.Action === 'fail' || e.Action === 'skip') pkgStatus.set(pkg, e.Action);
      continue;
    }
    const id = `${pkg}${SEP}${e.Test}`;
    const entry = byId.get(id) ?? byId.set(id, { pkg, name: e.Test, out: [] }).get(id)!;
    if (e.Output) entry.out.push(e.Output);
    if (e.Action === 'pass') entry.status = 'passed';
    else if (e.Action === 'fail') entry.status = 'failed';
    else if (e.Action === 'skip') entry.status = 'skipped';
    if (typeof e.Elapsed === 'number') entry.elapsed = e.Elapsed;
  }
  const tests: TestCase[] = [];
  const loadErrors: string[] = [];
  const all = [...byId.values()];
  for (const t of all) {
    const prefix = `${t.name}/`;
    const children = all.filter((o) => o.pkg === t.pkg && o.name.startsWith(prefix));
    if (children.length && !(t.status === 'failed' && !children.some((c) => c.status === 'failed'))) continue;
    const test: TestCase = { id: testId([t.pkg, t.name]), status: t.status ?? 'failed', file: undefined };
    delete test.file;
    if (t.elapsed !== undefined) test.durationMs = Math.round(t.elapsed * 1000);
    if (test.status === 'failed') {
      const out = t.out.filter((l) => !/^\s*(?:=== RUN|=== PAUSE|=== CONT|--- FAIL)/.test(l)).join('');
      failure(test, out || (t.status ? 'failed' : 'did not finish (panic or timeout)'), root);
    }
    tests.push(test);
  }
  for (const [pkg, status] of pkgStatus) {
    if (status !== 'fail') continue;
    if (tests.some((t) => t.status === 'failed' && t.id.startsWith(`${pkg}${SEP}`))) continue;
    // The package failed without a failing test: build failure, panic in init, TestMain exit.
    const test: TestCase = { id: pkg, status: 'failed' };
    failure(test, (pkgOut.get(pkg) ?? []).join('') || 'package failed', root);
    tests.push(test);
    loadErrors.push(pkg);
  }
  for (const pkg of buildFailed) {
    if (loadErrors.includes(pkg)) continue;
    const test: TestCase = { id: pkg, status: 'failed' };
    failure(test, `build failed\n${(buildOut.get(pkg) ?? []).join('\n')}`, root);
    tests.push(test);
    loadErrors.push(pkg);
  }
  if (events.length === 0 && buildFailed.length === 0) return null;
  return { tests, loadErrors, totals: totalsOf(tests) };
}

/** The human-readable output hidden in a `go test -json` stream. */
export function goJsonToText(text: string): string {
  const out: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.startsWith('{')) {
      if (line.trim()) out.push(`${line}\n`);
      continue;
    }
    try {
      const e = JSON.parse(line) as GoEvent;
      if (e.Output) out.push(e.Output);
    } catch {
      // ignore
    }
  }
  return out.join('');
}

/** `./dir` of each file (`.` at the root). */
const packagesOf = (files: string[]) => [...new Set(files.map((p) => (p.includes('/') ? `./${p.slice(0, p.lastIndexOf('/'))}` : '.')))];

export const go: TestRunner = {
  id: 'go',
  stack: 'go',
  parsedFrom: 'go',
  reportsSkips: true,
  invokedBy: (c) => /^go\s+test\b/.test(c),
  detect: async ({ exists }) => ((await exists('go.mod')) ? { setup: null, test: 'go test ./...', reason: 'go.mod' } : null),
  reportExtension: 'jsonl',
  compose(info, reportFile) {
    if (info.base !== info.invocation || /\s-json\b/.test(info.base)) return null;
    return { command: `${info.base.replace(/^go\s+test\b/, 'go test -json')} > ${quote(reportFile)}`, reportFile, format: 'go-json', stdoutIsReport: true, flavour: 'generic', parsedFrom: 'go' };
  },
  related(info, changed, _allFiles, reportFile) {
    if (info.base !== info.invocation || !/\s\.\/\.\.\.(?:\s|$)/.test(info.base)) return null;
    const dirs = packagesOf(changed.filter((p) => p.endsWith('.go')));
    if (dirs.length === 0) return null;
    const cmd = info.base.replace(/\s\.\/\.\.\.(?=\s|$)/, ` ${dirs.map(quote).join(' ')}`).replace(/^go\s+test\b/, 'go test -json');
    return { command: `${cmd} > ${quote(reportFile)}`, reportFile, format: 'go-json', stdoutIsReport: true, flavour: 'generic', parsedFrom: 'go' };
  },
  files(info, testFiles, reportFile) {
    if (info.base !== info.invocation) return null;
    return { command: `go test -json ${packagesOf(testFiles).map(quote).join(' ')} > ${quote(reportFile)}`, reportFile, format: 'go-json', stdoutIsReport: true, flavour: 'generic', parsedFrom: 'go' };
  },
  display: (command) => command.replace(/^go test -json /, 'go test ').replace(/ > \S+$/, ''),
  output: [
    {
      kind: 'lines',
      detect: (t) => /^\s*--- (?:PASS|FAIL|SKIP): /m.test(t) || /^(?:ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\)|\[)/m.test(t),
      parse: parseGo,
    },
  ],
};
