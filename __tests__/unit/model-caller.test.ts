/** The model caller (agent/model-caller.ts) on its own: what a reply's reported prompt says, against a model that replays answers. */
import { Conversation } from '../../src/agent/conversation.js';
import { callModel } from '../../src/agent/model-caller.js';
import { TOOL_SPECS } from '../../src/agent/tools.js';
import type { ChatMessage, ChatModel, ModelReply } from '../../src/ports/llm.js';
import { conversationOptions } from '../../test-support/builders.js';

function setup(reported: (sent: ChatMessage[]) => number) {
  const { options, notes } = conversationOptions(TOOL_SPECS);
  const conv = new Conversation(options);
  const seen: number[] = [];
  const model: ChatModel = {
    model: 'replay',
    async complete(messages) {
      seen.push(messages.length);
      return { content: 'ok', toolCalls: [], finishReason: 'stop', usage: { promptTokens: reported(messages), completionTokens: 1 } };
    },
  };
  const deps = { model, tools: TOOL_SPECS, redact: (t: string) => t, note: (m: string) => notes.push(m), record: (_r: ModelReply) => undefined, sleep: async () => undefined, now: Date.now };
  return { conv, notes, seen, deps };
}

/** A conversation whose latest step added a large tool result. */
function grown(conv: Conversation) {
  conv.takeNew(false, conv.fresh());
  conv.addReply({ content: null, toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path":"a.js"}' }], finishReason: 'tool_calls', usage: { promptTokens: 1, completionTokens: 1 } });
  conv.addToolResult({ id: 'c1', name: 'read_file', arguments: '{}' }, 'export const rate = (amount, region) => amount * factor(region);\n'.repeat(1200));
  conv.takeNew(false, 2);
}

test('a report far below what was sent, and below what the request added, is a silent truncation: the reply is set aside and the request fitted under it', async () => {
  let calls = 0;
  const { conv, notes, seen, deps } = setup(() => (++calls === 1 ? 4000 : 1_000_000));
  grown(conv);
  const before = conv.requestTokens();
  expect(before).toBeGreaterThan(15_000);
  const out = await callModel(conv, deps);
  expect('reply' in out).toBe(true);
  expect(seen).toHaveLength(2);
  expect(notes.find((n) => n.startsWith('the endpoint read only'))).toMatch(new RegExp(`^the endpoint read only 4000 of the ~${before} tokens sent \\(a silent truncation to its context window\\)`));
  expect(conv.inputLimit).toBe(4000);
  expect(conv.requestTokens()).toBeLessThanOrEqual(4000);
});

test('a window too small for the task itself stops with one line naming it and what to change', async () => {
  const { conv, deps } = setup(() => 1100);
  grown(conv);
  const out = await callModel(conv, deps);
  expect('stop' in out && out.stop.detail).toMatch(/^a model request cannot be made small enough for the endpoint's limit of 1100 input tokens: .*; the endpoint reads only 1100 tokens of a request \(Ollama: raise OLLAMA_CONTEXT_LENGTH or num_ctx\)$/);
});

test('a report about the size of what the request added is a cache reuse, not a truncation', async () => {
  const { conv, notes, deps } = setup(() => 0);
  grown(conv);
  const fresh = conv.freshTokens;
  const cached = setup(() => fresh);
  grown(cached.conv);
  const out = await callModel(cached.conv, cached.deps);
  expect('reply' in out).toBe(true);
  expect(cached.notes).toEqual([]);
  expect(notes).toEqual([]);
  expect(deps).toBeDefined();
});

test('with the reading off (recover: false), the reply is taken as it is', async () => {
  const { conv, notes, deps } = setup(() => 1500);
  grown(conv);
  const out = await callModel(conv, { ...deps, recover: false });
  expect('reply' in out).toBe(true);
  expect(notes).toEqual([]);
});
