/** The model, OpenAI chat-completions shaped. Implemented by adapters/openai.ts (openai SDK). */

export interface ToolSpec {
  name: string;
  description: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
}

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text as the model sent it (may be malformed). */
  arguments: string;
  /**
   * Fields of the call beyond OpenAI's (`id`, `type`, `function`), as the endpoint sent them
   * (Gemini's `extra_content.google.thought_signature`): sent back unchanged with the call.
   */
  extra?: Record<string, unknown>;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  /** `extra`: the reply's fields beyond OpenAI's (DeepSeek's `reasoning_content`), sent back with its tool calls. */
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[]; extra?: Record<string, unknown> }
  | { role: 'tool'; toolCallId: string; content: string };

export interface Usage {
  promptTokens: number;
  completionTokens: number;
}

export interface ModelReply {
  content: string | null;
  toolCalls: ToolCall[];
  /** 'stop' | 'tool_calls' | 'length' | ... as the server said. */
  finishReason: string;
  usage: Usage;
  /** Fields of the reply's message beyond OpenAI's (`reasoning_content`, `reasoning_details`...), to send back with it. */
  extra?: Record<string, unknown>;
  /** True when the endpoint reported no usage and `usage` is our estimate (no truncation can be read from it). */
  usageEstimated?: boolean;
}

export interface ChatModel {
  readonly model: string;
  complete(messages: ChatMessage[], tools: ToolSpec[]): Promise<ModelReply>;
}

/**
 * One cheap request (a one-token completion) that shows whether the endpoint, key and model
 * work, made before any test runs. `fatal`: the run cannot work (wrong URL, key or model);
 * otherwise the failure may pass (rate limit, a server hiccup) and the run goes on.
 */
export type EndpointCheck = { ok: true; detail: string } | { ok: false; fatal: boolean; message: string };

export interface CheckableModel extends ChatModel {
  check(): Promise<EndpointCheck>;
}

export function isCheckable(m: ChatModel): m is CheckableModel {
  return typeof (m as Partial<CheckableModel>).check === 'function';
}

/** Header of the endpoint check's request: the scripted server (src/scripted) answers it without spending a step; real servers ignore it. */
export const CHECK_HEADER = 'x-agent-fix-check';

/**
 * A request the endpoint refused because of one of its limits, as the adapter read the answer:
 * `too-large` (413 `tokens_limit_reached`; `limitTokens` when the message names the real limit),
 * `rate-limited` (429 for requests per minute; `retryAfterMs` when the server said how long), or
 * `daily-quota` (429 with `x-ratelimit-type: UserByModelByDay`, or a quota the account spent).
 * The loop decides what follows: shrink and retry, wait, or stop keeping the best attempt.
 */
export type LimitHit =
  | { kind: 'too-large'; limitTokens?: number }
  | { kind: 'rate-limited'; retryAfterMs?: number }
  | { kind: 'daily-quota'; retryAfterMs?: number };

/** The limit an error of `complete()` reports (an adapter's error carrying a `limit`), or undefined. */
export function limitOf(e: unknown): LimitHit | undefined {
  const limit = (e as { limit?: unknown } | null)?.limit;
  if (!limit || typeof limit !== 'object') return undefined;
  const kind = (limit as { kind?: unknown }).kind;
  return kind === 'too-large' || kind === 'rate-limited' || kind === 'daily-quota' ? (limit as LimitHit) : undefined;
}

/**
 * What an error of `complete()` says can be repaired in the conversation itself, as the adapter read
 * the endpoint's answer: `message-order` (Mistral: no `user` right after `tool`), `tool-call-ids`
 * (Mistral: 9 alphanumeric characters), `bad-arguments` (vLLM, llama.cpp, SGLang: a tool call's
 * arguments in the history are not JSON), `failed-generation` (Groq's `tool_use_failed`: the
 * model's own call was malformed; asking again usually works), `provider-fields` (Groq: a reply's
 * own fields such as `reasoning` are refused when sent back).
 */
export type Repair = 'message-order' | 'tool-call-ids' | 'bad-arguments' | 'failed-generation' | 'provider-fields';

/** The repair an error of `complete()` asks for (an adapter's error carrying a `repair`), or undefined. */
export function repairOf(e: unknown): Repair | undefined {
  const r = (e as { repair?: unknown } | null)?.repair;
  return r === 'message-order' || r === 'tool-call-ids' || r === 'bad-arguments' || r === 'failed-generation' || r === 'provider-fields' ? r : undefined;
}
