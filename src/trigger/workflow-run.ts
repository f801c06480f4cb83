/**
 * `workflow_run` payload -> a `ci` trigger, or a skip with a one-sentence reason. Pure; the
 * payload is untrusted JSON, read defensively (a malformed payload is a skip, never a throw).
 *
 * Skipped, and why:
 * - an action other than `completed`, or a conclusion other than `failure` (success,
 *   cancelled, timed_out, skipped...: nothing to repair, or nothing a code change repairs);
 * - a workflow not named in the `workflows` input (when it is set);
 * - a run without a branch (tags, detached runs): there is no branch to target;
 * - a run on one of agent-fix's own `agent-fix/*` branches: no fix-the-fix loops;
 * - a run of code from another repository (a pull request from a fork): untrusted code is
 *   never checked out and run with the repository's token; report only;
 * - a head sha that is not a full commit id.
 * Whether the triggering actor may write is checked later, against the API (authorize.ts).
 */
import type { CiTrigger, Trigger } from './types.js';
import type { WorkflowRunData } from '../ports/ci.js';
import { BRANCH_PREFIX } from '../publish/branch.js';

type Obj = Record<string, any>;

function obj(v: unknown): Obj | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined;
}
function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}
function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

const skip = (reason: string): Trigger => ({ kind: 'skip', reason });

/** Is `name` one of `workflows` (exact, case-sensitive, like GitHub's own `workflows:` filter)? Empty list: all. */
export function workflowSelected(name: string, workflows: string[] | undefined): boolean {
  if (!workflows || workflows.length === 0) return true;
  return workflows.includes(name);
}

export function parseWorkflowRun(payload: Obj, opts: { workflows?: string[]; repository?: string } = {}): Trigger {
  const action = str(payload.action) ?? '(none)';
  if (action !== 'completed') return skip(`workflow_run action "${action}" is not handled (agent-fix repairs completed runs that failed).`);
  const run = obj(payload.workflow_run);
  if (!run) return skip('the workflow_run payload has no workflow_run.');
  const runId = positiveInt(run.id);
  if (runId === undefined) return skip('the workflow_run payload has no run id.');
  const name = str(run.name) ?? str(obj(payload.workflow)?.name) ?? '';
  const conclusion = str(run.conclusion) ?? 'none';
  if (conclusion !== 'failure') {
    return skip(`workflow run ${runId} ("${name}") concluded "${conclusion}", not "failure": nothing to repair.`);
  }
  if (!workflowSelected(name, opts.workflows)) {
    return skip(`workflow "${name}" is not in the \`workflows\` input (${(opts.workflows ?? []).map((w) => `"${w}"`).join(', ')}).`);
  }
  const headBranch = str(run.head_branch) ?? '';
  if (headBranch.trim() === '') return skip(`workflow run ${runId} has no branch (a tag or a detached run): there is no branch to fix.`);
  if (headBranch.startsWith(BRANCH_PREFIX)) {
    return skip(`workflow run ${runId} ran on ${headBranch}, one of agent-fix's own branches: agent-fix never repairs its own fixes (no fix-the-fix loops).`);
  }
  const repoName = str(obj(payload.repository)?.full_name) ?? str(obj(run.repository)?.full_name) ?? opts.repository ?? '';
  const headRepo = str(obj(run.head_repository)?.full_name);
  if (!headRepo || !repoName || headRepo.toLowerCase() !== repoName.toLowerCase()) {
    return skip(
      headRepo
        ? `workflow run ${runId} ran code from ${headRepo}, a fork of ${repoName || 'this repository'} (untrusted code): agent-fix reports the failure but never checks out and runs a fork's code with this repository's token.`
        : `workflow run ${runId} does not say which repository its code came from: treated as untrusted and skipped.`,
    );
  }
  const headSha = str(run.head_sha) ?? '';
  if (!/^[0-9a-f]{40}$/i.test(headSha)) return skip(`workflow run ${runId} has no valid head sha.`);
  const actor = str(obj(run.triggering_actor)?.login) ?? str(obj(run.actor)?.login) ?? str(obj(payload.sender)?.login) ?? '';
  const pullRequests: CiTrigger['pullRequests'] = [];
  for (const p of Array.isArray(run.pull_requests) ? run.pull_requests : []) {
    const pr = obj(p);
    const number = positiveInt(pr?.number);
    const headRef = str(obj(pr?.head)?.ref);
    const baseRef = str(obj(pr?.base)?.ref);
    // Only pull requests whose head is this repository's branch (GitHub lists only those, but check).
    const prHeadRepo = str(obj(obj(pr?.head)?.repo)?.name);
    if (number && headRef && headRef === headBranch && (prHeadRepo === undefined || repoName.endsWith(`/${prHeadRepo}`))) {
      pullRequests.push({ number, headRef, baseRef: baseRef ?? '' });
    }
  }
  return {
    kind: 'ci',
    runId,
    runAttempt: positiveInt(run.run_attempt) ?? 1,
    workflowName: name,
    workflowId: positiveInt(run.workflow_id) ?? null,
    headSha: headSha.toLowerCase(),
    headBranch,
    event: str(run.event) ?? '',
    actor,
    runUrl: str(run.html_url) ?? '',
    runNumber: positiveInt(run.run_number) ?? null,
    pullRequests,
    createdAt: str(run.created_at) ?? '',
  };
}

/**
 * workflow_dispatch with a `run-id` input: repair that failed run by hand. Only the run id and
 * who asked are known here; `resolveDispatchedRun` reads the rest from the API and applies the
 * same guards as the event (failure, own branch, fork, sha). The person who dispatched is the
 * actor whose permission counts (dispatching needs write access anyway).
 */
export function parseCiDispatch(raw: unknown, sender: string): Trigger {
  const text = String(raw).trim().replace(/^.*\/actions\/runs\/(\d+).*$/, '$1');
  const runId = /^\d+$/.test(text) ? Number(text) : NaN;
  if (!Number.isSafeInteger(runId) || runId <= 0) {
    return skip(`workflow_dispatch input "run-id" must be the id (or the URL) of a workflow run (got ${JSON.stringify(String(raw).slice(0, 60))}).`);
  }
  return { kind: 'ci', runId, runAttempt: 1, workflowName: '', workflowId: null, headSha: '', headBranch: '', event: '', actor: sender, runUrl: '', runNumber: null, pullRequests: [], createdAt: '', dispatched: true };
}

/** The dispatched run as the API tells it, through the event's guards; the dispatcher stays the actor. */
export function resolveDispatchedRun(run: WorkflowRunData, dispatcher: string, repository: string): Trigger {
  const t = parseWorkflowRun(
    {
      action: 'completed',
      workflow_run: {
        id: run.id,
        name: run.name,
        head_branch: run.headBranch,
        head_sha: run.headSha,
        run_number: run.runNumber ?? undefined,
        run_attempt: run.runAttempt,
        event: run.event,
        conclusion: run.status === 'completed' ? run.conclusion : run.status,
        workflow_id: run.workflowId ?? undefined,
        html_url: run.url,
        created_at: run.createdAt,
        // the run's pull requests are those whose head is its branch
        pull_requests: run.pullRequests.map((number) => ({ number, head: { ref: run.headBranch } })),
        head_repository: run.headRepository ? { full_name: run.headRepository } : null,
      },
      repository: { full_name: repository },
    },
    {},
  );
  return t.kind === 'ci' ? { ...t, actor: dispatcher, dispatched: true } : t;
}
