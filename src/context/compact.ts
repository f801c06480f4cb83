/**
 * Conversation compaction: once the messages pass a token budget, older tool results are
 * replaced by a one-line summary (what was called, how large the result was), the latest
 * messages stay as they are, and the caller adds the current state of the files the model
 * changed. The system prompt and the first message are never touched, nor is any message
 * removed (every tool call keeps its tool result). Pure.
 *
 * `fitToBudget` goes further, for an endpoint's hard per-request limit (GitHub Models: 8,000
 * input tokens): after the older results, the earlier results of the current line of work are
 * summarised, then whole older turns (an assistant message with its tool results) are dropped
 * with a note of what they called, then the newest results are cut to the room left. The task
 * (system prompt and first message) and the latest state stay.
 */
import type { ChatMessage } from '../ports/llm.js';
import { countTokens, truncateToTokens } from './tokens.js';

/** Messages at the end that are never summarised (the model's current line of work). */
const KEEP_LAST = 6;
/** Tool results shorter than this are kept as they are. */
const SMALL_RESULT_TOKENS = 120;

/** Tokens of one message as a chat endpoint counts it: content, tool calls and their arguments, and the framing. */
export function messageTokens(m: ChatMessage): number {
  let n = 4 + countTokens(m.content ?? '');
  if (m.role === 'assistant') for (const c of m.toolCalls ?? []) n += 8 + countTokens(c.id) + countTokens(c.name) + countTokens(c.arguments);
  if (m.role === 'tool') n += countTokens(m.toolCallId);
  return n;
}

export function messagesTokens(messages: ChatMessage[]): number {
  let n = 3; // the reply's priming
  for (const m of messages) n += messageTokens(m);
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

/** How a note of dropped turns begins (a later fit replaces it). */
const DROPPED = '[Earlier steps removed to fit the per-request token budget';
/** How the compaction note begins (a later compaction replaces it). */
export const COMPACTION_NOTE = 'Older tool results were summarised';

export interface Fit {
  messages: ChatMessage[];
  /** What was done, in order (for the run's notes). */
  steps: string[];
  before: number;
  after: number;
  /** False when even the task and the latest step do not fit. */
  fits: boolean;
}

/** Index of the latest assistant message (the current step's tool calls follow it); -1 when there is none. */
function lastAssistant(messages: ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'assistant') return i;
  return -1;
}

function summariseResult(m: Extract<ChatMessage, { role: 'tool' }>, calls: Map<string, { name: string; arguments: string }>): ChatMessage {
  const tokens = countTokens(m.content);
  const call = calls.get(m.toolCallId);
  const what = call ? `${call.name} ${shortArgs(call.arguments)}` : 'a tool call';
  const firstLine = m.content.split('\n', 1)[0].slice(0, 120);
  return { ...m, content: `[summarised to save context: the result of ${what} (${tokens} tokens), which began "${firstLine}". Call the tool again if you need it.]` };
}

/**
 * Fits the conversation into `budgetTokens` (the messages alone: the caller has taken the tool
 * schemas off), in steps that each keep the task (messages 0 and 1) and the latest step whole as
 * long as they can: (1) older tool results summarised, (2) earlier results of the recent messages
 * summarised, (3) whole older turns dropped, oldest first, with one note of what they called,
 * (4) the latest reply's own long edits summarised (applied already), (5) the latest tool results
 * cut, largest first. Pure; `fits` says whether it worked.
 */
