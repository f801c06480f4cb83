/**
 * Type and lint feedback as a diff (src/diagnostics/): the parsers and the comparison as pure
 * functions, then the watcher with the real typescript and eslint of this repository (fixture
 * projects whose node_modules is a symlink to ours), run through the real shell.
 */
import path from 'node:path';
import type { Diagnostic } from '../../src/diagnostics/checker.js';
import { parseEslintJson } from '../../src/lang/javascript/eslint.js';
import { parseTscOutput } from '../../src/lang/javascript/tsc.js';
import { newDiagnostics, renderNewDiagnostics } from '../../src/diagnostics/compare.js';
import { detectCheckers } from '../../src/diagnostics/detect.js';
import { createDiagnostics } from '../../src/diagnostics/watch.js';
import { edit, project as makeProject, realExec, removeProjects } from '../../test-support/diagnostics-harness.js';

afterAll(removeProjects);
const project = (files: Record<string, string>, linkModules = true): string => makeProject(files, { linkModules });


const d = (over: Partial<Diagnostic>): Diagnostic => ({ checker: 'tsc', file: 'src/a.ts', line: 1, column: 1, code: 'TS2322', message: 'm', ...over });

describe('parsing', () => {
  test('tsc --pretty false: positions, codes, message chains, project-wide errors, paths made repo-relative', () => {
    const out = [
      "src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
      "src/b.ts(10,1): error TS2345: Argument of type '{ a: string; }' is not assignable to parameter of type 'Opts'.",
      "  Types of property 'a' are incompatible.",
      "    Type 'string' is not assignable to type 'number'.",
      "error TS5023: Unknown compiler option 'nope'.",
      '/work/x/lib/c.ts(1,2): error TS1005: \';\' expected.',
      'Found 4 errors.',
    ].join('\n');
    const ds = parseTscOutput(out, '/work/x');
    expect(ds.map((x) => [x.file, x.line, x.column, x.code])).toEqual([
      ['src/a.ts', 3, 7, 'TS2322'],
      ['src/b.ts', 10, 1, 'TS2345'],
      ['', 0, 0, 'TS5023'],
      ['lib/c.ts', 1, 2, 'TS1005'],
    ]);
    expect(ds[1].message).toBe("Argument of type '{ a: string; }' is not assignable to parameter of type 'Opts'.\nTypes of property 'a' are incompatible.\nType 'string' is not assignable to type 'number'.");
  });

  test("ESLint's JSON: errors and fatal parse errors, not warnings or ignored-file notes", () => {
    const json = JSON.stringify([
      { filePath: '/r/src/a.js', messages: [
        { ruleId: 'no-unused-vars', severity: 2, message: "'a' is assigned a value but never used.", line: 1, column: 7 },
        { ruleId: 'no-console', severity: 1, message: 'Unexpected console statement.', line: 2, column: 1 },
        { ruleId: null, fatal: true, severity: 2, message: 'Parsing error: Unexpected token', line: 9, column: 3 },
      ] },
      { filePath: '/r/src/b.ts', messages: [{ ruleId: null, severity: 1, message: 'File ignored because no matching configuration was supplied.' }] },
    ]);
    expect(parseEslintJson(json, '/r').map((x) => `${x.file}:${x.line} ${x.code}`)).toEqual(['src/a.js:1 no-unused-vars', 'src/a.js:9 parse']);
    expect(() => parseEslintJson('{"not":"a report"}', '/r')).toThrow(/not a JSON array/);
  });
});

describe('what is new', () => {
  test('errors that only moved (lines added above) are not new', () => {
    const before = [d({ line: 3, text: "const x: number = 'a';" }), d({ line: 9, code: 'TS2304', message: "Cannot find name 'y'.", text: 'y();' })];
    const after = [d({ line: 6, text: "const x: number = 'a';" }), d({ line: 12, code: 'TS2304', message: "Cannot find name 'y'.", text: 'y();' })];
    expect(newDiagnostics(before, after)).toEqual([]);
  });

  test('a second error with the same message is new, and it is the one on the other line text', () => {
    const before = [d({ line: 3, text: "const x: number = 'a';" })];
    const after = [d({ line: 1, text: "const z: number = 'q';" }), d({ line: 5, text: "const x: number = 'a';" })];
    expect(newDiagnostics(before, after).map((x) => x.line)).toEqual([1]);
  });

  test('a pre-existing error whose line the edit rewrote (same error) is not new; a different message is', () => {
    const before = [d({ line: 3, text: "const x: number = 'a';" })];
    expect(newDiagnostics(before, [d({ line: 3, text: "const x: number   = 'a'; // still" })])).toEqual([]);
    expect(newDiagnostics(before, [d({ line: 3, message: 'other', text: "const x: number = 'a';" })])).toHaveLength(1);
    // same message, another file: new
    expect(newDiagnostics(before, [d({ file: 'src/b.ts', line: 3, text: "const x: number = 'a';" })])).toHaveLength(1);
  });

  test('the message for the model lists the new errors with their line, capped', () => {
    const fresh = Array.from({ length: 14 }, (_, i) => d({ line: i + 1, message: `Problem number ${i}.`, text: `let v${i} = 1;` }));
    const r = renderNewDiagnostics(fresh, { maxShown: 10 });
    expect(r.shown).toBe(10);
    expect(r.text).toContain('introduced 14 new errors (type check (tsc);');
    expect(r.text).toContain('src/a.ts:1:1 TS2322 Problem number 0.\n    1| let v0 = 1;');
    expect(r.text).toContain('… and 4 more.');
    const tight = renderNewDiagnostics(fresh, { maxTokens: 80 });
    expect(tight.shown).toBeLessThan(10);
    expect(tight.text).toContain(`… and ${14 - tight.shown} more.`);
    expect(renderNewDiagnostics([])).toEqual({ text: '', shown: 0 });
  });
});

