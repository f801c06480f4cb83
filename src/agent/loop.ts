/**
 * The attempt loop: model <-> tools until a verified fix or a budget runs out.
 * The harness owns verification: `finish` triggers a real test run, compared with the baseline.
 * Tool failures are data for the model, never exceptions. After a failed attempt the working
 * tree goes back to the best snapshot so far.
 *
 * Three units: the conversation (conversation.ts: messages, fitting, what the endpoint needs
 * back), the model caller (model-caller.ts: the endpoint's answers, limits, repairs, retries) and
 * this loop (turns, tool calls, attempts judged, the best state, rollback); the loop's state is one
 * `Run` value that only the functions of this file change.
 */
import type { ChatMessage, ChatModel, ModelReply, ToolCall } from '../ports/llm.js';
import type { FileChange, GitPort } from '../ports/git.js';
import type { Attempt, LoopResult, Reason, TokenUsage } from './types.js';
import type { Task } from '../task/types.js';
import type { JudgedRun, TestRun, Verdict } from '../verify/types.js';
import { TOOL_SPECS, type ToolBox } from './tools.js';
import { firstUserMessage } from './prompt.js';
import type { RepoContext } from '../context/index.js';
import { Conversation, sizeTo } from './conversation.js';
import { callModel, tooLargeStop, type CallStop } from './model-caller.js';
import { describeTaskFailures, type GateRule } from '../verify/compare.js';
import { createJudge, type AttemptJudge, type Judgement } from '../verify/judge.js';
import { failureFeedback } from '../verify/test-run.js';
import type { DiagnosticsStats, DiagnosticsWatcher } from '../diagnostics/watch.js';

export type LoopEvent =
  | { type: 'model-request'; turn: number; newMessages: ChatMessage[] }
  | { type: 'model-reply'; turn: number; reply: ModelReply }
  | { type: 'tool'; turn: number; name: string; arguments: string; ok: boolean; display: string; result: string }
  | { type: 'test-run'; purpose: 'run_tests' | 'verify'; iteration: number; run: TestRun; verdict?: Verdict }
  | { type: 'rollback'; iteration: number; toTree: string; reason: string }
  /** The model called finish: the harness verifies attempt `iteration`. */
  | { type: 'verifying'; iteration: number }
  /** The verdict on an attempt, as recorded. */
  | { type: 'attempt'; attempt: Attempt }
  /** The repository's own tsc/ESLint after an edit batch: how many new errors, how many were shown to the model. */
  | { type: 'diagnostics'; turn: number; ran: string[]; found: number; shown: number; ms: number; text: string }
  | { type: 'note'; message: string };

export interface LoopLimits {
  maxIterations: number;
  maxChangedFiles: number;
  maxChangedLines: number;
  /** Model requests in total (a guard against a model that never calls finish). */
  maxTurns: number;
  /** Prompt+completion tokens in total; 0 = unlimited. */
  maxTokens: number;
}

