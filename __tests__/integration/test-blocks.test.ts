/**
 * The guard test by test (guard/test-blocks.ts, guard/diff-texts.ts): moved tests, existing
 * tests weakened, new tests that assert nothing. Each case is a real `git diff` of a temporary
 * repository, read the way the harness reads an attempt (the text after from the working tree,
 * the text before rebuilt from the diff).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { analyseTestChanges, testBlocks } from '../../src/guard/test-blocks.js';
import { changedTexts } from '../../src/guard/diff-texts.js';
import { checkTestIntegrity } from '../../src/guard/test-integrity.js';
import { isTestFile } from '../../src/lang/index.js';

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

/** The guard's findings and the analysis for the change `before` → `after` (path → text; null: absent). */
async function judge(before: Record<string, string>, after: Record<string, string | null>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'blocks-'));
  dirs.push(dir);
  const git = (...a: string[]) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', ...a], { cwd: dir, encoding: 'utf8' });
  const write = (files: Record<string, string | null>) => {
    for (const [f, text] of Object.entries(files)) {
      if (text === null) rmSync(path.join(dir, f), { force: true });
      else {
        mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
        writeFileSync(path.join(dir, f), text);
      }
    }
  };
  git('init', '-q');
  write(before);
  git('add', '-A');
  git('commit', '-qm', 'before');
  write(after);
  git('add', '-A');
  const diff = git('diff', '--cached', 'HEAD');
  const texts = await changedTexts(diff, (p, o) => isTestFile(p) || isTestFile(o), async (p) => {
    try {
      return readFileSync(path.join(dir, p), 'utf8');
    } catch {
      return null;
    }
  });
  // the text before, rebuilt from the diff, is the committed one
  for (const t of texts) if (t.before !== null) expect(t.before).toBe(before[t.oldPath]);
  expect(texts.filter((t) => t.unread)).toEqual([]);
  const tests = analyseTestChanges(texts);
  return { tests, findings: checkTestIntegrity(diff, [], tests) };
}

const refusing = <T extends { judgedBy?: string }>(f: T[]) => f.filter((x) => !x.judgedBy);

const TZ = `import dayjs from '../src'

it('UTC diff in DST', () => {
  expect(dayjs('2020-03-08').diff(dayjs('2020-03-11'), 'd')).toBe(-3)
})

it('TZ with Locale', () => {
  const test1 = dayjs('2000-01-01T09:00:00+09:00').tz('Asia/Seoul').locale('en')
  expect(test1.hour()).toBe(9)
  const test3 = dayjs('2000-01-01T09:00:00+09:00').tz('Etc/UTC').locale('en')
  expect(test3.hour()).toBe(0)
})
`;
const withoutLocale = TZ.slice(0, TZ.indexOf("\nit('TZ with Locale'"));
const PLUGIN = `import dayjs from '../../src'

describe('startOf', () => {
  it('week', () => {
    expect(dayjs('2023-02-17').startOf('week').format('YYYY-MM-DD')).toEqual('2023-02-12')
  })
})
`;

