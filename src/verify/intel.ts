/**
 * Test intelligence for one fix, assembled for the story (fix.ts): the test session
 * (structured runs, baseline differential, related tests first, flaky re-runs), the
 * test-integrity guard on each attempt, the concise feedback for the model, the
 * fail-to-pass proof, and the data the report renders.
 */
import type { FileChange, GitPort } from '../ports/git.js';
import type { CommandResult } from '../ports/shell.js';
import type { Redactor } from '../redact.js';
import type { Settings } from '../settings/types.js';
import type { Task } from '../task/types.js';
import type { TestIntel, TestRun, Verdict } from './types.js';
import {
  allowedCategories,
  checkTestIntegrity,
  INTEGRITY_CATEGORIES,
  parseUnifiedDiff,
  renderRefusal,
  type IntegrityCategory,
} from '../guard/test-integrity.js';
import { DEFAULT_FEEDBACK_TOKENS, packFeedback } from './feedback.js';
import { proveFailToPass } from './proof.js';
import { TestSession } from './session.js';

export interface IntelDeps {
  git: GitPort;
  task: Task;
  settings: Settings;
  redactor: Redactor;
  testCommand: string;
  detection?: string;
  baselineTree: string;
  exec: (command: string) => Promise<CommandResult>;
}

export interface Intel {
  session: TestSession;
  data: TestIntel;
  guard: (tree: string, changedFiles: string[]) => Promise<string | null>;
  feedback: (run: TestRun, verdict?: Verdict) => string;
  prove: (pristineTree: string, fixTree: string, changes: FileChange[], finalRun: TestRun | null) => Promise<void>;
  /** The guard on the change about to be published (pristine checkout -> fix): a refusal, or null. */
  guardPublished: (fromTree: string, toTree: string) => Promise<string | null>;
}

export function policyCategories(values: string[] | undefined): IntegrityCategory[] {
  const list = (values ?? []).map((v) => v.trim().toLowerCase()).filter(Boolean);
  if (list.includes('all')) return [...INTEGRITY_CATEGORIES];
  return INTEGRITY_CATEGORIES.filter((c) => list.includes(c));
}

export async function createTestIntel(deps: IntelDeps): Promise<Intel> {
  const { git, settings, task } = deps;
  const session = await TestSession.create({
    root: git.root,
    testCommand: deps.testCommand,
    exec: deps.exec,
    redactor: deps.redactor,
    relatedFirst: settings.relatedTestsFirst !== false,
    changedFiles: async () =>
      (await git.changes(deps.baselineTree, await git.snapshot())).filter((c) => c.status !== 'deleted').map((c) => c.path),
    listFiles: () => git.listFiles(),
  });
  const data: TestIntel = { runner: session.info.runner, commands: session.commands, refusals: [] };
  if (deps.detection) data.detection = deps.detection;
  const allowed = allowedCategories(policyCategories(settings.testIntegrityAllow), `${task.title}\n${task.goal}`);

  return {
    session,
    data,
    guard: async (tree, changedFiles) => {
      const files = parseUnifiedDiff(await git.diff(deps.baselineTree, tree)).filter(
        (f) => changedFiles.includes(f.path) || changedFiles.includes(f.oldPath),
      );
      const findings = checkTestIntegrity(files, allowed);
      if (findings.length === 0) return null;
      for (const f of findings) data.refusals.push(`[${f.category}] ${f.reason}`);
      return renderRefusal(findings);
    },
    feedback: (run, verdict) =>
      packFeedback(run, { baseline: session.baseline, verdict, budgetTokens: settings.feedbackTokens ?? DEFAULT_FEEDBACK_TOKENS }),
    guardPublished: async (fromTree, toTree) => {
      const findings = checkTestIntegrity(await git.diff(fromTree, toTree), allowed);
      return findings.length ? renderRefusal(findings) : null;
    },
    prove: async (pristineTree, fixTree, changes, finalRun) => {
      data.proof = await proveFailToPass({ git, session, pristineTree, fixTree, changes, finalRun, baselineRun: session.baseline });
    },
  };
}