export interface LoopDeps {
  model: ChatModel;
  tools: ToolBox;
  git: GitPort;
  /**
   * Runs the repository's test command (the harness's own run) and returns it with the gate's
   * verdict against the baseline (verify/session.ts judges once; the loop never judges again).
   */
  runTests: () => Promise<JudgedRun>;
  baseline: TestRun;
  baselineTree: string;
  /**
   * The attempt judge (verify/judge.ts: guard, tests, skipped tests, original tests with changed
   * expectations, follow-up gate, proof, test edits alone, a passing baseline's proof), built by
   * fix.ts. Absent: the judge of the tests alone (`runTests`, the size limits and the budget).
   */
  judge?: AttemptJudge;
  /** How the gate treats tests failing before any edit (default: the command must succeed); for the first message. */
  gate?: GateRule;
  limits: LoopLimits;
  /** Applied to every message before it leaves the process. */
  redact: (text: string) => string;
  emit?: (e: LoopEvent) => void;
  /** Failure context for the model (default: failureFeedback). */
  feedback?: (run: TestRun, verdict?: Verdict) => string;
  /** Token / cost / wall-time caps (safety/budget.ts), checked before every model request and test run. */
  budget?: LoopBudget;
  /** Repository map and localization for the first message, fitted to `contextTokens` (whole first request). */
  context?: RepoContext;
  contextTokens?: number;
  /** The conversation is compacted once it passes this many tokens (default: twice the context budget, at least 12,000). */
  compactTokens?: number;
  /**
   * The endpoint's input limit per request (GitHub Models' free use: 8,000): before every request
   * the conversation is fitted to it (system prompt, tool schemas and every message counted), tool
   * results are sized to the room left, and a 413 that names a lower limit is learnt and the turn
   * retried. Absent: no per-request limit (only `compactTokens` applies).
   */
  maxInputTokens?: number;
  /** The reply's cap per request (`max_tokens`, sent by the adapter), for the model's rules; 0 or absent: the endpoint's default. */
  maxOutputTokens?: number;
  /** Waits out a short 429 (default: a timer); the clock of a quota's reset time (default Date.now). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  /**
   * The repository's own tsc/ESLint (src/diagnostics): after each batch of edits, the errors the edits
   * introduced are appended to the last edit's result; a run_tests or finish in the same batch as
   * edits that introduced errors is answered with them instead of running the tests.
   */
  diagnostics?: Pick<DiagnosticsWatcher, 'warmUp' | 'check' | 'stats'>;
  /**
   * The story's checkpoint: called before every model request (`turn`, cheap: the caller rate-limits
   * its API reads) and at each attempt (`attempt`: read while the attempt's tests run, decided
   * before its outcome is used); a sentence ends the loop with reason `stopped` (a `/agent-fix
   * stop`, a newer run that took the task over) and the attempt counts for nothing.
   */
  interrupt?: (at: 'turn' | 'attempt') => Promise<string | null>;
  /** Resume from an earlier best attempt instead of the untouched code. */
  start?: LoopStart;
  /**
   * Repairs of what an endpoint refused (message order, tool-call ids, arguments that are not JSON,
   * a failed generation), the reading of silent truncations (model-caller.ts) and of tool calls
   * written as text (conversation.ts); default on. Off
   * shows what a run does without them.
   */
  recover?: boolean;
}

/** Where a resumed run starts (`/agent-fix continue`): an earlier best attempt, already in the working tree. */
export interface LoopStart {
  /** Snapshot of the working tree with the attempt applied: the best state so far. */
  tree: string;
  /** The harness's test run on it. */
  run: TestRun;
  /** The files the attempt changed (they belong to the change like files the model writes). */
  touched: string[];
  /** For the model, after the task: what was tried and what still fails. */
  note: string;
}

export interface LoopBudget {
  record(usage: { promptTokens: number; completionTokens: number }): void;
  exceeded(): { kind: string; message: string } | null;
  /** Milliseconds left of the wall-time budget (a 429's wait must fit in it); absent or Infinity: no cap. */
  remainingMs?(): number;
}

/** Tools whose results take room in the next request. */
const PRODUCERS = new Set(['read_file', 'search', 'list_files', 'run_tests', 'finish']);

export interface LoopOutput extends LoopResult {
  /** The tree of the accepted fix (reason 'verified') or of the best attempt. */
  tree: string;
  /** Files the model wrote (repo-relative), in order of first touch. */
  touched: string[];
  /** Why the loop stopped early, for reasons 'budget-exhausted' and 'model-error' (one sentence, redacted). */
  stopDetail?: string;
  /** Type and lint checks after edits, when the repository has tsc or ESLint. */
  diagnostics?: DiagnosticsStats;
}

/** The best state so far: its tree and its score (fewer failures is better). */
interface Best {
  tree: string;
  score: number;
}

/** What one verified attempt leads to (see verifyAttempt). */
interface AttemptOutcome {
  attempt: Attempt;
  /** For the model. */
  message: string;
  /** Set when the loop ends with this attempt. */
  stop?: Reason;
  tree: string;
  /** Set when the attempt ran the tests. */
  final?: TestRun;
  /** Set when the attempt is the new best state. */
  best?: Best;
  stopDetail?: string;
}

function score(run: TestRun): number {
  if (run.succeeded) return 0;
  return Math.max(1, run.counts.failed) + (run.timedOut ? 1000 : 0);
}

export function sizeOf(changes: FileChange[]): { files: number; lines: number } {
  return { files: changes.length, lines: changes.reduce((n, c) => n + c.additions + c.deletions, 0) };
}