describe('a test that moves is not a removed test', () => {
  test('moved into another file, into a describe and renamed (dayjs b575c81a): a move the runner decides, no assertion counted as removed', async () => {
    const moved = `${PLUGIN}
describe('UTC timezone', () => {
  it('TZ with UTC with Locale', () => {
    const test1 = dayjs('2000-01-01T09:00:00+09:00').tz('Asia/Seoul').locale('en')
    expect(test1.hour()).toBe(9)
    const test3 = dayjs('2000-01-01T09:00:00+09:00').tz('Etc/UTC').locale('en')
    expect(test3.hour()).toBe(0)
  })
})
`;
    const { tests, findings } = await judge({ 'test/timezone.test.js': TZ, 'test/plugin/timezone.test.js': PLUGIN }, { 'test/timezone.test.js': withoutLocale, 'test/plugin/timezone.test.js': moved });
    expect(tests.moved).toMatchObject([{ from: 'test/timezone.test.js', was: ['TZ with Locale'], to: 'test/plugin/timezone.test.js', now: ['UTC timezone', 'TZ with UTC with Locale'] }]);
    expect(refusing(findings)).toEqual([]);
    expect(findings).toMatchObject([{ category: 'remove-test', judgedBy: 'moved-test', movedTo: { file: 'test/plugin/timezone.test.js', test: ['UTC timezone', 'TZ with UTC with Locale'] } }]);
    // control: the same removal without the move is refused as it was
    const gone = await judge({ 'test/timezone.test.js': TZ }, { 'test/timezone.test.js': withoutLocale });
    expect(refusing(gone.findings).map((f) => f.category).sort()).toEqual(['assertion', 'remove-test']);
  });

  test('moved to a new file, same name, one more assertion: a move', async () => {
    const fresh = `import dayjs from '../src'

it('TZ with Locale', () => {
  const test1 = dayjs('2000-01-01T09:00:00+09:00').tz('Asia/Seoul').locale('en')
  expect(test1.hour()).toBe(9)
  const test3 = dayjs('2000-01-01T09:00:00+09:00').tz('Etc/UTC').locale('en')
  expect(test3.hour()).toBe(0)
  expect(test3.minute()).toBe(0)
})
`;
    const { findings } = await judge({ 'test/timezone.test.js': TZ }, { 'test/timezone.test.js': withoutLocale, 'test/locale-tz.test.js': fresh });
    expect(refusing(findings)).toEqual([]);
    expect(findings).toMatchObject([{ judgedBy: 'moved-test', movedTo: { file: 'test/locale-tz.test.js', test: ['TZ with Locale'] } }]);
  });

  test('moved with an assertion loosened: not a move, refused', async () => {
    const loose = `${PLUGIN}
it('TZ with Locale', () => {
  const test1 = dayjs('2000-01-01T09:00:00+09:00').tz('Asia/Seoul').locale('en')
  expect(test1.hour()).toBeDefined()
  const test3 = dayjs('2000-01-01T09:00:00+09:00').tz('Etc/UTC').locale('en')
  expect(test3.hour()).toBe(0)
})
`;
    const { tests, findings } = await judge({ 'test/timezone.test.js': TZ, 'test/plugin/timezone.test.js': PLUGIN }, { 'test/timezone.test.js': withoutLocale, 'test/plugin/timezone.test.js': loose });
    expect(tests.moved).toEqual([]);
    expect(refusing(findings).map((f) => f.category)).toContain('remove-test');
  });

  test('deleted, and a different test added elsewhere: refused', async () => {
    const other = `${PLUGIN}
it('TZ with Locale', () => {
  expect(dayjs('2000-01-01').year()).toBe(2000)
})
`;
    const { tests, findings } = await judge({ 'test/timezone.test.js': TZ, 'test/plugin/timezone.test.js': PLUGIN }, { 'test/timezone.test.js': withoutLocale, 'test/plugin/timezone.test.js': other });
    expect(tests.moved).toEqual([]);
    expect(refusing(findings)).toEqual(expect.arrayContaining([expect.objectContaining({ category: 'remove-test', reason: 'removes the test case "TZ with Locale" from test/timezone.test.js' })]));
  });
});

const TAPE = `var test = require('tape');
var qs = require('../');

test('stringify()', function (t) {
    t.test('stringifies a querystring object', function (st) {
        st.equal(qs.stringify({ a: 'b' }), 'a=b');
        st.equal(qs.stringify({ a: 1 }), 'a=1');
        st.end();
    });

    t.test('stringifies falsy values', function (st) {
        st.equal(qs.stringify(undefined), '');
        st.end();
    });
    t.end();
});
`;
const REAL_NEW = `
    t.test('non-circular duplicated references can still work', function (st) {
        var hourOfDay = { 'function': 'hour_of_day' };
        st.equal(qs.stringify({ a: [hourOfDay, hourOfDay] }, { encodeValuesOnly: true }), 'a[0][function]=hour_of_day&a[1][function]=hour_of_day');
        st.end();
    });
    t.end();
});
`;
const withNew = (text: string, added: string) => text.replace(/\n {4}t\.end\(\);\n\}\);\n$/, `\n${added}`);

