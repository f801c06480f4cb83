/**
 * The CLI's `fix` against a scripted model, as the dialect and limit benches run it: the
 * scripted model serves `script`, the CLI (dist/cli.js unless `cli`) runs under node 24 with
 * only PATH, HOME and a key in its environment, and its JSON report is read (a CLI that
 * printed none: `cli-error` with the tail of its stderr).
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { node24, ROOT } from '../test-support/run-action.js';
import type { DevTask } from './dev-task.js';

/** What the benches read of the CLI's `--json` report. */
export interface CliReport {
  status: string;
  reason?: string;
  detail?: unknown;
  usage?: { peakPromptTokens?: number };
}

export interface CliFix {
  /** The scripted model's name in the request (`--model`). */
  model: string;
  /** The scripted model's options (`allowExhaustion` is always on). */
  server: ScriptedModelOptions;
  /** Flags after `--max-iterations 1 --json`. */
  flags: string[];
  /** The CLI to run (default: this checkout's dist/cli.js). */
  cli?: string;
}

/** `fix <text>` on `dir`: the report, the (closed) scripted model with its record, and the wall time. */
export async function fixWithCli(dir: string, t: DevTask, text: string, script: Script, o: CliFix): Promise<{ report: CliReport; model: ScriptedModel; wallMs: number }> {
  const model = await startScriptedModel(script, { ...o.server, allowExhaustion: true });
  const t0 = performance.now();
  const child = spawn(node24(), [o.cli ?? path.join(ROOT, 'dist', 'cli.js'), 'fix', text, '--repo', dir, '--test-command', t.test_command, '--base-url', model.url, '--model', o.model, '--max-iterations', '1', '--json', ...o.flags], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'bench-key-123456' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', (d: Buffer) => (err += d));
  await new Promise((r) => child.on('close', r));
  const wallMs = Math.round(performance.now() - t0);
  await model.close();
  const report: CliReport = out.trim().startsWith('{') ? JSON.parse(out) : { status: 'cli-error', detail: err.slice(-400) };
  return { report, model, wallMs };
}