/** Without a judge from the caller: verify/judge.ts with the loop's limits, baseline and test runs only. */
function plainJudge(deps: LoopDeps, emit: (e: LoopEvent) => void): AttemptJudge {
  return createJudge({
    limits: deps.limits,
    baseline: deps.baseline,
    runTests: deps.runTests,
    budget: deps.budget,
    onRun: (at, run, verdict) => emit({ type: 'test-run', purpose: 'verify', iteration: at, run, ...(verdict ? { verdict } : {}) }),
  });
}


/** The state of one run of the loop; only the loop's functions below change it. */
interface Run {
  readonly task: Task;
  readonly deps: LoopDeps;
  readonly conv: Conversation;
  readonly emit: (e: LoopEvent) => void;
  readonly judge: AttemptJudge;
  readonly feedback: (run: TestRun, verdict?: Verdict) => string;
  readonly usage: TokenUsage;
  readonly attempts: Attempt[];
  readonly touched: string[];
  best: Best;
  iteration: number;
  nudges: number;
  lastSummary: string;
  final: TestRun | null;
  stopDetail?: string;
  peak: number;
  /** The result message of the last successful edit of the current reply that no check has seen yet, and the files of those edits. */
  uncheckedEdit: number | null;
  uncheckedFiles: string[];
}

export async function runAgentLoop(task: Task, deps: LoopDeps): Promise<LoopOutput> {
  const emit = deps.emit ?? (() => undefined);
  const feedback = (run: TestRun, verdict?: Verdict) => (deps.feedback ? deps.feedback(run, verdict) : failureFeedback(run));
  const first = firstUserMessage(task, deps.baseline, feedback(deps.baseline), deps.gate) + (deps.start ? `\n\n${deps.start.note}` : '');
  const conv = new Conversation({
    first,
    tools: TOOL_SPECS,
    limits: deps.limits,
    redact: deps.redact,
    context: deps.context,
    contextTokens: deps.contextTokens,
    compactTokens: deps.compactTokens,
    maxInputTokens: deps.maxInputTokens,
    maxOutputTokens: deps.maxOutputTokens,
    changes: async () => deps.git.diff(deps.baselineTree, await deps.git.snapshot()),
    note: (message) => emit({ type: 'note', message }),
    readTextCalls: deps.recover,
  });
  const run: Run = {
    task,
    deps,
    conv,
    emit,
    feedback,
    judge: deps.judge ?? plainJudge(deps, emit),
    usage: { promptTokens: 0, completionTokens: 0, requests: 0 },
    attempts: [],
    touched: [...(deps.start?.touched ?? [])],
    best: deps.start ? { tree: deps.start.tree, score: score(deps.start.run) } : { tree: deps.baselineTree, score: score(deps.baseline) },
    iteration: 0,
    nudges: 0,
    lastSummary: '',
    final: null,
    peak: 0,
    uncheckedEdit: null,
    uncheckedFiles: [],
  };
  deps.diagnostics?.warmUp();
  for (let turn = 1; ; turn++) {
    const spent = await budgetSpent(run, turn);
    if (spent) return spent;
    const halt = await deps.interrupt?.('turn');
    if (halt) return interrupted(run, halt);
    const answer = await ask(run, turn);
    if ('stop' in answer) return answer.stop;
    const reply = answer.reply;
    const stopped = reply.toolCalls.length === 0 ? await nudge(run, reply) : await actOn(run, reply, turn);
    if (stopped) return stopped;
  }
}

function done(run: Run, reason: Reason, tree: string): LoopOutput {
  return {
    stopDetail: run.stopDetail,
    reason,
    summary: run.lastSummary,
    iterations: run.iteration,
    attempts: run.attempts,
    final: run.final,
    usage: run.usage,
    tree,
    touched: run.touched,
    ...(run.deps.diagnostics ? { diagnostics: { ...run.deps.diagnostics.stats } } : {}),
  };
}

/** The loop ends at the best state so far: the working tree goes back to it. */
async function stopAtBest(run: Run, reason: Reason, detail?: string): Promise<LoopOutput> {
  if (detail !== undefined) run.stopDetail = detail;
  await run.deps.git.restore(run.best.tree);
  return done(run, reason, run.best.tree);
}

async function interrupted(run: Run, why: string): Promise<LoopOutput> {
  run.emit({ type: 'note', message: `stopped: ${why}` });
  return stopAtBest(run, 'stopped', why);
}

