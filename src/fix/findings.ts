/**
 * The test section of the report, folded once from what the phases found (verify/intel.ts
 * `TestFinding`), in the order they found it: nothing edits a record along the way. Pure.
 */
import type { TestIntel } from '../verify/types.js';
import type { SessionRecord, TestFinding } from '../verify/intel.js';

/** The session's own record plus every finding: refusals in order; the last original-test run, gaming, proof win. */
export function foldTests(record: SessionRecord, findings: readonly TestFinding[]): TestIntel {
  const refusals: string[] = [];
  let original: TestIntel['original'] | null = null;
  let commentOnly: TestIntel['commentOnly'] | null = null;
  let gaming: TestIntel['gaming'] | null = null;
  let proofNotAsked: string | null = null;
  let proof: TestIntel['proof'] | null = null;
  for (const f of findings) {
    switch (f.kind) {
      case 'refusal':
        refusals.push(f.line);
        break;
      case 'original':
        original = f.original;
        break;
      case 'comment-only':
        commentOnly = f.hunks.length ? f.hunks : null;
        break;
      case 'gaming':
        gaming = f.found.length ? f.found : null;
        break;
      case 'proof-not-asked':
        proofNotAsked = f.why;
        break;
      case 'proof':
        proof = f.proof;
        break;
    }
  }
  return {
    runner: record.runner,
    commands: record.commands,
    refusals,
    ...(record.detection ? { detection: record.detection } : {}),
    ...(original ? { original } : {}),
    ...(commentOnly ? { commentOnly } : {}),
    ...(gaming ? { gaming } : {}),
    ...(proofNotAsked ? { proofNotAsked } : {}),
    ...(proof ? { proof } : {}),
  };
}

/** How many existing test expectations the last original-test run found changed (0 when none ran). */
export function changedExpectationCount(findings: readonly TestFinding[]): number {
  const last = findings.filter((f) => f.kind === 'original').at(-1);
  return last?.kind === 'original' ? (last.original?.changedExpectations?.length ?? 0) : 0;
}
