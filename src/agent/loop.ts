/**
 * The attempt loop: model <-> tools until a verified fix or a budget runs out.
 * The harness owns verification: `finish` triggers a real test run, compared with the baseline.
 * Tool failures are data for the model, never exceptions. After a failed attempt the working
 * tree goes back to the best snapshot so far.
 *
 * Units: the conversation (conversation.ts: messages, fitting, what the endpoint needs back), the
 * model caller (model-caller.ts: the endpoint's answers, limits, repairs, retries), the loop's
 * state (loop-state.ts: a LoopState owns everything a run changes), one attempt judged
 * (attempt.ts: a value, the state moved on by it) and this loop (turns, tool calls, checkpoints).
 * The loop's contract (LoopDeps, LoopEvent, LoopOutput) is in loop-types.ts.
 */
import type { ModelReply, ToolCall } from '../ports/llm.js';
import type { FileChange } from '../ports/git.js';
import type { Reason } from './types.js';
import type { Task } from '../task/types.js';
import type { TestRun, Verdict } from '../verify/types.js';
import { TOOL_SPECS } from './tools.js';
import { firstUserMessage } from './prompt.js';
import { Conversation, sizeTo } from './conversation.js';
import { callModel, tooLargeStop, type CallStop } from './model-caller.js';
import { createJudge, type AttemptJudge } from '../verify/judge.js';
import { failureFeedback } from '../verify/test-run.js';
import type { LoopDeps, LoopEvent, LoopOutput } from './loop-types.js';
import { LoopState } from './loop-state.js';
import { parseSummary, verifyAttempt } from './attempt.js';

export type { LoopEvent, LoopLimits, LoopDeps, LoopStart, LoopBudget, LoopOutput } from './loop-types.js';

/** Tools whose results take room in the next request. */
const PRODUCERS = new Set(['read_file', 'search', 'list_files', 'run_tests', 'finish']);

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

/** One run of the loop: what it works with (never changed) and its state (a LoopState, changed only through its methods). */
interface Run {
  readonly task: Task;
  readonly deps: LoopDeps;
  readonly conv: Conversation;
  readonly emit: (e: LoopEvent) => void;
  readonly judge: AttemptJudge;
  readonly feedback: (run: TestRun, verdict?: Verdict) => string;
  readonly state: LoopState;
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
  const state = new LoopState(deps.start ?? { tree: deps.baselineTree, run: deps.baseline });
  const run: Run = { task, deps, conv, emit, feedback, judge: deps.judge ?? plainJudge(deps, emit), state };
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
  return run.state.output(reason, tree, run.deps.diagnostics?.stats);
}

/** The loop ends at the best state so far: the working tree goes back to it. */
async function stopAtBest(run: Run, reason: Reason, detail?: string): Promise<LoopOutput> {
  if (detail !== undefined) run.state.stopWith(detail);
  await run.deps.git.restore(run.state.best.tree);
  return done(run, reason, run.state.best.tree);
}

async function interrupted(run: Run, why: string): Promise<LoopOutput> {
  run.emit({ type: 'note', message: `stopped: ${why}` });
  return stopAtBest(run, 'stopped', why);
}

/** The model request cap, the token cap or the run's budget ran out: the loop ends at the best state; null otherwise. */
async function budgetSpent(run: Run, turn: number): Promise<LoopOutput | null> {
  const { limits } = run.deps;
  const used = run.state.tokens();
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
  run.state.recordUsage(reply.usage, run.conv.inputLimit);
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
  const nudges = run.state.nudged();
  const filtered = reply.finishReason === 'content_filter';
  if (nudges > 3) {
    run.state.giveUp((reply.content ?? '').trim());
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
  if (!deps.diagnostics) return 0;
  const unchecked = run.state.takeUnchecked();
  if (!unchecked) return 0;
  const c = await deps.diagnostics.check(run.state.touched, unchecked.files);
  if (c.ran.length === 0 && !c.text) return 0;
  run.emit({ type: 'diagnostics', turn, ran: c.ran, found: c.fresh.length, shown: c.shown, ms: c.ms, text: c.text });
  if (c.text) run.conv.appendTo(unchecked.at, Number.isFinite(share) ? sizeTo(deps.redact(c.text), Math.floor(share / 2)) : deps.redact(c.text));
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
      emit({ type: 'test-run', purpose: 'run_tests', iteration: run.state.iteration, run: tests });
      const text = tests.succeeded ? `Tests pass. ${verdict.summary}` : `${verdict.summary}\n\n${run.feedback(tests, verdict)}`;
      emit({ type: 'tool', turn, name: call.name, arguments: call.arguments, ok: true, display: `run_tests: ${verdict.summary}`, result: text });
      result(call, text);
      continue;
    }
    const r = await deps.tools.execute(call.name, call.arguments, { maxTokens: share });
    emit({ type: 'tool', turn, name: call.name, arguments: call.arguments, ok: r.ok, display: r.display, result: r.content });
    const at = result(call, r.content);
    if (r.changedPath) run.state.edited(r.changedPath, at);
  }
  await checkEdits(run, turn, share);
  return null;
}

/** The model called finish: the attempt is verified, and the state moves on here and only here. */
async function finishCall(run: Run, call: ToolCall): Promise<{ stop: LoopOutput } | { message: string; ends?: { reason: Reason; tree: string } }> {
  // The attempt's checkpoint is read while the attempt is verified (the API round trip hides
  // behind the tests) and decides first: a stopped run uses nothing of this attempt.
  const halting = run.deps.interrupt?.('attempt').catch(() => null);
  const { state } = run;
  const next = state.iteration + 1;
  const summary = parseSummary(call.arguments);
  run.emit({ type: 'verifying', iteration: next });
  const outcome = await verifyAttempt({ ...run, touched: state.touched }, next, summary, state.best);
  const halt = await halting;
  if (halt) return { stop: await interrupted(run, halt) };
  state.attempted(summary, outcome);
  run.emit({ type: 'attempt', attempt: outcome.attempt });
  return { message: outcome.message, ...(outcome.stop ? { ends: { reason: outcome.stop, tree: outcome.tree } } : {}) };
}
