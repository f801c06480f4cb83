/** The CLI bundle under node 24: the first request the model receives carries the right file's code, within the budget. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModel } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { countTokens } from '../../src/context/tokens.js';
import { makeRepo, cleanupFixtures } from '../../test-support/git-fixture.js';
import { ROOT, runCli } from '../../test-support/run-action.js';

afterAll(() => cleanupFixtures());

const cli = (args: string[], env: Record<string, string>) => runCli(args, env);

const filler = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `export function ${prefix}${i}(input) {\n  return String(input).padStart(${i + 3}, '0');\n}\n`).join('\n');

test('the first request shows the failing code with line numbers and the failing test, and fits the context budget', async () => {
  const sample = path.join(ROOT, 'demo', 'sample-repo');
  const repo = makeRepo({
    'package.json': readFileSync(path.join(sample, 'package.json'), 'utf8'),
    'src/cart.js': readFileSync(path.join(sample, 'src/cart.js'), 'utf8'),
    'test/cart.test.js': readFileSync(path.join(sample, 'test/cart.test.js'), 'utf8'),
    // noise the map must rank below the cart
    'src/labels.js': filler('label', 40),
    'src/inventory.js': filler('stock', 40),
  });
  // the model gives up at once: only its first request matters here
  const model = await startScriptedModel(parseScript({ label: 'first request', steps: [{ content: 'no idea' }, { content: 'no' }, { content: 'no' }, { content: 'no' }] }));
  try {
    const r = await cli(['fix', 'The cart total is wrong', '--repo', repo.dir, '--test-command', 'npm test', '--base-url', model.url, '--model', 'scripted', '--context-tokens', '3000', '--json'], {
      OPENAI_API_KEY: 'sk-local-test-key-123456',
    });
    expect(r.stderr).toBe('');
    const first = model.requests[0] as { messages: { role: string; content: string }[]; tools: unknown[] };
    const user = first.messages[1].content;
    expect(user).toMatch(/## src\/cart\.js \(all \d+ lines\): whole file/);
    expect(user).toMatch(/ 6\| export function cartTotal\(items, discountPercent = 0\) \{/);
    expect(user).toContain('# The failing tests');
    expect(user).toMatch(/## test\/cart\.test\.js/);
    expect(user.indexOf('src/cart.js')).toBeLessThan(user.indexOf('src/labels.js'));
    const total = countTokens(first.messages.map((m) => m.content).join('\n')) + countTokens(JSON.stringify(first.tools));
    expect(total).toBeLessThanOrEqual(3000);
    // 0 leaves the repository out
    const again = await startScriptedModel(parseScript({ label: 'no context', steps: [{ content: 'no' }, { content: 'no' }, { content: 'no' }, { content: 'no' }] }));
    try {
      await cli(['fix', 'The cart total is wrong', '--repo', repo.dir, '--test-command', 'npm test', '--base-url', again.url, '--context-tokens', '0', '--json'], { OPENAI_API_KEY: 'sk-local-test-key-123456' });
      expect((again.requests[0] as { messages: { content: string }[] }).messages[1].content).not.toContain('export function cartTotal');
    } finally {
      await again.close();
    }
  } finally {
    await model.close();
  }
});
