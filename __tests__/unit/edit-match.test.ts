import { applyEdit, applyEdits } from '../../src/agent/edit-match.js';

function ok(content: string, oldS: string, newS: string) {
  const r = applyEdit(content, oldS, newS);
  if (!r.ok) throw new Error(`expected success, got: ${r.error}`);
  return r;
}

function err(content: string, oldS: string, newS: string): string {
  const r = applyEdit(content, oldS, newS);
  if (r.ok) throw new Error(`expected failure, got rung ${r.rung}:\n${r.content}`);
  return r.error;
}

const SRC = [
  'export function add(a, b) {',
  '  return a - b;',
  '}',
  '',
  'export function mul(a, b) {',
  '  return a * b;',
  '}',
  '',
].join('\n');

describe('guards', () => {
  test('empty old_string points to write_file', () => {
    expect(err(SRC, '', 'x')).toMatch(/write_file/);
  });

  test('an ambiguous anchor lists the lines of every match (up to 40), so the model can add context to the one it means', () => {
    const many = Array.from({ length: 12 }, (_, i) => `case ${i}:\n  return x;\n`).join('');
    const e = err(many, '  return x;', '  return y;');
    expect(e).toMatch(/^old_string matches 12 places \(lines 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24\); nothing was changed\. Include more surrounding lines/);
  });

  test('empty old_string on an empty file fills it (one place to write to; httpx `_transports/__init__.py`)', () => {
    expect(applyEdit('', '', 'from .base import *\n')).toEqual({ ok: true, content: 'from .base import *\n', rung: 'exact', line: 1 });
    // control: a file with anything in it still needs an anchor
    expect(err('\n', '', 'x')).toMatch(/write_file/);
  });

  test('identical old and new are refused', () => {
    expect(err(SRC, 'return a - b;', 'return a - b;')).toMatch(/identical/);
  });
});

describe('exact rung', () => {
  test('unique substring is replaced, line reported', () => {
    const r = ok(SRC, 'a - b;', 'a + b;');
    expect(r.rung).toBe('exact');
    expect(r.line).toBe(2);
    expect(r.content).toBe(SRC.replace('a - b', 'a + b'));
  });

  test('multi-line exact block', () => {
    const r = ok(SRC, 'export function mul(a, b) {\n  return a * b;\n}', 'export const mul = (a, b) => a * b;');
    expect(r.rung).toBe('exact');
    expect(r.line).toBe(5);
    expect(r.content.endsWith('}\n\nexport const mul = (a, b) => a * b;\n')).toBe(true);
    expect(r.content).not.toContain('return a * b');
  });

  test('ambiguous exact match is refused with count and lines, never falls through', () => {
    const e = err(SRC, '(a, b) {', '(x, y) {');
    expect(e).toMatch(/2 places/);
    expect(e).toMatch(/lines 1, 5/);
    expect(e).toMatch(/more surrounding lines/);
    // the loose rungs would also have found something; still refused
    const e2 = err('  x = 1;\nx = 1;\n', 'x = 1;', 'x = 2;');
    expect(e2).toMatch(/2 places \(lines 1, 2\)/);
  });

  test('deletion with an empty new_string', () => {
    const r = ok(SRC, 'export function mul(a, b) {\n  return a * b;\n}\n', '');
    expect(r.content).toBe('export function add(a, b) {\n  return a - b;\n}\n\n');
  });

  test('single-line exact edit in a CRLF file keeps CRLF in multi-line new text', () => {
    const crlf = 'a();\r\nb();\r\n';
    const r = ok(crlf, 'b();', 'b1();\nb2();');
    expect(r.rung).toBe('exact');
    expect(r.content).toBe('a();\r\nb1();\r\nb2();\r\n');
  });
});

describe('whitespace rung', () => {
  test('CRLF file, model sends LF: matches and keeps CRLF', () => {
    const file = 'one\r\ntwo\r\nthree\r\nfour\r\n';
    const r = ok(file, 'two\nthree\n', 'TWO\nTHREE\n');
    expect(r.rung).toBe('whitespace');
    expect(r.line).toBe(2);
    expect(r.content).toBe('one\r\nTWO\r\nTHREE\r\nfour\r\n');
  });

  test('LF file, model sends CRLF: result stays LF', () => {
    const file = 'one\ntwo\nthree\n';
    const r = ok(file, 'one\r\ntwo', 'uno\r\ndos');
    expect(r.rung).toBe('whitespace');
    expect(r.content).toBe('uno\ndos\nthree\n');
  });

  test('trailing whitespace in the file is ignored', () => {
    const file = 'if (x) {   \n  go();\t\n}\n';
    const r = ok(file, 'if (x) {\n  go();\n}', 'if (x) {\n  stop();\n}');
    expect(r.rung).toBe('whitespace');
    expect(r.line).toBe(1);
    // the kept line stays byte for byte (its trailing whitespace too); only the changed line is rewritten
    expect(r.content).toBe('if (x) {   \n  stop();\n}\n');
  });

  test('old_string without a final newline keeps the line break after the region', () => {
    const file = 'a  \nb  \nc\n';
    const r = ok(file, 'a\nb', 'x');
    expect(r.content).toBe('x\nc\n');
  });

  test('ambiguity is refused at this rung', () => {
    const file = 'x = 1;  \ny = 2;\n\nx = 1;\ny = 2;  \n';
    const e = err(file, 'x = 1;\ny = 2;\n', 'z = 3;\n');
    expect(e).toMatch(/2 places when trailing whitespace and line endings are ignored \(lines 1, 4\)/);
  });
});

