/**
 * One identity for a test, wherever it is named: a local run's structured report
 * (the runners' report parsers, verify/runners/), a local run's plain output (their output parsers) or a CI job log
 * (ci/log-extract.ts). Pure.
 *
 * Identity = the test's file (repo-relative; a go package; when known) + its normalised name
 * path. The same normalisation is applied on every side, so the same test gets the same
 * identity whichever reporter printed it:
 *   - noise: ANSI escapes, GitHub Actions line framing (`2026-01-01T00:00:00.0000000Z `,
 *     `##[error]`, `##[group]`), trailing timings (`(12 ms)`, `12ms`, `[1.2s]`, `(0.00s)`),
 *     retry markers (`(retry x2)`), TAP directives (node-tap's `# time=64.386ms`, `# SKIP why`,
 *     `# TODO`: never part of a name, for any TAP producer), repeated whitespace;
 *   - a vitest workspace project's `|name| ` in front of the file is dropped;
 *   - levels: separators unified (` > `, ` › `, ` ▸ `, ` » `, pytest `::`), empty describe
 *     levels dropped, a leading file segment recognised as the file, jest's
 *     `Test suite failed to run` folded into the file;
 *   - tape/TAP assertions are folded under their `# test name` heading by the TAP parser, so
 *     the identity is the test, never the assertion message;
 *   - parametrised ids (pytest `[1-2]`, vitest `%s` expansions, go `TestTable/sub_case`) stay
 *     part of the name on both sides; a repeat number or parameter the other side lacks is
 *     tolerated when the match is unique;
 *   - text that changes from run to run inside a name (a timestamp `2026-11-27T13:49:54.99`, an
 *     object address `0x7f6f63acf750`, a uuid, pytest's `/tmp/pytest-of-u/pytest-12/` directory)
 *     is replaced by a placeholder (`{time}`, `{addr}`, `{uuid}`, `{tmp}`), so the same
 *     parametrised test has one id in every run: the fail-to-pass proof and the gate compare
 *     ids across runs, and a CI log was printed at another time than the local run.
 * Matching (`matchIdentity`) then tolerates what reporters legitimately drop: a missing file on
 * one side, extra describe levels on one side (`suite > name` vs `name`), and a truncated name
 * (`averylongname…`) that is a prefix of exactly one candidate.
 */
import { stripVTControlCharacters } from 'node:util';

export const SEP = ' > ';

export interface TestIdentity {
  /** Repo-relative test file or go package, when the reporter names it. */
  file: string | null;
  /** Normalised name path, outermost first; never empty segments. */
  path: string[];
}

/** How an identity matched: exact, or by one of the tolerated differences. */
export type MatchKind = 'exact' | 'levels' | 'truncated' | 'parameter';

