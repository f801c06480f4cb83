/**
 * Whether the pull request opens as a draft: as the `draft` input says, and always when the fix
 * changed an existing test's expectation (verify/expectation.ts) unless the policy says
 * `gate.changed-expectations: ready`; and always when the change games the tests (guard/gaming/). Pure.
 */
import type { RunReport } from '../fix/types.js';
import type { Settings } from '../settings/types.js';

export function draftFor(settings: Pick<Settings, 'draft' | 'changedExpectations'>, report: Pick<RunReport, 'tests'> & Partial<Pick<RunReport, 'reason'>>): boolean {
  if (settings.draft) return true;
  // A change that games the tests is a draft whatever the inputs say (guard/gaming/).
  if (report.reason === 'games-the-tests' || report.tests?.gaming?.length) return true;
  const changed = report.tests?.original?.changedExpectations?.length ?? 0;
  return changed > 0 && settings.changedExpectations !== 'ready';
}
