/**
 * The dialects of "OpenAI-compatible" the scripted server speaks (`dialect` of its options, the
 * demo's `--dialect`): what each endpoint adds to its replies, what it refuses in a request and
 * how its refusals read, as the providers document them and their users report them. Pure.
 *
 * | dialect | adds to replies | refuses | a request over its window |
 * | --- | --- | --- | --- |
 * | plain, github-models | | | 413 `tokens_limit_reached` |
 * | deepseek | `reasoning_content` | a tool-call turn sent back without it (400) | 400 maximum context length |
 * | gemini | `extra_content.google.thought_signature` on the first call of a step | a step's first call without its signature (400); errors as a JSON array | 400 input token count |
 * | mistral | 9-character ids | `user` after `tool`, ids of another form (400 `{object: "error"}`) | 400 too large for model |
 * | ollama | `<think>` in content | | 200, keeps the last tokens (silent truncation) |
 * | vllm, llamacpp, lmstudio | Hermes `<tool_call>` text instead of `tool_calls` (vllm) | arguments in the history that are not JSON (400 `Expecting ',' delimiter`) | 400 max context; `exceed_context_size_error` with `n_ctx`; `n_keep >= n_ctx` |
 * | groq | `reasoning` | a malformed tool call of the model's own (400 `tool_use_failed`); any field beyond OpenAI's on an assistant message (400 `property 'reasoning' is unsupported`) | 413 `Limit N, Requested M` |
 * | openrouter | | a rate limit upstream comes as HTTP 200 with `error` and no `choices` | 400 maximum context length |
 * | anthropic-compat | | | 400 `prompt is too long: N tokens > M maximum` |
 */

export const DIALECTS = ['plain', 'github-models', 'deepseek', 'gemini', 'mistral', 'ollama', 'vllm', 'llamacpp', 'lmstudio', 'groq', 'openrouter', 'anthropic-compat'] as const;
export type Dialect = (typeof DIALECTS)[number];

export function isDialect(x: unknown): x is Dialect {
  return typeof x === 'string' && (DIALECTS as readonly string[]).includes(x);
}

type Json = Record<string, unknown>;

/** An answer the dialect gives instead of a reply: status and body (a JSON value, or text). */
export interface Refusal {
  status: number;
  body: unknown;
  why: string;
}

/** How tool calls of a step are written when the server has no tool parser. */
export type TextCallFormat = 'hermes' | 'mistral' | 'llama' | 'json';

/** The writing of tool calls as text the dialect uses by default (vLLM started without a tool parser writes Hermes). */
export function defaultTextCalls(d: Dialect): TextCallFormat | undefined {
  return d === 'vllm' ? 'hermes' : undefined;
}

/** Whether the dialect's model leaves its reasoning in the content (R1-style models on Ollama). */
export function thinksInContent(d: Dialect): boolean {
  return d === 'ollama';
}

const MISTRAL_ID = /^[A-Za-z0-9]{9}$/;

/**
 * The dialect's refusal of a request by its rules on the history, before any step is used; null
 * when it passes. `signatures` are the thought signatures the server has handed out (Gemini).
 */
