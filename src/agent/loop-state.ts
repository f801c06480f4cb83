/**
 * The state one run of the agent loop changes, and its only owner: usage, attempts, the best
 * state so far, the files the model touched, the edits no type or lint check has seen yet, the
 * count of nudges, the last summary and test run. The loop (loop.ts) asks it to change through
 * these methods; nothing else writes it. Its output is the loop's result.
 */
import type { ModelReply } from '../ports/llm.js';
import type { TestRun } from '../verify/types.js';
import type { Attempt, Reason, TokenUsage } from './types.js';
import type { DiagnosticsStats } from '../diagnostics/watch.js';
import type { LoopOutput } from './loop-types.js';
import { score, type AttemptOutcome, type Best } from './attempt.js';

/** Where a run starts: the untouched code (the baseline) or an earlier best attempt. */
export interface StateStart {
  tree: string;
  run: TestRun;
  touched?: string[];
}

export class LoopState {
  readonly usage: TokenUsage = { promptTokens: 0, completionTokens: 0, requests: 0 };
  readonly attempts: Attempt[] = [];
  readonly touched: string[];
  private bestSoFar: Best;
  private iterations = 0;
  private nudges = 0;
  private summary = '';
  private final: TestRun | null = null;
  private detail?: string;
  private peak = 0;
  /** The result message of the last successful edit of the current reply that no check has seen yet, and the files of those edits. */
  private uncheckedEdit: number | null = null;
  private uncheckedFiles: string[] = [];

  constructor(start: StateStart) {
    this.touched = [...(start.touched ?? [])];
    this.bestSoFar = { tree: start.tree, score: score(start.run) };
  }

  /** The best state so far: its tree and score. */
  get best(): Best {
    return this.bestSoFar;
  }

  /** Attempts verified so far. */
  get iteration(): number {
    return this.iterations;
  }

  get lastSummary(): string {
    return this.summary;
  }

  /** One model reply's usage; `inputLimit`: the per-request limit the conversation works within (Infinity: none). */
  recordUsage(usage: ModelReply['usage'], inputLimit: number): void {
    this.usage.requests++;
    this.usage.promptTokens += usage.promptTokens;
    this.usage.completionTokens += usage.completionTokens;
    this.peak = Math.max(this.peak, usage.promptTokens);
    this.usage.peakPromptTokens = this.peak;
    if (Number.isFinite(inputLimit)) this.usage.inputLimit = inputLimit;
  }

  /** Prompt and completion tokens so far. */
  tokens(): number {
    return this.usage.promptTokens + this.usage.completionTokens;
  }

  /** A reply without a tool call: how many there have been, this one included. */
  nudged(): number {
    return ++this.nudges;
  }

  /** The model gave up: its last words are the summary when no attempt left one. */
  giveUp(words: string): void {
    this.summary = this.summary || words;
  }

  /** The loop ends early with this reason, for the report (one sentence, redacted). */
  stopWith(detail: string): void {
    this.detail = detail;
  }

  /** A file the model wrote: part of the change, in order of first touch; `at`: the edit's result message, for the type and lint check. */
  edited(path: string, at: number): void {
    if (!this.touched.includes(path)) this.touched.push(path);
    this.uncheckedEdit = at;
    this.uncheckedFiles.push(path);
  }

  /** The edits no check has seen yet (the message to append the findings to, and their files), now seen; null when none. */
  takeUnchecked(): { at: number; files: string[] } | null {
    if (this.uncheckedEdit === null) return null;
    const out = { at: this.uncheckedEdit, files: this.uncheckedFiles };
    this.uncheckedEdit = null;
    this.uncheckedFiles = [];
    return out;
  }

  /** A verified attempt (the model's `summary` with it) and what it led to: recorded, and the best state, last run and stop detail moved on. */
  attempted(summary: string, outcome: AttemptOutcome): void {
    this.iterations++;
    this.summary = summary;
    this.attempts.push(outcome.attempt);
    if (outcome.final) this.final = outcome.final;
    if (outcome.best) this.bestSoFar = outcome.best;
    if (outcome.stopDetail) this.detail = outcome.stopDetail;
  }

  /** The loop's result: it stopped for `reason` at `tree`. */
  output(reason: Reason, tree: string, diagnostics?: DiagnosticsStats): LoopOutput {
    return {
      stopDetail: this.detail,
      reason,
      summary: this.summary,
      iterations: this.iterations,
      attempts: this.attempts,
      final: this.final,
      usage: this.usage,
      tree,
      touched: this.touched,
      ...(diagnostics ? { diagnostics: { ...diagnostics } } : {}),
    };
  }
}
