/**
 * Hiding the push credential from model-written code. `actions/checkout` stores the
 * workflow token in git config (`http.<url>.extraheader`, in `.git/config` or an included
 * file) so later steps can push; agent-fix pushes with it too. The tests the model's change
 * runs could read it and smuggle it out in their output in an encoding redaction does not
 * know. Inside the test sandbox (a mount namespace next to the network namespace) every
 * config file that holds such a header is covered by an empty file; git inside the tests
 * still works (an empty config is valid), and agent-fix's own push, outside, is unaffected.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { SandboxMode } from './sandbox.js';

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

const HIDE_THEN_RUN =
  'ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null || true; ' +
  'while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mount --bind /dev/null "$1" || { echo "agent-fix sandbox: could not hide $1" >&2; exit 125; }; shift; done; shift; exec "$@"';

/** A network-isolating wrapper that also covers `files` with an empty file; null when the mode cannot. */
export function hidingWrapper(mode: SandboxMode, files: string[]): string[] | null {
  switch (mode) {
    case 'unshare-root':
      return ['unshare', '--net', '--mount', '--propagation', 'private', '--', 'sh', '-c', HIDE_THEN_RUN, 'agent-fix-sandbox', ...files, '--'];
    case 'unshare-userns':
      return ['unshare', '--user', '--map-root-user', '--net', '--mount', '--propagation', 'private', '--', 'sh', '-c', HIDE_THEN_RUN, 'agent-fix-sandbox', ...files, '--'];
    case 'bwrap': {
      // bubblewrap mounts binds nodev, so /dev/null would read as "permission denied": use an empty file
      const empty = emptyFile();
      return ['bwrap', '--dev-bind', '/', '/', ...files.flatMap((f) => ['--ro-bind', empty, f]), '--unshare-net', '--die-with-parent', '--'];
    }
    case 'none':
      return null;
  }
}

/** Checks for real that the wrapper starts and the first file reads as empty inside it. */
export function hidingWorks(wrapper: string[], file: string): boolean {
  const r = spawnSync(wrapper[0], [...wrapper.slice(1), 'cat', file], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'ignore'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
  return r.status === 0 && r.stdout === '';
}

let empty: string | null = null;
function emptyFile(): string {
  if (!empty) {
    empty = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-fix-empty-')), 'empty');
    writeFileSync(empty, '', { mode: 0o444 });
  }
  return empty;
}
