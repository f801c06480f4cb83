/**
 * The agent loop: model <-> tools until a verified fix or a budget runs out.
 * The harness owns verification: `finish` triggers a real test run, compared with the baseline.
 * Tool failures are data for the model, never exceptions. After a failed attempt the working
 * tree goes back to the best snapshot so far.
 */
import { limitOf, type ChatMessage, type ChatModel, type ModelReply, type ToolCall } from '../ports/llm.js';
import type { FileChange, GitPort } from '../ports/git.js';
import type { Attempt, LoopResult, Reason, TokenUsage } from './types.js';
import type { Task } from '../task/types.js';
import type { JudgedRun, TestRun, Verdict } from '../verify/types.js';
import { TOOL_SPECS, type ToolBox } from './tools.js';
import { DEFAULT_CONTEXT_TOKENS, firstMessageWithContext, firstUserMessage, systemPrompt } from './prompt.js';
import type { RepoContext } from '../context/index.js';
import { COMPACTION_NOTE, compactionNote, fitToBudget, messagesTokens, messageTokens } from '../context/compact.js';
import { countJsonTokens, countTokens, truncateToTokens } from '../context/tokens.js';
import { quotaStopMessage, tooLargeMessage } from '../budget/rate.js';
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

/** Share of the input limit the loop fills: the endpoint's tokenizer and framing differ a little from ours. */
const FILL = 0.96;
/** 413s answered in a row on one turn before the run gives up. */
const MAX_TOO_LARGE = 3;
/** Short 429s waited out on one turn. */
const MAX_RATE_WAITS = 6;
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

/** The system prompt; with an input limit it names the room of a request and of one read. */
function systemFor(deps: LoopDeps, inputLimit: number, first: string, messageBudget: number): string {
  if (!Number.isFinite(inputLimit)) return systemPrompt(deps.limits);
  const room = { inputTokens: inputLimit, outputTokens: deps.maxOutputTokens ?? 0, readTokens: 0 };
  // a read's room: what the limit leaves after the task without repository context, the model's reply and a margin
  room.readTokens = Math.max(400, Math.floor((messageBudget - countTokens(systemPrompt(deps.limits, room)) - countTokens(first) - 900) * 0.8));
  return systemPrompt(deps.limits, room);
}

