/**
 * The model endpoint's real limits (issue 21): the pure parts (defaults per endpoint, the answers'
 * limits and headers, the pacer, fitting a conversation), then the agent loop with real git, real
 * tools, real test runs and the real openai adapter against the scripted server enforcing GitHub
 * Models' limits on loopback.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runAgentLoop, type LoopDeps } from '../../src/agent/loop.js';
import { makeChatModel, type ChatModelOptions } from '../../src/adapters/openai.js';
import { limitFromMessage, parseDurationMs, readRateHeaders, RequestPacer, RESET_MARGIN_MS } from '../../src/adapters/rate-limit.js';
import { defaultInputTokens, defaultOutputTokens, defaultRequestsPerMinute, quotaStopMessage } from '../../src/budget/rate.js';
import { fitToBudget, messagesTokens } from '../../src/context/compact.js';
import { readSettings as readInputs, SettingsError } from '../../src/settings/inputs.js';
import { resolveSettings } from '../../src/settings/resolve.js';
import { startScriptedModel, type EndpointLimits } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { openLoopWorld } from '../../test-support/loop-world.js';
import { PERCENT, QUANTITY, RATES_JS, READER } from '../../test-support/limits-task.js';
import type { ChatMessage } from '../../src/ports/llm.js';

/** The effective settings of the inputs: read (only what was given), then every default applied once. */
const readSettings = (...a: Parameters<typeof readInputs>) => resolveSettings(readInputs(...a));

afterAll(() => cleanupFixtures());

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');

describe('the endpoint defaults', () => {
  test('GitHub Models gets its free-use limits; other endpoints the model context window, else a generous default', () => {
    expect(defaultInputTokens('https://models.github.ai/inference', 'openai/gpt-4.1')).toBe(8000);
    expect(defaultInputTokens('https://models.inference.ai.azure.com', 'gpt-4o')).toBe(8000);
    expect(defaultOutputTokens('https://models.github.ai/inference')).toBe(4000);
    expect(defaultRequestsPerMinute('https://models.github.ai/inference')).toBe(10);
    expect(defaultInputTokens('https://api.openai.com/v1', 'gpt-4o-mini')).toBe(128_000);
    expect(defaultInputTokens('https://api.openai.com/v1', 'gpt-4.1')).toBe(1_047_576);
    expect(defaultInputTokens('http://localhost:11434/v1', 'my-local-model')).toBe(100_000);
    expect(defaultOutputTokens('https://api.openai.com/v1')).toBe(0);
    expect(defaultRequestsPerMinute('https://api.openai.com/v1')).toBe(0);
  });

  test('settings: max-input-tokens, max-output-tokens and requests-per-minute, defaults by endpoint, errors naming the input', () => {
    const input = (given: Record<string, string>) => (name: string) => ({ 'github-token': 'ghs_x0123456789', ...given })[name] ?? '';
    const gh = readSettings(input({}));
    expect([gh.maxInputTokens, gh.maxOutputTokens, gh.requestsPerMinute]).toEqual([8000, 4000, 10]);
    const other = readSettings(input({ 'base-url': 'https://api.openai.com/v1', model: 'gpt-4o' }));
    expect([other.maxInputTokens, other.maxOutputTokens, other.requestsPerMinute]).toEqual([128_000, 0, 0]);
    const set = readSettings(input({ 'max-input-tokens': '16000', 'max-output-tokens': '2000', 'requests-per-minute': '15' }));
    expect([set.maxInputTokens, set.maxOutputTokens, set.requestsPerMinute]).toEqual([16000, 2000, 15]);
    let err: unknown;
    try {
      readSettings(input({ 'max-input-tokens': '500' }));
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SettingsError);
    expect((err as SettingsError).problems[0]).toMatch(/Input "max-input-tokens" must be a whole number of tokens from 1000.*got "500"/);
  });
});

describe('the documented propose matrices', () => {
  test("keep within GitHub Models' 2 concurrent requests (high tier): max-parallel 2 wherever a matrix of candidates runs", async () => {
    const { parse } = await import('yaml');
    const files = ['examples/propose-publish-issue.yml', 'examples/propose-publish-ci.yml'];
    for (const f of files) {
      const wf = parse(readFileSync(path.join(ROOT, f), 'utf8')) as { jobs: Record<string, { strategy?: { matrix?: unknown; 'max-parallel'?: number } }> };
      const matrices = Object.values(wf.jobs).filter((j) => j.strategy?.matrix);
      expect(matrices.length).toBeGreaterThan(0);
      for (const j of matrices) expect(j.strategy?.['max-parallel']).toBeLessThanOrEqual(2);
    }
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme.match(/matrix:\n/g)?.length).toBe(readme.match(/max-parallel: 2 /g)?.length);
  });
});

