/** One git command on the checkout: the cleaned environment, the filter drivers blanked, failures redacted. */
import { execa } from 'execa';
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { GitCommandError, redactUrls, PRIVATE_TMP, baseEnv, GLOBAL_CONFIG, type RunOptions, type RunResult } from './env.js';

export class GitProcess {
  /** Configuration blanking the filter drivers defined when last looked (Snapshots.refreshFilters), on every command. */
  filterOff: Record<string, string> = {};

  constructor(readonly root: string) {}

  async run(args: string[], o: RunOptions = {}): Promise<RunResult> {
    const env = { ...baseEnv(), ...this.filterOff, ...(o.env ?? {}) };
    let r;
    try {
      r = await execa('git', [...GLOBAL_CONFIG, ...args], {
        cwd: this.root,
        env,
        extendEnv: false,
        reject: false,
        stripFinalNewline: false,
        input: o.input ?? '',
        maxBuffer: 512 * 1024 * 1024,
      });
    } catch (e) {
      throw new GitCommandError(redactUrls(`git ${args[0]} could not start: ${(e as Error).message}`), null, '');
    }
    const stdout = String(r.stdout ?? '');
    const stderr = String(r.stderr ?? '');
    const exitCode = typeof r.exitCode === 'number' ? r.exitCode : -1;
    if (!(o.ok ?? [0]).includes(exitCode)) {
      const why = r.failed && exitCode === -1 ? (r.shortMessage ?? 'failed') : stderr.trim() || stdout.trim();
      throw new GitCommandError(
        redactUrls(`git ${args.join(' ')} failed (exit ${exitCode}): ${why}`),
        exitCode,
        redactUrls(stderr),
      );
    }
    return { stdout, stderr, exitCode };
  }

  async out(args: string[], o: RunOptions = {}): Promise<string> {
    return (await this.run(args, o)).stdout.trim();
  }

  /** Runs `fn` with a private index file (GIT_INDEX_FILE) seeded by `seed`; the real index is never touched. */
  async withTempIndex<T>(fn: (env: Record<string, string>) => Promise<T>): Promise<T> {
    const dir = await mkdtemp(path.join(PRIVATE_TMP, 'agent-fix-index-'));
    try {
      return await fn({ GIT_INDEX_FILE: path.join(dir, 'index') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }

  async hasHead(): Promise<boolean> {
    const r = await this.run(['rev-parse', '-q', '--verify', 'HEAD^{commit}'], { ok: [0, 1, 128] });
    return r.exitCode === 0;
  }
}
