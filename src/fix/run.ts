/**
 * The run value every phase of the fix takes (fix.ts): the task, the plan, the ports, the
 * effective settings and where events go. Made once by `openRun`; the settings in it are the
 * only settings a phase can see, with what the plan raises (`continue budget=$N`) already applied.
 */
import type { Task } from '../task/types.js';
import type { Settings } from '../settings/types.js';
import type { Wording } from '../settings/wording.js';
import { ACTION_WORDING } from '../settings/wording.js';
import type { FixDeps, FixEvent } from './types.js';
import type { FixPlan } from './plan.js';
import type { ProgressSink } from './progress.js';

/** The ports and surfaces of the fix: everything of `FixDeps` but the settings (a run has one settings value, `Run.settings`). */
export type FixPorts = Omit<FixDeps, 'settings' | 'emit' | 'progress' | 'wording'>;

export interface Run {
  readonly task: Task;
  readonly plan: FixPlan;
  readonly ports: FixPorts;
  /** The effective settings of this run (the plan's raised cost cap applied): the only ones. */
  readonly settings: Settings;
  /** How messages name settings and what was not published. */
  readonly words: Wording;
  /** The transcript's events (loop events, repository commands). */
  readonly emit: (e: FixEvent) => void;
  /** What the run says while it works. */
  readonly progress: ProgressSink;
}

/** The settings of a run under its plan: a `continue budget=$N` raises (or sets) the cost cap. Pure. */
export function effectiveSettings(settings: Settings, plan: FixPlan): Settings {
  return plan.maxCostUsd ? { ...settings, budget: { ...settings.budget, maxCostUsd: plan.maxCostUsd } } : settings;
}

export function openRun(task: Task, deps: FixDeps, plan: FixPlan): Run {
  const { settings, emit, progress, wording, ...ports } = deps;
  return {
    task,
    plan,
    ports,
    settings: effectiveSettings(settings, plan),
    words: wording ?? ACTION_WORDING,
    emit: emit ?? (() => undefined),
    progress: progress ?? (() => undefined),
  };
}
