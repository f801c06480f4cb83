/**
 * Python type and lint feedback (src/diagnostics/, issue 22 §1): the parsers of mypy, pyright and
 * ruff on their documented output, detection of the project's own checkers, and the watcher with
 * the real pyright (the npm package, installed by .ci/run into .cache/pyright; skipped with a
 * message without it) on a fixture project: only what the edit introduced is fed back.
 *
 * mypy and ruff cannot be installed here (PyPI is not reachable, ruff has no npm binary): their
 * parsers are tested on output in their documented formats, and the watcher's ruff path (stdin
 * baseline, report file, comparison) on a stand-in `.venv/bin/ruff` that speaks ruff's JSON.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { detectCheckers } from '../../src/diagnostics/detect.js';
import { configSection } from '../../src/lang/python/env.js';
import { mypyCommand, mypyTargets, parseMypyOutput } from '../../src/lang/python/mypy.js';
import { parsePyrightJson } from '../../src/lang/python/pyright.js';
import { parseRuffJson } from '../../src/lang/python/ruff.js';
import { createDiagnostics } from '../../src/diagnostics/watch.js';
import { edit, project as makeProject, realExec, removeProjects, ROOT } from '../../test-support/diagnostics-harness.js';

const PYRIGHT = path.join(ROOT, '.cache', 'pyright', 'node_modules', 'pyright');
afterAll(removeProjects);
const project = (files: Record<string, string>): string => makeProject(files, { prefix: 'agent-fix-diag-py-' });


describe('parsing', () => {
  test("mypy's lines (with and without columns), errors only, codes in brackets, paths repo-relative", () => {
    // mypy's documented default format, `file:line[:column]: severity: message  [code]`
    // (docs "Error codes" / "--show-column-numbers"); notes and the summary are not errors.
    const out = [
      'pkg/a.py:3:7: error: Incompatible types in assignment (expression has type "str", variable has type "int")  [assignment]',
      'pkg/a.py:3:7: note: See https://mypy.readthedocs.io/en/stable/_refs.html#code-assignment for more info',
      'pkg/b.py:12: error: Missing return statement  [return]',
      '/r/pkg/c.py:1:1: error: Cannot find implementation or library stub for module named "nope"  [import-not-found]',
      'pkg/d.py:4:5: warning: Unused "type: ignore" comment  [unused-ignore]',
      'pkg/e.py:2:3: error: Name "x" is not defined',
      'Found 4 errors in 4 files (checked 5 source files)',
    ].join('\n');
    expect(parseMypyOutput(out, '/r').map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`)).toEqual([
      'pkg/a.py:3:7 assignment',
      'pkg/b.py:12:0 return',
      'pkg/c.py:1:1 import-not-found',
      'pkg/e.py:2:3 mypy',
    ]);
    expect(parseMypyOutput(out, '/r')[0]).toMatchObject({ checker: 'mypy', message: 'Incompatible types in assignment (expression has type "str", variable has type "int")' });
  });

  test("mypy's --output json lines: 0-based column made 1-based, notes dropped", () => {
    // The line of mypy's own test data for `--output=json` (test-data/unit/outputjson.test, testOutputJsonSimple),
    // and a note line of the same shape.
    const out = [
      '{"file": "main", "line": 5, "column": 0, "message": "Too many arguments for \\"foo\\"", "hint": null, "code": "call-arg", "severity": "error"}',
      '{"file": "main", "line": 5, "column": 0, "message": "See docs", "hint": null, "code": null, "severity": "note"}',
    ].join('\n');
    expect(parseMypyOutput(out, '/r')).toEqual([{ checker: 'mypy', file: 'main', line: 5, column: 1, code: 'call-arg', message: 'Too many arguments for "foo"' }]);
  });

  test("ruff's --output-format json: rule codes, 1-based positions, a syntax error without a code", () => {
    // The shape of ruff's JSON report as printed by `ruff check --output-format=json` (astral-sh/ruff issue #11329).
    const json = JSON.stringify([
      {
        cell: null,
        code: 'F401',
        end_location: { column: 25, row: 3 },
        filename: '/r/src/lsp.py',
        fix: { applicability: 'safe', edits: [{ content: '', end_location: { column: 1, row: 4 }, location: { column: 1, row: 3 } }], message: 'Remove unused import: `pathlib.Path`' },
        location: { column: 21, row: 3 },
        message: '`pathlib.Path` imported but unused',
        noqa_row: 3,
        url: 'https://docs.astral.sh/ruff/rules/unused-import',
      },
      { cell: null, code: null, end_location: { column: 1, row: 8 }, filename: '/r/src/b.py', fix: null, location: { column: 9, row: 7 }, message: 'SyntaxError: Expected an expression', noqa_row: null, url: null },
    ]);
    expect(parseRuffJson(json, '/r').map((d) => `${d.file}:${d.line}:${d.column} ${d.code} ${d.message}`)).toEqual([
      'src/lsp.py:3:21 F401 `pathlib.Path` imported but unused',
      'src/b.py:7:9 syntax SyntaxError: Expected an expression',
    ]);
    expect(() => parseRuffJson('{"no": 1}', '/r')).toThrow(/not a JSON array/);
  });

  test("pyright's --outputjson: errors only, 0-based positions made 1-based, the rule as code", () => {
    // Captured from pyright 1.1.414 (`pyright --outputjson`) on a two-line file; a warning and an
    // information added in the same shape.
    const json = JSON.stringify({
      version: '1.1.414',
      generalDiagnostics: [
        { file: '/tmp/pyr/pkg/a.py', severity: 'error', message: 'Type "int" is not assignable to declared type "str"\n  "int" is not assignable to "str"', range: { start: { line: 3, character: 9 }, end: { line: 3, character: 13 } }, rule: 'reportAssignmentType' },
        { file: '/tmp/pyr/pkg/a.py', severity: 'warning', message: 'Import "os" is not accessed', range: { start: { line: 4, character: 7 }, end: { line: 4, character: 9 } }, rule: 'reportUnusedImport' },
        { file: '/tmp/pyr/pkg/a.py', severity: 'information', message: 'x', range: { start: { line: 0, character: 0 }, end: { line: 0, character: 1 } } },
        { file: '/tmp/pyr/pkg/b.py', severity: 'error', message: 'Expected expression', range: { start: { line: 0, character: 4 }, end: { line: 0, character: 5 } } },
      ],
      summary: { filesAnalyzed: 2, errorCount: 2, warningCount: 1, informationCount: 1, timeInSec: 1.06 },
    });
    expect(parsePyrightJson(json, '/tmp/pyr').map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`)).toEqual(['pkg/a.py:4:10 reportAssignmentType', 'pkg/b.py:1:5 pyright']);
    expect(() => parsePyrightJson('[]', '/r')).toThrow(/generalDiagnostics/);
  });
});

describe('detection', () => {
  const exe = (dir: string, rel: string) => {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), '#!/bin/sh\nexit 0\n');
    chmodSync(path.join(dir, rel), 0o755);
  };

  test('each checker where the project configures it and has it installed; not otherwise', () => {
    const all = project({
      'pyproject.toml': '[project]\nname = "x"\n\n[tool.mypy]\nstrict = true\n\n[[tool.mypy.overrides]]\nmodule = "a"\n\n[tool.ruff.lint]\nselect = ["F"]\n\n[tool.pyright]\ninclude = ["pkg"]\n',
      'pkg/__init__.py': '',
    });
    exe(all, '.venv/bin/mypy');
    exe(all, '.venv/bin/ruff');
    exe(all, '.venv/bin/pyright');
    expect(detectCheckers(all)).toEqual({
      mypy: { bin: path.join(all, '.venv/bin/mypy'), config: 'pyproject.toml', files: false },
      pyright: { bin: path.join(all, '.venv/bin/pyright'), node: false, config: 'pyproject.toml' },
      ruff: { bin: path.join(all, '.venv/bin/ruff'), config: 'pyproject.toml' },
    });
    // configured but not installed: nothing
    const bare = project({ 'mypy.ini': '[mypy]\nfiles = pkg\n', 'ruff.toml': 'line-length = 100\n', 'pyrightconfig.json': '{}' });
    expect(detectCheckers(bare)).toEqual({});
    expect(createDiagnostics({ root: bare, exec: realExec(bare) })).toBeNull();
    // installed but not configured: nothing
    const unconfigured = project({ 'pyproject.toml': '[project]\nname = "x"\n', 'setup.cfg': '[flake8]\nmax-line-length = 100\n' });
    exe(unconfigured, '.venv/bin/mypy');
    exe(unconfigured, '.venv/bin/ruff');
    expect(detectCheckers(unconfigured)).toEqual({});
    // setup.cfg [mypy] with files; venv/ as well as .venv/
    const cfg = project({ 'setup.cfg': '[metadata]\nname = x\n\n[mypy]\nfiles = src/x\nwarn_unused_ignores = True\n' });
    exe(cfg, 'venv/bin/mypy');
    expect(detectCheckers(cfg).mypy).toEqual({ bin: path.join(cfg, 'venv/bin/mypy'), config: 'setup.cfg', files: true });
  });

  test('mypy checks its configured files, or the top-level Python code (never the venv, hidden or build directories)', () => {
    const dir = project({
      'setup.py': '',
      'src/pkg/deep/mod.py': '',
      'tests/test_a.py': '',
      'docs/conf.txt': '',
      'build/lib/x.py': '',
      '.tox/x.py': '',
      'env/pyvenv.cfg': '',
      'env/lib/x.py': '',
    });
    expect(mypyTargets(dir)).toEqual(['setup.py', 'src', 'tests']);
    const cmd = mypyCommand({ bin: '/v/mypy', config: 'mypy.ini', files: false }, '/tmp/c', ['src']);
    expect(cmd).toBe("'/v/mypy' '--config-file' 'mypy.ini' '--show-column-numbers' '--show-error-codes' '--no-pretty' '--no-error-summary' '--hide-error-context' '--no-color-output' '--cache-dir' '/tmp/c' 'src'");
    expect(mypyCommand({ bin: '/v/mypy', config: 'mypy.ini', files: true }, '/tmp/c', ['src'])).not.toContain("'src'");
    expect(configSection('[tool.black]\nx=1\n[tool.mypy]\nfiles = ["a"]\n[tool.other]\n', /^\[tool\.mypy\]$/)).toEqual(['files = ["a"]']);
  });
});

const pyrightWhy = existsSync(path.join(PYRIGHT, 'index.js')) ? '' : 'pyright is not installed in .cache/pyright (.ci/run installs it from the npm registry)';
const withPyright = pyrightWhy ? test.skip : test;
if (pyrightWhy) test(`pyright: skipped: ${pyrightWhy}`, () => expect(pyrightWhy).toContain('not installed'));

describe('the watcher with the real pyright', () => {
  withPyright(
    'a type error the edit introduces (in the edited module and in a caller it broke) is fed back; the pre-existing one, moved down, is not',
    async () => {
      const dir = project({
        'pyrightconfig.json': JSON.stringify({ include: ['pkg'], typeCheckingMode: 'basic' }),
        'pkg/__init__.py': '',
        'pkg/old.py': 'count: int = "not a number"\n',
        'pkg/lib.py': 'def add(a: int, b: int) -> int:\n    return a + b\n',
        'pkg/use.py': 'from pkg.lib import add\n\nthree = add(1, 2)\n',
        'README.md': '# x\n',
      });
      mkdirSync(path.join(dir, 'node_modules'));
      symlinkSync(PYRIGHT, path.join(dir, 'node_modules', 'pyright'), 'dir');
      const exec = realExec(dir);
      const w = createDiagnostics({ root: dir, exec })!;
      expect(w.stats.checkers).toEqual(['pyright']);
      w.warmUp();
      // lines added above the pre-existing error: nothing new, nothing said
      await edit(w, dir, 'pkg/old.py', (t) => `# one\n# two\n${t}`);
      let c = await w.check(['pkg/old.py']);
      expect(c.ran).toEqual(['pyright']);
      expect(c.fresh).toEqual([]);
      expect(c.text).toBe('');
      // a new parameter (callers now miss it) and a str where an int is returned
      await edit(w, dir, 'pkg/lib.py', () => 'def add(a: int, b: int, c: int) -> int:\n    label: str = a + b + c\n    return label\n');
      c = await w.check(['pkg/old.py', 'pkg/lib.py'], ['pkg/lib.py']);
      expect(c.fresh.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual(['pkg/lib.py:2 reportAssignmentType', 'pkg/lib.py:3 reportReturnType', 'pkg/use.py:3 reportCallIssue']);
      expect(c.text).toContain('Your edits introduced 3 new errors (type check (pyright);');
      expect(c.text).toMatch(/pkg\/use\.py:3:\d+ reportCallIssue Argument missing for parameter "c"\n {4}3\| three = add\(1, 2\)/);
      expect(c.text).not.toContain('old.py');
      // a batch that only wrote a file pyright does not read runs nothing
      const before = exec.commands.length;
      await edit(w, dir, 'README.md', () => '# notes\n');
      expect(await w.check(['pkg/old.py', 'pkg/lib.py', 'README.md'], ['README.md'])).toEqual({ fresh: [], text: '', shown: 0, ran: [], ms: 0 });
      expect(exec.commands).toHaveLength(before);
      // fixed: the model hears that they are gone
      await edit(w, dir, 'pkg/lib.py', () => 'def add(a: int, b: int) -> int:\n    return a + b\n');
      c = await w.check(['pkg/old.py', 'pkg/lib.py']);
      expect(c.fresh).toEqual([]);
      expect(c.text).toContain('are gone');
      // the baseline ran once (4 pyright runs), through the project's node_modules/pyright, the report outside the project
      expect(exec.commands).toHaveLength(4);
      expect(exec.commands.every((x) => x.startsWith(`'node' '${path.join(dir, 'node_modules', 'pyright', 'index.js')}' '--outputjson' > `) && !x.includes(`> '${dir}`))).toBe(true);
      expect(w.stats).toMatchObject({ checkers: ['pyright'], checks: 3, fedBack: 3, off: [] });
      await w.dispose();
    },
    120_000,
  );

  withPyright('pyright sees the packages installed in the venv (its interpreter is passed): an import of one is no new error; without it, it would be', async () => {
    const files = { 'pyrightconfig.json': JSON.stringify({ include: ['pkg'] }), 'pkg/a.py': 'x: int = 1\n' };
    const dir = project(files);
    mkdirSync(path.join(dir, 'node_modules'));
    symlinkSync(PYRIGHT, path.join(dir, 'node_modules', 'pyright'), 'dir');
    const venv = spawnSync('python3', ['-m', 'venv', '--without-pip', path.join(dir, '.venv')]);
    expect(venv.status).toBe(0);
    const site = spawnSync(path.join(dir, '.venv', 'bin', 'python'), ['-c', "import sysconfig; print(sysconfig.get_paths()['purelib'])"], { encoding: 'utf8' }).stdout.trim();
    writeFileSync(path.join(site, 'extlib.py'), 'def thing() -> int:\n    return 1\n');
    const setup = detectCheckers(dir);
    expect(setup.pyright?.python).toBe(path.join(dir, '.venv', 'bin', 'python'));
    const change = () => 'from extlib import thing\n\nx: int = 1\nlabel: str = thing()\n';
    const w = createDiagnostics({ root: dir, exec: realExec(dir) })!;
    await edit(w, dir, 'pkg/a.py', change);
    const c = await w.check(['pkg/a.py']);
    expect(c.fresh.map((d) => `${d.file}:${d.line} ${d.code}`)).toEqual(['pkg/a.py:4 reportAssignmentType']);
    await w.dispose();
    // the control: the same edit, pyright without the venv's interpreter, cannot resolve the import
    writeFileSync(path.join(dir, 'pkg/a.py'), 'x: int = 1\n');
    const { python: _python, ...without } = setup.pyright!;
    const blind = createDiagnostics({ root: dir, exec: realExec(dir), setup: { pyright: without } })!;
    await edit(blind, dir, 'pkg/a.py', change);
    const b = await blind.check(['pkg/a.py']);
    expect(b.fresh.map((d) => d.code)).toContain('reportMissingImports');
    await blind.dispose();
  }, 120_000);

  withPyright('a pyright whose configuration is broken is switched off with one note, not mistaken for a clean tree', async () => {
    const dir = project({ 'pyrightconfig.json': '{ "include": ["pkg"], "typeCheckingMode": 7 ', 'pkg/a.py': 'x: int = 1\n' });
    mkdirSync(path.join(dir, 'node_modules'));
    symlinkSync(PYRIGHT, path.join(dir, 'node_modules', 'pyright'), 'dir');
    const w = createDiagnostics({ root: dir, exec: realExec(dir) })!;
    await edit(w, dir, 'pkg/a.py', () => 'x: int = "a"\n');
    const c = await w.check(['pkg/a.py']);
    expect(c.ran).toEqual([]);
    expect(c.text).toMatch(/^\(pyright is off for the rest of this run: /);
    expect(w.stats.off).toHaveLength(1);
    await w.dispose();
  }, 60_000);
});

describe('the watcher with ruff (a stand-in that speaks its command line and JSON)', () => {
  // `.venv/bin/ruff check --output-format json … [--stdin-filename F -] [-- files]`: reports every
  // `print(` as T201 and every `import os` as F401, in ruff's JSON shape, to stdout (exit 1 when any).
  const STAND_IN = `#!/usr/bin/env python3
import json, os, sys
args = sys.argv[1:]
assert args[0] == "check" and "--output-format" in args and args[args.index("--output-format") + 1] == "json", args
if "--stdin-filename" in args:
    items = [(os.path.abspath(args[args.index("--stdin-filename") + 1]), sys.stdin.read())]
else:
    items = [(os.path.abspath(f), open(f).read()) for f in args[args.index("--") + 1:]]
out = []
for name, text in items:
    for i, line in enumerate(text.split("\\n"), 1):
        for code, needle, msg in (("T201", "print(", "\`print\` found"), ("F401", "import os", "\`os\` imported but unused")):
            col = line.find(needle)
            if col >= 0:
                out.append({"cell": None, "code": code, "end_location": {"column": col + len(needle), "row": i}, "filename": name, "fix": None, "location": {"column": col + 1, "row": i}, "message": msg, "noqa_row": i, "url": None})
print(json.dumps(out))
sys.exit(1 if out else 0)
`;

  test('an F401 the edit adds is fed back (also in a new file); the pre-existing print, moved down, is not', async () => {
    const dir = project({ 'ruff.toml': 'line-length = 100\n', 'pkg/a.py': 'def f(x):\n    print(x)\n    return x\n' });
    mkdirSync(path.join(dir, '.venv', 'bin'), { recursive: true });
    writeFileSync(path.join(dir, '.venv', 'bin', 'ruff'), STAND_IN);
    chmodSync(path.join(dir, '.venv', 'bin', 'ruff'), 0o755);
    const exec = realExec(dir);
    const w = createDiagnostics({ root: dir, exec })!;
    expect(w.stats.checkers).toEqual(['ruff']);
    await edit(w, dir, 'pkg/a.py', (t) => `import os\n\n${t}`);
    await edit(w, dir, 'pkg/b.py', () => 'import os\n');
    const c = await w.check(['pkg/a.py', 'pkg/b.py']);
    expect(c.ran).toEqual(['ruff']);
    expect(c.fresh.map((d) => `${d.file}:${d.line}:${d.column} ${d.code}`)).toEqual(['pkg/a.py:1:1 F401', 'pkg/b.py:1:1 F401']);
    expect(c.text).toContain('(lint (ruff);');
    expect(c.text).not.toContain('print');
    // the original of pkg/a.py was linted through stdin under its own name; pkg/b.py was new (no baseline run)
    expect(exec.commands.filter((x) => x.includes("'--stdin-filename' 'pkg/a.py' '-'"))).toHaveLength(1);
    expect(exec.commands.filter((x) => x.includes('--stdin-filename'))).toHaveLength(1);
    await w.dispose();
  }, 60_000);
});
