/**
 * ChatModel adapter over the `openai` SDK, for any OpenAI-compatible chat-completions
 * endpoint (OpenAI, GitHub Models, Azure, Ollama, vLLM, gateways, the scripted server).
 *
 * Retries of 408 / 409 / 5xx / connection errors are the SDK's own. A 429 never is: the SDK
 * would wait out a daily quota's retry-after of hours, so every 429 comes back at once as a
 * `ModelError` carrying its `limit` (per-minute, with the wait asked, or the daily quota) and the
 * loop decides whether the wait fits the run's wall-time budget. A 413 `tokens_limit_reached`
 * carries the real limit its message names, so the loop can shrink the request and retry it.
 * Requests are paced before they leave (adapters/rate-limit.ts): the `x-ratelimit-*` headers of
 * every answer, or `requestsPerMinute` without them. Every failure becomes a `ModelError` whose
 * message names the status, the server's message, the base URL and the model, and never
 * contains the API key.
 */
import OpenAI, { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from 'openai';
import type {
  ChatCompletion,
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import { CHECK_HEADER, type ChatMessage, type CheckableModel, type EndpointCheck, type LimitHit, type ModelReply, type Repair, type ToolCall, type ToolSpec } from '../ports/llm.js';
import { limitFromMessage, readRateHeaders, RequestPacer } from './rate-limit.js';

export interface ChatModelOptions {
  baseUrl: string;
  apiKey: string;
  model: string;
  /** Per request, default 300 000 ms. */
  timeoutMs?: number;
  /** SDK retries of 5xx / connection errors, default 3 (a 429 is never retried by the SDK: the loop decides). */
  maxRetries?: number;
  /** `max_tokens` of every request (the reply's cap; GitHub Models' free use allows 4,000); 0 or absent: the endpoint's default. */
  maxOutputTokens?: number;
  /** Requests per minute to pace to when the endpoint sends no rate-limit headers; 0 or absent: no pacing without headers. */
  requestsPerMinute?: number;
  /** Waits before a paced request (default: a timer); the clock of the pacer (default Date.now). */
  sleep?: (ms: number) => Promise<void>;
  now?: () => number;
  temperature?: number;
  /** Sampling seed (best-effort reproducibility; candidates of a matrix differ by it, see bundle/candidate.ts). */
  seed?: number;
  log?: (m: string) => void;
  /** How error messages name the settings to fix (the entry's words: settings/wording.ts; default: plain names). */
  wording?: ErrorWords;
  /** Per request of the endpoint check (`check()`), default 120 000 ms (or `timeoutMs` when shorter: a model server still loading its weights may be slow to answer). */
  checkTimeoutMs?: number;
}

/** The words of the entry for what to fix (settings/wording.ts `Wording` has them). */
export interface ErrorWords {
  setting(input: string): string;
  keyHelp: string;
}

const PLAIN_WORDS: ErrorWords = { setting: (input) => `\`${input}\``, keyHelp: 'check the API key and that it belongs to this endpoint' };

/** Failures of the endpoint check that end the run before anything runs (the rest may pass: rate limits, server hiccups). */
const FATAL_CHECK: ReadonlySet<ModelErrorKind> = new Set(['auth', 'forbidden', 'not-found', 'connection', 'bad-request', 'bad-response', 'quota']);

export type ModelErrorKind =
  | 'auth'
  | 'forbidden'
  | 'not-found'
  | 'tools-unsupported'
  | 'context-length'
  | 'bad-request'
  | 'rate-limited'
  | 'quota'
  | 'server'
  | 'timeout'
  | 'connection'
  | 'bad-response'
  | 'content-filter'
  | 'unknown';

/** A failed model call, already described for humans (and free of the API key). */
export class ModelError extends Error {
  override readonly name = 'ModelError';
  constructor(
    message: string,
    readonly kind: ModelErrorKind,
    readonly status?: number,
    /** Which of the endpoint's limits refused the request (ports/llm.ts `limitOf`). */
    readonly limit?: LimitHit,
    /** What the conversation can repair for the request to pass (ports/llm.ts `repairOf`). */
    readonly repair?: Repair,
  ) {
    super(message);
  }
}

export function makeChatModel(opts: ChatModelOptions): CheckableModel {
  const log = opts.log ?? (() => {});
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const pacer = new RequestPacer(opts.requestsPerMinute ?? 0, now);
  const where = `${safeUrl(opts.baseUrl)} (model "${opts.model}")`;
  const words = opts.wording ?? PLAIN_WORDS;
  const client = new OpenAI({
    baseURL: opts.baseUrl,
    apiKey: opts.apiKey,
    timeout: opts.timeoutMs ?? 300_000,
    maxRetries: opts.maxRetries ?? 3,
    fetch: watchfulFetch(log, pacer),
  });
  let temperature = opts.temperature;
  let seed = opts.seed;
  /** The reply cap and its parameter: reasoning models want `max_completion_tokens`, some servers neither. */
  let outputCap: 'max_tokens' | 'max_completion_tokens' | null = opts.maxOutputTokens ? 'max_tokens' : null;

  async function complete(messages: ChatMessage[], tools: ToolSpec[]): Promise<ModelReply> {
    const params: ChatCompletionCreateParamsNonStreaming = {
      model: opts.model,
      messages: messages.map(toSdkMessage),
    };
    if (tools.length) params.tools = tools.map(toSdkTool);
    for (;;) {
      if (temperature !== undefined) params.temperature = temperature;
      else delete params.temperature;
      if (seed !== undefined) params.seed = seed;
      else delete params.seed;
      delete params.max_tokens;
      delete params.max_completion_tokens;
      if (outputCap) params[outputCap] = opts.maxOutputTokens;
      const wait = pacer.delayMs();
      if (wait > 0) {
        log(`pacing model requests to the endpoint's rate limit: waiting ${Math.ceil(wait / 1000)}s`);
        await sleep(wait);
      }
      pacer.took();
      let completion: ChatCompletion;
      try {
        completion = await client.chat.completions.create(params);
      } catch (e) {
        if (outputCap && e instanceof APIError && e.status === 400 && /max_tokens|max_completion_tokens/i.test(serverMessage(e))) {
          outputCap = outputCap === 'max_tokens' ? 'max_completion_tokens' : null;
          log(`model "${opts.model}" rejected the reply cap; retrying ${outputCap ? `with ${outputCap}` : 'without it'}`);
          continue;
        }
        // Some models (reasoning models) only accept their default temperature.
        if (temperature !== undefined && e instanceof APIError && e.status === 400 && /temperature/i.test(serverMessage(e))) {
          log(`model "${opts.model}" rejected temperature ${temperature}; retrying with the server default`);
          temperature = undefined;
          continue;
        }
        if (seed !== undefined && e instanceof APIError && e.status === 400 && /\bseed\b/i.test(serverMessage(e))) {
          log(`model "${opts.model}" rejected seed ${seed}; retrying without it`);
          seed = undefined;
          continue;
        }
        throw toModelError(e, where, tools.length > 0, opts.apiKey, words);
      }
      return fromCompletion(completion, messages, tools, where);
    }
  }

  /** One completion of at most one token, without tools: URL, key, model and permission in one request. */
  async function check(): Promise<EndpointCheck> {
    const started = Date.now();
    const params: ChatCompletionCreateParamsNonStreaming = { model: opts.model, messages: [{ role: 'user', content: 'Reply with OK.' }], max_tokens: 1 };
    const options = { headers: { [CHECK_HEADER]: '1' }, timeout: opts.checkTimeoutMs ?? Math.min(120_000, opts.timeoutMs ?? 120_000), maxRetries: Math.min(1, opts.maxRetries ?? 1) };
    for (;;) {
      try {
        const c = await client.chat.completions.create(params, options);
        fromCompletion(c, [], [], where);
        return { ok: true, detail: `${where} answered in ${Date.now() - started} ms` };
      } catch (e) {
        // Reasoning models refuse max_tokens; the check then asks without a cap (still one short reply).
        if (params.max_tokens !== undefined && e instanceof APIError && e.status === 400 && /max_tokens|max_completion_tokens/i.test(serverMessage(e))) {
          delete params.max_tokens;
          continue;
        }
        const err = e instanceof ModelError ? e : toModelError(e, where, false, opts.apiKey, words);
        return { ok: false, fatal: FATAL_CHECK.has(err.kind), message: err.message };
      }
    }
  }

  return { model: opts.model, complete, check };
}

// ---------------------------------------------------------------- mapping

export function toSdkMessage(m: ChatMessage): ChatCompletionMessageParam {
  switch (m.role) {
    case 'system':
      return { role: 'system', content: m.content };
    case 'user':
      return { role: 'user', content: m.content };
    case 'tool':
      return { role: 'tool', tool_call_id: m.toolCallId, content: m.content };
    case 'assistant': {
      const calls = m.toolCalls ?? [];
      if (!calls.length) return { role: 'assistant', content: m.content ?? '' };
      // the provider's own fields travel back: on the message (reasoning_content) and on each call (thought signatures)
      return {
        ...(m.extra ?? {}),
        role: 'assistant',
        content: m.content,
        tool_calls: calls.map((c) => ({ ...(c.extra ?? {}), id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
      } as ChatCompletionMessageParam;
    }
  }
}

function toSdkTool(t: ToolSpec): ChatCompletionTool {
  return { type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } };
}

function fromCompletion(c: ChatCompletion, messages: ChatMessage[], tools: ToolSpec[], where: string): ModelReply {
  const choice = c?.choices?.[0];
  if (!choice || !choice.message) {
    throw new ModelError(`model endpoint ${where} answered without any choice (not a chat.completion?)`, 'bad-response');
  }
  const msg = choice.message;
  const toolCalls: ToolCall[] = [];
  (msg.tool_calls ?? []).forEach((tc, i) => {
    if (tc.type !== undefined && tc.type !== 'function') return;
    const fn = (tc as { function?: { name?: unknown; arguments?: unknown } }).function;
    if (!fn || typeof fn.name !== 'string') return;
    const args = fn.arguments;
    const extra = providerFields(tc as unknown as Record<string, unknown>, CALL_FIELDS);
    toolCalls.push({
      id: tc.id || `call_${c.id ?? 'x'}_${i}`,
      name: fn.name,
      // Some non-compliant servers send an object; the port wants the raw text.
      arguments: typeof args === 'string' ? args : args === undefined || args === null ? '' : JSON.stringify(args),
      ...(extra ? { extra } : {}),
    });
  });
  const extra = providerFields(msg as unknown as Record<string, unknown>, MESSAGE_FIELDS);
  const content = typeof msg.content === 'string' ? msg.content : null;
  const finishReason = choice.finish_reason ?? (toolCalls.length ? 'tool_calls' : 'stop');
  const u = c.usage;
  const usage = {
    promptTokens: typeof u?.prompt_tokens === 'number' ? u.prompt_tokens : estimatePrompt(messages, tools),
    completionTokens:
      typeof u?.completion_tokens === 'number'
        ? u.completion_tokens
        : Math.ceil(((content ?? '').length + toolCalls.reduce((n, t) => n + t.name.length + t.arguments.length, 0)) / 4),
  };
  return { content, toolCalls, finishReason, usage, ...(extra ? { extra } : {}), ...(typeof u?.prompt_tokens === 'number' ? {} : { usageEstimated: true }) };
}

/** OpenAI's own fields of a reply's message and of a tool call; anything else is the provider's, kept to be sent back. */
const MESSAGE_FIELDS = new Set(['role', 'content', 'tool_calls', 'refusal', 'function_call', 'audio', 'annotations', 'parsed']);
const CALL_FIELDS = new Set(['id', 'type', 'function', 'index']);

/** The provider's own fields of an object (null and undefined values left out), or undefined when it has none. */
export function providerFields(o: Record<string, unknown>, known: ReadonlySet<string>): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o ?? {})) if (!known.has(k) && v !== null && v !== undefined) out[k] = v;
  return Object.keys(out).length ? out : undefined;
}

function estimatePrompt(messages: ChatMessage[], tools: ToolSpec[]): number {
  let chars = 0;
  for (const m of messages) {
    chars += (m.content ?? '').length;
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) chars += c.name.length + c.arguments.length;
  }
  for (const t of tools) chars += JSON.stringify(t).length;
  return Math.ceil(chars / 4);
}

