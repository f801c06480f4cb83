import type { TestRun, TestStatus } from '../../src/verify/types.js';
import { testRun } from '../../test-support/builders.js';
import { ImportGraph } from '../../src/verify/imports.js';
import { jsSpecifiers } from '../../src/lang/javascript/imports.js';
import { pySpecifiers } from '../../src/lang/python/imports.js';
import { goImports } from '../../src/lang/go/imports.js';
import { isTestSupport, judgeOriginal, requiredTests, splitChange } from '../../src/verify/original.js';
import { commentOnlyHunks } from '../../src/verify/comments.js';

function graphOf(files: Record<string, string>): ImportGraph {
  return new ImportGraph({ files: Object.keys(files), read: async (f) => files[f] ?? null });
}

describe('import graph (evidence of relatedness)', () => {
  test('finds import, export-from, dynamic import and require with a tokenizer, never in strings or comments', () => {
    const text = [
      "import a from './a.js';",
      "import './side';",
      "export { b } from '../b';",
      "const c = require('./c');",
      "const d = await import('./d.ts');",
      "// import x from './commented'",
      "const s = \"require('./in-a-string')\";",
      '/* require("./in-a-block") */',
      "import type { T } from './types';",
      'const tpl = `import z from "./tpl"`;',
    ].join('\n');
    expect(jsSpecifiers(text)).toEqual(['./a.js', './side', '../b', './c', './d.ts', './types']);
    expect(pySpecifiers('import os, pkg.mod as m\nfrom .util import helper, other\nfrom ..core import x  # note')).toEqual(['os', 'pkg.mod', '.util', '.util.helper', '.util.other', '..core', '..core.x']);
    expect(goImports('package calc\nimport (\n\t"fmt"\n\t"example.com/m/internal/num"\n)\n')).toEqual(['fmt', 'example.com/m/internal/num']);
  });

  test('a test reaches a changed file through the chain of imports; an unrelated one does not', async () => {
    const g = graphOf({
      'package.json': '{"name":"dayish","main":"src/index.js"}',
      'src/index.js': "import { format } from './format.js';\nexport default format;",
      'src/format.ts': "import { pad } from './util'\nexport const format = (d) => pad(d)",
      'src/util.ts': 'export const pad = (x) => x',
      'src/legacy.js': 'module.exports = 1',
      'test/format.test.js': "import dayish from '../src/index.js'; import jestish from 'jest';",
      'test/locale.test.js': "const d = require('dayish');",
      'test/legacy.test.js': "const l = require('../src/legacy');",
      'test/broken.test.js': "import x from './gone.js';",
      'test/data.json': '{}',
    });
    const changed = ['src/util.ts'];
    expect(await g.reach('test/format.test.js', changed)).toMatchObject({ status: 'connected', via: ['test/format.test.js', 'src/index.js', 'src/format.ts', 'src/util.ts'] });
    // the package's own name resolves through package.json main
    expect(await g.reach('test/locale.test.js', changed)).toMatchObject({ status: 'connected', detail: 'imports src/index.js → src/format.ts → src/util.ts' });
    expect(await g.reach('test/legacy.test.js', changed)).toMatchObject({ status: 'not-connected' });
    // doubt: an import that cannot be resolved, a file that is not in the repository, a file with no graph
    expect(await g.reach('test/broken.test.js', changed)).toMatchObject({ status: 'unknown', detail: expect.stringContaining('./gone.js') });
    expect(await g.reach('test/missing.test.js', changed)).toMatchObject({ status: 'unknown' });
    expect(await g.reach('test/data.json', changed)).toMatchObject({ status: 'unknown' });
  });

  test('python modules and go packages', async () => {
    const py = graphOf({
      'pkg/__init__.py': '',
      'pkg/calc.py': 'from .num import parse\n',
      'pkg/num.py': 'def parse(x): return x\n',
      'pkg/other.py': 'X = 1\n',
      'tests/test_calc.py': 'from pkg.calc import add\n',
      'tests/test_other.py': 'import pkg.other\n',
    });
    expect(await py.reach('tests/test_calc.py', ['pkg/num.py'])).toMatchObject({ status: 'connected' });
    expect(await py.reach('tests/test_other.py', ['pkg/num.py'])).toMatchObject({ status: 'not-connected' });
    const go = graphOf({
      'go.mod': 'module example.com/m\n\ngo 1.22\n',
      'calc/calc.go': 'package calc\nimport "example.com/m/num"\n',
      'calc/calc_test.go': 'package calc\n',
      'num/num.go': 'package num\n',
      'other/other_test.go': 'package other\n',
      'other/other.go': 'package other\n',
    });
    expect(await go.reach('calc/calc_test.go', ['num/num.go'])).toMatchObject({ status: 'connected', via: ['calc/calc_test.go', 'calc/calc.go', 'num/num.go'] });
    expect(await go.reach('other/other_test.go', ['num/num.go'])).toMatchObject({ status: 'not-connected' });
  });
});

function run(exitCode: number, tests: Record<string, TestStatus>, over: Partial<TestRun> = {}): TestRun {
  return testRun(exitCode, tests, { succeeded: exitCode === 0, consistency: 'consistent', ...over });
}

