/**
 * A test command that runs workspace packages' scripts through a workspace tool, as monorepo
 * maintainers write it: `pnpm --filter <pkg> test`, `pnpm -r test`, `pnpm run -r test:unit`,
 * `pnpm --filter <pkg> exec vitest run`, `yarn workspace <pkg> test`, `yarn workspaces foreach -A
 * run test`, `npm test -w <pkg>`, `npm run test --workspaces`, `turbo run test --filter=<pkg>`,
 * `nx test <project>`, `nx run <project>:test`, and a root script that is one of these (`pnpm run
 * test` whose script is `turbo test`).
 *
 * `parseWorkspaceCommand` reads the command (pure); `resolveTargets` says which packages of the
 * workspaces it runs and the script each runs (pure, given the packages and their scripts).
 */

export type WorkspaceCommandTool = 'npm' | 'yarn' | 'pnpm' | 'turbo' | 'nx';

export interface WorkspaceCommand {
  tool: WorkspaceCommandTool;
  /** `VAR=x ` assignments in front of the command, as written (with the trailing space). */
  env: string;
  /** Packages as the command selects them: names, directories, globs (`@scope/*`, `./packages/*`). Empty with `all`. */
  selectors: string[];
  /** Every package with the script (`-r`, `--workspaces`, turbo without a filter). */
  all: boolean;
  /** The script each package runs (`test`, `test:unit`); null for `exec`. */
  script: string | null;
  /** `pnpm --filter x exec vitest run`: the command run in each package. */
  exec?: string;
  /** Arguments after the script, as written (without a leading `--`). */
  args: string;
  /**
   * How runner arguments reach the script: appended after this prefix (the command and a `--`
   * where the tool needs one). Null: the tool does not pass arguments on (nx).
   */
  appendBase: string | null;
}

