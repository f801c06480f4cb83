/**
 * The conversation with the model: its messages, their fitting to the endpoint's window, and what
 * the endpoint needs back in the form it accepts. The loop adds replies, tool results and notes;
 * the model caller (model-caller.ts) sends `outgoing()` and, when the endpoint refuses it, asks
 * for a repair or a smaller window.
 *
 * What goes back is decided by what the endpoint returned, not by model names: the provider's own
 * fields of a reply (DeepSeek's `reasoning_content`, Gemini's thought signatures) travel back with
 * it (the adapter keeps them as `extra`); reasoning left in the content (`<think>`) does not; tool
 * calls written as text are read as calls; arguments cut off at the token limit are closed or
 * replaced before they poison the history; and once the endpoint has refused a `user` message
 * after a tool result, or tool-call ids of our form, those never leave again.
 */
import type { ChatMessage, ModelReply, Repair, ToolCall, ToolSpec } from '../ports/llm.js';
import { COMPACTION_NOTE, compactionNote, fitToBudget, messagesTokens, messageTokens } from '../context/compact.js';
import { countJsonTokens, countTokens, truncateToTokens } from '../context/tokens.js';
import { DEFAULT_CONTEXT_TOKENS, firstMessageWithContext, systemPrompt, type PromptLimits } from './prompt.js';
import type { RepoContext } from '../context/index.js';
import { callId, parseTextCalls, repairArguments, stripThinking } from './text-calls.js';

/** Share of the input limit the loop fills: the endpoint's tokenizer and framing differ a little from ours. */
export const FILL = 0.96;
/** The compaction threshold when none is set: twice the context budget, at least this. */
export const SOFT_TOKENS = 12_000;

export interface ConversationOptions {
  /** The task's first message, without repository context. */
  first: string;
  tools: readonly ToolSpec[];
  limits: PromptLimits;
  redact: (text: string) => string;
  context?: RepoContext;
  contextTokens?: number;
  compactTokens?: number;
  maxInputTokens?: number;
  maxOutputTokens?: number;
  /** The changes so far as a diff against the original code, for the note after a compaction. */
  changes: () => Promise<string>;
  /** A line for the run's notes. */
  note: (message: string) => void;
  /** Off: tool calls written as text are not read (the behaviour before dialects; for comparison). Default on. */
  readTextCalls?: boolean;
}

/** A request that cannot fit: the part that alone is too big. */
export interface Unfit {
  part: string;
  partTokens: number;
}

/** The endpoint's rules learnt from its refusals. */
export interface Rules {
  /** No `user` message right after a `tool` one (Mistral): such a note joins the tool result. */
  noUserAfterTool: boolean;
  /** Tool-call ids of 9 letters or digits (Mistral). */
  shortIds: boolean;
  /** The replies' own fields are not sent back (Groq refuses `reasoning` it sent). */
  noProviderFields: boolean;
}

export class Conversation {
  readonly messages: ChatMessage[];
  readonly rules: Rules = { noUserAfterTool: false, shortIds: false, noProviderFields: false };
  /** The per-request input limit (learnt lower from a refusal or a silent truncation); Infinity: none. */
  inputLimit: number;
  fill = FILL;
  readonly toolTokens: number;
  private readonly system: string;
  private contextBudget: number;
  private sent = 0;
  private replies = 0;

  constructor(private readonly o: ConversationOptions) {
    this.inputLimit = o.maxInputTokens && o.maxInputTokens > 0 ? o.maxInputTokens : Number.POSITIVE_INFINITY;
    this.toolTokens = countJsonTokens(o.tools.map((t) => ({ type: 'function', function: t })));
    this.system = this.systemFor();
    // The repository context of the first request: within context-tokens, and with an input limit
    // at most 70 % of it, so that the first reads fit beside it (it shrinks further when they do not).
    this.contextBudget = o.context ? Math.min(o.contextTokens ?? DEFAULT_CONTEXT_TOKENS, Number.isFinite(this.inputLimit) ? Math.floor(this.inputLimit * 0.7) : Number.POSITIVE_INFINITY) : 0;
    this.messages = [
      { role: 'system', content: this.system },
      { role: 'user', content: this.firstText(this.contextBudget) },
    ];
  }