describe("the endpoint's answers", () => {
  test("a 413's message names the real limit", () => {
    expect(limitFromMessage('Request body too large for gpt-4.1 model. Max size: 8000 tokens.')).toBe(8000);
    expect(limitFromMessage("This model's maximum context length is 128,000 tokens.")).toBe(128_000);
    expect(limitFromMessage('Request body too large.')).toBeNull();
  });

  test('rate-limit headers in seconds and in OpenAI durations', () => {
    expect(parseDurationMs('12')).toBe(12_000);
    expect(parseDurationMs('6m0s')).toBe(360_000);
    expect(parseDurationMs('1.5s')).toBe(1500);
    expect(parseDurationMs('20ms')).toBe(20);
    expect(parseDurationMs('soon')).toBeUndefined();
    const h = new Headers({ 'x-ratelimit-limit-requests': '10', 'x-ratelimit-remaining-requests': '0', 'x-ratelimit-reset-requests': '42s', 'x-ratelimit-remaining-tokens': '7000' });
    expect(readRateHeaders((n) => h.get(n))).toEqual({ limitRequests: 10, remainingRequests: 0, resetRequestsMs: 42_000, remainingTokens: 7000 });
  });

  test('the pacer spaces requests by its bucket without headers, and by the headers when the endpoint sends them', () => {
    let t = 0;
    const now = () => t;
    const bucket = new RequestPacer(2, now);
    bucket.took();
    bucket.took();
    expect(bucket.delayMs()).toBe(30_000); // 2 a minute: the third waits half a minute
    t += 30_000;
    expect(bucket.delayMs()).toBe(0);

    const byHeaders = new RequestPacer(0, now);
    expect(byHeaders.delayMs()).toBe(0);
    byHeaders.observe({ remainingRequests: 0, resetRequestsMs: 12_000 });
    expect(byHeaders.delayMs()).toBe(12_000 + RESET_MARGIN_MS); // none left: the whole reset
    t += 12_000 + RESET_MARGIN_MS;
    byHeaders.observe({ remainingRequests: 3, resetRequestsMs: 40_000 });
    expect(byHeaders.delayMs()).toBe(10_000); // three left in 40 s: spread evenly
    byHeaders.blockFor(60_000);
    expect(byHeaders.delayMs()).toBe(60_000);
  });

  test('the quota stop says when the quota resets and how to resume', () => {
    const text = quotaStopMessage({ retryAfterMs: 5 * 3_600_000, daily: true, now: Date.UTC(2026, 10, 27, 14, 0) });
    expect(text).toContain('daily request quota is spent');
    expect(text).toContain('resets in about 5.0 h (at 2026-11-27 19:00 UTC)');
    expect(text).toContain('`/agent-fix continue`');
  });
});

