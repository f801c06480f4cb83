/**
 * The propose kind (input `mode: propose`): the issue or CI-repair story up to a finished fix,
 * then a bundle (bundle/write.ts) instead of a push. It wraps the trigger's own kind: the task,
 * the workspace and the CI reproduction check are that kind's; what changes is the destination.
 *
 * - No write call to GitHub: no sticky comment (`commentOn: null`), no claim, no push, no pull
 *   request. The job's token may have `contents: read` only (and `models: read`).
 * - Every finished fix is bundled, verified or not: an unverified run's bundle carries its
 *   evidence (best attempt, status, reason), so the publish job can report it when no candidate
 *   is verified.
 * - The bundle goes to `<outDir>/candidate-<id>/` (output `bundle-path` = outDir, to upload with
 *   actions/upload-artifact).
 */
import type { PatchGit } from '../ports/patch.js';
import type { Sampling } from '../bundle/candidate.js';
import { bundleDirName, writeBundle } from '../bundle/write.js';
import type { StoryKind } from './kind.js';

export interface ProposeOptions {
  candidate: { id: string } & Sampling;
  /** Where the bundle is written (the directory the workflow uploads). */
  outDir: string;
  /** Opens isolated patch operations on the checkout's object store (adapters/patch.ts). */
  openPatches: (root: string) => Promise<PatchGit & { dispose(): Promise<void> }>;
}

export function proposeKind(inner: StoryKind, o: ProposeOptions): StoryKind {
  const bundleNote = (status: string) =>
    `**Bundle**: candidate \`${o.candidate.id}\` (${status}) written to \`${o.outDir}/${bundleDirName(o.candidate.id)}\`. ` +
    'This job made no write to GitHub; the publish job validates the bundles of all candidates and publishes the best verified one.';
  return {
    name: `propose (${inner.name})`,
    actor: inner.actor,
    minPermission: inner.minPermission,
    transcript: inner.transcript,
    doing: () => inner.doing?.(),
    skipSummary: inner.skipSummary ? (reason) => inner.skipSummary!(reason) : undefined,
    async prepare(world) {
      const prepared = await inner.prepare(world);
      if ('skip' in prepared) return prepared;
      const { git, texts } = prepared;
      return {
        ...prepared,
        destination: {
          commentOn: null,
          retryHint: prepared.destination.retryHint,
          deliverEveryOutcome: true,
          async deliver(fix) {
            const patches = await o.openPatches(git.root);
            try {
              const written = await writeBundle({ fix, candidate: o.candidate, settings: world.settings, redactor: world.redactor, patches, outDir: o.outDir });
              world.log(`Bundle of candidate ${o.candidate.id} (${written.manifest.evidence.status}, ${written.manifest.patch.bytes} patch bytes) written to ${written.dir}`);
              return { kind: 'bundle', path: written.root, candidate: o.candidate.id };
            } finally {
              await patches.dispose();
            }
          },
        },
        texts: {
          ...texts,
          summary: (report) => {
            const inner = texts.summary(report);
            const status = report.status === 'fixed' ? 'verified' : `not verified: ${report.reason}`;
            return `${inner ? `${inner.replace(/\s+$/, '')}\n\n` : ''}${bundleNote(status)}\n`;
          },
        },
      };
    },
  };
}
