/**
 * Benchmark (edits): edit_file against perturbed edits taken from real commits.
 *   node scripts/run-ts.mjs bench/edit-perturb.ts --mirrors /work/.mirror \
 *     [--repos iamkun+dayjs,unjs+ufo,pallets+click,spf13+cobra] [--hunks 60] [--commits 400] [--out bench/results/edit-perturb.json]
 *
 * The corpus is built at run time from `<mirrors>/<owner>+<name>/repo` git directories (never
 * committed): the newest non-merge commits' hunks (git diff -U3, at most 2 per commit) in source
 * files (.js .ts .mjs .cjs .py .go) whose old side (context + removed lines) occurs exactly once in
 * the file before the commit. Each hunk is one edit: old_string = its old side, new_string = its new
 * side, expected result = the file before the commit with only that hunk applied.
 *
 * Perturbations, the way models slip (each applied only where it means something; the count of
 * applicable cases is reported):
 *   none             the edit as git made it
 *   indent-less      every non-blank line of old and new one indentation unit (tab, or the file's space step) less
 *   indent-more      one unit more
 *   tabs-spaces      leading tabs as 4 spaces (tab files), or each space unit as a tab (space files)
 *   trailing-ws      old side: the file's trailing whitespace dropped, a trailing space added to every other line (changed lines of new untouched)
 *   crlf             the file has CRLF line endings, old/new are sent with LF
 *   blank-missing    one blank line between two context lines left out of old and new
 *   blank-extra      one blank line added between two context lines of old and new
 *   blank-missing-old  a blank line between two context lines left out of old only (new as the commit has it: the model
 *                    copied new from the file), one with non-blank lines before and after it in old (at an end of old,
 *                    "x\n" -> "x\n\n" is a request to add a blank line that no tool can tell from a slip)
 *   blank-extra-old    that blank line added to old only
 *   none-toolbox     the edit as git made it, through edit_file (ToolBox.execute: the syntax check included), one hunk of the commit alone
 *   elision          old = its first 2 lines, "...", its last 2 lines (blocks of 6+ lines); new in full
 *   elision-indent   elision, pieces and new one unit less indented (one more where there is no indentation)
 *   diff-numbers     the edit as a unified diff whose @@ numbers are 13 lines off
 *   diff-context     the edit as a unified diff with 1 context line each side (kept only where still unique in the file)
 *   basename         the path given as the bare file name (edit_file through the ToolBox; the repository's file list at that commit)
 *   combo-indent-blank   indent-less + blank-missing
 *   combo-tabs-trailing  tabs-spaces + trailing-ws
 *   ambiguous        old = a hunk's removed lines alone, where they occur 2+ times in the file: must be refused
 *   ambiguous-basename  basename, where 2+ files of the repository have that name: must be refused
 *
 * Whole commits through edit_file: for each (commit, file) of the corpus, every hunk of the commit's
 * diff of that file sent in order as one edit_file call (ToolBox.execute, the syntax check included),
 * each on the file as the calls before left it; correct = the file ends as the commit has it. The
 * steps in between may not parse (a block opened in one hunk, closed in the next). A hunk whose old
 * side matches several places is refused with the lines of the matches; the bench then does what the
 * message asks a model to do: it sends the edit again with one more line of the file on each side
 * of the place the hunk means, until the anchor is unique (counted: pairs that needed a retry, the
 * retries, and how often the refusal did not list the intended place).
 *
 * Syntax check: on the unperturbed edits, how many of the commits' own edits checkSyntax would refuse,
 * and how many of the same edits with one closing bracket of their added lines deleted it catches.
 *
 * Tools: ours (applyEdit / applyUnifiedDiff / ToolBox), ours given every edit as a diff,
 * `git apply`, `git apply --recount --ignore-whitespace`, GNU `patch` (default fuzz 2), `patch -l`
 * (fuzz 2, ignoring whitespace), and plain indexOf-replace. The diff tools get the same (perturbed)
 * edit as a unified diff with correct @@ numbers (the diff kinds: the perturbed diff). Outcome per
 * case: correct (result byte-equal to the expected file; for the ambiguous kinds: refused), wrong
 * (applied, anything else), refused.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createTwoFilesPatch, diffArrays, parsePatch } from 'diff';
import { applyEdit } from '../src/agent/edit-match.js';
import { checkSyntax } from '../src/agent/syntax-check.js';
import { ToolBox } from '../src/agent/tools.js';
import { applyUnifiedDiff } from '../src/agent/unified-diff.js';

const argv = process.argv.slice(2);
const opt = (name: string, d: string) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : d);
const MIRRORS = opt('--mirrors', '/work/.mirror');
const REPOS = opt('--repos', 'iamkun+dayjs,unjs+ufo,pallets+click,spf13+cobra').split(',');
const HUNKS = Number(opt('--hunks', '60'));
const COMMITS = Number(opt('--commits', '400'));
const OUT = opt('--out', 'bench/results/edit-perturb.json');
/** Which tools to run (default all); `--tools ours,ours-diff` skips the external ones (thousands of process spawns). */
const ONLY_TOOLS = argv.includes('--tools') ? opt('--tools', '').split(',') : null;
const EXT = /\.(js|mjs|cjs|ts|tsx|jsx|py|go)$/;

