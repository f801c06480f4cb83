/**
 * The story shared by the action and the CLI, depending only on ports:
 * detect commands → setup → baseline → agent loop → report data.
 * Publishing (branch, PR, comment) is done by the callers, which differ.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ChatModel } from './ports/llm.js';
import type { FileChange, GitPort } from './ports/git.js';
import type { Shell, CommandResult } from './ports/shell.js';
import type { Reason } from './agent/types.js';
import type { RunReport } from './fix/types.js';
import type { Settings } from './settings/types.js';
import type { Task } from './task/types.js';
import type { JudgedRun, TestIntel, TestProof, TestRun, Verdict } from './verify/types.js';
import { createJudge, type AttemptJudge } from './verify/judge.js';
import { ToolBox } from './agent/tools.js';
import { runAgentLoop, type LoopEvent, type LoopOutput, type LoopStart } from './agent/loop.js';
import { DEFAULT_CONTEXT_TOKENS } from './agent/prompt.js';
import { prepareContext, type RepoContext } from './context/index.js';
import { detectCommands } from './verify/detect.js';
import { childEnv } from './verify/env.js';
import { toTestRun } from './verify/test-run.js';
import { createTestIntel, type Intel } from './verify/intel.js';
import { taskTargets, type GateRule } from './verify/compare.js';
import type { Redactor } from './redact.js';
import { Budget, DEFAULT_BUDGET } from './budget/budget.js';
import { isolationFor, openSandbox, probeSandbox, sandboxRefused, type SandboxProbe } from './sandbox/sandbox.js';
import { credentialFiles } from './sandbox/credentials.js';
import { treeKept, treeLine } from './workspace/tree-guard.js';
import { allowListAsProtected } from './policy/apply.js';
import { repoStateProtections } from './workspace/repo-state.js';
import { loopProgress, type ProgressSink } from './fix/progress.js';
import { ACTION_WORDING, type Wording } from './settings/wording.js';
import { isCheckable } from './ports/llm.js';
import { judgeFollowUp, type FollowUpGate } from './fix/follow-up-gate.js';
import { explainOutcome } from './fix/explain.js';
import { createDiagnostics } from './diagnostics/watch.js';
import { errorMessage } from './errors.js';

export interface FixDeps {
  git: GitPort;
  shell: Shell;
  model: ChatModel;
  settings: Settings;
  redactor: Redactor;
  /** Environment the child processes derive from (filtered by childEnv). */
  parentEnv: NodeJS.ProcessEnv;
  log: (message: string) => void;
  emit?: (event: LoopEvent | { type: 'command'; purpose: string; result: Omit<CommandResult, 'output'> & { outputTail: string } }) => void;
  scripted?: boolean;
  /** Network isolation to use (default: probed on this machine). */
  sandbox?: SandboxProbe;
  /** Decides whether the baseline is a valid start (CI repair: it must reproduce the failure); a refusal ends the run as skipped. */
  acceptBaseline?: (baseline: TestRun) => { ok: true; targets?: string[] | 'all' } | { ok: false; reason: Reason; detail: string };
  /** Where the run says what it is doing (phases, attempts, tool calls); absent: nowhere. */
  progress?: ProgressSink;
  /** How messages name settings and what was not published (default: the action's words). */
  wording?: Wording;
  /**
   * A follow-up on agent-fix's own verified pull request (fix/follow-up-gate.ts): on top of the
   * gate, the original fix's tests must hold; a passing baseline needs no fail-to-pass proof.
   */
  followUp?: FollowUpGate;
  /**
   * A change made without the model (run/rebase.ts: the branch rebased or merged onto its base):
   * this tree is verified against the baseline of the checkout instead of running the agent loop.
   */
  candidate?: { tree: string; summary: string };
  /**
   * Where the model starts, when it is not the checkout (run/rebase.ts: the merge with the base,
   * conflict markers in the conflicting files). The baseline is still the checkout's; the
   * published change is the start's files plus the model's edits.
   */
  startTree?: string;
  /**
   * `/agent-fix continue`: start from an earlier run's best attempt, `tree` (the checkout's commit
   * plus the attempt), with `note` (what was tried, for the model) added to the first message.
   */
  resume?: { tree: string; note: string };
  /** The story's checkpoint inside the loop (a stop request, a newer run): why to stop now, or null (see LoopDeps.interrupt). */
  checkpoint?: (at: 'turn' | 'attempt') => Promise<string | null>;
}

