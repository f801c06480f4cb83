/**
 * The fix's first phase, the workbench: the sandbox of the repository's commands, the budget,
 * the checkout as it was, the test and setup commands (detected when not set), the model
 * endpoint checked before anything runs, and the setup command run once.
 */
import type { CommandResult } from '../ports/shell.js';
import type { Settings } from '../settings/types.js';
import type { Run } from './run.js';
import { Budget } from '../budget/budget.js';
import { isolationFor, openSandbox, probeSandbox, sandboxRefused, type SandboxProbe } from '../sandbox/sandbox.js';
import { credentialFiles } from '../sandbox/credentials.js';
import { treeKept } from '../workspace/tree-guard.js';
import { childEnv } from '../verify/env.js';
import { detectCommands } from '../verify/detect.js';
import { toTestRun } from '../verify/test-run.js';
import { isCheckable } from '../ports/llm.js';
import { stop, tail, type Stop } from './stop.js';

/** The setup command's output kept (its head and tail): what a reader of a failed setup needs. */
export const SETUP_OUTPUT_CAP = 400_000;
/**
 * A test command's output kept for parsing (head and tail, the middle dropped beyond it). Test ids
 * are read from the whole of it, so it must hold a large suite's verbose listing: a pnpm monorepo's
 * vitest --reporter=verbose printed 486,229 characters (valibot, 3,980 tests), and a cap of 400,000
 * dropped the fixed tests' lines from the middle, so the gate refused a real fix. The output lives
 * only while it is parsed (a TestRun keeps a 4,000-character tail).
 */
export const TEST_OUTPUT_CAP = 8_000_000;

type SandboxSettings = Settings['sandbox'];
type Isolation = ReturnType<typeof isolationFor>;

/** The bench every later phase works on. */
export interface Workbench {
  started: number;
  budget: Budget;
  probe: SandboxProbe;
  sandbox: SandboxSettings;
  box: ReturnType<typeof openSandbox>;
  setupIso: Isolation;
  testIso: Isolation;
  /** Files a test run changed (put back each time; only the model's bytes are published). */
  touchedByTests: Set<string>;
  baseSha: string;
  /** The tree as checked out, before setup or tests could leave anything behind. */
  pristineTree: string;
  /** The environment of the repository's commands. */
  env: Record<string, string>;
}

/** The test and setup commands, as set or detected. */
export interface Found {
  setup: string | null;
  test: string;
  /** Why these commands, when they were detected. */
  detection?: string;
}

/** The commands found and ready to run. */
export interface Commands extends Found {
  /** Runs a repository command in the sandbox; after a test run the working tree is put back (workspace/tree-guard.ts). */
  run: (command: string, kind?: 'setup' | 'tests') => Promise<CommandResult>;
  /** Where agent-fix puts files the commands write for it (RunSandbox.scratch). */
  scratch: string;
  /** Where a file of the checkout that test runs write for agent-fix is read (RunSandbox.exportFile). */
  exportFile: (rel: string) => string;
}

/** The caps of the run: the effective settings' budget (a `continue budget=$N` raise included), priced for the run's model. */
export function runBudget(run: Pick<Run, 'settings' | 'ports'>, now?: () => number): Budget {
  return new Budget(run.settings.budget, run.ports.model.model, now);
}

export async function openWorkbench(run: Run): Promise<Workbench> {
  const { git, log } = run.ports;
  const started = Date.now();
  const budget = runBudget(run);
  const probe = run.ports.sandbox ?? probeSandbox(log);
  const sb = run.settings.sandbox;
  // One sandbox for the run's commands (sandbox/sandbox.ts): private HOME and temp, the checkout's credential covered.
  const box = openSandbox(probe, git.root, credentialFiles(git.root), process.env.HOME, log);
  const setupIso = isolationFor('setup', sb.setupNetwork, probe, box);
  const testIso = isolationFor('tests', sb.testNetwork, probe, box);
  if (probe.mode === 'none') log(`Sandbox: ${probe.description}`);
  const baseSha = await git.headSha();
  const pristineTree = await git.snapshot();
  return { started, budget, probe, sandbox: sb, box, setupIso, testIso, touchedByTests: new Set(), baseSha, pristineTree, env: box.env(childEnv(run.ports.parentEnv)) };
}

/** The policy's demands on the sandbox that this runner cannot meet: nothing runs. */
export function sandboxRefusal(run: Run, bench: Workbench): Stop | null {
  const { parentEnv } = run.ports;
  const { sandbox: sb, probe } = bench;
  if (sb.requireIsolation && (bench.setupIso.unavailable || bench.testIso.unavailable)) {
    return stop('error', 'not-applicable', `The policy requires network isolation (sandbox.require-isolation) but none is available here: ${probe.description}. Nothing was run.`);
  }
  if (sandboxRefused(sb.requireSandbox, probe.mode, parentEnv.RUNNER_ENVIRONMENT === 'github-hosted')) {
    return stop('error', 'not-applicable', `The policy requires a sandbox for the repository's commands (sandbox.require-sandbox: ${sb.requireSandbox}) but this runner cannot give one: ${probe.description}. Nothing was run.`);
  }
  return null;
}

