/**
 * Settings resolved once (settings/resolve.ts) and one settings value per run (fix/run.ts): the
 * effective settings, a `/agent-fix continue budget=$N` raise included, are the only ones a
 * phase can see, and they reach the budget the loop enforces (fix/workbench.ts `runBudget`).
 */
import { readSettings } from '../../src/settings/inputs.js';
import { CLI_DEFAULTS, resolveSettings } from '../../src/settings/resolve.js';
import { applyPolicy } from '../../src/policy/apply.js';
import { parsePolicy } from '../../src/policy/schema.js';
import { effectiveSettings, openRun } from '../../src/fix/run.js';
import { runBudget } from '../../src/fix/workbench.js';
import { Budget } from '../../src/budget/budget.js';
import type { FixDeps } from '../../src/fix/types.js';
import type { FixPlan } from '../../src/fix/plan.js';
import type { GitPort } from '../../src/ports/git.js';
import type { Shell } from '../../src/ports/shell.js';
import { Redactor } from '../../src/redact.js';

const TASK = { key: 'issue-7', title: 'add is wrong', goal: 'add(2, 3) returns -1', issueNumber: 7 };
const inputs = (given: Record<string, string> = {}) => (name: string) => ({ 'github-token': 'ghs_test1234567890', ...given })[name] ?? '';

function deps(settings = resolveSettings(readSettings(inputs({ 'max-cost-usd': '5', 'max-tokens': '0' })))): FixDeps {
  return {
    git: {} as GitPort,
    shell: {} as Shell,
    model: { model: 'openai/gpt-4.1', complete: () => Promise.reject(new Error('not called')) },
    settings,
    redactor: new Redactor([]),
    parentEnv: {},
    log: () => undefined,
  };
}

const CONTINUE_WITH_20: FixPlan = { change: { by: 'model', from: 'attempt', tree: 't', note: 'n' }, maxCostUsd: 20 };

describe('settings resolved once', () => {
  test('every field of the effective settings has a value, whoever built the input', () => {
    const fromInputs = resolveSettings(readSettings(inputs()));
    const byHand = resolveSettings({ ...readSettings(inputs()), maxInputTokens: undefined, sandbox: undefined, mode: undefined });
    for (const s of [fromInputs, byHand]) {
      for (const [key, value] of Object.entries(s)) expect([key, value]).not.toEqual([key, undefined]);
    }
    // an absent input cap is the endpoint's default (GitHub Models: 8,000), by hand as from the inputs; 0 (no limit) is said explicitly
    expect(byHand).toMatchObject({ maxInputTokens: 8000, mode: 'run', candidate: null, changedExpectations: 'draft', gaming: 'draft', closeOnIssueClose: true, allowedPaths: [] });
    expect(byHand.sandbox).toEqual({ setupNetwork: true, testNetwork: false, requireIsolation: false, memoryMb: 0, requireSandbox: 'github-hosted' });
    expect(resolveSettings({ ...readSettings(inputs()), sandbox: { setupNetwork: false, testNetwork: true, requireIsolation: true, memoryMb: 512 } }).sandbox).toEqual({ setupNetwork: false, testNetwork: true, requireIsolation: true, memoryMb: 512, requireSandbox: 'github-hosted' });
  });
});

describe('every default applied in one place (resolveSettings), after the policy', () => {
  const read = readSettings(inputs());

  test('a policy cap meets the default of an input not given, not a default the reader applied', () => {
    const capped = (yaml: string, given = read) => resolveSettings(applyPolicy(given, parsePolicy(yaml), 'p'));
    expect(capped('limits:\n  max-iterations: 3\n').maxIterations).toBe(3);
    expect(capped('limits:\n  max-iterations: 10\n').maxIterations).toBe(5);
    expect(capped('budgets:\n  max-tokens: 9000\n').budget.maxTokens).toBe(9000);
    expect(capped('budgets:\n  max-tokens: 9000\n', readSettings(inputs({ 'max-tokens': '0' }))).budget.maxTokens).toBe(9000);
    expect(capped('budgets:\n  max-minutes: 90\n').budget.maxWallMs).toBe(60 * 60_000);
  });

  test('the endpoint defaults and the feedback budget come from the final base URL, model and input cap', () => {
    // The policy has no endpoint field today; whatever sets these between reading and resolving, resolve sees the final values.
    const gh = resolveSettings(read);
    expect([gh.maxInputTokens, gh.maxOutputTokens, gh.requestsPerMinute, gh.feedbackTokens]).toEqual([8000, 4000, 10, 2000]);
    const moved = resolveSettings({ ...read, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4o' });
    expect([moved.maxInputTokens, moved.maxOutputTokens, moved.requestsPerMinute, moved.feedbackTokens]).toEqual([128_000, 0, 0, 3000]);
    const tight = resolveSettings({ ...read, maxInputTokens: 4000 });
    expect([tight.maxInputTokens, tight.maxOutputTokens, tight.feedbackTokens]).toEqual([4000, 4000, 1000]);
    expect(resolveSettings({ ...read, maxInputTokens: 4000, feedbackTokens: 2500 }).feedbackTokens).toBe(2500);
  });

  test("the CLI's table differs only in the endpoint and model", () => {
    const cli = resolveSettings(readSettings(inputs()), CLI_DEFAULTS);
    expect(cli).toEqual({ ...resolveSettings(read), baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1', maxInputTokens: 1_047_576, maxOutputTokens: 0, requestsPerMinute: 0, feedbackTokens: 3000 });
  });
});

describe('one settings value per run', () => {
  test('a raised budget (continue budget=$20) reaches the budget the loop enforces; the un-raised $5 is nowhere in the run', () => {
    const d = deps();
    const run = openRun(TASK, d, CONTINUE_WITH_20);
    expect(run.settings.budget.maxCostUsd).toBe(20);
    // the run carries no second settings value: its ports have none
    // @ts-expect-error FixPorts has no settings
    expect(run.ports.settings).toBeUndefined();

    // $6 spent (3M prompt tokens at $2/M): within the raised cap, past the settings' own.
    const spent = { promptTokens: 3_000_000, completionTokens: 0 };
    const enforced = runBudget(run, () => 0);
    enforced.record(spent);
    expect(enforced.limits.maxCostUsd).toBe(20);
    expect(enforced.exceeded()).toBeNull();

    // Control: what the old shape let a phase read (`deps.settings` beside the raised copy) stops the run at $5.
    const unraised = new Budget(d.settings.budget, d.model.model, () => 0);
    unraised.record(spent);
    expect(unraised.exceeded()).toMatchObject({ kind: 'cost' });
  });

  test('without a raise the settings pass through as they are; a raise changes only the cost cap', () => {
    const d = deps();
    expect(openRun(TASK, d, { change: { by: 'model', from: 'checkout' } }).settings).toBe(d.settings);
    const raised = effectiveSettings(d.settings, CONTINUE_WITH_20);
    expect(raised).toEqual({ ...d.settings, budget: { ...d.settings.budget, maxCostUsd: 20 } });
    expect(d.settings.budget.maxCostUsd).toBe(5);
  });
});
