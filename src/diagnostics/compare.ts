/**
 * Which diagnostics an edit introduced, and how they are told to the model.
 *
 * A diagnostic is recognised across edits by its checker, file, code and message (whitespace
 * collapsed), never by its line number: lines move when an edit adds or removes lines above.
 * Within one such group the diagnostics after the edit are paired with those before, first by
 * the text of the line they point to (the same line, wherever it moved), then the rest by
 * nearest line number; only those left without a partner are new. So a pre-existing error is
 * never reported as new, even when the line it sits on was edited, as long as the error stays
 * the same; a second occurrence of the same error is.
 */
import { countTokens, truncateToTokens } from '../context/tokens.js';
import type { Diagnostic } from './checker.js';
import { checkers } from '../lang/index.js';

const norm = (s: string) => s.replace(/\s+/g, ' ').trim();

export function groupKey(d: Diagnostic): string {
  return `${d.checker}\u0000${d.file}\u0000${d.code}\u0000${norm(d.message)}`;
}

/** The diagnostics of `after` that have no partner in `before` (see the module comment). */
export function newDiagnostics(before: Diagnostic[], after: Diagnostic[]): Diagnostic[] {
  const groups = new Map<string, Diagnostic[]>();
  for (const d of before) {
    const k = groupKey(d);
    const g = groups.get(k);
    if (g) g.push(d);
    else groups.set(k, [d]);
  }
  const fresh: Diagnostic[] = [];
  const byGroup = new Map<string, Diagnostic[]>();
  for (const d of after) {
    const k = groupKey(d);
    const g = byGroup.get(k);
    if (g) g.push(d);
    else byGroup.set(k, [d]);
  }
  for (const [k, now] of byGroup) {
    const was = [...(groups.get(k) ?? [])];
    const left: Diagnostic[] = [];
    // 1. the same line text (the line may have moved)
    for (const d of now) {
      const i = d.text === undefined ? -1 : was.findIndex((b) => b.text !== undefined && norm(b.text) === norm(d.text!));
      if (i >= 0) was.splice(i, 1);
      else left.push(d);
    }
    // 2. the rest by nearest line; what finds no partner is new
    left.sort((a, b) => a.line - b.line);
    for (const d of left) {
      if (was.length === 0) {
        fresh.push(d);
        continue;
      }
      let best = 0;
      for (let i = 1; i < was.length; i++) if (Math.abs(was[i].line - d.line) < Math.abs(was[best].line - d.line)) best = i;
      was.splice(best, 1);
    }
  }
  return fresh.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
}

/** A checker as the message names it ('type check (tsc)'). */
const labelOf = (id: string) => checkers().find((c) => c.id === id)?.label ?? id;

export interface RenderOptions {
  /** At most this many diagnostics are listed (default 10). */
  maxShown?: number;
  /** The text stays within this many tokens (default 800). */
  maxTokens?: number;
}

/** The message for the model: the new diagnostics with the line each points to, capped; '' when there are none. */
export function renderNewDiagnostics(fresh: Diagnostic[], opts: RenderOptions = {}): { text: string; shown: number } {
  if (fresh.length === 0) return { text: '', shown: 0 };
  const maxShown = opts.maxShown ?? 10;
  const maxTokens = opts.maxTokens ?? 800;
  const names = [...new Set(fresh.map((d) => d.checker))].map(labelOf).join(' and ');
  const n = fresh.length;
  const head = `Your edits introduced ${n} new error${n === 1 ? '' : 's'} (${names}; errors that were there before your edits are not listed). Fix them before running the tests:`;
  const lines: string[] = [head];
  let used = countTokens(head);
  let shown = 0;
  for (const d of fresh.slice(0, maxShown)) {
    const where = d.file ? `${d.file}:${d.line}:${d.column}` : '(project)';
    const message = d.message.split('\n').slice(0, 4).join('\n    ');
    let entry = `${where} ${d.code} ${message}`;
    if (d.text) entry += `\n    ${d.line}| ${d.text.length > 160 ? d.text.slice(0, 160) + '…' : d.text}`;
    const cost = countTokens(entry) + 1;
    if (used + cost > maxTokens) {
      if (shown === 0) {
        lines.push(truncateToTokens(entry, Math.max(20, maxTokens - used)));
        shown = 1;
      }
      break;
    }
    lines.push(entry);
    used += cost;
    shown++;
  }
  if (shown < n) lines.push(`… and ${n - shown} more.`);
  return { text: lines.join('\n'), shown };
}