// ---------------------------------------------------------------- transport

/**
 * Feeds every answer's rate-limit headers to the pacer, logs what the SDK is about to retry, and
 * keeps the SDK from retrying a 429 (the loop decides: wait within the budget, or stop on a quota).
 */
function watchfulFetch(log: (m: string) => void, pacer: RequestPacer) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    let res: Response;
    try {
      res = await fetch(input, init);
    } catch (e) {
      if (!(init?.signal?.aborted ?? false)) log(`model endpoint unreachable (${causeText(e)})`);
      throw e;
    }
    pacer.observe(readRateHeaders((name) => res.headers.get(name)));
    res = await normalizedAnswer(res, log);
    if (res.status !== 429 && res.status < 500 && res.status !== 408) return res;
    const waitMs = retryAfterMs(res.headers);
    if (res.status === 429) {
      if (waitMs !== undefined) pacer.blockFor(waitMs);
      const headers = new Headers(res.headers);
      headers.set('x-should-retry', 'false');
      const type = res.headers.get('x-ratelimit-type');
      log(`model endpoint rate-limited the request${type ? ` (${type})` : ''}${waitMs !== undefined ? ` and asks to wait ${Math.ceil(waitMs / 1000)}s` : ''}`);
      return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
    }
    log(`model endpoint answered HTTP ${res.status}${waitMs !== undefined ? ` (retry-after ${Math.ceil(waitMs / 1000)}s)` : ''}`);
    return res;
  };
}

