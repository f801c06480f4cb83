/**
 * The output of the repository's own type checker and linter as diagnostics:
 * `tsc --pretty false` lines and ESLint's `--format json` report.
 */
import path from 'node:path';

export type Checker = 'tsc' | 'eslint';

export interface Diagnostic {
  checker: Checker;
  /** Repo-relative path with '/' separators; '' for a diagnostic about no file (e.g. a tsconfig error). */
  file: string;
  line: number;
  column: number;
  /** 'TS2322', or the ESLint rule id ('parse' for a fatal parse error). */
  code: string;
  message: string;
  /** The trimmed source line the diagnostic points to (filled in by the watcher), to recognise it after lines moved. */
  text?: string;
}

const TSC_LINE = /^(.+?)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$/;
const TSC_GLOBAL = /^(error|warning) (TS\d+): (.*)$/;

function relative(root: string, file: string): string {
  const abs = path.resolve(root, file);
  const rel = path.relative(root, abs);
  return (rel.startsWith('..') || path.isAbsolute(rel) ? abs : rel).split(path.sep).join('/');
}

/** `src/a.ts(3,7): error TS2322: …` lines; indented lines continue the message before them (message chains). */
export function parseTscOutput(output: string, root: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  let last: Diagnostic | undefined;
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, '');
    if (line === '') continue;
    const m = TSC_LINE.exec(line);
    if (m) {
      last = { checker: 'tsc', file: relative(root, m[1]), line: Number(m[2]), column: Number(m[3]), code: m[5], message: m[6] };
      out.push(last);
      continue;
    }
    const g = TSC_GLOBAL.exec(line);
    if (g) {
      last = { checker: 'tsc', file: '', line: 0, column: 0, code: g[2], message: g[3] };
      out.push(last);
      continue;
    }
    if (last && /^\s/.test(line)) last.message += `\n${line.trim()}`;
    else last = undefined;
  }
  return out;
}

interface EslintMessage {
  ruleId?: string | null;
  severity?: number;
  fatal?: boolean;
  message?: string;
  line?: number;
  column?: number;
}

/**
 * ESLint's JSON report: errors only (severity 2, and fatal parse errors); warnings and the
 * "File ignored" notes are not the edit's business. Throws when the text is not such a report.
 */
export function parseEslintJson(json: string, root: string): Diagnostic[] {
  const data = JSON.parse(json) as unknown;
  if (!Array.isArray(data)) throw new Error('the ESLint report is not a JSON array');
  const out: Diagnostic[] = [];
  for (const result of data as { filePath?: unknown; messages?: unknown }[]) {
    if (typeof result?.filePath !== 'string' || !Array.isArray(result.messages)) continue;
    const file = relative(root, result.filePath);
    for (const m of result.messages as EslintMessage[]) {
      if (m.severity !== 2 && !m.fatal) continue;
      out.push({
        checker: 'eslint',
        file,
        line: m.line ?? 0,
        column: m.column ?? 0,
        code: m.ruleId ?? (m.fatal ? 'parse' : 'eslint'),
        message: String(m.message ?? ''),
      });
    }
  }
  return out;
}
