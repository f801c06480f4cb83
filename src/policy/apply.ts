/**
 * Settings input (action inputs) + policy -> the settings input of a run, which
 * `resolveSettings` (settings/resolve.ts) turns into the effective settings. Pure; no default is
 * applied here.
 *
 * - limits and budgets: the policy's are caps (`policyCaps`); resolveSettings applies the stricter
 *   of each cap and the setting, its default when not given (a setting of 0 means "none", so the
 *   policy's cap applies);
 * - commands: an explicit workflow input wins, else the policy's, else detection;
 * - forbidden paths are added to the protected paths; allowed paths come from the policy;
 * - prices: the policy's override the inputs', which override the built-in table.
 */
import type { SettingsInput } from '../settings/types.js';
import type { Policy } from './schema.js';

export function applyPolicy(settings: SettingsInput, policy: Policy, source: string): SettingsInput {
  const b = policy.budgets;
  const l = policy.limits;
  const forbidden = policy.paths.forbidden.filter((g) => !settings.protectedPaths.includes(g));
  return {
    ...settings,
    testCommand: settings.testCommand ?? policy.commands.test,
    setupCommand: settings.setupCommand ?? policy.commands.setup,
    protectedPaths: [...settings.protectedPaths, ...forbidden],
    allowedPaths: [...policy.paths.allowed],
    policyCaps: {
      maxIterations: l['max-iterations'],
      maxChangedFiles: l['max-changed-files'],
      maxChangedLines: l['max-changed-lines'],
      maxTokens: b['max-tokens'],
      maxCostUsd: b['max-cost-usd'],
      maxWallMs: b['max-minutes'] === undefined ? undefined : b['max-minutes'] * 60_000,
    },
    budget: { ...settings.budget, prices: { ...settings.budget?.prices, ...b.prices } },
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