describe('indentation rung', () => {
  const py = ['class A:', '    def f(self):', '        if self.x:', '            return 1', '        return 2', ''].join('\n');

  test('dedented block matches and new_string is re-indented', () => {
    const r = ok(py, 'if self.x:\n    return 1\nreturn 2', 'if self.x:\n    return 10\n\nreturn 20');
    expect(r.rung).toBe('indentation');
    expect(r.line).toBe(3);
    expect(r.content).toBe(
      ['class A:', '    def f(self):', '        if self.x:', '            return 10', '', '        return 20', ''].join('\n'),
    );
  });

  test('over-indented block (model added a prefix) is shifted back', () => {
    const file = 'function f() {\n  if (a) {\n    b();\n  }\n}\n';
    const r = ok(file, '      if (a) {\n        b();\n      }', '      if (a) {\n        c();\n      }\n      d();');
    expect(r.rung).toBe('indentation');
    expect(r.content).toBe('function f() {\n  if (a) {\n    c();\n  }\n  d();\n}\n');
  });

  test('new lines less indented than the block base are outdented from the file base', () => {
    const file = 'def f():\n    x = 1\n    y = 2\n';
    const r = ok(file, '  x = 1\n  y = 2\n', '  x = 1\ny = 3\n');
    expect(r.rung).toBe('indentation');
    expect(r.content).toBe('def f():\n    x = 1\n  y = 3\n');
  });

  test('ambiguity is refused at this rung', () => {
    const file = 'a:\n  b: 1\n  c: 2\nd:\n    b: 1\n    c: 2\n';
    const e = err(file, 'b: 1\nc: 2', 'b: 9\nc: 9');
    expect(e).toMatch(/2 places when indentation is ignored \(lines 2, 5\)/);
  });

  test('relative indentation inside the block must agree', () => {
    const file = 'def f():\n    if x:\n        y()\n';
    // model's block is flat: not a uniform shift
    const e = err(file, 'if x:\ny()', 'if x:\nz()');
    expect(e).toMatch(/not found/);
  });
});

