import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { cleanLine, estimateTokens, extractFailure, isNoise, stripDuration, stripWorkspace } from '../../src/ci/log-extract.js';
import { sameTest } from '../../src/ci/fingerprint.js';
import { parseTestOutput } from '../../src/verify/runners/index.js';

const FIXTURES = path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'fixtures');
const REAL_LOG = readFileSync(path.join(FIXTURES, 'ci', 'node-test-failure.log'), 'utf8');
const stamp = (text: string) => text.split('\n').map((l, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.1234567Z ${l}`).join('\n');

describe('cleaning', () => {
  test('timestamps, ANSI escapes, carriage-return redraws and CRLF are removed', () => {
    expect(cleanLine('2026-11-21T09:14:02.4205210Z \x1b[31m✖ boom\x1b[0m\r')).toBe('✖ boom');
    expect(cleanLine('2026-11-21T09:14:02Z plain')).toBe('plain');
    expect(cleanLine('progress 10%\rprogress 100%')).toBe('progress 100%');
    expect(cleanLine('no timestamp here')).toBe('no timestamp here');
  });

  test('runner noise is recognised, failure lines are not', () => {
    for (const l of ['##[group]Run npm test', '##[endgroup]', '##[error]Process completed with exit code 1.', 'remote: Counting objects: 100% (9/9), done.', 'npm warn deprecated x', '[command]/usr/bin/git version', '']) {
      expect(isNoise(l)).toBe(true);
    }
    for (const l of ['✖ applies a discount', 'AssertionError: x', '##[error]src/a.ts(3,1): error TS2322: nope']) expect(isNoise(l)).toBe(false);
  });

  test('workspace prefixes become repository-relative paths', () => {
    expect(stripWorkspace('at f (file:///home/runner/work/shop/shop/src/a.js:1:2)')).toBe('at f (src/a.js:1:2)');
    expect(stripWorkspace('/home/runner/work/shop/shop/test/x.py:3: in f')).toBe('test/x.py:3: in f');
    expect(stripWorkspace('/Users/runner/work/a/a/b.go:1 and /home/runner/work/_temp/x')).toBe('b.go:1 and /home/runner/work/_temp/x');
    expect(stripDuration('applies a discount (0.95ms)')).toBe('applies a discount');
    expect(stripDuration('TestSub (0.00s)')).toBe('TestSub');
    expect(stripDuration('works 12ms')).toBe('works');
  });
});

describe('extractFailure on a real node:test failure inside the runner framing', () => {
  const x = extractFailure(REAL_LOG, { repoName: 'tiny-shop', isRepoFile: (p) => ['test/cart.test.js', 'src/cart.js', 'package.json'].includes(p) });

  test('names the failing test, the assertion, and the repository frame only', () => {
    expect(x.failingTests).toEqual(['applies a percentage discount']);
    expect(x.errors[0]).toContain('AssertionError [ERR_ASSERTION]: Expected values to be strictly equal');
    expect(x.frames).toEqual(['TestContext.<anonymous> (test/cart.test.js:14:10)']);
    expect(x.text).toContain('-18000 !== 1800');
    expect(x.text).not.toMatch(/node:internal|node:async_hooks/);
  });

  test('drops timestamps, groups, checkout and setup chatter', () => {
    expect(x.text).not.toMatch(/\d{4}-\d\d-\d\dT\d\d:/);
    expect(x.text).not.toMatch(/##\[|safe\.directory|Counting objects|setup-node|Process completed/);
    expect(x.stats.noiseLines).toBeGreaterThan(40);
    expect(x.tokens).toBeLessThan(600);
  });
});

describe('failing test names across runners', () => {
  // Every failing test the verify parsers find in their fixtures, the log extractor finds too
  // (go packages without a test, e.g. build failures, are listed as failing files instead).
  const dir = path.join(FIXTURES, 'verify');
  const files = readdirSync(dir).filter((f) => f.endsWith('.txt'));
  test.each(files)('%s', (file) => {
    const text = readFileSync(path.join(dir, file), 'utf8');
    const want = parseTestOutput(text).tests.filter((t) => t.status === 'failed').map((t) => t.id);
    const x = extractFailure(stamp(text));
    const missing = want.filter((w) => !x.failingTests.some((g) => sameTest(g, w)) && !x.failingFiles.some((f) => w.startsWith(f)));
    expect(missing).toEqual([]);
  });
});

describe('compiler errors and other shapes', () => {
  test('tsc, gcc-style and rustc errors are kept with their location', () => {
    const log = stamp(
      [
        '> tsc --noEmit',
        "src/cart.ts(7,9): error TS2322: Type 'string' is not assignable to type 'number'.",
        'main.c:3:5: error: expected ‘;’ before ‘}’ token',
        'error[E0308]: mismatched types',
        '  --> src/main.rs:4:18',
      ].join('\n'),
    );
    const x = extractFailure(log);
    expect(x.failingTests).toEqual([]);
    expect(x.errors).toEqual([
      "src/cart.ts(7,9): error TS2322: Type 'string' is not assignable to type 'number'.",
      'main.c:3:5: error: expected ‘;’ before ‘}’ token',
      'error[E0308]: mismatched types',
    ]);
    expect(x.text).toContain('src/main.rs:4:18');
  });

  test('pytest, go, cargo and rspec failure lines', () => {
    const x = extractFailure(
      stamp(
        [
          'FAILED tests/test_cart.py::test_discount[10-1800] - assert -18000 == 1800',
          '--- FAIL: TestDiscount (0.00s)',
          'test cart::tests::discount ... FAILED',
          'rspec ./spec/cart_spec.rb:12 # Cart applies a discount',
          'not ok 7 - todo thing # TODO later',
        ].join('\n'),
      ),
    );
    expect(x.failingTests).toEqual(['tests/test_cart.py::test_discount[10-1800]', 'TestDiscount', 'cart::tests::discount', 'Cart applies a discount']);
  });
});

describe('the size budget', () => {
  const noise = Array.from({ length: 2000 }, (_, i) => `[info] processing chunk ${i} of the build`).join('\n');
  const failures = Array.from({ length: 60 }, (_, i) =>
    [`✖ case number ${i} computes the right total (1.2ms)`, `  AssertionError [ERR_ASSERTION]: expected ${i} got ${i + 1} in module m${i}`, `      at check (file:///home/runner/work/r/r/src/m${i}.js:${i + 1}:3)`, `      at node:internal/x:1:1`].join('\n'),
  ).join('\n');
  const compile = Array.from({ length: 500 }, (_, i) => `src/f${i}.ts(1,1): error TS2${String(i).padStart(3, '0')}: problem ${'x'.repeat(i % 50)} number ${i}`).join('\n');
  const log = stamp(`${noise}\n${failures}\n${compile}\n${noise}`);

  test.each([4000, 1500])('stays under %i tokens and keeps every failing test name', (budget) => {
    const x = extractFailure(log, { budgetTokens: budget });
    expect(x.failingTests).toHaveLength(60);
    expect(x.tokens).toBeLessThanOrEqual(budget);
    expect(estimateTokens(x.text)).toBe(x.tokens);
    for (let i = 0; i < 60; i++) expect(x.text).toContain(`case number ${i} computes the right total`);
    expect(x.text).toMatch(/more excerpt\(s\) left out/);
  });

  test('one enormous line is cut, not scanned by patterns', () => {
    const x = extractFailure(`${'a'.repeat(5_000_000)}Error: at the end\n✖ real failure\n`);
    expect(x.failingTests).toEqual(['real failure']);
    expect(x.text.length).toBeLessThan(13_000);
  });
});

