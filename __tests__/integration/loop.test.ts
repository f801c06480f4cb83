/** The agent loop with real git, real tools and real test runs; the model is an in-process replay. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { runAgentLoop, type LoopDeps, type LoopEvent, type LoopLimits } from '../../src/agent/loop.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { openLoopWorld } from '../../test-support/loop-world.js';
import type { ChatMessage, ChatModel, ModelReply, ToolCall } from '../../src/ports/llm.js';

afterAll(() => cleanupFixtures());

const ROOT = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..', '..');
const sample = (): Record<string, string> => {
  const dir = path.join(ROOT, 'demo', 'sample-repo');
  return Object.fromEntries(['package.json', 'src/cart.js', 'test/cart.test.js'].map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));
};

type Turn = { calls?: [string, Record<string, unknown>][]; content?: string };

/** A model that replays turns and records what it was sent. */
function replay(turns: Turn[]): ChatModel & { seen: ChatMessage[][] } {
  let i = 0;
  const seen: ChatMessage[][] = [];
  return {
    model: 'replay',
    seen,
    async complete(messages: ChatMessage[]): Promise<ModelReply> {
      seen.push(structuredClone(messages));
      const t = turns[i++] ?? { content: 'I am done.' };
      const toolCalls: ToolCall[] = (t.calls ?? []).map(([name, args], k) => ({ id: `c${i}_${k}`, name, arguments: JSON.stringify(args) }));
      return { content: t.content ?? null, toolCalls, finishReason: toolCalls.length ? 'tool_calls' : 'stop', usage: { promptTokens: 10, completionTokens: 5 } };
    },
  };
}

const lastToolResult = (m: ChatMessage[]) => [...m].reverse().find((x) => x.role === 'tool')?.content ?? '';

async function setup(turns: Turn[], limits: Partial<LoopLimits> = {}, more: Partial<LoopDeps> = {}) {
  const world = await openLoopWorld(sample());
  const model = replay(turns);
  const out = await runAgentLoop({ key: 'issue-1', title: 'cart total', goal: 'fix the cart total' }, world.deps(model, limits, more));
  const repo = world.repo;
  return { out, model, events: world.events, repo, cart: () => readFileSync(path.join(repo.dir, 'src/cart.js'), 'utf8') };
}

const fixQuantity: [string, Record<string, unknown>] = ['edit_file', { path: 'src/cart.js', old_string: '(sum, item) => sum + item.price, 0)', new_string: '(sum, item) => sum + item.price * item.quantity, 0)' }];
const fixDiscount: [string, Record<string, unknown>] = ['edit_file', { path: 'src/cart.js', old_string: 'const discount = subtotal * discountPercent;', new_string: 'const discount = (subtotal * discountPercent) / 100;' }];
const finish: [string, Record<string, unknown>] = ['finish', { summary: 'done' }];

test('a change over the size limits is sent back to be shrunk, without running the tests', async () => {
  const { out, events } = await setup([{ calls: [fixQuantity, fixDiscount] }, { calls: [finish] }], { maxChangedLines: 2, maxIterations: 1 });
  expect(out.attempts[0].verdict.summary).toBe('diff over the size limits');
  expect(events.filter((e) => e.type === 'test-run')).toHaveLength(0);
  expect(out.reason).toBe('tests-still-failing');
});

test('the size message names the numbers and the limits', async () => {
  const { model } = await setup([{ calls: [fixQuantity, fixDiscount] }, { calls: [finish] }, { content: 'ok' }], { maxChangedLines: 2 });
  expect(lastToolResult(model.seen[2])).toContain('1 files and 4 changed lines; the limits are 10 files and 2 lines');
});

test('an attempt that makes things worse is rolled back to the best state; a better one is kept', async () => {
  const breakFormat: [string, Record<string, unknown>] = ['edit_file', { path: 'src/cart.js', old_string: 'return `$${(cents / 100).toFixed(2)}`;', new_string: 'return `${cents}`;' }];
  const { out, model, cart } = await setup([
    { calls: [fixQuantity] },
    { calls: [finish] }, // 1 failing instead of 2: kept as the best state
    { calls: [breakFormat] },
    { calls: [finish] }, // breaks a test that passed: rolled back to the state after attempt 1
    { calls: [fixDiscount] },
    { calls: [finish] },
  ]);
  expect(out.reason).toBe('verified');
  expect(out.attempts.map((a) => a.rolledBack)).toEqual([false, true, false]);
  expect(lastToolResult(model.seen[2])).toContain('best so far');
  expect(lastToolResult(model.seen[4])).toContain('ROLLED BACK');
  expect(lastToolResult(model.seen[4])).toContain('formats cents as dollars');
  expect(cart()).toContain('item.price * item.quantity');
  expect(cart()).toContain('toFixed(2)');
});

