/**
 * The dialects of "OpenAI-compatible" (issue 29): the agent loop with the real openai adapter,
 * real git and real test runs, against the scripted server speaking each endpoint's dialect
 * (src/scripted/dialects.ts). Every behaviour with its control: the same request in the old
 * shape, or the run with recovery off, is refused the way the real service refuses it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runAgentLoop, type LoopDeps } from '../../src/agent/loop.js';
import { makeChatModel, normalizeErrorBody } from '../../src/adapters/openai.js';
import { limitFromMessage } from '../../src/adapters/rate-limit.js';
import { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from '../../src/scripted/server.js';
import { parseScript, type Script } from '../../src/scripted/script.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { openLoopWorld } from '../../test-support/loop-world.js';
import { PERCENT, QUANTITY, READER, RATES_JS } from '../../test-support/limits-task.js';

const servers: ScriptedModel[] = [];
afterAll(async () => {
  for (const s of servers.splice(0)) await s.close();
  cleanupFixtures();
});

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const KEY = 'sk-dialects-test-key-0123456789';
const sample = (more: Record<string, string> = {}): Record<string, string> => {
  const dir = path.join(ROOT, 'demo', 'sample-repo');
  return { ...Object.fromEntries(['package.json', 'src/cart.js', 'test/cart.test.js'].map((f) => [f, readFileSync(path.join(dir, f), 'utf8')])), ...more };
};

/** Reads the cart, fixes both bugs, finishes. */
const FIX = parseScript({
  label: 'fix',
  steps: [
    { content: 'Reading the cart.', toolCalls: [{ name: 'read_file', arguments: { path: 'src/cart.js' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: QUANTITY }, { name: 'edit_file', arguments: PERCENT }] },
    { toolCalls: [{ name: 'finish', arguments: { summary: 'quantity and percent' } }] },
  ],
});

async function run(script: Script, opts: ScriptedModelOptions, more: Partial<LoopDeps> = {}, files: Record<string, string> = {}) {
  const server = await startScriptedModel(script, { allowExhaustion: true, ...opts });
  servers.push(server);
  const world = await openLoopWorld(sample(files));
  const model = makeChatModel({ baseUrl: server.url, apiKey: KEY, model: 'scripted', maxRetries: 0 });
  const out = await runAgentLoop({ key: 'issue-1', title: 'cart total', goal: 'fix the cart total' }, world.deps(model, {}, { sleep: async () => undefined, ...more }));
  const notes = world.events.flatMap((e) => (e.type === 'note' ? [e.message] : []));
  return { out, server, notes };
}

async function post(url: string, body: unknown): Promise<{ status: number; json: unknown }> {
  const r = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
  return { status: r.status, json: await r.json() };
}

/** A history as agent-fix sent it before dialects: assistant messages rebuilt from content and tool calls only. */
const oldHistory = (id = 'call_0_0', extraUser = false) => ({
  model: 'scripted',
  messages: [
    { role: 'system', content: 's' },
    { role: 'user', content: 'u' },
    { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: '{"path":"src/cart.js"}' } }] },
    { role: 'tool', tool_call_id: id, content: 'file' },
    ...(extraUser ? [{ role: 'user', content: 'Please continue by calling a tool.' }] : []),
  ],
});

describe('fields that must travel back', () => {
  test("DeepSeek: reasoning_content goes back with every tool-call turn, and the fix completes", async () => {
    const { out, server } = await run(FIX, { dialect: 'deepseek' });
    expect(out.reason).toBe('verified');
    expect(server.refused).toEqual([]);
    expect(server.requests[2].messages[2].reasoning_content).toBe('Step 1: thinking about what to do next.');
    // control: the old history is refused as DeepSeek refuses it
    const r = await post(server.url, oldHistory());
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('Missing `reasoning_content` field in the assistant message at message index 2');
  });

  test('Gemini: the thought signature of a step goes back on its call, and the fix completes', async () => {
    const { out, server } = await run(FIX, { dialect: 'gemini' });
    expect(out.reason).toBe('verified');
    expect(server.refused).toEqual([]);
    expect(server.requests[1].messages[2].tool_calls[0].extra_content.google.thought_signature).toMatch(/^c2lnbmF0dXJl0_/);
    const r = await post(server.url, oldHistory());
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('Function call is missing a thought_signature');
    expect(Array.isArray(r.json)).toBe(true);
  });

  test("Groq: the `reasoning` it sends it refuses back; once refused, the replies' own fields stay home", async () => {
    const { out, server, notes } = await run(FIX, { dialect: 'groq' });
    expect(out.reason).toBe('verified');
    expect(server.refused.map((r) => r.why)).toEqual(['provider-fields']);
    expect(notes.join('\n')).toContain("the replies' own fields (reasoning) are no longer sent back");
    const off = await run(FIX, { dialect: 'groq' }, { recover: false });
    expect(off.out.reason).toBe('model-error');
    expect(off.out.stopDetail).toContain("property 'reasoning' is unsupported");
  });

  test('Ollama with an R1-style model: <think> blocks never go back', async () => {
    const { out, server } = await run(FIX, { dialect: 'ollama' });
    expect(out.reason).toBe('verified');
    expect(server.requests.every((b) => !JSON.stringify(b.messages).includes('<think>'))).toBe(true);
  });
});

