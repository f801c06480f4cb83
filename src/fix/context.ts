/**
 * The fix's third phase, the context: where the model starts (the checkout, a start tree, an
 * earlier attempt), what it may not touch, what it sees first (the repository map and the
 * likely places), its tools, and the type and lint feedback after its edits.
 */
import type { GitPort } from '../ports/git.js';
import type { Task } from '../task/types.js';
import type { TestRun } from '../verify/types.js';
import type { LoopStart } from '../agent/loop.js';
import { ToolBox } from '../agent/tools.js';
import { prepareContext, type RepoContext } from '../context/index.js';
import { createDiagnostics, type DiagnosticsWatcher } from '../diagnostics/watch.js';
import { allowListAsProtected } from '../policy/apply.js';
import { repoStateProtections } from '../workspace/repo-state.js';
import { errorMessage } from '../errors.js';
import type { GateRule } from '../verify/compare.js';
import type { FixEvent } from './types.js';
import type { FixPlan } from './plan.js';
import type { Run } from './run.js';
import type { Workbench } from './workbench.js';
import type { Baseline } from './baseline.js';
import { changedPaths, composeChange } from './compose.js';

export interface Context {
  /** Files of a start other than the checkout: they belong to the published change. */
  startFiles: string[];
  /** The tree the model's attempts roll back to. */
  loopTree: string;
  /** `/agent-fix continue`: the earlier attempt the loop resumes from, tested once. */
  start?: LoopStart;
  repoContext: RepoContext | null;
  tools: ToolBox;
  diagnostics: DiagnosticsWatcher | null;
}

export async function prepareFixContext(run: Run, bench: Workbench, b: Baseline, gate: GateRule): Promise<Context> {
  const { task, plan, settings, emit } = run;
  const { git, log } = run.ports;
  const { startFiles, loopTree } = await startPoint(git, plan, bench.baseSha, b.baselineTree);
  // The test run may itself leave files behind; the model's change is measured against the baseline's tree.
  const extraProtected = [...allowListAsProtected(settings.allowedPaths), ...(await repoStateProtections(git.root))];
  const repoContext = await prepareRepoContext(git.root, task, b.baseline, settings.contextTokens, log);
  const focus = (rel: string) => repoContext?.localization.regions.filter((r) => r.file === rel) ?? [];
  const diagnostics = plan.change.by === 'candidate' ? null : typeAndLintFeedback(run, bench);
  if (diagnostics) log(`Type and lint feedback after edits: ${diagnostics.stats.checkers.join(' and ')}`);
  const tools = new ToolBox({
    root: git.root,
    listFiles: () => git.listFiles(),
    isIgnored: (rel: string) => git.isIgnored(rel),
    protectedPaths: [...settings.protectedPaths, ...extraProtected],
    focus,
    ...(diagnostics ? { beforeWrite: (rel: string) => diagnostics.beforeWrite(rel) } : {}),
  });
  const start = plan.change.by === 'model' && plan.change.from === 'attempt' ? await resumeAttempt(git, plan.change, bench.baseSha, b, gate, emit, log) : undefined;
  return { startFiles, loopTree, ...(start ? { start } : {}), repoContext, tools, diagnostics };
}

/** A start other than the checkout: the model works (and rolls back) from there. */
async function startPoint(git: GitPort, plan: FixPlan, baseSha: string, baselineTree: string): Promise<{ startFiles: string[]; loopTree: string }> {
  if (plan.change.by !== 'model' || plan.change.from !== 'tree') return { startFiles: [], loopTree: baselineTree };
  const startFiles = changedPaths(await git.changes(`${baseSha}^{tree}`, plan.change.tree));
  await git.restore(plan.change.tree);
  return { startFiles, loopTree: await git.snapshot() };
}

/** `/agent-fix continue`: the earlier best attempt on top of the checkout as the tests left it, tested once. */
async function resumeAttempt(git: GitPort, from: { tree: string; note: string }, baseSha: string, b: Baseline, gate: GateRule, emit: (e: FixEvent) => void, log: (m: string) => void): Promise<LoopStart> {
  const paths = changedPaths(await git.changes(`${baseSha}^{tree}`, from.tree));
  await git.restore(from.tree);
  const startTree = await composeChange(git, b.baselineTree, paths);
  const { run, verdict } = await b.intel.session.runForLoop(gate);
  emit({ type: 'test-run', purpose: 'verify', iteration: 0, run, verdict });
  log(`Resumed from the best attempt (${paths.length} file(s)): ${verdict.summary}`);
  const state = run.succeeded ? 'The test command succeeds on it.' : `The test run on it (by the harness, now): ${verdict.summary}\n\n${b.intel.feedback(run, verdict)}`;
  return { tree: startTree, run, touched: paths, note: `${from.note}\n\n${state}` };
}

/** The repository's own tsc/ESLint, run like its tests (environment, sandbox, memory limit), with their own timeout. */
function typeAndLintFeedback(run: Run, bench: Workbench): DiagnosticsWatcher | null {
  const { git, shell } = run.ports;
  return createDiagnostics({
    root: git.root,
    scratch: bench.box.scratch,
    exec: (command, o) =>
      shell.run(command, {
        cwd: git.root,
        timeoutMs: Math.max(1000, Math.min(o.timeoutMs, bench.budget.remainingMs())),
        env: bench.env,
        maxOutputChars: o.maxOutputChars,
        wrapper: bench.box.wrapper('tests', bench.sandbox.testNetwork),
        memoryMb: bench.sandbox.memoryMb,
      }),
  });
}

/** The repository map and localization for the first message; a failure costs the context, never the run. */
async function prepareRepoContext(root: string, task: Task, baseline: TestRun, budgetTokens: number, log: (m: string) => void): Promise<RepoContext | null> {
  if (budgetTokens <= 0) return null;
  try {
    const ctx = await prepareContext(root, `${task.title}\n${task.goal}`, baseline);
    const s = ctx.map.stats;
    const top = ctx.localization.ranked.slice(0, 3).map((r) => r.file.path);
    log(`Repository map: ${s.mapped} files (${s.cached} from cache, ${s.parsed} parsed${s.threads > 1 ? ` in ${s.threads} threads` : ''}) in ${s.ms} ms; most likely: ${top.join(', ') || 'none'}`);
    return ctx;
  } catch (e) {
    log(`Repository map skipped: ${errorMessage(e)}`);
    return null;
  }
}