test('a model that stops calling tools is nudged, then the run ends as model-gave-up with the tree restored', async () => {
  const { out, model, cart } = await setup([{ calls: [fixQuantity] }, { content: 'I think that is it.' }, { content: '...' }, { content: '...' }, { content: '...' }]);
  expect(out.reason).toBe('model-gave-up');
  expect(model.seen[2].at(-1)).toMatchObject({ role: 'user' });
  expect(cart()).not.toContain('item.quantity');
});

test('tool calls after finish in the same reply are answered but not executed', async () => {
  const { out, model } = await setup([{ calls: [fixQuantity, fixDiscount] }, { calls: [finish, ['write_file', { path: 'x.txt', content: 'x' }]] }]);
  expect(out.reason).toBe('verified');
  expect(out.touched).toEqual(['src/cart.js']);
  expect(model.seen).toHaveLength(2);
});

test('the request budget ends the run as budget-exhausted', async () => {
  const read: [string, Record<string, unknown>] = ['read_file', { path: 'src/cart.js' }];
  const { out } = await setup(Array.from({ length: 10 }, () => ({ calls: [read] })), { maxTurns: 4 });
  expect(out.reason).toBe('budget-exhausted');
  expect(out.usage.requests).toBe(4);
});

test('run_tests gives the model the harness\'s own summary without counting as an attempt', async () => {
  const { out, model } = await setup([{ calls: [['run_tests', {}]] }, { calls: [fixQuantity, fixDiscount] }, { calls: [finish] }]);
  expect(lastToolResult(model.seen[1])).toContain('applies a percentage discount');
  expect(out.iterations).toBe(1);
});

test('a stop read at an attempt\'s checkpoint discards that attempt, even a verified one: nothing of it is kept or counted', async () => {
  const asked: string[] = [];
  let testsRanBeforeTheAnswer = false;
  let events: LoopEvent[] = [];
  const { out, model, cart } = await setup([{ calls: [fixQuantity, fixDiscount] }, { calls: [finish] }], {}, {
    interrupt: async (at) => {
      asked.push(at);
      if (at !== 'attempt') return null;
      // answered only once the attempt's tests ran: the read overlaps the verification
      for (let i = 0; i < 600 && !testsRanBeforeTheAnswer; i++) {
        testsRanBeforeTheAnswer = events.some((e) => e.type === 'test-run');
        await new Promise((done) => setTimeout(done, 10));
      }
      return '@maintainer asked to stop this run';
    },
    emit: (e) => (events = [...events, e]),
  });
  expect(testsRanBeforeTheAnswer).toBe(true);
  expect(asked).toEqual(['turn', 'turn', 'attempt']);
  expect(out.reason).toBe('stopped');
  expect(out.stopDetail).toBe('@maintainer asked to stop this run');
  // the attempt passed its tests, yet counts for nothing and its edits are gone
  expect(events.find((e) => e.type === 'test-run' && e.verdict?.ok)).toBeDefined();
  expect(out.attempts).toEqual([]);
  expect(out.iterations).toBe(0);
  expect(cart()).not.toContain('item.quantity');
  expect(model.seen).toHaveLength(2);
});

describe('the compaction threshold is soft, the input limit hard (issue 29)', () => {
  /** One reply of 200 small edit_file calls: over 12,000 tokens in one turn (the issue: 44,256 tokens of edits against 100,000). */
  const manyEdits: Turn = {
    calls: Array.from({ length: 200 }, (_, i) => ['edit_file', { path: 'src/cart.js', old_string: `const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0); // ${i}`, new_string: `const total = items.reduce((sum, item) => sum + item.price * item.quantity, 0); // ${i + 1}` }] as [string, Record<string, unknown>]),
  };

  test('a turn over the threshold that fits the 100,000-token limit goes on to the fix', async () => {
    const { out, events } = await setup([manyEdits, { calls: [fixQuantity, fixDiscount] }, { calls: [finish] }], { maxTurns: 10 }, { maxInputTokens: 100_000 });
    expect(out.reason).toBe('verified');
    expect(events.some((e) => e.type === 'note' && e.message.includes('cannot be made small enough'))).toBe(false);
  });

  test('control: the same turn against a limit it does not fit stops with the one line that names it', async () => {
    const { out } = await setup([manyEdits, { calls: [fixQuantity, fixDiscount] }, { calls: [finish] }], { maxTurns: 10 }, { maxInputTokens: 12_000 });
    expect(out.reason).toBe('model-error');
    expect(out.stopDetail).toMatch(/^a model request cannot be made small enough for the endpoint's limit of 12000 input tokens: the task with the latest step alone takes \d+ tokens/);
  });
});