describe('elision rung', () => {
  const file = [
    'function big() {',
    '  const a = 1;',
    '  const b = 2;',
    '  const c = 3;',
    '  return a + b + c;',
    '}',
    '',
    'function other() {',
    '  return 0;',
    '}',
    '',
  ].join('\n');

  test('replaces everything from the first to the last quoted line', () => {
    const r = ok(file, 'function big() {\n...\n  return a + b + c;\n}', 'function big() {\n  return 6;\n}');
    expect(r.rung).toBe('elision');
    expect(r.line).toBe(1);
    expect(r.content).toBe('function big() {\n  return 6;\n}\n\nfunction other() {\n  return 0;\n}\n');
  });

  test('comment-style markers count as elision', () => {
    const r = ok(file, '  const a = 1;\n  // ...\n  return a + b + c;', '  return 6;');
    expect(r.rung).toBe('elision');
    expect(r.line).toBe(2);
    expect(r.content.split('\n').slice(0, 3)).toEqual(['function big() {', '  return 6;', '}']);
    const r2 = ok('x = 1\ny = 2\nz = 3\n', 'x = 1\n# ...\nz = 3\n', 'w = 0\n');
    expect(r2.content).toBe('w = 0\n');
  });

  test('same number of markers in new_string keeps the elided lines', () => {
    const r = ok(file, 'function big() {\n...\n  return a + b + c;\n', 'function big(): number {\n...\n  return a * b * c;\n');
    expect(r.rung).toBe('elision');
    expect(r.content.split('\n').slice(0, 6)).toEqual([
      'function big(): number {',
      '  const a = 1;',
      '  const b = 2;',
      '  const c = 3;',
      '  return a * b * c;',
      '}',
    ]);
  });

  test('works on a CRLF file and keeps CRLF', () => {
    const crlf = file.replace(/\n/g, '\r\n');
    const r = ok(crlf, 'function big() {\n...\n  return a + b + c;\n}\n', 'function big() {\n  return 6;\n}\n');
    expect(r.content).toBe('function big() {\r\n  return 6;\r\n}\r\n\r\nfunction other() {\r\n  return 0;\r\n}\r\n');
  });

  test('the part before ... must be unique', () => {
    const e = err(file, '}\n...\n  return 0;', 'x');
    expect(e).toMatch(/part before the first "\.\.\." of old_string matches 2 places/);
  });

  test('the part after ... must be unique after the first part', () => {
    const e = err(file, 'function big() {\n...\n}', 'x');
    expect(e).toMatch(/part after the last "\.\.\." of old_string matches 2 places/);
  });

  test('order matters: the after-part must come after the before-part', () => {
    const e = err(file, 'function other() {\n...\n  const a = 1;', 'x');
    expect(e).toMatch(/part after the last "\.\.\." of old_string was not found/);
  });

  test('elision at the start or end is refused', () => {
    expect(err(file, '...\n  return a + b + c;\n}', 'x')).toMatch(/must start and end with real lines/);
    expect(err(file, 'function big() {\n...', 'x')).toMatch(/must start and end with real lines/);
  });

  test('mismatched marker counts are refused', () => {
    const e = err(file, 'function big() {\n...\n  const c = 3;\n...\nfunction other() {', 'a\n...\nb');
    expect(e).toMatch(/old_string has 2 "\.\.\." lines but new_string has 1/);
  });

  test('a literal ... in the file is matched exactly first (Python Ellipsis)', () => {
    const pyFile = 'def f():\n    ...\n';
    const r = ok(pyFile, 'def f():\n    ...', 'def f():\n    return 1');
    expect(r.rung).toBe('exact');
    expect(r.content).toBe('def f():\n    return 1\n');
  });
});

