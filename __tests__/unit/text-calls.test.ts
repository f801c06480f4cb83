/** What a reply's text holds besides prose (agent/text-calls.ts): tool calls written as text, reasoning, cut-off arguments. */
import { callId, parseTextCalls, repairArguments, stripThinking } from '../../src/agent/text-calls.js';
import { TOOL_SPECS } from '../../src/agent/tools.js';

const READ = { name: 'read_file', arguments: { path: 'src/cart.js' } };

describe('tool calls written as text', () => {
  test('Hermes/Qwen <tool_call> blocks, several, with the prose around them', () => {
    const text = `I will read both.\n<tool_call>\n${JSON.stringify(READ)}\n</tool_call>\n<tool_call>{"name": "search", "arguments": {"pattern": "cartTotal"}}</tool_call>`;
    const r = parseTextCalls(text, TOOL_SPECS)!;
    expect(r.format).toBe('hermes');
    expect(r.calls).toEqual([
      { name: 'read_file', arguments: '{"path":"src/cart.js"}' },
      { name: 'search', arguments: '{"pattern":"cartTotal"}' },
    ]);
    expect(r.rest).toBe('I will read both.');
  });

  test('Mistral [TOOL_CALLS] as a list and in the name[ARGS] writing', () => {
    expect(parseTextCalls(`[TOOL_CALLS][${JSON.stringify(READ)}]`, TOOL_SPECS)).toEqual({ calls: [{ name: 'read_file', arguments: '{"path":"src/cart.js"}' }], rest: '', format: 'mistral' });
    expect(parseTextCalls('[TOOL_CALLS]read_file[ARGS]{"path": "a.js"}', TOOL_SPECS)?.calls).toEqual([{ name: 'read_file', arguments: '{"path":"a.js"}' }]);
  });

  test('Llama <function=name>{...}</function>', () => {
    expect(parseTextCalls('<function=read_file>{"path": "src/cart.js"}</function>', TOOL_SPECS)?.calls).toEqual([{ name: 'read_file', arguments: '{"path":"src/cart.js"}' }]);
  });

  test('bare JSON, in a code fence or not, one call or a list; "parameters" read like "arguments"', () => {
    expect(parseTextCalls(JSON.stringify(READ), TOOL_SPECS)?.format).toBe('json');
    expect(parseTextCalls('```json\n{"name": "read_file", "parameters": {"path": "x"}}\n```', TOOL_SPECS)?.calls).toEqual([{ name: 'read_file', arguments: '{"path":"x"}' }]);
    expect(parseTextCalls(JSON.stringify([READ, { name: 'run_tests', arguments: {} }]), TOOL_SPECS)?.calls).toHaveLength(2);
  });

  test('validated against our tool schemas: an unknown tool, missing required arguments or prose are no calls', () => {
    expect(parseTextCalls('<tool_call>{"name": "rm_rf", "arguments": {}}</tool_call>', TOOL_SPECS)).toBeNull();
    expect(parseTextCalls('<tool_call>{"name": "read_file", "arguments": {}}</tool_call>', TOOL_SPECS)).toBeNull();
    expect(parseTextCalls('<tool_call>{"name": "read_file", "arguments": {"path": </tool_call>', TOOL_SPECS)).toBeNull();
    expect(parseTextCalls('The fix is to multiply by quantity: {"name": 1}', TOOL_SPECS)).toBeNull();
    expect(parseTextCalls('{"path": "src/cart.js"}', TOOL_SPECS)).toBeNull();
  });
});

describe('reasoning in the content', () => {
  test('<think> blocks go, a lone closing tag drops what came before, an unclosed one what follows', () => {
    expect(stripThinking('<think>\nlong reasoning\n</think>\nThe answer.')).toBe('The answer.');
    expect(stripThinking('reasoning without its opening tag</think>The answer.')).toBe('The answer.');
    expect(stripThinking('Answer first. <think>cut off while thinking')).toBe('Answer first.');
    expect(stripThinking('no reasoning')).toBe('no reasoning');
    expect(stripThinking(null)).toBeNull();
  });
});

describe('arguments cut off at the token limit', () => {
  test('closed when that gives a JSON object, else {}; valid ones untouched', () => {
    expect(repairArguments('{"path": "a.js"}')).toEqual({ text: '{"path": "a.js"}', changed: false });
    expect(repairArguments('{"path": "src/ca')).toEqual({ text: '{"path": "src/ca"}', changed: true });
    expect(JSON.parse(repairArguments('{"edits": [{"old_string": "a", ').text)).toEqual({ edits: [{ old_string: 'a' }] });
    expect(repairArguments('{"path": ')).toEqual({ text: '{}', changed: true });
    expect(repairArguments('not json')).toEqual({ text: '{}', changed: true });
  });
});

describe('tool-call ids', () => {
  test('9 letters or digits (the narrowest rule, Mistral), stable for a seed, different across seeds', () => {
    const ids = Array.from({ length: 200 }, (_, i) => callId(`turn:${i}`));
    expect(ids.every((id) => /^[A-Za-z0-9]{9}$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(200);
    expect(callId('x')).toBe(callId('x'));
  });
});
