/**
 * The one place a default of the settings is applied: what the reader, the CLI and the policy
 * gave (`SettingsInput`) becomes the effective `Settings` of a run, with no optional field left.
 * After this, nothing defaults a setting again. Pure.
 */
import type { SandboxSettings, Settings, SettingsInput } from './types.js';

/** The sandbox when no policy said anything (the policy's own defaults, policy/schema.ts). */
export const DEFAULT_SANDBOX: Required<SandboxSettings> = { setupNetwork: true, testNetwork: false, requireIsolation: false, memoryMb: 0, requireSandbox: 'github-hosted' };

/** What the report says when no repository policy was read. */
export const NO_POLICY = 'the action inputs (no repository policy was read)';

export function resolveSettings(input: SettingsInput): Settings {
  const { sandbox, ...given } = input;
  return {
    ...given,
    maxInputTokens: input.maxInputTokens ?? 0,
    maxOutputTokens: input.maxOutputTokens ?? 0,
    requestsPerMinute: input.requestsPerMinute ?? 0,
    changedExpectations: input.changedExpectations ?? 'draft',
    gaming: input.gaming ?? 'draft',
    closeOnIssueClose: input.closeOnIssueClose ?? true,
    mode: input.mode ?? 'run',
    candidate: input.candidate ?? null,
    bundles: input.bundles ?? null,
    allowedPaths: input.allowedPaths ?? [],
    sandbox: { ...DEFAULT_SANDBOX, ...sandbox, requireSandbox: sandbox?.requireSandbox ?? DEFAULT_SANDBOX.requireSandbox },
    policySource: input.policySource ?? NO_POLICY,
  };
}
