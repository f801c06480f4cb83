/**
 * The scripted endpoint's behaviour, one request at a time: routes, the endpoint check, keys and
 * models, the limits of a real endpoint (GitHub Models' or a dialect's), and the next step of the
 * script answered. A ScriptedEndpoint owns what the server has seen (requests, refusals, the
 * step reached); server.ts puts it on a loopback port.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { countTokens as count } from 'gpt-tokenizer/encoding/o200k_base';
import { parseScript, type Script, type Step } from './script.js';
import { CHECK_HEADER } from '../ports/llm.js';
import { checkGeneration, checkHistory, defaultTextCalls, dialectMessage, errorIn, overWindow, type Dialect, type TextCallFormat } from './dialects.js';
import { buildReply, completionJson, sendStream, messageText, bearerKey, readBody, sendJson, sendError, defaultMessage, defaultErrorBody, type Json } from './replies.js';

export interface ScriptedModelOptions {
  host?: string;
  onRequest?: (body: unknown) => void;
  /** Running out of script is what the test checks: `close()` then resolves anyway. */
  allowExhaustion?: boolean;
  /** The only key the server accepts (any other gets 401, as a real server answers); default: any key. */
  apiKey?: string;
  /** The only model names the server knows (any other gets 404); default: any name. */
  models?: string[];
  /** The limits of a real endpoint, enforced the way GitHub Models answers them (default: none), or the way `dialect` does. */
  limits?: EndpointLimits;
  /**
   * The endpoint the server behaves as (scripted/dialects.ts): the fields it adds to replies and
   * wants back, the histories it refuses, the shapes of its errors, its answer to a request over
   * `limits.maxInputTokens` (its context window). Default `plain`. Replies that stream are plain.
   */
  dialect?: Dialect;
  /** Tool calls written as text in the content instead of `tool_calls` (default: the dialect's; vllm writes Hermes). */
  textCalls?: TextCallFormat | 'none';
}

/**
 * GitHub Models' limits, as its answers show them: a per-request input limit (413
 * `tokens_limit_reached`), requests per window (429 with retry-after, and `x-ratelimit-*` headers
 * on every answer), and a daily quota (429 with a retry-after of hours and `x-ratelimit-type:
 * UserByModelByDay`).
 */
export interface EndpointLimits {
  /** Input tokens per request (the request's messages, tool calls and tool schemas, counted with o200k_base). */
  maxInputTokens?: number;
  /** Requests per window (a minute by default): one more is answered 429 with the seconds to the window's end. */
  requestsPerWindow?: number;
  windowMs?: number;
  /** Serve `x-ratelimit-limit-requests`, `-remaining-requests`, `-reset-requests` on every answer (default: with requestsPerWindow). */
  rateHeaders?: boolean;
  /** Requests answered before the daily quota is spent; later ones get 429 with `retry-after: dailyRetryAfterSeconds` (default 5 hours). */
  dailyRequests?: number;
  dailyRetryAfterSeconds?: number;
}

/**
 * The input tokens of a chat-completions request as the server counts them: every message's
 * content, its tool calls (id, name, arguments) and tool_call_id, 4 tokens of framing per message,
 * the tool schemas as JSON, and 3 for the reply's priming.
 */
export function requestTokens(body: { messages?: unknown[]; tools?: unknown[] }): number {
  let n = 3;
  for (const m of body.messages ?? []) {
    const msg = (m ?? {}) as { content?: unknown; tool_calls?: { id?: string; function?: { name?: string; arguments?: string } }[]; tool_call_id?: unknown };
    n += 4;
    if (typeof msg.content === 'string') n += count(msg.content);
    else if (Array.isArray(msg.content)) n += count(JSON.stringify(msg.content));
    for (const c of msg.tool_calls ?? []) n += 8 + count(String(c.id ?? '')) + count(String(c.function?.name ?? '')) + count(String(c.function?.arguments ?? ''));
    if (typeof msg.tool_call_id === 'string') n += count(msg.tool_call_id);
  }
  if (Array.isArray(body.tools) && body.tools.length) n += count(JSON.stringify(body.tools));
  return n;
}

/** `close()` of a scripted model that ran out of script: the test that used it fails with this. */

const EXHAUSTED_TEXT = '(script exhausted)';

export class ScriptedEndpoint {
  readonly steps: Step[];
  readonly label: string;
  /** What the server has seen and where the script is. */
  readonly state = {
    requests: [] as any[],
    receivedKeys: [] as (string | null)[],
    mismatches: [] as string[],
    exhausted: false,
    next: 0,
    seq: 0,
    checks: 0,
    requestTokens: [] as number[],
    refused: [] as { status: number; why: string; tokens: number }[],
    truncated: [] as number[],
    signatures: new Set<string>(),
    windowStart: 0,
    windowCount: 0,
    answered: 0,
  };
  private readonly limits: EndpointLimits;
  private readonly windowMs: number;
  private readonly rateHeaders: boolean;
  private readonly dialect: Dialect;
  private readonly textCalls: TextCallFormat | undefined;

