/**
 * The model caller: one model request with the endpoint's answers handled, whatever their shape
 * (the adapter has read them into a `limit` or a `repair`). A refusal as too large teaches the
 * real window and the request is fitted again; a short rate limit is waited out within the
 * wall-time budget; a refusal the conversation can repair (message order, tool-call ids, arguments
 * that are not JSON) is repaired and the request sent again; a failed generation is asked again;
 * a reply whose reported prompt is far below what was sent reveals a silent truncation (Ollama
 * keeps the last `num_ctx` tokens and answers 200), and the request is fitted under the window it
 * shows. Anything else stops the run with one line: the endpoint's answer and what to change.
 */
import { limitOf, repairOf, type ChatModel, type ModelReply, type ToolSpec } from '../ports/llm.js';
import { quotaStopMessage, tooLargeMessage } from '../budget/rate.js';
import type { Conversation, Unfit } from './conversation.js';

/** Refusals as too large answered in a row on one turn before the run gives up. */
const MAX_TOO_LARGE = 3;
/** Short 429s waited out on one turn. */
const MAX_RATE_WAITS = 6;
/** Repairs and re-asks on one turn. */
const MAX_REPAIRS = 3;
/** Silent truncations read on one turn. */
const MAX_TRUNCATIONS = 2;
/** A reported prompt below this share of the messages sent (by our count) is a truncation, when it is at least `MIN_WINDOW`. */
const TRUNCATED_SHARE = 0.6;
const MIN_WINDOW = 1024;

export interface CallerDeps {
  model: ChatModel;
  tools: ToolSpec[];
  redact: (text: string) => string;
  note: (message: string) => void;
  /** Every reply counts towards the budget, a discarded one too. */
  record: (reply: ModelReply) => void;
  sleep: (ms: number) => Promise<void>;
  now: () => number;
  /** Milliseconds left of the wall-time budget; absent: no cap. */
  remainingMs?: () => number;
  /** Off: refusals are not repaired and truncations not read (the behaviour before dialects; for comparison). */
  recover?: boolean;
}

export interface CallStop {
  stop: { reason: 'budget-exhausted' | 'model-error'; detail: string };
}
export type CallOutcome = { reply: ModelReply } | CallStop;

/** The run's stop when a request cannot be made small enough. */
export function tooLargeStop(conv: Conversation, unfit: Unfit): CallStop {
  return { stop: { reason: 'model-error', detail: tooLargeMessage({ ...unfit, limit: conv.inputLimit }) } };
}