describe('an existing test weakened is refused; a new test that asserts nothing is named', () => {
  test('tape: the real new test kept, existing assertions made vacuous (qs e77ca2c, the bench replay): refused', async () => {
    const weakened = withNew(TAPE, REAL_NEW).replace(/st\.equal\(/g, 'st.ok(1 || ').replace("st.ok(1 || qs.stringify({ a: [hourOfDay", "st.equal(qs.stringify({ a: [hourOfDay");
    const { findings } = await judge({ 'test/stringify.js': TAPE }, { 'test/stringify.js': weakened });
    expect(refusing(findings).map((f) => f.reason)).toEqual(
      expect.arrayContaining([expect.stringMatching(/^makes an assertion of the existing test "stringify\(\) > stringifies a querystring object" assert nothing/), expect.stringMatching(/"stringify\(\) > stringifies falsy values"/)]),
    );
    // positive control: the real new test alone is accepted by the guard
    const real = await judge({ 'test/stringify.js': TAPE }, { 'test/stringify.js': withNew(TAPE, REAL_NEW) });
    expect(real.findings).toEqual([]);
    expect(real.tests.vacuous).toEqual([]);
  });

  test('tape: a skipped assertion (`{ skip: true }`) removed while another becomes the real one (qs 5dbeeb4) is no assertion removed', async () => {
    const before = TAPE.replace("        st.equal(qs.stringify({ a: 1 }), 'a=1');\n", "        st.equal(qs.stringify({ a: 1 }), 'a%3D1');\n        st.equal(qs.stringify({ a: 1 }), 'a=1', '(pending)', { skip: true });\n");
    expect((await judge({ 'test/stringify.js': before }, { 'test/stringify.js': TAPE })).findings).toEqual([]);
    // control: the real assertion removed, the skipped one kept, is one assertion fewer
    const fewer = before.replace("        st.equal(qs.stringify({ a: 1 }), 'a%3D1');\n", '');
    expect(refusing((await judge({ 'test/stringify.js': before }, { 'test/stringify.js': fewer })).findings).map((f) => f.reason)).toEqual([expect.stringMatching(/removes 1 assertion\(s\) from the existing test "stringify\(\) > stringifies a querystring object"/)]);
  });

  test('tape: a vacuous new test next to a real one is not refused by the guard, and is named', async () => {
    const vacuousNew = REAL_NEW.replace("t.end();\n});", `t.test('also works', function (st) {
        st.ok(1 || qs.stringify({ a: 1 }), 'a=1');
        st.end();
    });
    t.end();
});`);
    const { tests, findings } = await judge({ 'test/stringify.js': TAPE }, { 'test/stringify.js': withNew(TAPE, vacuousNew) });
    expect(findings).toEqual([]);
    expect(tests.vacuous).toEqual([{ file: 'test/stringify.js', test: ['stringify()', 'also works'], why: 'its assertions assert nothing (a constant or the same value on both sides)' }]);
  });

  test('jest: a try/catch that swallows, assertions moved from one test to another, a tautology: each refused; a changed value is not', async () => {
    const before = `it('adds', () => {
  expect(add(1, 2)).toBe(3)
  expect(add(2, 2)).toBe(4)
})

it('subtracts', () => {
  expect(sub(3, 1)).toBe(2)
})
`;
    const swallowed = before.replace("  expect(add(1, 2)).toBe(3)\n  expect(add(2, 2)).toBe(4)", '  try {\n    expect(add(1, 2)).toBe(3)\n    expect(add(2, 2)).toBe(4)\n  } catch (e) {}');
    expect(refusing((await judge({ 'a.test.js': before }, { 'a.test.js': swallowed })).findings).map((f) => f.reason)).toEqual([expect.stringMatching(/wraps code of the existing test "adds" in a try\/catch/)]);
    const shifted = before.replace('  expect(add(2, 2)).toBe(4)\n', '').replace("  expect(sub(3, 1)).toBe(2)", "  expect(sub(3, 1)).toBe(2)\n  expect(sub(1, 1)).toBe(0)");
    expect(refusing((await judge({ 'a.test.js': before }, { 'a.test.js': shifted })).findings).map((f) => f.reason)).toEqual([expect.stringMatching(/removes 1 assertion\(s\) from the existing test "adds"/)]);
    const tautology = before.replace('expect(sub(3, 1)).toBe(2)', 'expect(true).toBe(true)');
    expect(refusing((await judge({ 'a.test.js': before }, { 'a.test.js': tautology })).findings).map((f) => f.reason)).toEqual([expect.stringMatching(/existing test "subtracts" assert nothing/)]);
    // a new test whose assertions a try/catch swallows asserts nothing
    const swallowingNew = `${before}\nit('new', () => {\n  try {\n    expect(add(0, 0)).toBe(0)\n  } catch (swallowed) {}\n})\n`;
    expect((await judge({ 'a.test.js': before }, { 'a.test.js': swallowingNew })).tests.vacuous).toEqual([{ file: 'a.test.js', test: ['new'], why: 'a try/catch in it swallows the failure of its assertions' }]);
    // a changed expectation (another concrete value, same matcher) is left to the tests (verify/expectation.ts)
    expect((await judge({ 'a.test.js': before }, { 'a.test.js': before.replace('toBe(2)', 'toBe(3)') })).findings).toEqual([]);
  });

  test('node:test: the issue example, an exact assertion made loose (`assert.ok(x !== undefined)`), is refused', async () => {
    const before = "test('keeps a value inside the range', () => {\n  assert.equal(clamp(5, 0, 10), 5);\n});\n";
    const loose = before.replace('assert.equal(clamp(5, 0, 10), 5)', 'assert.ok(clamp(5, 0, 10) !== undefined)');
    expect(refusing((await judge({ 'test/clamp.test.js': before }, { 'test/clamp.test.js': loose })).findings).map((f) => f.reason)).toContain(
      'weakens the existing test "keeps a value inside the range" (an exact assertion replaced by a looser one) in test/clamp.test.js',
    );
  });

  test('python: a new test with `assert True` is named, an existing one made vacuous is refused', async () => {
    const before = 'def test_add():\n    assert add(1, 2) == 3\n';
    const added = `${before}\n\ndef test_new():\n    add(1, 1)\n    assert True\n`;
    expect((await judge({ 'tests/test_calc.py': before }, { 'tests/test_calc.py': added })).tests.vacuous).toMatchObject([{ test: ['test_new'] }]);
    const vacuous = 'def test_add():\n    assert add(1, 2) == 3 or True\n';
    expect(refusing((await judge({ 'tests/test_calc.py': before }, { 'tests/test_calc.py': vacuous })).findings).map((f) => f.category)).toContain('assertion');
  });
});

test('a diff that does not fit the file on disk leaves it unread: no test count is made from it', async () => {
  const diff = ['diff --git a/a.test.js b/a.test.js', '--- a/a.test.js', '+++ b/a.test.js', '@@ -1,2 +1,2 @@', " it('x', () => {", "-  expect(1).toBe(1)", "+  expect(2).toBe(2)"].join('\n');
  const texts = await changedTexts(diff, () => true, async () => "it('y', () => {\n  expect(3).toBe(3)\n})\n");
  expect(texts).toEqual([{ path: 'a.test.js', oldPath: 'a.test.js', before: null, after: null, unread: true }]);
  expect(analyseTestChanges(texts).testDelta).toBeUndefined();
});

test('test blocks: names, nesting, helpers that assert, languages not read', () => {
  const blocks = testBlocks('x.test.ts', "describe('a', () => {\n  it.only('b', async () => {\n    expectParsed('x')\n  })\n  test.each([1])('c %s', () => {})\n})\n")!;
  expect(blocks.map((b) => [b.path, b.line, b.endLine, b.assertions.map((a) => a.strength)])).toEqual([[['a', 'b'], 2, 4, ['strong']]]);
  expect(testBlocks('calc_test.go', 'func TestAdd(t *testing.T) {}')).toBeNull();
});
