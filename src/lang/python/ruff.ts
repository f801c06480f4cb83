/**
 * ruff as a checker: where the project configures it (ruff.toml, .ruff.toml, pyproject.toml
 * `[tool.ruff]`) and its virtual environment has it. The written files (and, through stdin, their
 * content before the first write); its `check --output-format json` report. Files the config
 * excludes stay excluded.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { relative, runReport, shellQuote, type Diagnostic, type FileChecker } from '../../diagnostics/checker.js';
import { configSection, PYTHON, readText, venvBin } from './env.js';

export interface RuffSetup {
  bin: string;
  config: string;
}

function ruffConfig(root: string): string | undefined {
  const own = ['ruff.toml', '.ruff.toml'].find((f) => existsSync(path.join(root, f)));
  if (own) return own;
  return configSection(readText(path.join(root, 'pyproject.toml')), /^\[tool\.ruff(?:\.[\w.-]+)?\]$/) ? 'pyproject.toml' : undefined;
}

/** ruff on the given files (repo-relative), or on `stdin` as the file `files[0]`; the JSON report to `report`. */
export function ruffCommand(ruff: RuffSetup, report: string, files: string[], stdin?: string): string {
  const base = [ruff.bin, 'check', '--output-format', 'json', '--no-cache', '--no-fix', '--force-exclude'];
  const args = stdin !== undefined ? [...base, '--stdin-filename', files[0], '-'] : [...base, '--', ...files];
  return `${args.map(shellQuote).join(' ')} > ${shellQuote(report)}${stdin !== undefined ? ` < ${shellQuote(stdin)}` : ''}`;
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

export const ruff: FileChecker<'ruff', RuffSetup> = {
  id: 'ruff',
  scope: 'file',
  title: 'ruff',
  label: 'lint (ruff)',
  reads: /\.(?:pyi?|toml)$/i,
  lints: PYTHON,
  detect(root) {
    const config = ruffConfig(root);
    const bin = config && venvBin(root, 'ruff');
    return config && bin ? { bin, config } : undefined;
  },
  lint: (setup, files, ctx, stdin) => runReport(ctx, 'ruff', (report) => ruffCommand(setup, report, files, stdin), (t) => parseRuffJson(t, ctx.root)),
};
