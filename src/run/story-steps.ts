/**
 * The named steps of the story (run/story.ts), each with a typed result: authorize, open the
 * sticky comment, fix, keep the best attempt of a budget stop, deliver. A delivery's kind is read
 * once (`readDelivery`): the report after it, the publish phase's line, what now exists.
 */
import type { RunReport } from '../fix/types.js';
import { runFix, type FixDeps, type FixResult } from '../fix.js';
import { authorizeByPolicy } from '../policy/authorize.js';
import { StickyComment } from '../publish/artifacts.js';
import type { Takeover } from '../publish/claim.js';
import type { Delivered } from '../publish/deliver.js';
import { commentMarker } from '../report/render.js';
import type { PhaseState, ProgressEvent } from '../fix/progress.js';
import { applyProgress, EMPTY_CHECKLIST, renderChecklist, type Checklist } from '../report/progress.js';
import { errorMessage } from '../errors.js';
import type { Prepared, StoryResult } from './kind.js';
import { LiveComment, PROGRESS_INTERVAL_MS } from './live-comment.js';
import { claimed, publishing, redactIn, takeover, type Story } from './story-context.js';

/** Inside the agent loop, the claim is re-read before a model request at most this often (and before every attempt). */
const CLAIM_POLL_MS = 20_000;

/** Where progress events go: the entry, and the sticky comment's checklist for phases. */
export type Tell = (e: ProgressEvent) => void;

/** Who asked is authorized once, by the policy; a refusal ends the story as skipped. */
export async function authorize(s: Story): Promise<StoryResult | null> {
  const { kind, world } = s;
  if (kind.actor === null) return null;
  if (!world.github || !world.policy) throw new Error(`the ${kind.name} story needs the GitHub API and the policy to authorize @${kind.actor}`);
  const auth = await authorizeByPolicy(world.github, kind.actor, world.policy, { atLeast: kind.minPermission });
  if (auth.ok) {
    world.log(`Authorized: ${auth.via}`);
    return null;
  }
  const note = `agent-fix refused the trigger: ${auth.reason}`;
  world.log(note);
  const summary = kind.skipSummary?.(`the run was triggered by someone agent-fix does not act for: ${auth.reason}`);
  if (summary && world.appendSummary) await world.appendSummary(redactIn(s)(summary));
  return { status: 'skipped', reason: 'unauthorized', note: redactIn(s)(note) };
}

/** The sticky comment (claimed) with its live checklist; returns where progress events go. */
export async function openComment(s: Story, prepared: Prepared): Promise<Tell> {
  const { task, destination, texts } = prepared;
  const { trace, world } = s;
  let checklist: Checklist = EMPTY_CHECKLIST;
  if (world.github && destination.commentOn !== null) {
    trace.marker = commentMarker(task.key);
    const comment = new StickyComment(world.github, destination.commentOn, trace.marker);
    trace.comment = comment;
    await publishing(s, comment.set(claimed(s, texts.start(world.runUrl))));
    // Each update first reads the comment: once a newer run claimed it or a stop request is in it,
    // the checklist never overwrites that (the checkpoints and the final write act on it).
    const live = new LiveComment(
      async (body) => {
        if (await takeover(s, prepared, { commentOnly: true }).catch(() => null)) return false;
        await comment.set(body);
        return true;
      },
      world.progressIntervalMs ?? PROGRESS_INTERVAL_MS,
      world.log,
    );
    live.wrote();
    trace.live = live;
  }
  return (e) => {
    world.progress?.(e);
    if (!trace.live || e.type === 'waiting') return;
    checklist = applyProgress(checklist, e, Date.now());
    if (e.type === 'phase') trace.live.show(claimed(s, redactIn(s)(`${texts.start(world.runUrl).trimEnd()}\n\n${renderChecklist(checklist, Date.now())}\n`)));
  };
}

/**
 * The loop's checkpoint (at each attempt, read while its tests run, and before a model request at most every
 * CLAIM_POLL_MS): why to stop now, or null. Once taken over, always taken over; an API error
 * is not a reason to stop (the checkpoint before publishing reads the claim again).
 */
function checkpointOf(s: Story, p: Prepared): NonNullable<FixDeps['checkpoint']> {
  let last = Number.NEGATIVE_INFINITY;
  let seen: Takeover | null = null;
  return async (at) => {
    if (!seen && (at === 'attempt' || Date.now() - last >= CLAIM_POLL_MS)) {
      last = Date.now();
      // the comment only: one API read (destination.newerRun may fetch a branch)
      seen = await takeover(s, p, { commentOnly: true }).catch(() => null);
    }
    if (!seen) return null;
    return seen.stoppedBy ? `@${seen.stoppedBy} asked to stop this run (\`/agent-fix stop\`)` : `a newer agent-fix run (${seen.by.id}, attempt ${seen.by.attempt}) took the task over`;
  };
}

