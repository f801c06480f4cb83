/**
 * The files holding the checkout's push credential. `actions/checkout` stores the workflow token
 * in git config (`http.<url>.extraheader`): in `.git/config` (v4) or in a
 * `git-credentials-*.config` file under `$RUNNER_TEMP` included through `includeIf.gitdir` (v6).
 * Inside the sandbox (sandbox.ts) each of them is covered with `/dev/null` before the capabilities
 * are dropped, so the command cannot unmount the cover; agent-fix's own push, outside, is unaffected.
 */
import { spawnSync } from 'node:child_process';

/** Parses `git config --show-origin --get-regexp` output: the files that define an extraheader. */
export function filesFromShowOrigin(output: string): string[] {
  const files = new Set<string>();
  for (const line of output.split('\n')) {
    const m = /^file:(.+?)\t/.exec(line);
    if (m) files.add(m[1]);
  }
  return [...files];
}

/** Absolute paths of the git config files (of the repository at `root`) that carry an HTTP extraheader. */
export function credentialFiles(root: string): string[] {
  const r = spawnSync('git', ['config', '--show-origin', '--get-regexp', '^http\\..*extraheader$'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: process.env.HOME ?? '/', GIT_CONFIG_NOSYSTEM: '1' },
  });
  if (r.status !== 0 || !r.stdout) return [];
  return filesFromShowOrigin(r.stdout).map((f) => (f.startsWith('/') ? f : `${root}/${f}`));
}

/** Removes every HTTP extraheader from the git config file `file` (a copy the commands see instead of the original). */
export function stripCredential(file: string): void {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' };
  const r = spawnSync('git', ['config', '--file', file, '--name-only', '--get-regexp', '^http\\..*extraheader$'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], env });
  for (const key of new Set((r.stdout ?? '').split('\n').filter(Boolean))) {
    const u = spawnSync('git', ['config', '--file', file, '--unset-all', key], { stdio: 'ignore', env });
    if (u.status !== 0) throw new Error(`could not remove ${key} from the commands' copy of ${file}`);
  }
}