export interface FixResult {
  report: RunReport;
  /** Tree to publish (checkout + the verified fix) when status is 'fixed'. */
  tree: string | null;
  /** sha the fix is based on. */
  baseSha: string;
  /** The checkout as it was before the run (to put the working tree back). */
  pristineTree: string;
  /**
   * A run that stopped on its budget: its best attempt (the base plus the model's change of the
   * best state reached, as a tree) for `/agent-fix continue` to resume from; absent otherwise.
   */
  bestAttempt?: { tree: string };
}

const OUTPUT_CAP = 400_000;

export async function runFix(task: Task, deps: FixDeps): Promise<FixResult> {
  const started = Date.now();
  const { git, shell, settings, redactor, log } = deps;
  const emit = deps.emit ?? (() => undefined);
  const progress: ProgressSink = deps.progress ?? (() => undefined);
  const words = deps.wording ?? ACTION_WORDING;
  const budget = new Budget(settings.budget ?? DEFAULT_BUDGET, deps.model.model);
  const sandbox = deps.sandbox ?? probeSandbox(log);
  const sb = settings.sandbox ?? { setupNetwork: true, testNetwork: false, requireIsolation: false, memoryMb: 0 };
  // One sandbox for the run's commands (sandbox/sandbox.ts): private HOME and temp, the checkout's credential covered.
  const box = openSandbox(sandbox, git.root, credentialFiles(git.root), process.env.HOME, log);
  const setupIso = isolationFor('setup', sb.setupNetwork, sandbox, box);
  const testIso = isolationFor('tests', sb.testNetwork, sandbox, box);
  if (sandbox.mode === 'none') log(`Sandbox: ${sandbox.description}`);
  /** Files a test run changed (put back each time; fix.ts publishes the model's bytes only). */
  const touchedByTests = new Set<string>();
  const baseSha = await git.headSha();
  // The tree as checked out, before setup or tests could leave anything behind.
  const pristineTree = await git.snapshot();
  /**
   * The report is made once, here, from what the fix found on the way (values, never a
   * report edited along the way); every return of runFix goes through it.
   */
  const finish = (status: RunReport['status'], reason: Reason, detail: string, found: Found = {}, tree: string | null = null, bestAttempt?: { tree: string }): FixResult => {
    const loop = found.loop;
    const report: RunReport = {
      status,
      reason,
      detail: redactor.redact(detail),
      task,
      model: deps.model.model,
      scripted: deps.scripted,
      setupCommand: found.commands ? found.commands.setup : settings.setupCommand,
      testCommand: found.commands ? found.commands.test : settings.testCommand,
      baseline: found.baseline ?? null,
      final: loop?.final ?? null,
      summary: loop ? redactor.redact(loop.summary) : '',
      iterations: loop?.iterations ?? 0,
      maxIterations: settings.maxIterations,
      attempts: loop?.attempts ?? [],
      ...(found.tests ? { tests: found.tests } : {}),
      ...(loop?.diagnostics ? { diagnostics: loop.diagnostics } : {}),
      changes: found.changes ?? [],
      diff: found.diff ?? '',
      usage: loop?.usage ?? { promptTokens: 0, completionTokens: 0, requests: 0 },
      durationMs: Date.now() - started,
      safety: {
        policy: settings.policySource ?? 'the action inputs (no repository policy was read)',
        isolation: [setupIso.line, testIso.line, ...(sb.memoryMb > 0 ? [`memory: ${sb.memoryMb} MiB address space per command`] : []), ...treeLine(touchedByTests)],
        budget: budget.describe(),
        costUsd: budget.costUsd,
        ...(reason === 'budget-exhausted' && loop?.reason === 'budget-exhausted' && loop.stopDetail ? { budgetStop: loop.stopDetail } : {}),
      },
    };
    return { report, tree, baseSha, pristineTree, ...(bestAttempt ? { bestAttempt } : {}) };
  };
  if (sb.requireIsolation && (setupIso.unavailable || testIso.unavailable)) {
    return finish('error', 'not-applicable', `The policy requires network isolation (sandbox.require-isolation) but none is available here: ${sandbox.description}. Nothing was run.`);
  }
  if (sandboxRefused(sb.requireSandbox ?? 'github-hosted', sandbox.mode, deps.parentEnv.RUNNER_ENVIRONMENT === 'github-hosted')) {
    return finish('error', 'not-applicable', `The policy requires a sandbox for the repository's commands (sandbox.require-sandbox: ${sb.requireSandbox ?? 'github-hosted'}) but this runner cannot give one: ${sandbox.description}. Nothing was run.`);
  }

  let detection: string | undefined;
  let commands = { setup: settings.setupCommand, test: settings.testCommand };
  if (!settings.testCommand) {
    const detected = await detectCommands(git.root);
    if (!detected.test) return finish('error', 'not-applicable', `No test command: ${detected.reason}; set ${words.setting('test-command')} (and ${words.setting('setup-command')} if dependencies must be installed).`);
    commands = { test: detected.test, setup: settings.setupCommand ?? detected.setup };
    detection = detected.reason;
    log(`Detected ${detected.stack}: setup \`${commands.setup ?? 'none'}\`, tests \`${commands.test}\``);
  }
  const testCommand = commands.test as string;

  // The model endpoint answers before anything runs: a wrong URL, key or model costs no test run.
  if (isCheckable(deps.model)) {
    progress({ type: 'phase', phase: { kind: 'model' }, state: 'running' });
    progress({ type: 'waiting', on: 'the model endpoint' });
    const checked = await deps.model.check();
    if (!checked.ok && checked.fatal) {
      const why = redactor.redact(checked.message);
      progress({ type: 'phase', phase: { kind: 'model' }, state: 'failed', detail: why });
      return finish('error', 'model-error', `The model endpoint check failed, so nothing was run: ${why}.`, { commands });
    }
    if (!checked.ok) log(`The model endpoint check did not pass cleanly (${redactor.redact(checked.message)}); going on, the run retries model requests.`);
    progress({ type: 'phase', phase: { kind: 'model' }, state: 'done', detail: checked.ok ? checked.detail : `answered with a passing problem: ${redactor.redact(checked.message)}` });
  }
  const env = box.env(childEnv(deps.parentEnv));
  const runIn = (command: string, kind: 'setup' | 'tests') =>
    shell.run(command, {
      cwd: git.root,
      // never beyond the run's wall-time budget
      timeoutMs: Math.max(1000, Math.min(settings.commandTimeoutMs, budget.remainingMs())),
      env,
      maxOutputChars: OUTPUT_CAP,
      wrapper: (kind === 'setup' ? setupIso : testIso).wrapper,
      memoryMb: sb.memoryMb,
    });
  // After each test run the working tree is put back (workspace/tree-guard.ts): what is published is the model's bytes.
  const run = (command: string, kind: 'setup' | 'tests' = 'tests') => (kind === 'setup' ? runIn(command, kind) : treeKept(git, () => runIn(command, kind), touchedByTests));

  if (commands.setup) {
    progress({ type: 'phase', phase: { kind: 'setup' }, state: 'running', detail: commands.setup });
    progress({ type: 'waiting', on: 'the setup command' });
    const r = await run(commands.setup, 'setup');
    const setupRun = toTestRun(r, redactor);
    const { output: _output, ...meta } = r;
    emit({ type: 'command', purpose: 'setup', result: { ...meta, outputTail: setupRun.outputTail } });
    if (r.exitCode !== 0 || r.timedOut) {
      const why = r.timedOut ? 'timed out' : `exited with ${r.exitCode ?? r.signal ?? 'no code'}`;
      progress({ type: 'phase', phase: { kind: 'setup' }, state: 'failed', detail: `${commands.setup} ${why}` });
      return finish('error', 'setup-failed', `The setup command \`${commands.setup}\` ${why}; nothing was changed. Last output:\n${tail(setupRun.outputTail, 1500)}`, { commands });
    }
  }

  if (commands.setup) progress({ type: 'phase', phase: { kind: 'setup' }, state: 'done', detail: `${commands.setup} passed` });
  else progress({ type: 'phase', phase: { kind: 'setup' }, state: 'skipped', detail: 'no setup command' });

  progress({ type: 'phase', phase: { kind: 'baseline' }, state: 'running', detail: testCommand });
  progress({ type: 'waiting', on: 'the tests (baseline, untouched code)' });
  const baselineTree = await git.snapshot();
  const intel = await createTestIntel({ git, task, settings, redactor, testCommand, detection, baselineTree, exec: run });
  const runTests = (): Promise<JudgedRun> => intel.session.runForLoop();
  const baseline = await intel.session.runBaseline();
  if (deps.candidate || deps.followUp) {
    intel.data.proofNotAsked = deps.candidate
      ? 'a rebase or merge of a verified pull request: the tests that passed on its head must still pass on the updated branch'
      : "a follow-up on a verified pull request: nothing that passed on its head may fail, and the original fix's tests must still pass";
  }
  const found: Found = { commands, tests: intel.data, baseline };
  emit({ type: 'test-run', purpose: 'verify', iteration: 0, run: baseline });
  progress({ type: 'phase', phase: { kind: 'baseline' }, state: baseline.exitCode === 127 && baseline.tests.length === 0 ? 'failed' : 'done', detail: `${testCommand}: ${runLine(baseline)}` });
  if (baseline.exitCode === 127 && baseline.tests.length === 0) {
    return finish('error', 'not-applicable', `The test command \`${testCommand}\` could not be run (exit 127: command not found). Set ${words.setting('test-command')}. Output:\n${tail(baseline.outputTail, 800)}`, found);
  }
  const accepted = deps.acceptBaseline?.(baseline);
  if (accepted && !accepted.ok) return finish('skipped', accepted.reason, accepted.detail, found);
  // Failures that predate any edit: the ones the task is about must pass; the others may
  // remain (input preexisting-failures), and the report lists them as still failing.
  const targets = accepted?.targets ?? taskTargets(baseline, `${task.title}\n${task.goal}`);
  const gate: GateRule =
    targets === 'all' || settings.preexistingFailures === 'block' ? { preexisting: 'block' } : { preexisting: 'allow', targets };
  intel.session.gate = gate;
  if (!baseline.succeeded && gate.preexisting === 'allow' && targets !== 'all' && targets.length) log(`The task is about ${targets.length} failing test(s): ${targets.slice(0, 5).join(', ')}${targets.length > 5 ? ', …' : ''}`);
  // A start other than the checkout: the model works (and rolls back) from there.
  let startFiles: string[] = [];
  let loopTree = baselineTree;
  if (deps.startTree) {
    startFiles = (await git.changes(`${baseSha}^{tree}`, deps.startTree)).flatMap((c) => (c.oldPath && c.oldPath !== c.path ? [c.path, c.oldPath] : [c.path]));
    await git.restore(deps.startTree);
    loopTree = await git.snapshot();
  }
  // The test run may itself leave files behind; the model's change is measured against this tree.
  const extraProtected = [...allowListAsProtected(settings.allowedPaths ?? []), ...(await repoStateProtections(git.root))];
  const repoContext = await prepareRepoContext(git.root, task, baseline, settings.contextTokens ?? DEFAULT_CONTEXT_TOKENS, log);
  const focus = (rel: string) => repoContext?.localization.regions.filter((r) => r.file === rel) ?? [];
  // The repository's own tsc/ESLint, run like its tests (environment, sandbox, memory limit), with their own timeout (not for a candidate: no model edits).
  const diagnostics = deps.candidate ? null : createDiagnostics({
    root: git.root,
    exec: (command, o) =>
      shell.run(command, { cwd: git.root, timeoutMs: Math.max(1000, Math.min(o.timeoutMs, budget.remainingMs())), env, maxOutputChars: o.maxOutputChars, wrapper: box.wrapper(sb.testNetwork, true) ?? testIso.wrapper, memoryMb: sb.memoryMb }),
  });
  if (diagnostics) log(`Type and lint feedback after edits: ${diagnostics.stats.checkers.join(' and ')}`);
  const tools = new ToolBox({
    root: git.root,
    listFiles: () => git.listFiles(),
    protectedPaths: [...settings.protectedPaths, ...extraProtected],
    focus,
    ...(diagnostics ? { beforeWrite: (rel: string) => diagnostics.beforeWrite(rel) } : {}),
  });
  // `/agent-fix continue`: the earlier best attempt on top of the checkout as the tests left it, tested once.
  let start: LoopStart | undefined;
  if (deps.resume) {
    const paths = [...new Set((await git.changes(`${baseSha}^{tree}`, deps.resume.tree)).flatMap((c) => (c.oldPath ? [c.path, c.oldPath] : [c.path])))];
    await git.restore(deps.resume.tree);
    const startTree = await composeChange(git, baselineTree, paths);
    const { run, verdict } = await runTests();
    emit({ type: 'test-run', purpose: 'verify', iteration: 0, run, verdict });
    log(`Resumed from the best attempt (${paths.length} file(s)): ${verdict.summary}`);
    const state = run.succeeded ? 'The test command succeeds on it.' : `The test run on it (by the harness, now): ${verdict.summary}\n\n${intel.feedback(run, verdict)}`;
    start = { tree: startTree, run, touched: paths, note: `${deps.resume.note}\n\n${state}` };
  }
  const attempts = loopProgress(progress);
  const loopEmit = (e: LoopEvent) => {
    deps.emit?.(e);
    attempts.onLoop(e);
  };
  const limits = {
    maxIterations: settings.maxIterations,
    maxChangedFiles: settings.maxChangedFiles,
    maxChangedLines: settings.maxChangedLines,
    maxTurns: settings.maxIterations * 25,
    maxTokens: 0,
  };
  const followUpGate = deps.followUp ? (run: TestRun, changed: string[]) => judgeFollowUp(baseline, run, changed, deps.followUp as FollowUpGate) : undefined;
  const judge = attemptJudge({ git, intel, limits, baseline, baselineTree, gate, runTests, budget, emit: loopEmit, followUp: followUpGate, fromCheckout: !deps.startTree });
  const loop = deps.candidate
    ? await checkCandidate(deps.candidate, {
        git,
        baseTree: `${baseSha}^{tree}`,
        runGate: () => intel.session.runGate(),
        followUp: followUpGate,
        emit,
      })
    : await runAgentLoop(task, {
    model: deps.model,
    tools,
    git,
    runTests,
    baseline,
    baselineTree: loopTree,
    judge,
    gate,
    limits,
    redact: (t) => redactor.redact(t),
    emit: loopEmit,
    budget,
    feedback: intel.feedback,
    context: repoContext ?? undefined,
    contextTokens: settings.contextTokens ?? DEFAULT_CONTEXT_TOKENS,
    ...(settings.maxInputTokens ? { maxInputTokens: settings.maxInputTokens } : {}),
    ...(settings.maxOutputTokens ? { maxOutputTokens: settings.maxOutputTokens } : {}),
    diagnostics: diagnostics ?? undefined,
    interrupt: deps.checkpoint,
    start,
  }).finally(() => diagnostics?.dispose());
  attempts.end(`stopped: ${loop.reason}${loop.stopDetail ? ` (${redactor.redact(loop.stopDetail)})` : ''}`);
  // Publish exactly the files the model wrote, on top of the checkout as it was: whatever setup
  // or the test runs left in the working tree stays out of the change.
  // The published tree is HEAD's tree plus those files: untracked files that earlier workflow
  // steps left in the checkout (build output, a credentials file such as gha-creds-*.json) are
  // never published. Proof and guard look at the same change on top of the checkout as it was.
  const published = [...new Set([...startFiles, ...loop.touched])];
  const workTree = await composeChange(git, pristineTree, published);
  const baseTree = `${baseSha}^{tree}`;
  const tree = await composeChange(git, baseTree, published);
  await git.restore(workTree);
  const changes = await git.changes(baseTree, tree);
  const rawDiff = await git.diff(baseTree, tree);
  const diff = redactor.redact(rawDiff);
  // The proof of the accepted attempt, made in the loop, is the report's (one proof, made once).
  const proof = loop.reason === 'verified' ? loop.attempts[loop.attempts.length - 1]?.proof : undefined;
  if (proof) intel.data.proof = proof;
  const after: Found = { ...found, loop, changes, diff };
  // A candidate (a rebase) carries the base's own changes: the test-integrity guard judges the model's edits, not those.
  const modelMade = !deps.candidate && !deps.startTree;
  if (loop.reason === 'verified' && modelMade) await intel.flagComments(pristineTree, workTree, changes);
  await intel.session.dispose();
  // The guard once more on exactly what would be published.
  const refusal = loop.reason === 'verified' && modelMade ? await intel.guardPublished(pristineTree, workTree) : null;
  if (refusal) return finish('not-fixed', 'tests-still-failing', `The test-integrity guard refused the change; ${words.nothingPublished}.\n${refusal}`, after);
  if (diff !== rawDiff) {
    // Defense in depth: a change that carries a secret (in any encoding the redactor knows) is never published.
    return finish('not-fixed', 'secret-in-change', 'The change contains a secret value (a token or key of this run, possibly encoded); it was not published.', after);
  }
  const outcome = explainOutcome(loop, {
    testCommand,
    baseline,
    changes: changes.length,
    candidate: Boolean(deps.candidate),
    followUp: deps.followUp,
    proof,
    changedExpectations: loop.reason === 'verified' ? (intel.data.original?.changedExpectations?.length ?? 0) : 0,
    nothingPublished: words.nothingPublished,
    testEditsAlone: (p) => intel.testEditsAlone(p),
  });
  return finish(outcome.status, outcome.reason, outcome.detail, after, outcome.publish ? tree : null, outcome.keep && changes.length > 0 ? { tree } : undefined);
}

