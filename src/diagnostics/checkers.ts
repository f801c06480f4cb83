/**
 * The repository's own type checkers and linters, when it has them: `tsc` where there is a
 * tsconfig.json and node_modules/typescript, ESLint where there is an ESLint config file and
 * node_modules/eslint; for Python mypy, pyright and ruff where the project configures them
 * (pyproject.toml `[tool.mypy]`/`[tool.pyright]`/`[tool.ruff]`, mypy.ini, setup.cfg `[mypy]`,
 * pyrightconfig.json, ruff.toml) and has them installed: mypy and ruff in its virtual
 * environment (`.venv/bin/mypy`), pyright from npm (node_modules/pyright) or the venv. Always
 * the repository's installed binaries (never a download); nothing found, nothing runs.
 *
 * In a workspace (monorepo) a file is checked with the nearest tsconfig.json and the nearest
 * ESLint config above it (up to the root): `nearestTsconfig`, `nearestEslintConfig`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import JSON5 from 'json5';

export interface CheckerSetup {
  /**
   * `projects`: tsconfig.json, or the projects a solution-style tsconfig.json (no files of its own)
   * references; empty in a workspace root without one (each package's own is found per file).
   */
  tsc?: { bin: string; projects: string[] };
  /** `config`: the root's config file ('' in a workspace root without one: each package's own is found per file). */
  eslint?: { bin: string; config: string; /** eslintrc config with ESLint 9, which needs ESLINT_USE_FLAT_CONFIG=false */ legacy: boolean };
  /** `config`: the file that configures it (repo-relative); `files`: whether the config names the files to check. */
  mypy?: { bin: string; config: string; files: boolean };
  /**
   * `node`: the npm package's index.js, run with node; otherwise the venv's `pyright` wrapper.
   * `python`: the project's venv interpreter, for the packages installed there (absent when the
   * configuration names its own `venv`, or there is no venv).
   */
  pyright?: { bin: string; node: boolean; config: string; python?: string };
  ruff?: { bin: string; config: string };
}

const FLAT = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const LEGACY = ['.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json', '.eslintrc'];

/** Files ESLint is asked about: JavaScript and TypeScript sources. */
export const LINTABLE = /\.(?:[cm]?[jt]sx?)$/i;
/** Python sources (mypy, pyright, ruff). */
export const PYTHON = /\.pyi?$/i;

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

/** A workspace root: `workspaces` in package.json, or pnpm-workspace.yaml. */
export function isWorkspaceRoot(root: string): boolean {
  if (existsSync(path.join(root, 'pnpm-workspace.yaml'))) return true;
  try {
    return (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { workspaces?: unknown }).workspaces !== undefined;
  } catch {
    return false;
  }
}

/** The ESLint config file of one directory (flat first, then eslintrc, then package.json's eslintConfig), or undefined. */
function eslintConfigIn(dir: string): { config: string; flat: boolean } | undefined {
  const flat = FLAT.find((f) => existsSync(path.join(dir, f)));
  if (flat) return { config: flat, flat: true };
  const legacy = LEGACY.find((f) => existsSync(path.join(dir, f))) ?? (hasPackageEslintConfig(dir) ? 'package.json' : undefined);
  return legacy ? { config: legacy, flat: false } : undefined;
}

/** Directories from `rel`'s own (a repo-relative file) up to the root, nearest first, as absolute paths. */
function upFrom(root: string, rel: string): string[] {
  const dirs: string[] = [];
  let dir = path.posix.dirname(rel.split(path.sep).join('/'));
  for (;;) {
    dirs.push(dir === '.' ? root : path.join(root, dir));
    if (dir === '.' || dir === '/' || dir === '') break;
    dir = path.posix.dirname(dir);
  }
  return dirs;
}

/** The nearest file `name` (a path under a directory, e.g. node_modules/typescript/bin/tsc) from the directory `fromDir` up to the root. */
export function nearestUp(root: string, fromDir: string, name: string): string | undefined {
  let dir = path.resolve(fromDir);
  const top = path.resolve(root);
  for (;;) {
    const cand = path.join(dir, name);
    if (existsSync(cand)) return cand;
    if (dir === top || !dir.startsWith(top + path.sep)) return undefined;
    dir = path.dirname(dir);
  }
}

/** The tsconfig.json nearest to a repo-relative file, up to the root (absolute), or undefined. */
export function nearestTsconfig(root: string, rel: string): string | undefined {
  for (const dir of upFrom(root, rel)) {
    const f = path.join(dir, 'tsconfig.json');
    if (existsSync(f)) return f;
  }
  return undefined;
}

