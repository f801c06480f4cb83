import { allowedCategories, checkTestIntegrity, parseUnifiedDiff, renderRefusal, taskAsksFor, type IntegrityCategory } from '../../src/guard/test-integrity.js';

/** A minimal `git diff` section for one file. */
function diff(file: string, removed: string[], added: string[], opts: { status?: 'added' | 'deleted' | 'renamed'; to?: string } = {}): string {
  const head = [`diff --git a/${file} b/${opts.to ?? file}`];
  if (opts.status === 'added') head.push('new file mode 100644', '--- /dev/null', `+++ b/${file}`);
  else if (opts.status === 'deleted') head.push('deleted file mode 100644', `--- a/${file}`, '+++ /dev/null');
  else if (opts.status === 'renamed') head.push('similarity index 90%', `rename from ${file}`, `rename to ${opts.to}`, `--- a/${file}`, `+++ b/${opts.to}`);
  else head.push('index 1111111..2222222 100644', `--- a/${file}`, `+++ b/${file}`);
  if (removed.length || added.length) head.push(`@@ -1,${removed.length} +1,${added.length} @@`, ...removed.map((l) => `-${l}`), ...added.map((l) => `+${l}`));
  return head.join('\n');
}

const cats = (d: string, allowed: IntegrityCategory[] = []) => checkTestIntegrity(d, allowed).map((f) => f.category);

describe('test-integrity guard: cheating patterns are refused', () => {
  test.each<[string, string, IntegrityCategory]>([
    ['deleting a test file', diff('test/cart.test.js', ["test('adds', () => {", '  expect(add(1, 2)).toBe(3);', '});'], [], { status: 'deleted' }), 'delete-test'],
    ['renaming a test file out of the runner', diff('test/cart.test.js', [], [], { status: 'renamed', to: 'test/cart.js.bak' }), 'delete-test'],
    ['deleting a pytest module', diff('tests/test_cart.py', ['def test_adds():', '    assert add(1, 2) == 3'], [], { status: 'deleted' }), 'delete-test'],
    ['removing a test case', diff('test/cart.test.js', ["  it('adds tax', () => {", '    expect(total(10)).toBe(11);', '  });'], []), 'remove-test'],
    ['removing a go test', diff('calc/calc_test.go', ['func TestSub(t *testing.T) {', '\tif Sub(3, 1) != 2 { t.Fatal("bad") }', '}'], []), 'remove-test'],
    ['adding .skip', diff('test/cart.test.js', ["  it('adds tax', () => {"], ["  it.skip('adds tax', () => {"]), 'skip'],
    ['adding .only', diff('test/cart.test.js', ["  test('adds tax', () => {"], ["  test.only('adds tax', () => {"]), 'skip'],
    ['xit', diff('test/cart.spec.js', ["  it('adds tax', () => {"], ["  xit('adds tax', () => {"]), 'skip'],
    ['describe.skip', diff('test/cart.test.ts', ["describe('cart', () => {"], ["describe.skip('cart', () => {"]), 'skip'],
    ['@pytest.mark.skip', diff('tests/test_cart.py', ['def test_tax():'], ['@pytest.mark.skip(reason="flaky")', 'def test_tax():']), 'skip'],
    ['xfail', diff('tests/test_cart.py', ['def test_tax():'], ['@pytest.mark.xfail', 'def test_tax():']), 'skip'],
    ['t.Skip in go', diff('calc/calc_test.go', ['func TestSub(t *testing.T) {'], ['func TestSub(t *testing.T) {', '\tt.Skip("later")']), 'skip'],
    ['node:test skip option', diff('test/cart.test.mjs', ["test('tax', () => {"], ["test('tax', { skip: true }, () => {"]), 'skip'],
    ['removing an assertion', diff('test/cart.test.js', ['    expect(total(10)).toBe(11);', '    expect(total(0)).toBe(0);'], ['    expect(total(0)).toBe(0);']), 'assertion'],
    ['weakening an assertion', diff('test/cart.test.js', ['    expect(total(10)).toBe(11);'], ['    expect(total(10)).toBeDefined();']), 'assertion'],
    ['weakening a python assertion', diff('tests/test_cart.py', ['    assert total(10) == 11'], ['    assert total(10)']), 'assertion'],
    ['commenting out an assertion', diff('test/cart.test.js', ['    expect(total(10)).toBe(11);'], ['    // expect(total(10)).toBe(11);']), 'assertion'],
    ['updating a snapshot file', diff('test/__snapshots__/cart.test.js.snap', ['exports[`cart 1`] = `11`;'], ['exports[`cart 1`] = `10`;']), 'snapshot'],
    ['raising a jest timeout', diff('test/cart.test.js', ['jest.setTimeout(5000);'], ['jest.setTimeout(60000);']), 'timeout'],
    ['raising testTimeout in the config', diff('jest.config.js', ['  testTimeout: 5000,'], ['  testTimeout: 120000,']), 'timeout'],
    ['adding a mocha timeout', diff('test/cart.test.js', ["  it('slow', async () => {"], ["  it('slow', async function () {", '    this.timeout(60000);']), 'timeout'],
    ['excluding tests in jest config', diff('jest.config.js', ['  testEnvironment: "node",'], ['  testEnvironment: "node",', '  testPathIgnorePatterns: ["/test/cart"],']), 'config'],
    ['excluding tests in vitest config', diff('vitest.config.ts', ['  test: {'], ['  test: {', "    exclude: ['test/cart.test.ts'],"]), 'config'],
    ['deselecting in pytest.ini', diff('pytest.ini', ['[pytest]'], ['[pytest]', 'addopts = --deselect tests/test_cart.py::test_tax']), 'config'],
    ['changing the test script', diff('package.json', ['    "test": "jest",'], ['    "test": "jest test/other",']), 'config'],
  ])('%s', (_name, d, category) => {
    expect(cats(d)).toContain(category);
  });

  test('the refusal names the reason and the line', () => {
    const findings = checkTestIntegrity(diff('test/cart.test.js', ["  it('adds tax', () => {"], ["  it.skip('adds tax', () => {"]));
    const msg = renderRefusal(findings);
    expect(msg).toContain('REFUSED by the test-integrity guard');
    expect(msg).toContain("[skip] adds a skip/only/xfail marker in test/cart.test.js: `it.skip('adds tax', () => {`");
    expect(msg).toContain('Adding new tests');
  });
});