describe('original-test gate (pure rules)', () => {
  test('test-ish files: tests, snapshots, helpers, fixtures, test configuration, package.json', () => {
    for (const f of ['test/a.test.js', 'src/__snapshots__/a.test.js.snap', 'test/helpers/expect.js', 'spec/fixtures/data.json', 'jest.config.js', 'vitest.config.ts', '.mocharc.yml', 'package.json', 'tests/conftest.py', 'src/setupTests.ts', 'src/__mocks__/fs.js']) {
      expect([f, isTestSupport(f)]).toEqual([f, true]);
    }
    for (const f of ['src/index.js', 'lib/format.ts', 'README.md', 'src/testing-utils-are-not-here.js']) expect([f, isTestSupport(f)]).toEqual([f, false]);
    expect(splitChange([
      { path: 'src/clamp.js', status: 'modified' },
      { path: 'test/clamp.test.js', status: 'modified' },
      { path: 'test/renamed.test.js', oldPath: 'test/clamp2.test.js', status: 'renamed' },
    ])).toEqual({ tests: ['test/clamp.test.js', 'test/renamed.test.js'], source: [{ path: 'src/clamp.js', status: 'modified' }] });
  });

  test('every test the task is about must be present and pass; tolerated failures stay tolerated', () => {
    const baseline = run(1, { 'a > clamps': 'failed', 'a > keeps': 'passed', 'legacy > old': 'failed' });
    const required = requiredTests(baseline, { nowPassing: ['a > clamps'] }, { preexisting: 'allow' });
    expect(required).toEqual(['a > clamps']);
    expect(requiredTests(baseline, { nowPassing: [] }, { preexisting: 'block' })).toEqual(['a > clamps', 'legacy > old']);
    const verdict = { preexisting: ['legacy > old'] };
    expect(judgeOriginal(run(1, { 'a > clamps': 'passed', 'a > keeps': 'passed', 'legacy > old': 'failed' }), required, verdict, ['test/a.test.js'])).toMatchObject({ ok: true, passing: ['a > clamps'] });
    // the weakened test, back to its original form, still fails
    const weak = judgeOriginal(run(1, { 'a > clamps': 'failed', 'a > keeps': 'passed', 'legacy > old': 'failed' }), required, verdict, ['test/a.test.js']);
    expect(weak).toMatchObject({ ok: false, failing: ['a > clamps'] });
    expect(weak.detail).toContain('1 test(s) fail with the original tests: a > clamps');
    // renamed, moved or excluded: absent is not passed
    const gone = judgeOriginal(run(0, { 'a > keeps': 'passed' }), required, verdict, ['jest.config.js']);
    expect(gone).toMatchObject({ ok: false, missing: ['a > clamps'] });
    expect(gone.detail).toContain('do not exist in the original tests');
    // a crash with no test named
    expect(judgeOriginal(run(2, {}, { consistency: 'exit-nonzero-without-failing-test' }), [], {}, ['package.json']).ok).toBe(false);
    // relaxed by policy: reported, not blocking
    expect(judgeOriginal(run(1, { 'a > clamps': 'failed' }), required, verdict, ['test/a.test.js'], 'the policy allows assertion changes')).toMatchObject({ ok: true, relaxed: 'the policy allows assertion changes', failing: ['a > clamps'] });
  });
});

describe('comment-only hunks', () => {
  const before = 'export function clamp(x, lo, hi) {\n  return Math.min(hi, Math.max(lo, x));\n}\n\nexport const name = `a\n// not a comment\n`;\n';
  test('a stray comment line is flagged; a real change and template text are not', () => {
    const stray = before.replace('  return', '  // clamp between lo and hi\n  return');
    expect(commentOnlyHunks('src/clamp.js', before, stray)).toEqual([{ file: 'src/clamp.js', line: 2, added: ['// clamp between lo and hi'] }]);
    const real = before.replace('Math.min(hi, Math.max(lo, x))', 'Math.max(lo, Math.min(hi, x))');
    expect(commentOnlyHunks('src/clamp.js', before, real)).toEqual([]);
    // the same text inside a template literal is content, not a comment
    const inTemplate = before.replace('// not a comment\n', '// not a comment\n// added line\n');
    expect(commentOnlyHunks('src/clamp.js', before, inTemplate)).toEqual([]);
    // both in one change: only the comment hunk
    const both = real.replace('export const name', '/** the name */\nexport const name');
    expect(commentOnlyHunks('src/clamp.js', before, both).map((h) => h.line)).toEqual([5]);
    expect(commentOnlyHunks('src/clamp.py', before, stray)).toEqual([]);
    // a comment line added next to the real change, in the same hunk
    const mixed = before.replace('  return Math.min(hi, Math.max(lo, x));', '  // lower bound first\n  return Math.max(lo, Math.min(hi, x));');
    expect(commentOnlyHunks('src/clamp.js', before, mixed)).toEqual([{ file: 'src/clamp.js', line: 2, added: ['// lower bound first'] }]);
    // a comment that was only moved is not new
    const moved = '/** doc */\nexport const a = 1;\n';
    expect(commentOnlyHunks('src/a.js', moved, '/** doc */\nexport const a = 2;\n')).toEqual([]);
  });
});