/** The ESLint config nearest to a repo-relative file, up to the root: its directory (absolute) and file name, and the eslint to run it with. */
export function nearestEslintConfig(root: string, rel: string): { dir: string; config: string; bin: string; legacy: boolean } | undefined {
  for (const dir of upFrom(root, rel)) {
    const c = eslintConfigIn(dir);
    if (!c) continue;
    const bin = nearestUp(root, dir, path.join('node_modules', 'eslint', 'bin', 'eslint.js'));
    if (!bin) return undefined;
    return { dir, config: c.config, bin, legacy: !c.flat && majorVersion(path.join(path.dirname(path.dirname(bin)), 'package.json')) >= 9 };
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

function readText(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

const VENVS = ['.venv', 'venv'];

function venvBin(root: string, name: string): string | undefined {
  for (const v of VENVS) {
    const bin = path.join(root, v, 'bin', name);
    if (existsSync(bin)) return bin;
  }
  return undefined;
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

function pyrightConfig(root: string): string | undefined {
  if (existsSync(path.join(root, 'pyrightconfig.json'))) return 'pyrightconfig.json';
  return configSection(readText(path.join(root, 'pyproject.toml')), /^\[tool\.pyright\]$/) ? 'pyproject.toml' : undefined;
}

function ruffConfig(root: string): string | undefined {
  const own = ['ruff.toml', '.ruff.toml'].find((f) => existsSync(path.join(root, f)));
  if (own) return own;
  return configSection(readText(path.join(root, 'pyproject.toml')), /^\[tool\.ruff(?:\.[\w.-]+)?\]$/) ? 'pyproject.toml' : undefined;
}

export function detectCheckers(root: string): CheckerSetup {
  const setup: CheckerSetup = {};
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const project = path.join(root, 'tsconfig.json');
  const workspace = isWorkspaceRoot(root);
  if (existsSync(tsc) && existsSync(project)) setup.tsc = { bin: tsc, projects: tscProjects(project) };
  else if (workspace && existsSync(tsc)) setup.tsc = { bin: tsc, projects: [] };
  const eslint = path.join(root, 'node_modules', 'eslint', 'bin', 'eslint.js');
  if (existsSync(eslint)) {
    const own = eslintConfigIn(root);
    if (own) setup.eslint = { bin: eslint, config: own.config, legacy: !own.flat && majorVersion(path.join(root, 'node_modules', 'eslint', 'package.json')) >= 9 };
    else if (workspace) setup.eslint = { bin: eslint, config: '', legacy: false };
  }
  const mypy = mypyConfig(root);
  const mypyBin = mypy && venvBin(root, 'mypy');
  if (mypy && mypyBin) setup.mypy = { bin: mypyBin, ...mypy };
  const pyright = pyrightConfig(root);
  if (pyright) {
    const npm = path.join(root, 'node_modules', 'pyright', 'index.js');
    const venv = venvBin(root, 'pyright');
    const ownVenv = /["']?\bvenv["']?\s*[:=]/.test(readText(path.join(root, pyright)));
    const python = ownVenv ? undefined : venvBin(root, 'python');
    const extra = python ? { python } : {};
    if (existsSync(npm)) setup.pyright = { bin: npm, node: true, config: pyright, ...extra };
    else if (venv) setup.pyright = { bin: venv, node: false, config: pyright, ...extra };
  }
  const ruff = ruffConfig(root);
  const ruffBin = ruff && venvBin(root, 'ruff');
  if (ruff && ruffBin) setup.ruff = { bin: ruffBin, config: ruff };
  return setup;
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

/**
 * ESLint on the given files (relative to `cwd`, the config's directory: '' for the root), or on
 * `stdin` as the file `files[0]`; the JSON report goes to `report`. Run from the config's
 * directory so that ESLint finds that config (flat config is looked up from the working directory).
 */
export function eslintCommand(eslint: { bin: string; legacy: boolean }, report: string, files: string[], stdin?: string, cwd = ''): string {
  const env = eslint.legacy ? 'ESLINT_USE_FLAT_CONFIG=false ' : '';
  const base = ['node', eslint.bin, '--format', 'json', '--output-file', report, '--no-color'];
  const args = stdin !== undefined ? [...base, '--stdin', '--stdin-filename', files[0]] : [...base, '--', ...files];
  const cd = cwd ? `cd ${shellQuote(cwd)} && ` : '';
  return `${cd}${env}${args.map(shellQuote).join(' ')}${stdin !== undefined ? ` < ${shellQuote(stdin)}` : ''}`;
}

/** mypy on the project (its configured files, or `targets`), plain lines with columns and codes, its cache outside the repository. */
export function mypyCommand(mypy: NonNullable<CheckerSetup['mypy']>, cacheDir: string, targets: string[]): string {
  const args = [mypy.bin, '--config-file', mypy.config, '--show-column-numbers', '--show-error-codes', '--no-pretty', '--no-error-summary', '--hide-error-context', '--no-color-output', '--cache-dir', cacheDir];
  return [...args, ...(mypy.files ? [] : targets)].map(shellQuote).join(' ');
}

/** pyright on the project as its config says (with the venv's interpreter for its installed packages), the JSON report to `report`. */
export function pyrightCommand(pyright: NonNullable<CheckerSetup['pyright']>, report: string): string {
  const cmd = pyright.node ? ['node', pyright.bin] : [pyright.bin];
  const python = pyright.python ? ['--pythonpath', pyright.python] : [];
  return `${[...cmd, '--outputjson', ...python].map(shellQuote).join(' ')} > ${shellQuote(report)}`;
}

/** ruff on the given files (repo-relative), or on `stdin` as the file `files[0]`; the JSON report to `report`. Files the config excludes stay excluded. */
export function ruffCommand(ruff: NonNullable<CheckerSetup['ruff']>, report: string, files: string[], stdin?: string): string {
  const base = [ruff.bin, 'check', '--output-format', 'json', '--no-cache', '--no-fix', '--force-exclude'];
  const args = stdin !== undefined ? [...base, '--stdin-filename', files[0], '-'] : [...base, '--', ...files];
  return `${args.map(shellQuote).join(' ')} > ${shellQuote(report)}${stdin !== undefined ? ` < ${shellQuote(stdin)}` : ''}`;
}