  /** The tokens the messages may take in one request. */
  messageBudget(): number {
    return Math.floor(this.inputLimit * this.fill) - this.toolTokens;
  }

  /** Tokens of the part of every request that no compaction can shrink: system prompt, tool schemas, the task without repository context. */
  fixedTokens(): number {
    return this.toolTokens + messagesTokens([this.messages[0], { role: 'user', content: this.o.redact(this.o.first) }]);
  }

  /** Tokens of the whole request as we count it. */
  requestTokens(): number {
    return messagesTokens(this.outgoing()) + this.toolTokens;
  }

  /** The compaction note's diff budget: at most 3,000 tokens, and an eighth of a bounded request. */
  noteTokens(): number {
    return Number.isFinite(this.inputLimit) ? Math.min(3000, Math.floor(this.inputLimit / 8)) : 3000;
  }

  /** The room each of `producing` tool results of the latest reply may take in the next request (Infinity without an input limit). */
  resultShare(producing: number): number {
    if (!Number.isFinite(this.inputLimit)) return Number.POSITIVE_INFINITY;
    const last = this.messages[this.messages.length - 1];
    return Math.max(300, Math.floor((this.messageBudget() + this.toolTokens - this.fixedTokens() - messageTokens(last) - this.noteTokens() - 300) / Math.max(1, producing)));
  }

  /** The messages added since the last request (the compaction note with them when `noted`), for the run's events; marks them sent. */
  takeNew(noted: boolean, fresh: number): ChatMessage[] {
    const out = this.messages.slice(this.messages.length - fresh - (noted ? 1 : 0));
    this.sent = this.messages.length;
    // what the endpoint cannot have cached from the previous request: the new messages, or all after a compaction
    this.freshTokens = noted ? messagesTokens(this.messages) : messagesTokens(out);
    return out;
  }

  /** Tokens of the messages the latest request added to the one before (all of them after a compaction or on the first request). */
  freshTokens = 0;

  /** How many messages were added since the last request. */
  fresh(): number {
    return this.messages.length - this.sent;
  }

  /** The messages as the endpoint accepts them (its learnt rules applied). */
  outgoing(): ChatMessage[] {
    const bare = this.rules.noProviderFields ? this.messages.map(withoutProviderFields) : this.messages;
    if (!this.rules.noUserAfterTool) return bare;
    const out: ChatMessage[] = [];
    for (const m of bare) {
      const prev = out[out.length - 1];
      if (m.role === 'user' && prev?.role === 'tool') out[out.length - 1] = { ...prev, content: `${prev.content}\n\n${m.content}` };
      else out.push(m);
    }
    return out;
  }

  /**
   * Adds the model's reply and returns it as the loop acts on it: tool calls written as text read
   * as calls (with ids every endpoint accepts), `<think>` blocks out of the content kept, arguments
   * that are not JSON closed or replaced in the history (the loop still sees them as sent), and
   * the provider's own fields kept to go back.
   */
  addReply(reply: ModelReply): ModelReply {
    this.replies++;
    let acted = reply;
    let content = stripThinking(reply.content);
    if (reply.toolCalls.length === 0 && content && this.o.readTextCalls !== false) {
      const text = parseTextCalls(content, this.o.tools);
      if (text) {
        const toolCalls = text.calls.map((c, i) => ({ id: callId(`${this.replies}:${i}:${c.name}`), name: c.name, arguments: c.arguments }));
        this.o.note(`read ${toolCalls.length} tool call(s) written as text (${text.format} format)`);
        content = text.rest || null;
        acted = { ...reply, content, toolCalls, finishReason: 'tool_calls' };
      }
    }
    if (this.rules.shortIds) acted = { ...acted, toolCalls: acted.toolCalls.map((c, i) => (/^[A-Za-z0-9]{9}$/.test(c.id) ? c : { ...c, id: callId(`${this.replies}:${i}:${c.id}`) })) };
    // Redacted like everything else that leaves the process (the model may echo a secret it saw in a file).
    const kept: ToolCall[] = acted.toolCalls.map((c) => ({ ...c, arguments: this.o.redact(repairArguments(c.arguments).text) }));
    this.messages.push({
      role: 'assistant',
      content: content === null ? null : this.o.redact(content),
      ...(kept.length ? { toolCalls: kept } : {}),
      ...(reply.extra ? { extra: reply.extra } : {}),
    });
    return acted;
  }

