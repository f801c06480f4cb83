/**
 * Workspaces of a monorepo (npm, yarn, pnpm): which packages there are, which one owns a changed
 * file, and the command that runs one package's tests through the workspace tool.
 *
 * - npm and yarn: the root package.json `workspaces` (an array of globs, or yarn's
 *   `{ packages: [...] }`); pnpm: `pnpm-workspace.yaml` `packages:`. Globs of the forms real
 *   repositories use are expanded: a directory (`packages/a`), one level (`packages/*`), any depth
 *   (`packages/**`); `!` patterns exclude.
 * - A file belongs to the package whose directory is the longest prefix of its path.
 * - One package's tests: npm `npm test -w <dir>`, pnpm `pnpm --filter <name> test`, yarn
 *   `yarn workspace <name> test`; the package's `test` script says which runner it is.
 *
 * Pure apart from the injected reader (`readProject`).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

export type WorkspaceTool = 'npm' | 'yarn' | 'pnpm';

export interface WorkspacePackage {
  /** Repo-relative directory, `/` separators, no trailing slash. */
  dir: string;
  /** The package's name (its package.json), or the directory when it has none. */
  name: string;
  /** Its `test` script, when it has a real one. */
  testScript: string | null;
}

export interface Workspaces {
  tool: WorkspaceTool;
  packages: WorkspacePackage[];
}

const NO_TEST = /no test specified/i;

/** The workspace globs of the root package.json and of pnpm-workspace.yaml. */
export function workspaceGlobs(pkgText: string | null, pnpmYaml: string | null): { tool: WorkspaceTool; globs: string[] } | null {
  if (pnpmYaml !== null) {
    const globs: string[] = [];
    let inPackages = false;
    for (const raw of pnpmYaml.split(/\r?\n/)) {
      const line = raw.replace(/\s+#.*$/, '');
      if (/^packages\s*:/.test(line)) {
        inPackages = true;
        const inline = /^packages\s*:\s*\[(.*)\]\s*$/.exec(line);
        if (inline) {
          globs.push(...inline[1].split(',').map((g) => g.trim().replace(/^['"]|['"]$/g, '')).filter(Boolean));
          inPackages = false;
        }
        continue;
      }
      if (inPackages) {
        const item = /^\s+-\s*(.+?)\s*$/.exec(line);
        if (item) globs.push(item[1].replace(/^['"]|['"]$/g, ''));
        else if (/^\S/.test(line)) inPackages = false;
      }
    }
    if (globs.length) return { tool: 'pnpm', globs };
  }
  if (pkgText === null) return null;
  let pkg: { workspaces?: unknown };
  try {
    pkg = JSON.parse(pkgText) as { workspaces?: unknown };
  } catch {
    return null;
  }
  const ws = pkg.workspaces;
  const list = Array.isArray(ws) ? ws : ws && typeof ws === 'object' && Array.isArray((ws as { packages?: unknown }).packages) ? (ws as { packages: unknown[] }).packages : null;
  if (!list) return null;
  const globs = list.filter((g): g is string => typeof g === 'string');
  return globs.length ? { tool: Array.isArray(ws) ? 'npm' : 'yarn', globs } : null;
}

/** Directories matching the workspace globs, given a lister of a directory's subdirectories. */
export async function expandGlobs(globs: string[], subdirs: (dir: string) => Promise<string[]>): Promise<string[]> {
  const clean = (g: string) => g.replace(/^\.\//, '').replace(/\/+$/, '');
  const include = globs.filter((g) => !g.startsWith('!')).map(clean);
  const exclude = globs.filter((g) => g.startsWith('!')).map((g) => clean(g.slice(1)));
  const found = new Set<string>();
  const walk = async (dir: string, parts: string[]): Promise<void> => {
    if (parts.length === 0) {
      found.add(dir);
      return;
    }
    const [head, ...rest] = parts;
    if (head === '**') {
      await walk(dir, rest);
      for (const d of await subdirs(dir)) if (d !== 'node_modules' && !d.startsWith('.')) await walk(dir ? `${dir}/${d}` : d, parts);
      return;
    }
    if (head.includes('*')) {
      const re = new RegExp(`^${head.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*')}$`);
      for (const d of await subdirs(dir)) if (re.test(d) && d !== 'node_modules') await walk(dir ? `${dir}/${d}` : d, rest);
      return;
    }
    await walk(dir ? `${dir}/${head}` : head, rest);
  };
  for (const g of include) await walk('', g.split('/'));
  const excluded = exclude.length ? await expandGlobs(exclude, subdirs) : [];
  return [...found].filter((d) => d !== '' && !excluded.includes(d)).sort();
}

/** The workspaces of the repository at `root`, or null when it is not a monorepo. */
export async function readWorkspaces(root: string): Promise<Workspaces | null> {
  const read = async (f: string) => {
    try {
      return await fs.readFile(path.join(root, f), 'utf8');
    } catch {
      return null;
    }
  };
  const spec = workspaceGlobs(await read('package.json'), await read('pnpm-workspace.yaml'));
  if (!spec) return null;
  const subdirs = async (dir: string) => {
    try {
      return (await fs.readdir(path.join(root, dir), { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name);
    } catch {
      return [];
    }
  };
  const packages: WorkspacePackage[] = [];
  for (const dir of await expandGlobs(spec.globs, subdirs)) {
    const text = await read(`${dir}/package.json`);
    if (text === null) continue;
    let pkg: { name?: unknown; scripts?: Record<string, unknown> } = {};
    try {
      pkg = JSON.parse(text) as typeof pkg;
    } catch {
      continue;
    }
    const test = pkg.scripts?.test;
    packages.push({ dir, name: typeof pkg.name === 'string' ? pkg.name : dir, testScript: typeof test === 'string' && test.trim() && !NO_TEST.test(test) ? test.trim() : null });
  }
  return packages.length ? { tool: spec.tool, packages } : null;
}

/** The package that owns a repo-relative file (the longest directory prefix), or null (the root). */
export function owningPackage(ws: Workspaces, file: string): WorkspacePackage | null {
  let best: WorkspacePackage | null = null;
  for (const p of ws.packages) if (file.startsWith(`${p.dir}/`) && (!best || p.dir.length > best.dir.length)) best = p;
  return best;
}

/** The packages that own any of the files, in the order of the workspaces. */
export function owningPackages(ws: Workspaces, files: string[]): WorkspacePackage[] {
  const owners = new Set(files.map((f) => owningPackage(ws, f)).filter((p): p is WorkspacePackage => p !== null));
  return ws.packages.filter((p) => owners.has(p));
}

/**
 * The command that runs one package's `test` script through the workspace tool, with `--`
 * (npm) where runner arguments may follow.
 */
export function packageTestCommand(tool: WorkspaceTool, p: WorkspacePackage): string {
  if (tool === 'pnpm') return `pnpm --filter ${p.name} test`;
  if (tool === 'yarn') return `yarn workspace ${p.name} test`;
  return `npm test -w ${p.dir}`;
}
