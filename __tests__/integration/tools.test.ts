import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TOOL_SPECS, ToolBox, validateToolArgs } from '../../src/agent/tools.js';

let root: string;
let outside: string;

/** The files a git checkout would list: everything but .git/ and node_modules/ (our stand-in for ignored). */
function walk(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.name === '.git' || e.name === 'node_modules') continue;
    if (e.isDirectory()) out.push(...walk(path.join(dir, e.name), rel));
    else out.push(rel);
  }
  return out.sort();
}

function write(rel: string, content: string | Buffer): void {
  const abs = path.join(root, rel);
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  fs.writeFileSync(abs, content);
}

function read(rel: string): string {
  return fs.readFileSync(path.join(root, rel), 'utf8');
}

function box(extra: Partial<ConstructorParameters<typeof ToolBox>[0]> = {}): ToolBox {
  return new ToolBox({ root, listFiles: async () => walk(root), protectedPaths: ['package-lock.json'], ...extra });
}

const call = (name: string, args: unknown, tb = box()) => tb.execute(name, typeof args === 'string' ? args : JSON.stringify(args));

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'af-tools-')));
  outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'af-tools-out-')));
  write('src/math.ts', 'export function add(a: number, b: number) {\n  return a - b;\n}\n\nexport function sub(a: number, b: number) {\n  return a - b;\n}\n');
  write('src/util/strings.ts', 'export const greet = (n: string) => `hello ${n}`;\n');
  write('README.md', '# demo\n\nCall add(1, 2).\n');
  write('package-lock.json', '{}\n');
  write('.github/workflows/ci.yml', 'on: push\njobs: {}\n');
  write('.git/config', '[http]\n  extraheader = AUTHORIZATION: basic c2VjcmV0\n');
  write('assets/logo.png', Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0x01]));
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'top secret\n');
});

afterEach(() => {
  fs.rmSync(root, { recursive: true, force: true });
  fs.rmSync(outside, { recursive: true, force: true });
});

describe('TOOL_SPECS', () => {
  test('declares the seven tools with object schemas', () => {
    expect(TOOL_SPECS.map((s) => s.name)).toEqual(['list_files', 'read_file', 'search', 'edit_file', 'write_file', 'run_tests', 'finish']);
    for (const s of TOOL_SPECS) {
      expect(s.description.length).toBeGreaterThan(20);
      expect(s.parameters).toMatchObject({ type: 'object', properties: expect.any(Object) });
    }
    expect(TOOL_SPECS.find((s) => s.name === 'edit_file')!.parameters.required).toEqual(['path']);
    expect(Object.keys(TOOL_SPECS.find((s) => s.name === 'edit_file')!.parameters.properties as object)).toEqual(['path', 'old_string', 'new_string', 'diff', 'edits']);
  });

  test('validateToolArgs serves the loop for finish too', () => {
    expect(validateToolArgs('finish', '{"summary":"done"}')).toEqual({ ok: true, args: { summary: 'done' } });
    const bad = validateToolArgs('finish', '{}');
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error).toMatch(/summary is missing/);
  });
});

describe('ToolBox protocol errors', () => {
  test('unknown tool lists the valid ones', async () => {
    const r = await call('delete_everything', {});
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/Unknown tool "delete_everything"/);
    expect(r.content).toContain('list_files, read_file, search, edit_file, write_file, run_tests, finish');
  });

  test('malformed JSON is reported with an example', async () => {
    const r = await call('read_file', '{"path": "src/math.ts"');
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/not valid JSON/);
    expect(r.content).toMatch(/"path": "src\/index.ts"/);
  });

  test('missing and mistyped arguments', async () => {
    const r1 = await call('edit_file', { path: 'src/math.ts', old_string: 'a' });
    expect(r1.ok).toBe(false);
    expect(r1.content).toMatch(/new_string is missing/);
    const r2 = await call('read_file', { path: 42 });
    expect(r2.ok).toBe(false);
    expect(r2.content).toMatch(/path: .*expected string/);
    const r3 = await call('read_file', '[1,2]');
    expect(r3.content).toMatch(/must be a JSON object/);
  });

  test('null optional arguments and numeric strings are accepted', async () => {
    const r = await call('read_file', { path: 'src/math.ts', start_line: '2', end_line: null });
    expect(r.ok).toBe(true);
    expect(r.content).toContain('   2|   return a - b;');
  });

  test('run_tests and finish are not executed by the toolbox', async () => {
    const r = await call('finish', { summary: 'x' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/agent loop/);
  });

  test('an exception inside a tool becomes ok:false', async () => {
    const tb = box({ listFiles: async () => { throw new Error('git exploded'); } });
    const r = await tb.execute('list_files', '{}');
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/git exploded/);
  });
});

