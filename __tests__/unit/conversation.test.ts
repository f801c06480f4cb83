/** The conversation unit (agent/conversation.ts): what goes back to the endpoint, the rules it learns, and fitting. */
import { Conversation, type ConversationOptions } from '../../src/agent/conversation.js';
import { TOOL_SPECS } from '../../src/agent/tools.js';
import type { ModelReply } from '../../src/ports/llm.js';
import { conversationOptions } from '../../test-support/builders.js';

function conversation(more: Partial<ConversationOptions> = {}) {
  const { options, notes } = conversationOptions(TOOL_SPECS, { changes: async () => 'diff --git a/src/cart.js b/src/cart.js', ...more });
  return { conv: new Conversation(options), notes };
}

const reply = (r: Partial<ModelReply>): ModelReply => ({ content: null, toolCalls: [], finishReason: 'tool_calls', usage: { promptTokens: 10, completionTokens: 5 }, ...r });

describe('what goes back', () => {
  test("the provider's own fields stay on the assistant message and its calls; <think> leaves the content kept", () => {
    const { conv } = conversation();
    const acted = conv.addReply(
      reply({
        content: '<think>a long chain of thought</think>Reading the cart.',
        toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"src/cart.js"}', extra: { extra_content: { google: { thought_signature: 'sig' } } } }],
        extra: { reasoning_content: 'why read the cart' },
      }),
    );
    expect(acted.toolCalls).toHaveLength(1);
    expect(conv.messages[2]).toEqual({
      role: 'assistant',
      content: 'Reading the cart.',
      toolCalls: [{ id: 'call_1', name: 'read_file', arguments: '{"path":"src/cart.js"}', extra: { extra_content: { google: { thought_signature: 'sig' } } } }],
      extra: { reasoning_content: 'why read the cart' },
    });
  });

  test('tool calls written as text become calls with ids every endpoint accepts', () => {
    const { conv, notes } = conversation();
    const acted = conv.addReply(reply({ content: '<tool_call>{"name": "read_file", "arguments": {"path": "src/cart.js"}}</tool_call>', finishReason: 'stop' }));
    expect(acted.toolCalls).toEqual([{ id: expect.stringMatching(/^[A-Za-z0-9]{9}$/), name: 'read_file', arguments: '{"path":"src/cart.js"}' }]);
    expect(notes[0]).toContain('hermes format');
    expect(conv.messages[2].content).toBeNull();
  });

  test('arguments cut at the token limit are closed in the history, while the loop acts on them as sent', () => {
    const { conv } = conversation();
    const acted = conv.addReply(reply({ toolCalls: [{ id: 'c1', name: 'read_file', arguments: '{"path": "src/ca' }], finishReason: 'length' }));
    expect(acted.toolCalls[0].arguments).toBe('{"path": "src/ca');
    const kept = conv.messages[2];
    expect(kept.role === 'assistant' && kept.toolCalls?.[0].arguments).toBe('{"path": "src/ca"}');
  });
});

describe('rules learnt from refusals', () => {
  test("message order: once refused, a note after a tool result joins it (and only then)", () => {
    const { conv } = conversation();
    conv.addReply(reply({ toolCalls: [{ id: 'c1', name: 'run_tests', arguments: '{}' }] }));
    conv.addToolResult({ id: 'c1', name: 'run_tests', arguments: '{}' }, 'Tests fail.');
    conv.addNote('Please continue by calling a tool.');
    expect(conv.outgoing().map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool', 'user']);
    expect(conv.repair('message-order')).toBe(true);
    expect(conv.outgoing().map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'tool']);
    expect(conv.outgoing()[3].content).toBe('Tests fail.\n\nPlease continue by calling a tool.');
    expect(conv.messages).toHaveLength(5);
    // a second refusal of the same kind has nothing left to change: the caller stops
    expect(conv.repair('message-order')).toBe(false);
  });

  test('tool-call ids: rewritten in calls and results alike, and for every later reply', () => {
    const { conv } = conversation();
    conv.addReply(reply({ toolCalls: [{ id: 'call_0_0', name: 'run_tests', arguments: '{}' }] }));
    conv.addToolResult({ id: 'call_0_0', name: 'run_tests', arguments: '{}' }, 'ok');
    expect(conv.repair('tool-call-ids')).toBe(true);
    const [, , a, t] = conv.messages;
    const id = a.role === 'assistant' ? a.toolCalls![0].id : '';
    expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
    expect(t.role === 'tool' && t.toolCallId).toBe(id);
    expect(conv.addReply(reply({ toolCalls: [{ id: 'call_1_0', name: 'run_tests', arguments: '{}' }] })).toolCalls[0].id).toMatch(/^[A-Za-z0-9]{9}$/);
  });

  test('arguments that are still not JSON become {}; nothing to drop, nothing changes', () => {
    const { conv } = conversation();
    expect(conv.repair('bad-arguments')).toBe(false);
    conv.messages.push({ role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'read_file', arguments: '{"path": ' }] });
    expect(conv.repair('bad-arguments')).toBe(true);
    const m = conv.messages[2];
    expect(m.role === 'assistant' && m.toolCalls?.[0].arguments).toBe('{}');
  });
});

describe('fitting: the compaction threshold is soft, the input limit hard', () => {
  /** One turn of many small edits whose calls together pass the 12,000-token threshold (the issue: 44,256 tokens against 100,000). */
  function bigTurn(conv: Conversation) {
    const line = 'const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0);';
    const calls = Array.from({ length: 400 }, (_, i) => ({ id: `e${i}`, name: 'edit_file', arguments: JSON.stringify({ path: `src/f${i % 40}.js`, old_string: `${line} // ${i}`, new_string: `${line} // ${i + 1}` }) }));
    conv.addReply(reply({ toolCalls: calls }));
    for (const c of calls) conv.addToolResult(c, 'Edited.');
  }

  test('a turn over the threshold that fits the limit proceeds whole', async () => {
    const { conv, notes } = conversation({ maxInputTokens: 100_000 });
    bigTurn(conv);
    const before = conv.requestTokens();
    expect(before).toBeGreaterThan(30_000);
    expect(before).toBeLessThan(96_000);
    expect(await conv.fit()).toEqual({ noted: false });
    expect(conv.requestTokens()).toBe(before);
    expect(notes).toEqual([]);
  });

  test('control: the same turn against a limit it does not fit cannot be made small enough', async () => {
    const { conv } = conversation({ maxInputTokens: 20_000 });
    bigTurn(conv);
    expect(await conv.fit()).toEqual({ part: 'the task with the latest step', partTokens: expect.any(Number) });
  });
});
