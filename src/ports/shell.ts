/** Runs the repository's own commands (setup, tests). Implemented by adapters/shell.ts. */
export interface RunOptions {
  cwd: string;
  /** Whole process group is killed (SIGTERM, then SIGKILL) when this elapses. */
  timeoutMs: number;
  /** The complete environment of the child: nothing is inherited beyond this. */
  env: Record<string, string>;
  /** Combined stdout+stderr kept; beyond it the head and the tail are kept and `truncated` is set. */
  maxOutputChars: number;
  /** argv prefix that runs the shell in a sandbox (e.g. `unshare --net --`); see safety/sandbox.ts. */
  wrapper?: string[];
  /** Address-space limit (ulimit -v) of the command and its children, in MiB; 0 or absent: none. */
  memoryMb?: number;
}

export interface CommandResult {
  command: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** Combined stdout and stderr in arrival order, capped. */
  output: string;
  truncated: boolean;
  /** Set when the command could not be started at all (e.g. shell missing). */
  spawnError?: string;
}

export interface Shell {
  run(command: string, options: RunOptions): Promise<CommandResult>;
}