/**
 * Every check of an attempt, in one place (verify/judge.ts), given what the story holds: the
 * workspace, the test session, the gate rule. `fromCheckout`: the loop starts from the checkout;
 * a start other than the checkout (a rebase's merge) carries the base's own changes, so no proof
 * of the model's edits is made from there and the original-test gate does not judge it (a
 * follow-up's own gate decides).
 */
function attemptJudge(c: {
  git: GitPort;
  intel: Intel;
  limits: { maxChangedFiles: number; maxChangedLines: number };
  baseline: TestRun;
  baselineTree: string;
  gate: GateRule;
  runTests: () => Promise<JudgedRun>;
  budget: Budget;
  emit: (e: LoopEvent) => void;
  followUp?: (run: TestRun, changed: string[]) => string | null;
  fromCheckout: boolean;
}): AttemptJudge {
  const { git, intel } = c;
  /**
   * The fail-to-pass proof of an attempt: its change composed on the tree the baseline ran on
   * (nothing the test runs left behind), the proof's runs there, then the working tree back at
   * the attempt's tree.
   */
  const prove = async (tree: string, changes: FileChange[], run: TestRun): Promise<TestProof> => {
    await git.restore(tree);
    const fixTree = await composeChange(git, c.baselineTree, changedPaths(changes));
    try {
      return await intel.prove(c.baselineTree, fixTree, changes, run);
    } finally {
      await git.restore(tree);
    }
  };
  const judge = createJudge({
    limits: c.limits,
    baseline: c.baseline,
    runTests: c.runTests,
    budget: c.budget,
    onRun: (iteration, run, verdict) => c.emit({ type: 'test-run', purpose: 'verify', iteration, run, ...(verdict ? { verdict } : {}) }),
    guard: (tree, changedFiles) => intel.guard(tree, changedFiles),
    refusedFindings: (findings) => {
      for (const f of findings) intel.data.refusals.push(`[${f.category}] ${f.reason}`);
    },
    ...(c.fromCheckout
      ? {
          prove,
          testEditsAlone: (proof: TestProof) => {
            const why = intel.testEditsAlone(proof);
            if (why) intel.data.refusals.push(`[test-edits-alone] ${why}`);
            return why;
          },
          originalTests: (tree: string, run: TestRun, verdict: Verdict, proof: () => Promise<TestProof | undefined>) => intel.originalTests(tree, run, verdict, c.gate, proof),
        }
      : {}),
    ...(c.followUp ? { followUp: c.followUp } : {}),
  });
  // What the tests cleared of the guard's findings (a changed snapshot proven, a skip marker that skips nothing) passes the published change's guard too.
  return async (a) => {
    const j = await judge(a);
    if (j.outcome === 'accepted') intel.cleared(j.cleared);
    return j;
  };
}

