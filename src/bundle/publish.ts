/**
 * The publish side in one call, before delivery: read and check every bundle, pick the
 * candidate, and make the report to deliver. The report is the chosen bundle's evidence with
 * publish's own task (from its event, never from a bundle) and the change as measured here
 * (files and diff of base + the applied patch), so every renderer tells what is actually
 * pushed. Delivery (leased push, PR, comment, summary, outputs) is the caller's, as in `run`.
 * Runs nothing of the repository.
 */
import type { GitPort } from '../ports/git.js';
import type { PatchGit } from '../ports/patch.js';
import type { Redactor } from '../redact.js';
import type { RunReport } from '../fix/types.js';
import type { Settings } from '../settings/types.js';
import type { Task } from '../task/types.js';
import { allowedCategories } from '../guard/test-integrity.js';
import { policyCategories } from '../verify/intel.js';
import { GITHUB_BODY_LIMIT, renderReportMarkdown } from '../report/render.js';
import { publishProtections, readBundles, type BundleExpectation } from './read.js';
import { renderCandidates, selectBundle, type Selection } from './select.js';
import { redactDeep } from './write.js';
import type { BundleLimits } from './schema.js';

export interface PublicationInput {
  bundlesDir: string;
  task: Task;
  /** The commit this job checked out; every bundle must be based on it. */
  baseSha: string;
  settings: Settings;
  git: GitPort;
  patches: PatchGit;
  redactor: Redactor;
  limits?: BundleLimits;
}

export type Publication =
  | {
      kind: 'publish';
      selection: Selection;
      /** The winner's report (status fixed). */
      report: RunReport;
      tree: string;
      candidatesMarkdown: string;
    }
  | {
      kind: 'none-verified';
      selection: Selection;
      /** The best attempt's report (not fixed); nothing is to be pushed. */
      report: RunReport;
      candidatesMarkdown: string;
    }
  | {
      kind: 'no-valid-bundle';
      selection: Selection;
      /** Why: no bundle found, or every one refused (each reason listed). */
      detail: string;
      candidatesMarkdown: string;
    };

export async function preparePublication(p: PublicationInput): Promise<Publication> {
  const expect: BundleExpectation = {
    taskKey: p.task.key,
    baseSha: p.baseSha,
    protectedPaths: await publishProtections(p.settings, p.git.root),
    maxChangedFiles: p.settings.maxChangedFiles,
    maxChangedLines: p.settings.maxChangedLines,
    integrityAllowed: allowedCategories(policyCategories(p.settings.testIntegrityAllow), `${p.task.title}\n${p.task.goal}`),
    ...(p.limits ? { limits: p.limits } : {}),
  };
  const selection = selectBundle(await readBundles(p.bundlesDir, expect, p.patches));
  const candidatesMarkdown = p.redactor.redact(renderCandidates(selection));
  const chosen = selection.winner ?? selection.best;
  if (!chosen) {
    const detail =
      selection.refused.length === 0
        ? `No bundle was found under ${p.bundlesDir}: did the propose jobs upload their \`bundle-path\`, and did this job download them there (actions/download-artifact with merge-multiple: true)? Nothing was published.`
        : `None of the ${selection.refused.length} bundle(s) could be used (each reason below); nothing was published.`;
    return { kind: 'no-valid-bundle', selection, detail, candidatesMarkdown };
  }
  const evidence = redactDeep(chosen.manifest.evidence, p.redactor);
  const baseTree = `${p.baseSha}^{tree}`;
  if (selection.winner && chosen.tree) {
    const report: RunReport = {
      ...evidence,
      task: p.task,
      changes: await p.git.changes(baseTree, chosen.tree),
      diff: p.redactor.redact(await p.git.diff(baseTree, chosen.tree)),
      detail: `${evidence.detail} (Candidate \`${chosen.manifest.candidate.id}\` of ${selection.lines.length}; its evidence comes from its propose job.)`,
    };
    return { kind: 'publish', selection, report, tree: chosen.tree, candidatesMarkdown };
  }
  const detail = `No candidate produced a verified fix, so nothing was published. The best attempt was candidate \`${chosen.manifest.candidate.id}\`: ${evidence.detail}`;
  const report: RunReport = { ...evidence, task: p.task, changes: [], diff: '', detail };
  return { kind: 'none-verified', selection, report, candidatesMarkdown };
}

/** The full markdown of a publication: the report, then one line per candidate. */
export function renderPublication(pub: Publication): string {
  if (pub.kind === 'no-valid-bundle') return [`### agent-fix: Error`, pub.detail, pub.candidatesMarkdown].filter(Boolean).join('\n\n');
  // the report's folded parts give way so that report + candidates stay under GitHub's body limit
  const limit = GITHUB_BODY_LIMIT - 2_000 - pub.candidatesMarkdown.length;
  return [renderReportMarkdown(pub.report, { diff: false, limit }), pub.candidatesMarkdown].filter(Boolean).join('\n\n');
}