export function checkHistory(d: Dialect, messages: unknown[], signatures: ReadonlySet<string>): Refusal | null {
  const list = messages.map((m) => (m && typeof m === 'object' ? (m as Json) : {}));
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    const calls = Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]) : [];
    if (d === 'deepseek' && m.role === 'assistant' && calls.length && typeof m.reasoning_content !== 'string') {
      return { status: 400, why: 'reasoning_content', body: { error: { message: `Missing \`reasoning_content\` field in the assistant message at message index ${i}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`, type: 'invalid_request_error', param: null, code: 'invalid_request_error' } } };
    }
    if (d === 'gemini' && m.role === 'assistant' && calls.length) {
      const sig = ((calls[0].extra_content as Json | undefined)?.google as Json | undefined)?.thought_signature;
      if (typeof sig !== 'string' || !signatures.has(sig)) {
        const name = String((calls[0].function as Json | undefined)?.name ?? '');
        return { status: 400, why: 'thought_signature', body: [{ error: { code: 400, message: `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${name}\` , position ${i}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`, status: 'INVALID_ARGUMENT' } }] };
      }
    }
    if (d === 'mistral') {
      if (m.role === 'user' && list[i - 1]?.role === 'tool') {
        return { status: 400, why: 'message-order', body: { object: 'error', message: "Unexpected role 'user' after role 'tool'", type: 'invalid_request_message_order', param: null, code: '3230' } };
      }
      for (const c of calls) {
        if (!MISTRAL_ID.test(String(c.id ?? ''))) return { status: 400, why: 'tool-call-id', body: { object: 'error', message: `Tool call id was ${String(c.id)} but must be a-z, A-Z, 0-9, with a length of 9.`, type: 'invalid_request_error', param: null, code: null } };
      }
      if (m.role === 'tool' && !MISTRAL_ID.test(String(m.tool_call_id ?? ''))) {
        return { status: 400, why: 'tool-call-id', body: { object: 'error', message: `Tool call id was ${String(m.tool_call_id)} but must be a-z, A-Z, 0-9, with a length of 9.`, type: 'invalid_request_error', param: null, code: null } };
      }
    }
    if (d === 'groq' && m.role === 'assistant') {
      const extra = Object.keys(m).find((k) => !['role', 'content', 'tool_calls', 'name'].includes(k));
      if (extra) return { status: 400, why: 'provider-fields', body: { error: { message: `'messages.${i}' : for 'role:assistant' the following must be satisfied[('messages.${i}' : property '${extra}' is unsupported)]`, type: 'invalid_request_error' } } };
    }
    if (d === 'vllm' || d === 'llamacpp' || d === 'lmstudio') {
      for (const c of calls) {
        const args = String((c.function as Json | undefined)?.arguments ?? '');
        const bad = jsonError(args);
        if (bad) return { status: 400, why: 'bad-arguments', body: { object: 'error', message: bad, type: 'BadRequestError', param: null, code: 400 } };
      }
    }
  }
  return null;
}

/** A Python-json-like message for text that is not JSON ("Expecting ',' delimiter: line 1 column 37 (char 36)"); null when it parses. */
function jsonError(text: string): string | null {
  try {
    JSON.parse(text);
    return null;
  } catch {
    const at = Math.max(0, text.length);
    return `Expecting ',' delimiter: line 1 column ${at + 1} (char ${at})`;
  }
}

/** A step's tool call the model wrote malformed, refused the way Groq checks calls; null elsewhere. */
export function checkGeneration(d: Dialect, calls: { name: string; arguments: string }[]): Refusal | null {
  if (d !== 'groq') return null;
  const bad = calls.find((c) => jsonError(c.arguments));
  if (!bad) return null;
  return { status: 400, why: 'tool_use_failed', body: { error: { message: "Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.", type: 'invalid_request_error', code: 'tool_use_failed', failed_generation: `<function=${bad.name}>${bad.arguments}</function>` } } };
}

/** The dialect's refusal of a request over its window of `limit` tokens; 'silent' when it answers anyway with the last `limit` tokens (Ollama). */
export function overWindow(d: Dialect, model: string, tokens: number, limit: number): Refusal | 'silent' {
  const name = model.slice(model.lastIndexOf('/') + 1);
  const refusal = (status: number, body: unknown): Refusal => ({ status, body, why: 'too-large' });
  switch (d) {
    case 'ollama':
      return 'silent';
    case 'llamacpp':
      return refusal(400, { error: { code: 400, message: 'the request exceeds the available context size, try increasing it', type: 'exceed_context_size_error', n_prompt_tokens: tokens, n_ctx: limit } });
    case 'lmstudio':
      return refusal(400, { error: `the request exceeds the available context size: n_keep: ${tokens} >= n_ctx: ${limit}` });
    case 'vllm':
      return refusal(400, { object: 'error', message: `This model's maximum context length is ${limit} tokens. However, you requested ${tokens} tokens in the messages, Please reduce the length of the messages.`, type: 'BadRequestError', param: null, code: 400 });
    case 'groq':
      return refusal(413, { error: { message: `Request too large for model \`${name}\` in organization \`org_scripted\` service tier \`on_demand\` on tokens per minute (TPM): Limit ${limit}, Requested ${tokens}, please reduce your message size and try again.`, type: 'tokens', code: 'rate_limit_exceeded' } });
    case 'anthropic-compat':
      return refusal(400, { type: 'error', error: { type: 'invalid_request_error', message: `prompt is too long: ${tokens} tokens > ${limit} maximum` } });
    case 'gemini':
      return refusal(400, [{ error: { code: 400, message: `The input token count (${tokens}) exceeds the maximum number of tokens allowed (${limit}).`, status: 'INVALID_ARGUMENT' } }]);
    case 'mistral':
      return refusal(400, { object: 'error', message: `Prompt contains ${tokens} tokens and 0 draft tokens, too large for model with ${limit} maximum context length`, type: 'invalid_request_error', param: null, code: null });
    case 'deepseek':
    case 'openrouter':
      return refusal(400, { error: { message: `This model's maximum context length is ${limit} tokens. However, you requested ${tokens} tokens. Please reduce the length of the messages.`, type: 'invalid_request_error', code: d === 'openrouter' ? 400 : 'invalid_request_error' } });
    default:
      return refusal(413, { error: { code: 'tokens_limit_reached', message: `Request body too large for ${name} model. Max size: ${limit} tokens.`, details: null } });
  }
}