  addToolResult(call: ToolCall, content: string): number {
    this.messages.push({ role: 'tool', toolCallId: call.id, content });
    return this.messages.length - 1;
  }

  /** A note of the harness for the model (a nudge). */
  addNote(content: string): void {
    this.messages.push({ role: 'user', content });
  }

  /** Appends `text` to message `index` (a tool result). */
  appendTo(index: number, text: string): void {
    const m = this.messages[index];
    this.messages[index] = { ...m, content: `${m.content ?? ''}\n\n${text}` } as ChatMessage;
  }

  /** A tool result within the room of `share` tokens. */
  sized(text: string, share: number): string {
    return Number.isFinite(share) ? sizeTo(text, share) : text;
  }

  /**
   * Applies what the endpoint's refusal asks for; false when there is nothing to change (the
   * refusal then ends the run). `failed-generation` needs no change: the caller asks again.
   */
  repair(kind: Repair): boolean {
    if (kind === 'message-order') {
      if (this.rules.noUserAfterTool) return false;
      this.rules.noUserAfterTool = true;
      return true;
    }
    if (kind === 'tool-call-ids') {
      if (this.rules.shortIds) return false;
      this.rules.shortIds = true;
      this.remapIds();
      return true;
    }
    if (kind === 'bad-arguments') return this.dropBadArguments();
    if (kind === 'provider-fields') {
      if (this.rules.noProviderFields) return false;
      this.rules.noProviderFields = true;
      return true;
    }
    return true;
  }

  /** Learns a lower input limit (a refusal named it, or a truncation revealed it); false when it is not lower. */
  learnLimit(tokens: number): boolean {
    if (!(tokens > 0) || tokens >= this.inputLimit) return false;
    this.inputLimit = tokens;
    return true;
  }

  /**
   * Fits the next request into the input limit, and into the compaction threshold (`compactTokens`,
   * where older tool results alone are summarised; never a reason to stop): older tool results
   * summarised, then, over the input limit only, the repository context of the first message
   * shrunk, then earlier steps summarised or dropped and the latest results cut; after any of it,
   * the note of the changes so far (`noted`). When even that does not fit: the part that alone is
   * too big (the run cannot go on).
   */
  async fit(): Promise<Unfit | { noted: boolean }> {
    const budget = this.messageBudget();
    const soft = this.o.compactTokens ?? Math.max(SOFT_TOKENS, 2 * (this.o.contextTokens ?? DEFAULT_CONTEXT_TOKENS));
    const before = messagesTokens(this.messages) + this.toolTokens;
    if (before - this.toolTokens <= Math.min(soft, budget)) return { noted: false };
    const kept = this.messages.filter((m) => !(m.role === 'user' && m.content.startsWith(COMPACTION_NOTE)));
    const note: ChatMessage = { role: 'user', content: this.o.redact(compactionNote(await this.o.changes(), this.noteTokens())) };
    const noteSize = messageTokens(note);
    // the soft threshold: older tool results only, as far as they go
    let fit = fitToBudget(kept, Math.min(soft, budget) - noteSize, 1);
    const hard = budget - noteSize;
    if (!fit.fits && Number.isFinite(this.inputLimit) && messagesTokens(fit.messages) > hard) {
      const hardFit = this.fitHard(kept, hard, budget);
      if ('part' in hardFit) return hardFit;
      fit = hardFit;
    }
    if (fit.steps.length === 0 && messagesTokens(this.messages) <= budget) return { noted: false };
    this.messages.splice(0, this.messages.length, ...fit.messages, note);
    const limit = Number.isFinite(this.inputLimit) && before > budget + this.toolTokens ? `the ${this.inputLimit}-token input limit` : 'the compaction threshold';
    this.o.note(`conversation compacted to ${limit}: ${[...fit.steps, 'the changes so far noted'].join(', ')} (${before} -> ${messagesTokens(this.messages) + this.toolTokens} tokens)`);
    return { noted: true };
  }

