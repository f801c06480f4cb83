/**
 * mypy as a checker: where the project configures it (mypy.ini, .mypy.ini, pyproject.toml
 * `[tool.mypy]`, setup.cfg `[mypy]`) and its virtual environment has it. The whole project (its
 * configured files, or its Python code), plain lines with columns and codes, its cache outside
 * the repository.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { relative, runLines, shellQuote, type Diagnostic, type ProjectChecker } from '../../diagnostics/checker.js';
import { configSection, PYTHON, readText, venvBin, VENVS } from './env.js';

/** `config`: the file that configures it (repo-relative); `files`: whether the config names the files to check. */
export interface MypySetup {
  bin: string;
  config: string;
  files: boolean;
}

/** mypy's configuration: mypy.ini, .mypy.ini, pyproject.toml [tool.mypy], setup.cfg [mypy] (mypy's own order). */
function mypyConfig(root: string): { config: string; files: boolean } | undefined {
  const candidates: [string, RegExp][] = [
    ['mypy.ini', /^\[mypy\]$/],
    ['.mypy.ini', /^\[mypy\]$/],
    ['pyproject.toml', /^\[tool\.mypy\]$/],
    ['setup.cfg', /^\[mypy\]$/],
  ];
  for (const [file, header] of candidates) {
    const section = configSection(readText(path.join(root, file)), header);
    if (section) return { config: file, files: section.some((l) => /^\s*files\s*=/.test(l)) };
  }
  return undefined;
}

/**
 * What mypy checks when its configuration names no files: the root's Python modules and the
 * top-level directories that hold Python code (never a virtual environment, node_modules, build
 * output or a hidden directory).
 */
export function mypyTargets(root: string): string[] {
  const skip = new Set([...VENVS, 'node_modules', 'build', 'dist', '__pycache__', 'site-packages']);
  const holdsPython = (dir: string, depth: number): boolean => {
    let entries;
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return false;
    }
    if (entries.some((e) => e.isFile() && PYTHON.test(e.name))) return true;
    return depth > 0 && entries.some((e) => e.isDirectory() && !e.name.startsWith('.') && !skip.has(e.name) && holdsPython(path.join(dir, e.name), depth - 1));
  };
  const out: string[] = [];
  for (const e of readdirSync(root, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (e.name.startsWith('.') || skip.has(e.name)) continue;
    if (e.isFile() && PYTHON.test(e.name)) out.push(e.name);
    else if (e.isDirectory() && !existsSync(path.join(root, e.name, 'pyvenv.cfg')) && holdsPython(path.join(root, e.name), 3)) out.push(e.name);
  }
  return out;
}

/** mypy on the project (its configured files, or `targets`), plain lines with columns and codes, its cache outside the repository. */
export function mypyCommand(mypy: MypySetup, cacheDir: string, targets: string[]): string {
  const args = [mypy.bin, '--config-file', mypy.config, '--show-column-numbers', '--show-error-codes', '--no-pretty', '--no-error-summary', '--hide-error-context', '--no-color-output', '--cache-dir', cacheDir];
  return [...args, ...(mypy.files ? [] : targets)].map(shellQuote).join(' ');
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
      const d = mypyJsonLine(line, root);
      if (d) out.push(d);
      continue;
    }
    const m = MYPY_LINE.exec(line);
    if (!m || m[4] !== 'error') continue;
    out.push({ checker: 'mypy', file: relative(root, m[1]), line: Number(m[2]), column: m[3] ? Number(m[3]) : 0, code: m[6] ?? 'mypy', message: m[5] });
  }
  return out;
}

function mypyJsonLine(line: string, root: string): Diagnostic | null {
  let j: { file?: unknown; line?: unknown; column?: unknown; message?: unknown; code?: unknown; severity?: unknown };
  try {
    j = JSON.parse(line) as typeof j;
  } catch {
    return null;
  }
  if (j.severity !== 'error' || typeof j.file !== 'string') return null;
  return {
    checker: 'mypy',
    file: relative(root, j.file),
    line: Number(j.line) || 0,
    column: (Number(j.column) || 0) + 1,
    code: typeof j.code === 'string' ? j.code : 'mypy',
    message: String(j.message ?? ''),
  };
}

export const mypy: ProjectChecker<'mypy', MypySetup> = {
  id: 'mypy',
  scope: 'project',
  title: 'mypy',
  label: 'type check (mypy)',
  reads: /\.(?:pyi?|toml|ini|cfg)$/i,
  detect(root) {
    const config = mypyConfig(root);
    const bin = config && venvBin(root, 'mypy');
    return config && bin ? { bin, ...config } : undefined;
  },
  /** mypy on the project (exit 1: errors found; 2: it could not check). */
  runs: (setup, ctx) => [
    { key: 'mypy', run: () => runLines(ctx, mypyCommand(setup, path.join(ctx.tmp, 'mypy-cache'), mypyTargets(ctx.root)), (output) => parseMypyOutput(output, ctx.root)) },
  ],
};
