/**
 * edit_file's second input form: a unified diff of one file. Pure: content + diff text in, content out.
 *
 * Parsing is lenient the way models write diffs: `diff --git`/`---`/`+++` headers optional, `@@`
 * numbers only used in messages (they are often wrong), counts ignored, a context line whose leading
 * space was lost is still context, a Markdown code fence around the diff is dropped. Applying is
 * strict: each hunk's old side (context and `-` lines) goes through the same matching ladder as
 * old_string (so it must match exactly one place, with the same whitespace tolerance), hunk by hunk
 * in order; if any hunk fails, nothing is changed.
 */
import { applyEdit, looserRung, type EditResult, type Rung } from './edit-match.js';

export interface Hunk {
  /** The `@@ -a,b +c,d @@` line as written, or '' when the diff had none. */
  header: string;
  oldLines: string[];
  newLines: string[];
}

export type ParsedDiff = { ok: true; hunks: Hunk[]; paths: string[] } | { ok: false; error: string };

function stripPath(p: string): string {
  const t = p.trim().split('\t')[0];
  return t.replace(/^[ab]\//, '');
}

/** True when `text` looks like a unified diff (a hunk header, or ---/+++ file headers). */
export function looksLikeUnifiedDiff(text: string): boolean {
  return /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@/m.test(text) || /^--- .*\n\+\+\+ /m.test(text);
}

export function parseUnifiedDiff(text: string): ParsedDiff {
  let lines = text.replace(/\r\n/g, '\n').split('\n');
  // a Markdown fence around the diff
  if (lines.length && /^```/.test(lines[0].trim())) {
    lines = lines.slice(1);
    const end = lines.findIndex((l) => /^```\s*$/.test(l));
    if (end !== -1) lines = lines.slice(0, end);
  }
  while (lines.length && lines[lines.length - 1] === '') lines.pop();

  const hunks: Hunk[] = [];
  const paths = new Set<string>();
  let cur: Hunk | null = null;
  let sawHeaderOnly = false;
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    if (l.startsWith('--- ') && i + 1 < lines.length && lines[i + 1].startsWith('+++ ')) {
      const a = stripPath(l.slice(4));
      const b = stripPath(lines[i + 1].slice(4));
      if (b !== '/dev/null') paths.add(b);
      else if (a !== '/dev/null') paths.add(a);
      cur = null;
      i++;
      continue;
    }
    if (cur === null && /^(diff --git |index |new file mode|deleted file mode|similarity index|rename (from|to) |old mode|new mode)/.test(l)) {
      sawHeaderOnly = true;
      continue;
    }
    if (l.startsWith('@@')) {
      cur = { header: /^@@[^@]*@@/.exec(l)?.[0] ?? l, oldLines: [], newLines: [] };
      hunks.push(cur);
      continue;
    }
    if (cur === null) {
      // changes before any @@ line: one hunk without a header
      if (/^[-+ ]/.test(l) || l === '') {
        cur = { header: '', oldLines: [], newLines: [] };
        hunks.push(cur);
      } else continue;
    }
    if (l.startsWith('\\')) continue; // "\ No newline at end of file"
    if (l.startsWith('-')) cur.oldLines.push(l.slice(1));
    else if (l.startsWith('+')) cur.newLines.push(l.slice(1));
    else {
      const ctx = l.startsWith(' ') ? l.slice(1) : l; // a context line that lost its leading space
      cur.oldLines.push(ctx);
      cur.newLines.push(ctx);
    }
  }
  if (paths.size > 1) {
    return {
      ok: false,
      error: `The diff changes ${paths.size} files (${[...paths].join(', ')}); edit_file takes a diff of one file, the one named by path. Send one call per file.`,
    };
  }
  const real = hunks.filter((h) => h.oldLines.join('\n') !== h.newLines.join('\n') || h.oldLines.length !== h.newLines.length);
  if (real.length === 0) {
    return {
      ok: false,
      error:
        (sawHeaderOnly || hunks.length === 0 ? 'The diff has no hunks' : 'The diff changes nothing (no "-" or "+" lines)') +
        '; nothing was changed. Send hunks like "@@ -12,3 +12,4 @@" followed by context lines (starting with a space), "-" lines and "+" lines.',
    };
  }
  return { ok: true, hunks: real, paths: [...paths] };
}

/** Applies every hunk of `diffText` to `content`, or nothing. */
export function applyUnifiedDiff(content: string, diffText: string): EditResult & { hunks?: number } {
  const parsed = parseUnifiedDiff(diffText);
  if (!parsed.ok) return parsed;
  let out = content;
  let rung: Rung = 'exact';
  let line = 0;
  const n = parsed.hunks.length;
  for (let k = 0; k < n; k++) {
    const h = parsed.hunks[k];
    const label = `Hunk ${k + 1} of ${n}${h.header ? ` (${h.header})` : ''}`;
    const oldText = h.oldLines.length ? h.oldLines.join('\n') + '\n' : '';
    const newText = h.newLines.length ? h.newLines.join('\n') + '\n' : '';
    if (oldText === '') {
      if (out === '') {
        out = newText;
        line = 1;
        continue;
      }
      return {
        ok: false,
        error: `${label} has no context or "-" lines, so there is no place to put it; nothing was changed. Include the lines around the change as context lines (starting with a space).`,
      };
    }
    const r = applyEdit(out, oldText, newText);
    if (!r.ok) {
      const why = r.error.replace(/old_string/g, "the hunk's old side (context and \"-\" lines)").replace(/nothing was changed/, 'nothing was changed (no hunk was applied)');
      return { ok: false, error: `${label}: ${why}`, rung: r.rung };
    }
    out = r.content;
    if (k === 0) line = r.line;
    rung = looserRung(rung, r.rung);
  }
  return { ok: true, content: out, rung, line, hunks: n };
}