// ------------------------------------------------------------------ corpus

interface HunkCase {
  repo: string;
  commit: string;
  path: string;
  pre: string;
  expected: string;
  /** 1-based first line of the old side. */
  start: number;
  /** hunk lines with their ' ', '-', '+' marks */
  marked: Array<{ mark: ' ' | '-' | '+'; text: string }>;
  files: string[];
}

function git(dir: string, args: string[]): string {
  const r = spawnSync('git', ['--git-dir', dir, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
  if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

function countOf(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + 1)) n++;
  return n;
}

function oldSide(marked: HunkCase['marked']): string[] {
  return marked.filter((m) => m.mark !== '+').map((m) => m.text);
}
function newSide(marked: HunkCase['marked']): string[] {
  return marked.filter((m) => m.mark !== '-').map((m) => m.text);
}

function collect(repo: string): { hunks: HunkCase[]; ambiguous: Array<{ hc: HunkCase; old: string; neu: string }> } {
  const dir = path.join(MIRRORS, repo, 'repo');
  const commits = git(dir, ['log', '--no-merges', '--format=%H %P', '-n', String(COMMITS), 'HEAD'])
    .trim()
    .split('\n')
    .map((l) => l.split(' '))
    .filter((p) => p.length === 2);
  const hunks: HunkCase[] = [];
  const ambiguous: Array<{ hc: HunkCase; old: string; neu: string }> = [];
  const listCache = new Map<string, string[]>();
  for (const [commit, parent] of commits) {
    if (hunks.length >= HUNKS && ambiguous.length >= HUNKS / 2) break;
    const patch = git(dir, ['diff', '-U3', '--no-renames', '--diff-filter=M', parent, commit]);
    let perCommit = 0;
    for (const fp of parsePatch(patch)) {
      const p = (fp.newFileName ?? '').replace(/^b\//, '');
      if (!EXT.test(p) || perCommit >= 2) continue;
      let pre: string;
      try {
        pre = git(dir, ['show', `${parent}:${p}`]);
      } catch {
        continue;
      }
      if (pre.length > 300_000 || pre.includes('\r') || pre.includes('\0') || !pre.endsWith('\n')) continue;
      const preLines = pre.slice(0, -1).split('\n');
      for (const h of fp.hunks) {
        if (perCommit >= 2) break;
        if (h.lines.some((l) => l.startsWith('\\'))) continue;
        const marked = h.lines.map((l) => ({ mark: l[0] as ' ' | '-' | '+', text: l.slice(1) }));
        const o = oldSide(marked);
        const n = newSide(marked);
        if (o.length < 2 || o.length > 40 || h.oldStart < 1) continue;
        const expectedLines = [...preLines.slice(0, h.oldStart - 1), ...n, ...preLines.slice(h.oldStart - 1 + o.length)];
        const files = listCache.get(parent) ?? git(dir, ['ls-tree', '-r', '--name-only', parent]).trim().split('\n');
        listCache.set(parent, files);
        const hc: HunkCase = { repo, commit, path: p, pre, expected: expectedLines.join('\n') + '\n', start: h.oldStart, marked, files };
        // real ambiguous anchors: the removed lines alone occur 2+ times in the file
        const firstRemoved = marked.findIndex((m) => m.mark === '-');
        if (firstRemoved !== -1) {
          let e = firstRemoved;
          while (e < marked.length && marked[e].mark === '-') e++;
          const run = marked.slice(firstRemoved, e).map((m) => m.text);
          let a = e;
          while (a < marked.length && marked[a].mark === '+') a++;
          const added = marked.slice(e, a).map((m) => m.text);
          const needle = run.join('\n');
          if (run.some((l) => l.trim() !== '') && countOf('\n' + pre, '\n' + needle + '\n') >= 2) ambiguous.push({ hc, old: needle, neu: added.join('\n') });
        }
        if (countOf(pre, o.join('\n')) !== 1 || hunks.length >= HUNKS) continue;
        hunks.push(hc);
        perCommit++;
      }
    }
  }
  return { hunks, ambiguous };
}

// ------------------------------------------------------------------ perturbations

interface Edit {
  pre: string;
  expected: string;
  path: string;
  old: string;
  neu: string;
  /** the edit as a diff, for the diff tools and the diff kinds */
  diff: string;
  /** give ours the diff rather than old/new */
  asDiff?: boolean;
  viaToolbox?: boolean;
  mustRefuse?: boolean;
  /** only edit_file is asked (the kind measures the ToolBox itself) */
  oursOnly?: boolean;
}

function indentUnit(text: string): { tab: boolean; step: number } {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const tabs = lines.filter((l) => l.startsWith('\t')).length;
  const spaces = lines.filter((l) => l.startsWith(' ')).length;
  const steps = new Map<number, number>();
  let prev = 0;
  for (const l of lines) {
    const w = /^ */.exec(l)![0].length;
    if (w > prev && [2, 4, 8].includes(w - prev)) steps.set(w - prev, (steps.get(w - prev) ?? 0) + 1);
    prev = w;
  }
  const step = [...steps.entries()].sort((a, b) => b[1] - a[1] || a[0] - b[0])[0]?.[0] ?? 4;
  return { tab: tabs > spaces, step };
}

function makeDiff(p: string, start: number, oldL: string[], newL: string[]): string {
  const body: string[] = [];
  for (const part of diffArrays(oldL, newL)) {
    const mark = part.added ? '+' : part.removed ? '-' : ' ';
    for (const l of part.value) body.push(mark + l);
  }
  return `--- a/${p}\n+++ b/${p}\n@@ -${start},${oldL.length} +${start},${newL.length} @@\n${body.join('\n')}\n`;
}

type Marked = HunkCase['marked'];

function edit(hc: HunkCase, marked: Marked, extra: Partial<Edit> = {}): Edit {
  const o = oldSide(marked);
  const n = newSide(marked);
  return { pre: hc.pre, expected: hc.expected, path: hc.path, old: o.join('\n'), neu: n.join('\n'), diff: makeDiff(hc.path, hc.start, o, n), ...extra };
}

function commonIndent(lines: string[]): string {
  let c: string | null = null;
  for (const l of lines) {
    if (l.trim() === '') continue;
    const ws = /^[ \t]*/.exec(l)![0];
    if (c === null) c = ws;
    else {
      let i = 0;
      while (i < c.length && i < ws.length && c[i] === ws[i]) i++;
      c = c.slice(0, i);
    }
  }
  return c ?? '';
}

function indentLess(hc: HunkCase, marked: Marked): Marked | null {
  const u = indentUnit(hc.pre);
  const ci = commonIndent(marked.map((m) => m.text));
  const cut = ci.startsWith('\t') ? 1 : Math.min(ci.length, u.step);
  if (cut === 0 || (!ci.startsWith('\t') && ci.includes('\t'))) return null;
  return marked.map((m) => ({ ...m, text: m.text.trim() === '' ? m.text : m.text.slice(cut) }));
}

function indentMore(hc: HunkCase, marked: Marked): Marked {
  const u = indentUnit(hc.pre);
  const add = u.tab ? '\t' : ' '.repeat(u.step);
  return marked.map((m) => ({ ...m, text: m.text.trim() === '' ? m.text : add + m.text }));
}

function tabsSpaces(hc: HunkCase, marked: Marked): Marked | null {
  const u = indentUnit(hc.pre);
  if (!marked.some((m) => /^[ \t]/.test(m.text))) return null;
  return marked.map((m) => {
    const ws = /^[ \t]*/.exec(m.text)![0];
    if (m.text.trim() === '') return m;
    const conv = u.tab ? ws.replace(/\t/g, '    ') : ws.replace(new RegExp(` {${u.step}}`, 'g'), '\t');
    return { ...m, text: conv + m.text.slice(ws.length) };
  });
}

function trailingWs(marked: Marked): Marked {
  let k = 0;
  return marked.map((m) => {
    if (m.mark === '+') return m;
    const t = m.text.replace(/[ \t]+$/, '');
    return { ...m, text: t !== '' && k++ % 2 === 0 ? t + ' ' : t };
  });
}

function blankMissing(marked: Marked): Marked | null {
  // a blank line inside an unchanged stretch (context on both sides): dropped from both old and new
  const i = marked.findIndex((m, k) => m.mark === ' ' && m.text.trim() === '' && k > 0 && k < marked.length - 1 && marked[k - 1].mark === ' ' && marked[k + 1].mark === ' ');
  return i === -1 ? null : [...marked.slice(0, i), ...marked.slice(i + 1)];
}

/** The same perturbation on the old side only: new_string as the commit has it. */
function oldOnly(hc: HunkCase, perturbed: Marked | null): Edit | null {
  if (!perturbed) return null;
  const o = oldSide(perturbed);
  const n = newSide(hc.marked);
  return { pre: hc.pre, expected: hc.expected, path: hc.path, old: o.join('\n'), neu: n.join('\n'), diff: makeDiff(hc.path, hc.start, o, n) };
}

/** blankMissing, for a blank line inside old: a non-blank line of old before and after it. */
function blankMissingInside(marked: Marked): Marked | null {
  const isOld = (m: Marked[number]) => m.mark !== '+';
  const i = marked.findIndex(
    (m, k) =>
      m.mark === ' ' && m.text.trim() === '' && k > 0 && k < marked.length - 1 && marked[k - 1].mark === ' ' && marked[k + 1].mark === ' ' &&
      marked.slice(0, k).some((x) => isOld(x) && x.text.trim() !== '') && marked.slice(k + 1).some((x) => isOld(x) && x.text.trim() !== ''),
  );
  return i === -1 ? null : [...marked.slice(0, i), ...marked.slice(i + 1)];
}

function blankExtra(marked: Marked): Marked | null {
  for (let k = 0; k + 1 < marked.length; k++) {
    const a = marked[k];
    const b = marked[k + 1];
    if (a.mark === ' ' && b.mark === ' ' && a.text.trim() !== '' && b.text.trim() !== '') {
      return [...marked.slice(0, k + 1), { mark: ' ', text: '' }, ...marked.slice(k + 1)];
    }
  }
  return null;
}

/**
 * old = its first k lines, "...", its last k lines, with the smallest k (from 2) that makes each part
 * unique the way the tool's error asks a model to (the head in the file, the tail after the head).
 */
function elided(hc: HunkCase, marked: Marked, sent: Marked = marked): Edit | null {
  const o = oldSide(marked);
  const so = oldSide(sent);
  const n = newSide(sent);
  const pre = hc.pre;
  for (let k = 2; 2 * k + 2 <= o.length; k++) {
    const head = o.slice(0, k);
    const tail = o.slice(-k);
    if (head.every((l) => l.trim() === '') || tail.every((l) => l.trim() === '')) continue;
    const hAt = pre.indexOf(head.join('\n'));
    if (hAt === -1 || countOf(pre, head.join('\n')) !== 1) continue;
    if (countOf(pre.slice(hAt + head.join('\n').length), tail.join('\n')) !== 1) continue;
    const old = [...so.slice(0, k), '...', ...so.slice(-k)];
    return { pre: hc.pre, expected: hc.expected, path: hc.path, old: old.join('\n'), neu: n.join('\n'), diff: makeDiff(hc.path, hc.start, old, n) };
  }
  return null;
}

function reducedContext(hc: HunkCase): Marked | null {
  const m = hc.marked;
  let a = 0;
  while (a < m.length && m[a].mark === ' ') a++;
  let b = m.length;
  while (b > 0 && m[b - 1].mark === ' ') b--;
  if (a <= 1 && m.length - b <= 1) return null;
  const cut = m.slice(Math.max(0, a - 1), Math.min(m.length, b + 1));
  if (countOf(hc.pre, oldSide(cut).join('\n')) !== 1) return null;
  return cut;
}

function shiftStart(diff: string, by: number): string {
  return diff.replace(/^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/m, (_s, a, b, c, d) => `@@ -${Number(a) + by},${b} +${Number(c) + by},${d} @@`);
}

function kinds(hc: HunkCase): Record<string, Edit | null> {
  const m = hc.marked;
  const crlf = (s: string) => s.replace(/\n/g, '\r\n');
  const less = indentLess(hc, m);
  const ts = tabsSpaces(hc, m);
  const bm = blankMissing(m);
  const el = elided(hc, m);
  const elInd = (() => {
    const shifted = indentLess(hc, m) ?? indentMore(hc, m);
    const e = elided(hc, m, shifted);
    return e ? { ...e, expected: hc.expected } : null;
  })();
  const rc = reducedContext(hc);
  const base = hc.path.split('/').pop()!;
  const same = hc.files.filter((f) => f.split('/').pop() === base);
  const comboIB = less ? blankMissing(less) : null;
  return {
    none: edit(hc, m),
    'indent-less': less ? edit(hc, less) : null,
    'indent-more': edit(hc, indentMore(hc, m)),
    'tabs-spaces': ts ? edit(hc, ts) : null,
    'trailing-ws': edit(hc, trailingWs(m)),
    crlf: { ...edit(hc, m), pre: crlf(hc.pre), expected: crlf(hc.expected) },
    'blank-missing': bm ? edit(hc, bm) : null,
    'blank-extra': blankExtra(m) ? edit(hc, blankExtra(m)!) : null,
    'blank-missing-old': oldOnly(hc, blankMissingInside(m)),
    'blank-extra-old': oldOnly(hc, blankExtra(m)),
    'none-toolbox': { ...edit(hc, m), viaToolbox: true, oursOnly: true },
    elision: el,
    'elision-indent': elInd,
    'diff-numbers': { ...edit(hc, m), diff: shiftStart(edit(hc, m).diff, 13), asDiff: true },
    'diff-context': rc ? { ...edit(hc, rc), diff: makeDiff(hc.path, hc.start, oldSide(rc), newSide(rc)), asDiff: true } : null,
    basename: hc.path.includes('/') && same.length === 1 && !hc.files.includes(base) ? { ...edit(hc, m), path: base, viaToolbox: true, diff: makeDiff(base, hc.start, oldSide(m), newSide(m)) } : null,
    'combo-indent-blank': comboIB ? edit(hc, comboIB) : null,
    'combo-tabs-trailing': ts ? edit(hc, trailingWs(ts)) : null,
    'ambiguous-basename': same.length > 1 && !hc.files.includes(base) ? { ...edit(hc, m), path: base, viaToolbox: true, mustRefuse: true, diff: makeDiff(base, hc.start, oldSide(m), newSide(m)) } : null,
  };
}

// ------------------------------------------------------------------ tools

type Outcome = 'correct' | 'wrong' | 'refused';
type Tool = (e: Edit, hc: HunkCase) => Promise<string | null>;

function diffParts(diff: string): { old: string; neu: string } {
  const o: string[] = [];
  const n: string[] = [];
  for (const l of diff.split('\n')) {
    if (l.startsWith('---') || l.startsWith('+++') || l.startsWith('@@') || l === '') continue;
    if (l[0] !== '+') o.push(l.slice(1));
    if (l[0] !== '-') n.push(l.slice(1));
  }
  return { old: o.join('\n'), neu: n.join('\n') };
}

function external(cmd: string, args: string[]): Tool {
  return async (e, hc) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'edit-bench-'));
    try {
      const abs = path.join(dir, hc.path);
      fs.mkdirSync(path.dirname(abs), { recursive: true });
      fs.writeFileSync(abs, e.pre);
      fs.writeFileSync(path.join(dir, 'edit.diff'), e.diff);
      const r = spawnSync(cmd, [...args, 'edit.diff'], { cwd: dir, encoding: 'utf8' });
      if (r.status !== 0) return null;
      return fs.readFileSync(abs, 'utf8');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  };
}

