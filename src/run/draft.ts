/**
 * Whether the pull request opens as a draft: as the `draft` input says, and always when the fix
 * changed an existing test's expectation (verify/expectation.ts) unless the policy says
 * `gate.changed-expectations: ready`. Pure.
 */
import type { RunReport } from '../fix/types.js';
import type { Settings } from '../settings/types.js';

export function draftFor(settings: Pick<Settings, 'draft' | 'changedExpectations'>, report: Pick<RunReport, 'tests'>): boolean {
  if (settings.draft) return true;
  const changed = report.tests?.original?.changedExpectations?.length ?? 0;
  return changed > 0 && settings.changedExpectations !== 'ready';
}
