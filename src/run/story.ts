/**
 * The one story every trigger goes through (the kinds say what differs, run/kind.ts):
 *
 *   authorize once → prepare (task, workspace) → yield to a newer run? → sticky comment (claimed)
 *   → fix → yield to a newer run? → deliver → final comment, step summary, transcript → result
 *
 * Outcomes are values: runFix returns the fix's report, delivery returns `Delivered`, read once
 * (run/story-steps.ts `readDelivery`), and the final report is made from both; every way the
 * story ends is a `StoryEnd` (run/story-ends.ts), turned into the `StoryResult` by one switch
 * (`finish`), which the entry writes as outputs once. The steps are named functions of
 * run/story-steps.ts over one `Story` (run/story-context.ts: the kind, the world, the transcript,
 * and the trace of what exists, which a cancellation reads). Run safety is the skeleton's, the same for every kind: a claim
 * in the comment and on the commit, yielding to a newer run, and on SIGINT/SIGTERM or an error a
 * final, truthful comment and summary saying what exists by then.
 */
import type { RunReport } from '../fix/types.js';
import type { FixResult } from '../fix.js';
import type { Prepared, StoryKind, StoryResult, StoryWorld } from './kind.js';
import { openStory, takeover, type Story } from './story-context.js';
import { failed, finish, onSignal, skipped, type StoryEnd } from './story-ends.js';
import { authorize, deliver, fixWith, keepBest, openComment, type Tell } from './story-steps.js';

export { withDelivery } from './story-steps.js';

export async function runStory(kind: StoryKind, world: StoryWorld): Promise<StoryResult> {
  const s = openStory(kind, world);
  const dispose = world.onCancel?.((signal) => onSignal(s, signal));
  try {
    return await finish(s, await steps(s));
  } catch (e) {
    return await failed(s, e);
  } finally {
    await s.trace.live?.stop();
    dispose?.();
  }
}

/** The story, step by step: each step's result decides the next; every way it ends is a `StoryEnd`. */
async function steps(s: Story): Promise<StoryEnd> {
  const refused = await authorize(s);
  if (refused) return { kind: 'done', result: refused };

  const prepared = await s.kind.prepare(s.world);
  if ('skip' in prepared) return { kind: 'done', result: await skipped(s, prepared.skip) };
  s.trace.prepared = prepared;

  const early = await takeover(s, prepared);
  if (early) return { kind: 'yield', prepared, takeover: early, when: 'before starting' };
  const progress = await openComment(s, prepared);

  const fix = await fixWith(s, prepared, progress);
  const report: RunReport = s.world.runUrl ? { ...fix.report, runUrl: s.world.runUrl } : fix.report;
  s.trace.iterations = report.iterations;
  // After a cancellation the handler owns the report: the story stops without publishing anything.
  if (s.trace.cancelled) return { kind: 'cancelled', signal: s.trace.cancelled, report };

  const published = await publish(s, prepared, fix, report, progress);
  if (published.kind === 'final' && s.trace.cancelled) return { kind: 'cancelled', signal: s.trace.cancelled, report: published.report };
  return published;
}

/** After the fix: yield to a newer run, keep the best attempt of a budget stop, deliver; the destination is released whatever happens. */
async function publish(s: Story, prepared: Prepared, fix: FixResult, fixed: RunReport, progress: Tell): Promise<StoryEnd> {
  try {
    const newer = await takeover(s, prepared);
    if (newer) return { kind: 'yield', prepared, takeover: newer, when: 'before publishing', report: fixed };
    if (s.trace.cancelled) return { kind: 'cancelled', signal: s.trace.cancelled, report: fixed };
    const report = await keepBest(s, prepared, fix, fixed);
    const delivery = await deliver(s, prepared, fix, report, progress);
    if (!delivery.published) return { kind: 'final', prepared, report: delivery.report };
    const { read } = delivery;
    // A newer run pushed the branch in the meantime (seen on the very tip the leased push would replace).
    if (read.superseded) return { kind: 'yield', prepared, takeover: { by: read.superseded.by }, when: 'at push', report, detail: read.superseded.detail };
    return { kind: 'final', prepared, report: read.report, ...(read.bundlePath ? { bundlePath: read.bundlePath } : {}) };
  } finally {
    await prepared.destination.release?.(fix);
  }
}