describe('errors in every shape, and recoveries', () => {
  test('the shapes read into one: a JSON array, {object: "error"}, a bare string, an HTTP 200 with an error and no choices', () => {
    expect(normalizeErrorBody(400, '[{"error":{"code":400,"message":"bad","status":"INVALID_ARGUMENT"}}]')).toEqual({ status: 400, body: { error: { code: 400, message: 'bad', status: 'INVALID_ARGUMENT' } } });
    expect(normalizeErrorBody(400, '{"object":"error","message":"Unexpected role","type":"x"}')?.body.error.message).toBe('Unexpected role');
    expect(normalizeErrorBody(400, '{"error":"n_keep: 5000 >= n_ctx: 4096"}')?.body.error.message).toBe('n_keep: 5000 >= n_ctx: 4096');
    expect(normalizeErrorBody(200, '{"error":{"code":429,"message":"Rate limit exceeded upstream"}}')?.status).toBe(429);
    expect(normalizeErrorBody(200, '{"choices":[{"message":{}}]}')).toBeNull();
    expect(normalizeErrorBody(400, '{"error":{"message":"plain"}}')).toBeNull();
  });

  test('windows named in every wording', () => {
    expect(limitFromMessage('Request body too large for gpt-4.1 model. Max size: 8000 tokens.')).toBe(8000);
    expect(limitFromMessage('prompt is too long: 210000 tokens > 200000 maximum')).toBe(200000);
    expect(limitFromMessage('n_keep: 5000 >= n_ctx: 4096')).toBe(4096);
    expect(limitFromMessage('on tokens per minute (TPM): Limit 6000, Requested 7342, please reduce')).toBe(6000);
    expect(limitFromMessage('The input token count (9000) exceeds the maximum number of tokens allowed (8192).')).toBe(8192);
    expect(limitFromMessage('Prompt contains 9000 tokens and 0 draft tokens, too large for model with 8192 maximum context length')).toBe(8192);
  });

  test.each([
    ['llamacpp', /as too large \(its limit: 6000 tokens\)/],
    ['lmstudio', /as too large \(its limit: 6000 tokens\)/],
    ['groq', /as too large \(its limit: 6000 tokens\)/],
    ['anthropic-compat', /as too large \(its limit: 6000 tokens\)/],
    ['gemini', /as too large \(its limit: 6000 tokens\)/],
    ['mistral', /as too large \(its limit: 6000 tokens\)/],
    ['vllm', /as too large \(its limit: 6000 tokens\)/],
  ] as const)('%s: a window named in its refusal is learnt and the run fits under it', async (dialect, note) => {
    const { out, server, notes } = await run(READER, { dialect, limits: { maxInputTokens: 6000 }, textCalls: 'none' }, { maxInputTokens: 100_000 }, { 'src/rates.js': RATES_JS });
    expect(out.reason).toBe('verified');
    expect(server.refused.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...server.requestTokens)).toBeLessThanOrEqual(6000);
    expect(notes.join('\n')).toMatch(note);
  });

  test("Mistral: a note right after a tool result is refused once; from then on it joins the tool result", async () => {
    // the compaction note follows the latest tool results: a low threshold makes one
    const { out, server, notes } = await run(READER, { dialect: 'mistral' }, { compactTokens: 6000 }, { 'src/rates.js': RATES_JS });
    expect(out.reason).toBe('verified');
    expect(server.refused.map((r) => r.why)).toEqual(['message-order']);
    expect(notes.join('\n')).toContain('notes after tool results now join the tool result');
    // control: recovery off, the run ends on the refusal with one line naming it
    const off = await run(READER, { dialect: 'mistral' }, { compactTokens: 6000, recover: false }, { 'src/rates.js': RATES_JS });
    expect(off.out.reason).toBe('model-error');
    expect(off.out.stopDetail).toContain("Unexpected role 'user' after role 'tool'");
    expect(off.out.stopDetail).not.toContain('\n');
  });

  test("Mistral: its 9-character ids go back as they came; ids of another form are refused (the control)", async () => {
    const { out, server } = await run(FIX, { dialect: 'mistral' });
    expect(out.reason).toBe('verified');
    expect(server.refused).toEqual([]);
    const r = await post(server.url, oldHistory('call_0_0'));
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('Tool call id was call_0_0 but must be a-z, A-Z, 0-9, with a length of 9.');
  });

  test('vLLM, llama.cpp: arguments cut at the token limit never poison the history', async () => {
    const script = parseScript({
      label: 'cut off',
      steps: [{ truncated: true, toolCalls: [{ name: 'read_file', arguments: '{"path": "src/cart.js", "start_line": ' }] }, ...FIX.steps],
    });
    const { out, server } = await run(script, { dialect: 'llamacpp' });
    expect(out.reason).toBe('verified');
    expect(server.refused).toEqual([]);
    const r = await post(server.url, { model: 'scripted', messages: [{ role: 'user', content: 'u' }, { role: 'assistant', content: null, tool_calls: [{ id: 'a', type: 'function', function: { name: 'read_file', arguments: '{"path": "src/cart.js", "start_line": ' } }] }, { role: 'tool', tool_call_id: 'a', content: 'x' }] });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain("Expecting ',' delimiter");
  });

  test("Groq: the model's own malformed call (tool_use_failed) is asked again", async () => {
    const script = parseScript({ label: 'failed generation', steps: [{ toolCalls: [{ name: 'read_file', arguments: '{"path": src/cart.js}' }] }, ...FIX.steps] });
    const { out, server, notes } = await run(script, { dialect: 'groq' });
    expect(out.reason).toBe('verified');
    expect(server.consumed).toBe(4);
    expect(notes.join('\n')).toContain('asking again');
    const off = await run(script, { dialect: 'groq' }, { recover: false });
    expect(off.out.reason).toBe('model-error');
    expect(off.out.stopDetail).toContain("Failed to call a function. Please adjust your prompt. See 'failed_generation' for more details.");
  });

  test('OpenRouter: an upstream rate limit in an HTTP 200 is waited out', async () => {
    const script = parseScript({ label: 'upstream', steps: [{ error: { status: 429, message: 'Rate limit exceeded: free-models-per-min (upstream)' } }, ...FIX.steps] });
    const { out, notes } = await run(script, { dialect: 'openrouter' });
    expect(out.reason).toBe('verified');
    expect(notes.join('\n')).toContain("the endpoint's rate limit: waiting");
  });

  test('an endpoint refusal with no recovery stops with one line: its answer and what to change', async () => {
    const script = parseScript({ label: 'filtered prompt', steps: [{ error: { status: 400, body: { error: { message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.", code: 'content_filter' } } } }] });
    const { out } = await run(script, {});
    expect(out.reason).toBe('model-error');
    expect(out.stopDetail).toMatch(/answered HTTP 400: The response was filtered.*content filter refused the prompt.*try another model or endpoint/);
    expect(out.stopDetail).not.toContain('\n');
  });

  test("a reply blocked by the content filter (finish_reason content_filter) is asked again, and said so when it keeps coming", async () => {
    const { out } = await run(parseScript({ label: 'filtered', steps: [{ filtered: true }, ...FIX.steps] }), {});
    expect(out.reason).toBe('verified');
    const always = await run(parseScript({ label: 'always filtered', steps: [{ filtered: true }, { filtered: true }, { filtered: true }, { filtered: true }] }), {});
    expect(always.out.reason).toBe('model-error');
    expect(always.out.stopDetail).toContain("the endpoint's content filter blocked the model's replies");
  });
});

describe('tool calls written as text', () => {
  test.each(['hermes', 'mistral', 'llama', 'json'] as const)('%s: read as calls and the fix completes', async (textCalls) => {
    const { out, notes } = await run(FIX, { dialect: 'vllm', textCalls });
    expect(out.reason).toBe('verified');
    expect(notes.join('\n')).toContain(`(${textCalls} format)`);
  });

  test('control: with text calls not read, the run gives up after the nudges', async () => {
    const { out } = await run(FIX, { dialect: 'vllm', textCalls: 'hermes' }, { recover: false });
    expect(out.reason).not.toBe('verified');
  });
});

describe('silent truncation', () => {
  test('Ollama keeps the last num_ctx tokens and answers 200: the usage shows it, and the run fits under the window', async () => {
    const { out, server, notes } = await run(READER, { dialect: 'ollama', limits: { maxInputTokens: 5000 } }, {}, { 'src/rates.js': RATES_JS });
    expect(out.reason).toBe('verified');
    expect(server.truncated.length).toBeGreaterThanOrEqual(1);
    expect(notes.join('\n')).toMatch(/the endpoint read only 5000 of the ~\d+ tokens sent/);
    const after = server.requestTokens.slice(server.requestTokens.findIndex((t) => t > 5000) + 1);
    expect(after.every((t) => t <= 5000)).toBe(true);
    // control: with the reading off, the requests keep going over the window
    const off = await run(READER, { dialect: 'ollama', limits: { maxInputTokens: 5000 } }, { recover: false }, { 'src/rates.js': RATES_JS });
    expect(off.server.truncated.length).toBeGreaterThan(server.truncated.length);
  });
});
