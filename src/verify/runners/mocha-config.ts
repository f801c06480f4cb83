/**
 * Which files a mocha invocation runs, as far as the harness needs it to run a selection
 * of them (runners/mocha.ts): the project's configuration (`readMochaConfig`), the
 * invocation taken apart (`parseMochaCall`), and matchers for spec files and globs as
 * mocha's own lookup reads them. Pure, except `readMochaConfig` (reads files; a JS
 * configuration is looked at as text, never executed).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import picomatch from 'picomatch';
import { parse as parseYaml } from 'yaml';

/** mocha's configuration files, in the order mocha looks for them (lib/cli/config; `.mjs` since mocha 12). */
const MOCHA_CONFIGS = ['.mocharc.cjs', '.mocharc.js', '.mocharc.mjs', '.mocharc.yaml', '.mocharc.yml', '.mocharc.jsonc', '.mocharc.json'];

/**
 * The project's mocha configuration, as far as the harness needs it to run a selection of
 * files: mocha adds the configuration's `spec` (and `_`) to the files of the command line
 * (checked with 10.8, 11.8, 12.0), so a selected run gets a configuration of the harness's
 * own without them (`mochaSelection` in plan.ts).
 */
export interface MochaConfig {
  /** The `.mocharc.*` file mocha loads (the first found at the root). */
  file?: string;
  /** Its options, read as data (JSON, JSONC, YAML). Absent for a JS file: only mocha executes it. */
  options?: Record<string, unknown>;
  /** A JS file (`.cjs`, `.js`) that mentions `spec`: it may name spec files, unknown here. */
  jsSpec?: boolean;
  /** The `mocha` field of package.json. */
  pkg?: Record<string, unknown>;
  /** Why no selection of files is possible with this configuration. */
  unselectable?: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** JSON with comments, read as mocha reads `.mocharc.json[c]` (strip-json-comments, then JSON.parse). */
export function parseJsonc(text: string): unknown {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j;
    } else if (c === '/' && text[i + 1] === '/') {
      while (i < text.length && text[i] !== '\n') i++;
      out += '\n';
    } else if (c === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end === -1 ? text.length : end + 1;
      out += ' ';
    } else {
      out += c;
    }
  }
  return JSON.parse(out);
}

/** Whether a configuration object names spec files (`spec`, or positional `_`). */
export function namesSpec(options: Record<string, unknown> | undefined): boolean {
  return !!options && (options.spec !== undefined || options._ !== undefined);
}

/**
 * Reads the project's mocha configuration: the first `.mocharc.*` at the root (as mocha
 * picks it) and package.json's `mocha` field. Data files are parsed; a JS file is only
 * looked at as text (whether it mentions `spec`), never executed here.
 */
export async function readMochaConfig(root: string, pkg: { mocha?: unknown } | null): Promise<MochaConfig> {
  const config: MochaConfig = {};
  if (isObject(pkg?.mocha)) config.pkg = pkg.mocha;
  for (const name of MOCHA_CONFIGS) {
    let text: string;
    try {
      text = await readFile(path.join(root, name), 'utf8');
    } catch {
      continue;
    }
    config.file = name;
    const mentions = /\bspec\b/.test(text);
    if (name === '.mocharc.mjs') {
      // mocha 12 loads it, earlier versions skip it for the next file: which one applies depends on the version.
      if (mentions) config.unselectable = `${name} may set spec (mocha 12 loads it, earlier versions do not)`;
    } else if (/\.c?js$/.test(name)) {
      config.jsSpec = mentions;
    } else {
      try {
        const parsed = /\.ya?ml$/.test(name) ? parseYaml(text) : parseJsonc(text);
        if (isObject(parsed)) config.options = parsed;
        else if (parsed !== null && parsed !== undefined) throw new Error('not an object');
      } catch {
        if (mentions) config.unselectable = `${name} could not be read`;
      }
    }
    break;
  }
  return config;
}

