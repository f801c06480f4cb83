/**
 * The fix's fifth phase, the publishable change: exactly the files the model wrote (and a start's
 * files), on top of the checkout as it was; the test-integrity guard once more on exactly that,
 * and no secret in it.
 */
import type { FileChange } from '../ports/git.js';
import type { GamingFinding, TestProof } from '../verify/types.js';
import type { TestFinding } from '../verify/intel.js';
import { madeByModel } from './plan.js';
import type { Run } from './run.js';
import type { Workbench } from './workbench.js';
import type { Baseline } from './baseline.js';
import type { Context } from './context.js';
import type { Loop } from './loop.js';
import { composeChange } from './compose.js';
import { stop, type Stop } from './stop.js';
import { gamingKinds } from '../guard/gaming/index.js';

export interface Change {
  /** The tree to publish: HEAD's tree plus the change. */
  tree: string;
  /** The checkout as it was plus the change (the working tree after this phase). */
  workTree: string;
  changes: FileChange[];
  /** The change as a diff, redacted. */
  diff: string;
  /** The redactor changed the diff: the change carries a secret of this run. */
  carriesSecret: boolean;
  /** The accepted attempt's proof, made in the loop: the report's (one proof, made once). */
  proof?: TestProof;
  /** What this phase found about the tests: the change's comment-only hunks, the accepted attempt's proof. */
  findings: TestFinding[];
}

/** What the guards said of exactly what would be published: the change's gaming (for the report), and why it may not be published. */
export interface Checked {
  gaming: GamingFinding[];
  findings: TestFinding[];
  refusal: Stop | null;
}

export async function publishableChange(run: Run, bench: Workbench, b: Baseline, ctx: Context, { output: loop }: Loop): Promise<Change> {
  const { plan } = run;
  const { git, redactor } = run.ports;
  // Publish exactly the files the model wrote, on top of the checkout as it was: whatever setup
  // or the test runs left in the working tree stays out of the change.
  // The published tree is HEAD's tree plus those files: untracked files that earlier workflow
  // steps left in the checkout (build output, a credentials file such as gha-creds-*.json) are
  // never published. Proof and guard look at the same change on top of the checkout as it was.
  const published = [...new Set([...ctx.startFiles, ...loop.touched])];
  const workTree = await composeChange(git, bench.pristineTree, published);
  const baseTree = `${bench.baseSha}^{tree}`;
  const tree = await composeChange(git, baseTree, published);
  await git.restore(workTree);
  const changes = await git.changes(baseTree, tree);
  const rawDiff = await git.diff(baseTree, tree);
  const diff = redactor.redact(rawDiff);
  const proof = loop.reason === 'verified' ? loop.attempts[loop.attempts.length - 1]?.proof : undefined;
  // A candidate or a start other than the checkout (a rebase) carries the base's own changes: the test-integrity guard judges the model's edits, not those.
  const hunks = loop.reason === 'verified' && madeByModel(plan) ? await b.intel.flagComments(bench.pristineTree, workTree, changes) : [];
  await b.intel.session.dispose();
  const findings: TestFinding[] = [{ kind: 'comment-only', hunks }, ...(proof ? [{ kind: 'proof' as const, proof }] : [])];
  return { tree, workTree, changes, diff, carriesSecret: diff !== rawDiff, ...(proof ? { proof } : {}), findings };
}

/** Why the change may not be published whatever the loop says: the guard on exactly what would be published, a secret in it. */
export async function checkChange(run: Run, bench: Workbench, b: Baseline, { output: loop, cleared }: Loop, change: Change): Promise<Checked> {
  const { plan, words } = run;
  const checked = (gaming: GamingFinding[], refusal: Stop | null): Checked => ({ gaming, findings: [{ kind: 'gaming', found: gaming }], refusal });
  const refusal = loop.reason === 'verified' && madeByModel(plan) ? await b.intel.guardPublished(bench.pristineTree, change.workTree, cleared) : null;
  if (refusal) return checked([], stop('not-fixed', 'tests-still-failing', `The test-integrity guard refused the change; ${words.nothingPublished}.\n${refusal}`));
  // A change that games the tests (guard/gaming/): recorded for the report; refused outright where the policy says so.
  const gaming = loop.reason === 'verified' && madeByModel(plan) ? await b.intel.gamingPublished(bench.pristineTree, change.workTree) : [];
  if (gaming.length && b.intel.gamingPolicy === 'refuse') {
    return checked(gaming, stop('not-fixed', 'games-the-tests', `The tests pass, but the change games them instead of fixing the code, (${gamingKinds(gaming)}), and the repository policy refuses such a change (gate.gaming: refuse); ${words.nothingPublished}.`));
  }
  // Defense in depth: a change that carries a secret (in any encoding the redactor knows) is never published.
  if (change.carriesSecret) return checked(gaming, stop('not-fixed', 'secret-in-change', 'The change contains a secret value (a token or key of this run, possibly encoded); it was not published.'));
  return checked(gaming, null);
}