export async function callModel(conv: Conversation, deps: CallerDeps): Promise<CallOutcome> {
  const recover = deps.recover ?? true;
  let tooLarge = 0;
  let waits = 0;
  let repairs = 0;
  let truncations = 0;
  for (;;) {
    let reply: ModelReply;
    const sending = conv.outgoing();
    try {
      reply = await deps.model.complete(sending, deps.tools);
    } catch (e) {
      const why = deps.redact(e instanceof Error ? e.message : String(e));
      const hit = limitOf(e);
      if (hit?.kind === 'too-large' && tooLarge < MAX_TOO_LARGE) {
        tooLarge++;
        const sentTokens = conv.requestTokens();
        const learnt = hit.limitTokens && hit.limitTokens < conv.inputLimit ? hit.limitTokens : null;
        if (learnt) conv.learnLimit(learnt);
        else if (!Number.isFinite(conv.inputLimit)) conv.learnLimit(Math.floor(sentTokens * 0.85));
        else conv.fill *= 0.9;
        deps.note(`the endpoint refused a request of ~${sentTokens} tokens as too large${learnt ? ` (its limit: ${learnt} tokens)` : ''}; fitting it to ${Math.floor(conv.inputLimit * conv.fill)} tokens and retrying`);
        const fitted = await conv.fit();
        if ('part' in fitted) return tooLargeStop(conv, fitted);
        continue;
      }
      if (hit?.kind === 'rate-limited' || hit?.kind === 'daily-quota') {
        const left = deps.remainingMs?.() ?? Number.POSITIVE_INFINITY;
        const wait = hit.retryAfterMs ?? Math.min(60_000, 5_000 * 2 ** waits);
        if (hit.kind === 'rate-limited' && wait < left && waits < MAX_RATE_WAITS) {
          waits++;
          deps.note(`the endpoint's rate limit: waiting ${Math.ceil(wait / 1000)}s before retrying the request`);
          await deps.sleep(wait);
          continue;
        }
        const asks = hit.retryAfterMs !== undefined ? ` (the server asks to wait ${Math.ceil(hit.retryAfterMs / 1000)}s)` : '';
        const detail = `${quotaStopMessage({ retryAfterMs: hit.retryAfterMs, daily: hit.kind === 'daily-quota', now: deps.now(), remainingMs: left })}${hit.kind === 'daily-quota' ? '' : asks}`;
        deps.note(`model request refused: ${why}`);
        deps.note(`budget exhausted: ${detail}`);
        return { stop: { reason: 'budget-exhausted', detail } };
      }
      const repair = repairOf(e);
      if (recover && repair && repairs < MAX_REPAIRS && conv.repair(repair)) {
        repairs++;
        deps.note(`${REPAIRED[repair]} (the endpoint answered: ${why})`);
        continue;
      }
      // The adapter already retried what is worth retrying (5xx, timeouts, connection resets);
      // what reaches here ends the run cleanly with what was verified so far.
      deps.note(`model request failed: ${why}`);
      return { stop: { reason: 'model-error', detail: why } };
    }
    const truncated = recover ? truncation(reply, conv, sending) : null;
    if (!truncated) return { reply };
    deps.record(reply);
    truncations++;
    const window = reply.usage.promptTokens;
    if (truncations > MAX_TRUNCATIONS || !conv.learnLimit(window)) {
      return { stop: { reason: 'model-error', detail: `the endpoint read only ${window} of the ~${truncated} tokens sent and answered anyway (it keeps the last tokens of a prompt over its context window, as Ollama's num_ctx does): raise the server's context window (Ollama: OLLAMA_CONTEXT_LENGTH or num_ctx) or set max-input-tokens to ${window} or lower` } };
    }
    deps.note(`the endpoint read only ${window} of the ~${truncated} tokens sent (a silent truncation to its context window); its reply is set aside and the request fitted to ${Math.floor(conv.inputLimit * conv.fill)} tokens`);
    const fitted = await conv.fit();
    if ('part' in fitted) {
      return { stop: { reason: 'model-error', detail: `${tooLargeMessage({ ...fitted, limit: window })}; the endpoint reads only ${window} tokens of a request (Ollama: raise OLLAMA_CONTEXT_LENGTH or num_ctx)` } };
    }
  }
}

const REPAIRED: Record<string, string> = {
  'message-order': 'notes after tool results now join the tool result',
  'tool-call-ids': 'tool-call ids rewritten to 9 letters and digits',
  'bad-arguments': 'tool-call arguments that are not JSON replaced by {} in the history',
  'failed-generation': "the model's malformed tool call was refused by the endpoint; asking again",
  'provider-fields': "the replies' own fields (reasoning) are no longer sent back",
};

/**
 * The tokens sent (by our count) when the reply's reported prompt shows the endpoint read far
 * fewer; null otherwise. A server that reuses its cache of the previous request may report only
 * the tokens it had to read anew (Ollama has, in some versions): a report about the size of what
 * the request added is that, not a truncation.
 */
function truncation(reply: ModelReply, conv: Conversation, sent: ReturnType<Conversation['outgoing']>): number | null {
  if (reply.usageEstimated) return null;
  const reported = reply.usage.promptTokens;
  const ours = conv.requestTokens();
  const messagesOnly = ours - conv.toolTokens;
  if (sent.length < 2 || reported < MIN_WINDOW || reported >= TRUNCATED_SHARE * messagesOnly) return null;
  const fresh = conv.freshTokens;
  if (reported >= (1 - CACHED_BAND) * fresh - CACHED_MARGIN && reported <= (1 + CACHED_BAND) * fresh + CACHED_MARGIN) return null;
  return ours;
}

/** A report within this share (and the margin of the framing) of the tokens a request added may be a cache reuse, not a truncation. */
const CACHED_BAND = 0.3;
const CACHED_MARGIN = 300;