/** mocha options that take a value (`--require x`, `-t 5000`), mocha 10 to 12. */
const MOCHA_VALUE_FLAGS = new Set([
  '--config', '--package', '--extension', '--file', '--global', '--globals', '--ignore', '--exclude', '--node-option', '-n',
  '--reporter-option', '--reporter-options', '-O', '--require', '-r', '--spec', '--watch-files', '--watch-ignore',
  '--fgrep', '-f', '--grep', '-g', '--reporter', '-R', '--ui', '-u', '--slow', '-s', '--timeout', '--timeouts', '-t', '--retries', '--jobs', '-j',
]);

/** mocha's boolean options (lib/cli/run-option-metadata), with their aliases. */
const MOCHA_BOOLEAN_FLAGS = new Set(
  [
    'allow-uncaught', 'async-only', 'bail', 'check-leaks', 'clear-screen', 'color', 'colors', 'delay', 'diff', 'dry-run', 'exit',
    'fail-hook-affected-tests', 'pass-on-failing-test-suite', 'fail-zero', 'forbid-only', 'forbid-pending', 'full-trace', 'inline-diffs',
    'invert', 'no-colors', 'parallel', 'posix-exit-codes', 'recursive', 'sort', 'watch', 'inspect', 'inspect-brk',
  ].flatMap((n) => [`--${n}`, `--no-${n}`]).concat(['-A', '-b', '-c', '-C', '-i', '-p', '-S', '-w']),
);

/** Splits a command into words: plain words and '…' / "…" quoted ones; null for anything else (escapes, expansions). */
export function words(command: string): string[] | null {
  const out: string[] = [];
  const re = /\s*(?:'([^']*)'|"([^"\\$`]*)"|([^\s'"\\]+))/y;
  let current: string | null = null;
  let i = 0;
  while (i < command.length) {
    if (/\s/.test(command[i])) {
      if (current !== null) out.push(current);
      current = null;
      i++;
      continue;
    }
    re.lastIndex = i;
    const m = re.exec(command);
    if (!m || m[0].length === 0) return null;
    current = (current ?? '') + (m[1] ?? m[2] ?? m[3]);
    i = re.lastIndex;
  }
  if (current !== null) out.push(current);
  return out;
}

/** A mocha invocation taken apart: what comes before mocha, mocha, its options and the spec files it names. */
export interface MochaCall {
  /** Words before the binary: `VAR=x`, `cross-env …`, `npx --no-install`, `pnpm exec`. */
  prefix: string[];
  bin: string;
  /** The options, with their values, in order (spec files and `--spec` left out). */
  options: string[];
  /** Spec files, directories or globs named by the invocation (positional or `--spec`). */
  specs: string[];
  extension: string[];
  ignore: string[];
  recursive?: boolean;
}

/**
 * The invocation taken apart, or null when that cannot be done safely: quoting beyond plain
 * '…' / "…", `--`, a configuration or package.json of its own (`--config`, `--package`,
 * `--no-config`, `--no-package`), bundled short flags, or an unknown option followed by a
 * word (the word may be its value or a spec file, depending on mocha's version).
 */
export function parseMochaCall(invocation: string): MochaCall | null {
  const w = words(invocation);
  if (!w) return null;
  let i = 0;
  const prefix: string[] = [];
  while (i < w.length) {
    if (/^\w+=/.test(w[i]) || w[i] === 'cross-env') prefix.push(w[i++]);
    else if (w[i] === 'npx') {
      prefix.push(w[i++]);
      while (i < w.length && /^(?:--no-install|--yes|-y)$/.test(w[i])) prefix.push(w[i++]);
    } else if (w[i] === 'pnpm' || w[i] === 'yarn') {
      prefix.push(w[i++]);
      if (w[i] === 'exec') prefix.push(w[i++]);
    } else break;
  }
  if (!/^(?:\.\/node_modules\/\.bin\/)?mocha$/.test(w[i] ?? '')) return null;
  const call: MochaCall = { prefix, bin: w[i], options: [], specs: [], extension: [], ignore: [] };
  for (i++; i < w.length; i++) {
    const a = w[i];
    if (!a.startsWith('-') || a === '-') {
      call.specs.push(a);
      continue;
    }
    const eq = a.indexOf('=');
    const name = eq === -1 ? a : a.slice(0, eq);
    if (a === '--' || /^--(?:no-)?(?:config|package)$/.test(name)) return null;
    if (MOCHA_VALUE_FLAGS.has(name)) {
      let value: string;
      if (eq !== -1) value = a.slice(eq + 1);
      else {
        if (i + 1 >= w.length) return null;
        value = w[++i];
      }
      if (name === '--spec') {
        call.specs.push(value);
        continue;
      }
      if (name === '--extension') call.extension.push(...value.split(',').filter(Boolean));
      if (name === '--ignore' || name === '--exclude') call.ignore.push(value);
      call.options.push(name, value);
      continue;
    }
    if (/^-[^-]./.test(a)) return null;
    if (name === '--recursive') call.recursive = true;
    if (name === '--no-recursive') call.recursive = false;
    if (!MOCHA_BOOLEAN_FLAGS.has(name) && eq === -1 && i + 1 < w.length && !w[i + 1].startsWith('-')) return null;
    call.options.push(a);
  }
  return call;
}

