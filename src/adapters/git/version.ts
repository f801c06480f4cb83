/** The git on PATH must be recent enough to blank the checkout's filter drivers (GIT_CONFIG_COUNT). */
import { execa } from 'execa';
import { baseEnv } from './env.js';

/** The oldest git that honours `GIT_CONFIG_COUNT`, which keeps the checkout's filter drivers from running. */
export const MIN_GIT_VERSION: readonly [number, number] = [2, 31];

/** Thrown by openGit when git is missing or older than MIN_GIT_VERSION; the message says what to do. */
export class GitVersionError extends Error {
  override name = 'GitVersionError';
}

/** `git version` output (`git version 2.39.5`, `2.45.1.windows.1`, `2.39.3 (Apple Git-145)`) as [major, minor], or null. */
export function parseGitVersion(out: string): [number, number] | null {
  const m = /^git version (\d+)\.(\d+)/m.exec(out.trim());
  return m ? [Number(m[1]), Number(m[2])] : null;
}

/** Why this `git version` output cannot serve (missing, unreadable, older than MIN_GIT_VERSION), or null. Pure. */
export function gitVersionProblem(out: string): string | null {
  const v = parseGitVersion(out);
  const [major, minor] = MIN_GIT_VERSION;
  if (!v) return `git could not be run or did not say its version (${out.trim() || 'no output'}); agent-fix needs git ${major}.${minor} or later on PATH.`;
  if (v[0] > major || (v[0] === major && v[1] >= minor)) return null;
  return `git ${v[0]}.${v[1]} is too old: agent-fix needs git ${major}.${minor} or later (GIT_CONFIG_COUNT, with which its own git calls keep the checkout's filter drivers from running). Install a newer git on the runner (e.g. from the git-core PPA on Ubuntu), or use a current GitHub-hosted runner.`;
}

let gitChecked: Promise<void> | null = null;

/** Once per process: a git too old to blank the filter drivers is refused before any git call on the checkout. */
export function checkGitVersion(): Promise<void> {
  gitChecked ??= (async () => {
    const r = await execa('git', ['version'], { env: baseEnv(), extendEnv: false, reject: false }).catch(() => null);
    const problem = gitVersionProblem(r && r.exitCode === 0 ? String(r.stdout) : '');
    if (problem) throw new GitVersionError(problem);
  })();
  return gitChecked;
}