/**
 * An answer in OpenAI's shape whatever the provider's: an error body as `{ error: { message, ... } }`
 * (Gemini's JSON array `[{ error }]`, Mistral's `{ object: "error", message }`, a bare `{ error: "text" }`
 * or `{ detail }`), and an HTTP 200 that carries an `error` and no `choices` (OpenRouter's upstream
 * failures) as the error status it names. Other answers pass unchanged.
 */
async function normalizedAnswer(res: Response, log: (m: string) => void): Promise<Response> {
  const json = /json/i.test(res.headers.get('content-type') ?? '');
  if (res.status < 400 && !json) return res;
  if (res.status < 400 && res.status !== 200) return res;
  const text = await res.text();
  const fixed = normalizeErrorBody(res.status, text);
  const headers = new Headers(res.headers);
  headers.delete('content-length');
  headers.delete('content-encoding');
  if (!fixed) return new Response(text, { status: res.status, statusText: res.statusText, headers });
  if (res.status === 200) log(`model endpoint answered HTTP 200 with an error and no choices; read as HTTP ${fixed.status}`);
  headers.set('content-type', 'application/json');
  return new Response(JSON.stringify(fixed.body), { status: fixed.status, headers });
}

/** The OpenAI-shaped body (and status) of an answer in another provider's error shape; null when it needs no change. Pure. */
export function normalizeErrorBody(status: number, text: string): { status: number; body: { error: Record<string, unknown> } } | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (Array.isArray(v)) v = v.find((x) => x && typeof x === 'object' && 'error' in x) ?? v[0];
  if (!v || typeof v !== 'object') return null;
  const o = v as Record<string, unknown>;
  let error: Record<string, unknown> | null = null;
  if (o.error && typeof o.error === 'object') error = o.error as Record<string, unknown>;
  else if (typeof o.error === 'string') error = { message: o.error };
  else if (status >= 400 && typeof o.message === 'string') error = { ...o, message: o.message };
  else if (status >= 400 && o.detail !== undefined) error = { message: typeof o.detail === 'string' ? o.detail : JSON.stringify(o.detail) };
  if (!error) return null;
  if (status === 200) {
    if (Array.isArray(o.choices) && o.choices.length) return null;
    const code = Number(error.code ?? (error as { status?: unknown }).status);
    const named = Number.isInteger(code) && code >= 400 && code <= 599 ? code : /rate.?limit/i.test(String(error.message ?? '')) ? 429 : 502;
    return { status: named, body: { error } };
  }
  if (o.error === error && !Array.isArray(JSON.parse(text))) return null;
  return { status, body: { error } };
}