/**
 * A matcher for a glob as mocha's glob reads it (`*`, `**`, `?`, `[…]`, `{a,b}`, `{1..3}`);
 * null for what is not judged: extglobs (`+(a|b)`) and unbalanced brackets or braces.
 */
export function globMatcher(glob: string): ((file: string) => boolean) | null {
  if (/[!+@*?]\(/.test(glob)) return null;
  try {
    // glob negates a class with `[!…]`; picomatch reads that as a class holding `!`, so say `[^…]`
    return picomatch(glob.replace(/\[!/g, '[^'), { dot: false, strictBrackets: true });
  } catch {
    return null;
  }
}

/**
 * Whether mocha, given `spec`, runs `file` (repo-relative): the file itself, the file with
 * one of the extensions added, a file of the directory (of its subdirectories with
 * `recursive`) with one of the extensions, or a file the glob matches. Hidden files and
 * directories are never matched (mocha's glob and directory lookup skip hidden files).
 * Null when the spec cannot be judged (absolute, `..`, an extglob).
 */
export function specMatcher(spec: string, extension: string[], recursive: boolean): ((file: string) => boolean) | null {
  const s = spec.replace(/^(?:\.\/)+/, '').replace(/\/+$/, '');
  if (spec.startsWith('/') || s.split('/').includes('..')) return null;
  const visible = (f: string) => !f.split('/').some((part) => part.startsWith('.'));
  if (/[*?[\]{}]/.test(s)) {
    const matches = globMatcher(s);
    return matches ? (f) => visible(f) && matches(f) : null;
  }
  const exts = extension.map((e) => (e.startsWith('.') ? e : `.${e}`));
  return (f) => {
    if (f === s) return true;
    if (!visible(f)) return false;
    if (exts.some((e) => f === s + e)) return true;
    const rest = s === '' || s === '.' ? f : f.startsWith(`${s}/`) ? f.slice(s.length + 1) : null;
    return rest !== null && (recursive || !rest.includes('/')) && exts.some((e) => f.endsWith(e));
  };
}

export const asList = (v: unknown): string[] => (v === undefined || v === null ? [] : (Array.isArray(v) ? v : [v]).map(String));
export const asFlag = (v: unknown): boolean | undefined => (v === undefined ? undefined : v === true || v === 'true');

/** The configuration of ours that mocha loads instead of the project's: its options without the spec. */
export function jsConfigWrapper(file: string): string {
  return [
    "'use strict';",
    '// agent-fix: the project\'s mocha configuration without its spec, for a run of selected test files.',
    '// mocha loads this file as it loads the project\'s; the project\'s file is loaded the way mocha loads it (require, relative to the working directory).',
    `var loaded = require(require('path').resolve(${JSON.stringify(file)}));`,
    'var options = Object.assign({}, loaded !== null && loaded !== undefined && loaded.default !== undefined && loaded.default !== null ? loaded.default : loaded);',
    'delete options.spec;',
    'delete options._;',
    'module.exports = options;',
    '',
  ].join('\n');
}

export function withoutSpec(options: Record<string, unknown>): Record<string, unknown> {
  const { spec: _spec, _: _positional, ...rest } = options;
  return rest;
}

