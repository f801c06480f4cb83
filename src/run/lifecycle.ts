/**
 * Lifecycle commands: `/agent-fix stop` (run/stop.ts) and an issue closed (run/issue-closed.ts).
 * They change the state of other runs and pull requests; they fix nothing, so they need neither
 * the model nor a checkout, and they do not go through the fix story (story.ts). The skeleton
 * here is the story's first step and last: authorize the actor once, act, write the step summary.
 * They end with status `skipped` (nothing was fixed); the reason and the summary say what was done.
 */
import type { Permission } from '../ports/github.js';
import { authorizeByPolicy } from '../policy/authorize.js';
import { renderStoppedSummary } from '../report/render.js';
import type { StoryResult, StoryWorld } from './kind.js';
import { errorMessage } from '../errors.js';

export interface LifecycleKind {
  readonly name: string;
  /** Who asked (the commenter, the user who closed the issue); authorized before anything is done. */
  readonly actor: string;
  readonly minPermission: Permission;
  /** The step summary when the actor is refused: what was left as it was. */
  refused(reason: string): string;
  /** Does it; returns what happened (`reason`: a short code, `note`: one sentence) and the summary it wrote. */
  act(world: StoryWorld): Promise<LifecycleOutcome>;
}

export interface LifecycleOutcome {
  reason: string;
  note: string;
  summary: string;
  prNumber?: number;
  prUrl?: string;
  branch?: string;
}


export async function runLifecycle(kind: LifecycleKind, world: StoryWorld): Promise<StoryResult> {
  const { github, policy, log } = world;
  const redact = (t: string) => world.redactor.redact(t);
  const summarize = async (md: string) => world.appendSummary?.(redact(md)).catch((e: unknown) => log(`Could not write the step summary: ${redact(errorMessage(e))}`));
  try {
    if (!github || !policy) throw new Error(`${kind.name} needs the GitHub API and the policy to authorize @${kind.actor}`);
    const auth = await authorizeByPolicy(github, kind.actor, policy, { atLeast: kind.minPermission });
    if (!auth.ok) {
      const note = `agent-fix refused the trigger: ${auth.reason}`;
      log(note);
      await summarize(kind.refused(auth.reason));
      return { status: 'skipped', reason: 'unauthorized', note: redact(note) };
    }
    log(`Authorized: ${auth.via}`);
    const done = await kind.act(world);
    log(`agent-fix ${kind.name}: ${done.note}`);
    await summarize(done.summary);
    return { status: 'skipped', reason: done.reason, note: redact(done.note), prNumber: done.prNumber, prUrl: done.prUrl, branch: done.branch };
  } catch (e) {
    const why = redact(errorMessage(e));
    await summarize(renderStoppedSummary('Error', `${kind.name} stopped with an error: ${why}`, 'See the job log above for what was done before it stopped.'));
    return { status: 'error', reason: 'internal-error', error: why, thrown: e };
  }
}