/** The model request cap, the token cap or the run's budget ran out: the loop ends at the best state; null otherwise. */
async function budgetSpent(run: Run, turn: number): Promise<LoopOutput | null> {
  const { limits } = run.deps;
  const used = run.usage.promptTokens + run.usage.completionTokens;
  if (turn > limits.maxTurns || (limits.maxTokens > 0 && used >= limits.maxTokens)) {
    run.emit({ type: 'note', message: `budget exhausted after ${turn - 1} model requests and ${used} tokens` });
    return stopAtBest(run, 'budget-exhausted', `the model request cap (${limits.maxTurns}) ran out`);
  }
  const over = run.deps.budget?.exceeded();
  if (!over) return null;
  run.emit({ type: 'note', message: `budget exhausted: ${over.message}` });
  return stopAtBest(run, 'budget-exhausted', over.message);
}

function recordUsage(run: Run, reply: ModelReply): void {
  run.deps.budget?.record(reply.usage);
  run.usage.requests++;
  run.usage.promptTokens += reply.usage.promptTokens;
  run.usage.completionTokens += reply.usage.completionTokens;
  run.peak = Math.max(run.peak, reply.usage.promptTokens);
  run.usage.peakPromptTokens = run.peak;
  if (Number.isFinite(run.conv.inputLimit)) run.usage.inputLimit = run.conv.inputLimit;
}

/** The next request, fitted to the input limit, and the model's reply recorded; or the loop's end (too large, a model error). */
async function ask(run: Run, turn: number): Promise<{ stop: LoopOutput } | { reply: ModelReply }> {
  const { conv, deps } = run;
  const fresh = conv.fresh();
  const fitted = await conv.fit();
  if ('part' in fitted) return { stop: await stopOn(run, tooLargeStop(conv, fitted)) };
  run.emit({ type: 'model-request', turn, newMessages: conv.takeNew(fitted.noted, fresh) });
  const answer = await callModel(conv, {
    model: deps.model,
    tools: TOOL_SPECS,
    redact: deps.redact,
    note: (message) => run.emit({ type: 'note', message }),
    record: (r) => recordUsage(run, r),
    sleep: deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    now: deps.now ?? Date.now,
    remainingMs: deps.budget?.remainingMs ? () => deps.budget!.remainingMs!() : undefined,
    recover: deps.recover,
  });
  if ('stop' in answer) return { stop: await stopOn(run, answer) };
  recordUsage(run, answer.reply);
  run.emit({ type: 'model-reply', turn, reply: answer.reply });
  return { reply: conv.addReply(answer.reply) };
}

async function stopOn(run: Run, out: CallStop): Promise<LoopOutput> {
  if (out.stop.detail.startsWith('a model request cannot be made small enough')) {
    run.emit({ type: 'note', message: `model request too large: ${out.stop.detail}` });
  }
  return stopAtBest(run, out.stop.reason, out.stop.detail);
}

/** A reply without a tool call: the model is asked to go on, three times at most, then the loop ends as given up. */
async function nudge(run: Run, reply: ModelReply): Promise<LoopOutput | null> {
  run.nudges++;
  const filtered = reply.finishReason === 'content_filter';
  if (run.nudges > 3) {
    run.lastSummary = run.lastSummary || (reply.content ?? '').trim();
    if (filtered) return stopAtBest(run, 'model-error', "the endpoint's content filter blocked the model's replies (finish_reason content_filter): try another model or endpoint");
    return stopAtBest(run, 'model-gave-up');
  }
  const why = filtered
    ? "Your reply was blocked by the endpoint's content filter. Answer with a tool call only."
    : reply.finishReason === 'length'
      ? 'Your answer was cut off at the token limit. Make smaller steps.'
      : 'Please continue by calling a tool.';
  run.conv.addNote(`${why} Use the tools to inspect and edit files, and call finish when the fix is complete.`);
  return null;
}

/** Runs the type and lint check after edits and appends what it found to the last edit's result; the new errors' count. */
async function checkEdits(run: Run, turn: number, share = Number.POSITIVE_INFINITY): Promise<number> {
  const { deps } = run;
  if (run.uncheckedEdit === null || !deps.diagnostics) return 0;
  const at = run.uncheckedEdit;
  const batch = run.uncheckedFiles;
  run.uncheckedEdit = null;
  run.uncheckedFiles = [];
  const c = await deps.diagnostics.check(run.touched, batch);
  if (c.ran.length === 0 && !c.text) return 0;
  run.emit({ type: 'diagnostics', turn, ran: c.ran, found: c.fresh.length, shown: c.shown, ms: c.ms, text: c.text });
  if (c.text) run.conv.appendTo(at, Number.isFinite(share) ? sizeTo(deps.redact(c.text), Math.floor(share / 2)) : deps.redact(c.text));
  return c.fresh.length;
}

