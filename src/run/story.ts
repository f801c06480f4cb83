/**
 * The one story every trigger goes through (the kinds say what differs, run/kind.ts):
 *
 *   authorize once → prepare (task, workspace) → yield to a newer run? → sticky comment (claimed)
 *   → fix → yield to a newer run? → deliver → final comment, step summary, transcript → result
 *
 * Outcomes are values: runFix returns the fix's report, delivery returns `Delivered`, and the
 * final report is made from both (`withDelivery`); the story returns a `StoryResult` that the
 * entry writes as outputs once. Run safety is the skeleton's, the same for every kind: a claim
 * in the comment and on the commit, yielding to a newer run, and on SIGINT/SIGTERM or an error a
 * final, truthful comment and summary saying what exists by then.
 */
import type { RunReport } from '../fix/types.js';
import { runFix, type FixDeps, type FixResult } from '../fix.js';
import { authorizeByPolicy } from '../policy/authorize.js';
import { StickyComment } from '../publish/artifacts.js';
import { takenOver, withClaim, type Takeover } from '../publish/claim.js';
import type { Delivered } from '../publish/deliver.js';
import { renderFailureComment, renderLeftBehind } from '../report/failure.js';
import { commentMarker, renderStoppedSummary } from '../report/render.js';
import { Transcript } from '../transcript.js';
import type { Prepared, StoryKind, StoryResult, StoryWorld, YieldPoint } from './kind.js';
import type { ProgressEvent } from '../fix/progress.js';
import { applyProgress, EMPTY_CHECKLIST, renderChecklist, type Checklist } from '../report/progress.js';
import { LiveComment, PROGRESS_INTERVAL_MS } from './live-comment.js';
import { errorMessage } from '../errors.js';

/** How long a cancellation waits for a comment, push or PR update under way before it reports. */
const CANCEL_SETTLE_MS = 2500;
/** Inside the agent loop, the claim is re-read before a model request at most this often (and before every attempt). */
const CLAIM_POLL_MS = 20_000;

/** The report after delivery: a new value, the fix's report left as it was. Pure. */
export function withDelivery(report: RunReport, d: Delivered): RunReport {
  switch (d.kind) {
    case 'pull-request':
      return { ...report, branch: d.branch, headSha: d.sha, prOperation: d.pr, prNumber: d.prNumber, prUrl: d.prUrl };
    case 'local-branch':
      return { ...report, branch: d.branch, headSha: d.sha };
    case 'bundle':
      return report;
    case 'superseded':
      return { ...report, status: 'skipped', reason: 'superseded', detail: d.detail };
    case 'human-commits':
      return { ...report, status: 'not-fixed', reason: 'human-commits-on-branch', detail: d.detail };
    case 'rejected':
      return { ...report, status: 'error', reason: 'push-rejected', detail: d.detail };
  }
}


/** What the story has done so far: what a cancellation or an error must report truthfully. */
interface Progress {
  prepared?: Prepared;
  comment?: StickyComment;
  marker?: string;
  /** The branch, once pushed by this run. */
  pushed?: string;
  prUrl?: string;
  iterations?: number;
  /** The comment write, push or PR update under way, if any. */
  busy: Promise<unknown>;
  cancelled: NodeJS.Signals | null;
  /** The sticky comment's live checklist while the run works. */
  live?: LiveComment;
}

/** One line for the publish phase. */
function deliveredLine(d: Delivered): string {
  switch (d.kind) {
    case 'pull-request':
      return `pull request #${d.prNumber} ${d.pr} from ${d.branch}`;
    case 'local-branch':
      return `local branch ${d.branch}`;
    case 'bundle':
      return `bundle of candidate ${d.candidate} written to ${d.path}`;
    default:
      return d.detail.split('\n')[0];
  }
}

