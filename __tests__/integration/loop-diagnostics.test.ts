/**
 * The agent loop with the repository's own tsc (real typescript through a symlinked
 * node_modules, real git, real test runs): new type errors come back in the last edit's result
 * of the batch, and a run_tests in the same reply is answered with them instead of a test run.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAgentLoop } from '../../src/agent/loop.js';
import { ToolBox } from '../../src/agent/tools.js';
import { createDiagnostics } from '../../src/diagnostics/watch.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { openLoopWorld } from '../../test-support/loop-world.js';
import type { ChatMessage, ChatModel, ModelReply, ToolCall } from '../../src/ports/llm.js';

afterAll(() => cleanupFixtures());

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
type Call = [string, Record<string, unknown>];

function replay(turns: Call[][]): ChatModel & { seen: ChatMessage[][] } {
  let i = 0;
  const seen: ChatMessage[][] = [];
  return {
    model: 'replay',
    seen,
    async complete(messages: ChatMessage[]): Promise<ModelReply> {
      seen.push(structuredClone(messages));
      const calls = turns[i++] ?? [];
      const toolCalls: ToolCall[] = calls.map(([name, args], k) => ({ id: `c${i}_${k}`, name, arguments: JSON.stringify(args) }));
      return { content: toolCalls.length ? null : 'done', toolCalls, finishReason: toolCalls.length ? 'tool_calls' : 'stop', usage: { promptTokens: 10, completionTokens: 5 } };
    },
  };
}

test('a run_tests in the reply whose edit introduced a type error is held back; sent again alone it runs', async () => {
  const sample = path.join(ROOT, 'demo', 'sample-repo');
  const world = await openLoopWorld(
    {
      ...Object.fromEntries(['package.json', 'src/cart.js', 'test/cart.test.js'].map((f) => [f, readFileSync(path.join(sample, f), 'utf8')])),
      'tsconfig.json': JSON.stringify({ compilerOptions: { allowJs: true, checkJs: true, noEmit: true, strict: true, target: 'es2022', module: 'nodenext', types: [] }, include: ['src'] }),
    },
    { fixture: { gitignore: ['node_modules'] }, prepare: (dir) => symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules')) },
  );
  const { repo, git, shell, env, events } = world;
  const diagnostics = createDiagnostics({ root: repo.dir, exec: (command, o) => shell.run(command, { cwd: repo.dir, env, ...o }) })!;
  const typo: Call = ['edit_file', { path: 'src/cart.js', old_string: 'sum + item.price, 0)', new_string: 'sum + item.price * item.qty, 0)' }];
  const model = replay([[typo, ['run_tests', {}]], [['run_tests', {}]]]);
  await runAgentLoop(
    { key: 'issue-1', title: 'cart total', goal: 'fix the cart total' },
    world.deps(
      model,
      { maxIterations: 1, maxTurns: 3 },
      { tools: new ToolBox({ root: git.root, listFiles: () => git.listFiles(), protectedPaths: [], beforeWrite: (rel) => diagnostics.beforeWrite(rel) }), diagnostics },
    ),
  );
  await diagnostics.dispose();
  const second = model.seen[1];
  const [edit, held] = second.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
  expect(edit).toMatch(/^Edited src\/cart\.js at line 7/);
  expect(edit).toMatch(/Your edits introduced 1 new error \(type check \(tsc\);[^]*src\/cart\.js:7:\d+ TS2339 Property 'qty' does not exist/);
  expect(held).toBe('The tests were not run: the edits of this reply introduced new type or lint errors, listed in the result of the last edit above. Fix them, or call run_tests again if they are intended.');
  // the run_tests of the first reply ran nothing; the one sent alone ran once, without a check (no edit since)
  expect(events.filter((e) => e.type === 'test-run')).toHaveLength(1);
  expect(events.filter((e) => e.type === 'diagnostics')).toHaveLength(1);
  expect(lastToolText(model.seen[2])).toMatch(/fail/i);
}, 120_000);

function lastToolText(m: ChatMessage[] | undefined): string {
  return [...(m ?? [])].reverse().find((x) => x.role === 'tool')?.content ?? '';
}