  /** The steps that only the endpoint's hard limit justifies. */
  private fitHard(kept: ChatMessage[], room: number, budget: number): ReturnType<typeof fitToBudget> | Unfit {
    let fit = fitToBudget(kept, room, 1);
    for (const level of [Math.floor(this.contextBudget / 2), 0].filter((b) => b < this.contextBudget)) {
      if (fit.fits) break;
      this.contextBudget = level;
      kept[1] = { role: 'user', content: this.firstText(level) };
      fit = fitToBudget(kept, room, 1);
      fit.steps.push(level ? `repository context cut to ${level} tokens` : 'repository context left out');
    }
    if (!fit.fits) {
      const steps = fit.steps;
      fit = fitToBudget(kept, room, 4);
      fit.steps.unshift(...steps.filter((x) => x.startsWith('repository')));
    }
    if (fit.fits) return fit;
    if (this.fixedTokens() > budget + this.toolTokens - 200) {
      const sys = messageTokens(this.messages[0]) + this.toolTokens;
      const task = messageTokens({ role: 'user', content: this.o.first });
      return sys >= task ? { part: 'the system prompt with the tool schemas', partTokens: sys } : { part: 'the task (issue text and the baseline test output)', partTokens: task };
    }
    return { part: 'the task with the latest step', partTokens: messagesTokens(fit.messages) + this.toolTokens };
  }

  private firstText(budgetTokens: number): string {
    const o = this.o;
    return o.redact(firstMessageWithContext(o.first, this.system, o.tools, o.context && budgetTokens > 0 ? { repo: o.context, budgetTokens } : undefined).text);
  }

  /** The system prompt; with an input limit it names the room of a request and of one read. */
  private systemFor(): string {
    const o = this.o;
    if (!Number.isFinite(this.inputLimit)) return systemPrompt(o.limits);
    const room = { inputTokens: this.inputLimit, outputTokens: o.maxOutputTokens ?? 0, readTokens: 0 };
    // a read's room: what the limit leaves after the task without repository context, the model's reply and a margin
    room.readTokens = Math.max(400, Math.floor((this.messageBudget() - countTokens(systemPrompt(o.limits, room)) - countTokens(o.first) - 900) * 0.8));
    return systemPrompt(o.limits, room);
  }

  private remapIds(): void {
    const ids = new Map<string, string>();
    const idOf = (id: string) => {
      if (/^[A-Za-z0-9]{9}$/.test(id)) return id;
      if (!ids.has(id)) ids.set(id, callId(`remap:${id}`));
      return ids.get(id)!;
    };
    this.messages.forEach((m, i) => {
      if (m.role === 'assistant' && m.toolCalls) this.messages[i] = { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, id: idOf(c.id) })) };
      else if (m.role === 'tool') this.messages[i] = { ...m, toolCallId: idOf(m.toolCallId) };
    });
  }

  /** Arguments in the history that still are not a JSON object become `{}`; false when there were none. */
  private dropBadArguments(): boolean {
    let changed = false;
    this.messages.forEach((m, i) => {
      if (m.role !== 'assistant' || !m.toolCalls) return;
      const calls = m.toolCalls.map((c) => {
        if (isJsonObject(c.arguments)) return c;
        changed = true;
        return { ...c, arguments: '{}' };
      });
      this.messages[i] = { ...m, toolCalls: calls };
    });
    return changed;
  }
}

function withoutProviderFields(m: ChatMessage): ChatMessage {
  if (m.role !== 'assistant' || (!m.extra && !m.toolCalls?.some((c) => c.extra))) return m;
  const { extra: _extra, ...rest } = m;
  return { ...rest, ...(m.toolCalls ? { toolCalls: m.toolCalls.map(({ extra: _e, ...c }) => c) } : {}) };
}

function isJsonObject(text: string): boolean {
  try {
    const v = JSON.parse(text) as unknown;
    return !!v && typeof v === 'object' && !Array.isArray(v);
  } catch {
    return false;
  }
}

/** A tool result within `maxTokens`, with a note of the cut. */
export function sizeTo(text: string, maxTokens: number): string {
  if (countTokens(text) <= maxTokens) return text;
  return `${truncateToTokens(text, Math.max(50, maxTokens - 40))}\n[cut to fit the per-request token budget (${maxTokens} tokens for this result); ask for less at a time]`;
}