export function fitToBudget(messages: ChatMessage[], budgetTokens: number, upTo: 1 | 2 | 3 | 4 = 4): Fit {
  const before = messagesTokens(messages);
  const steps: string[] = [];
  if (before <= budgetTokens) return { messages, steps, before, after: before, fits: true };
  const calls = new Map<string, { name: string; arguments: string }>();
  for (const m of messages) if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.set(c.id, c);
  let out = messages.slice();
  const total = () => messagesTokens(out);

  // (1) older tool results
  const older = compactMessages(out, budgetTokens);
  if (older) {
    out = older.messages;
    steps.push(`${older.summarised} older tool results summarised`);
  }
  // (2) the results of earlier steps among the recent messages
  const current = lastAssistant(out);
  if (upTo >= 2 && total() > budgetTokens) {
    let n = 0;
    for (let i = 2; i < current; i++) {
      const m = out[i];
      if (m.role === 'tool' && !m.content.startsWith('[summarised') && countTokens(m.content) >= 40) {
        out[i] = summariseResult(m, calls);
        n++;
      }
    }
    if (n) steps.push(`${n} recent tool results summarised`);
  }
  // (3) whole older turns, oldest first
  if (upTo >= 3 && total() > budgetTokens) {
    const head = out.slice(0, 2);
    let rest = out.slice(2);
    const dropped: string[] = [];
    let removed = 0;
    while (messagesTokens([...head, noteOf(dropped), ...rest]) > budgetTokens && lastAssistant(rest) > 0) {
      const m = rest[0];
      let end = 1;
      if (m.role === 'assistant') {
        for (const c of m.toolCalls ?? []) dropped.push(`${c.name}${shortArgs(c.arguments) ? ` ${shortArgs(c.arguments)}` : ''}`);
        while (end < rest.length && rest[end].role === 'tool') end++;
      } else if (m.role === 'user' && m.content.startsWith(DROPPED)) {
        const list = m.content.slice(DROPPED.length + 2, -1);
        if (list && list !== 'none') dropped.unshift(list);
      }
      removed += end;
      rest = rest.slice(end);
    }
    if (removed) {
      out = [...head, noteOf(dropped), ...rest];
      steps.push(`${removed} older messages dropped`);
    }
  }
  // (4) the latest reply's own long edits: applied already (their results say so, and the caller
  // notes the changes as a diff), so their full text need not travel again
  if (upTo >= 4 && total() > budgetTokens) {
    const cur = lastAssistant(out);
    const m = out[cur];
    if (m && m.role === 'assistant' && m.toolCalls?.some((c) => (c.name === 'write_file' || c.name === 'edit_file') && countTokens(c.arguments) >= SMALL_RESULT_TOKENS)) {
      out[cur] = { ...m, toolCalls: m.toolCalls.map((c) => ((c.name === 'write_file' || c.name === 'edit_file') && countTokens(c.arguments) >= SMALL_RESULT_TOKENS ? { ...c, arguments: c.name === 'write_file' ? summariseWrite(c.arguments) : summariseEdit(c.arguments) } : c)) };
      steps.push('the latest edits summarised');
    }
  }
  // (5) the latest tool results, largest first, to what is left
  if (upTo >= 4 && total() > budgetTokens) {
    const cur = lastAssistant(out);
    const idx = out.map((m, k) => (k > cur && m.role === 'tool' ? k : -1)).filter((k) => k >= 0);
    idx.sort((a, b) => countTokens(out[b].content ?? '') - countTokens(out[a].content ?? ''));
    let n = 0;
    for (const k of idx) {
      const over = total() - budgetTokens;
      if (over <= 0) break;
      const m = out[k] as Extract<ChatMessage, { role: 'tool' }>;
      const has = countTokens(m.content);
      const keep = Math.max(0, has - over - 30);
      out[k] = { ...m, content: keep > 50 ? `${truncateToTokens(m.content, keep)}\n[cut to fit the per-request token budget: ask for less, e.g. read_file with a smaller start_line/end_line range]` : summariseResult(m, calls).content } as ChatMessage;
      n++;
    }
    if (n) steps.push(`${n} latest tool results cut`);
  }
  const after = total();
  return { messages: out, steps, before, after, fits: after <= budgetTokens };
}

function noteOf(dropped: string[]): ChatMessage {
  const list = dropped.join('; ');
  const shown = list.length > 600 ? `${list.slice(0, 600)}…` : list;
  return { role: 'user', content: `${DROPPED}: ${shown || 'none'}]` };
}

/** An `edit_file` call (one edit, or the batch form `edits: [...]`) with its strings replaced by their line counts. */
export function summariseEdit(raw: string): string {
  const lines = (x: unknown) => (typeof x === 'string' ? x.split('\n').length : 0);
  const short = (e: { old_string?: unknown; new_string?: unknown }) => ({
    old_string: `[summarised: ${lines(e.old_string)} lines]`,
    new_string: `[summarised: ${lines(e.new_string)} lines; see the current state of the changed files]`,
  });
  try {
    const v = JSON.parse(raw) as { path?: unknown; old_string?: unknown; new_string?: unknown; edits?: unknown };
    if (Array.isArray(v.edits)) {
      const edits = v.edits.map((e: unknown) => (e && typeof e === 'object' ? short(e as { old_string?: unknown; new_string?: unknown }) : e));
      return JSON.stringify({ path: v.path, edits });
    }
    return JSON.stringify({ path: v.path, ...short(v) });
  } catch {
    return raw;
  }
}

/** The message that follows a compaction: what the model changed so far, as a diff against the original code. */
export function compactionNote(diff: string, maxTokens = 3000): string {
  const body = diff.trim() ? truncateToTokens(diff.trim(), maxTokens) : '(no changes yet)';
  return `${COMPACTION_NOTE} to keep the conversation within its token budget. Your changes so far (diff against the original code):\n\`\`\`diff\n${body}\n\`\`\``;
}
