/**
 * End to end (issue 29): the CLI bundle under node 24 against the scripted server speaking each
 * endpoint's dialect. `agent-fix demo --dialect NAME` fixes the sample repository in every dialect;
 * `agent-fix fix` recovers from what each endpoint refuses (windows named in seven wordings, the
 * message order, a failed generation, a rate limit inside an HTTP 200, a silent truncation). Each
 * with its control: the request agent-fix sent before dialects, refused the way the service
 * refuses it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from '../../src/scripted/server.js';
import { parseScript, type Script } from '../../src/scripted/script.js';
import { DIALECTS, type Dialect } from '../../src/scripted/dialects.js';
import { PERCENT, QUANTITY, RATES_JS, READER } from '../../test-support/limits-task.js';
import { makeRepo, readTree, cleanupFixtures } from '../../test-support/git-fixture.js';
import { runCli, ROOT } from '../../test-support/run-action.js';

const open: ScriptedModel[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

const KEY = 'sk-e2e-dialects-key-0123456789';

async function server(script: Script, opts: ScriptedModelOptions): Promise<ScriptedModel> {
  const s = await startScriptedModel(script, { allowExhaustion: true, ...opts });
  open.push(s);
  return s;
}

async function cliFix(url: string, extra: string[] = []) {
  const repo = makeRepo({ ...readTree(path.join(ROOT, 'demo', 'sample-repo')), 'src/rates.js': RATES_JS });
  const r = await runCli(['fix', 'Cart total ignores quantities and the discount percentage', '--repo', repo.dir, '--test-command', 'npm test', '--base-url', url, '--model', 'scripted', '--json', ...extra], { OPENAI_API_KEY: KEY });
  expect(r.stdout.trim().startsWith('{')).toBe(true);
  const report = JSON.parse(r.stdout);
  return { ...r, report, transcript: report.transcriptPath ? readFileSync(report.transcriptPath, 'utf8') : '' };
}

async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const r = await fetch(`${url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` }, body: JSON.stringify(body) });
  return { status: r.status, text: await r.text() };
}

/** What agent-fix sent before dialects: assistant turns rebuilt from content and tool calls only, notes anywhere, arguments as cut. */
const OLD = {
  model: 'scripted',
  messages: [
    { role: 'system', content: 's' },
    { role: 'user', content: 'u' },
    { role: 'assistant', content: null, tool_calls: [{ id: 'call_0_0', type: 'function', function: { name: 'read_file', arguments: '{"path": "src/cart.js", "start_line": ' } }] },
    { role: 'tool', tool_call_id: 'call_0_0', content: 'file' },
    { role: 'user', content: 'Older tool results were summarised' },
  ],
};

