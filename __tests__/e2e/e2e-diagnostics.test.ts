/**
 * The CLI bundle under node 24 on a repository with a tsconfig.json and typescript installed:
 * the model's first edit introduces a type error; it is held back from the test run, the model
 * sees the error in the edit's result and fixes it, and only then are the tests run.
 */
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModel } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { makeRepo, cleanupFixtures } from '../../test-support/git-fixture.js';
import { ROOT, runCli } from '../../test-support/run-action.js';

afterAll(() => cleanupFixtures());

test('a type error the first edit introduces is fed back before any test run, and the model fixes it', async () => {
  const sample = path.join(ROOT, 'demo', 'sample-repo');
  const cart = readFileSync(path.join(sample, 'src/cart.js'), 'utf8');
  const repo = makeRepo(
    {
      'package.json': readFileSync(path.join(sample, 'package.json'), 'utf8'),
      // a pre-existing type error that must never be reported as the edit's
      'src/cart.js': `${cart}\n/** @type {number} */\nexport const CURRENCY = 'USD';\n`,
      'test/cart.test.js': readFileSync(path.join(sample, 'test/cart.test.js'), 'utf8'),
      'tsconfig.json': JSON.stringify({ compilerOptions: { allowJs: true, checkJs: true, noEmit: true, strict: true, target: 'es2022', module: 'nodenext', types: [] }, include: ['src'] }),
    },
    { gitignore: ['node_modules'] },
  );
  // typescript from this repository's own node_modules, as an installed devDependency would be
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(repo.dir, 'node_modules'));
  const model = await startScriptedModel(
    parseScript({
      label: 'type error first',
      steps: [
        {
          toolCalls: [
            { name: 'edit_file', arguments: { path: 'src/cart.js', old_string: '(sum, item) => sum + item.price, 0)', new_string: '(sum, item) => sum + item.price * item.qty, 0)' } },
            { name: 'edit_file', arguments: { path: 'src/cart.js', old_string: 'const discount = subtotal * discountPercent;', new_string: 'const discount = (subtotal * discountPercent) / 100;' } },
            { name: 'finish', arguments: { summary: 'too early' } },
          ],
        },
        {
          expect: { lastMessageIncludes: 'introduced new type or lint errors' },
          toolCalls: [{ name: 'edit_file', arguments: { path: 'src/cart.js', old_string: 'item.price * item.qty', new_string: 'item.price * item.quantity' } }],
        },
        { expect: { lastMessageIncludes: 'are gone' }, toolCalls: [{ name: 'finish', arguments: { summary: 'Multiply by quantity; the discount is a percentage.' } }] },
      ],
    }),
  );
  try {
    const r = await runCli(['fix', 'The cart total is wrong', '--repo', repo.dir, '--test-command', 'npm test', '--base-url', model.url, '--model', 'scripted', '--json'], {
      OPENAI_API_KEY: 'sk-local-test-key-123456',
    });
    expect(r.stderr).toBe('');
    expect(model.mismatches).toEqual([]);
    const report = JSON.parse(r.stdout) as { status: string; iterations: number; diagnostics: Record<string, unknown>; transcriptPath: string };
    expect(report.status).toBe('fixed');
    expect(report.iterations).toBe(1); // the held-back finish was no attempt
    expect(report.diagnostics).toMatchObject({ checkers: ['tsc'], fedBack: 1, off: [] });

    // what the model saw after its first reply: the new error, with its line, in the last edit's result
    const second = (model.requests[1] as { messages: { role: string; content: string }[] }).messages;
    const editResult = second.filter((m) => m.role === 'tool').at(-2)!.content;
    expect(editResult).toMatch(/Your edits introduced 1 new error \(type check \(tsc\);/);
    expect(editResult).toMatch(/src\/cart\.js:7:\d+ TS2339 Property 'qty' does not exist on type/);
    expect(editResult).toContain('7| const subtotal = items.reduce((sum, item) => sum + item.price * item.qty, 0);');
    expect(editResult).not.toContain('CURRENCY');

    // the tests ran twice: the baseline, then the one verified attempt
    const transcript = JSON.parse(readFileSync(report.transcriptPath, 'utf8')) as { entries: { event: { type: string; purpose?: string; found?: number; shown?: number } }[] };
    const events = transcript.entries.map((e) => e.event);
    expect(events.filter((e) => e.type === 'test-run').map((e) => e.purpose)).toEqual(['verify', 'verify']);
    expect(events.filter((e) => e.type === 'diagnostics').map((e) => [e.found, e.shown])).toEqual([
      [1, 1],
      [0, 0],
    ]);
  } finally {
    await model.close();
  }
}, 180_000);
