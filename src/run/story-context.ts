/**
 * What every step of the story (run/story.ts) works with: the kind and the world, the transcript,
 * and the trace of what the run has done so far (what a cancellation or an error must report
 * truthfully). The trace is the story's only record that changes while it runs: it says what
 * exists on GitHub (a comment, a pushed branch, a pull request), which a signal handler reads.
 */
import { StickyComment } from '../publish/artifacts.js';
import { takenOver, withClaim, type Takeover } from '../publish/claim.js';
import { commentMarker } from '../report/render.js';
import { Transcript } from '../transcript.js';
import type { Prepared, StoryKind, StoryWorld } from './kind.js';
import type { LiveComment } from './live-comment.js';

/** What the story has done so far: what a cancellation or an error must report truthfully. */
export interface Trace {
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

export interface Story {
  readonly kind: StoryKind;
  readonly world: StoryWorld;
  readonly transcript: Transcript;
  readonly transcriptPath: string;
  readonly trace: Trace;
}

export function openStory(kind: StoryKind, world: StoryWorld): Story {
  return { kind, world, transcript: new Transcript(kind.transcript.meta), transcriptPath: kind.transcript.path, trace: { busy: Promise.resolve(), cancelled: null } };
}

export const redactIn = (s: Story) => (t: string) => s.world.redactor.redact(t);

/** The comment body with this run's claim (none without a run id). */
export function claimed(s: Story, body: string): string {
  return s.world.runId ? withClaim(body, s.world.runId) : body;
}

/** Runs a publication step so that a cancellation waits for it instead of contradicting it. */
export function publishing<T>(s: Story, step: Promise<T>): Promise<T> {
  s.trace.busy = step.catch(() => undefined);
  return step;
}

/** What the kind is doing, for stop reports ("repairing the failed run"). */
export const doing = (s: Story): string | undefined => s.kind.doing?.();

/** A newer run that took this task over (its claim in the comment, or what the destination sees), or a `/agent-fix stop`. */
export async function takeover(s: Story, p: Prepared, o: { commentOnly?: boolean } = {}): Promise<Takeover | null> {
  const { github, runId } = s.world;
  if (!runId) return null;
  const marker = commentMarker(p.task.key);
  const inComment = github && p.destination.commentOn !== null ? await takenOver(github, p.destination.commentOn, marker, runId) : null;
  if (inComment || o.commentOnly) return inComment;
  const by = await p.destination.newerRun?.(runId);
  return by ? { by } : null;
}
