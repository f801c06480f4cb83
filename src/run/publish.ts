/**
 * The publish kind (input `mode: publish`): the bundles of the propose jobs in, today's delivery
 * out, and nothing of the repository executed in between.
 *
 *   the trigger's own kind prepares (task from this job's event, checkout; CI: the failed commit)
 *   → fix step = read every bundle under `bundles` as untrusted input, pick the best verified one
 *     (bundle/publish.ts preparePublication: schema, sizes, task and base, protected paths,
 *     escapes, symlinks, diff limits, test integrity; the patch applied on a private index)
 *   → verified: the trigger kind's delivery (leased push of agent-fix/<task>, create-or-update
 *     PR, sticky comment, summary, outputs), the report naming the winner and listing every
 *     candidate in one line
 *   → none verified: the comment gets the best attempt's report; no push, no PR
 *   → no usable bundle: an error saying why (each refusal listed); nothing pushed.
 *
 * It never runs the repository's code: no setup, no test command, no model (the world's model
 * is never asked), git with hooks and filter drivers disabled (adapters/git.ts, adapters/patch.ts).
 */
import type { PatchGit } from '../ports/patch.js';
import type { FixResult } from '../fix.js';
import type { RunReport } from '../fix/types.js';
import { preparePublication, type Publication } from '../bundle/publish.js';
import { commentMarker } from '../report/render.js';
import type { StoryKind } from './kind.js';

export interface PublishOptions {
  /** The directory the propose jobs' bundles were downloaded to. */
  bundlesDir: string;
  openPatches: (root: string) => Promise<PatchGit & { dispose(): Promise<void> }>;
  /**
   * Set to the candidates section (one line each) once the bundles are read; the trigger's kind
   * was built with `appendix: () => candidates.markdown`, so its PR body, final comment and step
   * summary end with it.
   */
  candidates: { markdown: string };
}

export function publishKind(inner: StoryKind, o: PublishOptions): StoryKind {
  return {
    name: `publish (${inner.name})`,
    actor: inner.actor,
    minPermission: inner.minPermission,
    transcript: inner.transcript,
    doing: () => `publishing the best candidate${inner.doing?.() ? ` (${inner.doing()})` : ''}`,
    skipSummary: inner.skipSummary ? (reason) => inner.skipSummary!(reason) : undefined,
    async prepare(world) {
      const prepared = await inner.prepare(world);
      if ('skip' in prepared) return prepared;
      const { task, git } = prepared;
      const fix = async (): Promise<FixResult> => {
        const baseSha = await git.headSha();
        const patches = await o.openPatches(git.root);
        let pub: Publication;
        try {
          pub = await preparePublication({ bundlesDir: o.bundlesDir, task, baseSha, settings: world.settings, git, patches, redactor: world.redactor });
        } finally {
          await patches.dispose();
        }
        o.candidates.markdown = pub.candidatesMarkdown;
        for (const line of pub.selection.lines) world.log(`candidate: ${line.text}`);
        const baseTree = `${baseSha}^{tree}`;
        if (pub.kind === 'publish') return { report: pub.report, tree: pub.tree, baseSha, pristineTree: baseTree };
        if (pub.kind === 'none-verified') return { report: pub.report, tree: null, baseSha, pristineTree: baseTree };
        return { report: noBundleReport(task, pub.detail, world.settings.model, world.settings.maxIterations), tree: null, baseSha, pristineTree: baseTree };
      };
      const start = (runUrl?: string) =>
        `${commentMarker(task.key)}\n**agent-fix** is publishing${runUrl ? ` ([run](${runUrl}))` : ''}: checking the bundles of the propose jobs and picking the best verified candidate. This job runs none of the repository's code. This comment will be updated with the outcome.\n`;
      // The plan is the propose jobs' business: publish runs no baseline and no loop.
      return { ...prepared, plan: undefined, revise: undefined, fix, texts: { ...prepared.texts, start } };
    },
  };
}

/** The report of a publish job that found no bundle it could use: an error, nothing published. */
function noBundleReport(task: RunReport['task'], detail: string, model: string, maxIterations: number): RunReport {
  return {
    status: 'error',
    reason: 'not-applicable',
    detail,
    task,
    model,
    setupCommand: null,
    testCommand: null,
    baseline: null,
    final: null,
    summary: '',
    iterations: 0,
    maxIterations,
    attempts: [],
    changes: [],
    diff: '',
    usage: { promptTokens: 0, completionTokens: 0, requests: 0 },
    durationMs: 0,
  };
}
