/**
 * Conversation compaction: once the messages pass a token budget, older tool results are
 * replaced by a one-line summary (what was called, how large the result was), the latest
 * messages stay as they are, and the caller adds the current state of the files the model
 * changed. The system prompt and the first message are never touched, nor is any message
 * removed (every tool call keeps its tool result). Pure.
 */
import type { ChatMessage } from '../ports/llm.js';
import { countTokens, truncateToTokens } from './tokens.js';

/** Messages at the end that are never summarised (the model's current line of work). */
const KEEP_LAST = 6;
/** Tool results shorter than this are kept as they are. */
const SMALL_RESULT_TOKENS = 120;

export function messagesTokens(messages: ChatMessage[]): number {
  let n = 0;
  for (const m of messages) {
    n += 4 + countTokens(m.content ?? '');
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) n += countTokens(c.name) + countTokens(c.arguments);
  }
  return n;
}

export interface Compaction {
  messages: ChatMessage[];
  /** Tool results summarised by this pass. */
  summarised: number;
  before: number;
  after: number;
}

/**
 * Summarises older tool results when the conversation passes `budgetTokens`; null when it is
 * within the budget or nothing is left to summarise.
 */
export function compactMessages(messages: ChatMessage[], budgetTokens: number): Compaction | null {
  const before = messagesTokens(messages);
  if (before <= budgetTokens) return null;
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const m of messages) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.set(c.id, c);
  const out = messages.slice();
  let summarised = 0;
  for (let i = 2; i < out.length - KEEP_LAST; i++) {
    const m = out[i];
    if (m.role === 'assistant' && m.toolCalls?.some((c) => c.name === 'write_file' && countTokens(c.arguments) >= SMALL_RESULT_TOKENS)) {
      // a whole file the model wrote earlier: its current state is what counts, and the caller adds it
      out[i] = { ...m, toolCalls: m.toolCalls.map((c) => (c.name === 'write_file' && countTokens(c.arguments) >= SMALL_RESULT_TOKENS ? { ...c, arguments: summariseWrite(c.arguments) } : c)) };
      summarised++;
      continue;
    }
    if (m.role !== 'tool' || !m.content || m.content.startsWith('[summarised')) continue;
    const tokens = countTokens(m.content);
    if (tokens < SMALL_RESULT_TOKENS) continue;
    const call = calls.get(m.toolCallId);
    const what = call ? `${call.name} ${shortArgs(call.arguments)}` : 'a tool call';
    const firstLine = m.content.split('\n', 1)[0].slice(0, 160);
    out[i] = { ...m, content: `[summarised to save context: the result of ${what} (${tokens} tokens), which began "${firstLine}". Call the tool again if you need it.]` };
    summarised++;
  }
  if (summarised === 0) return null;
  return { messages: out, summarised, before, after: messagesTokens(out) };
}

function shortArgs(raw: string): string {
  try {
    const v = JSON.parse(raw) as Record<string, unknown>;
    const keep = ['path', 'pattern', 'start_line', 'end_line', 'filter'].filter((k) => v[k] !== undefined).map((k) => `${k}=${JSON.stringify(v[k])}`);
    return keep.length ? `(${keep.join(', ')})` : '';
  } catch {
    return '';
  }
}

function summariseWrite(raw: string): string {
  try {
    const v = JSON.parse(raw) as { path?: unknown; content?: unknown };
    const lines = typeof v.content === 'string' ? v.content.split('\n').length : 0;
    return JSON.stringify({ path: v.path, content: `[summarised: ${lines} lines written; see the current state of the changed files]` });
  } catch {
    return raw;
  }
}

/** The message that follows a compaction: what the model changed so far, as a diff against the original code. */
export function compactionNote(diff: string, maxTokens = 3000): string {
  const body = diff.trim() ? truncateToTokens(diff.trim(), maxTokens) : '(no changes yet)';
  return `Older tool results were summarised to keep the conversation within its token budget. Your changes so far (diff against the original code):\n\`\`\`diff\n${body}\n\`\`\``;
}