/** The tool calls of one reply, in order; the loop's end when one of them ends it (a verified attempt, a stop), else null. */
async function actOn(run: Run, reply: ModelReply, turn: number): Promise<LoopOutput | null> {
  const { conv, deps, emit } = run;
  // The room the results of this reply may take in the next request, shared by the calls that produce text.
  const share = conv.resultShare(reply.toolCalls.filter((c) => PRODUCERS.has(c.name)).length);
  const result = (call: ToolCall, text: string) => conv.addToolResult(call, conv.sized(deps.redact(text), share));
  let finished = false;
  for (const call of reply.toolCalls) {
    if (finished) {
      conv.addToolResult(call, 'Not executed: finish was called earlier in the same reply.');
      continue;
    }
    if ((call.name === 'finish' || call.name === 'run_tests') && (await checkEdits(run, turn)) > 0) {
      // The model has not seen these errors yet: a test run is not spent on them.
      const what = call.name === 'finish' ? 'Not verified, and not counted as an attempt' : 'The tests were not run';
      conv.addToolResult(call, `${what}: the edits of this reply introduced new type or lint errors, listed in the result of the last edit above. Fix them, or call ${call.name} again if they are intended.`);
      emit({ type: 'tool', turn, name: call.name, arguments: call.arguments, ok: false, display: `${call.name}: held back (new type or lint errors)`, result: '' });
      continue;
    }
    if (call.name === 'finish') {
      const end = await finishCall(run, call);
      if (end && 'stop' in end) return end.stop;
      finished = true;
      result(call, end.message);
      if (end.ends) return done(run, end.ends.reason, end.ends.tree);
      continue;
    }
    if (call.name === 'run_tests') {
      const { run: tests, verdict } = await deps.runTests();
      emit({ type: 'test-run', purpose: 'run_tests', iteration: run.iteration, run: tests });
      const text = tests.succeeded ? `Tests pass. ${verdict.summary}` : `${verdict.summary}\n\n${run.feedback(tests, verdict)}`;
      emit({ type: 'tool', turn, name: call.name, arguments: call.arguments, ok: true, display: `run_tests: ${verdict.summary}`, result: text });
      result(call, text);
      continue;
    }
    const r = await deps.tools.execute(call.name, call.arguments, { maxTokens: share });
    if (r.changedPath && !run.touched.includes(r.changedPath)) run.touched.push(r.changedPath);
    emit({ type: 'tool', turn, name: call.name, arguments: call.arguments, ok: r.ok, display: r.display, result: r.content });
    const at = result(call, r.content);
    if (r.changedPath) {
      run.uncheckedEdit = at;
      run.uncheckedFiles.push(r.changedPath);
    }
  }
  await checkEdits(run, turn, share);
  return null;
}

/** The model called finish: the attempt is verified and the loop's state changes here and only here. */
async function finishCall(run: Run, call: ToolCall): Promise<{ stop: LoopOutput } | { message: string; ends?: { reason: Reason; tree: string } }> {
  // The attempt's checkpoint is read while the attempt is verified (the API round trip hides
  // behind the tests) and decides first: a stopped run uses nothing of this attempt.
  const halting = run.deps.interrupt?.('attempt').catch(() => null);
  const next = run.iteration + 1;
  const summary = parseSummary(call.arguments);
  run.emit({ type: 'verifying', iteration: next });
  const outcome = await verifyAttempt(run, next, summary, run.best);
  const halt = await halting;
  if (halt) return { stop: await interrupted(run, halt) };
  run.iteration = next;
  run.lastSummary = summary;
  run.attempts.push(outcome.attempt);
  run.emit({ type: 'attempt', attempt: outcome.attempt });
  if (outcome.final) run.final = outcome.final;
  if (outcome.best) run.best = outcome.best;
  if (outcome.stopDetail) run.stopDetail = outcome.stopDetail;
  return { message: outcome.message, ...(outcome.stop ? { ends: { reason: outcome.stop, tree: outcome.tree } } : {}) };
}

