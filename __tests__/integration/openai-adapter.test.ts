import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describeModelError, makeChatModel, ModelError } from '../../src/adapters/openai.js';
import type { ChatMessage, ToolSpec } from '../../src/ports/llm.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted/server.js';
import type { Script } from '../../src/scripted/script.js';

const KEY = 'sk-adapter-test-SECRET-0123456789abcdef';

const TOOLS: ToolSpec[] = [
  {
    name: 'edit_file',
    description: 'Replace old_string with new_string in path',
    parameters: {
      type: 'object',
      properties: { path: { type: 'string' }, old_string: { type: 'string' }, new_string: { type: 'string' } },
      required: ['path', 'old_string', 'new_string'],
    },
  },
  { name: 'finish', description: 'Done', parameters: { type: 'object', properties: { summary: { type: 'string' } } } },
];

const START: ChatMessage[] = [
  { role: 'system', content: 'You fix bugs.' },
  { role: 'user', content: 'Fix issue #1: add() subtracts.' },
];

let servers: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function setup(script: Script, extra: Partial<Parameters<typeof makeChatModel>[0]> = {}) {
  const server = await startScriptedModel(script);
  servers.push(server);
  const logs: string[] = [];
  const model = makeChatModel({ baseUrl: server.url, apiKey: KEY, model: 'test-model', log: (m) => logs.push(m), ...extra });
  return { server, model, logs };
}

async function failure(p: Promise<unknown>): Promise<ModelError> {
  try {
    await p;
  } catch (e) {
    expect(e).toBeInstanceOf(ModelError);
    return e as ModelError;
  }
  throw new Error('expected the call to fail');
}

test('tool-call round trip: replies are mapped and history goes back in the SDK shape', async () => {
  const { server, model } = await setup({
    label: 'round trip',
    steps: [
      {
        content: 'Editing.',
        toolCalls: [
          { id: 'call_a', name: 'edit_file', arguments: { path: 'src/math.js', old_string: 'a - b', new_string: 'a + b' } },
          { id: 'call_b', name: 'finish', arguments: { summary: 'fixed add' } },
        ],
        usage: { promptTokens: 120, completionTokens: 30 },
      },
      { content: 'All done.', expect: { lastMessageIncludes: 'finish accepted' } },
    ],
  });
  expect(model.model).toBe('test-model');
  const first = await model.complete(START, TOOLS);
  expect(first).toEqual({
    content: 'Editing.',
    toolCalls: [
      { id: 'call_a', name: 'edit_file', arguments: '{"path":"src/math.js","old_string":"a - b","new_string":"a + b"}' },
      { id: 'call_b', name: 'finish', arguments: '{"summary":"fixed add"}' },
    ],
    finishReason: 'tool_calls',
    usage: { promptTokens: 120, completionTokens: 30 },
  });

  const history: ChatMessage[] = [
    ...START,
    { role: 'assistant', content: first.content, toolCalls: first.toolCalls },
    { role: 'tool', toolCallId: 'call_a', content: 'applied (exact match)' },
    { role: 'tool', toolCallId: 'call_b', content: 'finish accepted' },
  ];
  const second = await model.complete(history, TOOLS);
  expect(second).toMatchObject({ content: 'All done.', toolCalls: [], finishReason: 'stop' });
  expect(server.mismatches).toEqual([]);

  expect(server.requests).toHaveLength(2);
  const [r1, r2] = server.requests;
  expect(r1.model).toBe('test-model');
  expect(r1.stream).toBeFalsy();
  expect(r1.temperature).toBeUndefined();
  expect(r1.messages).toEqual([
    { role: 'system', content: 'You fix bugs.' },
    { role: 'user', content: 'Fix issue #1: add() subtracts.' },
  ]);
  expect(r1.tools).toEqual(TOOLS.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } })));
  expect(r2.messages.slice(2)).toEqual([
    {
      role: 'assistant',
      content: 'Editing.',
      tool_calls: [
        { id: 'call_a', type: 'function', function: { name: 'edit_file', arguments: first.toolCalls[0].arguments } },
        { id: 'call_b', type: 'function', function: { name: 'finish', arguments: first.toolCalls[1].arguments } },
      ],
    },
    { role: 'tool', tool_call_id: 'call_a', content: 'applied (exact match)' },
    { role: 'tool', tool_call_id: 'call_b', content: 'finish accepted' },
  ]);
  // The key travels only in the Authorization header, never in a body.
  expect(server.receivedKeys).toEqual([KEY, KEY]);
  expect(JSON.stringify(server.requests)).not.toContain(KEY);
});

