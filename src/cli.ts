/** Entry of the local CLI: `agent-fix fix "<task>"` and the keyless `agent-fix demo`. */
import { parseArgs } from 'node:util';
import { cp, mkdtemp, readFile, stat } from 'node:fs/promises';
import { execFileSync } from 'node:child_process';
import { realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { localTask, runLocal as runLocalStory, UsageError, type LocalOptions } from './run/local.js';
import { GitVersionError, openGit } from './adapters/git.js';
import { makeShell } from './adapters/shell.js';
import { makeChatModel } from './adapters/openai.js';
import { renderTerminal } from './report/render.js';
import { startScriptedModel } from './scripted/server.js';
import { parseScript } from './scripted/script.js';
import { DIALECTS, isDialect, type Dialect } from './scripted/dialects.js';
import { readSettings } from './settings/inputs.js';
import { CLI_DEFAULTS, resolveSettings } from './settings/resolve.js';
import type { Settings } from './settings/types.js';
import type { Wording } from './settings/wording.js';
import type { RunReport } from './fix/types.js';
import { TerminalProgress } from './report/terminal-progress.js';
import { errorMessage } from './errors.js';

const HELP = `agent-fix: turn a task into a small change that the repository's own tests confirm.

Usage:
  agent-fix demo                     run the whole loop on a bundled sample repository
                                     against a SCRIPTED model session (no keys, no network);
                                     --dialect NAME: the scripted endpoint behaves as NAME does
                                     (${DIALECTS.join(', ')})
  agent-fix fix "<task text>" [options]
                                     fix a task in a local git checkout; the result is left
                                     on the local branch agent-fix/<slug>

Options for fix:
  --repo DIR              the git checkout (default: current directory)
  --test-command CMD      the test command (default: detected, e.g. npm test)
  --setup-command CMD     run once before the baseline (default: detected, e.g. npm ci)
  --base-url URL          OpenAI-compatible endpoint (default: $OPENAI_BASE_URL or https://api.openai.com/v1)
  --model NAME            model name (default: $AGENT_FIX_MODEL or gpt-4.1)
  --api-key KEY           API key (default: $OPENAI_API_KEY; prefer the variable: a flag is visible to other users of the machine)
  --max-iterations N      verification attempts (default 5)
  --max-changed-files N   (default 10)
  --max-changed-lines N   (default 200)
  --timeout-minutes N     per command (default 15)
  --context-tokens N      token budget of the first model request, repository context included (default 8000; 0: no repository context)
  --max-input-tokens N    input tokens one model request may take, all of it counted (default: 8000 on
                          GitHub Models, the model's context window elsewhere when known, else 100000)
  --max-output-tokens N   the reply's cap per request (default: 4000 on GitHub Models, else the endpoint's)
  --requests-per-minute N pacing without rate-limit headers (default: 10 on GitHub Models, else none)
  --preexisting-failures allow|block
                          tests failing before any edit that the task is not about may
                          still fail at the gate (allow, the default) or not (block)
  --verbose, -v           one line per tool call of the model
  --json                  print only JSON on stdout: the report, or {"status":"error",...} on any error

The model endpoint is checked with one one-token request before any test runs.
Exit codes: 0 fixed; 1 not fixed (the run finished, no change passed verification);
2 usage or setup error (bad flag, no key, no such directory, not a git repository or one
without commits, uncommitted changes, the endpoint check failed, no test command, the
setup command failed) or an internal error. Nothing is changed in your checkout.`;

/** CLI flags whose name differs from the action input they set. */
const FLAG_OF: Record<string, string> = { 'command-timeout-minutes': 'timeout-minutes' };

const flag = (input: string) => `--${FLAG_OF[input] ?? input}`;

/** The CLI's words for messages made below it (fix.ts, the model adapter). */
export const CLI_WORDING: Wording = {
  setting: (input) => (input === 'api-key' ? '`OPENAI_API_KEY` (or `--api-key`)' : `\`${flag(input)}\``),
  nothingPublished: 'no branch was made',
  keyHelp: 'check `OPENAI_API_KEY` (or `--api-key`), and that `--base-url` is the endpoint the key belongs to',
};

/**
 * The flags and the environment (inputs: OPENAI_API_KEY, OPENAI_BASE_URL, AGENT_FIX_MODEL) through
 * the one settings reader (settings/inputs.ts), resolved with the CLI's defaults (settings/resolve.ts).
 */
export function settingsFrom(values: Record<string, string | boolean | undefined>, env: NodeJS.ProcessEnv): Settings {
  const s = (k: string) => (typeof values[k] === 'string' ? (values[k] as string) : undefined);
  // An empty flag or variable is an unset one: the CLI's default (as --help says), not the action's.
  const baseUrl = s('base-url') || env.OPENAI_BASE_URL || undefined;
  const model = s('model') || env.AGENT_FIX_MODEL || undefined;
  const input = (name: string): string => {
    if (name === 'api-key') return s('api-key') ?? env.OPENAI_API_KEY ?? '';
    if (name === 'base-url') return baseUrl ?? '';
    if (name === 'model') return model ?? '';
    return s(flag(name).slice(2)) ?? '';
  };
  try {
    return resolveSettings(readSettings(input, { requireGithubToken: false, name: (n) => (n === 'api-key' ? 'OPENAI_API_KEY (or --api-key)' : flag(n)) }), CLI_DEFAULTS);
  } catch (e) {
    throw new UsageError(errorMessage(e));
  }
}

/** The checkout named by --repo: an existing directory inside a git repository, else a usage error saying what to do. */
async function checkoutDir(repo: string): Promise<string> {
  const dir = path.resolve(repo);
  const st = await stat(dir).catch(() => null);
  if (!st) throw new UsageError(`--repo ${dir}: the directory does not exist. Pass the path of a git checkout (default: the current directory).`);
  if (!st.isDirectory()) throw new UsageError(`--repo ${dir}: not a directory. Pass the path of a git checkout's directory.`);
  return dir;
}

/** The local story with this machine's adapters. */
function runLocal(o: Omit<LocalOptions, 'openGit' | 'shell' | 'makeModel' | 'wording'>) {
  return runLocalStory({
    ...o,
    wording: CLI_WORDING,
    openGit: (repo) =>
      openGit(repo).catch((e: unknown) => {
        if (e instanceof GitVersionError) throw new UsageError(e.message);
        throw new UsageError(`${repo} is not inside a git repository. Run agent-fix in a git checkout or pass --repo DIR (to start one: git init && git add -A && git commit -m "initial").`);
      }),
    shell: makeShell(),
    makeModel: (log) =>
      makeChatModel({ baseUrl: o.settings.baseUrl, apiKey: o.settings.apiKey, model: o.settings.model, log, wording: CLI_WORDING, maxOutputTokens: o.settings.maxOutputTokens, requestsPerMinute: o.settings.requestsPerMinute }),
  });
}

/** What the run shows on stderr while it works: nothing with --json, else the phase line (a spinner on a TTY). */
function display(json: boolean, verbose: boolean): { log?: (m: string) => void; progress?: LocalOptions['progress']; stop(): void } {
  if (json) return { stop: () => undefined };
  // A terminal that cannot move the cursor (TERM=dumb) gets the plain lines of a pipe.
  const out = process.env.TERM === 'dumb' ? { write: (t: string) => process.stderr.write(t) } : process.stderr;
  const tp = new TerminalProgress(out, { verbose });
  return { log: (m) => tp.log(m), progress: (e) => tp.event(e), stop: () => tp.stop() };
}

/** Exit code of a finished run: 0 fixed (or nothing to do), 1 not fixed, 2 an error (setup, endpoint, no test command). */
export function exitCodeOf(status: RunReport['status']): number {
  return status === 'fixed' || status === 'skipped' ? 0 : status === 'not-fixed' ? 1 : 2;
}

/** Prints a finished run: JSON, or the report (an error as one message on stderr). Returns the exit code. */
function printResult(report: RunReport, transcriptPath: string, json: boolean, extra: Record<string, unknown>, after: (r: RunReport) => void): number {
  const code = exitCodeOf(report.status);
  if (json) {
    console.log(JSON.stringify({ ...report, transcriptPath, ...extra, exitCode: code }, null, 2));
  } else if (report.status === 'error') {
    console.error(`agent-fix: ${report.detail}`);
    console.error(`transcript: ${transcriptPath}`);
  } else {
    console.log(renderTerminal(report));
    console.log(`transcript: ${transcriptPath}`);
    after(report);
  }
  return code;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const demoDir = path.resolve(here, '..', 'demo');

async function demo(json: boolean, verbose: boolean, dialect: Dialect): Promise<number> {
  const say = (m: string) => !json && console.log(m);
  const script = parseScript(JSON.parse(await readFile(path.join(demoDir, 'script.json'), 'utf8')));
  const issue = await readFile(path.join(demoDir, 'issue.md'), 'utf8');
  const repo = await mkdtemp(path.join(os.tmpdir(), 'agent-fix-demo-'));
  await cp(path.join(demoDir, 'sample-repo'), repo, { recursive: true });
  const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'Demo Maintainer', GIT_AUTHOR_EMAIL: 'maintainer@example.com', GIT_COMMITTER_NAME: 'Demo Maintainer', GIT_COMMITTER_EMAIL: 'maintainer@example.com' };
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'tiny-shop: initial version']]) {
    execFileSync('git', args, { cwd: repo, env: gitEnv, stdio: 'ignore' });
  }
  const server = await startScriptedModel(script, { dialect });
  say(`agent-fix demo — ${script.label}${dialect === 'plain' ? '' : ` (the endpoint speaks the ${dialect} dialect)`}`);
  say(`sample repository: ${repo} (a real git repo with a real failing test)`);
  say(`model endpoint:    ${server.url} (local scripted OpenAI-compatible server)\n`);
  try {
    const settings = settingsFrom({ 'base-url': server.url, model: 'scripted-demo', 'test-command': 'npm test' }, { OPENAI_API_KEY: 'demo-key-not-secret' });
    const shown = display(json, verbose);
    let result;
    try {
      result = await runLocal({ repo, taskText: issue, settings, scripted: true, env: process.env, log: shown.log, progress: shown.progress });
    } finally {
      shown.stop();
    }
    return printResult(result.report, result.transcriptPath, json, { repo }, (r) => {
      if (r.branch) console.log(`See the fix: git -C ${repo} show ${r.branch}`);
    });
  } finally {
    await server.close();
  }
}

