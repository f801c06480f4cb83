/**
 * The environment and configuration every git command of agent-fix runs with: the ambient
 * environment cleaned, a private global configuration, no hooks, no fsmonitor, the transport
 * pinned and the token given to fetch and push only; failures redacted.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import path from 'node:path';

/** Thrown for git failures; the message is already redacted. */
export class GitCommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'GitCommandError';
  }
}

/** Replaces credentials embedded in URLs (`https://user:token@host`) with `***`. */
export function redactUrls(text: string): string {
  return text.replace(/\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@]+@/gi, '$1***@');
}

const UNSAFE_ENV = new Set([
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_COMMON_DIR',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_CEILING_DIRECTORIES',
  'GIT_DISCOVERY_ACROSS_FILESYSTEM',
  'GIT_AUTHOR_NAME',
  'GIT_AUTHOR_EMAIL',
  'GIT_AUTHOR_DATE',
  'GIT_COMMITTER_NAME',
  'GIT_COMMITTER_EMAIL',
  'GIT_COMMITTER_DATE',
  'GIT_EXTERNAL_DIFF',
  'GIT_EDITOR',
  'GIT_SEQUENCE_EDITOR',
  'GIT_PAGER',
  'GIT_ASKPASS',
  'SSH_ASKPASS',
  'GIT_SSH',
  'GIT_SSH_COMMAND',
  'GIT_PROXY_COMMAND',
  'GIT_EXEC_PATH',
  'GIT_TEMPLATE_DIR',
  'GIT_CONFIG',
  'GIT_CONFIG_GLOBAL',
  'GIT_CONFIG_SYSTEM',
  'GIT_CONFIG_COUNT',
  'GIT_CONFIG_PARAMETERS',
]);

/** The action's own secrets never reach a git process (nor anything git starts). */
const SECRET_ENV = /^(INPUT_|ACTIONS_)|^GITHUB_TOKEN$/i;
/** Names that hold secrets by convention (redact.ts's SECRET_NAME; adapters import nothing above them). */
const SECRET_NAME = /TOKEN|SECRET|PASSW(?:OR)?D|API[_-]?KEY|PRIVATE|CREDENTIAL|AUTH(?!OR)/i;

/** Temp of agent-fix's own git (indexes, the global configuration's copy), as it was at start: never the sandbox's. */
export const PRIVATE_TMP = tmpdir();

let globalCopy: string | null = null;
/**
 * agent-fix's git reads no system configuration and, as global configuration, a copy of the user's
 * made the first time agent-fix's git runs (before any repository command): a `~/.gitconfig` a
 * command wrote later (`url.<x>.insteadOf`, `core.sshCommand`, a credential helper) is never read.
 */
function globalConfigCopy(): string {
  if (globalCopy) return globalCopy;
  const home = process.env.HOME || homedir();
  const xdg = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  const text = [path.join(xdg, 'git', 'config'), path.join(home, '.gitconfig')]
    .filter((f) => existsSync(f))
    .map((f) => {
      try {
        return readFileSync(f, 'utf8');
      } catch {
        return '';
      }
    })
    .join('\n');
  const dir = mkdtempSync(path.join(PRIVATE_TMP, 'agent-fix-gitconfig-'));
  globalCopy = path.join(dir, 'global');
  writeFileSync(globalCopy, text, { mode: 0o600 });
  removeAtExit(dir);
  return globalCopy;
}

export function baseEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || UNSAFE_ENV.has(k.toUpperCase()) || SECRET_ENV.test(k) || SECRET_NAME.test(k)) continue;
    env[k] = v;
  }
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_PAGER = 'cat';
  env.GIT_CONFIG_NOSYSTEM = '1';
  env.GIT_CONFIG_GLOBAL = globalConfigCopy();
  return env;
}

/**
 * What agent-fix's fetch and push may use: https, and file only for a local remote (tests); no
 * ssh, no `ext::`, no other transport, whatever `url.<x>.insteadOf` says; no credential helper,
 * askpass or ssh command from any configuration. Pure.
 */
export function transportConfig(remoteUrl: string | null): string[] {
  const local = remoteUrl !== null && (remoteUrl.startsWith('file://') || remoteUrl.startsWith('/'));
  return [
    '-c', 'protocol.allow=never', '-c', 'protocol.https.allow=always', '-c', `protocol.file.allow=${local ? 'always' : 'never'}`,
    '-c', 'credential.helper=', '-c', 'core.askPass=', '-c', 'core.sshCommand=false',
  ];
}

/** The header pair for the push token, resetting any extraheader a configuration carries for that server. Pure. */
export function authConfig(auth: { token: string; serverUrl: string } | undefined, remoteUrl: string | null): [string, string][] {
  if (!auth || !auth.token || !remoteUrl) return [];
  const server = auth.serverUrl.replace(/\/+$/, '');
  if (!/^https:\/\//.test(server) || !remoteUrl.startsWith(`${server}/`)) return [];
  const key = `http.${server}/.extraheader`;
  return [[key, ''], [key, `AUTHORIZATION: basic ${Buffer.from(`x-access-token:${auth.token}`).toString('base64')}`]];
}

// core.fsmonitor names a command git runs on index reads: a setup script could set it like a hook.
export const GLOBAL_CONFIG = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false', '-c', 'core.quotepath=false'];

export interface RunOptions {
  env?: Record<string, string>;
  input?: string;
  /** Exit codes that are not failures (default: [0]). */
  ok?: number[];
}

export interface RunResult {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export const SHA_RE = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;

const indexDirs = new Set<string>();
/** Snapshot indexes live as long as the process; one exit hook removes them all. */
export function removeAtExit(dir: string): void {
  if (indexDirs.size === 0) process.once('exit', () => indexDirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  indexDirs.add(dir);
}
