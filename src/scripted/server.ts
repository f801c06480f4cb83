/**
 * A scripted OpenAI-compatible chat-completions server on loopback (node:http only).
 * Each POST /chat/completions consumes the next step of the script and answers in the
 * exact chat.completion shape (or as SSE chunks when `stream: true`). Used by the tests
 * and by the keyless `agent-fix demo`, so it ships in the bundle.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { countTokens as count } from 'gpt-tokenizer/encoding/o200k_base';
import { parseScript, stepKind, type Script, type Step } from './script.js';
import { CHECK_HEADER } from '../ports/llm.js';
import { checkGeneration, checkHistory, defaultTextCalls, dialectMessage, errorIn, overWindow, type Dialect, type TextCallFormat } from './dialects.js';

export interface ScriptedModel {
  /** Base URL ending in `/v1`, usable as the openai SDK's `baseURL`. */
  readonly url: string;
  /** Parsed bodies of every chat-completions request, in order. */
  readonly requests: any[];
  /** Bearer key (or `api-key` header) of every chat-completions request; null when absent. */
  readonly receivedKeys: (string | null)[];
  /** Failed `expect`s and requests that arrived without credentials. */
  readonly mismatches: string[];
  /** True once a request arrived after the last step. */
  readonly exhausted: boolean;
  /** Number of steps consumed so far. */
  readonly consumed: number;
  /** Endpoint checks answered (requests with the `x-agent-fix-check` header; they consume no step and are not in `requests`). */
  readonly checks: number;
  /** Input tokens of every request that reached a step (`requests`), as the server counts them (see `requestTokens`). */
  readonly requestTokens: number[];
  /** Requests refused by a limit of `limits` (they consume no step and are not in `requests`): the status, why, and the request's tokens. */
  readonly refused: { status: number; why: string; tokens: number }[];
  /** Requests over the window that a dialect answering silently (ollama) cut to their last tokens: the request's tokens. */
  readonly truncated: number[];
  close(): Promise<void>;
}

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
export class ScriptExhausted extends Error {
  constructor(label: string, steps: number, requests: number) {
    super(
      `scripted model "${label}" ran out of script: ${requests} request(s) for ${steps} step(s). The run needed more than the test scripted; ` +
        'add the missing steps, or pass { allowExhaustion: true } when running out is what the test checks.',
    );
    this.name = 'ScriptExhausted';
  }
}

type Json = Record<string, unknown>;

const EXHAUSTED_TEXT = '(script exhausted)';

