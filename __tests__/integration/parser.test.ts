import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { languageOf, loadLanguage, parseCode, syntaxErrors } from '../../src/code/parser.js';

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), '..', '..');

describe('languageOf', () => {
  test.each([
    ['src/a.ts', 'typescript'],
    ['src/a.d.ts', 'typescript'],
    ['src/A.tsx', 'tsx'],
    ['lib/a.mjs', 'javascript'],
    ['lib/a.cjs', 'javascript'],
    ['lib/App.jsx', 'javascript'],
    ['pkg/mod.py', 'python'],
    ['cmd/main.go', 'go'],
    ['package.json', 'json'],
  ])('%s is %s', (file, lang) => expect(languageOf(file)).toBe(lang));
  test('unknown extensions have no grammar', () => {
    expect(languageOf('Makefile')).toBeNull();
    expect(languageOf('README.md')).toBeNull();
  });
});

describe('syntaxErrors', () => {
  test('valid files of every language parse without problems', async () => {
    expect(await syntaxErrors('a.js', 'export function f(x) { return <b>{x}</b>; }\n')).toEqual([]);
    expect(await syntaxErrors('a.ts', 'export function f<T>(x: T): T { return x as T; }\n')).toEqual([]);
    expect(await syntaxErrors('a.tsx', 'export const A = (p: { n: number }) => <div>{p.n}</div>;\n')).toEqual([]);
    expect(await syntaxErrors('a.py', 'def f(x):\n    if x:\n        return 1\n    return 2\n')).toEqual([]);
    expect(await syntaxErrors('a.go', 'package a\n\nfunc F(x int) int {\n\treturn x + 1\n}\n')).toEqual([]);
    expect(await syntaxErrors('a.json', '{"a": [1, 2, {"b": null}]}\n')).toEqual([]);
  });

  test('a missing closing brace is reported with its line', async () => {
    const problems = await syntaxErrors('src/clamp.js', 'export function clamp(v, lo, hi) {\n  if (v < lo) {\n    return lo;\n  return v;\n}\n');
    expect(problems?.length).toBeGreaterThan(0);
    expect(problems?.[0].line).toBeGreaterThanOrEqual(1);
    expect(problems?.[0].message).toMatch(/missing|unexpected/);
  });

  test('a stray token names the offending text', async () => {
    const problems = await syntaxErrors('a.ts', 'const a = 1;\nconst b = a + ;\nexport { a, b };\n');
    expect(problems).not.toEqual([]);
    expect(problems?.[0].line).toBe(2);
  });

  test('python: a missing colon and an unclosed bracket are syntax errors', async () => {
    expect(await syntaxErrors('a.py', 'def f(x)\n    return 1\n')).not.toEqual([]);
    const unclosed = await syntaxErrors('a.py', 'def f(x):\n    return g(x\n\ndef h():\n    return 2\n');
    expect(unclosed).not.toEqual([]);
  });

  test('a trailing comma in JSON is an error; TypeScript in a .js file is one too', async () => {
    expect(await syntaxErrors('package.json', '{"a": 1,}\n')).not.toEqual([]);
    expect(await syntaxErrors('a.js', 'function f(x: number) { return x; }\n')).not.toEqual([]);
  });

  test('unsupported languages answer null', async () => {
    expect(await syntaxErrors('main.rs', 'fn main() {')).toBeNull();
  });
});

test('trees can be queried with the loaded language', async () => {
  const { Query } = await import('web-tree-sitter');
  const lang = await loadLanguage('typescript');
  const tree = await parseCode('typescript', 'export function one() {}\nclass Two { three() {} }\n');
  const query = new Query(lang, '(function_declaration name: (identifier) @name) (method_definition name: (property_identifier) @name) (class_declaration name: (type_identifier) @name)');
  const names = query.captures(tree.rootNode).map((c) => c.node.text);
  expect(names.sort()).toEqual(['one', 'three', 'Two'].sort());
  query.delete();
  tree.delete();
});

test('the bundle finds its grammars next to itself (dist/grammars), without node_modules', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-parser-'));
  try {
    execFileSync(process.execPath, [path.join(root, 'scripts/build.mjs'), dir], { cwd: root, stdio: 'pipe' });
    // A module that reuses the bundle's resolution: dist/cli.js is self-contained, so check the
    // files it will load exist and that loading from that directory works in a clean process.
    const probe = path.join(dir, 'probe.mjs');
    writeFileSync(
      probe,
      `import { Parser, Language } from ${JSON.stringify(path.join(root, 'node_modules/web-tree-sitter/tree-sitter.js'))};\n` +
        `await Parser.init({ locateFile: (f) => ${JSON.stringify(path.join(dir, 'grammars'))} + '/' + f });\n` +
        `const l = await Language.load(${JSON.stringify(path.join(dir, 'grammars', 'tree-sitter-python.wasm'))});\n` +
        `const p = new Parser(); p.setLanguage(l); console.log(p.parse('def f(:').rootNode.hasError);\n`,
    );
    expect(execFileSync(process.execPath, [probe], { encoding: 'utf8' }).trim()).toBe('true');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
