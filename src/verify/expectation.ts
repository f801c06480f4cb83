/**
 * Changed expectations: a fix that must change what an existing test asserts (the old assertion
 * encoded the bug) told apart from a test edited to pass, by what the tests do, not by how the
 * edit looks. Pure.
 *
 * A test that fails when the tests as they were run against the source change alone (the
 * original-test gate) is a **changed expectation** when all of these hold:
 * - the test as it was passed on the original code (the baseline);
 * - the edited test fails on the original code (the proof's run with only the test edits) and
 *   passes with the fix (the gate's run): a fail-to-pass proof of the new behaviour;
 * - the assertions of its file are not weaker (as many exact matchers as before, none negated);
 * - the task is about it (a word of its name or file in the task text, or a test the task names);
 * - the policy does not forbid it (`gate.changed-expectations: forbid`).
 * Anything else stays what it was: a test edited to pass, refused. An edited test that passes on
 * the original code expects what the buggy code does; one that no longer runs proves nothing.
 */
import type { ChangedExpectation, TestRun, TestStatus } from './types.js';
import type { FileDiff } from '../guard/test-integrity.js';
import { isSnapshotFile } from '../lang/index.js';

export type { ChangedExpectation } from './types.js';

/** How a repository treats changed expectations (policy `gate.changed-expectations`). */
export type ChangedExpectationPolicy = 'draft' | 'ready' | 'forbid';

export interface ExpectationInput {
  /** Tests failing in the original-test run (the tests as they were, on the fix's source). */
  candidates: string[];
  /** The run on the untouched code. */
  baseline: TestRun;
  /** The original-test run: the failure messages name the old expectation. */
  original: TestRun;
  /** The edited tests on the original code (the proof's "before" run); absent: no proof ran. */
  withoutFix?: TestRun;
  /** The gate's run of the fix. */
  fixRun: TestRun;
  /** The change's test files as a parsed diff. */
  testDiff: FileDiff[];
  /** Title and body of the task. */
  taskText: string;
  /** Tests the task names (failing at baseline, or named by the CI failure). */
  targets: string[];
  policy: ChangedExpectationPolicy;
}

export interface ExpectationJudgement {
  accepted: ChangedExpectation[];
  /** Candidates that are not changed expectations, each with why (for the model and the report). */
  refused: { test: string; why: string }[];
}