describe('annotations', () => {
  test('problem-matcher ##[error] lines are classified by their content', () => {
    const x = extractFailure(stamp(['##[error]src/a.ts(3,1): error TS2322: Type x is not assignable', '##[error]Something broke badly', '##[error]Process completed with exit code 2.'].join('\n')));
    expect(x.errors).toEqual(['src/a.ts(3,1): error TS2322: Type x is not assignable', 'Something broke badly']);
  });
});

test('eslint errors are kept with the file line above them', () => {
  const x = extractFailure(stamp(['/home/runner/work/shop/shop/src/cart.js', "  3:7  error  'unused' is assigned a value but never used  no-unused-vars", '', '✖ 1 problem (1 error, 0 warnings)'].join('\n')), { repoName: 'shop' });
  expect(x.errors).toEqual(["3:7  error  'unused' is assigned a value but never used  no-unused-vars"]);
  expect(x.text).toContain('src/cart.js\n');
  expect(x.failingTests).toEqual([]);
});

test('gradle, maven surefire, dotnet and phpunit failure lines', () => {
  const x = extractFailure(
    stamp(
      [
        'CartTest > applies a discount() FAILED',
        '[ERROR] discount(com.shop.CartTest)  Time elapsed: 0.012 s  <<< FAILURE!',
        '  Failed CartTests.Discount [12 ms]',
        '1) CartTest::testDiscount',
        'Failed asserting that -18000 matches expected 1800.',
      ].join('\n'),
    ),
  );
  expect(x.failingTests).toEqual(['CartTest > applies a discount()', 'discount(com.shop.CartTest)', 'CartTests.Discount', 'CartTest::testDiscount']);
});