export async function startScriptedModel(script: Script, opts: ScriptedModelOptions = {}): Promise<ScriptedModel> {
  const parsed = parseScript(script);
  const steps = parsed.steps as Step[];
  const label = parsed.label ?? 'script';
  const host = opts.host ?? '127.0.0.1';
  const state = {
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
  const limits = opts.limits ?? {};
  const windowMs = limits.windowMs ?? 60_000;
  const rateHeaders = limits.rateHeaders ?? limits.requestsPerWindow !== undefined;
  const dialect: Dialect = opts.dialect ?? 'plain';
  const textCalls = opts.textCalls === 'none' ? undefined : (opts.textCalls ?? defaultTextCalls(dialect));

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendError(res, 500, `scripted server failure: ${e instanceof Error ? e.message : String(e)}`);
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
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

    const key = bearerKey(req);
    const model = typeof body.model === 'string' ? body.model : 'scripted';
    if (req.headers[CHECK_HEADER]) {
      // The endpoint check: answered like any request (key, model), without spending a step.
      if (!key || (opts.apiKey !== undefined && key !== opts.apiKey)) return sendError(res, 401, 'Incorrect API key provided (scripted)', 'invalid_api_key');
      if (opts.models && !opts.models.includes(model)) return sendError(res, 404, `The model \`${model}\` does not exist (scripted)`, 'model_not_found');
      state.checks++;
      sendJson(res, 200, completionJson(model, ++state.seq, { content: 'OK', toolCalls: [], finishReason: 'length', usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } }));
      return;
    }
    state.requests.push(body);
    state.receivedKeys.push(key);
    opts.onRequest?.(body);
    if (!key) {
      state.mismatches.push(`request ${state.requests.length}: no Authorization header`);
      sendError(res, 401, 'Missing bearer authentication in header', 'invalid_api_key');
      return;
    }
    if (opts.apiKey !== undefined && key !== opts.apiKey) return sendError(res, 401, 'Incorrect API key provided (scripted)', 'invalid_api_key');
    if (opts.models && !opts.models.includes(model)) return sendError(res, 404, `The model \`${model}\` does not exist (scripted)`, 'model_not_found');

    const tokens = requestTokens(body);
    const refuse = (status: number, why: string, payload: unknown, headers: Record<string, string> = {}) => {
      // a refused request is not one the model answered: out of `requests`, no step consumed
      state.requests.pop();
      state.receivedKeys.pop();
      state.refused.push({ status, why, tokens });
      const text = JSON.stringify(payload);
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
      res.end(text);
    };
    if (limits.dailyRequests !== undefined && state.answered >= limits.dailyRequests) {
      const wait = limits.dailyRetryAfterSeconds ?? 5 * 3600;
      return refuse(
        429,
        'daily-quota',
        { error: { code: 'RateLimitReached', message: `Rate limit of ${limits.dailyRequests} per 86400s exceeded for UserByModelByDay. Please wait ${wait} seconds before retrying.`, details: 'Rate limit of requests per day exceeded.' } },
        { 'retry-after': String(wait), 'x-ratelimit-type': 'UserByModelByDay' },
      );
    }
    const now = Date.now();
    if (limits.requestsPerWindow !== undefined) {
      if (now - state.windowStart >= windowMs) {
        state.windowStart = now;
        state.windowCount = 0;
      }
      if (state.windowCount >= limits.requestsPerWindow) {
        const wait = Math.max(1, Math.ceil((state.windowStart + windowMs - now) / 1000));
        return refuse(
          429,
          'per-minute',
          { error: { code: 'RateLimitReached', message: `Rate limit of ${limits.requestsPerWindow} per ${Math.round(windowMs / 1000)}s exceeded for UserByModelByMinute. Please wait ${wait} seconds before retrying.` } },
          { 'retry-after': String(wait), 'x-ratelimit-type': 'UserByModelByMinute', ...windowHeaders(now) },
        );
      }
    }
    let promptTokens: number | undefined;
    if (limits.maxInputTokens !== undefined && tokens > limits.maxInputTokens) {
      const over = overWindow(dialect, model, tokens, limits.maxInputTokens);
      if (over !== 'silent') return refuse(over.status, over.why, over.body);
      // answered anyway, from the last tokens only; the usage shows it
      state.truncated.push(tokens);
      promptTokens = limits.maxInputTokens;
    }
    const broken = checkHistory(dialect, body.messages, state.signatures);
    if (broken) return refuse(broken.status, broken.why, broken.body);
    if (limits.requestsPerWindow !== undefined) state.windowCount++;
    state.answered++;
    state.requestTokens.push(tokens);
    if (rateHeaders) for (const [k, v] of Object.entries(windowHeaders(now))) res.setHeader(k, v);
    const usageTokens = promptTokens ?? (opts.limits ? tokens : undefined);

    const stream = body.stream === true;
    const includeUsage = stream && body.stream_options?.include_usage === true;
    const index = state.next;
    const step = steps[index];
    if (!step) {
      state.exhausted = true;
      const reply = buildReply({ content: EXHAUSTED_TEXT }, index, body.messages);
      if (stream) sendStream(res, model, ++state.seq, reply, includeUsage);
      else sendJson(res, 200, completionJson(model, ++state.seq, reply));
      return;
    }
    state.next++;
    checkExpect(step, index, body.messages);

    answerStep(res, step, index, body.messages, usageTokens, stream, includeUsage, model);
  }

  /** The answer of one step: its error in the dialect's shape, or its reply as the dialect writes it. */
  function answerStep(res: ServerResponse, step: Step, index: number, messages: unknown[], usageTokens: number | undefined, stream: boolean, includeUsage: boolean, model: string): void {
    if (step.error) {
      const { headers = {}, body: errBody, message } = step.error;
      const shaped = errBody !== undefined ? { status: step.error.status, body: errBody } : errorIn(dialect, step.error.status, message ?? defaultMessage(step.error.status), defaultErrorBody(step.error.status, message));
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
    const failed = checkGeneration(dialect, reply.toolCalls);
    if (failed) return sendJson(res, failed.status, failed.body);
    if (stream) sendStream(res, model, ++state.seq, reply, includeUsage);
    else {
      const json = completionJson(model, ++state.seq, reply);
      if (dialect !== 'plain' || textCalls) {
        const choice = (json.choices as Json[])[0];
        choice.message = dialectMessage(dialect, choice.message as Json, index, textCalls, (sig) => state.signatures.add(sig));
        if (textCalls && reply.toolCalls.length) choice.finish_reason = 'stop';
      }
      sendJson(res, 200, json);
    }
  }

  /** The rate-limit headers of the current window. */
  function windowHeaders(now: number): Record<string, string> {
    if (limits.requestsPerWindow === undefined) return {};
    const resetMs = Math.max(0, state.windowStart + windowMs - now);
    return {
      'x-ratelimit-limit-requests': String(limits.requestsPerWindow),
      'x-ratelimit-remaining-requests': String(Math.max(0, limits.requestsPerWindow - state.windowCount)),
      'x-ratelimit-reset-requests': `${(resetMs / 1000).toFixed(3)}s`,
    };
  }

  function checkExpect(step: Step, index: number, messages: unknown[]): void {
    const want = step.expect?.lastMessageIncludes;
    if (want === undefined) return;
    const last = messages[messages.length - 1];
    const text = messageText(last);
    if (!text.includes(want)) {
      const got = text.length > 200 ? `${text.slice(0, 200)}…` : text;
      state.mismatches.push(
        `${label} steps[${index}]: last message does not include ${JSON.stringify(want)}; got ${JSON.stringify(got)}`,
      );
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const urlHost = host.includes(':') ? `[${host}]` : host;
  let closed: Promise<void> | null = null;

  return {
    url: `http://${urlHost}:${port}/v1`,
    requests: state.requests,
    receivedKeys: state.receivedKeys,
    mismatches: state.mismatches,
    get exhausted() {
      return state.exhausted;
    },
    get consumed() {
      return state.next;
    },
    get checks() {
      return state.checks;
    },
    requestTokens: state.requestTokens,
    refused: state.refused,
    truncated: state.truncated,
    /** Stops the server; rejects with ScriptExhausted when a request came after the last step (unless allowed). */
    close() {
      closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }).then(() => {
        if (state.exhausted && !opts.allowExhaustion) throw new ScriptExhausted(label, steps.length, state.requests.length);
      });
      return closed;
    },
  };
}

