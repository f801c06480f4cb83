/**
 * What the reader (settings/inputs.ts), the CLI and the policy (policy/apply.ts) give: an absent
 * optional field is "not said". A run never sees this: `resolveSettings` (settings/resolve.ts)
 * applies every default once (the `DEFAULTS` table and the endpoint's defaults) and returns `Settings`.
 */
export interface SettingsInput {
  githubToken: string;
  /** The model's key: the api-key input, or the github-token when it is empty ('' in a publish job, which asks no model). */
  apiKey: string;
  baseUrl?: string;
  model?: string;
  /** null or absent: detect from the repository. */
  testCommand?: string | null;
  setupCommand?: string | null;
  label?: string;
  maxIterations?: number;
  maxChangedFiles?: number;
  maxChangedLines?: number;
  draft?: boolean;
  /** Timeout of one setup or test command. */
  commandTimeoutMs?: number;
  /** Glob patterns the model may never edit (always includes .github/workflows/**). */
  protectedPaths: string[];
  /** Token budget of the failure context given to the model (default 3,000, or a quarter of the input cap when that is less). */
  feedbackTokens?: number;
  /** Token budget of the whole first model request (system prompt, tool schemas, task, repository context); 0: no repository context. Default 8,000. */
  contextTokens?: number;
  /**
   * The input tokens one model request may take (everything the endpoint counts: system prompt,
   * tool schemas, messages, tool calls). Default: 8,000 on GitHub Models, the model's context
   * window elsewhere when known, else 100,000. 0 (only by hand): no per-request limit.
   */
  maxInputTokens?: number;
  /** The reply's cap per request (`max_tokens`); default 4,000 on GitHub Models; 0: the endpoint's default. */
  maxOutputTokens?: number;
  /** Requests per minute to pace to when the endpoint sends no rate-limit headers; default 10 on GitHub Models; 0: none. */
  requestsPerMinute?: number;
  /** Run the tests related to the changed files first inside the loop (absent: true). */
  relatedTestsFirst?: boolean;
  /** Tests failing before any edit, which the task is not about: `allow` (default) lets them still fail at the gate, `block` requires the command to succeed. */
  preexistingFailures?: 'allow' | 'block';
  /** Test-integrity categories a maintainer allows when the issue explicitly asks (default none). */
  testIntegrityAllow?: string[];
  /**
   * A fix that changes an existing test's expectation, proven by the tests (verify/expectation.ts):
   * `draft` (default) accepted, listed, the pull request a draft; `ready` accepted and listed;
   * `forbid` refused. From the policy's `gate.changed-expectations`.
   */
  changedExpectations?: 'draft' | 'ready' | 'forbid';
  /**
   * A change that games the tests (guard/gaming/): `draft` (default) the model is told once, and a
   * final change that still does is published as a draft, never called fixed; `refuse` refused at
   * every attempt and never published. From the policy's `gate.gaming`.
   */
  gaming?: 'draft' | 'refuse';
  /** CI repair: names of the workflows whose failed runs count (empty or absent: all). */
  workflows?: string[];
  /** Close agent-fix's open pull request for an issue when the issue is closed without it being merged (absent: true). */
  closeOnIssueClose?: boolean;
  /**
   * `run` (absent: one job fixes and publishes), `propose` (fix and write a bundle, no write to
   * GitHub) or `publish` (validate the bundles, publish the best verified one, run nothing of the repository).
   */
  mode?: Mode;
  /** The candidate id of a propose job (its seed and temperature, bundle/candidate.ts); absent: none. */
  candidate?: string;
  /** Directory of the bundles: written by propose, read by publish (absent: propose's default). */
  bundles?: string;
  /** Caps of one run (see docs/security.md); an absent cap: its default. */
  budget?: Partial<BudgetLimits>;
  // Set only by the repository's policy (policy/apply.ts); absent: the action inputs alone apply.
  /** The policy's caps (limits and budgets): the stricter of each and the setting (its default when absent) applies. */
  policyCaps?: PolicyCaps;
  /** When non-empty, the only globs the model may change (policy paths.allowed). */
  allowedPaths?: string[];
  sandbox?: SandboxSettings;
  /** Which policy applied, for the report. */
  policySource?: string;
}

export type Mode = 'run' | 'propose' | 'publish';

/**
 * The effective settings of a run: every default applied once (`resolveSettings`), no optional
 * field. A run holds exactly one (fix/run.ts: a `continue budget=$N` raise is applied there, and
 * the phases see only that value).
 */
export interface Settings extends Omit<SettingsInput, OptionalKeys<SettingsInput>> {
  baseUrl: string;
  model: string;
  /** null: detect from the repository. */
  testCommand: string | null;
  setupCommand: string | null;
  label: string;
  maxIterations: number;
  maxChangedFiles: number;
  maxChangedLines: number;
  draft: boolean;
  commandTimeoutMs: number;
  feedbackTokens: number;
  contextTokens: number;
  relatedTestsFirst: boolean;
  preexistingFailures: 'allow' | 'block';
  testIntegrityAllow: string[];
  workflows: string[];
  budget: BudgetLimits;
  /** The input tokens one model request may take; 0: no per-request limit. */
  maxInputTokens: number;
  /** The reply's cap per request; 0: the endpoint's default. */
  maxOutputTokens: number;
  /** Requests per minute to pace to without rate-limit headers; 0: none. */
  requestsPerMinute: number;
  changedExpectations: 'draft' | 'ready' | 'forbid';
  gaming: 'draft' | 'refuse';
  closeOnIssueClose: boolean;
  mode: Mode;
  /** The candidate id of a propose job; null: none. */
  candidate: string | null;
  /** Directory of the bundles; null: propose's default. */
  bundles: string | null;
  /** When non-empty, the only globs the model may change. */
  allowedPaths: string[];
  sandbox: Required<SandboxSettings>;
  /** Which policy applied, for the report. */
  policySource: string;
}

type OptionalKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? K : never }[keyof T];

/** Hard caps of one run; 0 means no cap. */
export interface BudgetLimits {
  maxTokens: number;
  maxCostUsd: number;
  /** Wall time of the whole run from its start. */
  maxWallMs: number;
  /** Model name -> USD per million tokens, overriding the built-in table. */
  prices: Record<string, { input: number; output: number }>;
}

/** Caps a repository policy sets (policy/apply.ts); 0 in a setting means no cap, so the policy's applies. */
export interface PolicyCaps {
  maxIterations?: number;
  maxChangedFiles?: number;
  maxChangedLines?: number;
  maxTokens?: number;
  maxCostUsd?: number;
  maxWallMs?: number;
}

export interface SandboxSettings {
  setupNetwork: boolean;
  testNetwork: boolean;
  requireIsolation: boolean;
  /** Address-space limit per command in MiB; 0: none. */
  memoryMb: number;
  /** Where model code may run only in the sandbox (sandbox/sandbox.ts); absent: 'github-hosted'. */
  requireSandbox?: 'always' | 'github-hosted' | 'never';
}
