/** The report's test section, folded once from the phases' findings (fix/findings.ts). */
import { changedExpectationCount, foldTests } from '../../src/fix/findings.js';
import type { SessionRecord, TestFinding } from '../../src/verify/intel.js';

const RECORD: SessionRecord = { runner: 'jest', commands: [{ purpose: 'baseline', command: 'npm test', exitCode: 1, timedOut: false, durationMs: 10, counts: { passed: 1, failed: 1, skipped: 0 } }] };
const original = (ok: boolean, changed = 0) => ({
  ok,
  testFiles: ['a.test.js'],
  missing: [],
  failing: [],
  passing: [],
  detail: ok ? 'agree' : 'disagree',
  counts: { passed: 1, failed: ok ? 0 : 1, skipped: 0 },
  exitCode: ok ? 0 : 1,
  ...(changed ? { changedExpectations: Array.from({ length: changed }, (_, i) => ({ test: `t${i}`, before: '1', now: '2' })) } : {}),
});
const gaming = { kind: 'special-cases' as const, file: 'src/a.js', line: 3, code: 'if (x === 2) return 5;', detail: 'the test input' };

test('no findings: the session record and no refusal', () => {
  expect(foldTests(RECORD, [])).toEqual({ runner: 'jest', commands: RECORD.commands, refusals: [] });
  expect(foldTests({ ...RECORD, detection: 'package.json test script' }, []).detection).toBe('package.json test script');
});

test('refusals keep their order; the last original-test run, gaming and proof win; empty lists leave nothing', () => {
  const proof = { status: 'proven' as const, testFiles: ['a.test.js'], detail: 'ok' } as unknown as Extract<TestFinding, { kind: 'proof' }>['proof'];
  const findings: TestFinding[] = [
    { kind: 'proof-not-asked', why: 'a follow-up' },
    { kind: 'refusal', line: '[skip] a skip' },
    { kind: 'original', original: original(false) },
    { kind: 'refusal', line: '[original-tests] disagree' },
    { kind: 'original', original: original(true, 2) },
    { kind: 'comment-only', hunks: [] },
    { kind: 'proof', proof },
    { kind: 'gaming', found: [gaming] },
  ];
  const t = foldTests(RECORD, findings);
  expect(t.refusals).toEqual(['[skip] a skip', '[original-tests] disagree']);
  expect(t.original).toEqual(original(true, 2));
  expect(t.commentOnly).toBeUndefined();
  expect(t.gaming).toEqual([gaming]);
  expect(t.proof).toBe(proof);
  expect(t.proofNotAsked).toBe('a follow-up');
  expect(changedExpectationCount(findings)).toBe(2);
});

test('a later original-test finding of null (no test-ish change) clears an earlier run; an empty gaming list clears gaming', () => {
  const t = foldTests(RECORD, [{ kind: 'original', original: original(true, 1) }, { kind: 'original', original: null }, { kind: 'gaming', found: [gaming] }, { kind: 'gaming', found: [] }]);
  expect(t.original).toBeUndefined();
  expect(t.gaming).toBeUndefined();
  expect(changedExpectationCount([{ kind: 'original', original: original(true, 1) }, { kind: 'original', original: null }])).toBe(0);
});

test('folding is pure: the findings are not edited', () => {
  const findings: TestFinding[] = [{ kind: 'refusal', line: 'x' }];
  const copy = structuredClone(findings);
  foldTests(RECORD, findings);
  foldTests(RECORD, findings);
  expect(findings).toEqual(copy);
});
