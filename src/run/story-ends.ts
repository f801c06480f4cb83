/**
 * How a story ends, as one value (`StoryEnd`) and one switch (`finish`): skipped or refused, a
 * yield to a newer run (or a `/agent-fix stop`), a cancellation, or the final report. Also the
 * stops the skeleton reports for every kind: a cancellation by signal and an error.
 */
import type { RunReport } from '../fix/types.js';
import { StickyComment } from '../publish/artifacts.js';
import { withClaim, type Takeover } from '../publish/claim.js';
import { renderFailureComment, renderLeftBehind } from '../report/failure.js';
import { commentMarker, renderStoppedSummary } from '../report/render.js';
import { errorMessage } from '../errors.js';
import type { Prepared, StoryResult, YieldPoint } from './kind.js';
import { claimed, doing, publishing, redactIn, takeover, type Story } from './story-context.js';

/** How long a cancellation waits for a comment, push or PR update under way before it reports. */
const CANCEL_SETTLE_MS = 2500;

export type StoryEnd =
  /** Refused or skipped before anything was published: the result is made. */
  | { kind: 'done'; result: StoryResult }
  /** A newer run took the task over, or a stop was asked: publish nothing more. */
  | { kind: 'yield'; prepared: Prepared; takeover: Takeover; when: YieldPoint; report?: RunReport; detail?: string }
  /** A signal arrived while the story worked: the handler owns the report. */
  | { kind: 'cancelled'; signal: NodeJS.Signals; report?: RunReport }
  /** The finished story: final comment, answer, summary, transcript. */
  | { kind: 'final'; prepared: Prepared; report: RunReport; bundlePath?: string };

/** The one switch over how the story ended. */
export async function finish(s: Story, end: StoryEnd): Promise<StoryResult> {
  switch (end.kind) {
    case 'done':
      return end.result;
    case 'yield':
      return yieldTo(s, end);
    case 'cancelled':
      return cancelledResult(s, end.signal, end.report);
    case 'final':
      return finalReport(s, end.prepared, end.report, end.bundlePath);
  }
}

/** Skipped by the kind (nothing to do): the kind's skip summary. */
export async function skipped(s: Story, reason: string): Promise<StoryResult> {
  const note = `agent-fix skipped: ${reason}`;
  s.world.log(note);
  const summary = s.kind.skipSummary?.(reason);
  if (summary && s.world.appendSummary) await s.world.appendSummary(redactIn(s)(summary));
  return { status: 'skipped', reason, note: redactIn(s)(note) };
}

function cancelledResult(s: Story, signal: NodeJS.Signals, report?: RunReport): StoryResult {
  const { trace } = s;
  return { status: 'error', reason: 'cancelled', error: `cancelled (${signal})`, branch: trace.pushed, prUrl: trace.prUrl, iterations: trace.iterations, report, transcriptPath: s.transcriptPath };
}

/** A stop (cancellation or error): the comment (claimed) and the summary say why and what exists. */
async function reportStop(s: Story, heading: 'Cancelled' | 'Error', why: string, summary: string): Promise<void> {
  const { trace, world } = s;
  const redact = redactIn(s);
  await trace.live?.stop();
  const destination = trace.prepared?.destination;
  // A push whose PR update did not happen may still have updated an existing PR of the branch.
  if (trace.pushed && !trace.prUrl && world.github && destination?.prBase) {
    trace.prUrl = (await world.github.findOpenPullRequest(trace.pushed, destination.prBase).catch(() => null))?.url;
  }
  const left = { pushedBranch: trace.pushed, prUrl: trace.prUrl, retryHint: destination?.retryHint };
  if (trace.comment && trace.marker) {
    const body = renderFailureComment({ marker: trace.marker, why, runUrl: world.runUrl, policy: world.settings.policySource, ...left });
    await trace.comment.set(claimed(s, redact(body))).catch((e: unknown) => world.log(`Could not update the comment: ${redact(errorMessage(e))}`));
  }
  await world.appendSummary?.(redact(renderStoppedSummary(heading, summary, renderLeftBehind(left)))).catch(() => undefined);
}

/** The SIGINT/SIGTERM handler's report: final and truthful about what exists by then. */
export async function onSignal(s: Story, signal: NodeJS.Signals): Promise<StoryResult> {
  s.trace.cancelled = signal;
  // A comment write, push or PR update under way lands (or not) before the report says what exists.
  await Promise.race([s.trace.busy, new Promise((resolve) => setTimeout(resolve, CANCEL_SETTLE_MS))]);
  const what = doing(s);
  const why = `the workflow run was cancelled or timed out (${signal}) before agent-fix finished${what ? ` ${what}` : ''}.`;
  s.world.warn?.(`agent-fix: ${why}`);
  await reportStop(s, 'Cancelled', why, `The agent-fix run was cancelled or timed out (${signal}) before it finished${what ? ` ${what}` : ''}.`);
  s.transcript.writeAfterError(s.transcriptPath, redactIn(s), `cancelled (${signal})`);
  return cancelledResult(s, signal);
}

