/** Indentation: measured in columns, the file's style (tabs or spaces, width) read and written. */
import { isBlank, leadingWs } from './text.js';

// ------------------------------------------------------------------ indentation

/** How indentation is measured and written: `width` columns per unit; tabs or spaces when writing. */
export interface IndentStyle {
  width: number;
  tabs: boolean;
  /**
   * The file indents in one style only and the model's text never uses it, so indentation in the
   * other style is a slip to convert even where nothing shifted. A model that indents some lines
   * in the file's style means the others as written (a Go raw string's spaces in a tab file).
   */
  pure: boolean;
}

/** The most common positive step between consecutive indented lines (space-indented only), if any. */
function spaceStep(lines: string[]): number | null {
  const counts = new Map<number, number>();
  let prev = -1;
  for (const l of lines) {
    if (isBlank(l)) continue;
    const ws = leadingWs(l);
    if (ws.includes('\t')) {
      prev = -1;
      continue;
    }
    if (prev >= 0 && ws.length > prev) {
      const d = ws.length - prev;
      if (d === 2 || d === 3 || d === 4 || d === 8) counts.set(d, (counts.get(d) ?? 0) + 1);
    }
    prev = ws.length;
  }
  let best: number | null = null;
  let bestN = 0;
  for (const [d, n] of counts) {
    if (n > bestN || (n === bestN && best !== null && d < best)) {
      best = d;
      bestN = n;
    }
  }
  return best;
}

function indentCounts(lines: string[]): { tabs: number; spaces: number } {
  let tabs = 0;
  let spaces = 0;
  for (const l of lines) {
    if (isBlank(l)) continue;
    if (l.startsWith('\t')) tabs++;
    else if (l.startsWith(' ')) spaces++;
  }
  return { tabs, spaces };
}

function usesTabs(lines: string[]): boolean | null {
  const { tabs, spaces } = indentCounts(lines);
  if (tabs === 0 && spaces === 0) return null;
  return tabs > spaces;
}

/**
 * The style used to compare and write: the file's own (tabs or spaces) and a unit width taken from
 * whichever side uses spaces (the model's text when the file uses tabs, so that a tab the model
 * rendered as N spaces is one unit).
 */
export function indentStyle(fileLines: string[], modelLines: string[]): IndentStyle {
  const fileTabs = usesTabs(fileLines) ?? usesTabs(modelLines) ?? false;
  const fileStep = spaceStep(fileLines);
  const modelStep = spaceStep(modelLines);
  const width = fileTabs ? (modelStep ?? fileStep ?? 4) : (fileStep ?? modelStep ?? 4);
  const counts = indentCounts(fileLines);
  // a whole unit of the file's style (a JSDoc line's single space is no indentation)
  const own = fileTabs ? '\t' : ' '.repeat(Math.max(2, width));
  const modelUsesOwn = modelLines.some((l) => !isBlank(l) && l.startsWith(own));
  return { width, tabs: fileTabs, pure: (fileTabs ? counts.spaces : counts.tabs) === 0 && counts.tabs + counts.spaces > 0 && !modelUsesOwn };
}

export function cols(ws: string, width: number): number {
  let c = 0;
  for (const ch of ws) c = ch === '\t' ? (Math.floor(c / width) + 1) * width : c + 1;
  return c;
}

/** Indentation in the other style than a file that uses one style only, converted; anything else as it is. */
export function convertForeign(line: string, style: IndentStyle): string {
  if (!style.pure || isBlank(line)) return line;
  const ws = leadingWs(line);
  if (style.tabs ? !ws.startsWith(' '.repeat(style.width)) : !ws.includes('\t')) return line;
  return renderIndent(cols(ws, style.width), style) + line.slice(ws.length);
}

export function renderIndent(c: number, style: IndentStyle): string {
  if (c <= 0) return '';
  return style.tabs ? '\t'.repeat(Math.floor(c / style.width)) + ' '.repeat(c % style.width) : ' '.repeat(c);
}
