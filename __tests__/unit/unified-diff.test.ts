import { applyUnifiedDiff, looksLikeUnifiedDiff, parseUnifiedDiff } from '../../src/agent/unified-diff.js';

const FILE = ['import os', '', 'def a():', '    return 1', '', '', 'def b():', '    return 2', ''].join('\n');

function applied(diff: string, content = FILE): string {
  const r = applyUnifiedDiff(content, diff);
  if (!r.ok) throw new Error(r.error);
  return r.content;
}

describe('parseUnifiedDiff', () => {
  test('git headers, a Markdown fence, "no newline" markers and counts that do not add up', () => {
    const p = parseUnifiedDiff(
      ['```diff', 'diff --git a/x.py b/x.py', 'index 1..2 100644', '--- a/x.py', '+++ b/x.py', '@@ -1,99 +1,1 @@ def a', '-a', '+b', '\\ No newline at end of file', '```', 'trailing prose'].join('\n'),
    );
    expect(p).toEqual({ ok: true, paths: ['x.py'], hunks: [{ header: '@@ -1,99 +1,1 @@', oldLines: ['a'], newLines: ['b'] }] });
  });

  test('hunks without @@ headers, and blank context lines that lost their space', () => {
    const p = parseUnifiedDiff(' def a():\n-    return 1\n+    return 10\n\n def b():');
    expect(p.ok && p.hunks).toEqual([{ header: '', oldLines: ['def a():', '    return 1', '', 'def b():'], newLines: ['def a():', '    return 10', '', 'def b():'] }]);
  });

  test('a new file diff names /dev/null on the old side', () => {
    const p = parseUnifiedDiff('--- /dev/null\n+++ b/new.py\n@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n');
    expect(p.ok && p.paths).toEqual(['new.py']);
  });

  test('looksLikeUnifiedDiff', () => {
    expect(looksLikeUnifiedDiff('@@ -3,2 +3,3 @@\n x')).toBe(true);
    expect(looksLikeUnifiedDiff('--- a/x\n+++ b/x\n')).toBe(true);
    expect(looksLikeUnifiedDiff('a - b\n+c')).toBe(false);
  });
});

describe('applyUnifiedDiff', () => {
  test('wrong @@ numbers do not matter', () => {
    expect(applied('@@ -300,2 +300,2 @@\n def b():\n-    return 2\n+    return 3\n')).toBe(FILE.replace('return 2', 'return 3'));
  });

  test('missing context lines are fine while the hunk stays unique', () => {
    expect(applied('@@ @@\n-    return 2\n+    return 3\n')).toBe(FILE.replace('return 2', 'return 3'));
    const twice = FILE.replace('return 2', 'return 1');
    const r = applyUnifiedDiff(twice, '@@ -8 +8 @@\n-    return 1\n+    return 3\n');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^Hunk 1 of 1 \(@@ -8 \+8 @@\): the hunk's old side \(context and "-" lines\) matches 2 places \(lines 4, 8\); nothing was changed \(no hunk was applied\)/);
  });

  test('hunks apply in order; the indentation and blank-line slips of old_string are tolerated per hunk', () => {
    const d = ['@@ -3,2 +3,3 @@', '-  return 1', '+  x = 1', '+  return x', '@@ -7,2 +8,2 @@', ' def b():', '', '-    return 2', '+    return 20'].join('\n');
    expect(applied(d)).toBe(['import os', '', 'def a():', '    x = 1', '    return x', '', '', 'def b():', '    return 20', ''].join('\n'));
  });

  test('a failing later hunk leaves the content unchanged', () => {
    const r = applyUnifiedDiff(FILE, '@@ -3 +3 @@\n-def a():\n+def a0():\n@@ -9 +9 @@\n-def c():\n+def c0():\n');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/^Hunk 2 of 2 .*not found/);
  });

  test('a hunk with no context on a non-empty file is refused; on an empty file it is the content', () => {
    const r = applyUnifiedDiff(FILE, '@@ -0,0 +1 @@\n+x = 1\n');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/no context or "-" lines/);
    expect(applied('@@ -0,0 +1,2 @@\n+x = 1\n+y = 2\n', '')).toBe('x = 1\ny = 2\n');
  });

  test('deleting lines and a diff that changes nothing', () => {
    expect(applied('@@ -1,2 +1 @@\n-import os\n-\n def a():\n')).toBe(FILE.replace('import os\n\n', ''));
    const r = applyUnifiedDiff(FILE, '@@ -1 +1 @@\n import os\n');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(/changes nothing/);
  });

  test('a CRLF file keeps CRLF', () => {
    const crlf = FILE.replace(/\n/g, '\r\n');
    expect(applied('@@ -7,2 +7,2 @@\n def b():\n-    return 2\n+    return 3\n', crlf)).toBe(crlf.replace('return 2', 'return 3'));
  });

  test('a hunk whose context leaves out one of the file\'s blank lines keeps it; a "+" blank line that copies it is not doubled', () => {
    // context "    return 1" then "def b():": the file has two blank lines between them
    expect(applied('@@ -4,4 +4,4 @@\n     return 1\n \n def b():\n-    return 2\n+    return 3\n')).toBe(FILE.replace('return 2', 'return 3'));
    expect(applied('@@ -4,3 +4,4 @@\n     return 1\n \n+\n def b():\n')).toBe(FILE);
  });

  test('a hunk whose "+" lines go exactly where the file has a blank line its context left out is refused, naming the hunk', () => {
    const r = applyUnifiedDiff(FILE, '@@ -1,3 +1,4 @@\n import os\n+import sys\n def a():\n');
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error).toMatch(/^Hunk 1 of 1 \(@@ -1,3 \+1,4 @@\): the hunk's old side \(context and "-" lines\) matches lines 1-3 only if blank lines are ignored/);
      expect(r.rung).toBe('blank-lines');
    }
  });
});
