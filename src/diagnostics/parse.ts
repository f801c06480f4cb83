/**
 * The output of the repository's own type checkers and linters as diagnostics:
 * `tsc --pretty false` lines, ESLint's `--format json` report, mypy's lines (or its
 * `--output json` lines), pyright's `--outputjson` report and ruff's `--output-format json`.
 */
import path from 'node:path';

export type Checker = 'tsc' | 'eslint' | 'mypy' | 'pyright' | 'ruff';

export const CHECKERS: readonly Checker[] = ['tsc', 'eslint', 'mypy', 'pyright', 'ruff'];

export interface Diagnostic {
  checker: Checker;
  /** Repo-relative path with '/' separators; '' for a diagnostic about no file (e.g. a tsconfig error). */
  file: string;
  line: number;
  column: number;
  /** 'TS2322', the ESLint rule id ('parse' for a fatal parse error), mypy's error code, pyright's rule, ruff's rule code. */
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

/** `file:line[:col]: error: message  [code]` (mypy's default lines, with or without --show-column-numbers). */
const MYPY_LINE = /^(.+?):(\d+):(?:(\d+):)?(?:\d+:\d+:)? (error|warning|note): (.*?)(?:\s\s\[([\w-]+)\])?$/;

/**
 * mypy's output: its text lines (`pkg/a.py:3:7: error: Incompatible types …  [assignment]`) or the
 * JSON lines of `--output json` (mypy 1.11+; column 0-based there). Errors only; notes and the
 * summary line are not the edit's business. A note that continues an error is not kept either.
 */
export function parseMypyOutput(output: string, root: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const raw of output.split(/\r?\n/)) {
    const line = raw.replace(/\s+$/, '');
    if (line.startsWith('{')) {
      let j: { file?: unknown; line?: unknown; column?: unknown; message?: unknown; code?: unknown; severity?: unknown };
      try {
        j = JSON.parse(line) as typeof j;
      } catch {
        continue;
      }
      if (j.severity !== 'error' || typeof j.file !== 'string') continue;
      out.push({
        checker: 'mypy',
        file: relative(root, j.file),
        line: Number(j.line) || 0,
        column: (Number(j.column) || 0) + 1,
        code: typeof j.code === 'string' ? j.code : 'mypy',
        message: String(j.message ?? ''),
      });
      continue;
    }
    const m = MYPY_LINE.exec(line);
    if (!m || m[4] !== 'error') continue;
    out.push({ checker: 'mypy', file: relative(root, m[1]), line: Number(m[2]), column: m[3] ? Number(m[3]) : 0, code: m[6] ?? 'mypy', message: m[5] });
  }
  return out;
}

interface PyrightDiagnostic {
  file?: unknown;
  severity?: unknown;
  message?: unknown;
  rule?: unknown;
  range?: { start?: { line?: unknown; character?: unknown } };
}

/** pyright's `--outputjson` report: errors only (positions 0-based there). Throws when the text is not such a report. */
export function parsePyrightJson(json: string, root: string): Diagnostic[] {
  const data = JSON.parse(json) as { generalDiagnostics?: unknown };
  if (!data || typeof data !== 'object' || !Array.isArray(data.generalDiagnostics)) throw new Error('the pyright report has no generalDiagnostics');
  const out: Diagnostic[] = [];
  for (const d of data.generalDiagnostics as PyrightDiagnostic[]) {
    if (d?.severity !== 'error') continue;
    const start = d.range?.start;
    out.push({
      checker: 'pyright',
      file: typeof d.file === 'string' ? relative(root, d.file) : '',
      line: (Number(start?.line) || 0) + 1,
      column: (Number(start?.character) || 0) + 1,
      code: typeof d.rule === 'string' && d.rule ? d.rule : 'pyright',
      message: String(d.message ?? ''),
    });
  }
  return out;
}

interface RuffViolation {
  code?: unknown;
  filename?: unknown;
  message?: unknown;
  location?: { row?: unknown; column?: unknown };
}

/** ruff's `check --output-format json` report (positions 1-based; a syntax error has no code). Throws when the text is not such a report. */
export function parseRuffJson(json: string, root: string): Diagnostic[] {
  const data = JSON.parse(json) as unknown;
  if (!Array.isArray(data)) throw new Error('the ruff report is not a JSON array');
  const out: Diagnostic[] = [];
  for (const v of data as RuffViolation[]) {
    if (typeof v?.filename !== 'string') continue;
    out.push({
      checker: 'ruff',
      file: relative(root, v.filename),
      line: Number(v.location?.row) || 0,
      column: Number(v.location?.column) || 0,
      code: typeof v.code === 'string' && v.code ? v.code : 'syntax',
      message: String(v.message ?? ''),
    });
  }
  return out;
}