/** `2026-01-01T00:00:00.0000000Z ` at the start of a GitHub Actions log line. */
const GH_STAMP = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;
const GH_COMMAND = /^(?:##\[(?:error|warning|group|endgroup|notice|debug)\]|::(?:error|warning|notice)[^:]*::)/;
/** Only bracketed timings: a bare `100ms` may be part of a test's name. */
const DURATION = /\s*(?:\(\d+(?:\.\d+)?\s?(?:ms|s|sec)\)|\[\d+(?:\.\d+)?\s?(?:ms|s)\])\s*$/;
const RETRY = /\s*\((?:retry x\d+|retried \d+ times?)\)\s*$/i;
/** A TAP directive at the end of a name (an escaped `\#` is part of the name). */
const TAP_DIRECTIVE = /\s+(?<!\\)#\s*(?:time=[\d.]+\s*m?s|SKIP\b.*|TODO\b.*)$/i;
const SEPARATORS = /\s+(?:>|›|»|▸)\s+|\s+(?:>|›|»|▸)$|^(?:>|›|»|▸)\s+/;
const TEST_FILE = /^(?:\.\/)?[^\s>]*[^\s>/]\.(?:[cm]?[jt]sx?|py|go|rb|rs)$/;
const SUITE_FAILED = new Set(['test suite failed to run']);

/** Strips ANSI escapes and the GitHub Actions framing of one line. */
export function stripCiFraming(line: string): string {
  let t = stripVTControlCharacters(line);
  t = t.replace(GH_STAMP, '');
  const cmd = GH_COMMAND.exec(t);
  if (cmd) t = t.slice(cmd[0].length);
  return t;
}

/** Text that differs from run to run, wherever it is in a name (parametrised ids print it). */
const PER_RUN: [RegExp, string][] = [
  [/\b\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?![\d:])/g, '{time}'],
  [/\b\d\d:\d\d:\d\d\.\d{3,}\b/g, '{time}'],
  [/\b0x[0-9a-f]{6,16}\b/gi, '{addr}'],
  [/\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi, '{uuid}'],
  [/(?:\/private)?\/(?:tmp|var\/folders\/[^/\s]+\/[^/\s]+\/T)\/pytest-of-[^/\s]+\/pytest-\d+\//g, '{tmp}/'],
];

/** A name with its per-run text (timestamps, addresses, uuids, pytest temp dirs) as placeholders. */
export function stableName(name: string): string {
  let t = name;
  for (const [re, to] of PER_RUN) t = t.replace(re, to);
  return t;
}

/** One name level: framing, timing and retry noise removed, per-run text replaced, whitespace collapsed. */
export function normaliseSegment(segment: string): string {
  let t = stableName(stripCiFraming(segment)).replace(/\s+/g, ' ').trim();
  for (let i = 0; i < 3; i++) {
    const before = t;
    t = t.replace(TAP_DIRECTIVE, '').replace(RETRY, '').replace(DURATION, '').trim();
    if (t === before) break;
  }
  return t;
}

/** A repository-relative file: forward slashes, no `./`, no runner workspace prefix. */
export function normaliseFile(file: string): string {
  let f = stripCiFraming(file).trim().replace(/\\/g, '/');
  const ws = /^(?:file:\/\/)?(?:\/home\/runner\/work|\/Users\/runner\/work|\/__w|[A-Za-z]:\/a)\/([^/]+)\/\1\//.exec(f);
  if (ws) f = f.slice(ws[0].length);
  return f.replace(/^\.\//, '');
}

/**
 * The id of a test as the parsers build it: levels joined with ` > `, each normalised, empty
 * levels dropped (an unnamed `describe('')` is no level). Used by the runner modules (verify/runners/).
 */
export function testId(levels: readonly (string | null | undefined)[]): string {
  const out: string[] = [];
  for (const l of levels) {
    if (l === null || l === undefined) continue;
    const n = normaliseSegment(l);
    if (n) out.push(n);
  }
  return out.join(SEP);
}

/** An id built elsewhere, normalised level by level (` > ` levels; empty levels dropped). */
export function normaliseId(id: string): string {
  return testId(id.split(SEP));
}

function looksLikeFile(segment: string): boolean {
  return TEST_FILE.test(segment);
}

/** A go package path (`example.com/calc`, `github.com/o/r/pkg`), as go prints it. */
function looksLikeGoPackage(segment: string, next: string | undefined): boolean {
  return /^[\w.-]+(?:\/[\w.-]+)+$/.test(segment) && next !== undefined && /^(?:Test|Example|Fuzz|Benchmark)\w*(?:\/|$)/.test(next);
}

/**
 * The identity of a test named `id` (any reporter's form), with the file when the runner
 * reported it separately (`TestCase.file`).
 */
export function identityOf(id: string, file?: string | null): TestIdentity {
  // vitest names the workspace project in front: `|unit| test/a.test.ts > name`
  const text = stripCiFraming(id).trim().replace(/^\|[^|\s][^|]*\|\s+/, '');
  let f: string | null = file ? normaliseFile(file) : null;
  let parts: string[];
  const py = /^(\S+?\.py)::(.+)$/.exec(text);
  if (py) {
    f = normaliseFile(py[1]);
    parts = py[2].split('::');
  } else {
    // pytest's class and function levels inside another form (`file > Class::test`) are levels too
    parts = text.split(SEPARATORS).flatMap((p) => (/^\w+::\w/.test(p) && !p.includes(' ') ? p.split('::') : [p]));
  }
  parts = parts.map(normaliseSegment).filter((p) => p !== '');
  if (parts.length > 1 || (parts.length === 1 && (looksLikeFile(parts[0]) || (f !== null && normaliseFile(parts[0]) === f)))) {
    const head = normaliseFile(parts[0]);
    if (f !== null && (head === f || f.endsWith(`/${head}`) || head.endsWith(`/${f}`))) {
      parts = parts.slice(1);
      if (head.length > f.length) f = head;
    } else if (looksLikeFile(parts[0]) || looksLikeGoPackage(parts[0], parts[1])) {
      f = head;
      parts = parts.slice(1);
    }
  }
  if (parts.length && SUITE_FAILED.has(parts[parts.length - 1].toLowerCase())) parts = parts.slice(0, -1);
  return { file: f, path: parts };
}

/** The identity as one comparable string (case-insensitive). */
export function identityKey(i: TestIdentity): string {
  return `${(i.file ?? '').toLowerCase()}::${i.path.join(' ').toLowerCase()}`;
}

/** The identity as people read it: `file > suite > name`. */
export function identityLabel(i: TestIdentity): string {
  return [i.file, ...i.path].filter(Boolean).join(SEP);
}

function filesAgree(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return true;
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x === y || x.endsWith(`/${y}`) || y.endsWith(`/${x}`);
}

const lower = (p: string[]) => p.map((s) => s.toLowerCase());

/** Same test, with files compared only where both sides know them. */
export function sameIdentity(a: TestIdentity, b: TestIdentity): boolean {
  if (!filesAgree(a.file, b.file)) return false;
  const x = lower(a.path);
  const y = lower(b.path);
  if (x.length === 0 || y.length === 0) return x.length === y.length && a.file !== null && b.file !== null;
  // separators unified: a level boundary is a space (mocha's TAP and jest's fullName join levels with one)
  return joined(x) === joined(y);
}

/** Is the shorter path the tail of the longer one (a reporter that leaves out describe levels)? */
function tailOf(short: string[], long: string[]): boolean {
  if (short.length === 0 || short.length > long.length) return false;
  const off = long.length - short.length;
  return short.every((s, i) => s === long[off + i]);
}

/** The whole path as one string: some reporters print `describe name test name` joined by spaces. */
function joined(p: string[]): string {
  return p.join(' ');
}

/** `a`'s levels, joined by spaces, are the space-joined tail of `b`'s levels (at level boundaries). */
function joinedTail(a: string[], b: string[]): boolean {
  const j = joined(a);
  for (let k = 0; k < b.length; k++) if (joined(b.slice(k)) === j && (b.length - k > 1 || a.length > 1)) return true;
  return false;
}

const TRUNCATION = /(?:…|\.\.\.)$/;
const PARAM = /\s*\[[^\]]*\]$/;

/**
 * The local identities `ci` denotes: exact first; then, each only when it names exactly one
 * candidate, extra or missing describe levels, a truncated name, a parameter or repeat number
 * only one side prints. Files must agree where both sides know them.
 */
export function matchIdentity(ci: TestIdentity, candidates: readonly TestIdentity[]): { kind: MatchKind; index: number[] } | null {
  const pool = candidates.map((c, index) => ({ c, index })).filter(({ c }) => filesAgree(ci.file, c.file));
  if (ci.path.length === 0) {
    // A whole file (load error, `Test suite failed to run`): every candidate of that file.
    if (ci.file === null) return null;
    const same = pool.filter(({ c }) => c.file !== null);
    return same.length ? { kind: same.every(({ c }) => c.path.length === 0) ? 'exact' : 'levels', index: same.map((s) => s.index) } : null;
  }
  const want = lower(ci.path);
  const exact = pool.filter(({ c }) => sameIdentity(ci, c));
  if (exact.length) return { kind: 'exact', index: exact.map((e) => e.index) };
  const unique = (kind: MatchKind, hits: typeof pool) => (hits.length === 1 ? { kind, index: [hits[0].index] } : null);
  const levels = pool.filter(({ c }) => {
    const have = lower(c.path);
    return tailOf(want, have) || tailOf(have, want) || joinedTail(want, have) || joinedTail(have, want);
  });
  const byLevels = unique('levels', levels);
  if (byLevels) return byLevels;
  // Truncated: the CI name (or its last level) is cut; a prefix of exactly one candidate.
  const cut = joined(want).replace(TRUNCATION, '').trimEnd();
  if (cut.length >= 8) {
    const last = want[want.length - 1].replace(TRUNCATION, '').trimEnd();
    const hits = pool.filter(({ c }) => {
      const have = lower(c.path);
      const j = joined(have);
      if (j.startsWith(cut) && j !== cut) return true;
      // the last level is cut and the levels before it agree (as a tail)
      const end = have[have.length - 1] ?? '';
      return last.length >= 8 && end.startsWith(last) && end !== last && (want.length === 1 || tailOf(want.slice(0, -1), have.slice(0, -1)));
    });
    const byCut = unique('truncated', hits);
    if (byCut) return byCut;
  }
  // A parameter or repeat number only one side prints (`name [2]`, `test_x[1-2]`).
  const base = (p: string[]) => joined(p.map((s) => s.replace(PARAM, '')));
  const bw = base(want);
  const params = pool.filter(({ c }) => {
    const have = lower(c.path);
    const bh = base(have);
    const pw = want.map((x) => x.replace(PARAM, ''));
    const ph = have.map((x) => x.replace(PARAM, ''));
    return bh === bw || tailOf(pw, ph) || tailOf(ph, pw);
  });
  return unique('parameter', params);
}

/** Convenience: does a CI name denote the local test id (with its file)? */
export function sameTestName(ciName: string, localId: string, localFile?: string): boolean {
  return matchIdentity(identityOf(ciName), [identityOf(localId, localFile)]) !== null;
}