export async function runStory(kind: StoryKind, world: StoryWorld): Promise<StoryResult> {
  const { github, redactor, log, runId } = world;
  const redact = (t: string) => redactor.redact(t);
  const claim = (body: string) => (runId ? withClaim(body, runId) : body);
  const transcript = new Transcript(kind.transcript.meta);
  const transcriptPath = kind.transcript.path;
  const progress: Progress = { busy: Promise.resolve(), cancelled: null };
  const doing = () => kind.doing?.();

  /** Runs a publication step so that a cancellation waits for it instead of contradicting it. */
  const publishing = <T>(step: Promise<T>): Promise<T> => {
    progress.busy = step.catch(() => undefined);
    return step;
  };
  const skipped = async (reason: string): Promise<StoryResult> => {
    const note = `agent-fix skipped: ${reason}`;
    log(note);
    const summary = kind.skipSummary?.(reason);
    if (summary && world.appendSummary) await world.appendSummary(redact(summary));
    return { status: 'skipped', reason, note: redact(note) };
  };
  /** A stop (cancellation or error): the comment (claimed) and the summary say why and what exists. */
  const reportStop = async (heading: 'Cancelled' | 'Error', why: string, summary: string): Promise<void> => {
    await progress.live?.stop();
    const destination = progress.prepared?.destination;
    // A push whose PR update did not happen may still have updated an existing PR of the branch.
    if (progress.pushed && !progress.prUrl && github && destination?.prBase) {
      progress.prUrl = (await github.findOpenPullRequest(progress.pushed, destination.prBase).catch(() => null))?.url;
    }
    const left = { pushedBranch: progress.pushed, prUrl: progress.prUrl, retryHint: destination?.retryHint };
    if (progress.comment && progress.marker) {
      const body = renderFailureComment({ marker: progress.marker, why, runUrl: world.runUrl, policy: world.settings.policySource, ...left });
      await progress.comment.set(claim(redact(body))).catch((e: unknown) => log(`Could not update the comment: ${redact(errorMessage(e))}`));
    }
    await world.appendSummary?.(redact(renderStoppedSummary(heading, summary, renderLeftBehind(left)))).catch(() => undefined);
  };
  const cancelledResult = (signal: NodeJS.Signals, report?: RunReport): StoryResult => ({
    status: 'error',
    reason: 'cancelled',
    error: `cancelled (${signal})`,
    branch: progress.pushed,
    prUrl: progress.prUrl,
    iterations: progress.iterations,
    report,
    transcriptPath,
  });

  const dispose = world.onCancel?.(async (signal) => {
    progress.cancelled = signal;
    // A comment write, push or PR update under way lands (or not) before the report says what exists.
    await Promise.race([progress.busy, new Promise((resolve) => setTimeout(resolve, CANCEL_SETTLE_MS))]);
    const what = doing();
    const why = `the workflow run was cancelled or timed out (${signal}) before agent-fix finished${what ? ` ${what}` : ''}.`;
    world.warn?.(`agent-fix: ${why}`);
    await reportStop('Cancelled', why, `The agent-fix run was cancelled or timed out (${signal}) before it finished${what ? ` ${what}` : ''}.`);
    transcript.writeAfterError(transcriptPath, redact, `cancelled (${signal})`);
    return cancelledResult(signal);
  });

  /** A newer run that took this task over (its claim in the comment, or what the destination sees), or a `/agent-fix stop`. */
  const takeover = async (p: Prepared, o: { commentOnly?: boolean } = {}): Promise<Takeover | null> => {
    if (!runId) return null;
    const marker = commentMarker(p.task.key);
    const inComment = github && p.destination.commentOn !== null ? await takenOver(github, p.destination.commentOn, marker, runId) : null;
    if (inComment || o.commentOnly) return inComment;
    const by = await p.destination.newerRun?.(runId);
    return by ? { by } : null;
  };
  /** Stopped by `/agent-fix stop`: a final comment (keeping the stop run's claim) and summary say who stopped it and what exists. */
  const stopped = async (p: Prepared, t: Takeover, when: YieldPoint | 'during the fix', report?: RunReport): Promise<StoryResult> => {
    const what = doing();
    const why = `stopped by @${t.stoppedBy} (\`/agent-fix stop\`) ${when}${what ? `, while ${what}` : ''}`;
    log(`agent-fix: ${why}.`);
    const left = renderLeftBehind({ pushedBranch: progress.pushed, prUrl: progress.prUrl, retryHint: p.destination.retryHint });
    if (github && p.destination.commentOn !== null) {
      const marker = commentMarker(p.task.key);
      progress.comment ??= new StickyComment(github, p.destination.commentOn, marker);
      const body = `${marker}\n**agent-fix** was ${why}.\n\n${left}\n${world.runUrl ? `\nSee the [workflow run](${world.runUrl}).\n` : ''}`;
      await publishing(progress.comment.set(withClaim(redact(body), t.by))).catch((e: unknown) => log(`Could not update the comment: ${redact(errorMessage(e))}`));
    }
    await world.appendSummary?.(redact(renderStoppedSummary('Cancelled', `The agent-fix run was ${why}.`, left))).catch(() => undefined);
    const final: RunReport | undefined = report ? { ...report, status: 'not-fixed', reason: 'stopped', detail: `The run was ${why}. ${left}` } : undefined;
    const written = final ? transcript.write(transcriptPath, redact, final) : undefined;
    return { status: 'not-fixed', reason: 'stopped', report: final, branch: progress.pushed, prUrl: progress.prUrl, iterations: report?.iterations, transcriptPath: written };
  };
  /** Yields to a newer run: publishes nothing, leaves the comment to it; the summary says so. A stop request instead ends with a final comment. */
  const yieldTo = async (p: Prepared, t: Takeover, when: YieldPoint, report?: RunReport, detail?: string): Promise<StoryResult> => {
    await progress.live?.stop();
    if (t.stoppedBy) return stopped(p, t, report?.reason === 'stopped' ? 'during the fix' : when, report);
    const by = t.by;
    log(detail ?? `A newer agent-fix run (${by.id}, attempt ${by.attempt}) has taken over this task; this run${runId ? ` (${runId.id}, attempt ${runId.attempt})` : ''} yields ${when} and publishes nothing.`);
    const written = report ? transcript.write(transcriptPath, redact, { ...report, status: 'skipped', reason: 'superseded', ...(detail ? { detail } : {}) }) : undefined;
    await world.appendSummary?.(redact(p.texts.superseded({ by, mine: runId, when, report, detail })));
    return { status: 'skipped', reason: 'superseded', iterations: report?.iterations, transcriptPath: written, report };
  };
  /**
   * The loop's checkpoint (at each attempt, read while its tests run, and before a model request at most every
   * CLAIM_POLL_MS): why to stop now, or null. Once taken over, always taken over; an API error
   * is not a reason to stop (the checkpoint before publishing reads the claim again).
   */
  const checkpointOf = (p: Prepared) => {
    let last = Number.NEGATIVE_INFINITY;
    let seen: Takeover | null = null;
    return async (at: 'turn' | 'attempt'): Promise<string | null> => {
      if (!seen && (at === 'attempt' || Date.now() - last >= CLAIM_POLL_MS)) {
        last = Date.now();
        // the comment only: one API read (destination.newerRun may fetch a branch)
        seen = await takeover(p, { commentOnly: true }).catch(() => null);
      }
      if (!seen) return null;
      return seen.stoppedBy ? `@${seen.stoppedBy} asked to stop this run (\`/agent-fix stop\`)` : `a newer agent-fix run (${seen.by.id}, attempt ${seen.by.attempt}) took the task over`;
    };
  };

  /** Who asked is authorized once, by the policy; a refusal ends the story as skipped. */
  async function authorize(): Promise<StoryResult | null> {
    if (kind.actor !== null) {
      if (!github || !world.policy) throw new Error(`the ${kind.name} story needs the GitHub API and the policy to authorize @${kind.actor}`);
      const auth = await authorizeByPolicy(github, kind.actor, world.policy, { atLeast: kind.minPermission });
      if (!auth.ok) {
        const note = `agent-fix refused the trigger: ${auth.reason}`;
        log(note);
        const summary = kind.skipSummary?.(`the run was triggered by someone agent-fix does not act for: ${auth.reason}`);
        if (summary && world.appendSummary) await world.appendSummary(redact(summary));
        return { status: 'skipped', reason: 'unauthorized', note: redact(note) };
      }
      log(`Authorized: ${auth.via}`);
    }
    return null;
  }

  /** The sticky comment (claimed) with its live checklist; returns where progress events go: the entry, and the checklist for phases. */
  async function openComment(prepared: Prepared): Promise<(e: ProgressEvent) => void> {
    const { task, destination, texts } = prepared;
    let checklist: Checklist = EMPTY_CHECKLIST;
    if (github && destination.commentOn !== null) {
      progress.marker = commentMarker(task.key);
      const comment = new StickyComment(github, destination.commentOn, progress.marker);
      progress.comment = comment;
      await publishing(comment.set(claim(texts.start(world.runUrl))));
      // Each update first reads the comment: once a newer run claimed it or a stop request is in it,
      // the checklist never overwrites that (the checkpoints and the final write act on it).
      const live = new LiveComment(
        async (body) => {
          if (await takeover(prepared, { commentOnly: true }).catch(() => null)) return false;
          await comment.set(body);
          return true;
        },
        world.progressIntervalMs ?? PROGRESS_INTERVAL_MS,
        log,
      );
      live.wrote();
      progress.live = live;
    }
    /** Every progress event goes to the entry; phases also update the comment's checklist. */
    const tell = (e: ProgressEvent): void => {
      world.progress?.(e);
      if (!progress.live || e.type === 'waiting') return;
      checklist = applyProgress(checklist, e, Date.now());
      if (e.type === 'phase') progress.live.show(claim(redact(`${texts.start(world.runUrl).trimEnd()}\n\n${renderChecklist(checklist, Date.now())}\n`)));
    };
    return tell;
  }

  /** The end of a finished story: the final comment, the answer where the request was made, the summary, the transcript, the result. */
  async function finalReport(prepared: Prepared, report: RunReport): Promise<StoryResult> {
    const { destination, texts } = prepared;
    await progress.live?.stop();
    // A stop that arrived while the fix was being delivered: the final comment says what exists.
    const late = progress.pushed ? await takeover(prepared, { commentOnly: true }).catch(() => null) : null;
    if (late?.stoppedBy) log(`@${late.stoppedBy} asked to stop this run after it had pushed ${progress.pushed}.`);
    const lateNote = late?.stoppedBy ? `\n\n> ⏹ @${late.stoppedBy} asked to stop this run (\`/agent-fix stop\`) after it had already pushed \`${progress.pushed}\`; what it published is left as it is.\n` : '';
    if (progress.comment) await publishing(progress.comment.set(late?.stoppedBy ? withClaim(redact(texts.final(report) + lateNote), late.by) : claim(redact(texts.final(report)))));
    if (destination.answer) await publishing(destination.answer(report)).catch((e: unknown) => log(`Could not answer where the request was made: ${redact(errorMessage(e))}`));
    const summary = texts.summary(report);
    if (summary && world.appendSummary) await world.appendSummary(redact(summary));
    const written = transcript.write(transcriptPath, redact, report);
    log(`agent-fix: ${report.status} (${report.reason}). ${report.detail}`);
    return {
      status: report.status,
      reason: report.reason,
      report,
      branch: report.branch,
      prNumber: report.prNumber,
      prUrl: report.prUrl,
      iterations: report.iterations,
      transcriptPath: written,
      ...(bundlePath ? { bundlePath } : {}),
      ...(report.status === 'error' ? { error: report.detail } : {}),
    };
  }

  /** The fix of the prepared task: the pipeline over the kind's plan (or the kind's own fix step), and what the kind makes of its result. */
  async function fixWith(prepared: Prepared, tell: (e: ProgressEvent) => void): Promise<FixResult> {
    const { task, git } = prepared;
    const deps: FixDeps = {
      git,
      shell: world.shell,
      model: world.makeModel(),
      settings: world.settings,
      redactor,
      parentEnv: world.parentEnv,
      log,
      emit: transcript.add,
      sandbox: world.sandbox,
      scripted: world.scripted,
      progress: tell,
      wording: world.wording,
      checkpoint: checkpointOf(prepared),
    };
    const done = prepared.fix ? await prepared.fix(deps) : await runFix(task, deps, prepared.plan);
    return prepared.revise ? prepared.revise(done) : done;
  }

  /** A run that stopped on its budget: its best attempt kept for `/agent-fix continue` where the destination keeps it; the report says where. */
  async function keepBest(destination: Prepared['destination'], done: FixResult, report: RunReport): Promise<RunReport> {
    if (report.status === 'fixed' || !done.bestAttempt || !destination.keep) return report;
    const kept = await publishing(destination.keep(done, { claim: runId })).catch((e: unknown) => {
      log(`Could not keep the best attempt: ${redact(errorMessage(e))}`);
      return null;
    });
    return kept ? { ...report, keptAttempt: kept } : report;
  }

  /** Publishes a verified fix (or every outcome, where the destination takes them) and says so; a newer run seen at the push: the story yields. */
  async function deliverFix(prepared: Prepared, done: FixResult, report: RunReport, tell: (e: ProgressEvent) => void): Promise<{ report: RunReport } | { yielded: StoryResult }> {
    const { destination } = prepared;
    // A change that games the tests is published too, as a draft never called fixed (run/draft.ts).
    if (!(((report.status === 'fixed' || report.reason === 'games-the-tests') && done.tree) || destination.deliverEveryOutcome)) {
      tell({ type: 'phase', phase: { kind: 'publish' }, state: 'skipped', detail: `nothing to publish (${report.reason})` });
      return { report };
    }
    tell({ type: 'phase', phase: { kind: 'publish' }, state: 'running' });
    const onPushed = (branch: string) => {
      progress.pushed = branch;
    };
    const delivered = await publishing(destination.deliver(done, { claim: runId, onPushed }));
    if (delivered.kind === 'pull-request') progress.prUrl = delivered.prUrl;
    if (delivered.kind === 'bundle') bundlePath = delivered.path;
    // A newer run pushed the branch in the meantime (seen on the very tip the leased push would replace).
    if (delivered.kind === 'superseded') return { yielded: await yieldTo(prepared, { by: delivered.by }, 'at push', report, delivered.detail) };
    tell({ type: 'phase', phase: { kind: 'publish' }, state: delivered.kind === 'pull-request' || delivered.kind === 'local-branch' || delivered.kind === 'bundle' ? 'done' : 'failed', detail: deliveredLine(delivered) });
    return { report: withDelivery(report, delivered) };
  }


  let fix: FixResult | null = null;
  let bundlePath: string | undefined;
  try {
    const refused = await authorize();
    if (refused) return refused;

    const prepared = await kind.prepare(world);
    if ('skip' in prepared) return await skipped(prepared.skip);
    progress.prepared = prepared;
    const { destination } = prepared;

    const early = await takeover(prepared);
    if (early) return await yieldTo(prepared, early, 'before starting');
    const tell = await openComment(prepared);

    fix = await fixWith(prepared, tell);
    let report: RunReport = world.runUrl ? { ...fix.report, runUrl: world.runUrl } : fix.report;
    progress.iterations = report.iterations;
    // After a cancellation the handler owns the report: the story stops without publishing anything.
    if (progress.cancelled) return cancelledResult(progress.cancelled, report);

    try {
      const newer = await takeover(prepared);
      if (newer) return await yieldTo(prepared, newer, 'before publishing', report);
      if (progress.cancelled) return cancelledResult(progress.cancelled, report);
      report = await keepBest(destination, fix, report);
      const delivered = await deliverFix(prepared, fix, report, tell);
      if ('yielded' in delivered) return delivered.yielded;
      report = delivered.report;
    } finally {
      await destination.release?.(fix);
    }
    if (progress.cancelled) return cancelledResult(progress.cancelled, report);

    return await finalReport(prepared, report);
  } catch (e) {
    const why = redact(errorMessage(e));
    transcript.writeAfterError(transcriptPath, redact, why);
    if (!progress.cancelled) {
      const what = doing();
      const capital = what ? `${what[0].toUpperCase()}${what.slice(1)}` : 'The run';
      await reportStop('Error', what ? `${why} (while ${what})` : why, `${capital} stopped with an error: ${why}`);
    }
    return { status: 'error', reason: 'internal-error', error: why, thrown: e, branch: progress.pushed, prUrl: progress.prUrl, iterations: progress.iterations, transcriptPath };
  } finally {
    await progress.live?.stop();
    dispose?.();
  }
}