export async function runAgentLoop(task: Task, deps: LoopDeps): Promise<LoopOutput> {
  const { model, tools, git, limits } = deps;
  const emit = deps.emit ?? (() => undefined);
  const usage: TokenUsage = { promptTokens: 0, completionTokens: 0, requests: 0 };
  const feedback = (run: TestRun, verdict?: Verdict) => (deps.feedback ? deps.feedback(run, verdict) : failureFeedback(run));
  const attempts: Attempt[] = [];
  const judge: AttemptJudge = deps.judge ?? plainJudge(deps, emit);
  const touched: string[] = [...(deps.start?.touched ?? [])];
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const now = deps.now ?? Date.now;
  // The per-request input limit (learnt lower from a 413) and the share of it the loop fills.
  let inputLimit = deps.maxInputTokens && deps.maxInputTokens > 0 ? deps.maxInputTokens : Number.POSITIVE_INFINITY;
  let fill = FILL;
  const toolTokens = countJsonTokens(TOOL_SPECS.map((t) => ({ type: 'function', function: t })));
  /** The tokens the messages may take in one request. */
  const messageBudget = () => Math.floor(inputLimit * fill) - toolTokens;
  const first = firstUserMessage(task, deps.baseline, feedback(deps.baseline), deps.gate) + (deps.start ? `\n\n${deps.start.note}` : '');
  const system = systemFor(deps, inputLimit, first, messageBudget());
  // The repository context of the first request: within context-tokens, and with an input limit
  // at most 70 % of it, so that the first reads fit beside it (it shrinks further when they do not).
  let contextBudget = deps.context ? Math.min(deps.contextTokens ?? DEFAULT_CONTEXT_TOKENS, Number.isFinite(inputLimit) ? Math.floor(inputLimit * 0.7) : Number.POSITIVE_INFINITY) : 0;
  const firstText = (budgetTokens: number) =>
    deps.redact(firstMessageWithContext(first, system, TOOL_SPECS, deps.context && budgetTokens > 0 ? { repo: deps.context, budgetTokens } : undefined).text);
  const messages: ChatMessage[] = [
    { role: 'system', content: system },
    { role: 'user', content: firstText(contextBudget) },
  ];
  /** Tokens of the part of every request that no compaction can shrink: system prompt, tool schemas, the task without repository context. */
  const fixedTokens = () => toolTokens + messagesTokens([messages[0], { role: 'user', content: deps.redact(first) }]);
  let peak = 0;
  let sent = 0;
  let best: Best = deps.start ? { tree: deps.start.tree, score: score(deps.start.run) } : { tree: deps.baselineTree, score: score(deps.baseline) };
  let iteration = 0;
  let nudges = 0;
  let lastSummary = '';
  let final: TestRun | null = null;

  let stopDetail: string | undefined;
  const done = (reason: Reason, tree: string): LoopOutput => ({
    stopDetail,
    reason,
    summary: lastSummary,
    iterations: iteration,
    attempts,
    final,
    usage,
    tree,
    touched,
    ...(deps.diagnostics ? { diagnostics: { ...deps.diagnostics.stats } } : {}),
  });

  const interrupted = async (why: string): Promise<LoopOutput> => {
    emit({ type: 'note', message: `stopped: ${why}` });
    await git.restore(best.tree);
    stopDetail = why;
    return done('stopped', best.tree);
  };
  // The result message of the last successful edit of the current reply that no check has seen yet, and the files of those edits.
  let uncheckedEdit: number | null = null;
  let uncheckedFiles: string[] = [];
  /** Runs the type and lint check after edits and appends what it found to the last edit's result; the new errors' count. */
  const checkEdits = async (turn: number, share = Number.POSITIVE_INFINITY): Promise<number> => {
    if (uncheckedEdit === null || !deps.diagnostics) return 0;
    const at = uncheckedEdit;
    const batch = uncheckedFiles;
    uncheckedEdit = null;
    uncheckedFiles = [];
    const c = await deps.diagnostics.check(touched, batch);
    if (c.ran.length === 0 && !c.text) return 0;
    emit({ type: 'diagnostics', turn, ran: c.ran, found: c.fresh.length, shown: c.shown, ms: c.ms, text: c.text });
    if (c.text) messages[at] = { ...messages[at], content: `${messages[at].content ?? ''}\n\n${Number.isFinite(share) ? sizeTo(deps.redact(c.text), Math.floor(share / 2)) : deps.redact(c.text)}` };
    return c.fresh.length;
  };
  deps.diagnostics?.warmUp();

  for (let turn = 1; ; turn++) {
    const spent = await budgetSpent(turn);
    if (spent) return spent;
    const halt = await deps.interrupt?.('turn');
    if (halt) return interrupted(halt);
    const answer = await ask(turn);
    if ('stop' in answer) return answer.stop;
    const reply = answer.reply;
    const stopped = reply.toolCalls.length === 0 ? await nudge(reply) : await actOn(reply, turn);
    if (stopped) return stopped;
  }

  /** The next request, fitted to the input limit, and the model's reply recorded; or the loop's end (too large, a model error). */
  async function ask(turn: number): Promise<{ stop: LoopOutput } | { reply: ModelReply }> {
    const fresh = messages.length - sent;
    const fitted = await fitRequest();
    if ('part' in fitted) return { stop: await stopTooLarge(fitted) };
    const sending = messages.slice(messages.length - fresh - (fitted.noted ? 1 : 0));
    sent = messages.length;
    emit({ type: 'model-request', turn, newMessages: sending });
    const answer = await request();
    if ('stop' in answer) return answer;
    const reply = answer.reply;
    recordUsage(reply);
    emit({ type: 'model-reply', turn, reply });
    // Redacted like everything else that leaves the process (the model may echo a secret it saw in a file).
    const echoed = reply.toolCalls.map((c) => ({ ...c, arguments: deps.redact(c.arguments) }));
    messages.push({ role: 'assistant', content: reply.content === null ? null : deps.redact(reply.content), toolCalls: echoed.length ? echoed : undefined });
    return { reply };
  }

  /** A reply without a tool call: the model is asked to go on, three times at most, then the loop ends as given up. */
  async function nudge(reply: ModelReply): Promise<LoopOutput | null> {
    nudges++;
    if (nudges > 3) {
      lastSummary = lastSummary || (reply.content ?? '').trim();
      await git.restore(best.tree);
      return done('model-gave-up', best.tree);
    }
    const why = reply.finishReason === 'length' ? 'Your answer was cut off at the token limit. Make smaller steps.' : 'Please continue by calling a tool.';
    messages.push({ role: 'user', content: `${why} Use the tools to inspect and edit files, and call finish when the fix is complete.` });
    return null;
  }

  /** The tool calls of one reply, in order; the loop's end when one of them ends it (a verified attempt, a stop), else null. */
  async function actOn(reply: ModelReply, turn: number): Promise<LoopOutput | null> {
    // The room the results of this reply may take in the next request, shared by the calls that produce text.
    const producing = Math.max(1, reply.toolCalls.filter((c) => PRODUCERS.has(c.name)).length);
    const share = Number.isFinite(inputLimit)
      ? Math.max(300, Math.floor((messageBudget() + toolTokens - fixedTokens() - messageTokens(messages[messages.length - 1]) - noteTokens() - 300) / producing))
      : Number.POSITIVE_INFINITY;
    const sized = (text: string) => (Number.isFinite(share) ? sizeTo(text, share) : text);
    let finished = false;
    for (const call of reply.toolCalls) {
      if (finished) {
        messages.push(toolMessage(call, 'Not executed: finish was called earlier in the same reply.'));
        continue;
      }
      if ((call.name === 'finish' || call.name === 'run_tests') && (await checkEdits(turn)) > 0) {
        // The model has not seen these errors yet: a test run is not spent on them.
        const what = call.name === 'finish' ? 'Not verified, and not counted as an attempt' : 'The tests were not run';
        messages.push(toolMessage(call, `${what}: the edits of this reply introduced new type or lint errors, listed in the result of the last edit above. Fix them, or call ${call.name} again if they are intended.`));
        emit({ type: 'tool', turn, name: call.name, arguments: call.arguments, ok: false, display: `${call.name}: held back (new type or lint errors)`, result: '' });
        continue;
      }
      if (call.name === 'finish') {
        // The attempt's checkpoint is read while the attempt is verified (the API round trip hides
        // behind the tests) and decides first: a stopped run uses nothing of this attempt.
        const halting = deps.interrupt?.('attempt').catch(() => null);
        const next = iteration + 1;
        const summary = parseSummary(call.arguments);
        emit({ type: 'verifying', iteration: next });
        const outcome = await verifyAttempt(next, summary, best);
        const halt = await halting;
        if (halt) return interrupted(halt);
        finished = true;
        iteration = next;
        lastSummary = summary;
        // The attempt's outcome is a value; the loop's state changes here and only here.
        attempts.push(outcome.attempt);
        emit({ type: 'attempt', attempt: outcome.attempt });
        if (outcome.final) final = outcome.final;
        if (outcome.best) best = outcome.best;
        if (outcome.stopDetail) stopDetail = outcome.stopDetail;
        messages.push(toolMessage(call, sized(deps.redact(outcome.message))));
        if (outcome.stop) return done(outcome.stop, outcome.tree);
        continue;
      }
      if (call.name === 'run_tests') {
        const { run, verdict } = await deps.runTests();
        emit({ type: 'test-run', purpose: 'run_tests', iteration, run });
        const text = run.succeeded ? `Tests pass. ${verdict.summary}` : `${verdict.summary}\n\n${feedback(run, verdict)}`;
        emit({ type: 'tool', turn, name: call.name, arguments: call.arguments, ok: true, display: `run_tests: ${verdict.summary}`, result: text });
        messages.push(toolMessage(call, sized(deps.redact(text))));
        continue;
      }
      const result = await tools.execute(call.name, call.arguments, { maxTokens: share });
      if (result.changedPath && !touched.includes(result.changedPath)) touched.push(result.changedPath);
      emit({ type: 'tool', turn, name: call.name, arguments: call.arguments, ok: result.ok, display: result.display, result: result.content });
      messages.push(toolMessage(call, sized(deps.redact(result.content))));
      if (result.changedPath) {
        uncheckedEdit = messages.length - 1;
        uncheckedFiles.push(result.changedPath);
      }
    }
    await checkEdits(turn, share);
    return null;
  }

  /** The model request cap, the token cap or the run's budget ran out: the loop ends at the best state; null otherwise. */
  async function budgetSpent(turn: number): Promise<LoopOutput | null> {
    if (turn > limits.maxTurns || (limits.maxTokens > 0 && usage.promptTokens + usage.completionTokens >= limits.maxTokens)) {
      emit({ type: 'note', message: `budget exhausted after ${turn - 1} model requests and ${usage.promptTokens + usage.completionTokens} tokens` });
      await git.restore(best.tree);
      stopDetail = `the model request cap (${limits.maxTurns}) ran out`;
      return done('budget-exhausted', best.tree);
    }
    const over = deps.budget?.exceeded();
    if (!over) return null;
    emit({ type: 'note', message: `budget exhausted: ${over.message}` });
    await git.restore(best.tree);
    stopDetail = over.message;
    return done('budget-exhausted', best.tree);
  }

  function recordUsage(reply: ModelReply): void {
    deps.budget?.record(reply.usage);
    usage.requests++;
    usage.promptTokens += reply.usage.promptTokens;
    usage.completionTokens += reply.usage.completionTokens;
    peak = Math.max(peak, reply.usage.promptTokens);
    usage.peakPromptTokens = peak;
    if (Number.isFinite(inputLimit)) usage.inputLimit = inputLimit;
  }

  /** The compaction note's diff budget: at most 3,000 tokens, and an eighth of a bounded request. */
  function noteTokens(): number {
    return Number.isFinite(inputLimit) ? Math.min(3000, Math.floor(inputLimit / 8)) : 3000;
  }

  /**
   * Fits the next request into the input limit, and into the compaction threshold (`compactTokens`,
   * where older tool results alone are summarised): older tool results summarised, then the
   * repository context of the first message shrunk, then earlier steps summarised or dropped and
   * the latest results cut; after any of it, the note of the changes so far (`noted`). When even
   * that does not fit: the part that alone is too big (the run cannot go on).
   */
  async function fitRequest(): Promise<{ part: string; partTokens: number } | { noted: boolean }> {
    const budget = messageBudget();
    const soft = deps.compactTokens ?? Math.max(12_000, 2 * (deps.contextTokens ?? DEFAULT_CONTEXT_TOKENS));
    const before = messagesTokens(messages) + toolTokens;
    if (before - toolTokens <= Math.min(soft, budget)) return { noted: false };
    const kept = messages.filter((m) => !(m.role === 'user' && m.content.startsWith(COMPACTION_NOTE)));
    const note: ChatMessage = { role: 'user', content: deps.redact(compactionNote(await git.diff(deps.baselineTree, await git.snapshot()), noteTokens())) };
    const room = Math.min(soft, budget) - messageTokens(note);
    // older tool results first (the only step without an input limit)
    let fit = fitToBudget(kept, room, 1);
    if (!fit.fits && Number.isFinite(inputLimit)) {
      for (const level of [Math.floor(contextBudget / 2), 0].filter((b) => b < contextBudget)) {
        contextBudget = level;
        kept[1] = { role: 'user', content: firstText(level) };
        fit = fitToBudget(kept, room, 1);
        fit.steps.push(level ? `repository context cut to ${level} tokens` : 'repository context left out');
        if (fit.fits) break;
      }
      if (!fit.fits) {
        const steps = fit.steps;
        fit = fitToBudget(kept, room, 4);
        fit.steps.unshift(...steps.filter((x) => x.startsWith('repository')));
      }
      if (!fit.fits) {
        const fixed = fixedTokens();
        if (fixed > budget + toolTokens - 200) {
          const sys = messageTokens(messages[0]) + toolTokens;
          const task = messageTokens({ role: 'user', content: first });
          return sys >= task ? { part: 'the system prompt with the tool schemas', partTokens: sys } : { part: 'the task (issue text and the baseline test output)', partTokens: task };
        }
        return { part: 'the task with the latest step', partTokens: messagesTokens(fit.messages) + toolTokens };
      }
    }
    if (fit.steps.length === 0 && messagesTokens(messages) <= budget) return { noted: false };
    messages.splice(0, messages.length, ...fit.messages, note);
    const limit = Number.isFinite(inputLimit) && before > budget + toolTokens ? `the ${inputLimit}-token input limit` : 'the compaction threshold';
    emit({ type: 'note', message: `conversation compacted to ${limit}: ${[...fit.steps, 'the changes so far noted'].join(', ')} (${before} -> ${messagesTokens(messages) + toolTokens} tokens)` });
    return { noted: true };
  }

  /** The run's stop when a request cannot be made small enough. */
  async function stopTooLarge(unfit: { part: string; partTokens: number }): Promise<LoopOutput> {
    stopDetail = tooLargeMessage({ ...unfit, limit: inputLimit });
    emit({ type: 'note', message: `model request too large: ${stopDetail}` });
    await git.restore(best.tree);
    return done('model-error', best.tree);
  }

  /**
   * One model request with the endpoint's limits handled: a 413 teaches the real limit, the
   * request is fitted again and retried; a short 429 is waited out within the wall-time budget;
   * a daily quota, or a wait longer than the budget, stops the run keeping the best attempt.
   */
  async function request(): Promise<{ reply: ModelReply } | { stop: LoopOutput }> {
    let tooLarge = 0;
    let waits = 0;
    for (;;) {
      try {
        return { reply: await model.complete(messages, TOOL_SPECS) };
      } catch (e) {
        const why = deps.redact(e instanceof Error ? e.message : String(e));
        const hit = limitOf(e);
        if (hit?.kind === 'too-large' && tooLarge < MAX_TOO_LARGE) {
          tooLarge++;
          const sentTokens = messagesTokens(messages) + toolTokens;
          const learnt = hit.limitTokens && hit.limitTokens < inputLimit ? hit.limitTokens : null;
          if (learnt) inputLimit = learnt;
          else if (!Number.isFinite(inputLimit)) inputLimit = Math.floor(sentTokens * 0.85);
          else fill *= 0.9;
          emit({ type: 'note', message: `the endpoint refused a request of ~${sentTokens} tokens as too large${learnt ? ` (its limit: ${learnt} tokens)` : ''}; fitting it to ${Math.floor(inputLimit * fill)} tokens and retrying` });
          const fitted = await fitRequest();
          if ('part' in fitted) return { stop: await stopTooLarge(fitted) };
          continue;
        }
        if (hit?.kind === 'rate-limited' || hit?.kind === 'daily-quota') {
          const left = deps.budget?.remainingMs?.() ?? Number.POSITIVE_INFINITY;
          const wait = hit.retryAfterMs ?? Math.min(60_000, 5_000 * 2 ** waits);
          if (hit.kind === 'rate-limited' && wait < left && waits < MAX_RATE_WAITS) {
            waits++;
            emit({ type: 'note', message: `the endpoint's rate limit: waiting ${Math.ceil(wait / 1000)}s before retrying the request` });
            await sleep(wait);
            continue;
          }
          const asks = hit.retryAfterMs !== undefined ? ` (the server asks to wait ${Math.ceil(hit.retryAfterMs / 1000)}s)` : '';
          stopDetail = `${quotaStopMessage({ retryAfterMs: hit.retryAfterMs, daily: hit.kind === 'daily-quota', now: now(), remainingMs: left })}${hit.kind === 'daily-quota' ? '' : asks}`;
          emit({ type: 'note', message: `model request refused: ${why}` });
          emit({ type: 'note', message: `budget exhausted: ${stopDetail}` });
          await git.restore(best.tree);
          return { stop: done('budget-exhausted', best.tree) };
        }
        // The adapter already retried what is worth retrying (5xx, timeouts, connection resets);
        // what reaches here ends the run cleanly with what was verified so far.
        emit({ type: 'note', message: `model request failed: ${why}` });
        await git.restore(best.tree);
        stopDetail = why;
        return { stop: done('model-error', best.tree) };
      }
    }
  }

  /**
   * Verifies one attempt (the model called finish) and says what follows, as a value: the
   * attempt's record, the message for the model, whether the loop stops, and the new best
   * state, last test run or stop detail when they change. Reads the loop's state, never writes it.
   */
  async function verifyAttempt(iteration: number, lastSummary: string, best: Best): Promise<AttemptOutcome> {
    const out: Omit<AttemptOutcome, 'message' | 'stop' | 'tree' | 'attempt'> & { attempt?: Attempt } = {};
    const decided = await decide();
    if (!out.attempt) throw new Error('internal: an attempt was judged without a record');
    return { ...decided, ...out, attempt: out.attempt };

    async function decide(): Promise<{ message: string; stop?: Reason; tree: string }> {
      const tree = await git.snapshot();
      const changes = (await git.changes(deps.baselineTree, tree)).filter((c) => touched.includes(c.path) || (c.oldPath !== undefined && touched.includes(c.oldPath)));
      const changedFiles = changes.map((c) => c.path);
      const outOfAttempts = iteration >= limits.maxIterations;
      const record = (verdict: Verdict, extra: Partial<Attempt> = {}): Attempt => ({ iteration, summary: lastSummary, verdict, changedFiles, rolledBack: false, ...extra });
      if (changes.length === 0) {
        out.attempt = record(noVerdict('no changes'));
        if (outOfAttempts) return { message: 'No changes.', stop: 'no-changes', tree: best.tree };
        return { message: 'You have not changed any file yet, so there is nothing to verify. Edit the code, then call finish.', tree };
      }
      // Every check of the attempt, in one place (verify/judge.ts); the loop keeps its own state.
      const j: Judgement = await judge({ iteration, tree, changes });
      if (j.run) out.final = j.run;
      if (j.outcome === 'accepted') {
        out.attempt = record(j.verdict, j.proof ? { proof: j.proof } : {});
        return { message: j.message, stop: 'verified', tree };
      }
      if (j.outcome === 'refused') {
        const verdict = j.verdict ? { ...j.verdict, ok: false, summary: `${j.verdict.summary}; ${j.reason}` } : noVerdict(j.reason);
        if (j.stop) {
          out.attempt = record(verdict, { rolledBack: true });
          await git.restore(best.tree);
          if (j.stopDetail) out.stopDetail = j.stopDetail;
          return { message: j.message, stop: j.stop, tree: best.tree };
        }
        out.attempt = record(verdict, j.proof ? { proof: j.proof } : {});
        // A refused attempt: the message goes back to the model and the tree stays; out of attempts, the loop ends at the best state.
        if (!outOfAttempts) return { message: j.message, tree };
        await git.restore(best.tree);
        return { message: j.message, stop: 'tests-still-failing', tree: best.tree };
      }
      const { run, verdict } = j;
      const s = score(run);
      let rolledBack = false;
      let note: string;
      if (s < best.score) {
        out.best = { tree, score: s };
        best = out.best; // the local view: what follows in this attempt sees the new best
        note = 'This attempt is the best so far (fewer failures than before), so your edits are kept; continue from here.';
      } else {
        await git.restore(best.tree);
        rolledBack = true;
        emit({ type: 'rollback', iteration, toTree: best.tree, reason: 'attempt did not improve on the best state' });
        note = 'This attempt did not improve on the best state so far, so the working tree was ROLLED BACK to it: re-read files before editing them again.';
      }
      out.attempt = record(verdict, { rolledBack });
      if (outOfAttempts) {
        return { message: `Verification failed: ${verdict.summary}`, stop: 'tests-still-failing', tree: best.tree };
      }
      const msg = [
        `Verification FAILED (attempt ${iteration} of ${limits.maxIterations}): ${verdict.summary}`,
        verdict.newlyFailing.length ? `Tests that passed before and fail now: ${verdict.newlyFailing.join(', ')}` : '',
        verdict.stillFailing.length ? `Still failing: ${verdict.stillFailing.join(', ')}` : '',
        describeTaskFailures(verdict),
        feedback(run, verdict),
        note,
      ]
        .filter(Boolean)
        .join('\n\n');
      return { message: msg, tree };
    }
  }
}

const noVerdict = (summary: string): Verdict => ({ ok: false, newlyFailing: [], nowPassing: [], stillFailing: [], summary });

/** A tool result within `maxTokens`, with a note of the cut. */
function sizeTo(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  return `${truncateToTokens(text, Math.max(50, maxTokens - 40))}\n[cut to fit the per-request token budget (${maxTokens} tokens for this result); ask for less at a time]`;
}

function toolMessage(call: ToolCall, content: string): ChatMessage {
  return { role: 'tool', toolCallId: call.id, content };
}

function parseSummary(raw: string): string {
  try {
    const v = JSON.parse(raw) as { summary?: unknown };
    return typeof v.summary === 'string' ? v.summary : '';
  } catch {
    return raw.slice(0, 2000);
  }
}
