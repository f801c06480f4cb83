/**
 * The repository's own type checker and linter, when it has them: `tsc` where there is a
 * tsconfig.json and node_modules/typescript, ESLint where there is an ESLint config file and
 * node_modules/eslint. Always the repository's installed binaries (never a download); nothing
 * found, nothing runs.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import JSON5 from 'json5';

export interface CheckerSetup {
  /** `projects`: tsconfig.json, or the projects a solution-style tsconfig.json (no files of its own) references. */
  tsc?: { bin: string; projects: string[] };
  eslint?: { bin: string; config: string; /** eslintrc config with ESLint 9, which needs ESLINT_USE_FLAT_CONFIG=false */ legacy: boolean };
}

const FLAT = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const LEGACY = ['.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json', '.eslintrc'];

/** Files ESLint is asked about: JavaScript and TypeScript sources. */
export const LINTABLE = /\.(?:[cm]?[jt]sx?)$/i;

function majorVersion(pkgJson: string): number {
  try {
    const v = (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? Number.parseInt(v, 10) : NaN;
  } catch {
    return NaN;
  }
}

function hasPackageEslintConfig(root: string): boolean {
  try {
    return (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { eslintConfig?: unknown }).eslintConfig !== undefined;
  } catch {
    return false;
  }
}

export function detectCheckers(root: string): CheckerSetup {
  const setup: CheckerSetup = {};
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const project = path.join(root, 'tsconfig.json');
  if (existsSync(tsc) && existsSync(project)) setup.tsc = { bin: tsc, projects: tscProjects(project) };
  const eslint = path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');
  if (existsSync(eslint)) {
    const flat = FLAT.find((f) => existsSync(path.join(root, f)));
    const legacy = flat ? undefined : (LEGACY.find((f) => existsSync(path.join(root, f))) ?? (hasPackageEslintConfig(root) ? 'package.json' : undefined));
    const config = flat ?? legacy;
    if (config) setup.eslint = { bin: eslint, config, legacy: !flat && majorVersion(path.join(root, 'node_modules', 'eslint', 'package.json')) >= 9 };
  }
  return setup;
}

/**
 * The projects to check: tsconfig.json itself, unless it is a solution (`"files": []`, no
 * `include`, `references`): then the referenced projects that exist. tsconfig files are JSON with
 * comments and trailing commas (read with json5); one that cannot be read is checked as it is.
 */
export function tscProjects(tsconfig: string): string[] {
  let config: { files?: unknown; include?: unknown; references?: unknown };
  try {
    config = JSON5.parse(readFileSync(tsconfig, 'utf8'));
  } catch {
    return [tsconfig];
  }
  const solution = Array.isArray(config.files) && config.files.length === 0 && config.include === undefined && Array.isArray(config.references) && config.references.length > 0;
  if (!solution) return [tsconfig];
  const dir = path.dirname(tsconfig);
  const refs = (config.references as { path?: unknown }[])
    .map((r) => (typeof r?.path === 'string' ? path.resolve(dir, r.path) : ''))
    .map((p) => (p && existsSync(p) && statSync(p).isDirectory() ? path.join(p, 'tsconfig.json') : p))
    .filter((p) => p && existsSync(p));
  return refs.length > 0 ? refs : [tsconfig];
}

/** A word for a POSIX shell. */
export function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Type check of one project, incremental through a build-info file outside the repository. */
export function tscCommand(bin: string, project: string, buildInfo: string): string {
  return ['node', bin, '--noEmit', '--pretty', 'false', '-p', project, '--incremental', '--tsBuildInfoFile', buildInfo].map(shellQuote).join(' ');
}

/** ESLint on the given files (repo-relative), or on `stdin` as the file `files[0]`; the JSON report goes to `report`. */
export function eslintCommand(eslint: NonNullable<CheckerSetup['eslint']>, report: string, files: string[], stdin?: string): string {
  const env = eslint.legacy ? 'ESLINT_USE_FLAT_CONFIG=false ' : '';
  const base = ['node', eslint.bin, '--format', 'json', '--output-file', report, '--no-color'];
  const args = stdin !== undefined ? [...base, '--stdin', '--stdin-filename', files[0]] : [...base, '--', ...files];
  return `${env}${args.map(shellQuote).join(' ')}${stdin !== undefined ? ` < ${shellQuote(stdin)}` : ''}`;
}