test('no tools → no tools field; temperature is sent when configured; usage estimated when missing', async () => {
  const { server, model } = await setup({ steps: [{ content: 'plain' }] }, { temperature: 0.2 });
  const reply = await model.complete([{ role: 'user', content: 'x'.repeat(400) }], []);
  expect(server.requests[0].tools).toBeUndefined();
  expect(server.requests[0].temperature).toBe(0.2);
  expect(reply.usage.promptTokens).toBe(100);
});

test('usage missing from the server → estimated from characters', async () => {
  // A bare-bones compatible server that omits usage and ids, as some local servers do.
  const http = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'x',
          object: 'chat.completion',
          created: 0,
          model: 'm',
          choices: [{ index: 0, finish_reason: null, message: { role: 'assistant', content: null, tool_calls: [{ type: 'function', function: { name: 'finish', arguments: { summary: 'obj' } } }] } }],
        }),
      );
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  try {
    const { port } = http.address() as AddressInfo;
    const model = makeChatModel({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY, model: 'm' });
    const reply = await model.complete([{ role: 'user', content: 'y'.repeat(40) }], []);
    expect(reply.usage).toEqual({ promptTokens: 10, completionTokens: Math.ceil(('finish'.length + '{"summary":"obj"}'.length) / 4) });
    expect(reply.toolCalls).toEqual([{ id: expect.any(String), name: 'finish', arguments: '{"summary":"obj"}' }]);
    expect(reply.toolCalls[0].id).not.toBe('');
    expect(reply.finishReason).toBe('tool_calls');
  } finally {
    http.closeAllConnections();
    await new Promise((r) => http.close(r));
  }
});

test('a 429 is never retried by the SDK: it comes back at once with its wait, for the loop to decide', async () => {
  const { server, model, logs } = await setup({
    steps: [{ error: { status: 429, headers: { 'retry-after': '0' } } }, { content: 'ok after rate limit' }],
  });
  const e = await failure(model.complete(START, TOOLS));
  expect(e.kind).toBe('rate-limited');
  expect(e.limit).toEqual({ kind: 'rate-limited', retryAfterMs: 0 });
  expect(server.requests).toHaveLength(1);
  expect(logs.join('\n')).toMatch(/rate-limited the request/);
  // the same turn asked again goes through
  expect((await model.complete(START, TOOLS)).content).toBe('ok after rate limit');
});

test('500 twice then success (SDK backoff)', async () => {
  const { server, model } = await setup({
    steps: [{ error: { status: 500 } }, { error: { status: 503, body: 'upstream down' } }, { content: 'third time lucky' }],
  });
  const reply = await model.complete(START, TOOLS);
  expect(reply.content).toBe('third time lucky');
  expect(server.requests).toHaveLength(3);
});

test('5xx beyond maxRetries → server error naming status and URL', async () => {
  const { server, model } = await setup(
    { steps: [{ error: { status: 500, headers: { 'retry-after': '0' } } }, { error: { status: 500, headers: { 'retry-after': '0' } } }] },
    { maxRetries: 1 },
  );
  const e = await failure(model.complete(START, TOOLS));
  expect(e.kind).toBe('server');
  expect(e.status).toBe(500);
  expect(e.message).toContain(server.url);
  expect(server.requests).toHaveLength(2);
});

test('401 → short actionable error without the key, even when the server echoes it', async () => {
  const { server, model } = await setup({
    steps: [{ error: { status: 401, message: `Incorrect API key provided: ${KEY}. You can find your API key at ...` } }],
  });
  const e = await failure(model.complete(START, TOOLS));
  expect(server.requests).toHaveLength(1); // not retried
  expect(e.kind).toBe('auth');
  expect(e.status).toBe(401);
  expect(e.message).toContain('401');
  expect(e.message).toContain(server.url);
  expect(e.message).toContain('test-model');
  expect(e.message).toMatch(/The API key was rejected: check the API key/);
  expect(e.message).not.toContain(KEY);
  expect(e.message).not.toContain('SECRET');
  expect(describeModelError(e)).not.toContain(KEY);
  expect(String(e.stack)).not.toContain(KEY);
});

test('404 model not found names the model and the base URL', async () => {
  const { server, model } = await setup({
    steps: [{ error: { status: 404, body: { error: { message: 'The model `test-model` does not exist', code: 'model_not_found' } } } }],
  });
  const e = await failure(model.complete(START, TOOLS));
  expect(e.kind).toBe('not-found');
  expect(e.message).toMatch(/404.*does not exist/);
  expect(e.message).toContain(server.url);
  expect(e.message).toMatch(/base-url/);
});

