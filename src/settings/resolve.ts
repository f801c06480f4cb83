/**
 * The one place a default of the settings is applied: what the reader, the CLI and the policy
 * gave (`SettingsInput`) becomes the effective `Settings` of a run, with no optional field left.
 * The endpoint's defaults (input and output caps, pacing) and the feedback budget derived from the
 * input cap are computed here, from the final values, after the policy. After this, nothing
 * defaults a setting again. Pure.
 */
import type { SandboxSettings, Settings, SettingsInput } from './types.js';
import { defaultInputTokens, defaultOutputTokens, defaultRequestsPerMinute } from '../budget/rate.js';

/** The defaults of the action inputs (action.yml declares the same; settings.test.ts compares them). */
export const DEFAULTS = {
  baseUrl: 'https://models.github.ai/inference',
  model: 'openai/gpt-4.1',
  label: 'agent-fix',
  maxIterations: 5,
  maxChangedFiles: 10,
  maxChangedLines: 200,
  draft: true,
  commandTimeoutMinutes: 15,
  maxTokens: 2_000_000,
  maxCostUsd: 5,
  maxRunMinutes: 60,
  feedbackTokens: 3000,
  contextTokens: 8000,
  relatedTestsFirst: true,
  preexistingFailures: 'allow',
  closeOnIssueClose: true,
} as const;

/** A defaults table: the action's (`DEFAULTS`) or the CLI's, which name another endpoint and model. */
export type Defaults = Omit<typeof DEFAULTS, 'baseUrl' | 'model'> & { readonly baseUrl: string; readonly model: string };

/** The CLI's defaults: the action's, but OpenAI's endpoint and model (its flags and OPENAI_BASE_URL / AGENT_FIX_MODEL are inputs). */
export const CLI_DEFAULTS: Defaults = { ...DEFAULTS, baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1' };

/** The sandbox when no policy said anything (the policy's own defaults, policy/schema.ts). */
export const DEFAULT_SANDBOX: Required<SandboxSettings> = { setupNetwork: true, testNetwork: false, requireIsolation: false, memoryMb: 0, requireSandbox: 'github-hosted' };

/** What the report says when no repository policy was read. */
export const NO_POLICY = 'the action inputs (no repository policy was read)';

/** The stricter of a setting and a policy's cap; a setting of 0 means "no cap", so the policy's applies. */
const stricter = (a: number, b: number | undefined): number => (b === undefined ? a : a > 0 ? Math.min(a, b) : b);

export function resolveSettings(input: SettingsInput, defaults: Defaults = DEFAULTS): Settings {
  const { sandbox, policyCaps: caps = {}, budget = {}, ...given } = input;
  const baseUrl = input.baseUrl ?? defaults.baseUrl;
  const model = input.model ?? defaults.model;
  const maxInputTokens = input.maxInputTokens ?? defaultInputTokens(baseUrl, model);
  return {
    ...given,
    baseUrl,
    model,
    testCommand: input.testCommand ?? null,
    setupCommand: input.setupCommand ?? null,
    label: input.label ?? defaults.label,
    maxIterations: stricter(input.maxIterations ?? defaults.maxIterations, caps.maxIterations),
    maxChangedFiles: stricter(input.maxChangedFiles ?? defaults.maxChangedFiles, caps.maxChangedFiles),
    maxChangedLines: stricter(input.maxChangedLines ?? defaults.maxChangedLines, caps.maxChangedLines),
    draft: input.draft ?? defaults.draft,
    commandTimeoutMs: input.commandTimeoutMs ?? defaults.commandTimeoutMinutes * 60_000,
    budget: {
      maxTokens: stricter(budget.maxTokens ?? defaults.maxTokens, caps.maxTokens),
      maxCostUsd: stricter(budget.maxCostUsd ?? defaults.maxCostUsd, caps.maxCostUsd),
      maxWallMs: stricter(budget.maxWallMs ?? defaults.maxRunMinutes * 60_000, caps.maxWallMs),
      prices: budget.prices ?? {},
    },
    contextTokens: input.contextTokens ?? defaults.contextTokens,
    maxInputTokens,
    // the failure context given to the model is part of requests that must fit the input limit: a quarter of it at most by default
    feedbackTokens: input.feedbackTokens ?? Math.max(200, Math.min(defaults.feedbackTokens, Math.floor(maxInputTokens / 4))),
    maxOutputTokens: input.maxOutputTokens ?? defaultOutputTokens(baseUrl),
    requestsPerMinute: input.requestsPerMinute ?? defaultRequestsPerMinute(baseUrl),
    relatedTestsFirst: input.relatedTestsFirst ?? defaults.relatedTestsFirst,
    preexistingFailures: input.preexistingFailures ?? defaults.preexistingFailures,
    testIntegrityAllow: input.testIntegrityAllow ?? [],
    workflows: input.workflows ?? [],
    changedExpectations: input.changedExpectations ?? 'draft',
    gaming: input.gaming ?? 'draft',
    closeOnIssueClose: input.closeOnIssueClose ?? defaults.closeOnIssueClose,
    mode: input.mode ?? 'run',
    candidate: input.candidate ?? null,
    bundles: input.bundles ?? null,
    allowedPaths: input.allowedPaths ?? [],
    sandbox: { ...DEFAULT_SANDBOX, ...sandbox, requireSandbox: sandbox?.requireSandbox ?? DEFAULT_SANDBOX.requireSandbox },
    policySource: input.policySource ?? NO_POLICY,
  };
}