/** The rung ours used (or refused at) for the last edit: 'none' when nothing matched, 'syntax' when the syntax check refused. */
let lastRung = 'none';

function rungOf(r: { ok: boolean; rung?: string }): void {
  lastRung = r.rung ?? 'none';
}

async function viaToolbox(e: Edit, hc: HunkCase, args: Record<string, string>): Promise<string | null> {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'edit-bench-tb-')));
  try {
    const base = hc.path.split('/').pop()!;
    const write = (rel: string, text: string) => {
      fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      fs.writeFileSync(path.join(dir, rel), text);
    };
    // the other files of that name are only listed: a short path is resolved (or refused) from the listing
    void base;
    write(hc.path, e.pre);
    const tb = new ToolBox({ root: dir, listFiles: async () => hc.files, protectedPaths: [] });
    const r = await tb.execute('edit_file', JSON.stringify({ path: e.path, ...args }));
    lastRung = /syntax error/.test(r.display) ? 'syntax' : (/(\S+) match at line/.exec(r.display)?.[1] ?? 'none');
    if (!r.ok) return null;
    return fs.readFileSync(path.join(dir, hc.path), 'utf8');
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

const TOOLS: Record<string, Tool> = {
  ours: async (e, hc) => {
    if (e.viaToolbox) return viaToolbox(e, hc, { old_string: e.old, new_string: e.neu });
    const r = e.asDiff ? applyUnifiedDiff(e.pre, e.diff) : applyEdit(e.pre, e.old, e.neu);
    rungOf(r);
    return r.ok ? r.content : null;
  },
  'ours-diff': async (e, hc) => {
    if (e.viaToolbox) return viaToolbox(e, hc, { diff: e.diff });
    const r = applyUnifiedDiff(e.pre, e.diff);
    rungOf(r);
    return r.ok ? r.content : null;
  },
  'git-apply': external('git', ['apply']),
  'git-apply-recount-iw': external('git', ['apply', '--recount', '--ignore-whitespace']),
  'patch-fuzz2': external('patch', ['-p1', '-N', '-s', '-f', '--fuzz=2', '--no-backup-if-mismatch', '-r', '-', '-i']),
  'patch-l-fuzz2': external('patch', ['-p1', '-N', '-s', '-f', '-l', '--fuzz=2', '--no-backup-if-mismatch', '-r', '-', '-i']),
  indexOf: async (e) => {
    if (e.viaToolbox) return null; // the bare name is not a file
    const { old, neu } = e.asDiff ? diffParts(e.diff) : { old: e.old, neu: e.neu };
    const i = e.pre.indexOf(old);
    return i === -1 ? null : e.pre.slice(0, i) + neu + e.pre.slice(i + old.length);
  },
};

// ------------------------------------------------------------------ run

/** --whole-commits N: every (commit, source file) of the newest N non-merge commits, instead of the corpus's pairs. */
function scanPairs(repo: string, n: number): Array<Pick<HunkCase, 'repo' | 'commit' | 'path' | 'pre'>> {
  const dir = path.join(MIRRORS, repo, 'repo');
  const out: Array<Pick<HunkCase, 'repo' | 'commit' | 'path' | 'pre'>> = [];
  const commits = git(dir, ['log', '--no-merges', '--format=%H %P', '-n', String(n), 'HEAD']).trim().split('\n').map((l) => l.split(' '));
  for (const [commit, parent] of commits.filter((c) => c.length === 2)) {
    for (const p of git(dir, ['diff', '--name-only', '--no-renames', '--diff-filter=M', parent, commit]).trim().split('\n')) {
      if (!EXT.test(p)) continue;
      const pre = git(dir, ['show', `${parent}:${p}`]);
      if (pre.length > 300_000 || pre.includes('\r') || pre.includes('\0')) continue;
      out.push({ repo, commit, path: p, pre });
    }
  }
  return out;
}

/** Every hunk of one commit's change to one file, as edit_file calls in order: the file ends as the commit has it, or where it stopped. */
async function wholeCommit(hc: Pick<HunkCase, 'repo' | 'commit' | 'path' | 'pre'>): Promise<{ outcome: Outcome; steps: number; warned: number; refusedBy?: string; retries: number; placeNotNamed: number }> {
  const dir = path.join(MIRRORS, hc.repo, 'repo');
  const parent = git(dir, ['rev-parse', `${hc.commit}^`]).trim();
  const post = git(dir, ['show', `${hc.commit}:${hc.path}`]);
  const [fp] = parsePatch(git(dir, ['diff', '-U3', '--no-renames', parent, hc.commit, '--', hc.path]));
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'edit-bench-seq-')));
  try {
    fs.mkdirSync(path.dirname(path.join(root, hc.path)), { recursive: true });
    fs.writeFileSync(path.join(root, hc.path), hc.pre);
    const tb = new ToolBox({ root, listFiles: async () => [hc.path], protectedPaths: [] });
    let warned = 0;
    let retries = 0;
    let placeNotNamed = 0;
    // lines the hunks before added (so where this hunk's old side now starts)
    let delta = 0;
    for (const h of fp.hunks) {
      const marked = h.lines.filter((l) => !l.startsWith('\\')).map((l) => ({ mark: l[0] as ' ' | '-' | '+', text: l.slice(1) }));
      let old = oldSide(marked);
      let neu = newSide(marked);
      // filling an empty file, new_string is the whole file: with its final newline unless the diff says it has none
      const whole = old.length === 0 && fs.readFileSync(path.join(root, hc.path), 'utf8') === '' && !h.lines.some((l) => l.startsWith('\\')) ? '\n' : '';
      const send = () => tb.execute('edit_file', JSON.stringify({ path: hc.path, old_string: old.join('\n'), new_string: neu.join('\n') + whole }));
      let r = await send();
      // "old_string matches N places (lines …)": a model sends more context, as the message asks,
      // one more line of the file on each side of the place it means, until the anchor is unique
      let first = h.oldStart - 1 + delta + (h.oldLines === 0 ? 1 : 0);
      let last = first + old.length - 1;
      while (!r.ok && /matches \d+ places/.test(r.content)) {
        const listed = (/\(lines ([^)]*)\)/.exec(r.content)?.[1] ?? '').split(/,\s*/).map(Number);
        if (!listed.includes(first + 1)) {
          placeNotNamed++;
          if (process.env.EDIT_BENCH_DEBUG === 'retry') process.stderr.write(`\nintended line ${first + 1} not listed: ${hc.repo} ${hc.commit.slice(0, 10)} ${hc.path}\n${r.content.slice(0, 300)}\n`);
        }
        const text = fs.readFileSync(path.join(root, hc.path), 'utf8').split('\n');
        if (first <= 0 && last >= text.length - 1) break;
        if (first > 0) {
          first--;
          old = [text[first], ...old];
          neu = [text[first], ...neu];
        }
        if (last < text.length - 1) {
          last++;
          old = [...old, text[last]];
          neu = [...neu, text[last]];
        }
        retries++;
        r = await send();
      }
      delta += h.newLines - h.oldLines;
      if (!r.ok) {
        const why = /syntax error/.test(r.display) ? 'syntax' : /matches \d+ places/.test(r.content) ? 'ambiguous anchor' : /was not found/.test(r.content) ? 'not found' : 'other';
        return { outcome: 'refused', steps: fp.hunks.length, warned, refusedBy: why, retries, placeNotNamed };
      }
      if (/does not parse/.test(r.display)) warned++;
    }
    const got = fs.readFileSync(path.join(root, hc.path), 'utf8');
    return { outcome: got === post ? 'correct' : 'wrong', steps: fp.hunks.length, warned, retries, placeNotNamed };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const t0 = Date.now();
  const all: HunkCase[] = [];
  const amb: Array<{ hc: HunkCase; old: string; neu: string }> = [];
  const corpus: Record<string, { hunks: number; ambiguous: number; head: string }> = {};
  for (const repo of REPOS) {
    const { hunks, ambiguous } = collect(repo);
    all.push(...hunks);
    amb.push(...ambiguous.slice(0, HUNKS));
    corpus[repo] = { hunks: hunks.length, ambiguous: Math.min(ambiguous.length, HUNKS), head: git(path.join(MIRRORS, repo, 'repo'), ['rev-parse', 'HEAD']).trim() };
    process.stderr.write(`${repo}: ${hunks.length} hunks, ${ambiguous.length} ambiguous anchors\n`);
  }
  type Row = Record<string, Record<Outcome, number>>;
  const table: Record<string, Row & { _cases?: never }> = {};
  const cases: Record<string, number> = {};
  const wrongExamples: Array<Record<string, string>> = [];
  const count = (kind: string, tool: string, o: Outcome) => {
    table[kind] ??= {};
    table[kind][tool] ??= { correct: 0, wrong: 0, refused: 0 };
    table[kind][tool][o]++;
  };
  const rungs: Record<string, Record<string, Record<Outcome, number>>> = {};
  const countRung = (tool: string, rung: string, o: Outcome) => {
    rungs[tool] ??= {};
    rungs[tool][rung] ??= { correct: 0, wrong: 0, refused: 0 };
    rungs[tool][rung][o]++;
  };
  const judge = (e: Edit, got: string | null): Outcome => {
    if (got === null) return e.mustRefuse ? 'correct' : 'refused';
    if (e.mustRefuse) return 'wrong';
    return got === e.expected ? 'correct' : 'wrong';
  };
  let done = 0;
  // --only <commit prefix>: re-run the cases of one commit (with EDIT_BENCH_DEBUG=<kind> to see them)
  const only = argv.includes('--only') ? opt('--only', '') : null;
  for (const hc of all) {
    if (only && !hc.commit.startsWith(only)) continue;
    for (const [kind, e] of Object.entries(kinds(hc))) {
      if (!e) continue;
      cases[kind] = (cases[kind] ?? 0) + 1;
      for (const [tool, run] of Object.entries(TOOLS)) {
        if (ONLY_TOOLS && !ONLY_TOOLS.includes(tool)) continue;
        if (e.oursOnly && tool !== 'ours') continue;
        const t = Date.now();
        const o = judge(e, await run(e, hc));
        if ((tool === 'ours' || tool === 'ours-diff') && !e.mustRefuse) countRung(tool, lastRung, o);
        if (process.env.EDIT_BENCH_TRACE && Date.now() - t > 1000) process.stderr.write(`slow: ${tool} ${kind} ${hc.path} ${Date.now() - t} ms\n`);
        count(kind, tool, o);
        if (o !== 'correct' && tool === 'ours' && process.env.EDIT_BENCH_DEBUG === kind) {
          const got = await run(e, hc);
          process.stderr.write(`\n=== ${kind} ${o} ${hc.repo} ${hc.commit.slice(0, 8)} ${hc.path}:${hc.start}\n--- old_string\n${e.old}\n--- new_string\n${e.neu}\n`);
          if (got !== null) process.stderr.write(createTwoFilesPatch('expected', 'got', e.expected, got, '', '', { context: 2 }));
        }
        if (o !== 'correct' && (tool === 'ours' || tool === 'ours-diff') && wrongExamples.length < 200) {
          wrongExamples.push({ tool, kind, outcome: o, repo: hc.repo, commit: hc.commit, path: hc.path, line: String(hc.start) });
        }
      }
    }
    if (++done % 20 === 0) process.stderr.write(`${done}/${all.length} hunks\n`);
  }
  for (const { hc, old, neu } of amb) {
    const e: Edit = { pre: hc.pre, expected: hc.expected, path: hc.path, old, neu, mustRefuse: true, diff: makeDiff(hc.path, hc.start, old.split('\n'), neu === '' ? [] : neu.split('\n')) };
    cases.ambiguous = (cases.ambiguous ?? 0) + 1;
    for (const [tool, run] of Object.entries(TOOLS)) {
      if (ONLY_TOOLS && !ONLY_TOOLS.includes(tool)) continue;
      const o = judge(e, await run(e, hc));
      count('ambiguous', tool, o);
      if (o !== 'correct' && tool === 'ours') wrongExamples.push({ tool, kind: 'ambiguous', outcome: o, repo: hc.repo, commit: hc.commit, path: hc.path });
    }
  }
  // the syntax check on the same real edits: does it refuse a commit's own edit (false refusal),
  // and does it catch the edit with one closing bracket of its added lines deleted?
  // whole commits, hunk after hunk through edit_file
  const commits = { files: 0, multiHunk: 0, correct: 0, wrong: 0, refused: 0, refusedBySyntax: 0, refusedBy: {} as Record<string, number>, stepsWarned: 0, notCorrect: [] as string[], withRetry: 0, retries: 0, maxRetries: 0, placeNotNamed: 0, correctWithRetry: 0 };
  const seen = new Set<string>();
  const WHOLE = Number(opt('--whole-commits', '0'));
  const pairs = WHOLE > 0 ? REPOS.flatMap((r) => scanPairs(r, WHOLE)) : all;
  for (const hc of pairs) {
    const key = `${hc.repo} ${hc.commit} ${hc.path}`;
    if (seen.has(key) || (only && !hc.commit.startsWith(only))) continue;
    seen.add(key);
    const w = await wholeCommit(hc);
    commits.files++;
    if (w.steps > 1) commits.multiHunk++;
    commits[w.outcome]++;
    if (w.refusedBy === 'syntax') commits.refusedBySyntax++;
    if (w.refusedBy) commits.refusedBy[w.refusedBy] = (commits.refusedBy[w.refusedBy] ?? 0) + 1;
    commits.stepsWarned += w.warned;
    if (w.retries) {
      commits.withRetry++;
      commits.retries += w.retries;
      commits.maxRetries = Math.max(commits.maxRetries, w.retries);
      if (w.outcome === 'correct') commits.correctWithRetry++;
    }
    commits.placeNotNamed += w.placeNotNamed;
    if (w.outcome !== 'correct') commits.notCorrect.push(`${key.slice(0, key.indexOf(' ') + 11)} ${hc.path} ${w.outcome}${w.refusedBy ? ` (${w.refusedBy})` : ''}`);
  }
  const syntax = { edits: 0, falseRefusals: 0, brokenVariants: 0, caught: 0, unchecked: 0, falseRefusalCases: [] as string[] };
  for (const hc of all) {
    const v = await checkSyntax(hc.path, hc.pre, hc.expected);
    syntax.edits++;
    if (v.kind === 'unchecked') syntax.unchecked++;
    if (v.kind === 'introduced') {
      syntax.falseRefusals++;
      syntax.falseRefusalCases.push(`${hc.repo} ${hc.commit.slice(0, 10)} ${hc.path}`);
    }
    const added = hc.marked.map((m, k) => ({ m, k })).filter(({ m }) => m.mark === '+' && /[)\]}]/.test(m.text));
    if (added.length === 0) continue;
    const { k } = added[added.length - 1];
    const t = hc.marked[k].text;
    const at = Math.max(t.lastIndexOf(')'), t.lastIndexOf(']'), t.lastIndexOf('}'));
    const broken = hc.marked.map((m, j) => (j === k ? { ...m, text: t.slice(0, at) + t.slice(at + 1) } : m));
    const pre = hc.pre.slice(0, -1).split('\n');
    const brokenExpected = [...pre.slice(0, hc.start - 1), ...newSide(broken), ...pre.slice(hc.start - 1 + oldSide(hc.marked).length)].join('\n') + '\n';
    syntax.brokenVariants++;
    if ((await checkSyntax(hc.path, hc.pre, brokenExpected)).kind === 'introduced') syntax.caught++;
  }
  const result = {
    date: new Date().toISOString(),
    machine: { nproc: os.cpus().length, node: process.version, git: spawnSync('git', ['--version'], { encoding: 'utf8' }).stdout.trim(), patch: spawnSync('patch', ['--version'], { encoding: 'utf8' }).stdout.split('\n')[0] },
    command: `node scripts/run-ts.mjs bench/edit-perturb.ts ${argv.join(' ')}`.trim(),
    corpus,
    seconds: Math.round((Date.now() - t0) / 1000),
    cases,
    table,
    rungs,
    commits,
    syntax,
    notCorrectOurs: wrongExamples,
  };
  fs.mkdirSync(path.dirname(OUT), { recursive: true });
  fs.writeFileSync(OUT, JSON.stringify(result, null, 2) + '\n');
  // a Markdown table: correct / wrong / refused per kind and tool
  const tools = Object.keys(TOOLS).filter((t) => !ONLY_TOOLS || ONLY_TOOLS.includes(t));
  const lines = [`| kind | cases | ${tools.join(' | ')} |`, `| --- | ---: | ${tools.map(() => '---').join(' | ')} |`];
  for (const kind of Object.keys(table)) {
    const cells = tools.map((t) => {
      const c = table[kind][t];
      if (!c) return '–';
      return `${c.correct} / ${c.wrong} / ${c.refused}`;
    });
    lines.push(`| ${kind} | ${cases[kind]} | ${cells.join(' | ')} |`);
  }
  console.log(lines.join('\n'));
  // per rung (every kind but the ambiguous ones): the rung that applied the edit, or refused it ('none': nothing matched)
  for (const [tool, byRung] of Object.entries(rungs)) {
    console.log(`\n| rung (${tool}) | correct | wrong | refused |\n| --- | ---: | ---: | ---: |`);
    for (const [rung, c] of Object.entries(byRung)) console.log(`| ${rung} | ${c.correct} | ${c.wrong} | ${c.refused} |`);
  }
  console.log(
    `\nwhole commits through edit_file: ${commits.correct} / ${commits.wrong} / ${commits.refused} (correct / wrong / refused) of ${commits.files} (commit, file) pairs, ` +
      `${commits.multiHunk} of them in several hunks; refused by: ${JSON.stringify(commits.refusedBy)}; ${commits.stepsWarned} steps written with a parse warning; ` +
      `${commits.withRetry} pairs needed a retry with more context after "matches N places" (${commits.correctWithRetry} of them correct; ${commits.retries} retries in all, at most ${commits.maxRetries} for one pair; the refusal did not list the intended line ${commits.placeNotNamed} time(s))`,
  );
  console.log(`\nsyntax check: ${syntax.falseRefusals} of ${syntax.edits} real edits refused (${syntax.unchecked} unchecked); ${syntax.caught} of ${syntax.brokenVariants} edits with a closing bracket deleted caught`);
}

await main();
