/**
 * Report-only handling of a skipped `workflow_run`: the step summary says why it was skipped.
 * For a run of a fork's pull request (untrusted code, never checked out or run) it also shows
 * the failure as the API tells it: failed jobs and steps, failing tests, the log excerpt. Only
 * API reads; nothing is pushed, commented or run.
 */
import type { CiGitHubPort } from '../ports/ci.js';
import type { CiTrigger } from '../trigger/types.js';
import { fenceBlock } from '../task/sanitize.js';
import { collectCiFailure } from '../ci/context.js';
import { renderCiSection, renderCiSkipSummary } from '../report/ci.js';
import { parseWorkflowRun } from '../trigger/workflow-run.js';
import { errorMessage } from '../errors.js';

type Obj = Record<string, any>;
const obj = (v: unknown): Obj | undefined => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);

/** The failed run of a fork's code in a workflow_run payload, read as a trigger; null for anything else. */
export function forkRun(payload: unknown): CiTrigger | null {
  const p = obj(payload);
  const run = obj(p?.workflow_run);
  const repo = obj(p?.repository)?.full_name;
  const headRepo = obj(run?.head_repository)?.full_name;
  if (!p || !run || typeof repo !== 'string' || typeof headRepo !== 'string' || headRepo.toLowerCase() === repo.toLowerCase()) return null;
  const t = parseWorkflowRun({ ...p, workflow_run: { ...run, head_repository: { full_name: repo } } });
  return t.kind === 'ci' ? t : null;
}

export async function ciSkipReport(payload: unknown, reason: string, github: () => CiGitHubPort, repoName: string): Promise<string> {
  const runUrl = obj(obj(payload)?.workflow_run)?.html_url;
  const head = renderCiSkipSummary(reason, typeof runUrl === 'string' ? runUrl : undefined);
  const fork = forkRun(payload);
  if (!fork) return head;
  try {
    const c = await collectCiFailure(github(), fork, { repoName });
    if (c.kind === 'skip') return `${head}\n${c.reason}\n`;
    const f = c.failure;
    return `${head}\n**Report only** (nothing was checked out, run or changed):\n\n${renderCiSection(f, { baseline: null, final: null })}\n\n<details><summary>What the failed jobs' logs show</summary>\n\n${fenceBlock(f.context)}\n\n</details>\n`;
  } catch (e) {
    return `${head}\n(The failure could not be read from the API: ${errorMessage(e)})\n`;
  }
}
