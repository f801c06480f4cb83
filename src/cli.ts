/** Entry of the local CLI: `agent-fix fix "<task>"` and the keyless `agent-fix demo`. */
import { parseArgs } from 'node:util';
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLocal, UsageError } from './run/local.js';
import { renderTerminal } from './report/render.js';
import { startScriptedModel } from './scripted/server.js';
import { parseScript } from './scripted/script.js';
import { ALWAYS_PROTECTED } from './workspace/paths.js';
import type { Settings } from './types.js';

const HELP = `agent-fix: turn a task into a small change that the repository's own tests confirm.

Usage:
  agent-fix demo                     run the whole loop on a bundled sample repository
                                     against a SCRIPTED model session (no keys, no network)
  agent-fix fix "<task text>" [options]
                                     fix a task in a local git checkout; the result is left
                                     on the local branch agent-fix/<slug>

Options for fix:
  --repo DIR              the git checkout (default: current directory)
  --test-command CMD      the test command (default: detected, e.g. npm test)
  --setup-command CMD     run once before the baseline (default: detected, e.g. npm ci)
  --base-url URL          OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or https://api.openai.com/v1)
  --model NAME            model name (default: $AGENT_FIX_MODEL or gpt-4.1)
  --max-iterations N      verification attempts (default 5)
  --max-changed-files N   (default 10)
  --max-changed-lines N   (default 200)
  --timeout-minutes N     per command (default 15)
  --preexisting-failures allow|block
                          tests failing before any edit that the task is not about may
                          still fail at the gate (allow, the default) or not (block)
  --json                  print the report as JSON
The API key is read from $OPENAI_API_KEY. Exit code: 0 fixed, 1 not fixed, 2 usage or setup error.`;

function int(name: string, v: string | undefined, dflt: number, max: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new UsageError(`--${name} must be a whole number from 1 to ${max} (got "${v}")`);
  return n;
}

function settingsFrom(values: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): Settings {
  const s = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const baseUrl = s('base-url') ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--base-url must be a URL such as https://api.openai.com/v1 (got "${baseUrl}")`);
  }
  return {
    githubToken: '',
    apiKey: env.OPENAI_API_KEY ?? '',
    baseUrl,
    model: s('model') ?? env.AGENT_FIX_MODEL ?? 'gpt-4.1',
    testCommand: s('test-command') ?? null,
    setupCommand: s('setup-command') ?? null,
    label: 'agent-fix',
    maxIterations: int('max-iterations', s('max-iterations'), 5, 50),
    maxChangedFiles: int('max-changed-files', s('max-changed-files'), 10, 1000),
    maxChangedLines: int('max-changed-lines', s('max-changed-lines'), 200, 100000),
    draft: true,
    commandTimeoutMs: int('timeout-minutes', s('timeout-minutes'), 15, 360) * 60_000,
    protectedPaths: [...ALWAYS_PROTECTED],
    preexistingFailures: preexisting(s('preexisting-failures')),
  };
}

function preexisting(v: string | undefined): 'allow' | 'block' {
  if (v === undefined || v === 'allow' || v === 'block') return v ?? 'allow';
  throw new UsageError(`--preexisting-failures must be allow or block (got "${v}")`);
}

const here = path.dirname(fileURLToPath(import.meta.url));
const demoDir = path.resolve(here, '..', 'demo');

async function demo(json: boolean): Promise<number> {
  const say = (m: string) => !json && console.log(m);
  const script = parseScript(JSON.parse(await readFile(path.join(demoDir, 'script.json'), 'utf8')));
  const issue = await readFile(path.join(demoDir, 'issue.md'), 'utf8');
  const repo = await mkdtemp(path.join(os.tmpdir(), 'agent-fix-demo-'));
  await cp(path.join(demoDir, 'sample-repo'), repo, { recursive: true });
  const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'Demo Maintainer', GIT_AUTHOR_EMAIL: 'maintainer@example.com', GIT_COMMITTER_NAME: 'Demo Maintainer', GIT_COMMITTER_EMAIL: 'maintainer@example.com' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'tiny-shop: initial version']]) {
    execFileSync('git', args, { cwd: repo, env: gitEnv, stdio: 'ignore' });
  }
  const server = await startScriptedModel(script);
  say(`agent-fix demo — ${script.label}`);
  say(`sample repository: ${repo} (a real git repo with a real failing test)`);
  say(`model endpoint:    ${server.url} (local scripted OpenAI-compatible server)\n`);
  try {
    const settings = settingsFrom({ 'base-url': server.url, model: 'scripted-demo', 'test-command': 'npm test' }, {});
    settings.apiKey = 'demo-key-not-secret';
    const { report, transcriptPath } = await runLocal({ repo, taskText: issue, settings, scripted: true, env: process.env, log: (m) => say(`  · ${m}`) });
    if (json) console.log(JSON.stringify({ ...report, transcriptPath, repo }, null, 2));
    else {
      console.log(renderTerminal(report));
      console.log(`transcript: ${transcriptPath}`);
      if (report.branch) console.log(`See the fix: git -C ${repo} show ${report.branch}`);
    }
    return report.status === 'fixed' ? 0 : 1;
  } finally {
    await server.close();
  }
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      repo: { type: 'string' },
      'test-command': { type: 'string' },
      'setup-command': { type: 'string' },
      'base-url': { type: 'string' },
      model: { type: 'string' },
      'max-iterations': { type: 'string' },
      'max-changed-files': { type: 'string' },
      'max-changed-lines': { type: 'string' },
      'timeout-minutes': { type: 'string' },
      'preexisting-failures': { type: 'string' },
      json: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  const [command, ...rest] = positionals;
  if (values.help || !command || command === 'help') {
    console.log(HELP);
    return command || values.help ? 0 : 2;
  }
  if (command === 'demo') return demo(Boolean(values.json));
  if (command !== 'fix') throw new UsageError(`Unknown command "${command}". Run agent-fix --help.`);
  const settings = settingsFrom(values, env);
  if (!settings.apiKey) throw new UsageError('Set OPENAI_API_KEY (and OPENAI_BASE_URL for a non-OpenAI endpoint), or try `agent-fix demo` which needs no key.');
  const { report, transcriptPath } = await runLocal({
    repo: path.resolve(typeof values.repo === 'string' ? values.repo : '.'),
    taskText: rest.join(' '),
    settings,
    env,
    log: values.json ? undefined : (m) => console.error(`· ${m}`),
  });
  if (values.json) console.log(JSON.stringify({ ...report, transcriptPath }, null, 2));
  else {
    console.log(renderTerminal(report));
    console.log(`transcript: ${transcriptPath}`);
    if (report.branch) console.log(`The fix is on the local branch ${report.branch}: git diff HEAD ${report.branch}`);
  }
  return report.status === 'fixed' ? 0 : 1;
}

function isEntry(): boolean {
  try {
    return Boolean(process.argv[1]) && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
if (isEntry()) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      const msg = e instanceof Error ? e.message : String(e);
      console.error(`agent-fix: ${msg}`);
      process.exit(2);
    },
  );
}
