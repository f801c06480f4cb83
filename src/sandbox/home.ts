/**
 * HOME inside the sandbox: credentials hidden, caches and toolchains readable.
 *
 * The commands get a private HOME mounted over the real one, so whatever sits in the real HOME
 * and is not listed here stays out of sight: that is how credentials are hidden, whichever tool
 * wrote them (an allow-list, not a list of secrets to chase). The directories below, when they
 * exist, are seen at their own paths copy-on-write: readable as an earlier workflow step left them
 * (`npx playwright install`'s browsers, pnpm from `pnpm/action-setup`, pyenv, rustup...), and
 * writable without reaching the real ones (setup's writes are kept for the run, a test run's are
 * gone when it ends). Credentials that live inside a kept directory are covered with an empty file.
 */
import path from 'node:path';

/**
 * Caches and toolchains under HOME, and why each is safe to show.
 * `.cache` is XDG's cache directory: data a program can lose and rebuild (Playwright's, Puppeteer's
 * and Cypress's browsers, pip, pre-commit, node-gyp, Corepack's package managers); the tokens some
 * tools put there are covered (KEPT_SECRETS).
 */
export const HOME_KEPT: readonly { dir: string; why: string }[] = [
  { dir: '.cache', why: 'XDG cache: browsers of Playwright/Puppeteer/Cypress, pip, pre-commit, node-gyp, Corepack' },
  { dir: '.npm', why: "npm's package cache (its credentials are in ~/.npmrc, not shown)" },
  { dir: '.yarn', why: "Yarn Berry's global cache and folder (credentials are in ~/.yarnrc.yml, not shown)" },
  { dir: 'setup-pnpm', why: 'pnpm as pnpm/action-setup installs it' },
  { dir: '.local/share/pnpm', why: "pnpm's home (PNPM_HOME) and store" },
  { dir: '.bun', why: "bun's install and cache" },
  { dir: '.deno', why: "deno's install and cache" },
  { dir: '.volta', why: 'volta toolchains' },
  { dir: '.nvm', why: 'nvm toolchains' },
  { dir: '.fnm', why: 'fnm toolchains' },
  { dir: '.node-gyp', why: 'node headers for native addons' },
  { dir: '.pyenv', why: 'pyenv toolchains' },
  { dir: '.local/bin', why: 'pip --user and pipx programs' },
  { dir: '.local/lib', why: 'pip --user packages' },
  { dir: '.local/pipx', why: 'pipx environments' },
  { dir: '.rbenv', why: 'rbenv toolchains' },
  { dir: '.cargo', why: 'cargo programs and registry cache (its credentials file is covered)' },
  { dir: '.rustup', why: 'rustup toolchains' },
  { dir: 'go', why: 'GOPATH: the module cache and installed programs' },
  { dir: '.m2/repository', why: "Maven's repository (its credentials are in ~/.m2/settings.xml, not shown)" },
  { dir: '.gradle/caches', why: "Gradle's cache (credentials are in ~/.gradle/gradle.properties, not shown)" },
  { dir: '.gradle/wrapper', why: "Gradle's wrapper distributions" },
  { dir: '.nuget/packages', why: "NuGet's package cache" },
  { dir: '.dotnet', why: '.NET SDKs' },
  { dir: '.sdkman', why: 'SDKMAN toolchains' },
];

/** Credentials inside kept directories: covered with an empty file. */
export const KEPT_SECRETS: readonly string[] = [
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.cache/huggingface/token',
  '.cache/huggingface/stored_tokens',
  '.local/share/pnpm/rc',
];

/**
 * Credentials of the common tools in HOME: hidden because HOME is private (they are not under any
 * kept directory). Listed so the tests can show each one stays out of sight, and the docs say so.
 */
