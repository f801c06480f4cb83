/**
 * Filter drivers (`filter.<name>.clean`, `.smudge`, `.process`) are commands the checkout's
 * configuration can define and `.gitattributes` can route any file through; a setup script or a
 * test can write them into `.git/config`. The harness's own git calls blank them (adapters/git.ts,
 * context/map.ts). Pure; it sits with the ports because both of those layers need it and the
 * adapters may import nothing above the ports.
 */

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
