/** How tool results are written: failures as data, numbered lines, the rung an edit matched on, the syntax gate. */
import { promises as fsp } from 'node:fs';
import type { Rung } from '../edit-match.js';
import { checkSyntax } from '../syntax-check.js';
import { type ToolResult, BINARY_SNIFF_BYTES } from './specs.js';

// ------------------------------------------------------------------ helpers

export function fail(content: string, display: string): ToolResult {
  return { ok: false, content, display };
}

export function numbered(lines: string[], firstLine: number, width: number): string[] {
  return lines.map((l, k) => `${String(firstLine + k).padStart(width)}| ${l}`);
}

export function numberWidth(maxLine: number): number {
  return Math.max(4, String(maxLine).length);
}

/** File lines for display: without the '\n' separators and a trailing CR. */
export function displayLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

export function capLine(s: string, n: number): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

export function short(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

export const RUNG_NOTE: Record<Rung, string> = {
  exact: 'exact match',
  whitespace: 'matched ignoring trailing whitespace and line endings',
  indentation: 'matched ignoring indentation; new_string was re-indented to the file',
  'blank-lines': 'matched allowing one blank line more or less; the file\'s blank lines were kept',
  elision: 'matched the quoted lines around "..."; everything between them was replaced',
};

type Stat = Awaited<ReturnType<typeof fsp.stat>>;

export async function statOrNull(p: string): Promise<Stat | null> {
  try {
    return await fsp.stat(p);
  } catch {
    return null;
  }
}

/**
 * The syntax errors a change introduces, for the model ('' when none: it parses, or parsed no better
 * before), and a note for the result when the syntax could not be checked.
 */
export async function syntaxGate(rel: string, before: string | null, after: string, editLine?: number): Promise<{ problem: string; note: string }> {
  const v = await checkSyntax(rel, before, after);
  if (v.kind === 'ok') return { problem: '', note: '' };
  if (v.kind === 'unchecked') return { problem: '', note: v.reason ? ` (syntax not checked: ${short(v.reason, 80)})` : '' };
  const p = v.problems[0];
  const lines = displayLines(after);
  const from = Math.max(1, p.line - 2);
  const to = Math.min(lines.length, p.line + 2);
  const snippet = numbered(lines.slice(from - 1, to).map((l) => capLine(l, 200)), from, numberWidth(to)).join('\n');
  const more = v.added > 1 ? ` (and ${v.added - 1} more)` : '';
  const where = editLine !== undefined && Math.abs(editLine - p.line) > 2 ? ` (the edit starts at line ${editLine})` : '';
  return { problem: `does not parse as ${v.language}: line ${p.line}, column ${p.column}: ${p.message}${more}${where}:\n${snippet}`, note: '' };
}