describe('no match', () => {
  test('reports nothing changed and the closest region with line numbers', () => {
    const e = err(SRC, 'export function mul(a, b) {\n  return a * c;\n}', 'x');
    expect(e).toMatch(/not found/);
    expect(e).toMatch(/nothing was changed/);
    expect(e).toMatch(/Closest region \(lines 5-7/);
    expect(e).toContain('6|   return a * b;');
    expect(e).toMatch(/First difference at line 6/);
  });

  test('error stays short for huge old_string and files', () => {
    const big = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'x'.repeat(100)}`).join('\n');
    const old = Array.from({ length: 200 }, (_, i) => `nope ${i} ${'y'.repeat(300)}`).join('\n');
    const e = err(big, old, 'z');
    expect(e.length).toBeLessThanOrEqual(1500);
    expect(e).toMatch(/Closest region/);
  });

  test('empty file', () => {
    expect(err('', 'x', 'y')).toMatch(/not found/);
  });
});

describe('line boundaries', () => {
  const file = 'function f() {\n    if (a) {\n        go();\n    }\n}\n';

  test('an anchor indented too little is not matched inside a longer indentation; the new lines follow the file', () => {
    const r = ok(file, '  go();\n', '  go();\n  stop();\n');
    expect(r.rung).toBe('indentation');
    expect(r.content).toBe('function f() {\n    if (a) {\n        go();\n        stop();\n    }\n}\n');
  });

  test('a one-line anchor with its indentation left out still re-indents the lines it adds', () => {
    const r = ok(file, 'go();', 'go();\nstop();');
    expect(r.content).toBe('function f() {\n    if (a) {\n        go();\n        stop();\n    }\n}\n');
  });

  test('a fragment at the start of a line keeps the line indentation for added lines', () => {
    const r = ok('x:\n    call(a, b)\n', 'call(a,', 'call(\n    a,');
    expect(r.rung).toBe('exact');
    expect(r.content).toBe('x:\n    call(\n        a, b)\n');
  });

  test('a multi-line anchor that starts inside another identifier is not an exact match', () => {
    const src = 'const ax = 1;\nconst b = 2;\n';
    const e = err(src, 'x = 1;\nconst b = 2;', 'x = 3;\nconst b = 4;');
    expect(e).toMatch(/not found/);
  });

  test('a single-line anchor that is inside a line but unique is a fragment edit', () => {
    const r = ok('const total = price * qty;\n', 'price * qty', 'price * qty * (1 + tax)');
    expect(r.content).toBe('const total = price * qty * (1 + tax);\n');
  });

  test('the same line at two indentations is ambiguous once indentation is ignored', () => {
    const src = 'a {\n  x();\n}\nb {\n    x();\n}\n';
    const e = err(src, '   x();', '   y();');
    expect(e).toMatch(/2 places when indentation is ignored \(lines 2, 5\)/);
  });
});

describe('re-indentation in whole units', () => {
  const go = ['func f() {', '\tif x {', '\t\treturn 1', '\t}', '\treturn 2', '}', ''].join('\n');

  test('tab-indented Go: the model writes 4 spaces, the result is tabs', () => {
    const r = ok(go, '    if x {\n        return 1\n    }\n', '    if x {\n        log()\n        return 1\n    }\n');
    expect(r.rung).toBe('indentation');
    expect(r.content).toBe(['func f() {', '\tif x {', '\t\tlog()', '\t\treturn 1', '\t}', '\treturn 2', '}', ''].join('\n'));
  });

  test('tab-indented: the model writes 2 spaces per tab', () => {
    const r = ok(go, '  if x {\n    return 1\n  }', '  if x {\n    return 3\n  }');
    expect(r.content).toContain('\tif x {\n\t\treturn 3\n\t}');
  });

  test('a Makefile recipe keeps its tab', () => {
    const mk = 'build:\n\tgo build ./...\n\ntest:\n\tgo test ./...\n';
    const r = ok(mk, 'test:\n    go test ./...\n', 'test:\n    go test -race ./...\n');
    expect(r.content).toBe('build:\n\tgo build ./...\n\ntest:\n\tgo test -race ./...\n');
  });

  test('space-indented file, the model writes tabs: spaces in the file\'s unit', () => {
    const js = 'function f() {\n  if (a) {\n    b();\n  }\n}\n';
    const r = ok(js, '\tif (a) {\n\t\tb();\n\t}', '\tif (a) {\n\t\tb();\n\t\tc();\n\t}');
    expect(r.content).toBe('function f() {\n  if (a) {\n    b();\n    c();\n  }\n}\n');
  });

  test('Python: a method body shifted left by the model keeps its nesting', () => {
    const py = ['class A:', '    def f(self, x):', '        if x:', '            return 1', '        return 2', ''].join('\n');
    const r = ok(py, 'def f(self, x):\n    if x:\n        return 1\n    return 2\n', 'def f(self, x):\n    if x is None:\n        raise ValueError(x)\n    if x:\n        return 1\n    return 2\n');
    expect(r.content).toBe(
      ['class A:', '    def f(self, x):', '        if x is None:', '            raise ValueError(x)', '        if x:', '            return 1', '        return 2', ''].join('\n'),
    );
  });

  test('whitespace-only lines of a template literal survive re-indentation, kept and added', () => {
    const ts = ['function page() {', '    return `', '        <p>', '        ', '        </p>', '    `;', '}', ''].join('\n');
    const r = ok(ts, '  return `\n      <p>\n      \n      </p>\n  `;', '  return `\n      <p>\n      \n      </p>\n      \n  `;');
    const lines = r.content.split('\n');
    expect(lines[3]).toBe('        '); // kept as the file has it
    expect(lines[5]).toBe('      '); // added: written as the model wrote it, not emptied or shifted
    expect(lines[4]).toBe('        </p>');
  });

  test('kept lines keep their bytes (trailing whitespace, alignment spaces in a tab file)', () => {
    const c = '\t/**  \n\t * doc\n\t */\n\tfunc()\n';
    const r = ok(c, '    /**\n     * doc\n     */\n    func()', '    /**\n     * doc\n     */\n    func2()');
    expect(r.content).toBe('\t/**  \n\t * doc\n\t */\n\tfunc2()\n');
  });
});

describe('one blank line more or less', () => {
  const file = ['def a():', '    x = 1', '', '    return x', '', '', 'def b():', '    pass', ''].join('\n');

  test('old_string lacks a blank line the file has: matched, and the blank line stays', () => {
    const r = ok(file, '    x = 1\n    return x\n', '    x = 2\n    return x\n');
    expect(r.rung).toBe('blank-lines');
    expect(r.content).toBe(file.replace('x = 1', 'x = 2'));
  });

  test('old_string has an extra blank line: matched, and no blank line is added', () => {
    const r = ok(file, 'def b():\n\n    pass\n', 'def b():\n\n    return None\n');
    expect(r.rung).toBe('blank-lines');
    expect(r.content).toBe(file.replace('    pass', '    return None'));
  });

  test('combined with an indentation slip', () => {
    const r = ok(file, 'x = 1\nreturn x', 'x = 3\nreturn x');
    expect(r.content).toBe(file.replace('x = 1', 'x = 3'));
  });

  test('two missing blank lines are not tolerated', () => {
    expect(err(file, '    return x\ndef b():', 'x')).toMatch(/not found/);
  });

  test('a blank line between two deleted lines goes with them', () => {
    const r = ok(file, '    x = 1\n    return x\n', '    return 0\n');
    expect(r.content).toBe(['def a():', '    return 0', '', '', 'def b():', '    pass', ''].join('\n'));
  });

  test('a function rewritten whole, one of two blank lines before the next one left out: the run stays ahead of it', () => {
    const src = ['def show(items):', '    if not items:', '        return None', '    for item in items:', '        print(item)', '    return len(items)', '', '', 'def other():', '    pass', ''].join('\n');
    const oldS = ['def show(items):', '    if not items:', '        return None', '    for item in items:', '        print(item)', '    return len(items)', '', 'def other():', ''].join('\n');
    const body = ['def show(items):', '    if not items:', '        return None', '', '    count = 0', '    for item in items:', '        count += 1', '', '    return count'];
    const r = ok(src, oldS, [...body, '', 'def other():', ''].join('\n'));
    expect(r.rung).toBe('blank-lines');
    expect(r.content).toBe([...body, '', '', 'def other():', '    pass', ''].join('\n'));
  });

  test('a function inserted between two, one of the two blank lines after the kept one above left out: the run stays after it', () => {
    const src = ['def first():', '    return 1', '', '', 'def last():', '    return 2', ''].join('\n');
    const added = ['def middle():', '    return 3', '', ''];
    const r = ok(src, ['    return 1', '', 'def last():', ''].join('\n'), ['    return 1', '', ...added, 'def last():', ''].join('\n'));
    expect(r.rung).toBe('blank-lines');
    expect(r.content).toBe(['def first():', '    return 1', '', '', ...added, 'def last():', '    return 2', ''].join('\n'));
  });

  test('ambiguity is still refused', () => {
    const src = 'a = 1\n\nb = 2\nc\na = 1\n\nb = 2\n';
    expect(err(src, 'a = 1\nb = 2', 'a = 9\nb = 9')).toMatch(/2 places when one blank line more or less is allowed \(lines 1, 5\)/);
    // a strict match wins before the tolerant rung is asked
    const src2 = 'a = 1\n\nb = 2\nc\na = 1\nb = 2\n';
    expect(ok(src2, 'a = 1\nb = 2', 'a = 9\nb = 9').content).toBe('a = 1\n\nb = 2\nc\na = 9\nb = 9\n');
  });
});

describe('elision tolerates the same slips', () => {
  const file = ['class K {', '    run() {', '        const a = 1;', '        const b = 2;', '        const c = 3;', '        return a + b + c;', '    }', '}', ''].join('\n');

  test('pieces indented too little, new_string re-indented by the first piece', () => {
    const r = ok(file, '  run() {\n  ...\n      return a + b + c;\n  }', '  run() {\n      return 6;\n  }');
    expect(r.rung).toBe('elision');
    expect(r.content).toBe(['class K {', '    run() {', '        return 6;', '    }', '}', ''].join('\n'));
  });

  test('piecewise with tabs for spaces and trailing whitespace', () => {
    const r = ok(file, '\trun() {  \n\t...\n\t\treturn a + b + c;', '\trun(): number {\n\t...\n\t\treturn a * b * c;');
    expect(r.content).toBe(file.replace('run() {', 'run(): number {').replace('a + b + c', 'a * b * c'));
  });

  test('a piece with one blank line missing', () => {
    const f2 = file.replace('        const b = 2;\n', '        const b = 2;\n\n');
    const r = ok(f2, '    run() {\n        const a = 1;\n        const b = 2;\n        const c = 3;\n...\n    }', '    run() {\n        return 6;\n    }');
    expect(r.content).toBe(['class K {', '    run() {', '        return 6;', '    }', '}', ''].join('\n'));
  });

  test('a CRLF file with an indentation slip', () => {
    const crlf = file.replace(/\n/g, '\r\n');
    const r = ok(crlf, 'run() {\n...\n    return a + b + c;\n}\n', 'run() {\n    return 0;\n}\n');
    expect(r.content).toBe(['class K {', '    run() {', '        return 0;', '    }', '}', ''].join('\r\n'));
  });
});

describe('more slips, combined', () => {
  test('CRLF file, the model sends LF with an indentation shift: CRLF and the file indentation kept', () => {
    const file = 'class A:\r\n    def f(self):\r\n        return 1\r\n';
    const r = ok(file, 'def f(self):\n    return 1\n', 'def f(self):\n    x = 1\n    return x\n');
    expect(r.content).toBe('class A:\r\n    def f(self):\r\n        x = 1\r\n        return x\r\n');
  });

  test('tabs for spaces plus trailing whitespace on the anchor', () => {
    const go = 'func f() {\n\tif x {\n\t\ty()\n\t}\n}\n';
    const r = ok(go, '    if x {  \n        y() \n    }', '    if x {\n        z()\n    }');
    expect(r.content).toBe('func f() {\n\tif x {\n\t\tz()\n\t}\n}\n');
  });

  test('an exact anchor with tab-indented new lines in a space-only file gets spaces', () => {
    const js = 'function f() {\n  a();\n}\n\nfunction g() {}\n';
    const r = ok(js, 'function g() {}', 'function g() {\n\treturn 1;\n}');
    expect(r.rung).toBe('exact');
    expect(r.content).toBe('function f() {\n  a();\n}\n\nfunction g() {\n  return 1;\n}\n');
  });

  test('a Makefile with both styles keeps the tabs the model sends', () => {
    const mk = 'VAR = a \\\n    b\nall:\n\techo hi\n';
    const r = ok(mk, 'all:\n\techo hi', 'all:\n\techo hi\n\techo bye');
    expect(r.content).toBe('VAR = a \\\n    b\nall:\n\techo hi\n\techo bye\n');
  });

  test('old_string ending with a line break replaced by text without one takes the break away, on the line rungs too', () => {
    const file = 'a\n  b  \n\nc\n';
    // the model removes the blank line after b by quoting it with its line break
    const r = ok(file, '  b\n', '  b');
    expect(r.content).toBe('a\n  b  \nc\n'); // the kept line keeps its bytes
  });

  test('deleting whole lines on a line rung removes them with their line break', () => {
    const file = 'keep1\n    drop1  \n    drop2\nkeep2\n';
    expect(ok(file, '  drop1\n  drop2', '').content).toBe('keep1\nkeep2\n');
    // a whole line quoted without its indentation: the line goes, with the break before it at the end of the file
    expect(ok('x\n  last  ', 'last', '').content).toBe('x');
  });

  test('an indentation-shifted anchor whose text occurs twice at different depths is refused, not guessed', () => {
    const py = 'def a():\n    if x:\n        return 1\n\ndef b():\n        if x:\n            return 1\n';
    expect(err(py, '  if x:\n      return 1', '  if y:\n      return 1')).toMatch(/2 places when indentation is ignored \(lines 2, 6\)/);
  });

  test('piecewise elision keeps the skipped lines byte for byte, including whitespace-only ones', () => {
    const ts = 'const t = `\n  a\n    \n  b\n`;\nconst u = 1;\n';
    const r = ok(ts, 'const t = `\n...\nconst u = 1;', 'const t = String.raw`\n...\nconst u = 2;');
    expect(r.content).toBe('const t = String.raw`\n  a\n    \n  b\n`;\nconst u = 2;\n');
  });
});

describe('the file\'s layout is mapped back onto new_string, or the edit is refused (issue 23)', () => {
  // old_string and new_string the way a model slips: new_string copied from the file (right),
  // old_string typed with a blank line too few or too many (wrong)
  const js = ['function a() {', '  const x = 1;', '', '  return x;', '}', '', 'function b() {', '  return 2;', '}', ''].join('\n');

  test('blank line missing from old_string only: the blank line new_string copied is the file\'s, not a second one', () => {
    const r = ok(js, '  const x = 1;\n  return x;\n', '  const x = 2;\n\n  return x;\n');
    expect(r.rung).toBe('blank-lines');
    expect(r.content).toBe(js.replace('const x = 1', 'const x = 2'));
  });

  test('blank line added to old_string only: new_string without it does not remove anything the file has', () => {
    const r = ok(js, 'function b() {\n\n  return 2;\n', 'function b() {\n  return 3;\n');
    expect(r.rung).toBe('blank-lines');
    expect(r.content).toBe(js.replace('return 2', 'return 3'));
  });

  test('blank line missing from old_string and new_string: the file\'s blank line stays (whitespace-only bytes too)', () => {
    const file = 'a = 1\n   \nb = 2\nc = 3\n';
    const r = ok(file, 'a = 1\nb = 2\n', 'a = 1\nb = 20\n');
    expect(r.content).toBe('a = 1\n   \nb = 20\nc = 3\n');
  });

  test('a blank run the model changed is written as the model wrote it', () => {
    const file = 'A\n\n\nB\nC\n';
    // the model saw one blank line between A and B and removed it: none is left
    expect(ok(file, 'A\n\nB\n', 'A\nB\n').content).toBe('A\nB\nC\n');
    // the model saw none and added one: the file already has two, written as the model wrote it (one)
    expect(ok('A\n\nB\nC\n', 'A\nB\nC\n', 'A\n\n\nB\nC\n').content).toBe('A\n\n\nB\nC\n');
  });

  test('a blank line between two replaced lines goes with them', () => {
    const r = ok('A\n\nB\nC\n', 'A\nB\nC\n', 'X\nC\n');
    expect(r.content).toBe('X\nC\n');
  });

  test('a blank line next to a kept line stays with it when the line after it is replaced', () => {
    expect(ok('A\n\nB\nC\n', 'A\nB\nC\n', 'A\nX\nC\n').content).toBe('A\n\nX\nC\n');
    expect(ok('A\nB\n\nC\n', 'A\nB\nC\n', 'A\nX\nC\n').content).toBe('A\nX\n\nC\n');
  });

  test('indentation shifted and a blank line missing from old_string only: re-indented, the blank line single', () => {
    const py = ['class A:', '    def f(self):', '        x = 1', '', '        return x', ''].join('\n');
    const r = ok(py, 'def f(self):\n    x = 1\n    return x\n', 'def f(self):\n    x = 2\n    return x\n');
    expect(r.rung).toBe('blank-lines');
    expect(r.content).toBe(['class A:', '    def f(self):', '        x = 2', '', '        return x', ''].join('\n'));
    // the line after the left-out blank line replaced by lines with a blank line of their own: which one is the file's is ambiguous
    expect(err(py, 'def f(self):\n    x = 1\n    return x\n', 'def f(self):\n    x = 1\n    y = x\n\n    return y\n')).toMatch(
      /^old_string matches lines 3-5 only if blank lines are ignored \(the file has 1 blank line there and old_string has none\), and new_string changes the lines right there/,
    );
  });

  test('CRLF file, LF old_string with a blank line too many: CRLF kept, no blank line added or lost', () => {
    const crlf = js.replace(/\n/g, '\r\n');
    const r = ok(crlf, '  const x = 1;\n\n\n  return x;\n', '  const x = 1;\n\n\n  return x + 1;\n');
    expect(r.content).toBe(js.replace('return x;', 'return x + 1;').replace(/\n/g, '\r\n'));
  });

  test('trailing spaces: kept lines keep the file\'s, the changed line is new_string\'s', () => {
    const file = 'if (a) {  \n  go();\t\n\n  stop();\n}\n';
    const r = ok(file, 'if (a) {\n  go();\n  stop();\n}', 'if (a) {\n  go();\n  halt();\n}');
    expect(r.content).toBe('if (a) {  \n  go();\t\n\n  halt();\n}\n');
  });

  test('a change of whitespace alone is a change: a whitespace-only line emptied on the indentation rung', () => {
    const file = 'function f() {\n  if (a) {\n    x = 1\n    \n    return x\n  }\n}\n';
    const r = ok(file, 'if (a) {\n  x = 1\n  \n  return x\n}', 'if (a) {\n  x = 1\n\n  return x\n}');
    expect(r.rung).toBe('indentation');
    expect(r.content).toBe('function f() {\n  if (a) {\n    x = 1\n\n    return x\n  }\n}\n');
  });

  test('elision, whole span: a blank line missing from a quoted piece is kept, the copied first line keeps its bytes', () => {
    const file = ['def run():  ', '    a = 1', '', '    b = 2', '    c = 3', '    return a + b + c', '', 'def other():', '    pass', ''].join('\n');
    const r = ok(file, 'def run():\n    a = 1\n    b = 2\n...\n    return a + b + c\n', 'def run():\n    a = 1\n\n    return a\n');
    expect(r.rung).toBe('elision');
    expect(r.content).toBe(['def run():  ', '    a = 1', '', '    return a', '', 'def other():', '    pass', ''].join('\n'));
  });

  test('elision, piecewise, with a blank line too many in a piece: nothing added', () => {
    const file = ['def run():', '    a = 1', '    b = 2', '    c = 3', '    return a', ''].join('\n');
    const r = ok(file, 'def run():\n\n    a = 1\n...\n    return a\n', 'def run():\n\n    a = 10\n...\n    return a\n');
    expect(r.content).toBe(file.replace('a = 1', 'a = 10'));
  });

  test('old_string ending inside a run of blank lines, new_string with the file\'s whole run: not doubled', () => {
    const py = ['def a():', '    f()', '', '', 'def b():', '    pass', ''].join('\n');
    // quoted: "    f()" and one of the two blank lines (not at a line break: the line rungs see it)
    const r = ok(py, '  def a():\n      f()\n\n', '  def a():\n      g()\n      f()\n\n\n');
    expect(r.rung).toBe('indentation');
    expect(r.content).toBe(['def a():', '    g()', '    f()', '', '', 'def b():', '    pass', ''].join('\n'));
  });

  test('new_string inserting lines right where the file has a blank line old_string left out is refused, with the file\'s lines', () => {
    const e = err(js, '  const x = 1;\n  return x;\n', '  const x = 1;\n  log(x);\n  return x;\n');
    expect(e).toMatch(/^old_string matches lines 2-4 only if blank lines are ignored \(the file has 1 blank line there and old_string has none\), and new_string changes the lines right there/);
    expect(e).toContain('2|   const x = 1;\n3| \n4|   return x;');
    expect(e).toMatch(/Send old_string with the blank lines exactly as the file has them\.$/);
  });

  test('the same with a blank line too many in old_string, new_string keeping it on both sides of the insertion: refused', () => {
    const file = 'A\nB\n';
    const e = err(file, 'A\n\nB\n', 'A\n\nX\n\nB\n');
    expect(e).toMatch(/old_string has 1 blank line there and the file has none/);
    expect(err(file, 'A\n\nB\n', 'A\n\nX\n\nB\n')).toBe(e);
  });

  test('with the blank line quoted, the same insertion applies', () => {
    const r = ok(js, '  const x = 1;\n\n  return x;\n', '  const x = 1;\n  log(x);\n\n  return x;\n');
    expect(r.rung).toBe('exact');
    expect(r.content).toBe(js.replace('  const x = 1;\n', '  const x = 1;\n  log(x);\n'));
  });
});

describe('applyEdits: a batch of one file', () => {
  test('applied in order, each on the result of the ones before; the loosest rung and the first changed line', () => {
    const r = applyEdits(SRC, [
      { old_string: '  return a * b;', new_string: '  return a * b * 1;' },
      { old_string: 'return a - b;', new_string: 'return a + b;' },
      { old_string: 'export function add(a, b) {\n\n  return a + b;', new_string: 'export function add(a, b) {\n  return b + a;' },
    ]);
    if (!r.ok) throw new Error(r.error);
    expect(r.content).toBe(SRC.replace('a - b', 'b + a').replace('a * b', 'a * b * 1'));
    expect(r.rung).toBe('blank-lines');
    expect(r.line).toBe(1);
    expect(r.count).toBe(3);
  });

  test('one edit that does not apply: nothing, and which one', () => {
    const r = applyEdits(SRC, [
      { old_string: 'return a - b;', new_string: 'return a + b;' },
      { old_string: 'return a - b;', new_string: 'return 0;' },
    ]);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^Edit 2 of 2, on the file as the edits before it left it: old_string was not found .*nothing was changed \(no edit of the batch was applied\)/s);
  });
});

describe('a repeated line the line diff may pair either way', () => {
  test('a block inserted after a closing brace that old_string quoted without the blank line after it: the blank line stays after the last brace', () => {
    const go = ['type Options struct {', '\tHidden bool', '}', '', '// Completion is a string', 'type Completion = string', ''].join('\n');
    const r = ok(go, '\tHidden bool\n}\n// Completion is a string\n', '\tHidden bool\n}\n\nfunc (o *Options) Set() {\n\to.Hidden = true\n}\n// Completion is a string\n');
    expect(r.rung).toBe('blank-lines');
    expect(r.content).toBe(['type Options struct {', '\tHidden bool', '}', '', 'func (o *Options) Set() {', '\to.Hidden = true', '}', '', '// Completion is a string', 'type Completion = string', ''].join('\n'));
  });
});

describe('indentation the model means', () => {
  test('a tab-indented Go file: new lines with spaces inside a raw string stay spaces when the model indents its code with tabs', () => {
    const go = 'package main\n\nfunc f() bool {\n\treturn true\n}\n';
    const added = '\nvar tmpl = `Usage:\n  {{.UseLine}}\n`\n\nfunc g() {\n\tprintln(tmpl)\n}\n';
    const r = ok(go, 'func f() bool {\n\treturn true\n}\n', 'func f() bool {\n\treturn true\n}\n' + added);
    expect(r.rung).toBe('exact');
    expect(r.content).toBe(go + added);
  });
});

describe('indentation the model means, continued', () => {
  test('a space-indented file, the model quotes a doc comment (" * ") and writes its code with tabs: converted to the file\'s spaces', () => {
    const ts = 'export type Q = Record<string, string>;\n\n/**\n * Parses.\n */\nexport function parse() {\n  return 1;\n}\n';
    const r = ok(ts, 'export type Q = Record<string, string>;\n\n/**\n * Parses.\n', 'export type Q = Record<string, string>;\n\nconst E = (() => {\n\tconst C = 1;\n\treturn C;\n})();\n\n/**\n * Parses.\n');
    expect(r.rung).toBe('exact');
    expect(r.content).toBe('export type Q = Record<string, string>;\n\nconst E = (() => {\n  const C = 1;\n  return C;\n})();\n\n/**\n * Parses.\n */\nexport function parse() {\n  return 1;\n}\n');
  });
});