describe('list_files', () => {
  test('lists everything, by directory, by glob', async () => {
    const all = await call('list_files', '');
    expect(all.ok).toBe(true);
    expect(all.content).toContain('src/math.ts');
    expect(all.content).not.toContain('.git/config');

    const src = await call('list_files', { path: 'src' });
    expect(src.content.split('\n')).toEqual(['2 files:', 'src/math.ts', 'src/util/strings.ts']);

    const ts = await call('list_files', { pattern: '*.ts' });
    expect(ts.content.split('\n')).toEqual(['2 files:', 'src/math.ts', 'src/util/strings.ts']);

    const rel = await call('list_files', { path: 'src', pattern: 'util/*.ts' });
    expect(rel.content.split('\n')).toEqual(['1 file:', 'src/util/strings.ts']);

    const none = await call('list_files', { path: 'nope' });
    expect(none.ok).toBe(true);
    expect(none.content).toMatch(/No files under "nope"/);
  });

  test('caps long listings', async () => {
    const files = Array.from({ length: 450 }, (_, i) => `gen/f${String(i).padStart(3, '0')}.txt`);
    const r = await box({ listFiles: async () => files }).execute('list_files', '{}');
    const lines = r.content.split('\n');
    expect(lines[0]).toBe('450 files:');
    expect(lines).toHaveLength(1 + 400 + 1);
    expect(lines[lines.length - 1]).toMatch(/and 50 more/);
  });

  test('refuses paths outside the repository', async () => {
    const r = await call('list_files', { path: '../' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/outside the repository/);
  });
});

describe('read_file', () => {
  test('numbered lines', async () => {
    const r = await call('read_file', { path: 'src/math.ts' });
    expect(r.ok).toBe(true);
    expect(r.content.split('\n').slice(0, 3)).toEqual(['src/math.ts (7 lines)', '   1| export function add(a: number, b: number) {', '   2|   return a - b;']);
  });

  test('ranges and the cap with a note on how to continue', async () => {
    write('long.txt', Array.from({ length: 1000 }, (_, i) => `row ${i + 1}`).join('\n') + '\n');
    const r = await call('read_file', { path: 'long.txt' });
    const lines = r.content.split('\n');
    expect(lines[1]).toBe('   1| row 1');
    expect(lines[400]).toBe(' 400| row 400');
    expect(r.content).toMatch(/start_line=401/);
    const r2 = await call('read_file', { path: 'long.txt', start_line: 998, end_line: 2000 });
    expect(r2.content.split('\n').slice(1, 4)).toEqual([' 998| row 998', ' 999| row 999', '1000| row 1000']);
    const r3 = await call('read_file', { path: 'long.txt', start_line: 1001 });
    expect(r3.ok).toBe(false);
    expect(r3.content).toMatch(/only 1000 lines/);
  });

  test('byte cap', async () => {
    write('wide.txt', Array.from({ length: 300 }, () => 'w'.repeat(500)).join('\n'));
    const r = await call('read_file', { path: 'wide.txt' });
    expect(r.content.length).toBeLessThan(42_000);
    expect(r.content).toMatch(/To read further call read_file with start_line=\d+/);
  });

  test('missing, binary, too large, directory, .git, outside', async () => {
    const missing = await call('read_file', { path: 'src/nope.ts' });
    expect(missing.ok).toBe(false);
    expect(missing.content).toMatch(/does not exist.*list_files or search/);
    expect((await call('read_file', { path: 'assets/logo.png' })).content).toMatch(/binary/);
    write('big.txt', 'x'.repeat(2000));
    expect((await call('read_file', { path: 'big.txt' }, box({ maxFileBytes: 1000 }))).content).toMatch(/over the 1000-byte limit/);
    expect((await call('read_file', { path: 'src' })).content).toMatch(/is a directory/);
    const git = await call('read_file', { path: '.git/config' });
    expect(git.ok).toBe(false);
    expect(git.content).not.toContain('extraheader');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
    const leak = await call('read_file', { path: 'leak.txt' });
    expect(leak.ok).toBe(false);
    expect(leak.content).not.toContain('top secret');
  });

  test('protected files can be read (workflows tell how CI runs)', async () => {
    const r = await call('read_file', { path: '.github/workflows/ci.yml' });
    expect(r.ok).toBe(true);
    expect(r.content).toContain('   1| on: push');
  });
});

describe('search', () => {
  test('regex over text files, file:line: text', async () => {
    const r = await call('search', { pattern: 'return a\\s-\\sb' });
    expect(r.ok).toBe(true);
    expect(r.content.split('\n')).toEqual(['2 matches:', 'src/math.ts:2:   return a - b;', 'src/math.ts:6:   return a - b;']);
  });

  test('invalid regex falls back to a literal search', async () => {
    const r = await call('search', { pattern: 'add(1' });
    expect(r.content).toMatch(/searched for it literally/);
    expect(r.content).toContain('README.md:3: Call add(1, 2).');
  });

  test('path scope, binary files skipped, no matches', async () => {
    const r = await call('search', { pattern: 'export', path: 'src/util' });
    expect(r.content.split('\n')).toEqual(['1 match:', 'src/util/strings.ts:1: export const greet = (n: string) => `hello ${n}`;']);
    const png = await call('search', { pattern: 'PNG' });
    expect(png.content).toMatch(/No matches/);
  });

  test('caps matches and line length', async () => {
    write('many.txt', Array.from({ length: 150 }, (_, i) => `hit ${i} ${'z'.repeat(300)}`).join('\n'));
    const r = await call('search', { pattern: '^hit' });
    const lines = r.content.split('\n');
    expect(lines[0]).toBe('100+ matches:');
    expect(lines.filter((l) => l.startsWith('many.txt:'))).toHaveLength(100);
    expect(lines[1].length).toBeLessThanOrEqual('many.txt:1: '.length + 201);
    expect(r.content).toMatch(/Stopped after 100 matches/);
  });

  test('a pathological pattern runs in linear time: (a+)+$ on a 100,000-character line answers', async () => {
    // a backtracking engine needs about 2^n steps here (seconds at n = 26, hours at n = 45)
    write('long.txt', `${'a'.repeat(100_000)}!\n`);
    const none = await call('search', { pattern: '(a+)+$', path: 'long.txt' });
    expect(none.ok).toBe(true);
    expect(none.content).toMatch(/^No matches for "\(a\+\)\+\$" in 1 text file/);
    write('short.txt', 'zzz aaa\n');
    const hit = await call('search', { pattern: '(\\w+\\s?)+aaa$', path: 'short.txt' });
    expect(hit.content.split('\n')).toEqual(['1 match:', 'short.txt:1: zzz aaa']);
  });

  test('JavaScript syntax is read as JavaScript reads it; lookahead and backreferences are refused with a reason', async () => {
    write('syntax.txt', ['caf\u00e9 au lait', 'key = value', 'prefix_total', 'AA BB', 'x/y'].join('\n'));
    const one = async (pattern: string) => (await call('search', { pattern, path: 'syntax.txt' })).content;
    expect(await one('caf\\u00e9')).toContain('syntax.txt:1: café au lait');
    expect(await one('(?<key>\\w+) = (?<value>\\w+)')).toContain('syntax.txt:2: key = value');
    expect(await one('(?<=prefix_)total')).toContain('syntax.txt:3: prefix_total');
    expect(await one('x\\/y')).toContain('syntax.txt:5: x/y');
    expect(await one('\\bBB\\b')).toContain('syntax.txt:4: AA BB');
    for (const [pattern, says] of [
      ['(\\w)\\1', /backreference \(\\1\)/],
      ['(?<c>\\w)\\k<c>', /backreference \(\\k<…>\)/],
      ['key(?= =)', /lookahead \(\(\?=…\)/],
      ['key(?! x)', /lookahead \(\(\?!…\)/],
    ] as const) {
      const r = await call('search', { pattern, path: 'syntax.txt' });
      expect(r.ok).toBe(false);
      expect(r.content).toMatch(says);
      expect(r.content).toMatch(/linear time/);
    }
    // an escaped backslash before a digit is not a backreference
    write('slash.txt', 'C:\\1dir\n');
    expect((await call('search', { pattern: 'C:\\\\1', path: 'slash.txt' })).content).toContain('slash.txt:1: C:\\1dir');
  });

  test('never searches .git even if the listing names it', async () => {
    const r = await box({ listFiles: async () => ['.git/config', 'README.md'] }).execute('search', '{"pattern":"extraheader"}');
    expect(r.content).toMatch(/No matches/);
  });
});

describe('edit_file', () => {
  test('exact edit writes the file and shows the region', async () => {
    const r = await call('edit_file', {
      path: 'src/math.ts',
      old_string: 'export function add(a: number, b: number) {\n  return a - b;',
      new_string: 'export function add(a: number, b: number) {\n  return a + b;',
    });
    expect(r.ok).toBe(true);
    expect(r.changedPath).toBe('src/math.ts');
    expect(r.content).toMatch(/Edited src\/math.ts at line 1 \(exact match\)/);
    expect(r.content).toContain('   2|   return a + b;');
    expect(r.display).toBe('edit_file src/math.ts: exact match at line 1');
    expect(read('src/math.ts')).toContain('return a + b;\n}\n\nexport function sub');
    expect(read('src/math.ts')).toContain('export function sub(a: number, b: number) {\n  return a - b;');
  });

  test('ambiguous edit leaves the file untouched', async () => {
    const before = read('src/math.ts');
    const r = await call('edit_file', { path: 'src/math.ts', old_string: 'return a - b;', new_string: 'return a + b;' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/edit_file "src\/math.ts": old_string matches 2 places \(lines 2, 6\)/);
    expect(read('src/math.ts')).toBe(before);
  });

  test('indentation rung through the tool, CRLF kept', async () => {
    write('win.py', 'class A:\r\n    def f(self):\r\n        return 1\r\n');
    const r = await call('edit_file', { path: 'win.py', old_string: 'def f(self):\n    return 1\n', new_string: 'def f(self):\n    return 2\n' });
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/ignoring indentation/);
    expect(read('win.py')).toBe('class A:\r\n    def f(self):\r\n        return 2\r\n');
  });

  test('no match names the file and shows the closest region', async () => {
    const r = await call('edit_file', { path: 'src/math.ts', old_string: 'export function sub(a, b) {\n  return a - b;\n}', new_string: 'x' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/^edit_file "src\/math.ts": old_string was not found/);
    expect(r.content).toMatch(/Closest region \(lines 5-7/);
  });

  test('refuses protected, .git, outside, missing and binary files', async () => {
    const wf = await call('edit_file', { path: '.github/workflows/ci.yml', old_string: 'on: push', new_string: 'on: pull_request' });
    expect(wf.ok).toBe(false);
    expect(wf.content).toMatch(/protected \(\.github\/workflows\/\*\*\)/);
    expect(read('.github/workflows/ci.yml')).toBe('on: push\njobs: {}\n');

    const lock = await call('edit_file', { path: 'package-lock.json', old_string: '{}', new_string: '{"a":1}' });
    expect(lock.content).toMatch(/protected \(package-lock\.json\)/);

    const git = await call('edit_file', { path: '.git/config', old_string: 'extraheader', new_string: 'x' });
    expect(git.ok).toBe(false);
    expect(read('.git/config')).toContain('extraheader');

    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'leak.txt'));
    const leak = await call('edit_file', { path: 'leak.txt', old_string: 'top secret', new_string: 'pwned' });
    expect(leak.ok).toBe(false);
    expect(fs.readFileSync(path.join(outside, 'secret.txt'), 'utf8')).toBe('top secret\n');

    const missing = await call('edit_file', { path: 'src/new.ts', old_string: 'a', new_string: 'b' });
    expect(missing.content).toMatch(/"src\/new.ts" does not exist, and no file of the repository ends with "src\/new.ts"\. Nothing was changed\. Use list_files or search/);

    const bin = await call('edit_file', { path: 'assets/logo.png', old_string: 'PNG', new_string: 'GIF' });
    expect(bin.content).toMatch(/binary/);
  });

  test('an edit that changes nothing is reported', async () => {
    write('ws.txt', 'a\nb\n');
    const r = await call('edit_file', { path: 'ws.txt', old_string: 'a  \nb', new_string: 'a\nb' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/exactly as it was/);
  });
});

describe('write_file', () => {
  test('creates files with parent directories, then overwrites', async () => {
    const r = await call('write_file', { path: 'src/new/deep/file.ts', content: 'export const x = 1;\n' });
    expect(r.ok).toBe(true);
    expect(r.changedPath).toBe('src/new/deep/file.ts');
    expect(r.content).toMatch(/^Created src\/new\/deep\/file.ts \(1 line,/);
    expect(read('src/new/deep/file.ts')).toBe('export const x = 1;\n');

    const r2 = await call('write_file', { path: 'src/new/deep/file.ts', content: 'a\nb\n' });
    expect(r2.content).toMatch(/^Overwrote src\/new\/deep\/file.ts \(was 1 line, now 2 lines/);
    expect(read('src/new/deep/file.ts')).toBe('a\nb\n');
  });

  test('refuses NUL bytes, oversize content, protected paths and escapes', async () => {
    expect((await call('write_file', { path: 'a.bin', content: 'a\u0000b' })).content).toMatch(/NUL/);
    expect(fs.existsSync(path.join(root, 'a.bin'))).toBe(false);

    const big = await call('write_file', { path: 'big.txt', content: 'x'.repeat(2000) }, box({ maxFileBytes: 1000 }));
    expect(big.ok).toBe(false);
    expect(fs.existsSync(path.join(root, 'big.txt'))).toBe(false);

    const wf = await call('write_file', { path: '.github/workflows/new.yml', content: 'on: push\n' });
    expect(wf.ok).toBe(false);
    expect(fs.existsSync(path.join(root, '.github/workflows/new.yml'))).toBe(false);

    const esc = await call('write_file', { path: '../escape.txt', content: 'x' });
    expect(esc.ok).toBe(false);
    expect(fs.existsSync(path.join(path.dirname(root), 'escape.txt'))).toBe(false);

    fs.symlinkSync(outside, path.join(root, 'out'));
    const viaLink = await call('write_file', { path: 'out/planted.txt', content: 'x' });
    expect(viaLink.ok).toBe(false);
    expect(fs.existsSync(path.join(outside, 'planted.txt'))).toBe(false);

    const hook = await call('write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' });
    expect(hook.ok).toBe(false);
    expect(fs.existsSync(path.join(root, '.git/hooks/pre-commit'))).toBe(false);
  });

  test('refuses to replace a directory', async () => {
    const r = await call('write_file', { path: 'src', content: 'x' });
    expect(r.ok).toBe(false);
    expect(fs.statSync(path.join(root, 'src')).isDirectory()).toBe(true);
  });
});

describe('edit_file with a unified diff', () => {
  test('wrong @@ numbers and a context line without its leading space are tolerated', async () => {
    const diff = ['--- a/src/math.ts', '+++ b/src/math.ts', '@@ -40,3 +40,3 @@', ' export function add(a: number, b: number) {', '-  return a - b;', '+  return a + b;', '}'].join('\n');
    const r = await call('edit_file', { path: 'src/math.ts', diff });
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/Edited src\/math.ts at line 1 \(1 hunk of the diff, exact match\)/);
    expect(read('src/math.ts')).toBe('export function add(a: number, b: number) {\n  return a + b;\n}\n\nexport function sub(a: number, b: number) {\n  return a - b;\n}\n');
  });

  test('several hunks apply together, or not at all', async () => {
    const good = ['@@ -1 +1 @@', '-export function add(a: number, b: number) {', '+export function add(a: number, b: number): number {', '@@ -5,2 +5,2 @@', ' export function sub(a: number, b: number) {', '-  return a - b;', '+  return b - a;'].join('\n');
    const before = read('src/math.ts');
    const bad = good.replace(' export function sub', ' export function div');
    const r1 = await call('edit_file', { path: 'src/math.ts', diff: bad });
    expect(r1.ok).toBe(false);
    expect(r1.content).toMatch(/Hunk 2 of 2 \(@@ -5,2 \+5,2 @@\): .*not found.*no hunk was applied/s);
    expect(read('src/math.ts')).toBe(before);
    const r2 = await call('edit_file', { path: 'src/math.ts', diff: good });
    expect(r2.ok).toBe(true);
    expect(read('src/math.ts')).toContain('b: number): number {\n  return a - b;');
    expect(read('src/math.ts')).toContain('return b - a;');
  });

  test('a hunk whose reduced context is ambiguous is refused with the candidate lines', async () => {
    const r = await call('edit_file', { path: 'src/math.ts', diff: '@@ -2 +2 @@\n-  return a - b;\n+  return a + b;\n' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/Hunk 1 of 1 .*matches 2 places \(lines 2, 6\)/);
  });

  test('a diff of another file, both input forms, or neither are refused', async () => {
    const two = '--- a/x.ts\n+++ b/x.ts\n@@ -1 +1 @@\n-a\n+b\n--- a/y.ts\n+++ b/y.ts\n@@ -1 +1 @@\n-a\n+b\n';
    expect((await call('edit_file', { path: 'src/math.ts', diff: two })).content).toMatch(/changes 2 files \(x.ts, y.ts\)/);
    expect((await call('edit_file', { path: 'src/math.ts', diff: '@@ -1 +1 @@\n-a\n+b', old_string: 'a', new_string: 'b' })).content).toMatch(/one of: old_string and new_string, diff, or edits/);
    expect((await call('edit_file', { path: 'src/math.ts', old_string: 'a', new_string: 'b', edits: [] })).content).toMatch(/one of: old_string and new_string, diff, or edits/);
    expect((await call('edit_file', { path: 'src/math.ts' })).content).toMatch(/old_string is missing/);
    expect((await call('edit_file', { path: 'src/math.ts', diff: 'just some text' })).content).toMatch(/no hunks|changes nothing/);
  });
});

describe('paths named short', () => {
  test('a unique basename or path tail is resolved to the file, and the result says so', async () => {
    const r = await call('edit_file', { path: 'strings.ts', old_string: '`hello ${n}`', new_string: '`hi ${n}`' });
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/^"strings.ts" does not exist; it was resolved to "src\/util\/strings.ts"/);
    expect(r.changedPath).toBe('src/util/strings.ts');
    expect(read('src/util/strings.ts')).toContain('`hi ${n}`');
    expect(fs.existsSync(path.join(root, 'strings.ts'))).toBe(false);
    const rd = await call('read_file', { path: 'util/strings.ts' });
    expect(rd.content).toMatch(/resolved to "src\/util\/strings.ts"/);
  });

  test('an ambiguous basename is refused with the candidates', async () => {
    write('lib/math.ts', 'export const x = 1;\n');
    const r = await call('edit_file', { path: 'math.ts', old_string: 'x = 1', new_string: 'x = 2' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/2 files end with "math.ts": lib\/math.ts, src\/math.ts/);
    expect(read('lib/math.ts')).toBe('export const x = 1;\n');
  });

  test('a short path never resolves into a protected file', async () => {
    const r = await call('edit_file', { path: 'workflows/ci.yml', old_string: 'on: push', new_string: 'on: pull_request' });
    expect(r.ok).toBe(false);
    expect(read('.github/workflows/ci.yml')).toBe('on: push\njobs: {}\n');
  });

  test('write_file does not silently duplicate a file named short; "./" creates it on purpose', async () => {
    const r = await call('write_file', { path: 'strings.ts', content: 'x\n' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/a file ends with that path: src\/util\/strings.ts.*path "\.\/strings.ts"/s);
    expect(fs.existsSync(path.join(root, 'strings.ts'))).toBe(false);
    const r2 = await call('write_file', { path: './strings.ts', content: 'x\n' });
    expect(r2.ok).toBe(true);
    expect(read('strings.ts')).toBe('x\n');
  });
});

describe('syntax check after an edit: a warning that says where, never a refusal of edit_file', () => {
  test('an edit that leaves a TypeScript file unparseable is applied, and the result says where the parser stops', async () => {
    const r = await call('edit_file', { path: 'src/math.ts', old_string: '  return a - b;\n}\n\nexport function sub(a: number, b: number) {', new_string: '  return a + b;\n\nexport function sub(a: number, b: number) {' });
    expect(r.ok).toBe(true);
    expect(r.display).toBe('edit_file src/math.ts: exact match at line 2 (does not parse)');
    expect(r.content).toMatch(/\nWarning: the file now does not parse as typescript: line \d+, column \d+: [^\n]+:\n\s+\d+\| /);
    expect(r.content).toMatch(/If your next edit completes this change, go on; otherwise fix it/);
    expect(read('src/math.ts')).toBe('export function add(a: number, b: number) {\n  return a + b;\n\nexport function sub(a: number, b: number) {\n  return a - b;\n}\n');
  });

  test('a change in two steps: the first leaves the file unparseable, the second completes it, both apply', async () => {
    write('src/calc.ts', 'export function total(xs: number[]) {\n  let t = 0;\n  for (const x of xs) t += x;\n  return t;\n}\n');
    const open = await call('edit_file', { path: 'src/calc.ts', old_string: '  for (const x of xs) t += x;\n', new_string: '  for (const x of xs) {\n    if (x < 0) continue;\n    t += x;\n' });
    expect(open.ok).toBe(true);
    expect(open.content).toMatch(/Warning: the file now does not parse as typescript/);
    const close = await call('edit_file', { path: 'src/calc.ts', old_string: '    t += x;\n  return t;', new_string: '    t += x;\n  }\n  return t;' });
    expect(close.ok).toBe(true);
    expect(close.content).not.toMatch(/Warning/);
    expect(close.display).toBe('edit_file src/calc.ts: exact match at line 5');
    expect(read('src/calc.ts')).toBe('export function total(xs: number[]) {\n  let t = 0;\n  for (const x of xs) {\n    if (x < 0) continue;\n    t += x;\n  }\n  return t;\n}\n');
  });

  test('the same change as one batch (edits): applied together, checked once, no warning', async () => {
    write('src/calc.ts', 'export function total(xs: number[]) {\n  let t = 0;\n  for (const x of xs) t += x;\n  return t;\n}\n');
    const r = await call('edit_file', {
      path: 'src/calc.ts',
      edits: [
        { old_string: '  for (const x of xs) t += x;\n', new_string: '  for (const x of xs) {\n    if (x < 0) continue;\n    t += x;\n' },
        { old_string: '    t += x;\n  return t;', new_string: '    t += x;\n  }\n  return t;' },
      ],
    });
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(/^Edited src\/calc.ts at line 3 \(2 edits, exact match\)/);
    expect(r.content).not.toMatch(/Warning/);
    expect(r.display).toBe('edit_file src/calc.ts: 2 edits, exact match at line 3');
    expect(read('src/calc.ts')).toBe('export function total(xs: number[]) {\n  let t = 0;\n  for (const x of xs) {\n    if (x < 0) continue;\n    t += x;\n  }\n  return t;\n}\n');
  });

  test('a batch with one edit that does not apply changes nothing and names that edit', async () => {
    const before = read('src/math.ts');
    const r = await call('edit_file', {
      path: 'src/math.ts',
      edits: [
        { old_string: 'export function add(a: number, b: number) {\n  return a - b;', new_string: 'export function add(a: number, b: number) {\n  return a + b;' },
        { old_string: 'return a * b;', new_string: 'return a / b;' },
      ],
    });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/Edit 2 of 2, on the file as the edits before it left it: old_string was not found/);
    expect(r.content).toMatch(/nothing was changed \(no edit of the batch was applied\)/);
    expect(read('src/math.ts')).toBe(before);
    // an ambiguous anchor in a batch is refused the same way
    const amb = await call('edit_file', { path: 'src/math.ts', edits: [{ old_string: 'return a - b;', new_string: 'return a + b;' }] });
    expect(amb.content).toMatch(/Edit 1 of 1: old_string matches 2 places \(lines 2, 6\)/);
    expect(read('src/math.ts')).toBe(before);
    expect((await call('edit_file', { path: 'src/math.ts', edits: [] })).content).toMatch(/edits is empty/);
    expect((await call('edit_file', { path: 'src/math.ts', edits: [{ old_string: 'x' }] })).content).toMatch(/edits\.0\.new_string/);
  });

  test.each([
    ['src/a.js', 'const a = [1, 2];\nexport default a;\n', '[1, 2]', '[1, 2', 'javascript'],
    ['src/c.tsx', 'export const C = () => <div className="x">hi</div>;\n', '<div className="x">', '<div className="x>', 'tsx'],
    ['conf/settings.json', '{\n  "a": 1,\n  "b": 2\n}\n', '"a": 1,', '"a": 1,,', 'json'],
    ['pkg/tool.py', 'def f(x):\n    if x:\n        return 1\n    return 2\n', '    if x:\n', '    if x\n', 'python'],
    ['cmd/main.go', 'package main\n\nfunc main() {\n\tprintln("hi")\n}\n', 'println("hi")', 'println("hi"', 'go'],
  ])('%s: a broken result is written with a warning naming the language and line (%s)', async (file, text, oldS, newS, language) => {
    write(file, text);
    const r = await call('edit_file', { path: file, old_string: oldS, new_string: newS });
    expect(r.ok).toBe(true);
    expect(r.content).toMatch(new RegExp(`Warning: the file now does not parse as ${language}: line \\d+, column \\d+`));
    expect(read(file)).toBe(text.replace(oldS, newS));
  });

  test('valid edits in each language pass without a warning', async () => {
    write('pkg/tool.py', 'def f(x):\n    return 1\n');
    const py = await call('edit_file', { path: 'pkg/tool.py', old_string: '    return 1', new_string: '    if x:\n        return 2\n    return 1' });
    expect(py.ok).toBe(true);
    expect(py.content).not.toMatch(/Warning/);
    write('cmd/main.go', 'package main\n\nfunc main() {\n\tprintln("hi")\n}\n');
    const go = await call('edit_file', { path: 'cmd/main.go', old_string: '    println("hi")', new_string: '    if true {\n        println("hi")\n    }' });
    expect(go.content).not.toMatch(/Warning/);
    expect(read('cmd/main.go')).toBe('package main\n\nfunc main() {\n\tif true {\n\t\tprintln("hi")\n\t}\n}\n');
  });

  test('a file that was already broken: an edit elsewhere gets no warning, one that breaks it further does', async () => {
    write('src/broken.js', 'function a() {\n  return 1\n\nfunction b() {\n  return 2\n}\n');
    const ok1 = await call('edit_file', { path: 'src/broken.js', old_string: 'return 2', new_string: 'return 3' });
    expect(ok1.ok).toBe(true);
    expect(ok1.content).not.toMatch(/Warning/);
    const worse = await call('edit_file', { path: 'src/broken.js', old_string: 'return 3', new_string: 'return (3' });
    expect(worse.ok).toBe(true);
    expect(worse.content).toMatch(/Warning: the file now does not parse as javascript/);
    expect(read('src/broken.js')).toContain('return (3\n');
  });

  test('JSON with comments (tsconfig) is not warned about', async () => {
    write('tsconfig.json', '{\n  // comment\n  "compilerOptions": { "strict": true }\n}\n');
    const r = await call('edit_file', { path: 'tsconfig.json', old_string: '"strict": true', new_string: '"strict": false' });
    expect(r.ok).toBe(true);
    expect(r.content).not.toMatch(/Warning/);
  });

  test('write_file (a whole file, never a step on the way) refuses content that does not parse; other file types are not checked', async () => {
    const r = await call('write_file', { path: 'src/new.ts', content: 'export const x = ;\n' });
    expect(r.ok).toBe(false);
    expect(r.content).toMatch(/^write_file "src\/new.ts": the content does not parse as typescript: line 1, column \d+: [^\n]+:\n\s*1\| export const x = ;\nNothing was written\./);
    expect(fs.existsSync(path.join(root, 'src/new.ts'))).toBe(false);
    expect((await call('write_file', { path: 'notes.txt', content: 'export const x = ;\n' })).ok).toBe(true);
    const md = await call('edit_file', { path: 'README.md', old_string: 'Call add(1, 2).', new_string: 'Call add(1, 2' });
    expect(md.ok).toBe(true);
    expect(md.content).not.toMatch(/Warning/);
  });
});
