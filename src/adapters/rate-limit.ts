/**
 * The endpoint's limits as its answers state them: the real per-request limit a 413 names, the
 * `x-ratelimit-*` headers, and a request pacer fed by them. Pure (the clock is injected); used
 * by the openai adapter, which decides when a request leaves.
 */

/** The real per-request limit a 413 names ("Max size: 8000 tokens"), or null. */
export function limitFromMessage(message: string): number | null {
  const patterns = [
    // GitHub Models: "Max size: 8000 tokens"; OpenAI: "maximum context length is 128000 tokens"
    /max(?:imum)?\s*(?:size|context length|tokens)?\s*(?:is|:)?\s*(\d[\d,]*)\s*tokens/i,
    // Anthropic: "prompt is too long: 210000 tokens > 200000 maximum"
    /tokens?\s*>\s*(\d[\d,]*)\s*max/i,
    // llama.cpp, LM Studio: "n_keep: 5000 >= n_ctx: 4096", "n_ctx = 4096"
    /n_ctx\W{0,4}(\d[\d,]*)/i,
    // Groq: "on tokens per minute (TPM): Limit 6000, Requested 7342"
    /Limit\s+(\d[\d,]*),\s*Requested/i,
    // Gemini: "exceeds the maximum number of tokens allowed (1048576)"
    /maximum number of tokens allowed\s*\((\d[\d,]*)\)/i,
    // Mistral: "too large for model with 32768 maximum context length"
    /with\s+(\d[\d,]*)\s+maximum context/i,
    // "context length of only 4096 tokens", "context size (4096)"
    /context (?:length|size|window)[^\d]{0,20}(\d[\d,]*)/i,
  ];
  for (const p of patterns) {
    const m = p.exec(message);
    if (!m) continue;
    const n = Number(m[1].replace(/,/g, ''));
    if (Number.isFinite(n) && n > 0) return n;
  }
  return null;
}

/** A duration as rate-limit headers write it: seconds (`"12"`, `"0.5"`), or OpenAI's `"6m0s"`, `"1.5s"`, `"20ms"`; ms, or undefined. */
export function parseDurationMs(raw: string | null | undefined): number | undefined {
  if (raw === null || raw === undefined) return undefined;
  const s = raw.trim();
  if (s === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(s)) return Number(s) * 1000;
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;
  let total = 0;
  let seen = 0;
  for (const m of s.matchAll(re)) {
    seen += m[0].length;
    const v = Number(m[1]);
    total += m[2] === 'h' ? v * 3_600_000 : m[2] === 'm' ? v * 60_000 : m[2] === 's' ? v * 1000 : v;
  }
  return seen === s.length ? total : undefined;
}

export interface RateHeaders {
  limitRequests?: number;
  remainingRequests?: number;
  resetRequestsMs?: number;
  limitTokens?: number;
  remainingTokens?: number;
  resetTokensMs?: number;
}

/** The `x-ratelimit-*` headers of an answer (OpenAI, Azure and GitHub Models spell them alike). */
export function readRateHeaders(get: (name: string) => string | null): RateHeaders {
  const num = (name: string): number | undefined => {
    const v = get(name);
    if (v === null || v.trim() === '') return undefined;
    const n = Number(v);
    return Number.isFinite(n) ? n : undefined;
  };
  const out: RateHeaders = {
    limitRequests: num('x-ratelimit-limit-requests'),
    remainingRequests: num('x-ratelimit-remaining-requests'),
    resetRequestsMs: parseDurationMs(get('x-ratelimit-reset-requests')),
    limitTokens: num('x-ratelimit-limit-tokens'),
    remainingTokens: num('x-ratelimit-remaining-tokens'),
    resetTokensMs: parseDurationMs(get('x-ratelimit-reset-tokens')),
  };
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined)) as RateHeaders;
}

/**
 * Spaces requests so that the endpoint's per-minute limits are not hit: a token bucket of
 * `requestsPerMinute` (0: none) refilled evenly over the minute, corrected by the endpoint's own
 * headers when it sends them: with `remaining` requests left until the window resets in `reset`,
 * the next request waits `reset / (remaining + 1)` (none left: the whole reset).
 */
/** Added to a wait for a window's reset. */
export const RESET_MARGIN_MS = 250;

export class RequestPacer {
  private tokens: number;
  private last: number;
  private notBefore = 0;

  constructor(
    private readonly requestsPerMinute: number,
    private readonly now: () => number = Date.now,
  ) {
    this.tokens = requestsPerMinute;
    this.last = now();
  }

  private refill(): void {
    const t = this.now();
    if (this.requestsPerMinute > 0) this.tokens = Math.min(this.requestsPerMinute, this.tokens + ((t - this.last) * this.requestsPerMinute) / 60_000);
    this.last = t;
  }

  /** Milliseconds to wait before the next request may leave. */
  delayMs(): number {
    this.refill();
    const byHeaders = Math.max(0, this.notBefore - this.now());
    const byBucket = this.requestsPerMinute > 0 && this.tokens < 1 ? Math.ceil(((1 - this.tokens) * 60_000) / this.requestsPerMinute) : 0;
    return Math.max(byHeaders, byBucket);
  }

  /** A request leaves now. */
  took(): void {
    this.refill();
    if (this.requestsPerMinute > 0) this.tokens -= 1;
  }

  /** The endpoint's headers of an answer; `requestTokens`: the size of the request it answered, when known. */
  observe(h: RateHeaders, requestTokens = 0): void {
    const t = this.now();
    if (h.remainingRequests !== undefined && h.resetRequestsMs !== undefined) {
      // none left: the whole reset and a margin (the header is rounded, the clocks differ)
      const wait = h.remainingRequests <= 0 ? h.resetRequestsMs + RESET_MARGIN_MS : h.resetRequestsMs / (h.remainingRequests + 1);
      this.notBefore = Math.max(this.notBefore, t + wait);
    } else if (h.remainingRequests !== undefined && this.requestsPerMinute > 0) {
      this.refill();
      this.tokens = Math.min(this.tokens, h.remainingRequests);
    }
    if (h.remainingTokens !== undefined && h.resetTokensMs !== undefined && requestTokens > 0 && h.remainingTokens < requestTokens) {
      this.notBefore = Math.max(this.notBefore, t + h.resetTokensMs);
    }
  }

  /** A 429 asked to wait `ms`: nothing leaves before then. */
  blockFor(ms: number): void {
    this.notBefore = Math.max(this.notBefore, this.now() + ms);
  }
}

