/**
 * Settings (action inputs) + policy -> the effective settings of a run. Pure.
 *
 * - limits and budgets: the stricter of the two wins (a cap of 0 in the inputs means "none",
 *   so the policy's cap applies);
 * - commands: an explicit workflow input wins, else the policy's, else detection;
 * - forbidden paths are added to the protected paths; allowed paths come from the policy;
 * - prices: the policy's override the inputs', which override the built-in table.
 */
import type { SettingsInput } from '../settings/types.js';
import type { Policy } from './schema.js';

const stricter = (a: number, b: number | undefined): number => (b === undefined ? a : a > 0 ? Math.min(a, b) : b);

export function applyPolicy(settings: SettingsInput, policy: Policy, source: string): SettingsInput {
  const budget = settings.budget;
  const b = policy.budgets;
  const l = policy.limits;
  const forbidden = policy.paths.forbidden.filter((g) => !settings.protectedPaths.includes(g));
  return {
    ...settings,
    testCommand: settings.testCommand ?? policy.commands.test ?? null,
    setupCommand: settings.setupCommand ?? policy.commands.setup ?? null,
    maxIterations: stricter(settings.maxIterations, l['max-iterations']),
    maxChangedFiles: stricter(settings.maxChangedFiles, l['max-changed-files']),
    maxChangedLines: stricter(settings.maxChangedLines, l['max-changed-lines']),
    protectedPaths: [...settings.protectedPaths, ...forbidden],
    allowedPaths: [...policy.paths.allowed],
    budget: {
      maxTokens: stricter(budget.maxTokens, b['max-tokens']),
      maxCostUsd: stricter(budget.maxCostUsd, b['max-cost-usd']),
      maxWallMs: stricter(budget.maxWallMs, b['max-minutes'] === undefined ? undefined : b['max-minutes'] * 60_000),
      prices: { ...budget.prices, ...b.prices },
    },
    sandbox: {
      setupNetwork: policy.sandbox['setup-network'],
      testNetwork: policy.sandbox['test-network'],
      requireIsolation: policy.sandbox['require-isolation'],
      memoryMb: policy.sandbox['memory-mb'],
      requireSandbox: policy.sandbox['require-sandbox'],
    },
    changedExpectations: policy.gate['changed-expectations'],
    gaming: policy.gate.gaming,
    policySource: source,
  };
}

/**
 * The allow-list as one protected glob: everything that matches none of `allowed`.
 * (picomatch: `!{a,b}` matches paths matching neither a nor b.)
 */
export function allowListAsProtected(allowed: string[]): string[] {
  if (allowed.length === 0) return [];
  const escaped = allowed.map((g) => g.replace(/,/g, '\\,'));
  return [escaped.length === 1 ? `!${escaped[0]}` : `!{${escaped.join(',')}}`];
}