/** A scripted error step (status and message) in the dialect's shape; OpenRouter's upstream rate limits come as HTTP 200. */
export function errorIn(d: Dialect, status: number, message: string, openAiBody: Json): { status: number; body: unknown } {
  switch (d) {
    case 'gemini':
      return { status, body: [{ error: { code: status, message, status: status === 429 ? 'RESOURCE_EXHAUSTED' : status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT' } }] };
    case 'mistral':
      return { status, body: { object: 'error', message, type: status === 429 ? 'rate_limited' : 'invalid_request_error', param: null, code: String(status) } };
    case 'anthropic-compat':
      return { status, body: { type: 'error', error: { type: status === 429 ? 'rate_limit_error' : 'invalid_request_error', message } } };
    case 'openrouter':
      return status === 429 ? { status: 200, body: { error: { code: 429, message, metadata: { provider_name: 'scripted-upstream' } } } } : { status, body: openAiBody };
    default:
      return { status, body: openAiBody };
  }
}

let counter = 0;

/** The reply's message as the dialect writes it: its own fields, its ids, its text calls. `sign` records a handed-out thought signature. */
export function dialectMessage(d: Dialect, message: Json, index: number, textCalls: TextCallFormat | undefined, sign: (s: string) => void): Json {
  const out: Json = { ...message };
  let calls = Array.isArray(out.tool_calls) ? (out.tool_calls as Json[]).map((c) => ({ ...c })) : [];
  if (d === 'deepseek') out.reasoning_content = `Step ${index + 1}: thinking about what to do next.`;
  // Groq's reasoning models (reasoning_format "parsed") answer with `reasoning`, and refuse it back
  if (d === 'groq') out.reasoning = `Step ${index + 1}: reasoning.`;
  if (d === 'mistral') calls = calls.map((c) => ({ ...c, id: mistralId(index) }));
  if (d === 'gemini' && calls.length) {
    const sig = `c2lnbmF0dXJl${index}_${++counter}`;
    sign(sig);
    calls[0] = { ...calls[0], extra_content: { google: { thought_signature: sig } } };
  }
  if (thinksInContent(d)) out.content = `<think>\n${'Let me think about the repository and the failing test. '.repeat(20)}\n</think>\n${typeof out.content === 'string' ? out.content : ''}`;
  if (textCalls && calls.length) {
    const fns = calls.map((c) => c.function as { name: string; arguments: string });
    const text = textCalls === 'hermes' || textCalls === 'llama' ? fns.map((f) => writeCall(textCalls, f)).join('\n') : `${textCalls === 'mistral' ? '[TOOL_CALLS]' : ''}${JSON.stringify(fns.map(callObject))}`;
    out.content = `${typeof out.content === 'string' && out.content ? `${out.content}\n` : ''}${text}`;
    calls = [];
  }
  if (calls.length) out.tool_calls = calls;
  else delete out.tool_calls;
  return out;
}

function mistralId(index: number): string {
  const chars = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  let n = ++counter * 7919 + index;
  let id = '';
  for (let i = 0; i < 9; i++) {
    id += chars[n % chars.length];
    n = Math.floor(n / chars.length) + 31 * (i + 1);
  }
  return id;
}

function callObject(fn: { name: string; arguments: string }): { name: string; arguments: unknown } {
  try {
    return { name: fn.name, arguments: JSON.parse(fn.arguments) as unknown };
  } catch {
    return { name: fn.name, arguments: fn.arguments };
  }
}

function writeCall(format: 'hermes' | 'llama', fn: { name: string; arguments: string }): string {
  const call = callObject(fn);
  if (format === 'hermes') return `<tool_call>\n${JSON.stringify(call)}\n</tool_call>`;
  return `<function=${fn.name}>${JSON.stringify(call.arguments)}</function>`;
}
