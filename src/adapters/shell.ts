/**
 * The Shell port implemented with execa: runs the repository's own setup and test commands.
 *
 * - `bash -c <command>` (falling back to `sh -c`), in its own process group (detached), with
 *   exactly the environment it is given (nothing inherited) and stdin closed.
 * - stdout and stderr share one pipe (`exec 2>&1`), so they interleave in exact arrival
 *   order, into one capped buffer: the first ~20%
 *   and the last ~80% of `maxOutputChars` are kept, with a marker for what was dropped in
 *   between. Output is never held in full, so a flood of hundreds of MB costs little memory.
 * - On timeout the whole group gets SIGTERM, then SIGKILL after a grace period.
 * - When the command exits, whatever it left behind in its process group is killed too.
 * - Nothing throws: a missing shell or cwd is reported through `spawnError`.
 */
import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import { execa } from 'execa';
import type { CommandResult, RunOptions, Shell } from '../ports/shell.js';
import { errorMessage } from '../errors.js';

/** Time between SIGTERM and SIGKILL for the process group. */
const KILL_GRACE_MS = 2000;
/** How long to wait for the output pipes to close once the group is gone. */
const DRAIN_MS = 1000;
const HEAD_SHARE = 0.2;
/** setTimeout's limit (about 24.8 days); longer values would fire at once. */
const MAX_TIMER_MS = 2_147_483_647;

export function makeShell(): Shell {
  return { run: runCommand };
}

/** Keeps the head and the tail of a stream of text; drops (and counts) the middle. */
export class CappedOutput {
  private readonly headCap: number;
  private readonly tailCap: number;
  private head = '';
  private tail: string[] = [];
  private tailLength = 0;
  private total = 0;

  constructor(maxChars: number) {
    const max = Math.max(0, Math.floor(maxChars));
    this.headCap = Math.floor(max * HEAD_SHARE);
    this.tailCap = max - this.headCap;
  }

  push(text: string): void {
    if (text.length === 0) return;
    this.total += text.length;
    if (this.head.length < this.headCap) {
      const room = this.headCap - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
      if (text.length === 0) return;
    }
    if (this.tailCap === 0) return;
    if (text.length >= this.tailCap) {
      this.tail = [text.slice(text.length - this.tailCap)];
      this.tailLength = this.tailCap;
      return;
    }
    this.tail.push(text);
    this.tailLength += text.length;
    while (this.tailLength > this.tailCap) {
      const excess = this.tailLength - this.tailCap;
      const first = this.tail[0];
      if (first.length <= excess) {
        this.tail.shift();
        this.tailLength -= first.length;
      } else {
        this.tail[0] = first.slice(excess);
        this.tailLength -= excess;
      }
    }
  }

  get omitted(): number {
    return this.total - this.head.length - this.tailLength;
  }

  get truncated(): boolean {
    return this.omitted > 0;
  }

  toString(): string {
    const tail = this.tail.join('');
    this.tail = tail ? [tail] : [];
    if (!this.truncated) return this.head + tail;
    return `${this.head}\n[... ${this.omitted} chars omitted ...]\n${tail}`;
  }
}

function isExecutable(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

/** bash from the child's PATH or the usual places, else sh. */
function findShell(envPath: string | undefined): string {
  const dirs = (envPath ?? '').split(path.delimiter).filter(Boolean);
  for (const name of ['bash', 'sh']) {
    for (const dir of [...dirs, '/bin', '/usr/bin', '/usr/local/bin']) {
      const candidate = path.join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  return '/bin/sh';
}

/** Process groups still running, killed if this process exits first. */
const liveGroups = new Set<number>();
let exitHookInstalled = false;
function trackGroup(pgid: number): void {
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const g of liveGroups) signalGroup(g, 'SIGKILL');
    });
  }
  liveGroups.add(pgid);
}

/** Sends a signal to a whole process group; false when the group no longer exists. */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** SIGTERM the group, wait for it to go away (at most `graceMs`), then SIGKILL it. */
async function terminateGroup(pgid: number, graceMs: number, alreadyTermed = false): Promise<void> {
  if (!signalGroup(pgid, 0)) return;
  if (!alreadyTermed) signalGroup(pgid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline) {
    if (!signalGroup(pgid, 0)) return;
    await sleep(50);
  }
  signalGroup(pgid, 'SIGKILL');
}

