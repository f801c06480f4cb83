import { RE2JS } from 're2js';

/**
 * The model's search pattern for a linear-time engine (RE2, through re2js): matching never
 * backtracks, so no pattern can stall the process (`(a+)+$` on a long line takes time
 * proportional to the line). JavaScript syntax is accepted (named groups, `\uXXXX`, `\cX`,
 * lookbehind); a pattern that is not a valid JavaScript regex is searched literally; lookahead
 * and backreferences, which need backtracking, are refused with a message saying so.
 */
export function compileSearchPattern(pattern: string): { ok: true; re: RE2JS; literal: boolean } | { ok: false; error: string } {
  try {
    new RegExp(pattern); // syntax check only: compiling a JavaScript regex never runs it
  } catch {
    return { ok: true, re: RE2JS.compile(RE2JS.quote(pattern)), literal: true };
  }
  const unsupported = backtrackingConstruct(pattern);
  if (!unsupported) {
    try {
      return { ok: true, re: RE2JS.compile(RE2JS.translateRegExp(pattern), RE2JS.LOOKBEHINDS), literal: false };
    } catch (e) {
      const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
      return { ok: false, error: `The search pattern ${JSON.stringify(pattern)} is not supported by search's linear-time engine (${why}). Rewrite it more simply, or search for a plain word.` };
    }
  }
  return {
    ok: false,
    error:
      `The search pattern ${JSON.stringify(pattern)} uses ${unsupported}, which search does not support (its engine runs in linear time, so no pattern can stall the run). ` +
      'Search without it (e.g. for the part before the lookahead, then read_file around the matches).',
  };
}

/** Lookahead or a backreference outside escapes, which RE2 cannot run; undefined when there is none. */
function backtrackingConstruct(pattern: string): string | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && pattern[i + 2] === '<')) return `a backreference (\\${next}${next === 'k' ? '<…>' : ''})`;
      i++;
    } else if (c === '(' && pattern[i + 1] === '?' && (pattern[i + 2] === '=' || pattern[i + 2] === '!')) {
      return `a lookahead (${pattern.slice(i, i + 3)}…)`;
    }
  }
  return undefined;
}
