/** What the Python checkers read of a project: its virtual environment and its INI/TOML configuration sections. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const VENVS = ['.venv', 'venv'];

/** Python sources (mypy, pyright, ruff). */
export const PYTHON = /\.pyi?$/i;

/** An executable of the project's virtual environment (`.venv/bin/mypy`), or undefined. */
export function venvBin(root: string, name: string): string | undefined {
  for (const v of VENVS) {
    const bin = path.join(root, v, 'bin', name);
    if (existsSync(bin)) return bin;
  }
  return undefined;
}

/** The lines of one `[section]` of an INI or TOML file (up to the next header), or undefined when it has none. */
export function configSection(text: string, header: RegExp): string[] | undefined {
  const lines = text.split(/\r?\n/);
  const at = lines.findIndex((l) => header.test(l.trim()));
  if (at < 0) return undefined;
  const body: string[] = [];
  for (const l of lines.slice(at + 1)) {
    if (/^\s*\[/.test(l)) break;
    body.push(l);
  }
  return body;
}

export function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}