/** An error thrown out of a step: the comment and the summary say what exists. */
export async function failed(s: Story, e: unknown): Promise<StoryResult> {
  const why = redactIn(s)(errorMessage(e));
  s.transcript.writeAfterError(s.transcriptPath, redactIn(s), why);
  if (!s.trace.cancelled) {
    const what = doing(s);
    const capital = what ? `${what[0].toUpperCase()}${what.slice(1)}` : 'The run';
    await reportStop(s, 'Error', what ? `${why} (while ${what})` : why, `${capital} stopped with an error: ${why}`);
  }
  const { trace } = s;
  return { status: 'error', reason: 'internal-error', error: why, thrown: e, branch: trace.pushed, prUrl: trace.prUrl, iterations: trace.iterations, transcriptPath: s.transcriptPath };
}

/** Stopped by `/agent-fix stop`: a final comment (keeping the stop run's claim) and summary say who stopped it and what exists. */
async function stopped(s: Story, p: Prepared, t: Takeover, when: YieldPoint | 'during the fix', report?: RunReport): Promise<StoryResult> {
  const { trace, world } = s;
  const redact = redactIn(s);
  const what = doing(s);
  const why = `stopped by @${t.stoppedBy} (\`/agent-fix stop\`) ${when}${what ? `, while ${what}` : ''}`;
  world.log(`agent-fix: ${why}.`);
  const left = renderLeftBehind({ pushedBranch: trace.pushed, prUrl: trace.prUrl, retryHint: p.destination.retryHint });
  if (world.github && p.destination.commentOn !== null) {
    const marker = commentMarker(p.task.key);
    trace.comment ??= new StickyComment(world.github, p.destination.commentOn, marker);
    const body = `${marker}\n**agent-fix** was ${why}.\n\n${left}\n${world.runUrl ? `\nSee the [workflow run](${world.runUrl}).\n` : ''}`;
    await publishing(s, trace.comment.set(withClaim(redact(body), t.by))).catch((e: unknown) => world.log(`Could not update the comment: ${redact(errorMessage(e))}`));
  }
  await world.appendSummary?.(redact(renderStoppedSummary('Cancelled', `The agent-fix run was ${why}.`, left))).catch(() => undefined);
  const final: RunReport | undefined = report ? { ...report, status: 'not-fixed', reason: 'stopped', detail: `The run was ${why}. ${left}` } : undefined;
  const written = final ? s.transcript.write(s.transcriptPath, redact, final) : undefined;
  return { status: 'not-fixed', reason: 'stopped', report: final, branch: trace.pushed, prUrl: trace.prUrl, iterations: report?.iterations, transcriptPath: written };
}

/** Yields to a newer run: publishes nothing, leaves the comment to it; the summary says so. A stop request instead ends with a final comment. */
async function yieldTo(s: Story, y: Extract<StoryEnd, { kind: 'yield' }>): Promise<StoryResult> {
  const { prepared: p, takeover: t, when, report, detail } = y;
  const { world } = s;
  const runId = world.runId;
  await s.trace.live?.stop();
  if (t.stoppedBy) return stopped(s, p, t, report?.reason === 'stopped' ? 'during the fix' : when, report);
  const by = t.by;
  world.log(detail ?? `A newer agent-fix run (${by.id}, attempt ${by.attempt}) has taken over this task; this run${runId ? ` (${runId.id}, attempt ${runId.attempt})` : ''} yields ${when} and publishes nothing.`);
  const written = report ? s.transcript.write(s.transcriptPath, redactIn(s), { ...report, status: 'skipped', reason: 'superseded', ...(detail ? { detail } : {}) }) : undefined;
  await world.appendSummary?.(redactIn(s)(p.texts.superseded({ by, mine: runId, when, report, detail })));
  return { status: 'skipped', reason: 'superseded', iterations: report?.iterations, transcriptPath: written, report };
}

/** The end of a finished story: the final comment, the answer where the request was made, the summary, the transcript, the result. */
async function finalReport(s: Story, prepared: Prepared, report: RunReport, bundlePath: string | undefined): Promise<StoryResult> {
  const { destination, texts } = prepared;
  const { trace, world } = s;
  const redact = redactIn(s);
  await trace.live?.stop();
  // A stop that arrived while the fix was being delivered: the final comment says what exists.
  const late = trace.pushed ? await takeover(s, prepared, { commentOnly: true }).catch(() => null) : null;
  if (late?.stoppedBy) world.log(`@${late.stoppedBy} asked to stop this run after it had pushed ${trace.pushed}.`);
  const lateNote = late?.stoppedBy ? `\n\n> ⏹ @${late.stoppedBy} asked to stop this run (\`/agent-fix stop\`) after it had already pushed \`${trace.pushed}\`; what it published is left as it is.\n` : '';
  if (trace.comment) await publishing(s, trace.comment.set(late?.stoppedBy ? withClaim(redact(texts.final(report) + lateNote), late.by) : claimed(s, redact(texts.final(report)))));
  if (destination.answer) await publishing(s, destination.answer(report)).catch((e: unknown) => world.log(`Could not answer where the request was made: ${redact(errorMessage(e))}`));
  const summary = texts.summary(report);
  if (summary && world.appendSummary) await world.appendSummary(redact(summary));
  const written = s.transcript.write(s.transcriptPath, redact, report);
  world.log(`agent-fix: ${report.status} (${report.reason}). ${report.detail}`);
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
