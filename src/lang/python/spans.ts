/** Localization: where a Python test is in its file. */

/** A Python function's span: from its `def` line (and decorators above it) to its last indented line. */
export function pythonDefSpan(lines: string[], at: number): { start: number; end: number } {
  const indent = /^\s*/.exec(lines[at])![0].length;
  let start = at;
  while (start > 0 && /^\s*@/.test(lines[start - 1]) && /^\s*/.exec(lines[start - 1])![0].length === indent) start--;
  let end = at;
  for (let i = at + 1; i < lines.length && i < at + 200; i++) {
    if (lines[i].trim() === '') continue;
    if (/^\s*/.exec(lines[i])![0].length <= indent) break;
    end = i;
  }
  return { start: start + 1, end: end + 1 };
}

/** A test declared as `def test_name(` (a pytest function or a unittest method): its span, decorators included; null when the file has none. */
export function pyTestSpan(lines: string[], name: string): { start: number; end: number } | null {
  if (!/^\w+$/.test(name)) return null;
  const def = new RegExp(`^\\s*(?:async\\s+)?def\\s+${name}\\s*\\(`);
  const at = lines.findIndex((l) => def.test(l));
  return at >= 0 ? pythonDefSpan(lines, at) : null;
}