function retryAfterMs(h: Headers): number | undefined {
  const ms = parseFloat(h.get('retry-after-ms') ?? '');
  if (!Number.isNaN(ms)) return ms;
  const ra = h.get('retry-after');
  if (!ra) return undefined;
  const s = parseFloat(ra);
  if (!Number.isNaN(s)) return s * 1000;
  const at = Date.parse(ra);
  return Number.isNaN(at) ? undefined : Math.max(0, at - Date.now());
}

// ---------------------------------------------------------------- errors

function toModelError(e: unknown, where: string, sentTools: boolean, apiKey: string, words: ErrorWords): ModelError {
  const desc = describe(e, where, sentTools, words);
  return new ModelError(redact(desc.message, apiKey), desc.kind, desc.status, desc.limit, desc.repair);
}

/** One short, actionable line for any error thrown by a ChatModel (or the SDK). Never contains secrets. */
export function describeModelError(e: unknown): string {
  if (e instanceof ModelError) return redact(e.message);
  if (e instanceof APIError || e instanceof Error) return redact(describe(e, 'the model endpoint', false).message);
  return redact(`model request failed: ${String(e)}`);
}

function describe(e: unknown, where: string, sentTools: boolean, words: ErrorWords = PLAIN_WORDS): { message: string; kind: ModelErrorKind; status?: number; limit?: LimitHit; repair?: Repair } {
  if (e instanceof APIUserAbortError) return { message: `model request to ${where} was aborted`, kind: 'unknown' };
  if (e instanceof APIConnectionTimeoutError) {
    return { message: `model request to ${where} timed out (after the SDK's retries); the model may be overloaded or the timeout too short`, kind: 'timeout' };
  }
  if (e instanceof APIConnectionError) {
    return {
      message: `could not reach the model endpoint ${where}: ${causeText(e)}. Check ${words.setting('base-url')} and network access`,
      kind: 'connection',
    };
  }
  if (e instanceof APIError && typeof e.status === 'number') {
    const status = e.status;
    const msg = serverMessage(e);
    const said = msg ? `: ${msg}` : '';
    const code = String((e as { code?: unknown }).code ?? '');
    const head = `model endpoint ${where} answered HTTP ${status}${said}`;
    if (status === 401) return { status, kind: 'auth', message: `${head}. The API key was rejected: ${words.keyHelp}` };
    if (status === 403) return { status, kind: 'forbidden', message: `${head}. The key has no access to this model: check its permissions or pick another model` };
    if (status === 404) return { status, kind: 'not-found', message: `${head}. Check ${words.setting('model')} and that ${words.setting('base-url')} is the API root (the part before /chat/completions, e.g. https://api.openai.com/v1)` };
    if (status === 429) {
      const wait = e.headers ? retryAfterMs(e.headers) : undefined;
      const asks = wait !== undefined && wait > 0 ? ` (the server asks to wait ${Math.ceil(wait / 1000)}s)` : '';
      const type = e.headers?.get('x-ratelimit-type') ?? '';
      if (/day/i.test(type)) {
        return { status, kind: 'quota', limit: { kind: 'daily-quota', ...(wait !== undefined ? { retryAfterMs: wait } : {}) }, message: `${head}. The daily request quota of this model is spent (${type})${asks}` };
      }
      if (/quota|billing|insufficient/i.test(`${code} ${msg}`)) return { status, kind: 'quota', message: `${head}. The account's quota is exhausted: check billing or use another key` };
      return { status, kind: 'rate-limited', limit: { kind: 'rate-limited', ...(wait !== undefined ? { retryAfterMs: wait } : {}) }, message: `${head}. Still rate-limited${asks}: try again later or use a model with a higher limit` };
    }
    const body = (e.error && typeof e.error === 'object' ? e.error : {}) as Record<string, unknown>;
    const type = String(body.type ?? '');
    if (/content.?filter|content_policy|content management policy/i.test(`${code} ${type} ${msg}`) && status < 500) {
      return { status, kind: 'content-filter', message: `${head}. The endpoint's content filter refused the prompt (it quotes the issue, code and test output): try another model or endpoint, or a task text without the quoted material` };
    }
    if (code === 'tool_use_failed' || /failed_generation/.test(Object.keys(body).join(' '))) {
      return { status, kind: 'bad-request', repair: 'failed-generation', message: `${head}. The model's own tool call was malformed (the endpoint checks calls): asking again usually works; if it keeps failing, pick a model with better tool calling` };
    }
    const nCtx = typeof body.n_ctx === 'number' ? body.n_ctx : undefined;
    if (status === 413 || nCtx !== undefined || /tokens_limit_reached|exceed_context_size|context.?length|maximum context|context size|too many tokens|prompt is too long|n_keep|n_ctx|Request too large|too large for model|maximum number of tokens/i.test(`${code} ${type} ${msg}`)) {
      const limitTokens = nCtx ?? limitFromMessage(msg);
      return {
        status,
        kind: 'context-length',
        limit: { kind: 'too-large', ...(limitTokens ? { limitTokens } : {}) },
        message: `${head}. The request is over the endpoint's per-request token limit${limitTokens ? ` (${limitTokens} tokens)` : ''}: set max-input-tokens to that limit or lower`,
      };
    }
    if ((status === 400 || status === 422) && /unexpected role .?user.? after role .?tool|user.{0,20}after.{0,20}tool/i.test(msg)) {
      return { status, kind: 'bad-request', repair: 'message-order', message: `${head}. The endpoint does not accept a user message right after a tool result (Mistral's rule): if it keeps refusing after agent-fix joined the notes to the tool results, use another model or endpoint` };
    }
    if ((status === 400 || status === 422) && /property '[\w.]+' is unsupported|(?:reasoning|reasoning_content|extra_content)\W.{0,40}(?:not supported|unsupported|not permitted|unrecognized)|Extra inputs are not permitted|Additional properties are not allowed \('[\w.]+' was unexpected\)/i.test(msg)) {
      return { status, kind: 'bad-request', repair: 'provider-fields', message: `${head}. The endpoint refuses a field of its own replies sent back: pick a model without reasoning output or another endpoint if it keeps refusing` };
    }
    if ((status === 400 || status === 422) && /tool.?call.?id/i.test(msg) && /length of 9|a-z, ?A-Z, ?0-9|alphanumeric/i.test(msg)) {
      return { status, kind: 'bad-request', repair: 'tool-call-ids', message: `${head}. The endpoint wants tool-call ids of its own form (Mistral: 9 letters or digits): if it keeps refusing after agent-fix rewrote them, use another model or endpoint` };
    }
    if ((status === 400 || status === 422) && /Expecting (?:',' delimiter|value|property name)|Unterminated string|JSONDecodeError|Extra data: line|(?:invalid|malformed).{0,20}(?:tool.?call )?arguments|parse.{0,30}arguments/i.test(msg)) {
      return { status, kind: 'bad-request', repair: 'bad-arguments', message: `${head}. A tool call's arguments in the history are not valid JSON (a reply cut at its token limit): raise max-output-tokens, or use a model that writes shorter calls` };
    }
    if ((status === 400 || status === 422) && /reasoning_content|thought_signature/i.test(msg)) {
      return { status, kind: 'bad-request', message: `${head}. The endpoint wants a field of its own replies sent back that agent-fix did not keep: report this with the endpoint's name; meanwhile turn the model's thinking mode off or pick another model` };
    }
    if ((status === 400 || status === 422) && sentTools && /tool|function/i.test(msg) && /support|enable-auto-tool-choice|tool-call-parser/i.test(msg)) {
      return { status, kind: 'tools-unsupported', message: `${head}. This model or server seems not to support tool calling: choose a model with tool/function calling support` };
    }
    if (status >= 500) return { status, kind: 'server', message: `${head}. The server kept failing after retries: try again later` };
    return { status, kind: 'bad-request', message: `${head}. The server rejected the request` };
  }
  if (e instanceof Error) return { message: `model request to ${where} failed: ${e.message}`, kind: 'unknown' };
  return { message: `model request to ${where} failed: ${String(e)}`, kind: 'unknown' };
}

