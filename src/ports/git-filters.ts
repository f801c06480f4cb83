/**
 * Filter drivers (`filter.<name>.clean`, `.smudge`, `.process`) are commands the checkout's
 * configuration can define and `.gitattributes` can route any file through; a setup script or a
 * test can write them into `.git/config`. The harness's own git calls blank them (adapters/git.ts,
 * context/map.ts). Pure; it sits with the ports because both of those layers need it and the
 * adapters may import nothing above the ports.
 */
import path from 'node:path';

/** `git <these>` lists the defined drivers; run it with `GIT_CONFIG_COUNT=0` to see the configuration as defined. */
export const FILTER_CONFIG_ARGS = ['config', '-z', '--get-regexp', '^filter\\.'];

/** The filter commands Git LFS installs (`git lfs install`): kept, everything else is blanked. */
const LFS_COMMANDS = new Set(['git-lfs clean -- %f', 'git-lfs smudge -- %f', 'git-lfs smudge --skip -- %f', 'git-lfs filter-process', 'git-lfs filter-process --skip']);

/**
 * Configuration that blanks every filter driver defined in `config` (the output of
 * `git config -z --get-regexp '^filter\.'`), except Git LFS's own, as the environment variables
 * `GIT_CONFIG_COUNT`, `GIT_CONFIG_KEY_<n>`, `GIT_CONFIG_VALUE_<n>`: an empty clean, smudge or
 * process command is no filter to git, and `required=false` keeps a blanked required driver
 * from failing the command. Pure.
 */
export function filterOverrides(config: string): Record<string, string> {
  const drivers = new Map<string, { keys: Set<string>; lfs: boolean }>();
  for (const entry of config.split('\0')) {
    if (!entry) continue;
    const nl = entry.indexOf('\n');
    const key = nl < 0 ? entry : entry.slice(0, nl);
    const value = nl < 0 ? '' : entry.slice(nl + 1);
    const m = /^filter\.(.+)\.([^.]+)$/s.exec(key);
    if (!m) continue;
    const [, name, variable] = m;
    const d = drivers.get(name) ?? { keys: new Set<string>(), lfs: true };
    drivers.set(name, d);
    d.keys.add(variable.toLowerCase());
    if (['clean', 'smudge', 'process'].includes(variable.toLowerCase()) && !LFS_COMMANDS.has(value.trim())) d.lfs = false;
  }
  const pairs: [string, string][] = [];
  for (const [name, d] of drivers) {
    if (d.lfs && name === 'lfs') continue;
    pairs.push([`filter.${name}.clean`, ''], [`filter.${name}.smudge`, ''], [`filter.${name}.process`, ''], [`filter.${name}.required`, 'false']);
  }
  const env: Record<string, string> = { GIT_CONFIG_COUNT: String(pairs.length) };
  pairs.forEach(([k, v], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = k;
    env[`GIT_CONFIG_VALUE_${i}`] = v;
  });
  return env;
}

/**
 * `git <these>` lists every configuration value with the file it came from; run it with
 * `GIT_CONFIG_COUNT=0` to see the configuration as defined. One call gives both the drivers
 * (configSources) and the files it came from, to watch for a change (with defaultConfigFiles).
 */
export const CONFIG_LIST_ARGS = ['config', '--list', '--show-origin', '-z'];

export interface ConfigSources {
  /** The `filter.*` entries in the form `filterOverrides` reads (`key\nvalue\0`...). */
  filters: string;
  /** Absolute paths of every file a value came from, and of every file an `include.path` or `includeIf.*.path` names (existing or not). */
  files: string[];
}

/**
 * Reads `git config --list --show-origin -z` (entries `file:<path>\0<key>\n<value>\0`), run in
 * `cwd`; relative origins are relative to `cwd`, relative include paths to the including file's
 * directory, `~/` to `home`. Pure.
 */
export function configSources(out: string, cwd: string, home: string | undefined): ConfigSources {
  const filters: string[] = [];
  const files = new Set<string>();
  const t = out.split('\0');
  for (let i = 0; i + 1 < t.length; i += 2) {
    const origin = t[i];
    const entry = t[i + 1];
    const nl = entry.indexOf('\n');
    const key = nl < 0 ? entry : entry.slice(0, nl);
    const value = nl < 0 ? '' : entry.slice(nl + 1);
    const file = origin.startsWith('file:') ? absolute(origin.slice('file:'.length), cwd, home) : null;
    if (file) files.add(file);
    if (/^filter\./i.test(key)) filters.push(`${key}\n${value}`);
    if (/^(include|includeif\..*)\.path$/is.test(key) && value) {
      const base = file ? path.posix.dirname(file) : cwd;
      const target = absolute(value, base, home);
      if (target) files.add(target);
    }
  }
  return { filters: filters.length ? `${filters.join('\0')}\0` : '', files: [...files] };
}

/**
 * The files git reads its configuration from whether or not they exist yet (a setup script may
 * create one): the checkout's own, the global and the system files, as git locates them from
 * the environment. `gitDir`/`commonDir` are absolute; `execPath` is `git --exec-path`. Pure.
 */
export function defaultConfigFiles(p: { gitDir: string; commonDir: string; execPath: string; env: Record<string, string | undefined> }): string[] {
  const { env } = p;
  const files = [path.posix.join(p.commonDir, 'config'), path.posix.join(p.gitDir, 'config.worktree')];
  if (env.GIT_CONFIG_GLOBAL) files.push(env.GIT_CONFIG_GLOBAL);
  else {
    if (env.HOME) files.push(path.posix.join(env.HOME, '.gitconfig'));
    const xdg = env.XDG_CONFIG_HOME || (env.HOME ? path.posix.join(env.HOME, '.config') : '');
    if (xdg) files.push(path.posix.join(xdg, 'git/config'));
  }
  const noSystem = env.GIT_CONFIG_NOSYSTEM && !/^(0|false|no|off)$/i.test(env.GIT_CONFIG_NOSYSTEM);
  if (env.GIT_CONFIG_SYSTEM) files.push(env.GIT_CONFIG_SYSTEM);
  else if (!noSystem) {
    // $(prefix)/etc/gitconfig, where the exec path is $(prefix)/lib/git-core or $(prefix)/libexec/git-core; /etc/gitconfig for prefix /usr
    const prefix = p.execPath.replace(/\/+(lib|libexec)\/git-core\/*$/, '');
    files.push('/etc/gitconfig');
    if (prefix && prefix !== p.execPath && prefix !== '/usr') files.push(path.posix.join(prefix, 'etc/gitconfig'));
  }
  return [...new Set(files)];
}

function absolute(p: string, base: string, home: string | undefined): string | null {
  if (p.startsWith('~/')) return home ? path.posix.join(home, p.slice(2)) : null;
  return path.posix.resolve(base, p);
}

/** `env` (a GIT_CONFIG_COUNT set, e.g. filterOverrides') with `pairs` appended after its entries. Pure. */
export function withConfig(env: Record<string, string>, pairs: [string, string][]): Record<string, string> {
  if (pairs.length === 0) return env;
  const n = Number(env.GIT_CONFIG_COUNT ?? '0') || 0;
  const out: Record<string, string> = { ...env, GIT_CONFIG_COUNT: String(n + pairs.length) };
  pairs.forEach(([k, v], i) => {
    out[`GIT_CONFIG_KEY_${n + i}`] = k;
    out[`GIT_CONFIG_VALUE_${n + i}`] = v;
  });
  return out;
}
