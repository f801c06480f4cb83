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
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] }
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
