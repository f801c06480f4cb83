/**
 * The action's modes around a kind (input `mode`): `run` as it is; `propose` writes a bundle
 * instead of publishing (run/propose.ts); `publish` picks the best verified bundle and publishes
 * it, asking no model (run/publish.ts).
 */
import path from 'node:path';
import type { ChatModel } from '../ports/llm.js';
import type { Mode, Settings } from '../settings/types.js';
import type { PatchGit } from '../ports/patch.js';
import { candidateSampling } from '../bundle/candidate.js';
import type { StoryKind } from './kind.js';
import { proposeKind } from './propose.js';
import { publishKind } from './publish.js';

export type { Mode } from '../settings/types.js';

export interface ModeOptions {
  settings: Settings;
  /** The checkout (GITHUB_WORKSPACE): relative bundle paths start there. */
  workspace: string;
  /** RUNNER_TEMP or the system's: where a propose job writes its bundle by default. */
  tempDir: string;
  openPatches: (root: string) => Promise<PatchGit & { dispose(): Promise<void> }>;
  /** publish: the candidates' lines, filled in by the publish kind and appended to the trigger kind's texts. */
  candidates: { markdown: string };
}

export function kindForMode(kind: StoryKind, mode: Mode, o: ModeOptions): StoryKind {
  const { settings } = o;
  if (mode === 'propose') {
    const outDir = path.resolve(o.workspace, settings.bundles ?? path.join(o.tempDir, 'agent-fix-bundle'));
    return proposeKind(kind, { candidate: { id: settings.candidate ?? 'default', ...candidateSampling(settings.candidate) }, outDir, openPatches: o.openPatches });
  }
  if (mode === 'publish') return publishKind(kind, { bundlesDir: path.resolve(o.workspace, settings.bundles as string), openPatches: o.openPatches, candidates: o.candidates });
  return kind;
}

/** publish asks no model: one that is never called, and says so if it were. */
export function noModel(model: string): ChatModel {
  return {
    model,
    complete: () => Promise.reject(new Error('internal error: mode publish asked the model (it never should)')),
  };
}