  constructor(
    script: Script,
    private readonly opts: ScriptedModelOptions,
  ) {
    const parsed = parseScript(script);
    this.steps = parsed.steps as Step[];
    this.label = parsed.label ?? 'script';
    this.limits = opts.limits ?? {};
    this.windowMs = this.limits.windowMs ?? 60_000;
    this.rateHeaders = this.limits.rateHeaders ?? this.limits.requestsPerWindow !== undefined;
    this.dialect = opts.dialect ?? 'plain';
    this.textCalls = opts.textCalls === 'none' ? undefined : (opts.textCalls ?? defaultTextCalls(this.dialect));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0].replace(/\/+$/, '');
    if (req.method === 'GET' && (path === '/models' || path === '/v1/models')) {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'scripted', object: 'model', created: 0, owned_by: 'agent-fix' }],
      });
      return;
    }
    if (path !== '/chat/completions' && path !== '/v1/chat/completions') {
      sendError(res, 404, `no route ${req.method} ${path}`, 'not_found');
      return;
    }
    if (req.method !== 'POST') {
      sendError(res, 405, `method ${req.method} not allowed`);
      return;
    }
    const raw = await readBody(req);
    let body: any;
    try {
      body = JSON.parse(raw);
    } catch {
      sendError(res, 400, 'request body is not valid JSON');
      return;
    }
    if (!body || typeof body !== 'object' || !Array.isArray(body.messages)) {
      sendError(res, 400, "'messages' is required and must be an array");
      return;
    }
    this.chat(req, res, body);
  }

  /** A chat-completions request: the endpoint check, the key and model, the limits, then the next step's answer. */
  private chat(req: IncomingMessage, res: ServerResponse, body: any): void {
    const key = bearerKey(req);
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    if (req.headers[CHECK_HEADER]) {
      // The endpoint check: answered like any request (key, model), without spending a step.
      if (!key || (this.opts.apiKey !== undefined && key !== this.opts.apiKey)) return sendError(res, 401, 'Incorrect API key provided (scripted)', 'invalid_api_key');
      if (this.opts.models && !this.opts.models.includes(model)) return sendError(res, 404, `The model \`${model}\` does not exist (scripted)`, 'model_not_found');
      this.state.checks++;
      sendJson(res, 200, completionJson(model, ++this.state.seq, { content: 'OK', toolCalls: [], finishReason: 'length', usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }));
      return;
    }
    this.state.requests.push(body);
    this.state.receivedKeys.push(key);
    this.opts.onRequest?.(body);
    if (!key) {
      this.state.mismatches.push(`request ${this.state.requests.length}: no Authorization header`);
      sendError(res, 401, 'Missing bearer authentication in header', 'invalid_api_key');
      return;
    }
    if (this.opts.apiKey !== undefined && key !== this.opts.apiKey) return sendError(res, 401, 'Incorrect API key provided (scripted)', 'invalid_api_key');
    if (this.opts.models && !this.opts.models.includes(model)) return sendError(res, 404, `The model \`${model}\` does not exist (scripted)`, 'model_not_found');
    this.answer(res, body, model);
  }

  /** The limits of `limits` (a refusal consumes no step), then the next step of the script. */
  private answer(res: ServerResponse, body: any, model: string): void {
    const tokens = requestTokens(body);
    const refuse = (status: number, why: string, payload: unknown, headers: Record<string, string> = {}) => {
      // a refused request is not one the model answered: out of `requests`, no step consumed
      this.state.requests.pop();
      this.state.receivedKeys.pop();
      this.state.refused.push({ status, why, tokens });
      const text = JSON.stringify(payload);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    if (this.limits.dailyRequests !== undefined && this.state.answered >= this.limits.dailyRequests) {
      const wait = this.limits.dailyRetryAfterSeconds ?? 5 * 3600;
      return refuse(
        429,
        'daily-quota',
        { error: { code: 'RateLimitReached', message: `Rate limit of ${this.limits.dailyRequests} per 86400s exceeded for UserByModelByDay. Please wait ${wait} seconds before retrying.`, details: 'Rate limit of requests per day exceeded.' } },
        { 'retry-after': String(wait), 'x-ratelimit-type': 'UserByModelByDay' },
      );
    }
    const now = Date.now();
    if (this.limits.requestsPerWindow !== undefined) {
      if (now - this.state.windowStart >= this.windowMs) {
        this.state.windowStart = now;
        this.state.windowCount = 0;
      }
      if (this.state.windowCount >= this.limits.requestsPerWindow) {
        const wait = Math.max(1, Math.ceil((this.state.windowStart + this.windowMs - now) / 1000));
        return refuse(
          429,
          'per-minute',
          { error: { code: 'RateLimitReached', message: `Rate limit of ${this.limits.requestsPerWindow} per ${Math.round(this.windowMs / 1000)}s exceeded for UserByModelByMinute. Please wait ${wait} seconds before retrying.` } },
          { 'retry-after': String(wait), 'x-ratelimit-type': 'UserByModelByMinute', ...this.windowHeaders(now) },
        );
      }
    }
    let promptTokens: number | undefined;
    if (this.limits.maxInputTokens !== undefined && tokens > this.limits.maxInputTokens) {
      const over = overWindow(this.dialect, model, tokens, this.limits.maxInputTokens);
      if (over !== 'silent') return refuse(over.status, over.why, over.body);
      // answered anyway, from the last tokens only; the usage shows it
      this.state.truncated.push(tokens);
      promptTokens = this.limits.maxInputTokens;
    }
    const broken = checkHistory(this.dialect, body.messages, this.state.signatures);
    if (broken) return refuse(broken.status, broken.why, broken.body);
    if (this.limits.requestsPerWindow !== undefined) this.state.windowCount++;
    this.state.answered++;
    this.state.requestTokens.push(tokens);
    if (this.rateHeaders) for (const [k, v] of Object.entries(this.windowHeaders(now))) res.setHeader(k, v);
    const usageTokens = promptTokens ?? (this.opts.limits ? tokens : undefined);

    const stream = body.stream === true;
    const includeUsage = stream && body.stream_options?.include_usage === true;
    const index = this.state.next;
    const step = this.steps[index];
    if (!step) {
      this.state.exhausted = true;
      const reply = buildReply({ content: EXHAUSTED_TEXT }, index, body.messages);
      if (stream) sendStream(res, model, ++this.state.seq, reply, includeUsage);
      else sendJson(res, 200, completionJson(model, ++this.state.seq, reply));
      return;
    }
    this.state.next++;
    this.checkExpect(step, index, body.messages);

    this.answerStep(res, step, index, body.messages, usageTokens, stream, includeUsage, model);
  }

  /** The answer of one step: its error in the dialect's shape, or its reply as the dialect writes it. */
  private answerStep(res: ServerResponse, step: Step, index: number, messages: unknown[], usageTokens: number | undefined, stream: boolean, includeUsage: boolean, model: string): void {
    if (step.error) {
      const { headers = {}, body: errBody, message } = step.error;
      const shaped = errBody !== undefined ? { status: step.error.status, body: errBody } : errorIn(this.dialect, step.error.status, message ?? defaultMessage(step.error.status), defaultErrorBody(step.error.status, message));
      const { status, body: payload } = shaped;
      const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
      res.writeHead(status, {
        'content-type': typeof payload === 'string' ? 'text/plain; charset=utf-8' : 'application/json',
        'content-length': Buffer.byteLength(text),
        ...headers,
      });
      res.end(text);
      return;
    }
    const reply = buildReply(step, index, messages, usageTokens);
    const failed = checkGeneration(this.dialect, reply.toolCalls);
    if (failed) return sendJson(res, failed.status, failed.body);
    if (stream) sendStream(res, model, ++this.state.seq, reply, includeUsage);
    else {
      const json = completionJson(model, ++this.state.seq, reply);
      if (this.dialect !== 'plain' || this.textCalls) {
        const choice = (json.choices as Json[])[0];
        choice.message = dialectMessage(this.dialect, choice.message as Json, index, this.textCalls, (sig) => this.state.signatures.add(sig));
        if (this.textCalls && reply.toolCalls.length) choice.finish_reason = 'stop';
      }
      sendJson(res, 200, json);
    }
  }

  /** The rate-limit headers of the current window. */
  private windowHeaders(now: number): Record<string, string> {
    if (this.limits.requestsPerWindow === undefined) return {};
    const resetMs = Math.max(0, this.state.windowStart + this.windowMs - now);
    return {
      'x-ratelimit-limit-requests': String(this.limits.requestsPerWindow),
      'x-ratelimit-remaining-requests': String(Math.max(0, this.limits.requestsPerWindow - this.state.windowCount)),
      'x-ratelimit-reset-requests': `${(resetMs / 1000).toFixed(3)}s`,
    };
  }

  private checkExpect(step: Step, index: number, messages: unknown[]): void {
    const want = step.expect?.lastMessageIncludes;
    if (want === undefined) return;
    const last = messages[messages.length - 1];
    const text = messageText(last);
    if (!text.includes(want)) {
      const got = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      this.state.mismatches.push(
        `${this.label} steps[${index}]: last message does not include ${JSON.stringify(want)}; got ${JSON.stringify(got)}`,
      );
    }
  }
}