/** The fix of the prepared task: the pipeline over the kind's plan (or the kind's own fix step), and what the kind makes of its result. */
export async function fixWith(s: Story, prepared: Prepared, tell: Tell): Promise<FixResult> {
  const { world } = s;
  const deps: FixDeps = {
    git: prepared.git,
    shell: world.shell,
    model: world.makeModel(),
    settings: world.settings,
    redactor: world.redactor,
    parentEnv: world.parentEnv,
    log: world.log,
    emit: s.transcript.add,
    sandbox: world.sandbox,
    scripted: world.scripted,
    progress: tell,
    wording: world.wording,
    checkpoint: checkpointOf(s, prepared),
  };
  const done = prepared.fix ? await prepared.fix(deps) : await runFix(prepared.task, deps, prepared.plan);
  return prepared.revise ? prepared.revise(done) : done;
}

/** A run that stopped on its budget: its best attempt kept for `/agent-fix continue` where the destination keeps it; the report says where. */
export async function keepBest(s: Story, prepared: Prepared, done: FixResult, report: RunReport): Promise<RunReport> {
  const { destination } = prepared;
  if (report.status === 'fixed' || !done.bestAttempt || !destination.keep) return report;
  const kept = await publishing(s, destination.keep(done, { claim: s.world.runId })).catch((e: unknown) => {
    s.world.log(`Could not keep the best attempt: ${redactIn(s)(errorMessage(e))}`);
    return null;
  });
  return kept ? { ...report, keptAttempt: kept } : report;
}

/** What a delivery means, read once: the report after it, the publish phase's state and line, what now exists. */
export interface DeliveryRead {
  report: RunReport;
  state: PhaseState;
  line: string;
  prUrl?: string;
  bundlePath?: string;
  /** A newer run pushed the branch in the meantime: the story yields. */
  superseded?: Extract<Delivered, { kind: 'superseded' }>;
}

/** The one switch over a delivery's kind. Pure. */
export function readDelivery(report: RunReport, d: Delivered): DeliveryRead {
  const firstLine = (detail: string) => detail.split('\n')[0];
  switch (d.kind) {
    case 'pull-request':
      return { report: { ...report, branch: d.branch, headSha: d.sha, prOperation: d.pr, prNumber: d.prNumber, prUrl: d.prUrl }, state: 'done', line: `pull request #${d.prNumber} ${d.pr} from ${d.branch}`, prUrl: d.prUrl };
    case 'local-branch':
      return { report: { ...report, branch: d.branch, headSha: d.sha }, state: 'done', line: `local branch ${d.branch}` };
    case 'bundle':
      return { report, state: 'done', line: `bundle of candidate ${d.candidate} written to ${d.path}`, bundlePath: d.path };
    case 'superseded':
      return { report: { ...report, status: 'skipped', reason: 'superseded', detail: d.detail }, state: 'failed', line: firstLine(d.detail), superseded: d };
    case 'human-commits':
      return { report: { ...report, status: 'not-fixed', reason: 'human-commits-on-branch', detail: d.detail }, state: 'failed', line: firstLine(d.detail) };
    case 'rejected':
      return { report: { ...report, status: 'error', reason: 'push-rejected', detail: d.detail }, state: 'failed', line: firstLine(d.detail) };
  }
}

/** The report after delivery: a new value, the fix's report left as it was. Pure. */
export function withDelivery(report: RunReport, d: Delivered): RunReport {
  return readDelivery(report, d).report;
}

/** The result of the deliver step: nothing to publish, published (the report after it), or a newer run seen at the push. */
export type Delivery = { published: false; report: RunReport } | { published: true; read: DeliveryRead };

/** Publishes a verified fix (or every outcome, where the destination takes them). */
export async function deliver(s: Story, prepared: Prepared, done: FixResult, report: RunReport, tell: Tell): Promise<Delivery> {
  const { destination } = prepared;
  // A change that games the tests is published too, as a draft never called fixed (run/draft.ts).
  if (!(((report.status === 'fixed' || report.reason === 'games-the-tests') && done.tree) || destination.deliverEveryOutcome)) {
    tell({ type: 'phase', phase: { kind: 'publish' }, state: 'skipped', detail: `nothing to publish (${report.reason})` });
    return { published: false, report };
  }
  tell({ type: 'phase', phase: { kind: 'publish' }, state: 'running' });
  const onPushed = (branch: string) => {
    s.trace.pushed = branch;
  };
  const read = readDelivery(report, await publishing(s, destination.deliver(done, { claim: s.world.runId, onPushed })));
  if (read.prUrl) s.trace.prUrl = read.prUrl;
  if (!read.superseded) tell({ type: 'phase', phase: { kind: 'publish' }, state: read.state, detail: read.line });
  return { published: true, read };
}
