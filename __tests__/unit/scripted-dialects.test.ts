/** The scripted server's dialects as pure rules (src/scripted/dialects.ts): what each adds, refuses, and how its refusals read. */
import { checkGeneration, checkHistory, dialectMessage, errorIn, overWindow } from '../../src/scripted/dialects.js';

const call = (id: string, args = '{"path":"a.js"}', extra: Record<string, unknown> = {}) => ({ id, type: 'function', function: { name: 'read_file', arguments: args }, ...extra });
const history = (assistant: Record<string, unknown>, after: Record<string, unknown>[] = []) => [{ role: 'system', content: 's' }, { role: 'user', content: 'u' }, { role: 'assistant', content: null, ...assistant }, ...after];

test('deepseek: a tool-call turn without reasoning_content is refused at its index; with it, it passes', () => {
  expect(checkHistory('deepseek', history({ tool_calls: [call('a')] }), new Set())?.body).toEqual({ error: expect.objectContaining({ message: expect.stringContaining('at message index 2') }) });
  expect(checkHistory('deepseek', history({ tool_calls: [call('a')], reasoning_content: 'r' }), new Set())).toBeNull();
  expect(checkHistory('plain', history({ tool_calls: [call('a')] }), new Set())).toBeNull();
});

test('gemini: the first call of a step needs a signature the server handed out; refusals are JSON arrays', () => {
  const signed = call('a', '{}', { extra_content: { google: { thought_signature: 'sig1' } } });
  expect(checkHistory('gemini', history({ tool_calls: [signed, call('b')] }), new Set(['sig1']))).toBeNull();
  const r = checkHistory('gemini', history({ tool_calls: [call('a')] }), new Set(['sig1']));
  expect(Array.isArray(r?.body)).toBe(true);
  expect(checkHistory('gemini', history({ tool_calls: [signed] }), new Set(['other']))).not.toBeNull();
  const m = dialectMessage('gemini', { role: 'assistant', content: null, tool_calls: [call('x'), call('y')] }, 0, undefined, () => undefined);
  expect((m.tool_calls as { extra_content?: unknown }[])[0].extra_content).toEqual({ google: { thought_signature: expect.any(String) } });
  expect((m.tool_calls as { extra_content?: unknown }[])[1].extra_content).toBeUndefined();
});

test('mistral: user after tool, and ids not of 9 letters or digits, are refused in its error shape', () => {
  const ok = call('abcDEF123');
  expect(checkHistory('mistral', history({ tool_calls: [ok] }, [{ role: 'tool', tool_call_id: 'abcDEF123', content: 'r' }, { role: 'user', content: 'note' }]), new Set())?.body).toEqual(expect.objectContaining({ object: 'error', message: "Unexpected role 'user' after role 'tool'" }));
  expect(checkHistory('mistral', history({ tool_calls: [call('call_0_0')] }), new Set())?.why).toBe('tool-call-id');
  expect(checkHistory('mistral', history({ tool_calls: [ok] }, [{ role: 'tool', tool_call_id: 'abcDEF123', content: 'r' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'note' }]), new Set())).toBeNull();
  const m = dialectMessage('mistral', { role: 'assistant', content: null, tool_calls: [call('call_0_0')] }, 0, undefined, () => undefined);
  expect((m.tool_calls as { id: string }[])[0].id).toMatch(/^[A-Za-z0-9]{9}$/);
});

test("vllm/llamacpp/lmstudio: arguments that are not JSON in the history are a 400 Expecting ',' delimiter", () => {
  for (const d of ['vllm', 'llamacpp', 'lmstudio'] as const) expect(checkHistory(d, history({ tool_calls: [call('a', '{"path": ')] }), new Set())?.why).toBe('bad-arguments');
  expect(checkHistory('openrouter', history({ tool_calls: [call('a', '{"path": ')] }), new Set())).toBeNull();
});

test('groq: a malformed generated call is tool_use_failed; fields beyond OpenAI on an assistant message are unsupported', () => {
  expect(checkGeneration('groq', [{ name: 'read_file', arguments: '{"path": x}' }])?.body).toEqual({ error: expect.objectContaining({ code: 'tool_use_failed', failed_generation: expect.any(String) }) });
  expect(checkGeneration('plain', [{ name: 'read_file', arguments: '{"path": x}' }])).toBeNull();
  expect(checkHistory('groq', history({ tool_calls: [call('a')], reasoning: 'r' }), new Set())?.why).toBe('provider-fields');
});

test('a request over the window: each dialect in its own words; ollama answers anyway', () => {
  expect(overWindow('ollama', 'm', 9000, 4096)).toBe('silent');
  const text = (d: Parameters<typeof overWindow>[0]) => JSON.stringify((overWindow(d, 'org/m', 9000, 4096) as { body: unknown }).body);
  expect(text('github-models')).toContain('Max size: 4096 tokens');
  expect(text('llamacpp')).toContain('"n_ctx":4096');
  expect(text('lmstudio')).toContain('n_keep: 9000 >= n_ctx: 4096');
  expect(text('groq')).toContain('Limit 4096, Requested 9000');
  expect(text('anthropic-compat')).toContain('prompt is too long: 9000 tokens > 4096 maximum');
  expect(text('gemini').startsWith('[')).toBe(true);
  expect(text('mistral')).toContain('with 4096 maximum context length');
});

test('error steps in the dialect shapes; openrouter answers an upstream rate limit with HTTP 200', () => {
  const base = { error: { message: 'm' } };
  expect(errorIn('openrouter', 429, 'slow', base)).toEqual({ status: 200, body: { error: expect.objectContaining({ code: 429, message: 'slow' }) } });
  expect(errorIn('openrouter', 500, 'x', base)).toEqual({ status: 500, body: base });
  expect(errorIn('mistral', 400, 'bad', base).body).toEqual(expect.objectContaining({ object: 'error', message: 'bad' }));
  expect(Array.isArray(errorIn('gemini', 400, 'bad', base).body)).toBe(true);
});

test('text calls and reasoning in content', () => {
  const m = dialectMessage('vllm', { role: 'assistant', content: null, tool_calls: [call('a')] }, 0, 'hermes', () => undefined);
  expect(m.tool_calls).toBeUndefined();
  expect(m.content).toBe('<tool_call>\n{"name":"read_file","arguments":{"path":"a.js"}}\n</tool_call>');
  expect(String(dialectMessage('ollama', { role: 'assistant', content: 'answer' }, 0, undefined, () => undefined).content)).toMatch(/^<think>[\s\S]*<\/think>\nanswer$/);
  expect(dialectMessage('deepseek', { role: 'assistant', content: 'a' }, 0, undefined, () => undefined).reasoning_content).toBe('Step 1: thinking about what to do next.');
});
