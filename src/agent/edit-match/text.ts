/** The edit ladder's vocabulary (rungs, results) and its text helpers: lines, line endings, messages. */
export type Rung = 'exact' | 'whitespace' | 'indentation' | 'blank-lines' | 'elision';

/** A refusal names the rung that refused (an ambiguous anchor or layout there), if any; none when nothing matched. */
export type EditResult = { ok: true; content: string; rung: Rung; line: number } | { ok: false; error: string; rung?: Rung };

export const MAX_ERROR = 1500;
const MAX_LISTED_LINES = 40;

// ------------------------------------------------------------------ helpers

export interface Lines {
  /** Line texts without the '\n' (a CRLF line keeps its '\r'). */
  text: string[];
  /** Offset of the first character of each line; one extra entry: content.length. */
  start: number[];
}

export function splitLines(content: string): Lines {
  const text = content.split('\n');
  const start: number[] = [];
  let off = 0;
  for (const t of text) {
    start.push(off);
    off += t.length + 1;
  }
  // A trailing newline leaves an empty last element that is not a line.
  if (text.length > 1 && text[text.length - 1] === '') {
    text.pop();
    start.pop();
  }
  start.push(content.length);
  return { text, start };
}

export function rstrip(s: string): string {
  return s.replace(/[ \t\r\f\v]+$/, '');
}

export function noCr(s: string): string {
  return s.endsWith('\r') ? s.slice(0, -1) : s;
}

export function isBlank(s: string): boolean {
  return rstrip(s) === '';
}

/** 1-based line numbers of ascending offsets, in one pass. */
export function linesOfOffsets(content: string, offsets: number[]): number[] {
  const out: number[] = [];
  let line = 1;
  let nl = content.indexOf('\n');
  for (const off of offsets) {
    while (nl !== -1 && nl < off) {
      line++;
      nl = content.indexOf('\n', nl + 1);
    }
    out.push(line);
  }
  return out;
}

export function fileEol(content: string): '\r\n' | '\n' {
  const crlf = (content.match(/\r\n/g) ?? []).length;
  const all = (content.match(/\n/g) ?? []).length;
  return crlf > 0 && crlf * 2 >= all ? '\r\n' : '\n';
}

export function withEol(text: string, eol: string): string {
  const lf = text.replace(/\r\n/g, '\n');
  return eol === '\n' ? lf : lf.replace(/\n/g, eol);
}

/** old/new text as lines (LF-normalized, one final line break dropped). */
export function blockLines(s: string): string[] {
  const lf = s.replace(/\r\n/g, '\n');
  return (lf.endsWith('\n') ? lf.slice(0, -1) : lf).split('\n');
}

export function leadingWs(s: string): string {
  return /^[ \t]*/.exec(s)![0];
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

function listLines(lines: number[]): string {
  const shown = lines.slice(0, MAX_LISTED_LINES).join(', ');
  return lines.length > MAX_LISTED_LINES ? `${shown}, … (${lines.length - MAX_LISTED_LINES} more)` : shown;
}

export function ambiguous(count: number, lines: number[], qualifier: string): { ok: false; error: string } {
  return {
    ok: false,
    error:
      `old_string matches ${count} places${qualifier} (lines ${listLines(lines)}); nothing was changed. ` +
      'Include more surrounding lines in old_string so that it matches exactly one place.',
  };
}

export function cap(s: string, n: number): string {
  return s.length > n ? s.slice(0, n - 1) + '…' : s;
}
