import { startScriptedModel, type ScriptedModel } from '../../src/scripted/server.js';
import { parseScript, type Script } from '../../src/scripted/script.js';

const KEY = 'sk-scripted-test-key-0123456789';

let servers: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

async function start(script: Script, opts?: Parameters<typeof startScriptedModel>[1]): Promise<ScriptedModel> {
  const s = await startScriptedModel(script, opts);
  servers.push(s);
  return s;
}

/** Responses whose json() is `any`, to poke at the OpenAI shapes freely. */
type AnyResponse = Omit<Response, 'json'> & { json(): Promise<any> };

async function post(url: string, body: unknown, headers: Record<string, string> = { authorization: `Bearer ${KEY}` }): Promise<AnyResponse> {
  return fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

const get = (url: string, init?: RequestInit): Promise<AnyResponse> => fetch(url, init);

const ask = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'demo-model',
  messages: [
    { role: 'system', content: 'You fix bugs.' },
    { role: 'user', content: text },
  ],
  ...extra,
});

describe('script validation', () => {
  test('accepts every step kind', () => {
    const s = parseScript({
      label: 'all',
      steps: [
        { toolCalls: [{ name: 'edit_file', arguments: { path: 'a', old_string: 'x', new_string: 'y' } }], content: 'editing' },
        { toolCalls: [{ name: 'read_file', arguments: '{"path": ' }] },
        { content: 'plain answer', expect: { lastMessageIncludes: 'ok' }, usage: { promptTokens: 5 } },
        { error: { status: 429, body: { error: { message: 'slow down' } }, headers: { 'retry-after': '0' } } },
        { truncated: true, content: 'cut' },
      ],
    });
    expect(s.steps).toHaveLength(5);
  });

  test('errors name the bad step', () => {
    expect(() => parseScript({ label: 'bad', steps: [{ content: 'ok' }, { toolCalls: [{ arguments: {} }] }] })).toThrow(
      /"bad".*steps\[1\].*toolCalls\.0\.name/,
    );
    expect(() => parseScript({ steps: [{ content: 'ok' }, { content: 'ok' }, {}] })).toThrow(/steps\[2\].*needs one of/);
    expect(() => parseScript({ steps: [{ tool_calls: [] }] })).toThrow(/steps\[0\].*tool_calls/);
    expect(() => parseScript({ steps: [{ error: { status: 200 } }] })).toThrow(/steps\[0\].*error\.status/);
    expect(() => parseScript({ steps: [{ error: { status: 500 }, content: 'x' }] })).toThrow(/steps\[0\].*cannot also have "content"/);
    expect(() => parseScript({ steps: 'nope' })).toThrow(/invalid model script: steps/);
  });

  test('a script survives a JSON round trip', () => {
    const script: Script = { label: 'rt', steps: [{ toolCalls: [{ name: 'finish', arguments: { summary: 'done' } }] }] };
    expect(parseScript(JSON.parse(JSON.stringify(script)))).toEqual(script);
  });
});

