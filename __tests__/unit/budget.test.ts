import { Budget, costOf, priceOf, DEFAULT_PRICES } from '../../src/budget/budget.js';

describe('price table', () => {
  test('provider prefixes, dated variants and longest prefix', () => {
    expect(priceOf('openai/gpt-4.1')).toEqual(DEFAULT_PRICES['gpt-4.1']);
    expect(priceOf('gpt-4.1-mini-2025-04-14')).toEqual(DEFAULT_PRICES['gpt-4.1-mini']);
    expect(priceOf('gpt-4o-2024-08-06')).toEqual(DEFAULT_PRICES['gpt-4o']);
    expect(priceOf('llama3:8b')).toBeNull();
  });

  test('overrides win', () => {
    expect(priceOf('openai/gpt-4.1', { 'openai/gpt-4.1': { input: 0, output: 0 } })).toEqual({ input: 0, output: 0 });
    expect(priceOf('llama3', { llama3: { input: 0.1, output: 0.2 } })).toEqual({ input: 0.1, output: 0.2 });
    expect(costOf({ input: 2, output: 8 }, 1_000_000, 500_000)).toBeCloseTo(6);
  });
});

describe('Budget', () => {
  test('tokens, cost and wall time each stop the run, naming the cap', () => {
    let now = 0;
    const b = new Budget({ maxTokens: 1000, maxCostUsd: 0, maxWallMs: 0, prices: {} }, 'x', () => now);
    b.record({ promptTokens: 900, completionTokens: 99 });
    expect(b.exceeded()).toBeNull();
    b.record({ promptTokens: 1, completionTokens: 0 });
    expect(b.exceeded()).toEqual({ kind: 'tokens', message: 'the token budget ran out: 1000 tokens used, the cap is 1000' });

    const c = new Budget({ maxTokens: 0, maxCostUsd: 1, maxWallMs: 0, prices: {} }, 'openai/gpt-4.1', () => now);
    c.record({ promptTokens: 400_000, completionTokens: 25_000 });
    expect(c.exceeded()?.kind).toBe('cost');
    expect(c.describe()).toContain('cost ~$1.00 of $1.00');

    const w = new Budget({ maxTokens: 0, maxCostUsd: 0, maxWallMs: 60_000, prices: {} }, 'x', () => now);
    now = 30_000;
    expect(w.remainingMs()).toBe(30_000);
    expect(w.exceeded()).toBeNull();
    now = 60_000;
    expect(w.exceeded()?.message).toBe('the wall-time budget ran out: 1.0 min elapsed, the cap is 1.0 min');
  });

  test('an unknown price is said, not guessed', () => {
    const b = new Budget({ maxTokens: 0, maxCostUsd: 5, maxWallMs: 0, prices: {} }, 'local-llm', () => 0);
    b.record({ promptTokens: 10_000_000, completionTokens: 0 });
    expect(b.exceeded()).toBeNull();
    expect(b.costUsd).toBeNull();
    expect(b.describe()).toContain('cost unknown (no price for model "local-llm"; set model-prices), cap $5.00 not enforceable');
  });
});