test('400 from a model without tool support is surfaced as such', async () => {
  const { model } = await setup({
    steps: [{ error: { status: 400, body: { error: { message: 'registry.ollama.ai/library/gemma:2b does not support tools' } } } }],
  });
  const e = await failure(model.complete(START, TOOLS));
  expect(e.kind).toBe('tools-unsupported');
  expect(e.message).toMatch(/does not support tools/);
  expect(e.message).toMatch(/tool\/function calling/);
});

test('400 context length and plain 400 are told apart', async () => {
  const { model } = await setup({
    steps: [
      { error: { status: 400, body: { error: { message: "This model's maximum context length is 8192 tokens", code: 'context_length_exceeded' } } } },
      { error: { status: 400, body: { error: { message: 'messages[1].content: invalid type' } } } },
    ],
  });
  expect((await failure(model.complete(START, TOOLS))).kind).toBe('context-length');
  const e = await failure(model.complete(START, TOOLS));
  expect(e.kind).toBe('bad-request');
  expect(e.message).toMatch(/400: messages\[1\]\.content: invalid type/);
});

test('a 400 about an invalid tool schema is not mistaken for missing tool support', async () => {
  const { model } = await setup({
    steps: [{ error: { status: 400, body: { error: { message: "Invalid schema for function 'edit_file': 'object' is not valid" } } } }],
  });
  expect((await failure(model.complete(START, TOOLS))).kind).toBe('bad-request');
});

test('a rejected temperature is dropped once and the request retried', async () => {
  const { server, model, logs } = await setup(
    {
      steps: [
        { error: { status: 400, body: { error: { message: "Unsupported value: 'temperature' does not support 0.2", param: 'temperature' } } } },
        { content: 'fine' },
        { content: 'still fine' },
      ],
    },
    { temperature: 0.2 },
  );
  expect((await model.complete(START, TOOLS)).content).toBe('fine');
  expect((await model.complete(START, TOOLS)).content).toBe('still fine');
  expect(server.requests.map((r) => r.temperature)).toEqual([0.2, undefined, undefined]);
  expect(logs.join('\n')).toMatch(/temperature/);
});

test('a 429 asking for a long wait is not waited for', async () => {
  const { server, model } = await setup({ steps: [{ error: { status: 429, headers: { 'retry-after': '3600' } } }, { content: 'never' }] });
  const e = await failure(model.complete(START, TOOLS));
  expect(e.kind).toBe('rate-limited');
  expect(e.message).toMatch(/wait 3600s/);
  expect(server.requests).toHaveLength(1);
});

test('finish_reason length and malformed arguments pass through untouched', async () => {
  const malformed = '{"path": "src/a.js", "old_string": "unterminated';
  const { model } = await setup({
    steps: [
      { truncated: true, content: 'I will now explain at great len' },
      { toolCalls: [{ id: 'c1', name: 'edit_file', arguments: malformed }] },
    ],
  });
  const cut = await model.complete(START, TOOLS);
  expect(cut).toMatchObject({ content: 'I will now explain at great len', finishReason: 'length', toolCalls: [] });
  const bad = await model.complete(START, TOOLS);
  expect(bad.toolCalls).toEqual([{ id: 'c1', name: 'edit_file', arguments: malformed }]);
  expect(bad.finishReason).toBe('tool_calls');
});

test('unreachable endpoint → connection error naming the base URL', async () => {
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const { port } = probe.address() as AddressInfo;
  await new Promise((r) => probe.close(r));
  const model = makeChatModel({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY, model: 'm', maxRetries: 0 });
  const e = await failure(model.complete(START, []));
  expect(e.kind).toBe('connection');
  expect(e.message).toContain(`http://127.0.0.1:${port}/v1`);
  expect(e.message).not.toContain(KEY);
});

test('describeModelError redacts tokens from foreign errors', () => {
  expect(describeModelError(new Error('boom with ghp_abcdefghijklmnopqrstuvwxyz0123'))).not.toContain('ghp_abcdef');
  expect(describeModelError('plain')).toMatch(/plain/);
});

test("the scripted server's SSE stream is accepted by the SDK's own stream accumulator", async () => {
  const { default: OpenAI } = await import('openai');
  const { server } = await setup({
    steps: [{ content: 'Reading a file before editing it.', toolCalls: [{ id: 'c9', name: 'edit_file', arguments: { path: 'src/x.ts', old_string: 'a', new_string: 'b' } }] }],
  });
  const client = new OpenAI({ baseURL: server.url, apiKey: KEY, maxRetries: 0 });
  const stream = client.chat.completions.stream({ model: 'test-model', messages: [{ role: 'user', content: 'go' }], stream_options: { include_usage: true } });
  const final = await stream.finalChatCompletion();
  expect(final.choices[0].finish_reason).toBe('tool_calls');
  expect(final.choices[0].message.content).toBe('Reading a file before editing it.');
  expect(final.choices[0].message.tool_calls).toEqual([
    { id: 'c9', type: 'function', function: { name: 'edit_file', arguments: '{"path":"src/x.ts","old_string":"a","new_string":"b"}' } },
  ]);
  expect(final.usage?.total_tokens).toBeGreaterThan(0);
  expect(server.requests[0].stream).toBe(true);
});

