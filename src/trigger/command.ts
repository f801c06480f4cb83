/**
 * The `/agent-fix` command in a comment: where it starts, and what its first word asks for.
 * Pure; the text after the command is untrusted and is fenced by whoever builds a prompt from it.
 */
import { sanitizeOneLine } from '../task/sanitize.js';

export const COMMAND = '/agent-fix';

/**
 * If `body` is a `/agent-fix` command, the instructions after it (the rest of the first
 * line plus the following lines, trimmed); otherwise undefined. `/agent-fixed` or
 * `/agent-fix:` are not the command: it must be followed by whitespace or the end.
 */
export function parseCommand(body: string): string | undefined {
  const text = body.replace(/\r\n?/g, '\n').trimStart();
  if (!text.startsWith(COMMAND)) return undefined;
  const rest = text.slice(COMMAND.length);
  if (rest !== '' && !/^\s/.test(rest)) return undefined;
  const newline = rest.indexOf('\n');
  const firstLine = (newline === -1 ? rest : rest.slice(0, newline)).trim();
  const following = newline === -1 ? '' : rest.slice(newline + 1);
  return [firstLine, following].filter((s) => s.trim() !== '').join('\n').trim();
}

/**
 * What a `/agent-fix` comment asks: `rebase`, `stop`, `continue [budget=$N]` are lifecycle
 * verbs; anything else (or nothing) is free-form instructions.
 */
export type FollowUpCommand =
  | { verb: 'instructions'; text: string }
  | { verb: 'rebase' }
  | { verb: 'stop' }
  | { verb: 'continue'; budgetUsd: number | null };

export type ParsedCommand = FollowUpCommand | { verb: 'invalid'; reason: string };

/** Parses the text after `/agent-fix`; null when the body is not the command at all. */
export function parseFollowUpCommand(body: string): ParsedCommand | null {
  const rest = parseCommand(body);
  if (rest === undefined) return null;
  const [first = '', ...more] = rest.split(/\s+/).filter(Boolean);
  const word = first.toLowerCase();
  if (word === 'rebase' || word === 'stop') {
    if (more.length) return { verb: 'invalid', reason: `\`/agent-fix ${word}\` takes no arguments (got "${sanitizeOneLine(more.join(' '), 80)}").` };
    return { verb: word };
  }
  if (word === 'continue') {
    if (!more.length) return { verb: 'continue', budgetUsd: null };
    const m = /^budget=\$?(\d+(?:\.\d{1,2})?)$/i.exec(more.join(' '));
    if (!m || more.length > 1) return { verb: 'invalid', reason: 'use `/agent-fix continue` or `/agent-fix continue budget=$3` (a dollar amount).' };
    const usd = Number(m[1]);
    if (!(usd > 0) || usd > 1000) return { verb: 'invalid', reason: `budget=$${m[1]} is out of range (more than $0, at most $1000).` };
    return { verb: 'continue', budgetUsd: usd };
  }
  return { verb: 'instructions', text: rest };
}
