/** What the JavaScript checkers read of a package: package.json fields, an installed package's version, workspaces. */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The major version in an installed package's package.json, NaN when it cannot be read. */
export function majorVersion(pkgJson: string): number {
  try {
    const v = (JSON.parse(readFileSync(pkgJson, 'utf8')) as { version?: unknown }).version;
    return typeof v === 'string' ? Number.parseInt(v, 10) : NaN;
  } catch {
    return NaN;
  }
}

/** A field of the package.json in `dir`, undefined when it has none or cannot be read. */
export function packageField(dir: string, field: string): unknown {
  try {
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as Record<string, unknown>)[field];
  } catch {
    return undefined;
  }
}

/** A workspace root: `workspaces` in package.json, or pnpm-workspace.yaml. */
export function isWorkspaceRoot(root: string): boolean {
  if (existsSync(path.join(root, 'pnpm-workspace.yaml'))) return true;
  return packageField(root, 'workspaces') !== undefined;
}