export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
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
        'max-input-tokens': { type: 'string' },
        'max-output-tokens': { type: 'string' },
        'requests-per-minute': { type: 'string' },
        'api-key': { type: 'string' },
        dialect: { type: 'string' },
        json: { type: 'boolean', default: false },
        verbose: { type: 'boolean', short: 'v', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    const text = errorMessage(e);
    const unknown = /^Unknown option '([^']+)'/.exec(text);
    throw new UsageError(`${unknown ? `Unknown option ${unknown[1]}` : text.replace(/\.$/, '')}. Run agent-fix --help for the options.`);
  }
  const { values, positionals } = parsed;
  const [command, ...rest] = positionals;
  const json = Boolean(values.json);
  const verbose = Boolean(values.verbose);
  if (values.help || command === 'help') {
    console.log(HELP);
    return 0;
  }
  if (!command) throw new UsageError('No command given: run agent-fix fix "<task>" in a git checkout, or agent-fix demo. Run agent-fix --help for the options.');
  if (command === 'demo') {
    const dialect = values.dialect ?? 'plain';
    if (!isDialect(dialect)) throw new UsageError(`Unknown dialect "${dialect}": the dialects are ${DIALECTS.join(', ')}.`);
    return demo(json, verbose, dialect);
  }
  if (command !== 'fix') throw new UsageError(`Unknown command "${command}": the commands are fix and demo. Run agent-fix --help.`);
  const taskText = rest.join(' ');
  localTask(taskText); // an empty task is a usage error before anything else
  const settings = settingsFrom(values, env);
  if (!settings.apiKey) throw new UsageError('No API key: set OPENAI_API_KEY (or pass --api-key), and OPENAI_BASE_URL (or --base-url) for an endpoint other than OpenAI; or try agent-fix demo, which needs no key.');
  const repo = await checkoutDir(typeof values.repo === 'string' ? values.repo : '.');
  const shown = display(json, verbose);
  let result;
  try {
    result = await runLocal({ repo, taskText, settings, env, log: shown.log, progress: shown.progress });
  } finally {
    shown.stop();
  }
  return printResult(result.report, result.transcriptPath, json, {}, (r) => {
    if (r.branch) console.log(`The fix is on the local branch ${r.branch}: git diff HEAD ${r.branch}`);
  });
}

/** Any error that stops the CLI, as the exit code 2 and one message (a JSON object with --json). */
export function reportFailure(e: unknown, json: boolean): number {
  const usage = e instanceof UsageError;
  const detail = errorMessage(e);
  if (json) console.log(JSON.stringify({ status: 'error', reason: usage ? 'usage-error' : 'internal-error', detail, exitCode: 2 }, null, 2));
  else console.error(`agent-fix: ${detail}`);
  return 2;
}

function isEntry(): boolean {
  try {
    return Boolean(process.argv[1]) && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}
/**
 * Exits with `code` once stdout and stderr have handed everything written to them to the OS.
 * On a pipe node writes asynchronously: `process.exit` right after a large `--json` report cut it
 * short (seen at about 219 KB).
 */
export function exitWhenFlushed(code: number): void {
  process.exitCode = code;
  let pending = 2;
  const done = (): void => {
    pending -= 1;
    if (pending === 0) process.exit(code);
  };
  process.stdout.write('', done);
  process.stderr.write('', done);
}

if (isEntry()) {
  const args = process.argv.slice(2);
  main(args).then(
    (code) => exitWhenFlushed(code),
    (e: unknown) => exitWhenFlushed(reportFailure(e, args.includes('--json'))),
  );
}
