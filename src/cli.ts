/** Entry of the local CLI: `agent-fix fix "<task>"` and the keyless `agent-fix demo`. */
import { parseArgs } from 'node:util';
import { cp, mkdtemp, readFile } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runLocal as runLocalStory, UsageError, type LocalOptions } from './run/local.js';
import { openGit } from './adapters/git.js';
import { makeShell } from './adapters/shell.js';
import { makeChatModel } from './adapters/openai.js';
import { renderTerminal } from './report/render.js';
import { startScriptedModel } from './scripted/server.js';
import { parseScript } from './scripted/script.js';
import { readSettings } from './settings/inputs.js';
import type { Settings } from './settings/types.js';

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
  --context-tokens N      token budget of the first model request, repository context included (default 8000; 0: no repository context)
  --preexisting-failures allow|block
                          tests failing before any edit that the task is not about may
                          still fail at the gate (allow, the default) or not (block)
  --json                  print the report as JSON
The API key is read from $OPENAI_API_KEY. Exit code: 0 fixed, 1 not fixed, 2 usage or setup error.`;

/** CLI flags whose name differs from the action input they set. */
const FLAG_OF: Record<string, string> = { 'command-timeout-minutes': 'timeout-minutes' };

/** The flags and the environment through the one settings reader (settings/inputs.ts), with the CLI's defaults. */
function settingsFrom(values: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): Settings {
  const s = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  const input = (name: string): string => {
    if (name === 'api-key') return env.OPENAI_API_KEY ?? '';
    if (name === 'base-url') return s('base-url') ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1';
    if (name === 'model') return s('model') ?? env.AGENT_FIX_MODEL ?? 'gpt-4.1';
    return s(FLAG_OF[name] ?? name) ?? '';
  };
  try {
    return readSettings(input, { requireGithubToken: false, name: (n) => (n === 'api-key' ? '$OPENAI_API_KEY' : `--${FLAG_OF[n] ?? n}`) });
  } catch (e) {
    throw new UsageError(e instanceof Error ? e.message : String(e));
  }
}

/** The local story with this machine's adapters. */
function runLocal(o: Omit<LocalOptions, 'openGit' | 'shell' | 'makeModel'>) {
  return runLocalStory({
    ...o,
    openGit: (repo) => openGit(repo),
    shell: makeShell(),
    makeModel: (log) => makeChatModel({ baseUrl: o.settings.baseUrl, apiKey: o.settings.apiKey, model: o.settings.model, log }),
  });
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
    const settings = settingsFrom({ 'base-url': server.url, model: 'scripted-demo', 'test-command': 'npm test' }, { OPENAI_API_KEY: 'demo-key-not-secret' });
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
      'context-tokens': { type: 'string' },
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
