/**
 * ESLint as a checker: the repository's node_modules/eslint where there is an ESLint config (flat,
 * eslintrc, or package.json's `eslintConfig`; in a workspace, the config nearest to each file).
 * Errors of its `--format json` report, per file, against the file as it was before the first write.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { nearestUp, relative, runReport, shellQuote, upFrom, type Diagnostic, type FileChecker, type Outcome } from '../../diagnostics/checker.js';
import { isWorkspaceRoot, majorVersion, packageField } from './package.js';

/** `config`: the root's config file ('' in a workspace root without one: each package's own is found per file). */
export interface EslintSetup {
  bin: string;
  config: string;
  /** eslintrc config with ESLint 9, which needs ESLINT_USE_FLAT_CONFIG=false */
  legacy: boolean;
}

const FLAT = ['eslint.config.js', 'eslint.config.mjs', 'eslint.config.cjs', 'eslint.config.ts', 'eslint.config.mts', 'eslint.config.cts'];
const LEGACY = ['.eslintrc.js', '.eslintrc.cjs', '.eslintrc.yaml', '.eslintrc.yml', '.eslintrc.json', '.eslintrc'];
const ESLINT_BIN = path.join('node_modules', 'eslint', 'bin', 'eslint.js');

/** Files ESLint is asked about: JavaScript and TypeScript sources. */
export const LINTABLE = /\.(?:[cm]?[jt]sx?)$/i;

/** The ESLint config file of one directory (flat first, then eslintrc, then package.json's eslintConfig), or undefined. */
function eslintConfigIn(dir: string): { config: string; flat: boolean } | undefined {
  const flat = FLAT.find((f) => existsSync(path.join(dir, f)));
  if (flat) return { config: flat, flat: true };
  const legacy = LEGACY.find((f) => existsSync(path.join(dir, f))) ?? (packageField(dir, 'eslintConfig') !== undefined ? 'package.json' : undefined);
  return legacy ? { config: legacy, flat: false } : undefined;
}

/** The ESLint config nearest to a repo-relative file, up to the root: its directory (absolute) and file name, and the eslint to run it with. */
export function nearestEslintConfig(root: string, rel: string): { dir: string; config: string; bin: string; legacy: boolean } | undefined {
  for (const dir of upFrom(root, rel)) {
    const c = eslintConfigIn(dir);
    if (!c) continue;
    const bin = nearestUp(root, dir, ESLINT_BIN);
    if (!bin) return undefined;
    return { dir, config: c.config, bin, legacy: !c.flat && majorVersion(path.join(path.dirname(path.dirname(bin)), 'package.json')) >= 9 };
  }
  return undefined;
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
      out.push({ checker: 'eslint', file, line: m.line ?? 0, column: m.column ?? 0, code: m.ruleId ?? (m.fatal ? 'parse' : 'eslint'), message: String(m.message ?? '') });
    }
  }
  return out;
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

export const eslint: FileChecker<'eslint', EslintSetup> = {
  id: 'eslint',
  scope: 'file',
  title: 'ESLint',
  label: 'ESLint',
  reads: LINTABLE,
  lints: LINTABLE,
  detect(root) {
    const bin = path.join(root, ESLINT_BIN);
    if (!existsSync(bin)) return undefined;
    const own = eslintConfigIn(root);
    if (own) return { bin, config: own.config, legacy: !own.flat && majorVersion(path.join(root, 'node_modules', 'eslint', 'package.json')) >= 9 };
    return isWorkspaceRoot(root) ? { bin, config: '', legacy: false } : undefined;
  },
  /** Per nearest config, run from its directory; a file no config applies to has nothing to say. */
  async lint(_setup, files, ctx, stdin): Promise<Outcome> {
    const groups = new Map<string, { dir: string; bin: string; legacy: boolean; files: string[] }>();
    for (const f of files) {
      const c = nearestEslintConfig(ctx.root, f);
      if (!c) continue;
      const g = groups.get(c.dir) ?? { dir: c.dir, bin: c.bin, legacy: c.legacy, files: [] };
      g.files.push(path.relative(c.dir, path.join(ctx.root, f)).split(path.sep).join('/'));
      groups.set(c.dir, g);
    }
    const all: Diagnostic[] = [];
    for (const g of groups.values()) {
      const cwd = path.relative(ctx.root, g.dir);
      const r = await runReport(ctx, 'eslint', (report) => eslintCommand(g, report, g.files, stdin, cwd), (t) => parseEslintJson(t, ctx.root));
      if (!r.ok) return r;
      all.push(...r.diagnostics);
    }
    return { ok: true, diagnostics: all };
  },
};