async function runCommand(command: string, options: RunOptions): Promise<CommandResult> {
  const started = Date.now();
  const output = new CappedOutput(options.maxOutputChars);
  const base = { command, timedOut: false, truncated: false };
  const failed = (message: string): CommandResult => ({
    ...base,
    exitCode: null,
    signal: null,
    durationMs: Date.now() - started,
    output: output.toString(),
    truncated: output.truncated,
    spawnError: message,
  });

  if (!existsSync(options.cwd)) return failed(`working directory does not exist: ${options.cwd}`);
  const shellPath = findShell(options.env.PATH);

  let subprocess: ReturnType<typeof execa>;
  try {
    // `exec 2>&1` first: one pipe for both streams keeps their exact arrival order (stderr
    // is still read, for what the shell prints before that, e.g. a syntax error).
    const limit = options.memoryMb && options.memoryMb > 0 ? `ulimit -v ${Math.floor(options.memoryMb * 1024)} || exit 126; ` : '';
    const argv = [...(options.wrapper ?? []), shellPath, '-c', `exec 2>&1; ${limit}${command}`];
    subprocess = execa(argv[0], argv.slice(1), {
      cwd: options.cwd,
      env: options.env,
      extendEnv: false,
      stdin: 'ignore',
      stdout: 'pipe',
      stderr: 'pipe',
      detached: true,
      buffer: false,
      reject: false,
      cleanup: false,
      stripFinalNewline: false,
      windowsHide: true,
    });
  } catch (error) {
    return failed(errorMessage(error));
  }

  const pid = subprocess.pid;
  let exitCode: number | null = null;
  let signal: string | null = null;
  let timedOut = false;
  let termSentAt = 0;
  let timer: NodeJS.Timeout | undefined;
  let killTimer: NodeJS.Timeout | undefined;

  for (const stream of [subprocess.stdout, subprocess.stderr]) {
    if (!stream) continue;
    const decoder = new StringDecoder('utf8');
    stream.on('data', (chunk: Buffer | string) => {
      output.push(typeof chunk === 'string' ? chunk : decoder.write(chunk));
    });
    stream.on('end', () => output.push(decoder.end()));
    stream.on('error', () => undefined);
  }

  const exited = new Promise<void>((resolve) => {
    subprocess.once('exit', (code: number | null, sig: NodeJS.Signals | null) => {
      exitCode = code;
      signal = sig;
      resolve();
    });
    subprocess.once('error', () => resolve());
  });

  if (pid !== undefined) {
    trackGroup(pid);
    timer = setTimeout(() => {
      timedOut = true;
      termSentAt = Date.now();
      signalGroup(pid, 'SIGTERM');
      killTimer = setTimeout(() => signalGroup(pid, 'SIGKILL'), KILL_GRACE_MS);
    }, Math.min(MAX_TIMER_MS, Math.max(0, options.timeoutMs)));
  }

  try {
    await exited;
    clearTimeout(timer);
    if (pid !== undefined) {
      // Leftovers: background processes the command started in its group.
      const grace = timedOut ? Math.max(0, KILL_GRACE_MS - (Date.now() - termSentAt)) : KILL_GRACE_MS;
      await terminateGroup(pid, grace, timedOut);
      clearTimeout(killTimer);
      liveGroups.delete(pid);
    }
    // A process outside the group (setsid) may still hold the pipes: stop waiting for them.
    const drainTimer = setTimeout(() => {
      subprocess.stdout?.destroy();
      subprocess.stderr?.destroy();
    }, DRAIN_MS);
    const result = await subprocess;
    clearTimeout(drainTimer);

    if (pid === undefined) {
      const code = (result as { code?: string }).code;
      const message = result.shortMessage ?? result.message ?? `could not start ${shellPath}`;
      return failed(code ? `${code}: ${message}` : message);
    }
    return {
      command,
      exitCode,
      signal: signal ?? (exitCode === null ? (result.signal ?? null) : null),
      timedOut,
      durationMs: Date.now() - started,
      output: output.toString(),
      truncated: output.truncated,
    };
  } catch (error) {
    clearTimeout(timer);
    clearTimeout(killTimer);
    if (pid !== undefined) {
      signalGroup(pid, 'SIGKILL');
      liveGroups.delete(pid);
    }
    const result = failed(errorMessage(error));
    return { ...result, exitCode, signal, timedOut };
  }
}
