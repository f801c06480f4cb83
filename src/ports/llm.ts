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