describe('fitting a conversation to a budget', () => {
  const big = (label: string, lines: number) => Array.from({ length: lines }, (_, i) => `${i + 1}| const ${label}${i} = compute(${i}, "${label}") + other${i};`).join('\n');
  function conversation(steps: number): ChatMessage[] {
    const msgs: ChatMessage[] = [
      { role: 'system', content: 'You are agent-fix.' },
      { role: 'user', content: '# Task: fix the cart total\nThe total ignores quantities.' },
    ];
    for (let i = 0; i < steps; i++) {
      msgs.push({ role: 'assistant', content: null, toolCalls: [{ id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: `src/f${i}.js` }) }] });
      msgs.push({ role: 'tool', toolCallId: `c${i}`, content: big(`f${i}`, 150) });
    }
    return msgs;
  }

  test('within the budget nothing changes', () => {
    const msgs = conversation(1);
    const fit = fitToBudget(msgs, 1_000_000);
    expect(fit.messages).toBe(msgs);
    expect(fit.steps).toEqual([]);
  });

  test('over it: the task and the latest step stay whole, older results are summarised or dropped, and it fits', () => {
    const msgs = conversation(8);
    const latest = msgs[msgs.length - 1];
    const budget = messagesTokens([msgs[0], msgs[1], msgs[msgs.length - 2], latest]) + 400;
    expect(messagesTokens(msgs)).toBeGreaterThan(4 * budget);
    const fit = fitToBudget(msgs, budget);
    expect(fit.fits).toBe(true);
    expect(fit.after).toBe(messagesTokens(fit.messages));
    expect(fit.after).toBeLessThanOrEqual(budget);
    expect(fit.messages.slice(0, 2)).toEqual(msgs.slice(0, 2));
    expect(fit.messages[fit.messages.length - 1]).toEqual(latest);
    // every tool result still follows its call
    const ids = new Set(fit.messages.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []).map((c) => c.id) : [])));
    expect(fit.messages.filter((m) => m.role === 'tool').every((m) => ids.has((m as { toolCallId: string }).toolCallId))).toBe(true);
    expect(fit.steps.join('; ')).toMatch(/summarised|dropped/);
  });

  test("the latest reply's own long write, applied already, is summarised before anything of the task is lost", () => {
    const content = big('w', 300);
    const msgs: ChatMessage[] = [
      ...conversation(0),
      { role: 'assistant', content: null, toolCalls: [{ id: 'w1', name: 'write_file', arguments: JSON.stringify({ path: 'src/w.js', content }) }] },
      { role: 'tool', toolCallId: 'w1', content: 'Wrote src/w.js (300 lines).' },
    ];
    const budget = messagesTokens(msgs.slice(0, 2)) + 300;
    const fit = fitToBudget(msgs, budget);
    expect(fit.fits).toBe(true);
    expect(fit.steps).toContain('the latest edits summarised');
    const call = (fit.messages[2] as { toolCalls: { arguments: string }[] }).toolCalls[0];
    expect(JSON.parse(call.arguments)).toEqual({ path: 'src/w.js', content: '[summarised: 300 lines written; see the current state of the changed files]' });
    expect(fit.messages[3].content).toBe('Wrote src/w.js (300 lines).');
  });

  test("the latest reply's long batch edit (edits: [...]) is summarised edit by edit", () => {
    const edits = [
      { old_string: big('a', 120), new_string: big('b', 121) },
      { old_string: 'x', new_string: big('c', 90) },
    ];
    const msgs: ChatMessage[] = [
      ...conversation(0),
      { role: 'assistant', content: null, toolCalls: [{ id: 'e1', name: 'edit_file', arguments: JSON.stringify({ path: 'src/e.js', edits }) }] },
      { role: 'tool', toolCallId: 'e1', content: 'Applied 2 edits to src/e.js.' },
    ];
    const fit = fitToBudget(msgs, messagesTokens(msgs.slice(0, 2)) + 300);
    expect(fit.fits).toBe(true);
    const call = (fit.messages[2] as { toolCalls: { arguments: string }[] }).toolCalls[0];
    const rest = '; see the current state of the changed files]';
    expect(JSON.parse(call.arguments)).toEqual({
      path: 'src/e.js',
      edits: [
        { old_string: '[summarised: 120 lines]', new_string: `[summarised: 121 lines${rest}` },
        { old_string: '[summarised: 1 lines]', new_string: `[summarised: 90 lines${rest}` },
      ],
    });
  });

  test('when even the latest result does not fit, it is cut with a note; when the task alone does not fit, it says so', () => {
    const msgs = conversation(2);
    const budget = messagesTokens(msgs.slice(0, 2)) + 600;
    const fit = fitToBudget(msgs, budget);
    expect(fit.fits).toBe(true);
    expect(fit.messages[fit.messages.length - 1].content).toContain('[cut to fit the per-request token budget');
    expect(fitToBudget(msgs, 20).fits).toBe(false);
  });
});

// ---------------------------------------------------------------- the loop against the limits