/** Matchers that pin a concrete value. */
const EXACT = /\.(?:toBe|toEqual|toStrictEqual|toMatchSnapshot|toMatchInlineSnapshot|toThrowErrorMatchingSnapshot|toHaveBeenCalledWith|toHaveBeenNthCalledWith|eql|equals?)\s*\(|\b(?:assert\.)?(?:deepStrictEqual|strictEqual|deepEqual|equal|equals|same|strictSame|is|isDeeply)\s*\(|\bassert_eq!|\bassert\s+[^=\n]+==(?!=)|\bexpect\s*\(.*\)\.to\.(?:equal|eql|deep\.equal)\b/;
/** A negated assertion: `.not.toBe(x)` pins nothing. */
const NEGATED = /\.not\.|\bnotEqual\s*\(|\bnotStrictEqual\s*\(|\bnotDeepEqual\s*\(|\bassert_ne!|!=/;
/** A skip option on an assertion or a test (`{ skip: true }`, `{ skip: 'reason' }`), not `skip: false`. */
const SKIP_OPTION = /\{\s*skip\s*:\s*(?!false\b)|,\s*skip\s*:\s*(?!false\b)/;

function exactCount(lines: string[]): number {
  return lines.filter((l) => !/^\s*(?:\/\/|#|\*)/.test(l) && EXACT.test(l) && !NEGATED.test(l) && !SKIP_OPTION.test(l)).length;
}

/**
 * Whether the test edits of a file loosen its assertions: fewer exact matchers that run than
 * before (a skip option removed from an assertion makes one run, one added makes one stop), or
 * a negated assertion added. Null when not weaker, else the sentence why.
 */
export function loosened(f: FileDiff): string | null {
  const removedSkips = f.removed.filter((l) => SKIP_OPTION.test(l) && !EXACT.test(l)).length;
  const addedSkips = f.added.filter((l) => SKIP_OPTION.test(l) && !EXACT.test(l)).length;
  const before = exactCount(f.removed) - removedSkips;
  const after = exactCount(f.added) - addedSkips;
  if (after < before) return `${f.path} has ${before - after} exact assertion(s) fewer after the change (a concrete expected value replaced by a looser check, or removed)`;
  const negated = f.added.filter((l) => NEGATED.test(l) && /\b(?:expect|assert|t\.|st\.)/.test(l) && !f.removed.some((r) => r.trim() === l.trim()));
  if (negated.length) return `${f.path} adds a negated assertion (\`${negated[0].trim().slice(0, 100)}\`): it no longer pins a value`;
  return null;
}

const STOP = new Set(
  'the and for with that this from when then than into onto over under should would could does not are was were will have has had been being its it\'s test tests spec specs case cases file files return returns returned value values true false null undefined error errors fix fixes fixed bug issue wrong correct correctly expected expect expects work works working index src lib plugin plugins string strings number numbers object objects array function method call calls called new old make makes use uses used using get set add when also only just each all any some more less same other like what which where while about after before there their they them these those been into'.split(/\s+/),
);

/** Lower-case word stems of a text (camelCase and snake_case split, the whole identifier kept too). */
export function words(text: string): Set<string> {
  const out = new Set<string>();
  const stem = (w: string) => w.replace(/(?:ies)$/, 'y').replace(/(?:ing|ed|es|s)$/, '');
  for (const raw of text.match(/[A-Za-z][A-Za-z0-9]*/g) ?? []) {
    const parts = [raw, ...raw.split(/(?<=[a-z0-9])(?=[A-Z])/)];
    for (const p of parts) {
      const w = p.toLowerCase();
      if (w.length < 4 || STOP.has(w)) continue;
      out.add(stem(w));
    }
  }
  return out;
}

/** Whether the task is about this test: it is named by the task, or its name or file shares a word with the task text. */
export function relatedToTask(test: string, file: string | undefined, taskText: string, targets: string[]): boolean {
  if (targets.includes(test)) return true;
  if (file && targets.some((t) => t.startsWith(`${file} > `) || t.startsWith(`${file}::`))) return true;
  const task = words(taskText);
  const own = words(`${test} ${file ?? ''}`);
  for (const w of own) if (task.has(w)) return true;
  return false;
}

const clip = (s: string, n = 120) => {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1)}…` : t;
};

/** The old expected value and the value the fix produces, from a failure message of the original-test run. */
export function expectedReceived(text: string): { expected: string; received: string } | null {
  const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
  const jest = /Expected(?: value)?[^:\n]*:\s*(.+)\n\s*Received(?: value)?[^:\n]*:\s*(.+)/.exec(plain);
  if (jest) return { expected: clip(jest[1]), received: clip(jest[2]) };
  const yaml = /expected:\s*(.+)\n\s*(?:actual|found|received):\s*(.+)/i.exec(plain) ?? null;
  if (yaml) return { expected: clip(yaml[1]), received: clip(yaml[2]) };
  const yamlRev = /(?:actual|found):\s*(.+)\n\s*(?:wanted|expected):\s*(.+)/i.exec(plain);
  if (yamlRev) return { expected: clip(yamlRev[2]), received: clip(yamlRev[1]) };
  const chai = /expected (.+?) to (?:be|equal|deeply equal|strictly equal|eql) (.+?)(?:\s+\/\/.*)?$/m.exec(plain);
  if (chai) return { expected: clip(chai[2]), received: clip(chai[1]) };
  return null;
}

function fileOf(id: string, run: TestRun): string | undefined {
  const t = run.tests.find((x) => x.id === id);
  if (t?.file) return t.file;
  const m = /^(.+?\.[A-Za-z]+) > /.exec(id) ?? /^(.+?\.py)::/.exec(id);
  return m ? m[1] : undefined;
}

const statusIn = (run: TestRun | undefined, id: string): TestStatus | 'missing' => run?.tests.find((t) => t.id === id)?.status ?? 'missing';

/** The snapshot file's test file (`__snapshots__/a.test.js.snap` → `a.test.js`), when the name says. */
export function snapshotOwner(snapshot: string): string | null {
  const m = /^(.*?)__snapshots__\/(.+)\.snap$/.exec(snapshot);
  return m ? `${m[1]}${m[2]}` : null;
}

/** Judges the candidates one by one (see the module comment). */
export function judgeExpectations(input: ExpectationInput): ExpectationJudgement {
  const accepted: ChangedExpectation[] = [];
  const refused: { test: string; why: string }[] = [];
  const diffs = input.testDiff;
  for (const test of input.candidates) {
    const file = fileOf(test, input.fixRun) ?? fileOf(test, input.baseline);
    const refuse = (why: string) => refused.push({ test, why });
    if (statusIn(input.baseline, test) !== 'passed') {
      refuse('it did not pass on the original code before any edit, so it is not an expectation the fix changes');
      continue;
    }
    if (statusIn(input.fixRun, test) !== 'passed') {
      refuse('the edited test does not pass with the fix');
      continue;
    }
    if (!input.withoutFix) {
      refuse('no run of the edited test on the original code was possible, so nothing shows the new expectation is the fix');
      continue;
    }
    const onOriginal = statusIn(input.withoutFix, test);
    if (onOriginal === 'passed') {
      refuse('the edited test passes on the original code as well: it expects what the code did before the fix, not the fixed behaviour');
      continue;
    }
    if (onOriginal !== 'failed') {
      refuse(`the edited test did not run on the original code (${onOriginal}): it no longer runs, or runs under another name`);
      continue;
    }
    // The file's edits (the snapshot's test file owns a snapshot's edits); for runners whose ids name no file, every changed test file.
    const own = diffs.filter((d) => (file ? d.path === file || snapshotOwner(d.path) === file : true));
    const loose = (own.length ? own : diffs).map(loosened).find((x) => x !== null);
    if (loose) {
      refuse(`the assertions are weaker: ${loose}`);
      continue;
    }
    if (!relatedToTask(test, file, input.taskText, input.targets)) {
      refuse('the task is not about this test (neither its name nor its file shares a word with the task, and the task names no test of its file)');
      continue;
    }
    if (input.policy === 'forbid') {
      refuse('the repository policy forbids changed expectations (gate.changed-expectations: forbid)');
      continue;
    }
    accepted.push({ test, ...(file ? { file } : {}), ...beforeNow(test, input, own) });
  }
  return { accepted, refused };
}

/** Expected before → now: from the original-test run's failure (old expected, the fix's value), else the changed assertion lines. */
function beforeNow(test: string, input: ExpectationInput, own: FileDiff[]): { before: string; now: string } {
  const t = input.original.tests.find((x) => x.id === test);
  const er = expectedReceived(`${t?.details ?? ''}\n${t?.message ?? ''}`);
  if (er) return { before: er.expected, now: er.received };
  // A snapshot: its old and new content.
  const snap = own.find((d) => isSnapshotFile(d.path) && d.removed.length && d.added.length);
  if (snap) return { before: `${clip(snap.removed.join(' '))} (${snap.path})`, now: clip(snap.added.join(' ')) };
  const removed = own.flatMap((d) => d.removed).find((l) => EXACT.test(l) || /\b(?:expect|assert)/.test(l));
  const added = own.flatMap((d) => d.added).find((l) => EXACT.test(l) || /\b(?:expect|assert)/.test(l));
  return { before: removed ? clip(removed) : 'the old assertion', now: added ? clip(added) : 'the new assertion' };
}

/** One line per accepted change, for the model and the report: `test: expected X → now Y`. */
export function describeChangedExpectations(list: ChangedExpectation[]): string[] {
  return list.map((c) => `${c.test}: expected ${c.before} → now ${c.now}`);
}