describe('`agent-fix demo --dialect NAME`: the demo fixes the sample repository in every dialect', () => {
  test.each(DIALECTS.map((d) => [d]))('%s', async (dialect) => {
    const r = await runCli(['demo', '--dialect', dialect, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).status).toBe('fixed');
  });

  test('control: an unknown dialect is a usage error that lists them', async () => {
    const r = await runCli(['demo', '--dialect', 'nope']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('Unknown dialect "nope": the dialects are plain, github-models, deepseek');
  });
});

describe('controls: the old requests, refused by each dialect as the real service refuses them', () => {
  test.each([
    ['deepseek', 'Missing `reasoning_content` field in the assistant message at message index 2'],
    ['gemini', 'Function call is missing a thought_signature'],
    ['mistral', 'Tool call id was call_0_0 but must be a-z, A-Z, 0-9, with a length of 9.'],
    ['vllm', "Expecting ',' delimiter"],
    ['llamacpp', "Expecting ',' delimiter"],
  ] as [Dialect, string][])('%s', async (dialect, said) => {
    const s = await server(parseScript({ steps: [{ content: 'never used' }] }), { dialect });
    const r = await post(s.url, OLD);
    expect(r.status).toBe(400);
    expect(r.text).toContain(said);
    expect(s.consumed).toBe(0);
  });

  test("mistral: a user message right after a tool result", async () => {
    const s = await server(parseScript({ steps: [{ content: 'never used' }] }), { dialect: 'mistral' });
    const msgs = OLD.messages.map((m) => (m.role === 'assistant' ? { ...m, tool_calls: [{ id: 'abcDEF123', type: 'function', function: { name: 'read_file', arguments: '{}' } }] } : m.role === 'tool' ? { ...m, tool_call_id: 'abcDEF123' } : m));
    const r = await post(s.url, { model: 'scripted', messages: msgs });
    expect(r.status).toBe(400);
    expect(JSON.parse(r.text)).toEqual(expect.objectContaining({ object: 'error', message: "Unexpected role 'user' after role 'tool'" }));
  });
});

describe('`agent-fix fix` recovers from what each endpoint refuses', () => {
  test.each([
    ['llamacpp', 'exceed_context_size_error'],
    ['lmstudio', 'n_keep'],
    ['groq', 'Limit 6000, Requested'],
    ['anthropic-compat', 'prompt is too long'],
    ['gemini', 'exceeds the maximum number of tokens allowed'],
  ] as [Dialect, string][])('%s: the window its refusal names (%s) is learnt and the fix completes within it', async (dialect) => {
    const s = await server(READER, { dialect, limits: { maxInputTokens: 6000 }, textCalls: 'none' });
    const r = await cliFix(s.url);
    expect(r.report.status).toBe('fixed');
    expect(s.refused.length).toBeGreaterThanOrEqual(1);
    expect(Math.max(...s.requestTokens)).toBeLessThanOrEqual(6000);
    expect(r.report.usage.inputLimit).toBe(6000);
    expect(r.transcript).toMatch(/as too large \(its limit: 6000 tokens\)/);
  });

  test("mistral: the compaction note after tool results is refused once, then joins them", async () => {
    const s = await server(READER, { dialect: 'mistral' });
    const r = await cliFix(s.url, ['--max-input-tokens', '8000']);
    expect(r.report.status).toBe('fixed');
    expect(s.refused.map((x) => x.why)).toEqual(['message-order']);
    expect(r.transcript).toContain('notes after tool results now join the tool result');
  });

  test('llamacpp: a tool call cut at the token limit does not poison the history', async () => {
    const script = parseScript({
      label: 'cut off',
      steps: [
        { truncated: true, toolCalls: [{ name: 'read_file', arguments: '{"path": "src/cart.js", "start_line": ' }] },
        { toolCalls: [{ name: 'edit_file', arguments: QUANTITY }, { name: 'edit_file', arguments: PERCENT }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'quantity and percent' } }] },
      ],
    });
    const s = await server(script, { dialect: 'llamacpp' });
    const r = await cliFix(s.url);
    expect(r.report.status).toBe('fixed');
    expect(s.refused).toEqual([]);
  });

  test("groq: the model's malformed call (tool_use_failed) is asked again", async () => {
    const script = parseScript({
      label: 'failed generation',
      steps: [
        { toolCalls: [{ name: 'edit_file', arguments: '{"path": src/cart.js}' }] },
        { toolCalls: [{ name: 'edit_file', arguments: QUANTITY }, { name: 'edit_file', arguments: PERCENT }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'quantity and percent' } }] },
      ],
    });
    const s = await server(script, { dialect: 'groq' });
    const r = await cliFix(s.url);
    expect(r.report.status).toBe('fixed');
    expect(r.transcript).toContain("the model's malformed tool call was refused by the endpoint; asking again");
  });

  test('openrouter: an upstream rate limit answered as HTTP 200 is waited out', async () => {
    const script = parseScript({
      label: 'upstream rate limit',
      steps: [
        { error: { status: 429, message: 'Rate limit exceeded: limit_rpm/scripted (upstream)' } },
        { toolCalls: [{ name: 'edit_file', arguments: QUANTITY }, { name: 'edit_file', arguments: PERCENT }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'quantity and percent' } }] },
      ],
    });
    const s = await server(script, { dialect: 'openrouter' });
    const r = await cliFix(s.url);
    expect(r.report.status).toBe('fixed');
    expect(r.transcript).toContain("the endpoint's rate limit: waiting");
  }, 60_000);

  test('ollama: a silent truncation to num_ctx is read from the usage, and the run fits under the window', async () => {
    const s = await server(READER, { dialect: 'ollama', limits: { maxInputTokens: 5000 } });
    const r = await cliFix(s.url);
    expect(r.report.status).toBe('fixed');
    expect(r.transcript).toMatch(/the endpoint read only 5000 of the ~\d+ tokens sent/);
    expect(s.truncated.length).toBeGreaterThanOrEqual(1);
    const last = s.requestTokens.findLastIndex((t) => t > 5000);
    expect(s.requestTokens.slice(last + 1).every((t) => t <= 5000)).toBe(true);
    expect(s.requestTokens.length - last - 1).toBeGreaterThanOrEqual(3);
  });

  test('a refusal without a recovery stops with one line naming the answer and what to change', async () => {
    const s = await server(parseScript({ steps: [{ error: { status: 400, body: { error: { message: "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.", code: 'content_filter' } } } }] }), {});
    const r = await cliFix(s.url);
    expect(r.report.status).not.toBe('fixed');
    expect(r.report.detail).toMatch(/The response was filtered.*content filter refused the prompt/);
  });
});