/**
 * Verifies a change made without the model as one attempt: the working tree becomes the
 * candidate, the gate runs once (re-run for flakiness like any gate run), and the verdict is
 * the gate's plus the follow-up check. Returns what the agent loop would have returned.
 */
async function checkCandidate(
  candidate: { tree: string; summary: string },
  c: {
    git: GitPort;
    baseTree: string;
    runGate: () => Promise<JudgedRun>;
    followUp?: (run: TestRun, changed: string[]) => string | null;
    emit: NonNullable<FixDeps['emit']>;
  },
): Promise<LoopOutput> {
  const changes = await c.git.changes(c.baseTree, candidate.tree);
  const touched = changedPaths(changes);
  await c.git.restore(candidate.tree);
  const { run, verdict: gateVerdict } = await c.runGate();
  let verdict = gateVerdict;
  const problem = verdict.ok && c.followUp ? c.followUp(run, changes.map((ch) => ch.path)) : null;
  if (problem) verdict = { ...verdict, ok: false, summary: `${verdict.summary}; ${problem}` };
  c.emit({ type: 'test-run', purpose: 'verify', iteration: 1, run, verdict });
  const attempt = { iteration: 1, summary: candidate.summary, verdict, changedFiles: changes.map((ch) => ch.path), rolledBack: false };
  return {
    reason: verdict.ok ? 'verified' : 'tests-still-failing',
    summary: candidate.summary,
    iterations: 1,
    attempts: [attempt],
    final: run,
    usage: { promptTokens: 0, completionTokens: 0, requests: 0 },
    tree: candidate.tree,
    touched,
  };
}

