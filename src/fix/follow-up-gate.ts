/**
 * The gate of a follow-up on agent-fix's own pull request (run/follow-up.ts, run/rebase.ts).
 *
 * A first fix must show a problem and its fix: a failing test that passes, or, when the tests
 * already passed, a new test that fails without the change (the fail-to-pass proof). A
 * follow-up starts from a head that was verified: its baseline usually passes entirely, and
 * what a reviewer asks ("use a named constant", "rename this") often shows in no test. So a
 * follow-up is accepted when, on top of the gate's own rule (the command passes, nothing that
 * passed before fails):
 * - the change is not empty (the loop refuses an empty one anyway),
 * - the tests of the original fix's proof that pass on the PR head are still present and pass
 *   (they cannot be deleted or renamed away: the plain gate would not notice a test that
 *   vanished),
 * - and, when the request asks for a test, at least one new or changed test passes.
 * The first fix's gate is not touched: this applies only when the kind sets `followUp`.
 *
 * Where the original tests come from: the pull request body carries them in a hidden marker
 * written when the first PR was opened (`proofMarker`); a PR opened before the marker existed
 * falls back to the tests of the test files the branch changed. Pure.
 */
import type { RunReport } from './types.js';
import type { TestRun } from '../verify/types.js';
import { isTestFile } from '../lang/index.js';

export interface FollowUpGate {
  /** Tests of the original fix: those passing at the PR head must be present and pass after the follow-up. */
  original: string[];
  /** Test files changed by the branch (fallback when `original` is empty): their tests passing at the PR head must still pass. */
  originalFiles: string[];
  /** Where `original` comes from, for the report. */
  source: string;
  /** The request asks for a test: at least one new or changed test must pass. */
  wantsTest: boolean;
}

/** The tests that must hold after the follow-up: the original ones that pass at the PR head (the baseline). */
export function requiredOriginal(baseline: TestRun, gate: FollowUpGate): string[] {
  const passing = baseline.tests.filter((t) => t.status === 'passed');
  if (gate.original.length) {
    const wanted = new Set(gate.original);
    return passing.filter((t) => wanted.has(t.id)).map((t) => t.id);
  }
  const files = new Set(gate.originalFiles);
  return passing.filter((t) => (t.file && files.has(t.file)) || files.has(t.id.split(/ > |::/)[0])).map((t) => t.id);
}

/** Why the attempt is not an accepted follow-up (a message for the model), or null when it is. */
export function judgeFollowUp(baseline: TestRun, run: TestRun, changedFiles: string[], gate: FollowUpGate): string | null {
  const required = requiredOriginal(baseline, gate);
  const status = new Map(run.tests.map((t) => [t.id, t.status]));
  const missing = required.filter((id) => !status.has(id));
  const failing = required.filter((id) => status.has(id) && status.get(id) !== 'passed');
  const problems: string[] = [];
  if (missing.length || failing.length) {
    const list = [...missing.map((id) => `${id} (missing)`), ...failing.map((id) => `${id} (${status.get(id)})`)];
    problems.push(
      `The tests of the original fix must still be present and pass (${gate.source}); these do not: ${list.slice(0, 10).join(', ')}${list.length > 10 ? ', …' : ''}. Keep them, and keep the original fix working.`,
    );
  }
  if (gate.wantsTest) {
    const before = new Set(baseline.tests.map((t) => t.id));
    const changedTests = changedFiles.filter(isTestFile);
    const fresh = run.tests.filter((t) => t.status === 'passed' && (!before.has(t.id) || (t.file !== undefined && changedTests.includes(t.file))));
    if (changedTests.length === 0 || fresh.length === 0) {
      problems.push('The request asks for a test: add (or extend) a test for it in a test file, and make it pass.');
    }
  }
  return problems.length ? problems.join('\n\n') : null;
}

/** Does the request ask for a test ("add a test", "cover this with a test", "write tests for")? */
export function asksForTest(text: string): boolean {
  return /\b(?:add|adds|adding|write|writing|cover|covered|include|extend|need|needs|missing|with)\b[^.\n]{0,60}\b(?:unit[- ])?tests?\b/i.test(text) || /\btest (?:case|for|that)\b/i.test(text);
}

/** The tests a verified first fix made pass: the gate's "now passing" and the fail-to-pass proof's tests. */
export function proofTests(report: RunReport): string[] {
  if (report.status !== 'fixed') return [];
  const last = report.attempts[report.attempts.length - 1];
  const out = new Set(last?.verdict.nowPassing ?? []);
  const proof = report.tests?.proof;
  for (const t of proof?.tests ?? []) if (t.after === 'passed' && t.before !== 'passed') out.add(t.id);
  if (proof?.withoutFix && report.final) {
    const without = new Map(proof.withoutFix.tests.map((t) => [t.id, t.status]));
    for (const t of report.final.tests) if (t.status === 'passed' && without.get(t.id) === 'failed') out.add(t.id);
  }
  return [...out].slice(0, MAX_MARKED);
}

const MAX_MARKED = 200;
const MARKER = /<!-- agent-fix:proof ([A-Za-z0-9_-]*) -->/;

/** The hidden marker of a PR body that names the original fix's tests (base64url JSON: test ids may hold `-->`). */
export function proofMarker(tests: string[]): string {
  // Kept small (a few KB at most) so that it never pushes a body over GitHub's limit.
  const kept: string[] = [];
  for (const t of tests.slice(0, MAX_MARKED)) {
    if (JSON.stringify([...kept, t]).length > 3_000) break;
    kept.push(t);
  }
  return `<!-- agent-fix:proof ${Buffer.from(JSON.stringify(kept), 'utf8').toString('base64url')} -->`;
}

/** The tests named by a PR body's proof marker; null when there is none or it is unreadable. */
export function parseProofMarker(body: string): string[] | null {
  const m = MARKER.exec(body);
  if (!m) return null;
  try {
    const v: unknown = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
    return Array.isArray(v) && v.every((x) => typeof x === 'string') ? v.slice(0, MAX_MARKED) : null;
  } catch {
    return null;
  }
}

/** A first fix's PR body with the marker naming its tests (for later follow-ups), when it has any. */
export function withProofMarker(body: string, report: RunReport): string {
  const tests = proofTests(report);
  return tests.length ? `${body.replace(/\n*$/, '')}\n\n${proofMarker(tests)}\n` : body;
}

export function withoutProofMarker(body: string): string {
  return body.replace(new RegExp(MARKER.source, 'g'), '').replace(/\n{3,}$/, '\n\n');
}
