/**
 * The diagnostics tests' harness (__tests__/diagnostics*.test.ts): fixture projects written to a
 * temporary directory, the real shell with the environment test commands get (recording each
 * command), and a model's edit as the ToolBox makes it (beforeWrite, then the write).
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeShell } from '../src/adapters/shell.js';
import { childEnv } from '../src/verify/env.js';
import type { CheckExec, DiagnosticsWatcher } from '../src/diagnostics/watch.js';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const dirs: string[] = [];

/** Removes every project made so far (call from afterAll). */
export function removeProjects(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** A project of these files; `linkModules` links this repository's node_modules into it. */
export function project(files: Record<string, string>, opts: { prefix?: string; linkModules?: boolean } = {}): string {
  const dir = mkdtempSync(path.join(tmpdir(), opts.prefix ?? 'agent-fix-diag-test-'));
  dirs.push(dir);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    writeFileSync(path.join(dir, rel), text);
  }
  if (opts.linkModules) symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  return dir;
}

/** The real shell, with the environment the test commands get; records every command. */
export function realExec(dir: string): CheckExec & { commands: string[] } {
  const shell = makeShell();
  const commands: string[] = [];
  const exec = (command: string, o: { timeoutMs: number; maxOutputChars: number }) => {
    commands.push(command);
    return shell.run(command, { cwd: dir, timeoutMs: o.timeoutMs, env: childEnv(process.env), maxOutputChars: o.maxOutputChars });
  };
  return Object.assign(exec, { commands });
}

/** A model's edit as the ToolBox makes it: beforeWrite, then the write (a new file's directories made). */
export async function edit(w: DiagnosticsWatcher, dir: string, rel: string, change: (text: string) => string): Promise<void> {
  await w.beforeWrite(rel);
  const abs = path.join(dir, rel);
  let text = '';
  try {
    text = readFileSync(abs, 'utf8');
  } catch {
    mkdirSync(path.dirname(abs), { recursive: true });
  }
  writeFileSync(abs, change(text));
}
