/**
 * pyright as a checker: where the project configures it (pyrightconfig.json, pyproject.toml
 * `[tool.pyright]`) and has it, from npm (node_modules/pyright) or its virtual environment. The
 * whole project as its config says, with the venv's interpreter for the packages installed there;
 * errors of its `--outputjson` report.
 */
import { existsSync, promises as fsp } from 'node:fs';
import path from 'node:path';
import { failure, firstLine, relative, shellQuote, type CheckContext, type Diagnostic, type Outcome, type ProjectChecker } from '../../diagnostics/checker.js';
import { errorMessage } from '../../errors.js';
import { configSection, readText, venvBin } from './env.js';

/**
 * `node`: the npm package's index.js, run with node; otherwise the venv's `pyright` wrapper.
 * `python`: the project's venv interpreter, for the packages installed there (absent when the
 * configuration names its own `venv`, or there is no venv).
 */
export interface PyrightSetup {
  bin: string;
  node: boolean;
  config: string;
  python?: string;
}

function pyrightConfig(root: string): string | undefined {
  if (existsSync(path.join(root, 'pyrightconfig.json'))) return 'pyrightconfig.json';
  return configSection(readText(path.join(root, 'pyproject.toml')), /^\[tool\.pyright\]$/) ? 'pyproject.toml' : undefined;
}

/** pyright on the project as its config says (with the venv's interpreter for its installed packages), the JSON report to `report`. */
export function pyrightCommand(pyright: PyrightSetup, report: string): string {
  const cmd = pyright.node ? ['node', pyright.bin] : [pyright.bin];
  const python = pyright.python ? ['--pythonpath', pyright.python] : [];
  return `${[...cmd, '--outputjson', ...python].map(shellQuote).join(' ')} > ${shellQuote(report)}`;
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

/** pyright on the project (exit 0 or 1: a report; anything else: it could not check). */
async function runPyright(setup: PyrightSetup, ctx: CheckContext): Promise<Outcome> {
  const report = ctx.scratch('pyright', '.json');
  const r = await ctx.exec(pyrightCommand(setup, report));
  const failed = failure(r, ctx);
  if (failed) return failed;
  try {
    const text = await fsp.readFile(report, 'utf8').catch(() => '');
    if (r.exitCode !== 0 && r.exitCode !== 1) return { ok: false, why: `it exited with ${r.exitCode}: ${firstLine(r.output || text)}`, off: true };
    return { ok: true, diagnostics: parsePyrightJson(text, ctx.root) };
  } catch (e) {
    return { ok: false, why: `its report could not be read (${errorMessage(e)})`, off: true };
  } finally {
    await fsp.rm(report, { force: true });
  }
}

export const pyright: ProjectChecker<'pyright', PyrightSetup> = {
  id: 'pyright',
  scope: 'project',
  title: 'pyright',
  label: 'type check (pyright)',
  reads: /\.(?:pyi?|toml|json)$/i,
  detect(root) {
    const config = pyrightConfig(root);
    if (!config) return undefined;
    const npm = path.join(root, 'node_modules', 'pyright', 'index.js');
    const venv = venvBin(root, 'pyright');
    const ownVenv = /["']?\bvenv["']?\s*[:=]/.test(readText(path.join(root, config)));
    const python = ownVenv ? undefined : venvBin(root, 'python');
    const extra = python ? { python } : {};
    if (existsSync(npm)) return { bin: npm, node: true, config, ...extra };
    if (venv) return { bin: venv, node: false, config, ...extra };
    return undefined;
  },
  runs: (setup, ctx) => [{ key: 'pyright', run: () => runPyright(setup, ctx) }],
};
