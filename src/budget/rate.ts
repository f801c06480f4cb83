/**
 * The model endpoint's own limits, as values: the per-request token budget a base URL and model
 * get by default, the request pacing fed by the `x-ratelimit-*` headers, and the sentence a
 * daily-quota stop ends with. Pure: the clock is injected.
 *
 * GitHub Models' free use (docs.github.com, "Prototyping with AI models", rate limits): 8,000
 * input and 4,000 output tokens per request, 10-15 requests per minute, 50-150 per day, 2-5
 * concurrent requests. A request over the token limit is answered 413 `tokens_limit_reached`; a
 * spent daily quota is a 429 with `x-ratelimit-type: UserByModelByDay` and a retry-after of hours.
 */

/** Hosts of GitHub Models (the current one and the older Azure-hosted one). */
const GITHUB_MODELS_HOSTS = ['models.github.ai', 'models.inference.ai.azure.com'];

export function isGitHubModels(baseUrl: string): boolean {
  try {
    return GITHUB_MODELS_HOSTS.includes(new URL(baseUrl).hostname.toLowerCase());
  } catch {
    return false;
  }
}

/** GitHub Models' free-use limits per request (every plan below Copilot Enterprise). */
export const GITHUB_MODELS_INPUT_TOKENS = 8000;
export const GITHUB_MODELS_OUTPUT_TOKENS = 4000;
/** The lower of its per-minute limits (high-tier models). */
export const GITHUB_MODELS_REQUESTS_PER_MINUTE = 10;
/** Input budget when neither the endpoint nor the model is known. */
export const GENEROUS_INPUT_TOKENS = 100_000;

/** Context windows (input tokens) of well-known model families, by name without provider prefix, longest prefix first. */
const CONTEXT_WINDOWS: [string, number][] = [
  ['gpt-4.1', 1_047_576],
  ['gpt-4o', 128_000],
  ['gpt-5', 272_000],
  ['o3', 200_000],
  ['o4-mini', 200_000],
  ['o1', 200_000],
  ['claude', 200_000],
  ['gemini', 1_000_000],
  ['llama-3', 128_000],
  ['mistral', 128_000],
  ['qwen', 32_768],
  ['deepseek', 64_000],
];

/** The model's context window when known, else null. */
export function contextWindowOf(model: string): number | null {
  const bare = model.slice(model.lastIndexOf('/') + 1).toLowerCase();
  let best: [string, number] | null = null;
  for (const entry of CONTEXT_WINDOWS) if (bare.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best ? best[1] : null;
}

/** The default input budget per request: 8,000 on GitHub Models, the model's context window elsewhere when known, else a generous default. */
export function defaultInputTokens(baseUrl: string, model: string): number {
  if (isGitHubModels(baseUrl)) return GITHUB_MODELS_INPUT_TOKENS;
  return contextWindowOf(model) ?? GENEROUS_INPUT_TOKENS;
}

/** The default output cap per request (`max_tokens`): 4,000 on GitHub Models, else none (0: the endpoint's default). */
export function defaultOutputTokens(baseUrl: string): number {
  return isGitHubModels(baseUrl) ? GITHUB_MODELS_OUTPUT_TOKENS : 0;
}

/** The default pacing without rate-limit headers: GitHub Models' per-minute limit, else none (0). */
export function defaultRequestsPerMinute(baseUrl: string): number {
  return isGitHubModels(baseUrl) ? GITHUB_MODELS_REQUESTS_PER_MINUTE : 0;
}

// ---------------------------------------------------------------- the stops

function hours(ms: number): string {
  const h = ms / 3_600_000;
  if (h >= 1) return `${h >= 10 ? Math.round(h) : h.toFixed(1)} h`;
  return `${Math.max(1, Math.round(ms / 60_000))} min`;
}

/**
 * The stop detail of a run whose endpoint quota is spent: when it resets and how to resume.
 * `daily`: the endpoint said so (`UserByModelByDay`); else the wait is longer than the run's
 * wall-time budget allows.
 */
export function quotaStopMessage(o: { retryAfterMs?: number; daily: boolean; now: number; remainingMs?: number }): string {
  const what = o.daily ? "the model endpoint's daily request quota is spent (x-ratelimit-type UserByModelByDay)" : 'the model endpoint rate-limited the run for longer than its wall-time budget allows';
  const when =
    o.retryAfterMs !== undefined && o.retryAfterMs > 0
      ? `; it resets in about ${hours(o.retryAfterMs)} (at ${new Date(o.now + o.retryAfterMs).toISOString().slice(0, 16).replace('T', ' ')} UTC)`
      : '';
  const left = !o.daily && o.remainingMs !== undefined && Number.isFinite(o.remainingMs) ? ` (${hours(Math.max(0, o.remainingMs))} of the budget left)` : '';
  return `${what}${when}${left}. The best attempt so far is kept: comment \`/agent-fix continue\` once the quota resets to resume from it, or use another endpoint (base-url, api-key) or paid GitHub Models use`;
}

/** Where a 413's limit comes from and what to change, for the stop when even the fixed part of a request is too big. */
export function tooLargeMessage(o: { part: string; partTokens: number; limit: number }): string {
  return `a model request cannot be made small enough for the endpoint's limit of ${o.limit} input tokens: ${o.part} alone takes ${o.partTokens} tokens. Shorten it (feedback-tokens, context-tokens), raise max-input-tokens if the endpoint allows more, or use an endpoint with a larger per-request limit`;
}