/** What the fix found on the way, from which `finish` makes the report. */
interface Found {
  commands?: { setup: string | null; test: string | null };
  baseline?: TestRun;
  tests?: TestIntel;
  loop?: LoopOutput;
  changes?: FileChange[];
  diff?: string;
}

/** The paths a change touches (both sides of a rename). */
function changedPaths(changes: FileChange[]): string[] {
  return [...new Set(changes.flatMap((c) => (c.oldPath && c.oldPath !== c.path ? [c.path, c.oldPath] : [c.path])))];
}

/**
 * Working tree := pristine checkout + the current content of the touched files; returns its snapshot.
 * Files the model deleted stay deleted.
 */
export async function composeChange(git: GitPort, pristineTree: string, touched: string[]): Promise<string> {
  const contents = new Map<string, Buffer | null>();
  for (const rel of touched) {
    const abs = path.join(git.root, rel);
    contents.set(rel, existsSync(abs) ? await readFile(abs) : null);
  }
  await git.restore(pristineTree);
  for (const [rel, data] of contents) {
    const abs = path.join(git.root, rel);
    if (data === null) {
      await rm(abs, { force: true });
    } else {
      await mkdir(path.dirname(abs), { recursive: true });
      await writeFile(abs, data);
    }
  }
  return git.snapshot();
}

/** A test run in one line of plain text: `fails (exit 1; 2 passed, 2 failed)`. */
function runLine(run: TestRun): string {
  const exit = run.timedOut ? 'timed out' : `exit ${run.exitCode ?? 'none'}`;
  const c = run.counts;
  const counts = run.parsedFrom === 'none' ? 'no per-test results parsed' : `${c.passed} passed, ${c.failed} failed`;
  return `${run.succeeded ? 'passes' : 'fails'} (${exit}; ${counts})`;
}

function tail(text: string, max: number): string {
  return text.length <= max ? text : `…${text.slice(-max)}`;
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