/** The test and setup commands: the settings', or detected from the repository. */
export async function findCommands(run: Run): Promise<Found | Stop> {
  const { settings, words } = run;
  const { log } = run.ports;
  const root = run.ports.git.root;
  if (settings.testCommand) return { setup: settings.setupCommand, test: settings.testCommand };
  const detected = await detectCommands(root);
  if (!detected.test) return stop('error', 'not-applicable', `No test command: ${detected.reason}; set ${words.setting('test-command')} (and ${words.setting('setup-command')} if dependencies must be installed).`);
  const setup = settings.setupCommand ?? detected.setup;
  log(`Detected ${detected.stack}: setup \`${setup ?? 'none'}\`, tests \`${detected.test}\``);
  return { setup, test: detected.test, detection: detected.reason };
}

/** The commands made ready to run: sandboxed, capped, within the budget. */
export function readyCommands(run: Run, bench: Workbench, found: Found): Commands {
  return { ...found, run: commandRunner(run, bench), scratch: bench.box.scratch, exportFile: bench.box.exportFile };
}

/** The model endpoint answers before anything runs: a wrong URL, key or model costs no test run. */
export async function checkModel(run: Run): Promise<Stop | null> {
  const { progress } = run;
  const deps = run.ports;
  const { model, redactor } = deps;
  if (!isCheckable(model)) return null;
  progress({ type: 'phase', phase: { kind: 'model' }, state: 'running' });
  progress({ type: 'waiting', on: 'the model endpoint' });
  const checked = await model.check();
  if (!checked.ok && checked.fatal) {
    const why = redactor.redact(checked.message);
    progress({ type: 'phase', phase: { kind: 'model' }, state: 'failed', detail: why });
    return stop('error', 'model-error', `The model endpoint check failed, so nothing was run: ${why}.`);
  }
  if (!checked.ok) deps.log(`The model endpoint check did not pass cleanly (${redactor.redact(checked.message)}); going on, the run retries model requests.`);
  progress({ type: 'phase', phase: { kind: 'model' }, state: 'done', detail: checked.ok ? checked.detail : `answered with a passing problem: ${redactor.redact(checked.message)}` });
  return null;
}

/** Runs a repository command the way every command of the run is run: sandboxed, capped, within the budget. */
function commandRunner(run: Run, bench: Workbench): Commands['run'] {
  const { settings } = run;
  const { git, shell } = run.ports;
  const runIn = (command: string, kind: 'setup' | 'tests') =>
    shell.run(command, {
      cwd: git.root,
      // never beyond the run's wall-time budget
      timeoutMs: Math.max(1000, Math.min(settings.commandTimeoutMs, bench.budget.remainingMs())),
      env: bench.env,
      maxOutputChars: kind === 'setup' ? SETUP_OUTPUT_CAP : TEST_OUTPUT_CAP,
      // made per command: the plan holds the files test runs export (RunSandbox.exportFile)
      wrapper: bench.box.wrapper(kind, kind === 'setup' ? bench.sandbox.setupNetwork : bench.sandbox.testNetwork),
      memoryMb: bench.sandbox.memoryMb,
    });
  return (command, kind = 'tests') => (kind === 'setup' ? runIn(command, kind) : treeKept(git, () => runIn(command, kind), bench.touchedByTests));
}

/** The setup command, once; a failure ends the fix before anything changed. */
export async function runSetup(fix: Run, commands: Commands): Promise<Stop | null> {
  const { progress, emit } = fix;
  const { setup, run } = commands;
  if (!setup) {
    progress({ type: 'phase', phase: { kind: 'setup' }, state: 'skipped', detail: 'no setup command' });
    return null;
  }
  progress({ type: 'phase', phase: { kind: 'setup' }, state: 'running', detail: setup });
  progress({ type: 'waiting', on: 'the setup command' });
  const r = await run(setup, 'setup');
  const setupRun = toTestRun(r, fix.ports.redactor);
  const { output: _output, ...meta } = r;
  emit({ type: 'command', purpose: 'setup', result: { ...meta, outputTail: setupRun.outputTail } });
  if (r.exitCode !== 0 || r.timedOut) {
    const why = r.timedOut ? 'timed out' : `exited with ${r.exitCode ?? r.signal ?? 'no code'}`;
    progress({ type: 'phase', phase: { kind: 'setup' }, state: 'failed', detail: `${setup} ${why}` });
    return stop('error', 'setup-failed', `The setup command \`${setup}\` ${why}; nothing was changed. Last output:\n${tail(setupRun.outputTail, 1500)}`);
  }
  progress({ type: 'phase', phase: { kind: 'setup' }, state: 'done', detail: `${setup} passed` });
  return null;
}