const ENV = /^(?:\w+=(?:'[^']*'|"[^"]*"|\S*)\s+)*/;

function words(s: string): string[] {
  return s.trim() === '' ? [] : s.trim().split(/\s+/).map((w) => w.replace(/^(['"])(.*)\1$/, '$2'));
}

/** Options of pnpm that take a value (the word after them is not the script). */
const PNPM_VALUED = new Set(['--filter', '-F', '--dir', '-C', '--workspace-concurrency', '--reporter', '--filter-prod', '--test-pattern', '--changed-files-ignore-pattern', '--resume-from', '--loglevel']);
const NPM_VALUED = new Set(['-w', '--workspace', '--prefix', '--loglevel']);

/** The workspace command a test command is, or null (a root runner call, a plain `npm test`, anything else). */
export function parseWorkspaceCommand(command: string): WorkspaceCommand | null {
  const cmd = command.trim();
  if (/&&|\|\||[;|`$<>()\n]/.test(cmd)) return null;
  const env = ENV.exec(cmd)?.[0] ?? '';
  let rest = cmd.slice(env.length).replace(/^npx\s+(?:--no-install\s+|--yes\s+|-y\s+)*/, '');
  // `pnpm turbo run test`, `pnpm exec nx test a`, `yarn turbo test`: the tool through the package manager
  rest = rest.replace(/^(?:pnpm|yarn)(?:\s+exec)?\s+(?=(?:turbo|nx)\s)/, '');
  const w = words(rest);
  if (w.length < 2) return null;
  const parse = PARSERS.get(w[0]);
  return parse ? parse(cmd, env, w) : null;
}

const PARSERS = new Map<string, (cmd: string, env: string, w: string[]) => WorkspaceCommand | null>([
  ['pnpm', (c, e, w) => parsePnpm(c, e, w)],
  ['yarn', (c, e, w) => parseYarn(c, e, w)],
  ['npm', (c, e, w) => parseNpm(c, e, w)],
  ['turbo', (c, e, w) => parseTurbo(c, e, w)],
  ['nx', (c, e, w) => parseNx(c, e, w)],
]);

/** With `--` for a tool that needs it before the script's arguments, unless the command has one. */
const withDashes = (cmd: string) => `${cmd}${/\s--(\s|$)/.test(cmd) ? '' : ' --'}`;

/** `pnpm [--filter x|-r|-C dir] [run] test…`, `pnpm --filter x exec <cmd>`. */
function parsePnpm(cmd: string, env: string, w: string[]): WorkspaceCommand | null {
  const selectors: string[] = [];
  let all = false;
  let i = 1;
  let script: string | null = null;
  let exec: string | undefined;
  let args: string[] = [];
  let dir: string | null = null;
  let viaRun = false;
  for (; i < w.length; i++) {
    const a = w[i];
    const eq = /^(--filter|-F|--dir|-C)=(.+)$/.exec(a);
    if (eq) {
      if (eq[1] === '--dir' || eq[1] === '-C') dir = eq[2];
      else selectors.push(eq[2]);
      continue;
    }
    if (a === '--filter' || a === '-F') {
      selectors.push(w[++i] ?? '');
      continue;
    }
    if (a === '--dir' || a === '-C') {
      dir = w[++i] ?? null;
      continue;
    }
    if (a === '-r' || a === '--recursive') {
      all = true;
      continue;
    }
    if (PNPM_VALUED.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (a === 'run' || a === 'run-script') {
      viaRun = true;
      continue;
    }
    if (a === 'exec') {
      exec = w.slice(i + 1).join(' ');
      break;
    }
    if (a === 'test' || a === 't' || w[i - 1] === 'run' || w[i - 1] === 'run-script' || /^test[:\w-]*$/.test(a)) {
      script = a === 't' ? 'test' : a;
      args = w.slice(i + 1);
      break;
    }
    return null;
  }
  if (dir) selectors.push(dir);
  if (!script && !exec) return null;
  if (selectors.length === 0 && !all) return null;
  // pnpm's options after the script name go to the script (`--` too in pnpm 9: it is dropped)
  args = args.filter((a, k) => !(a === '--' && k === 0));
  // pnpm 9: `pnpm run <script> a b` passes `a b` on (a `--` too, literally: vitest would ignore what follows);
  // `pnpm test a` takes `a` as its own option, `pnpm test -- a` passes `a` (the `--` dropped)
  return { tool: 'pnpm', env, selectors: selectors.filter(Boolean), all: all && selectors.length === 0, script, exec, args: args.join(' '), appendBase: exec || viaRun ? cmd : withDashes(cmd) };
}

/** `yarn workspace x [run] test`, `yarn workspaces [foreach …] run test`. */
function parseYarn(cmd: string, env: string, w: string[]): WorkspaceCommand | null {
  if (w[1] === 'workspace' && w.length >= 4) {
    const name = w[2];
    const i = w[3] === 'run' ? 4 : 3;
    const script = w[i];
    if (!script || script === 'exec' || script === 'node') return null;
    return { tool: 'yarn', env, selectors: [name], all: false, script, args: w.slice(i + 1).join(' '), appendBase: cmd };
  }
  if (w[1] === 'workspaces') {
    // yarn 1 `yarn workspaces run test`, berry `yarn workspaces foreach [-A|--all] [-pv...] run test`
    const run = w.indexOf('run');
    if (run < 0 || !w[run + 1]) return null;
    const selectors: string[] = [];
    for (let i = 2; i < run; i++) {
      const m = /^--include(?:=(.+))?$/.exec(w[i]);
      if (m) selectors.push(m[1] ?? w[++i]);
    }
    return { tool: 'yarn', env, selectors, all: selectors.length === 0, script: w[run + 1], args: w.slice(run + 2).join(' '), appendBase: cmd };
  }
  return null;
}

/** `npm [run] test -w x`, `npm test --workspaces`. */
function parseNpm(cmd: string, env: string, w: string[]): WorkspaceCommand | null {
  const selectors: string[] = [];
  let all = false;
  let script: string | null = null;
  let args: string[] = [];
  let sawRun = false;
  for (let i = 1; i < w.length; i++) {
    const a = w[i];
    if (a === '--') {
      args = w.slice(i + 1);
      break;
    }
    const eq = /^(?:-w|--workspace)=(.+)$/.exec(a);
    if (eq) {
      selectors.push(eq[1]);
      continue;
    }
    if (a === '-w' || a === '--workspace') {
      selectors.push(w[++i] ?? '');
      continue;
    }
    if (a === '--workspaces' || a === '-ws') {
      all = true;
      continue;
    }
    if (NPM_VALUED.has(a)) {
      i++;
      continue;
    }
    if (a.startsWith('-')) continue;
    if (!script && (a === 'run' || a === 'run-script')) {
      sawRun = true;
      continue;
    }
    if (!script && (a === 'test' || a === 't' || a === 'tst' || sawRun)) {
      script = a === 't' || a === 'tst' ? 'test' : a;
      continue;
    }
    return null;
  }
  if (!script || (selectors.length === 0 && !all)) return null;
  return { tool: 'npm', env, selectors: selectors.filter(Boolean), all: all && selectors.length === 0, script, args: args.join(' '), appendBase: withDashes(cmd) };
}

/** `turbo [run] test [--filter=x] [-- args]`. */
function parseTurbo(cmd: string, env: string, w: string[]): WorkspaceCommand | null {
  let i = 1;
  if (w[i] === 'run') i++;
  const tasks: string[] = [];
  const selectors: string[] = [];
  let args: string[] = [];
  for (; i < w.length; i++) {
    const a = w[i];
    if (a === '--') {
      args = w.slice(i + 1);
      break;
    }
    const eq = /^(?:--filter|-F)=(.+)$/.exec(a);
    if (eq) selectors.push(eq[1]);
    else if (a === '--filter' || a === '-F') selectors.push(w[++i] ?? '');
    else if (!a.startsWith('-')) tasks.push(a);
  }
  const script = tasks.find((t) => /^test/.test(t)) ?? tasks[0];
  if (!script) return null;
  return { tool: 'turbo', env, selectors: selectors.filter(Boolean), all: selectors.length === 0, script, args: args.join(' '), appendBase: tasks.length === 1 ? withDashes(cmd) : null };
}

/** `nx test x`, `nx run x:test`, `nx run-many -t test [-p x]`. */
function parseNx(cmd: string, env: string, w: string[]): WorkspaceCommand | null {
  const run = /^run\s+([^\s:]+):(\S+)/.exec(w.slice(1).join(' '));
  if (run) return { tool: 'nx', env, selectors: [run[1]], all: false, script: run[2], args: '', appendBase: null };
  if (w[1] === 'run-many') {
    const joined = w.slice(2).join(' ');
    const target = /(?:-t|--targets?)(?:=|\s+)(\S+)/.exec(joined)?.[1]?.split(',')[0];
    const projects = /(?:-p|--projects)(?:=|\s+)(\S+)/.exec(joined)?.[1]?.split(',') ?? [];
    if (!target) return null;
    return { tool: 'nx', env, selectors: projects, all: projects.length === 0, script: target, args: '', appendBase: null };
  }
  if (/^test[:\w-]*$/.test(w[1]) && w[2] && !w[2].startsWith('-')) return { tool: 'nx', env, selectors: [w[2]], all: false, script: w[1], args: w.slice(3).join(' '), appendBase: null };
  return null;
}

/** `pnpm run test` (or npm/yarn) whose root script is itself a workspace command (`turbo test`, `pnpm -r test`). */
export function rootScriptCommand(command: string, rootScripts: Record<string, unknown> | undefined): string | null {
  const env = ENV.exec(command.trim())?.[0] ?? '';
  const m = /^(?:npm|pnpm|yarn)(?:\s+run)?\s+([\w:.-]+)\s*$/.exec(command.trim().slice(env.length));
  if (!m || ['install', 'exec', 'add', 'ci', 'i'].includes(m[1])) return null;
  const script = rootScripts?.[m[1]];
  return typeof script === 'string' ? `${env}${script}` : null;
}

export interface TargetPackage {
  dir: string;
  name: string;
  /** The script's text in that package; for `exec`, the command exec'd in it. */
  script: string;
}

/** Whether a selector (name, directory, glob of either; pnpm's `...`/`^` graph marks ignored) picks the package. */
export function selects(selector: string, p: { dir: string; name: string }): boolean {
  let s = selector.replace(/^\{(.*)\}$/, '$1').replace(/^\.{3}\^?|\^?\.{3}$/g, '').replace(/^!/, '');
  s = s.replace(/^\{(.*)\}$/, '$1');
  if (s === '') return false;
  const glob = (g: string, v: string) => new RegExp(`^${g.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*\*/g, '\u0000').replace(/\*/g, '[^/]*').replace(/\u0000/g, '.*')}$`).test(v);
  const dir = s.replace(/^\.\//, '').replace(/\/+$/, '');
  return glob(s, p.name) || glob(dir, p.dir) || p.dir.split('/').pop() === s;
}

/**
 * The packages the command runs its script in: those selected (or all, for `-r`/`--workspaces`/
 * turbo without a filter) that have the script (`scripts` of each package by directory). For
 * `exec`, every selected package.
 */
export function resolveTargets(wc: WorkspaceCommand, packages: { dir: string; name: string }[], scripts: (dir: string) => Record<string, unknown> | undefined): TargetPackage[] {
  const excluded = wc.selectors.filter((s) => s.startsWith('!'));
  const included = wc.selectors.filter((s) => !s.startsWith('!'));
  const out: TargetPackage[] = [];
  for (const p of packages) {
    if (!wc.all && !included.some((s) => selects(s, p))) continue;
    if (excluded.some((s) => selects(s, p))) continue;
    if (wc.exec !== undefined) {
      out.push({ dir: p.dir, name: p.name, script: wc.exec });
      continue;
    }
    const text = scripts(p.dir)?.[wc.script ?? 'test'];
    if (typeof text === 'string' && text.trim() !== '') out.push({ dir: p.dir, name: p.name, script: text.trim() });
  }
  return out;
}