describe('the watcher on real projects', () => {
  const TSCONFIG = JSON.stringify({ compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'nodenext', types: [] }, include: ['src'] });

  test('tsc: a type error an edit introduces is reported, in the edited file and in a file the edit broke; pre-existing and moved errors are not', async () => {
    const dir = project({
      'tsconfig.json': TSCONFIG,
      'src/old.ts': "export const broken: number = 'not a number';\n",
      'src/lib.ts': 'export function add(a: number, b: number): number {\n  return a + b;\n}\n',
      'src/use.ts': "import { add } from './lib.js';\nexport const three = add(1, 2);\n",
    });
    const exec = realExec(dir);
    const w = createDiagnostics({ root: dir, exec })!;
    expect(w.stats.checkers).toEqual(['tsc']);
    w.warmUp();
    // lines added above the pre-existing error: nothing new, nothing said
    await edit(w, dir, 'src/old.ts', (t) => `// one\n// two\n// three\n${t}`);
    let c = await w.check(['src/old.ts']);
    expect(c.ran).toEqual(['tsc']);
    expect(c.fresh).toEqual([]);
    expect(c.text).toBe('');
    // a type error in the edited file, and a signature change that breaks another file
    await edit(w, dir, 'src/lib.ts', (t) => t.replace('b: number)', 'b: number, c: number)').replace('return a + b;', "const label: string = a + b + c;\n  return label;"));
    c = await w.check(['src/old.ts', 'src/lib.ts']);
    expect(c.fresh.map((x) => `${x.file}:${x.line} ${x.code}`).sort()).toEqual(['src/lib.ts:2 TS2322', 'src/lib.ts:3 TS2322', 'src/use.ts:2 TS2554']);
    expect(c.text).toContain('Your edits introduced 3 new errors');
    expect(c.text).toMatch(/src\/use\.ts:2:\d+ TS2554 Expected 3 arguments, but got 2\.\n {4}2\| export const three = add\(1, 2\);/);
    expect(c.text).not.toContain('old.ts');
    // fixed: the model hears that the errors are gone
    await edit(w, dir, 'src/lib.ts', () => 'export function add(a: number, b: number): number {\n  return a + b;\n}\n');
    c = await w.check(['src/old.ts', 'src/lib.ts']);
    expect(c.fresh).toEqual([]);
    expect(c.text).toContain('are gone');
    expect(w.stats).toMatchObject({ checks: 3, fedBack: 3, off: [] });
    // the baseline ran once; incremental build info outside the project
    expect(exec.commands).toHaveLength(4);
    expect(exec.commands.every((x) => x.includes('--incremental') && x.includes(path.join(dir, 'node_modules', 'typescript', 'bin', 'tsc')) && x.includes(path.join(dir, 'tsconfig.json')))).toBe(true);
    await w.dispose();
  }, 120_000);

  test('tsc on a solution-style tsconfig.json (comments, trailing commas): the referenced projects are checked', async () => {
    const dir = project({
      'tsconfig.json': '{\n  // the projects\n  "files": [],\n  "references": [{ "path": "./tsconfig.app.json" }, { "path": "./tools" },],\n}\n',
      'tsconfig.app.json': JSON.stringify({ compilerOptions: { composite: true, strict: true, target: 'es2022', module: 'nodenext', types: [] }, include: ['src'] }),
      'tools/tsconfig.json': JSON.stringify({ compilerOptions: { composite: true, strict: true, target: 'es2022', module: 'nodenext', types: [] }, include: ['*.ts'] }),
      'src/a.ts': 'export const a: number = 1;\n',
      'tools/t.ts': 'export const t: string = "t";\n',
    });
    expect(detectCheckers(dir).tsc?.projects).toEqual([path.join(dir, 'tsconfig.app.json'), path.join(dir, 'tools', 'tsconfig.json')]);
    const exec = realExec(dir);
    const w = createDiagnostics({ root: dir, exec })!;
    await edit(w, dir, 'tools/t.ts', () => 'export const t: string = 3;\n');
    const c = await w.check(['tools/t.ts']);
    expect(c.fresh.map((x) => `${x.file}:${x.line} ${x.code}`)).toEqual(['tools/t.ts:1 TS2322']);
    await w.dispose();
  }, 120_000);

  test('ESLint: a rule violation an edit introduces is reported (also in a new file); a pre-existing one, moved down, is not', async () => {
    const dir = project({
      'package.json': '{ "type": "module" }\n',
      'eslint.config.js': "export default [{ files: ['**/*.js'], rules: { 'no-unused-vars': 'error', 'no-console': 'warn', eqeqeq: 'error' } }];\n",
      'src/a.js': 'const unusedBefore = 1;\nexport function f(x) {\n  return x;\n}\n',
    });
    const exec = realExec(dir);
    const w = createDiagnostics({ root: dir, exec })!;
    expect(w.stats.checkers).toEqual(['eslint']);
    w.warmUp();
    await edit(w, dir, 'src/a.js', (t) => `// header\n// header\n${t.replace('return x;', "console.log(x);\n  return x == 1 ? x : 0;")}`);
    await edit(w, dir, 'src/new.js', () => 'export const g = () => {\n  const leftover = 2;\n  return 3;\n};\n');
    const c = await w.check(['src/a.js', 'src/new.js']);
    expect(c.ran).toEqual(['eslint']);
    expect(c.fresh.map((x) => `${x.file}:${x.line} ${x.code}`)).toEqual(['src/a.js:6 eqeqeq', 'src/new.js:2 no-unused-vars']);
    expect(c.text).toContain("src/new.js:2:9 no-unused-vars 'leftover' is assigned a value but never used.");
    expect(c.text).not.toContain('unusedBefore');
    expect(c.text).not.toContain('console'); // a warning, not an error
    // a batch that only wrote a file neither checker reads runs nothing
    const before = exec.commands.length;
    await edit(w, dir, 'README.md', () => '# notes\n');
    expect(await w.check(['src/a.js', 'src/new.js', 'README.md'], ['README.md'])).toEqual({ fresh: [], text: '', shown: 0, ran: [], ms: 0 });
    expect(exec.commands).toHaveLength(before);
    await w.dispose();
  }, 120_000);

  test('a repository without tsc or ESLint gets no watcher and runs nothing', () => {
    const bare = project({ 'package.json': '{}', 'tsconfig.json': TSCONFIG, 'eslint.config.js': 'export default [];\n', 'src/a.ts': 'export const a = 1;\n' }, false);
    const exec = realExec(bare);
    expect(createDiagnostics({ root: bare, exec })).toBeNull();
    expect(detectCheckers(bare)).toEqual({});
    // installed, but not configured
    const unconfigured = project({ 'package.json': '{}', 'src/a.ts': 'export const a = 1;\n' });
    expect(createDiagnostics({ root: unconfigured, exec })).toBeNull();
    expect(exec.commands).toEqual([]);
    // eslintrc with ESLint 9 runs in its legacy mode
    const legacy = project({ '.eslintrc.json': '{}', 'src/a.js': '' });
    expect(detectCheckers(legacy).eslint).toMatchObject({ config: '.eslintrc.json', legacy: true });
  });

  test('a tsc that hangs is stopped by the timeout and switched off for the rest of the run, with one note', async () => {
    const dir = project({ 'tsconfig.json': TSCONFIG, 'src/a.ts': 'export const a = 1;\n', 'node_modules/typescript/bin/tsc': 'setInterval(() => {}, 1000);\n' }, false);
    const exec = realExec(dir);
    const w = createDiagnostics({ root: dir, exec, timeoutMs: 1000 })!;
    w.warmUp();
    await edit(w, dir, 'src/a.ts', () => "export const a: number = 'x';\n");
    let c = await w.check(['src/a.ts']);
    expect(c.ran).toEqual([]);
    expect(c.fresh).toEqual([]);
    expect(c.text).toBe('(Type check (tsc) is off for the rest of this run: it took longer than 1 s and was stopped.)');
    c = await w.check(['src/a.ts']);
    expect(c.text).toBe('');
    expect(exec.commands).toHaveLength(1);
    expect(w.stats.off).toHaveLength(1);
    await w.dispose();
  }, 60_000);
});
