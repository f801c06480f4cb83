/**
 * The CLI bundle under node 24 on a Python project with a pyrightconfig.json and pyright installed
 * from npm (node_modules/pyright, linked to .cache/pyright that .ci/run installs; skipped with a
 * message without it), tests by pytest: the model's first edit introduces a type error; it is held
 * back from the test run, the model sees it (and not the pre-existing one) in the edit's result,
 * fixes it, and only then are the tests run.
 */
import { existsSync, mkdirSync, symlinkSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { startScriptedModel } from '../../src/scripted/server.js';
import { parseScript } from '../../src/scripted/script.js';
import { makeRepo, cleanupFixtures } from '../../test-support/git-fixture.js';
import { ROOT, runCli } from '../../test-support/run-action.js';

afterAll(() => cleanupFixtures());

const PYRIGHT = path.join(ROOT, '.cache', 'pyright', 'node_modules', 'pyright');
const why = !existsSync(path.join(PYRIGHT, 'index.js'))
  ? 'pyright is not installed in .cache/pyright (.ci/run installs it from the npm registry)'
  : spawnSync('python3', ['-m', 'pytest', '--version']).status !== 0
    ? 'pytest is not installed for python3'
    : '';
const maybe = why ? test.skip : test;
if (why) test(`skipped: ${why}`, () => expect(why).toMatch(/not installed/));

const CART = `def total(items: list[dict[str, float]], discount_percent: float = 0) -> float:
    subtotal = sum(item["price"] for item in items)
    discount = subtotal * discount_percent
    return subtotal - discount
`;

maybe('a pyright error the first edit introduces is fed back before any test run, and the model fixes it', async () => {
  const repo = makeRepo(
    {
      'pyrightconfig.json': JSON.stringify({ include: ['shop'], typeCheckingMode: 'basic' }),
      'pytest.ini': '[pytest]\ntestpaths = tests\n',
      'shop/__init__.py': '',
      // a pre-existing type error that must never be reported as the edit's
      'shop/currency.py': 'CURRENCY: int = "USD"\n',
      'shop/cart.py': CART,
      'tests/test_cart.py': 'from shop.cart import total\n\n\ndef test_total_with_quantity():\n    assert total([{"price": 2.0, "qty": 3}]) == 6.0\n\n\ndef test_discount_percent():\n    assert total([{"price": 100.0, "qty": 1}], 10) == 90.0\n',
    },
    { gitignore: ['node_modules', '__pycache__', '.pytest_cache'] },
  );
  mkdirSync(path.join(repo.dir, 'node_modules'));
  symlinkSync(PYRIGHT, path.join(repo.dir, 'node_modules', 'pyright'), 'dir');
  const model = await startScriptedModel(
    parseScript({
      label: 'type error first',
      steps: [
        {
          toolCalls: [
            { name: 'edit_file', arguments: { path: 'shop/cart.py', old_string: 'subtotal = sum(item["price"] for item in items)', new_string: 'subtotal: str = sum(item["price"] * item["qty"] for item in items)' } },
            { name: 'edit_file', arguments: { path: 'shop/cart.py', old_string: 'discount = subtotal * discount_percent', new_string: 'discount = subtotal * discount_percent / 100' } },
            { name: 'finish', arguments: { summary: 'too early' } },
          ],
        },
        {
          expect: { lastMessageIncludes: 'introduced new type or lint errors' },
          toolCalls: [{ name: 'edit_file', arguments: { path: 'shop/cart.py', old_string: 'subtotal: str = ', new_string: 'subtotal = ' } }],
        },
        { expect: { lastMessageIncludes: 'are gone' }, toolCalls: [{ name: 'finish', arguments: { summary: 'Multiply by quantity; the discount is a percentage.' } }] },
      ],
    }),
  );
  try {
    const r = await runCli(['fix', 'The cart total is wrong', '--repo', repo.dir, '--test-command', 'python3 -m pytest', '--base-url', model.url, '--model', 'scripted', '--json'], {
      OPENAI_API_KEY: 'sk-local-test-key-123456',
    });
    expect(r.stderr).toBe('');
    expect(model.mismatches).toEqual([]);
    const report = JSON.parse(r.stdout) as { status: string; iterations: number; diagnostics: Record<string, unknown> };
    expect(report.status).toBe('fixed');
    expect(report.iterations).toBe(1);
    expect(report.diagnostics).toMatchObject({ checkers: ['pyright'], off: [] });

    const second = (model.requests[1] as { messages: { role: string; content: string }[] }).messages;
    const editResult = second.filter((m) => m.role === 'tool').at(-2)!.content;
    // the annotation, and the operator on it in the next line
    expect(editResult).toMatch(/Your edits introduced 2 new errors \(type check \(pyright\);/);
    expect(editResult).toMatch(/shop\/cart\.py:2:\d+ reportAssignmentType Type "float \| Literal\[0\]" is not assignable to declared type "str"/);
    expect(editResult).toMatch(/shop\/cart\.py:3:\d+ reportOperatorIssue Operator "\*" not supported for types "str" and "float"/);
    expect(editResult).toContain('2| subtotal: str = sum(item["price"] * item["qty"] for item in items)');
    expect(editResult).not.toContain('CURRENCY');
    expect(editResult).not.toContain('currency.py');
  } finally {
    await model.close();
  }
}, 240_000);