describe('the endpoint check (one one-token request before any test runs)', () => {
  const words = { setting: (i: string) => `--${i}`, keyHelp: 'set OPENAI_API_KEY' };

  test('answers ok on a working endpoint, spends no step of a script, sends no tools', async () => {
    const server = await startScriptedModel({ steps: [] }, { apiKey: KEY, models: ['test-model'] });
    servers.push(server);
    const model = makeChatModel({ baseUrl: server.url, apiKey: KEY, model: 'test-model', wording: words });
    const r = await model.check();
    expect(r).toMatchObject({ ok: true });
    expect(r.ok && r.detail).toContain(`${server.url} (model "test-model") answered in`);
    expect(server.checks).toBe(1);
    expect(server.consumed).toBe(0);
    expect(server.requests).toHaveLength(0);
  });

  test('a wrong key, model or URL is fatal, in the words of the entry; no key in the message', async () => {
    const server = await startScriptedModel({ steps: [] }, { apiKey: KEY, models: ['test-model'] });
    servers.push(server);
    const check = (o: { apiKey?: string; model?: string; baseUrl?: string }) =>
      makeChatModel({ baseUrl: o.baseUrl ?? server.url, apiKey: o.apiKey ?? KEY, model: o.model ?? 'test-model', wording: words, maxRetries: 0 }).check();
    const key = await check({ apiKey: 'sk-wrong-key-0000000000' });
    expect(key).toMatchObject({ ok: false, fatal: true });
    expect(!key.ok && key.message).toMatch(/HTTP 401.*The API key was rejected: set OPENAI_API_KEY$/);
    expect(!key.ok && key.message).not.toContain('sk-wrong-key');
    const name = await check({ model: 'gpt-none' });
    expect(!name.ok && name.fatal && name.message).toMatch(/HTTP 404: The model `gpt-none` does not exist.*Check --model and that --base-url is the API root/);
    const url = await check({ baseUrl: `${server.url}/wrong` });
    expect(!url.ok && url.fatal && url.message).toMatch(/HTTP 404/);
    const dead = await startScriptedModel({ steps: [] });
    await dead.close();
    const gone = await check({ baseUrl: dead.url });
    expect(!gone.ok && gone.fatal && gone.message).toMatch(/could not reach the model endpoint .*Check --base-url and network access/);
  });

  test('a rate limit or a server error is not fatal: the run goes on and retries later', async () => {
    const busy = createServer((_req, res) => {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'overloaded' } }));
    });
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', () => resolve()));
    try {
      const model = makeChatModel({ baseUrl: `http://127.0.0.1:${(busy.address() as AddressInfo).port}/v1`, apiKey: KEY, model: 'm', maxRetries: 0 });
      expect(await model.check()).toMatchObject({ ok: false, fatal: false });
    } finally {
      busy.close();
    }
  });

  test('a model that refuses max_tokens (reasoning models) is asked again without it', async () => {
    const bodies: Record<string, unknown>[] = [];
    const strict = createServer((req, res) => {
      let raw = '';
      req.on('data', (d: Buffer) => (raw += d.toString()));
      req.on('end', () => {
        const body = JSON.parse(raw) as Record<string, unknown>;
        bodies.push(body);
        if ('max_tokens' in body) {
          res.writeHead(400, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ error: { message: "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.", type: 'invalid_request_error' } }));
          return;
        }
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'x', object: 'chat.completion', created: 0, model: 'o3', choices: [{ index: 0, message: { role: 'assistant', content: 'OK' }, finish_reason: 'stop' }], usage: { prompt_tokens: 5, completion_tokens: 1, total_tokens: 6 } }));
      });
    });
    await new Promise<void>((resolve) => strict.listen(0, '127.0.0.1', () => resolve()));
    try {
      const model = makeChatModel({ baseUrl: `http://127.0.0.1:${(strict.address() as AddressInfo).port}/v1`, apiKey: KEY, model: 'o3', maxRetries: 0 });
      expect(await model.check()).toMatchObject({ ok: true });
      expect(bodies.map((b) => 'max_tokens' in b)).toEqual([true, false]);
      expect(bodies.every((b) => !('tools' in b))).toBe(true);
    } finally {
      strict.close();
    }
  });
});
