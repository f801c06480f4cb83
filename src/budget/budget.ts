/**
 * Hard budgets of a run: total tokens, estimated cost and wall time (iterations and model
 * requests are capped by the loop itself). Pure bookkeeping: the clock is injected.
 * Reaching a cap ends the run with a partial report that names the cap, never silently.
 */
import type { BudgetLimits } from '../settings/types.js';

export interface Price {
  /** USD per million prompt tokens. */
  input: number;
  /** USD per million completion tokens. */
  output: number;
}

/**
 * List prices in USD per million tokens (as published by the providers; override them with
 * the `model-prices` input or `budgets.prices` of the policy). Matched by the model name
 * without a provider prefix (`openai/`), longest prefix first.
 */
export const DEFAULT_PRICES: Record<string, Price> = {
  'gpt-4.1': { input: 2, output: 8 },
  'gpt-4.1-mini': { input: 0.4, output: 1.6 },
  'gpt-4.1-nano': { input: 0.1, output: 0.4 },
  'gpt-4o': { input: 2.5, output: 10 },
  'gpt-4o-mini': { input: 0.15, output: 0.6 },
  'gpt-5': { input: 1.25, output: 10 },
  'gpt-5-mini': { input: 0.25, output: 2 },
  'gpt-5-nano': { input: 0.05, output: 0.4 },
  o3: { input: 2, output: 8 },
  'o3-mini': { input: 1.1, output: 4.4 },
  'o4-mini': { input: 1.1, output: 4.4 },
};


/** The price of `model`: overrides first (exact name, then without provider prefix), then the table by longest prefix. */
export function priceOf(model: string, overrides: Record<string, Price> = {}): Price | null {
  const bare = model.includes('/') ? model.slice(model.lastIndexOf('/') + 1) : model;
  for (const name of [model, bare]) {
    if (overrides[name]) return overrides[name];
  }
  const lower = bare.toLowerCase();
  let best: { key: string; price: Price } | null = null;
  for (const table of [overrides, DEFAULT_PRICES]) {
    for (const [key, price] of Object.entries(table)) {
      const k = key.toLowerCase().replace(/^.*\//, '');
      if ((lower === k || lower.startsWith(`${k}-`)) && (!best || k.length > best.key.length)) best = { key: k, price };
    }
    if (best) return best.price;
  }
  return null;
}

export function costOf(price: Price | null, promptTokens: number, completionTokens: number): number | null {
  if (!price) return null;
  return (promptTokens * price.input + completionTokens * price.output) / 1_000_000;
}

export type BudgetKind = 'tokens' | 'cost' | 'wall-time';

export interface BudgetStop {
  kind: BudgetKind;
  /** One sentence for the report. */
  message: string;
}

function minutes(ms: number): string {
  const m = ms / 60_000;
  return m >= 10 ? `${Math.round(m)} min` : `${m.toFixed(1)} min`;
}

export class Budget {
  promptTokens = 0;
  completionTokens = 0;
  readonly startedAt: number;
  private readonly price: Price | null;

  constructor(
    readonly limits: BudgetLimits,
    readonly model: string,
    private readonly now: () => number = Date.now,
  ) {
    this.startedAt = now();
    this.price = priceOf(model, limits.prices);
  }

  record(usage: { promptTokens: number; completionTokens: number }): void {
    this.promptTokens += Math.max(0, usage.promptTokens || 0);
    this.completionTokens += Math.max(0, usage.completionTokens || 0);
  }

  get tokens(): number {
    return this.promptTokens + this.completionTokens;
  }

  /** Estimated USD so far; null when the model's price is unknown. */
  get costUsd(): number | null {
    return costOf(this.price, this.promptTokens, this.completionTokens);
  }

  get elapsedMs(): number {
    return this.now() - this.startedAt;
  }

  /** Milliseconds left before the wall-time cap (Infinity without one). */
  remainingMs(): number {
    return this.limits.maxWallMs > 0 ? this.limits.maxWallMs - this.elapsedMs : Number.POSITIVE_INFINITY;
  }

  /** The first cap reached, or null. */
  exceeded(): BudgetStop | null {
    const l = this.limits;
    if (l.maxTokens > 0 && this.tokens >= l.maxTokens) {
      return { kind: 'tokens', message: `the token budget ran out: ${this.tokens} tokens used, the cap is ${l.maxTokens}` };
    }
    const cost = this.costUsd;
    if (l.maxCostUsd > 0 && cost !== null && cost >= l.maxCostUsd) {
      return { kind: 'cost', message: `the cost budget ran out: about $${cost.toFixed(2)} spent, the cap is $${l.maxCostUsd.toFixed(2)}` };
    }
    if (l.maxWallMs > 0 && this.elapsedMs >= l.maxWallMs) {
      return { kind: 'wall-time', message: `the wall-time budget ran out: ${minutes(this.elapsedMs)} elapsed, the cap is ${minutes(l.maxWallMs)}` };
    }
    return null;
  }

  /** One line for the report. */
  describe(): string {
    const l = this.limits;
    const cost = this.costUsd;
    const costText =
      cost === null
        ? `cost unknown (no price for model "${this.model}"; set model-prices)${l.maxCostUsd > 0 ? `, cap $${l.maxCostUsd.toFixed(2)} not enforceable` : ''}`
        : `cost ~$${cost.toFixed(cost < 0.1 ? 4 : 2)}${l.maxCostUsd > 0 ? ` of $${l.maxCostUsd.toFixed(2)}` : ''}`;
    return [
      `tokens ${this.tokens}${l.maxTokens > 0 ? ` of ${l.maxTokens}` : ''}`,
      costText,
      `wall time ${minutes(this.elapsedMs)}${l.maxWallMs > 0 ? ` of ${minutes(l.maxWallMs)}` : ''}`,
    ].join(' · ');
  }
}