describe('scripted server', () => {
  test('answers tool calls in the chat.completion shape and echoes the model', async () => {
    const s = await start({
      label: 't',
      steps: [{ content: 'looking', toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.ts' } }, { id: 'mine', name: 'search', arguments: '{bad' }] }],
    });
    expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const res = await post(`${s.url}/chat/completions`, ask('fix it'));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/application\/json/);
    const body = await res.json();
    expect(body).toMatchObject({
      id: expect.stringMatching(/^chatcmpl-/),
      object: 'chat.completion',
      created: expect.any(Number),
      model: 'demo-model',
      choices: [
        {
          index: 0,
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: 'looking',
            tool_calls: [
              { id: 'call_0_0', type: 'function', function: { name: 'read_file', arguments: '{"path":"src/a.ts"}' } },
              { id: 'mine', type: 'function', function: { name: 'search', arguments: '{bad' } },
            ],
          },
        },
      ],
    });
    const { prompt_tokens, completion_tokens, total_tokens } = body.usage;
    expect(prompt_tokens).toBe(Math.ceil(('You fix bugs.'.length + 'fix it'.length) / 4));
    expect(completion_tokens).toBeGreaterThan(0);
    expect(total_tokens).toBe(prompt_tokens + completion_tokens);
    expect(s.requests).toEqual([ask('fix it')]);
    expect(s.receivedKeys).toEqual([KEY]);
  });

  test('plain answers, truncation, explicit usage, both routes', async () => {
    const s = await start({
      steps: [
        { content: 'all good', usage: { promptTokens: 100, completionTokens: 7 } },
        { truncated: true, content: 'this was cut' },
      ],
    });
    const a = await (await post(`${s.url}/chat/completions`, ask('q'))).json();
    expect(a.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: 'all good' } });
    expect(a.choices[0].message.tool_calls).toBeUndefined();
    expect(a.usage).toEqual({ prompt_tokens: 100, completion_tokens: 7, total_tokens: 107 });
    const root = s.url.replace(/\/v1$/, '');
    const b = await (await post(`${root}/chat/completions`, ask('q'))).json();
    expect(b.choices[0]).toMatchObject({ finish_reason: 'length', message: { content: 'this was cut' } });
    expect(s.consumed).toBe(2);
  });

  test('error steps answer with status, body and headers, then the script goes on', async () => {
    const s = await start({
      steps: [
        { error: { status: 429, headers: { 'retry-after': '0' } } },
        { error: { status: 502, body: '<html>Bad Gateway</html>' } },
        { error: { status: 400, body: { error: { message: 'custom', code: 'x' } } } },
        { content: 'finally' },
      ],
    });
    const r1 = await post(`${s.url}/chat/completions`, ask('q'));
    expect(r1.status).toBe(429);
    expect(r1.headers.get('retry-after')).toBe('0');
    expect((await r1.json()).error).toMatchObject({ message: expect.any(String), type: 'rate_limit_error' });
    const r2 = await post(`${s.url}/chat/completions`, ask('q'));
    expect(r2.status).toBe(502);
    expect(await r2.text()).toBe('<html>Bad Gateway</html>');
    const r3 = await post(`${s.url}/chat/completions`, ask('q'));
    expect(await r3.json()).toEqual({ error: { message: 'custom', code: 'x' } });
    const r4 = await post(`${s.url}/chat/completions`, ask('q'));
    expect((await r4.json()).choices[0].message.content).toBe('finally');
    expect(s.requests).toHaveLength(4);
  });

  test('streams SSE chunks that reassemble into the same reply', async () => {
    const s = await start({
      steps: [{ content: 'Let me read the file first, then edit it.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/some/long/path.ts', start_line: 1 } }] }],
    });
    const res = await post(`${s.url}/chat/completions`, ask('q', { stream: true, stream_options: { include_usage: true } }));
    expect(res.headers.get('content-type')).toMatch(/text\/event-stream/);
    const text = await res.text();
    const events = text.split('\n\n').filter(Boolean);
    expect(events.every((e) => e.startsWith('data: '))).toBe(true);
    expect(events[events.length - 1]).toBe('data: [DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e.slice('data: '.length)));
    expect(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'demo-model')).toBe(true);
    expect(new Set(chunks.map((c) => c.id)).size).toBe(1);
    let content = '';
    const calls: { id?: string; name?: string; args: string }[] = [];
    let finish: string | null = null;
    let usage: unknown = null;
    for (const c of chunks) {
      if (c.usage) usage = c.usage;
      for (const ch of c.choices) {
        if (ch.finish_reason) finish = ch.finish_reason;
        if (ch.delta.content) content += ch.delta.content;
        for (const tc of ch.delta.tool_calls ?? []) {
          calls[tc.index] ??= { args: '' };
          if (tc.id) calls[tc.index].id = tc.id;
          if (tc.function?.name) calls[tc.index].name = tc.function.name;
          calls[tc.index].args += tc.function?.arguments ?? '';
        }
      }
    }
    expect(chunks.length).toBeGreaterThan(4);
    expect(content).toBe('Let me read the file first, then edit it.');
    expect(calls).toEqual([{ id: 'call_0_0', name: 'read_file', args: '{"path":"src/some/long/path.ts","start_line":1}' }]);
    expect(finish).toBe('tool_calls');
    expect(usage).toMatchObject({ prompt_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    expect(chunks[chunks.length - 1].choices).toEqual([]);
  });

  test('exhaustion answers "(script exhausted)" and is recorded', async () => {
    const s = await start({ steps: [{ content: 'one' }] }, { allowExhaustion: true });
    await post(`${s.url}/chat/completions`, ask('q'));
    expect(s.exhausted).toBe(false);
    const body = await (await post(`${s.url}/chat/completions`, ask('q'))).json();
    expect(body.choices[0]).toMatchObject({ finish_reason: 'stop', message: { content: '(script exhausted)' } });
    expect(s.exhausted).toBe(true);
    const streamed = await (await post(`${s.url}/chat/completions`, ask('q', { stream: true }))).text();
    const pieces = streamed
      .split('\n\n')
      .filter((e) => e.startsWith('data: {'))
      .map((e) => JSON.parse(e.slice(6)).choices[0]?.delta?.content ?? '');
    expect(pieces.join('')).toBe('(script exhausted)');
    expect(streamed.trim().endsWith('data: [DONE]')).toBe(true);
  });

  test('expectations record mismatches without failing the response', async () => {
    const s = await start({
      label: 'exp',
      steps: [
        { content: 'a', expect: { lastMessageIncludes: 'fix it' } },
        { content: 'b', expect: { lastMessageIncludes: 'tests passed' } },
      ],
    });
    await post(`${s.url}/chat/completions`, ask('please fix it'));
    expect(s.mismatches).toEqual([]);
    const res = await post(`${s.url}/chat/completions`, ask('tests failed: 3'));
    expect(res.status).toBe(200);
    expect(s.mismatches).toHaveLength(1);
    expect(s.mismatches[0]).toMatch(/exp steps\[1\].*"tests passed".*tests failed: 3/);
  });

  test('requires credentials, records bodies and calls onRequest', async () => {
    const seen: unknown[] = [];
    const s = await start({ steps: [{ content: 'a' }] }, { onRequest: (b) => seen.push(b) });
    const res = await post(`${s.url}/chat/completions`, ask('q'), {});
    expect(res.status).toBe(401);
    expect(s.consumed).toBe(0);
    expect(s.receivedKeys).toEqual([null]);
    expect(s.mismatches[0]).toMatch(/no Authorization header/);
    await post(`${s.url}/chat/completions`, ask('q'), { 'api-key': 'azure-style' });
    expect(s.receivedKeys).toEqual([null, 'azure-style']);
    expect(seen).toHaveLength(2);
    expect(s.requests).toEqual(seen);
  });

  test('models listing, unknown routes and bad bodies', async () => {
    const s = await start({ steps: [] });
    const models = await (await get(`${s.url}/models`)).json();
    expect(models).toMatchObject({ object: 'list', data: [{ id: 'scripted', object: 'model' }] });
    const nf = await get(`${s.url}/embeddings`, { method: 'POST', body: '{}' });
    expect(nf.status).toBe(404);
    expect((await nf.json()).error.message).toMatch(/no route/);
    const bad = await fetch(`${s.url}/chat/completions`, { method: 'POST', headers: { authorization: 'Bearer k' }, body: '{not json' });
    expect(bad.status).toBe(400);
    expect(s.requests).toHaveLength(0);
  });

  test('a session that ran out of script fails the test that used it: close() rejects, naming the script and the counts', async () => {
    const s = await startScriptedModel({ label: 'short', steps: [{ content: 'one' }] });
    await post(`${s.url}/chat/completions`, ask('q'));
    await post(`${s.url}/chat/completions`, ask('q'));
    await expect(s.close()).rejects.toThrow('scripted model "short" ran out of script: 2 request(s) for 1 step(s)');
    // every later close says the same (idempotent), and the port is free
    await expect(s.close()).rejects.toThrow('ran out of script');
    const exact = await startScriptedModel({ steps: [{ content: 'one' }] });
    await post(`${exact.url}/chat/completions`, ask('q'));
    await expect(exact.close()).resolves.toBeUndefined();
  });

  test('close() is idempotent and frees the port', async () => {
    const s = await startScriptedModel({ steps: [{ content: 'x' }] });
    await post(`${s.url}/chat/completions`, ask('q'));
    await s.close();
    await s.close();
    await expect(post(`${s.url}/chat/completions`, ask('q'))).rejects.toThrow();
  });
});
