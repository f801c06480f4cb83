/**
 * The syntax check after an edit: a real parser (tree-sitter grammars, src/code/parser.ts) on the
 * file before and after; says whether the change introduces syntax errors, and where.
 *
 * What the caller does with it is its rule (src/agent/tools.ts): edit_file writes the edit and warns
 * (an edit is often one step of a change the next edit completes), write_file refuses (its content is
 * a whole file). A file that already had syntax errors counts only as many more (its own errors are
 * not the edit's fault). For JSON, a file that did not parse before is JSON with comments or another
 * dialect the grammar does not know, and is not checked.
 */
import { languageOf, syntaxErrors, type CodeLanguage, type SyntaxProblem } from '../code/parser.js';

export type SyntaxVerdict =
  | { kind: 'ok' }
  /** No grammar for this file, or the parser failed (`reason`): the edit is not blocked. */
  | { kind: 'unchecked'; reason?: string }
  /** The edit introduces errors: `problems` are the result's errors, `added` how many more than before. */
  | { kind: 'introduced'; language: CodeLanguage; problems: SyntaxProblem[]; added: number };

export async function checkSyntax(file: string, before: string | null, after: string): Promise<SyntaxVerdict> {
  const language = languageOf(file);
  if (!language) return { kind: 'unchecked' };
  try {
    const now = await syntaxErrors(file, after);
    if (!now || now.length === 0) return { kind: 'ok' };
    const was = before === null ? [] : ((await syntaxErrors(file, before)) ?? []);
    if (was.length > 0 && (language === 'json' || now.length <= was.length)) return { kind: 'ok' };
    return { kind: 'introduced', language, problems: now, added: now.length - was.length };
  } catch (e) {
    return { kind: 'unchecked', reason: e instanceof Error ? e.message : String(e) };
  }
}