/**
 * Verifies one attempt (the model called finish) and says what follows, as a value: the
 * attempt's record, the message for the model, whether the loop stops, and the new best
 * state, last test run or stop detail when they change. Reads the loop's state, never writes it.
 */
async function verifyAttempt(run: Run, iteration: number, lastSummary: string, best: Best): Promise<AttemptOutcome> {
  const { deps, emit } = run;
  const { git, limits } = deps;
  const tree = await git.snapshot();
  const changes = (await git.changes(deps.baselineTree, tree)).filter((c) => run.touched.includes(c.path) || (c.oldPath !== undefined && run.touched.includes(c.oldPath)));
  const changedFiles = changes.map((c) => c.path);
  const outOfAttempts = iteration >= limits.maxIterations;
  const record = (verdict: Verdict, extra: Partial<Attempt> = {}): Attempt => ({ iteration, summary: lastSummary, verdict, changedFiles, rolledBack: false, ...extra });
  if (changes.length === 0) {
    const attempt = record(noVerdict('no changes'));
    if (outOfAttempts) return { attempt, message: 'No changes.', stop: 'no-changes', tree: best.tree };
    return { attempt, message: 'You have not changed any file yet, so there is nothing to verify. Edit the code, then call finish.', tree };
  }
  // Every check of the attempt, in one place (verify/judge.ts); the loop keeps its own state.
  const j: Judgement = await run.judge({ iteration, tree, changes });
  const final = j.run ? { final: j.run } : {};
  if (j.outcome === 'accepted') return { ...final, attempt: record(j.verdict, j.proof ? { proof: j.proof } : {}), message: j.message, stop: 'verified', tree };
  if (j.outcome === 'refused') {
    const verdict = j.verdict ? { ...j.verdict, ok: false, summary: `${j.verdict.summary}; ${j.reason}` } : noVerdict(j.reason);
    if (j.stop) {
      await git.restore(best.tree);
      return { ...final, attempt: record(verdict, { rolledBack: true }), message: j.message, stop: j.stop, tree: best.tree, ...(j.stopDetail ? { stopDetail: j.stopDetail } : {}) };
    }
    const attempt = record(verdict, j.proof ? { proof: j.proof } : {});
    // A refused attempt: the message goes back to the model and the tree stays; out of attempts, the loop ends at the best state.
    if (!outOfAttempts) return { ...final, attempt, message: j.message, tree };
    await git.restore(best.tree);
    return { ...final, attempt, message: j.message, stop: 'tests-still-failing', tree: best.tree };
  }
  const { run: tests, verdict } = j;
  const s = score(tests);
  let newBest: Best | undefined;
  let note: string;
  if (s < best.score) {
    newBest = { tree, score: s };
    note = 'This attempt is the best so far (fewer failures than before), so your edits are kept; continue from here.';
  } else {
    await git.restore(best.tree);
    emit({ type: 'rollback', iteration, toTree: best.tree, reason: 'attempt did not improve on the best state' });
    note = 'This attempt did not improve on the best state so far, so the working tree was ROLLED BACK to it: re-read files before editing them again.';
  }
  const attempt = record(verdict, { rolledBack: !newBest });
  const kept = { ...final, attempt, ...(newBest ? { best: newBest } : {}) };
  if (outOfAttempts) return { ...kept, message: `Verification failed: ${verdict.summary}`, stop: 'tests-still-failing', tree: (newBest ?? best).tree };
  const msg = [
    `Verification FAILED (attempt ${iteration} of ${limits.maxIterations}): ${verdict.summary}`,
    verdict.newlyFailing.length ? `Tests that passed before and fail now: ${verdict.newlyFailing.join(', ')}` : '',
    verdict.stillFailing.length ? `Still failing: ${verdict.stillFailing.join(', ')}` : '',
    describeTaskFailures(verdict),
    run.feedback(tests, verdict),
    note,
  ]
    .filter(Boolean)
    .join('\n\n');
  return { ...kept, message: msg, tree };
}

const noVerdict = (summary: string): Verdict => ({ ok: false, newlyFailing: [], nowPassing: [], stillFailing: [], summary });

function parseSummary(raw: string): string {
  try {
    const v = JSON.parse(raw) as { summary?: unknown };
    return typeof v.summary === 'string' ? v.summary : '';
  } catch {
    return raw.slice(0, 2000);
  }
}
