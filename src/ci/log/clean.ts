/** One log line cleaned: the runner's framing, escapes and redraws removed; runner noise told apart; the workspace prefix stripped. */
import { stripVTControlCharacters } from 'node:util';
import { MAX_LINE } from './types.js';

// ------------------------------------------------------------------ cleaning one line

/** Removes the runner timestamp, ANSI escapes and carriage-return redraws of one raw line. */
export function cleanLine(raw: string): string {
  let line = raw;
  if (line.length > 0 && line.charCodeAt(line.length - 1) === 13) line = line.slice(0, -1);
  // 2024-05-14T10:21:33.1234567Z <text>
  if (line.length >= 21 && line.charCodeAt(4) === 45 && line.charCodeAt(7) === 45 && line.charCodeAt(10) === 84 && line.charCodeAt(13) === 58) {
    const z = line.indexOf('Z', 19);
    if (z > 0 && z < 36) line = line.charCodeAt(z + 1) === 32 ? line.slice(z + 2) : line.slice(z + 1);
  }
  const cr = line.lastIndexOf('\r');
  if (cr >= 0) line = line.slice(cr + 1);
  if (line.length > MAX_LINE) line = line.slice(0, MAX_LINE);
  if (line.includes('\x1b') || line.includes('\x9b')) line = stripVTControlCharacters(line);
  return line;
}

const NOISE_PREFIXES = [
  '##[group]',
  '##[endgroup]',
  '##[debug]',
  '##[command]',
  '::group::',
  '::endgroup::',
  '::debug::',
  '::add-mask::',
  '##[add-mask]',
  'shell: ',
  'Requested labels:',
  'Job defined at:',
  'Waiting for a runner',
  'Current runner version',
  'Runner name:',
  'Runner group name:',
  'Machine name:',
  'Post job cleanup',
  'Cleaning up orphan processes',
  'Complete job name:',
  'Download action repository',
  'Getting action download info',
  'Prepare workflow directory',
  'Prepare all required actions',
  'Secret source:',
  'GITHUB_TOKEN Permissions',
  'Syncing repository:',
  'Getting Git version info',
  'Temporarily overriding HOME',
  'Adding repository directory',
  'Deleting the contents of',
  'Initializing the repository',
  'Disabling automatic garbage collection',
  'Setting up auth',
  'Fetching the repository',
  'Determining the checkout info',
  'Checking out the ref',
  'remote: ',
  'Receiving objects:',
  'Resolving deltas:',
  'From https://',
  '* [new ref]',
  '[command]/usr/bin/git',
  'Attempting to download',
  'Acquiring ',
  'Environment details',
  'npm warn',
  'npm WARN',
  'npm notice',
  'npm ERR!',
  'npm error',
  'added ',
  'up to date, audited',
  'found 0 vulnerabilities',
  'Found in cache @',
  'Run echo',
];

const NOISE_BY_FIRST = new Map<string, string[]>();
for (const p of NOISE_PREFIXES) {
  const list = NOISE_BY_FIRST.get(p[0]) ?? [];
  list.push(p);
  NOISE_BY_FIRST.set(p[0], list);
}

/** Runner and tooling chatter that never explains a failure. */
export function isNoise(line: string): boolean {
  const c = line.charCodeAt(0);
  const t = c === 32 || c === 9 ? line.trimStart() : line;
  if (t === '') return true;
  const candidates = NOISE_BY_FIRST.get(t[0]);
  if (candidates === undefined && t.charCodeAt(0) !== 35 /* # */) return false;
  if (candidates) for (const p of candidates) if (t.startsWith(p)) return true;
  if (t.startsWith('##[error]Process completed with exit code')) return true;
  if (t.startsWith('##[error]The operation was canceled')) return true;
  if (t.startsWith('##[warning]')) return true;
  return false;
}

// ------------------------------------------------------------------ workspace paths

/** Removes the runner workspace prefix: `/home/runner/work/r/r/src/a.js` -> `src/a.js`. */
export function stripWorkspace(text: string, repoName?: string): string {
  if (!text.includes('/work/') && !text.includes('/__w/') && !text.includes(':\\a\\')) return text;
  let out = text;
  for (const root of ['/home/runner/work/', '/Users/runner/work/', 'D:\\a\\', 'C:\\a\\', '/__w/']) {
    let at = out.indexOf(root);
    let guard = 0;
    while (at >= 0 && guard++ < 50) {
      const sep = root.includes('\\') ? '\\' : '/';
      const first = out.indexOf(sep, at + root.length);
      const second = first >= 0 ? out.indexOf(sep, first + 1) : -1;
      if (second < 0) break;
      const a = out.slice(at + root.length, first);
      const b = out.slice(first + 1, second);
      if (a !== b && !(repoName && b === repoName)) {
        at = out.indexOf(root, at + root.length);
        continue;
      }
      // `file:///home/runner/work/r/r/x.js` -> `x.js`
      const from = out.endsWith('file://', at) ? at - 7 : at;
      out = out.slice(0, from) + out.slice(second + 1);
      at = from;
      at = out.indexOf(root, at);
    }
  }
  return out;
}