// ---------------------------------------------------------------- reply building

interface Reply {
  content: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'content_filter';
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
}

function buildReply(step: Step, index: number, messages: unknown[], promptTokens?: number): Reply {
  const toolCalls = (step.toolCalls ?? []).map((c, i) => ({
    id: c.id ?? `call_${index}_${i}`,
    name: c.name,
    arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
  }));
  const kind = stepKind(step);
  const content = kind === 'filtered' ? '' : (step.content ?? null);
  const finishReason = kind === 'filtered' ? 'content_filter' : kind === 'truncated' ? 'length' : toolCalls.length ? 'tool_calls' : 'stop';
  const promptChars = messages.reduce<number>((n, m) => n + messageText(m).length, 0);
  const replyChars = (content ?? '').length + toolCalls.reduce((n, c) => n + c.name.length + c.arguments.length, 0);
  const prompt = step.usage?.promptTokens ?? promptTokens ?? Math.ceil(promptChars / 4);
  const completion = step.usage?.completionTokens ?? Math.ceil(replyChars / 4);
  return {
    content,
    toolCalls,
    finishReason,
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

function completionJson(model: string, seq: number, reply: Reply): Json {
  const message: Json = { role: 'assistant', content: reply.content, refusal: null };
  if (reply.toolCalls.length) {
    message.tool_calls = reply.toolCalls.map((c) => ({
      id: c.id,
      type: 'function',
      function: { name: c.name, arguments: c.arguments },
    }));
  }
  return {
    id: `chatcmpl-scripted-${seq}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: reply.finishReason }],
    usage: reply.usage,
  };
}

function sendStream(res: ServerResponse, model: string, seq: number, reply: Reply, includeUsage: boolean): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  const base = { id: `chatcmpl-scripted-${seq}`, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model };
  const send = (choices: unknown[], extra: Json = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, choices, ...extra })}\n\n`);
  const delta = (d: Json, finish: string | null = null) => send([{ index: 0, delta: d, logprobs: null, finish_reason: finish }]);

  delta({ role: 'assistant', content: '' });
  for (const piece of pieces(reply.content ?? '', 16)) delta({ content: piece });
  reply.toolCalls.forEach((c, i) => {
    delta({ tool_calls: [{ index: i, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] });
    for (const piece of pieces(c.arguments, 24)) delta({ tool_calls: [{ index: i, function: { arguments: piece } }] });
  });
  delta({}, reply.finishReason);
  if (includeUsage) send([], { usage: reply.usage });
  res.end('data: [DONE]\n\n');
}

function pieces(text: string, size: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

// ---------------------------------------------------------------- helpers

function messageText(m: unknown): string {
  if (!m || typeof m !== 'object') return '';
  const msg = m as { content?: unknown; tool_calls?: unknown };
  let text = '';
  if (typeof msg.content === 'string') text = msg.content;
  else if (Array.isArray(msg.content)) {
    text = msg.content.map((p) => (p && typeof p === 'object' && typeof p.text === 'string' ? p.text : '')).join('');
  }
  if (Array.isArray(msg.tool_calls)) text += JSON.stringify(msg.tool_calls);
  return text;
}

function bearerKey(req: IncomingMessage): string | null {
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const m = /^Bearer\s+(.+)$/i.exec(auth.trim());
    return m ? m[1] : auth.trim() || null;
  }
  const apiKey = req.headers['api-key'];
  return typeof apiKey === 'string' && apiKey ? apiKey : null;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function sendError(res: ServerResponse, status: number, message: string, code: string | null = null): void {
  sendJson(res, status, defaultErrorBody(status, message, code));
}

const DEFAULT_MESSAGES: Record<number, [string, string]> = {
  400: ['Bad request (scripted)', 'invalid_request_error'],
  401: ['Incorrect API key provided (scripted)', 'invalid_request_error'],
  403: ['Permission denied (scripted)', 'permission_error'],
  404: ['The model does not exist or you do not have access to it (scripted)', 'invalid_request_error'],
  429: ['Rate limit reached (scripted)', 'rate_limit_error'],
};

function defaultMessage(status: number): string {
  return (DEFAULT_MESSAGES[status] ?? [status >= 500 ? 'The server had an error while processing your request (scripted)' : `HTTP ${status} (scripted)`])[0];
}

function defaultErrorBody(status: number, message?: string, code: string | null = null): Json {
  const [defMessage, type] = DEFAULT_MESSAGES[status] ?? [
    status >= 500 ? 'The server had an error while processing your request (scripted)' : `HTTP ${status} (scripted)`,
    status >= 500 ? 'server_error' : 'invalid_request_error',
  ];
  return { error: { message: message ?? defMessage, type, param: null, code } };
}