export const HOME_CREDENTIALS: readonly { file: string; tool: string }[] = [
  { file: '.gitconfig', tool: 'git (credential helpers, url rewrites)' },
  { file: '.git-credentials', tool: 'git' },
  { file: '.config/git/credentials', tool: 'git' },
  { file: '.ssh/id_ed25519', tool: 'ssh' },
  { file: '.gnupg/private-keys-v1.d/key', tool: 'gpg' },
  { file: '.npmrc', tool: 'npm, pnpm' },
  { file: '.yarnrc.yml', tool: 'Yarn Berry' },
  { file: '.yarnrc', tool: 'Yarn 1' },
  { file: '.config/pnpm/rc', tool: 'pnpm' },
  { file: '.pypirc', tool: 'twine, pip' },
  { file: '.config/pip/pip.conf', tool: 'pip (index credentials)' },
  { file: '.netrc', tool: 'curl, pip, git' },
  { file: '.docker/config.json', tool: 'docker' },
  { file: '.config/gh/hosts.yml', tool: 'GitHub CLI' },
  { file: '.aws/credentials', tool: 'AWS CLI' },
  { file: '.config/gcloud/credentials.db', tool: 'gcloud' },
  { file: '.azure/msal_token_cache.json', tool: 'Azure CLI' },
  { file: '.kube/config', tool: 'kubectl' },
  { file: '.gem/credentials', tool: 'RubyGems' },
  { file: '.m2/settings.xml', tool: 'Maven' },
  { file: '.gradle/gradle.properties', tool: 'Gradle' },
  { file: '.nuget/NuGet/NuGet.Config', tool: 'NuGet' },
  { file: '.composer/auth.json', tool: 'Composer' },
  { file: '.terraform.d/credentials.tfrc.json', tool: 'Terraform' },
  { file: 'actions-runner/.credentials', tool: "a self-hosted runner's registration" },
];

/** Toolchain variables whose values under HOME are kept too. */
const TOOLCHAIN_VARS = ['RUNNER_TOOL_CACHE', 'AGENT_TOOLSDIRECTORY', 'CARGO_HOME', 'RUSTUP_HOME', 'NVM_DIR', 'PYENV_ROOT', 'RBENV_ROOT', 'VOLTA_HOME', 'BUN_INSTALL', 'DENO_INSTALL', 'DOTNET_ROOT', 'SDKMAN_DIR', 'PNPM_HOME', 'GOROOT', 'GOPATH', 'JAVA_HOME', 'COREPACK_HOME', 'PLAYWRIGHT_BROWSERS_PATH', 'PUPPETEER_CACHE_DIR', 'CYPRESS_CACHE_FOLDER'];

/** Paths the launcher cannot carry. */
const UNSAFE = /[\t\n\0]/;

/**
 * The directories under the real HOME a command sees copy-on-write: HOME_KEPT, the toolchain
 * variables' values and PATH entries under HOME, existing, none nested in another, never HOME
 * itself or a directory holding a listed credential. Pure but for `isDir`.
 */
export function keptDirs(home: string, env: Record<string, string | undefined>, isDir: (p: string) => boolean): string[] {
  if (!home) return [];
  const under = (p: string) => path.isAbsolute(p) && path.resolve(p).startsWith(`${home}/`);
  const holdsCredential = (d: string) => HOME_CREDENTIALS.some((c) => path.join(home, c.file).startsWith(`${d}/`));
  const candidates = [
    ...HOME_KEPT.map((k) => path.join(home, k.dir)),
    ...TOOLCHAIN_VARS.map((v) => env[v] ?? ''),
    ...(env.PATH ?? '').split(':'),
  ].filter((p) => p && under(p) && !UNSAFE.test(p)).map((p) => path.resolve(p));
  const dirs = [...new Set(candidates)].filter((d) => isDir(d) && !holdsCredential(d)).sort();
  return dirs.filter((d) => !dirs.some((o) => o !== d && d.startsWith(`${o}/`)));
}

/** The credential files inside the kept directories (to cover). Pure but for `exists`. */
export function keptSecrets(home: string, kept: string[], exists: (p: string) => boolean): string[] {
  return KEPT_SECRETS.map((f) => path.join(home, f)).filter((f) => kept.some((d) => f.startsWith(`${d}/`)) && exists(f));
}