describe('test-integrity guard: legitimate changes pass', () => {
  test.each<[string, string]>([
    ['fixing the source', diff('src/cart.js', ['  return price;'], ['  return price * 1.1;'])],
    ['adding a new test file', diff('test/tax.test.js', [], ["test('adds tax', () => {", '  expect(total(10)).toBe(11);', '});'], { status: 'added' })],
    ['adding a test case to an existing file', diff('test/cart.test.js', ['});'], ["  it('rounds', () => {", '    expect(total(0.1)).toBe(0.11);', '  });', '});'])],
    ['adding a pytest test', diff('tests/test_cart.py', [], ['def test_rounding():', '    assert total(0.1) == 0.11'])],
    ['strengthening an assertion', diff('test/cart.test.js', ['    expect(total(10)).toBeDefined();'], ['    expect(total(10)).toBe(11);'])],
    ['fixing a wrong expected value', diff('test/cart.test.js', ['    expect(total(10)).toBe(12);'], ['    expect(total(10)).toBe(11);'])],
    ['lowering a timeout', diff('jest.config.js', ['  testTimeout: 120000,'], ['  testTimeout: 5000,'])],
    ['adding a dependency to package.json', diff('package.json', ['    "picomatch": "^4.0.0"'], ['    "picomatch": "^4.0.0",', '    "decimal.js": "^10.0.0"'])],
    ['an assertion moved within a test file', diff('test/cart.test.js', ['    expect(a).toBe(1);', '    expect(b).toBe(2);'], ['    expect(b).toBe(2);', '    expect(a).toBe(1);'])],
    ['a source file mentioning skip', diff('src/list.js', ['  return items;'], ['  return items.filter((i) => !i.skip);'])],
  ])('%s', (_name, d) => {
    expect(checkTestIntegrity(d)).toEqual([]);
  });

  test('renaming a test case is reported (the old name disappears) so a human sees it', () => {
    expect(cats(diff('test/cart.test.js', ["  it('adds tax', () => {"], ["  it('adds the sales tax', () => {"]))).toEqual(['remove-test']);
  });
});

describe('opting in: the policy allows it and the issue asks for it', () => {
  const snap = diff('test/__snapshots__/cart.test.js.snap', ['a'], ['b']);
  test('both needed', () => {
    expect(allowedCategories(['snapshot'], 'Update the snapshots after the new header format')).toEqual(['snapshot']);
    expect(allowedCategories(['snapshot'], 'The header is wrong')).toEqual([]);
    expect(allowedCategories([], 'Update the snapshots')).toEqual([]);
    expect(cats(snap, allowedCategories(['snapshot'], 'Please update the snapshot'))).toEqual([]);
    expect(cats(snap, allowedCategories(['skip'], 'Please update the snapshot'))).toEqual(['snapshot']);
  });
  test('the task wording per category', () => {
    expect(taskAsksFor('skip', 'Skip the network tests on CI')).toBe(true);
    expect(taskAsksFor('delete-test', 'Remove the obsolete tests for the v1 API')).toBe(true);
    expect(taskAsksFor('timeout', 'The export test needs a longer timeout')).toBe(true);
    expect(taskAsksFor('delete-test', 'The total is wrong')).toBe(false);
  });
});

test('parseUnifiedDiff: statuses and paths', () => {
  const files = parseUnifiedDiff([diff('a.js', ['x'], ['y']), diff('t/a.test.js', [], [], { status: 'renamed', to: 't/b.test.js' }), diff('n.js', [], ['z'], { status: 'added' })].join('\n'));
  expect(files.map((f) => [f.status, f.oldPath, f.path])).toEqual([
    ['modified', 'a.js', 'a.js'],
    ['renamed', 't/a.test.js', 't/b.test.js'],
    ['added', 'n.js', 'n.js'],
  ]);
});
