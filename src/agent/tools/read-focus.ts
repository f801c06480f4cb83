import { countTokens, truncateToTokens } from '../../context/tokens.js';
import { READ_MAX_LINES, READ_MAX_BYTES, READ_MAX_LINE_CHARS, type ToolResult } from './specs.js';
import { numberWidth, capLine } from './results.js';

/** A long file read without a range: the regions that matter for the task first, within the read cap. */
export function readFocus(
  focus: { start: number; end: number; label: string }[],
  rel: string,
  lines: string[],
  label: string,
  maxTokens = Number.POSITIVE_INFINITY,
): ToolResult | null {
  const regions = focus.filter((x) => x.start >= 1 && x.start <= lines.length).sort((a, b) => a.start - b.start);
  if (regions.length === 0) return null;
  const blocks: string[] = [];
  const spans: string[] = [];
  let budget = READ_MAX_LINES;
  let bytes = 0;
  for (const x of regions) {
    const from = Math.max(1, x.start - 3);
    const to = Math.min(lines.length, x.end + 3, from + budget - 1);
    if (to < from || budget <= 0) break;
    const width = numberWidth(to);
    const body: string[] = [];
    for (let n = from; n <= to; n++) body.push(`${String(n).padStart(width)}| ${capLine(lines[n - 1], READ_MAX_LINE_CHARS)}`);
    let text = body.join('\n');
    if (bytes + text.length > READ_MAX_BYTES && blocks.length > 0) break;
    if (Number.isFinite(maxTokens)) {
      const left = maxTokens - 80 - countTokens(blocks.join('\n'));
      if (left < 60 && blocks.length > 0) break;
      const cut = truncateToTokens(text, Math.max(60, left));
      if (cut !== text) {
        const kept = cut.split('\n').length;
        text = body.slice(0, kept).join('\n');
        blocks.push(`[lines ${from}-${from + kept - 1}: ${x.label}]\n${text}`);
        spans.push(`${from}-${from + kept - 1}`);
        break;
      }
    }
    bytes += text.length;
    budget -= to - from + 1;
    blocks.push(`[lines ${from}-${to}: ${x.label}]\n${text}`);
    spans.push(`${from}-${to}`);
  }
  const content = `${rel} (${lines.length} lines; the regions that matter for this task first)\n${blocks.join('\n')}\n[Shown: lines ${spans.join(', ')} of ${lines.length}. Call read_file with start_line/end_line for any other part.]`;
  return { ok: true, content, display: `${label}: focus ${spans.join(',')}` };
}