/** The server's own message: JSON error message if any, else the raw text, shortened. */
function serverMessage(e: APIError): string {
  const err = e.error as unknown;
  let text = '';
  if (err && typeof err === 'object') {
    const m = (err as { message?: unknown }).message;
    text = typeof m === 'string' ? m : JSON.stringify(err);
  } else if (typeof err === 'string') text = err;
  else text = e.message.replace(/^\d{3}\s*/, '').replace(/^status code \(no body\)$/, '');
  text = text.replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

function causeText(e: unknown): string {
  const cause = (e as { cause?: unknown })?.cause;
  const parts: string[] = [];
  if (e instanceof Error && e.message) parts.push(e.message);
  let c: unknown = cause;
  for (let i = 0; c && i < 3; i++) {
    const code = (c as { code?: unknown }).code;
    const message = (c as { message?: unknown }).message;
    if (typeof code === 'string') parts.push(code);
    else if (typeof message === 'string' && message) parts.push(message);
    c = (c as { cause?: unknown }).cause;
  }
  return [...new Set(parts)].join(': ') || 'connection failed';
}

/** Origin and path only: no credentials, no query string. */
function safeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return '(invalid base-url)';
  }
}

const TOKEN_PATTERNS = [
  /\bsk-[A-Za-z0-9_\-*.]{6,}/g,
  /\bgh[pousr]_[A-Za-z0-9]{10,}/g,
  /\bgithub_pat_[A-Za-z0-9_]{10,}/g,
  /\bBearer\s+[A-Za-z0-9_\-.=:+/]{8,}/gi,
];

function redact(text: string, apiKey?: string): string {
  let out = text;
  if (apiKey && apiKey.length >= 8) out = out.split(apiKey).join('***');
  for (const p of TOKEN_PATTERNS) out = out.replace(p, '***');
  return out;
}