/** The demo's cart with a long module next to it: reading it whole is well over 8,000 tokens. */
function sample(): Record<string, string> {
  const dir = path.join(ROOT, 'demo', 'sample-repo');
  const files = Object.fromEntries(['package.json', 'src/cart.js', 'test/cart.test.js'].map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
  files['src/rates.js'] = RATES_JS;
  return files;
}


async function loopAgainst(limits: EndpointLimits | undefined, more: Partial<LoopDeps> = {}, script = READER, adapter: Partial<ChatModelOptions> = {}) {
  const world = await openLoopWorld(sample());
  const server = await startScriptedModel(script, { limits, allowExhaustion: true });
  const events = world.events;
  try {
    const model = makeChatModel({ baseUrl: server.url, apiKey: 'sk-limits-test-123456', model: 'openai/gpt-4.1', maxRetries: 0, ...adapter });
    const out = await runAgentLoop({ key: 'issue-1', title: 'cart total', goal: 'The cart total ignores quantities and the discount is a percentage.' }, world.deps(model, {}, more));
    return { out, server, events, notes: events.flatMap((e) => (e.type === 'note' ? [e.message] : [])) };
  } finally {
    await server.close();
  }
}

describe('the loop within the endpoint limits', () => {
  test('a run that would pass 8,000 tokens per request finishes within them: every request fits, none is refused', async () => {
    const free = await loopAgainst({});
    expect(free.out.reason).toBe('verified');
    expect(Math.max(...free.server.requestTokens)).toBeGreaterThan(8000);

    const capped = await loopAgainst({ maxInputTokens: 8000 }, { maxInputTokens: 8000, maxOutputTokens: 4000 }, READER, { maxOutputTokens: 4000 });
    expect(capped.out.reason).toBe('verified');
    expect(capped.server.refused).toEqual([]);
    expect(capped.server.requests).toHaveLength(7);
    expect(Math.max(...capped.server.requestTokens)).toBeLessThanOrEqual(8000);
    // the peak the report shows is the endpoint's own count of the largest request
    expect(capped.out.usage.peakPromptTokens).toBe(Math.max(...capped.server.requestTokens));
    expect(capped.out.usage.inputLimit).toBe(8000);
    // the model is told its room, and the reply cap is sent
    expect(capped.server.requests[0].messages[0].content).toMatch(/limited to 8000 input tokens and your reply to 4000 tokens/);
    expect(capped.server.requests.every((r) => r.max_tokens === 4000)).toBe(true);
    // the long file came in pages that say how to get the next one
    const firstRead = capped.server.requests[1].messages.at(-1).content as string;
    expect(firstRead).toMatch(/For the next page call read_file with start_line=\d+, end_line=\d+/);
    expect(capped.notes.some((n) => n.startsWith('conversation compacted to the 8000-token input limit'))).toBe(true);
  });

  test('a 413 teaches the real limit (from its message): the request is fitted again and the same turn retried', async () => {
    const r = await loopAgainst({ maxInputTokens: 6000 }, { maxInputTokens: 100_000 });
    expect(r.out.reason).toBe('verified');
    expect(r.server.refused.length).toBeGreaterThanOrEqual(1);
    expect(r.server.refused.every((x) => x.status === 413 && x.why === 'too-large')).toBe(true);
    expect(r.out.usage.inputLimit).toBe(6000);
    expect(Math.max(...r.server.requestTokens)).toBeLessThanOrEqual(6000);
    expect(r.server.requests).toHaveLength(7); // no step lost to the refusals
    expect(r.notes.some((n) => /refused a request of ~\d+ tokens as too large \(its limit: 6000 tokens\)/.test(n))).toBe(true);
  });

  test('a request whose fixed part alone is too big ends the run naming the part and what to change', async () => {
    const r = await loopAgainst({ maxInputTokens: 1200 }, { maxInputTokens: 1200 });
    expect(r.out.reason).toBe('model-error');
    expect(r.out.stopDetail).toMatch(/cannot be made small enough for the endpoint's limit of 1200 input tokens: the system prompt with the tool schemas alone takes \d+ tokens/);
    expect(r.out.stopDetail).toContain('raise max-input-tokens');
    expect(r.server.requests).toHaveLength(0);
  });

  test('a short 429 is waited out and the turn retried; the headers pace the rest before the server refuses', async () => {
    const waited: number[] = [];
    // a 429 with retry-after 2 at the third request: the wait is recorded (not slept) and the same turn asked again
    const steps = [...READER.steps];
    steps.splice(2, 0, { error: { status: 429, headers: { 'retry-after': '2' }, message: 'Rate limit of 10 per 60s exceeded for UserByModelByMinute.' } });
    const surprise = await loopAgainst({}, { sleep: async (ms) => void waited.push(ms) }, parseScript({ label: 'a 429 on the way', steps }));
    expect(surprise.out.reason).toBe('verified');
    expect(waited).toEqual([2000]);
    expect(surprise.server.requests).toHaveLength(8); // the refused one, then the seven steps
    expect(surprise.server.requests[3]).toEqual(surprise.server.requests[2]); // the same turn
    expect(surprise.notes).toContain("the endpoint's rate limit: waiting 2s before retrying the request");

    // with the headers, the adapter spaces the requests and the server never has to refuse
    const paced = await loopAgainst({ requestsPerWindow: 3, windowMs: 400 });
    expect(paced.out.reason).toBe('verified');
    expect(paced.server.refused).toEqual([]);
    expect(paced.server.requests).toHaveLength(7);
  });

  test('a spent daily quota stops the run at once, keeping the best attempt, and says when it resets and how to resume', async () => {
    const script = parseScript({
      label: 'half a fix, then the quota',
      steps: [
        { toolCalls: [{ name: 'edit_file', arguments: QUANTITY }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'quantity' } }] },
        { toolCalls: [{ name: 'edit_file', arguments: PERCENT }] },
      ],
    });
    const r = await loopAgainst({ dailyRequests: 2, dailyRetryAfterSeconds: 4 * 3600 }, {}, script);
    expect(r.out.reason).toBe('budget-exhausted');
    expect(r.server.requests).toHaveLength(2);
    expect(r.server.refused).toEqual([{ status: 429, why: 'daily-quota', tokens: expect.any(Number) }]);
    expect(r.out.attempts).toHaveLength(1);
    expect(r.out.stopDetail).toMatch(/daily request quota is spent \(x-ratelimit-type UserByModelByDay\); it resets in about 4\.0 h \(at \d{4}-\d\d-\d\d \d\d:\d\d UTC\)/);
    expect(r.out.stopDetail).toContain('`/agent-fix continue`');
    expect(r.out.touched).toEqual(['src/cart.js']);
  });
});
