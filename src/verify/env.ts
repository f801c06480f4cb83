/**
 * The environment of the repository's setup and test commands: an allow-list, never the
 * parent's environment as a whole (the parent holds the GitHub token and the model's key).
 *
 * Kept from the parent when present (exact names):
 *   PATH HOME USER LOGNAME SHELL LANG LANGUAGE TZ TERM TMPDIR TEMP TMP CI
 *   RUNNER_OS RUNNER_ARCH RUNNER_TEMP RUNNER_TOOL_CACHE GITHUB_ACTIONS GITHUB_WORKSPACE
 *   JAVA_HOME GOPATH GOROOT GOCACHE GOMODCACHE GOPROXY GOFLAGS CARGO_HOME RUSTUP_HOME
 *   PYTHONPATH VIRTUAL_ENV PYENV_ROOT PIP_CACHE_DIR PIP_INDEX_URL* NVM_DIR PNPM_HOME
 *   YARN_CACHE_FOLDER COREPACK_HOME
 *   HTTP_PROXY HTTPS_PROXY NO_PROXY (either case; dropped when the URL carries credentials)
 * Kept by prefix: LC_*, JAVA_HOME_* (runner images), npm_config_* / NPM_CONFIG_*.
 *
 * Always dropped, even when allow-listed above:
 *   - any name matching SECRET_NAME (TOKEN, SECRET, PASSWORD, PASSWD, API_KEY / API-KEY,
 *     PRIVATE, CREDENTIAL, AUTH but not AUTHOR): e.g. npm_config_//registry.npmjs.org/:_authToken;
 *   - INPUT_* (action inputs), ACTIONS_* (runtime tokens and URLs), GITHUB_TOKEN;
 *   - NODE_OPTIONS (could preload arbitrary code into every node process).
 *   (* PIP_INDEX_URL / PIP_EXTRA_INDEX_URL are dropped too when they carry credentials.)
 *
 * Then set: CI=true, FORCE_COLOR=0, NO_COLOR=1 (plain, parseable output).
 * `extra` is applied last, as given: it is the caller's explicit choice.
 */

import { SECRET_NAME } from '../redact.js';

const EXACT = new Set([
  'PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TERM',
  'TMPDIR', 'TEMP', 'TMP', 'CI',
  'RUNNER_OS', 'RUNNER_ARCH', 'RUNNER_TEMP', 'RUNNER_TOOL_CACHE',
  'GITHUB_ACTIONS', 'GITHUB_WORKSPACE',
  'JAVA_HOME', 'GOPATH', 'GOROOT', 'GOCACHE', 'GOMODCACHE', 'GOPROXY', 'GOFLAGS',
  'CARGO_HOME', 'RUSTUP_HOME',
  'PYTHONPATH', 'VIRTUAL_ENV', 'PYENV_ROOT', 'PIP_CACHE_DIR', 'PIP_INDEX_URL', 'PIP_EXTRA_INDEX_URL',
  'NVM_DIR', 'PNPM_HOME', 'YARN_CACHE_FOLDER', 'COREPACK_HOME',
]);
const PROXIES = new Set(['HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY']);
const PREFIXES = ['LC_', 'JAVA_HOME_', 'NPM_CONFIG_'];
const ALWAYS_DROPPED = /^(INPUT_|ACTIONS_)|^GITHUB_TOKEN$|^NODE_OPTIONS$/i;
/** `scheme://user:pass@host` */
const URL_WITH_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]+@/i;

function allowed(name: string, value: string): boolean {
  if (ALWAYS_DROPPED.test(name) || SECRET_NAME.test(name)) return false;
  const upper = name.toUpperCase();
  if (PROXIES.has(upper)) return !URL_WITH_CREDENTIALS.test(value);
  if (upper === 'PIP_INDEX_URL' || upper === 'PIP_EXTRA_INDEX_URL') return !URL_WITH_CREDENTIALS.test(value);
  if (EXACT.has(name)) return true;
  return PREFIXES.some((prefix) => upper.startsWith(prefix));
}

export function childEnv(
  parent: NodeJS.ProcessEnv,
  opts: { extra?: Record<string, string> } = {},
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(parent)) {
    if (value === undefined) continue;
    if (allowed(name, value)) env[name] = value;
  }
  env.CI = 'true';
  env.FORCE_COLOR = '0';
  env.NO_COLOR = '1';
  return { ...env, ...(opts.extra ?? {}) };
}
