/**
 * The model's tools: specs (JSON Schemas the model sees) and the ToolBox that executes the
 * file tools against the working tree. Every failure is data for the model (ok: false with an
 * actionable message); nothing throws out of execute().
 *
 * run_tests and finish are executed by the agent loop; only their specs live here.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { RE2JS } from 're2js';
import { z } from 'zod';
import type { ToolSpec } from '../ports/llm.js';
import { resolveRepoPath } from '../workspace/paths.js';
import { applyEdit, applyEdits, type EditResult, type Rung } from './edit-match.js';
import { checkSyntax } from './syntax-check.js';
import { applyUnifiedDiff } from './unified-diff.js';
import { countTokens, truncateToTokens } from '../context/tokens.js';

export interface ToolResult {
  ok: boolean;
  /** What the model sees. */
  content: string;
  /** One line for humans and the transcript. */
  display: string;
  /** Repo-relative path of a file this call changed. */
  changedPath?: string;
}

export type ToolName = 'list_files' | 'read_file' | 'search' | 'edit_file' | 'write_file' | 'run_tests' | 'finish';

export const LIST_CAP = 400;
export const READ_MAX_LINES = 400;
export const READ_MAX_BYTES = 40_000;
export const SEARCH_MAX_MATCHES = 100;
export const SEARCH_MAX_LINE_CHARS = 200;
export const DEFAULT_MAX_FILE_BYTES = 1024 * 1024;
const BINARY_SNIFF_BYTES = 8192;
const READ_MAX_LINE_CHARS = 2000;

// ------------------------------------------------------------------ specs

export const TOOL_SPECS: ToolSpec[] = [
  {
    name: 'list_files',
    description:
      'List files of the repository (tracked, plus untracked files that are not git-ignored), sorted. ' +
      `Optionally narrowed to a directory and/or a glob. At most ${LIST_CAP} paths are returned; narrow with path or pattern to see more.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'Directory (or file) relative to the repository root, e.g. "src/utils". Default: the whole repository.' },
        pattern: {
          type: 'string',
          description: 'Glob such as "**/*.test.ts" or "*.py". A pattern without "/" matches file names in any directory.',
        },
      },
      additionalProperties: false,
    },
  },
  {
    name: 'read_file',
    description:
      'Read a text file. Lines come back numbered as "  12| text"; the number and "| " are not part of the file, so never copy them into edit_file. ' +
      `At most ${READ_MAX_LINES} lines or ${READ_MAX_BYTES / 1000} KB per call; use start_line/end_line to read further.`,
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the repository root.' },
        start_line: { type: 'integer', minimum: 1, description: 'First line to show (1-based). Default 1.' },
        end_line: { type: 'integer', minimum: 1, description: 'Last line to show (inclusive).' },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'search',
    description:
      'Search the text files of the repository, line by line, with a regular expression in JavaScript syntax (an invalid regex is searched literally; ' +
      'lookahead and backreferences are not supported, lookbehind is). ' +
      `Returns "file:line: text" lines, at most ${SEARCH_MAX_MATCHES} matches.`,
    parameters: {
      type: 'object',
      properties: {
        pattern: { type: 'string', description: 'JavaScript regular expression (no slashes or flags), e.g. "function\\s+parseArgs".' },
        path: { type: 'string', description: 'Directory or file to search in, relative to the repository root. Default: everything.' },
      },
      required: ['pattern'],
      additionalProperties: false,
    },
  },
  {
    name: 'edit_file',
    description:
      'Replace one region of an existing file: old_string must identify exactly one place (copy it from read_file output without the line numbers, ' +
      'with a few lines of context so it is unique). Slips in indentation, trailing whitespace and one blank line are tolerated; an ambiguous or missing ' +
      'old_string changes nothing and says why. To replace a long region, quote its first lines, a line "...", then its last lines. ' +
      'Instead of old_string/new_string you may send diff: a unified diff of this file (@@ numbers may be approximate), or edits. ' +
      'A result that does not parse is written, with a warning saying where.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the repository root.' },
        old_string: { type: 'string', description: 'The text to replace; must match exactly one place in the file. Not empty.' },
        new_string: { type: 'string', description: 'The replacement text (may be empty to delete).' },
        diff: { type: 'string', description: 'A unified diff of this file, instead of old_string and new_string.' },
        edits: {
          type: 'array',
          description: 'Several old/new pairs for this file, applied in order, all or none.',
          items: { type: 'object', properties: { old_string: { type: 'string' }, new_string: { type: 'string' } }, required: ['old_string', 'new_string'] },
        },
      },
      required: ['path'],
      additionalProperties: false,
    },
  },
  {
    name: 'write_file',
    description:
      'Create a file with the given content (parent directories are created). Overwrites an existing file completely, ' +
      'so prefer edit_file for changing part of an existing file.',
    parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'File path relative to the repository root.' },
        content: { type: 'string', description: 'The complete file content.' },
      },
      required: ['path', 'content'],
      additionalProperties: false,
    },
  },
  {
    name: 'run_tests',
    description:
      "Run the repository's test command (chosen by the harness, not by you) and get a concise summary: counts, failing tests with messages, output tail. " +
      'Use it to check your change before calling finish.',
    // No arguments: which tests run is the harness's choice (the tests related to the change first, when it can tell).
    parameters: { type: 'object', properties: {}, additionalProperties: false },
  },
  {
    name: 'finish',
    description:
      'Call when the change is complete. The harness then runs the full test suite itself; if it fails you get the results and can continue.',
    parameters: {
      type: 'object',
      properties: {
        summary: { type: 'string', description: 'What you changed and why, in a few sentences, for the pull request description.' },
      },
      required: ['summary'],
      additionalProperties: false,
    },
  },
];

export const TOOL_NAMES: ToolName[] = TOOL_SPECS.map((s) => s.name as ToolName);

// ------------------------------------------------------------------ argument validation

/** Models often send null for an absent optional argument; treat it as absent. */
const opt = <T extends z.ZodType>(schema: T) => z.preprocess((v) => (v === null ? undefined : v), schema.optional());
const lineNo = z.coerce.number().int().min(1);

const ARG_SCHEMAS = {
  list_files: z.object({ path: opt(z.string()), pattern: opt(z.string()) }),
  read_file: z.object({ path: z.string(), start_line: opt(lineNo), end_line: opt(lineNo) }),
  search: z.object({ pattern: z.string(), path: opt(z.string()) }),
  edit_file: z.object({
    path: z.string(),
    old_string: opt(z.string()),
    new_string: opt(z.string()),
    diff: opt(z.string()),
    edits: opt(z.array(z.object({ old_string: z.string(), new_string: z.string() }))),
  }),
  write_file: z.object({ path: z.string(), content: z.string() }),
  run_tests: z.object({}),
  finish: z.object({ summary: z.string() }),
} satisfies Record<ToolName, z.ZodType>;

export type ToolArgs = { [K in ToolName]: z.infer<(typeof ARG_SCHEMAS)[K]> };

const ARG_EXAMPLES: Record<ToolName, string> = {
  list_files: '{"path": "src", "pattern": "*.ts"}',
  read_file: '{"path": "src/index.ts", "start_line": 1, "end_line": 200}',
  search: '{"pattern": "parseConfig\\\\(", "path": "src"}',
  edit_file: '{"path": "src/a.ts", "old_string": "return a - b;", "new_string": "return a + b;"}',
  write_file: '{"path": "src/new.ts", "content": "export const x = 1;\\n"}',
  run_tests: '{}',
  finish: '{"summary": "Fixed the off-by-one in parseRange and added a test."}',
};

function isToolName(name: string): name is ToolName {
  return (TOOL_NAMES as string[]).includes(name);
}

/** Parses and validates the JSON arguments the model sent for a tool (the loop uses it for run_tests and finish too). */
export function validateToolArgs<K extends ToolName>(
  name: K,
  rawArgs: string,
): { ok: true; args: ToolArgs[K] } | { ok: false; error: string } {
  let parsed: unknown;
  const text = (rawArgs ?? '').trim();
  if (text === '') parsed = {};
  else {
    try {
      parsed = JSON.parse(text);
    } catch (e) {
      return {
        ok: false,
        error:
          `The arguments of ${name} are not valid JSON (${(e as Error).message}). ` +
          `Send one JSON object, e.g. ${ARG_EXAMPLES[name]} (escape newlines in strings as \\n and quotes as \\").`,
      };
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    return { ok: false, error: `The arguments of ${name} must be a JSON object, e.g. ${ARG_EXAMPLES[name]}.` };
  }
  const res = ARG_SCHEMAS[name].safeParse(parsed);
  if (!res.success) {
    const problems = res.error.issues
      .slice(0, 5)
      .map((i) => {
        const key = i.path.join('.') || '(arguments)';
        const got = i.path.length ? (parsed as Record<string, unknown>)[String(i.path[0])] : parsed;
        return got === undefined ? `${key} is missing` : `${key}: ${i.message}`;
      })
      .join('; ');
    return { ok: false, error: `Invalid arguments for ${name}: ${problems}. Expected e.g. ${ARG_EXAMPLES[name]}.` };
  }
  return { ok: true, args: res.data as ToolArgs[K] };
}

// ------------------------------------------------------------------ helpers

function fail(content: string, display: string): ToolResult {
  return { ok: false, content, display };
}

function numbered(lines: string[], firstLine: number, width: number): string[] {
  return lines.map((l, k) => `${String(firstLine + k).padStart(width)}| ${l}`);
}

function numberWidth(maxLine: number): number {
  return Math.max(4, String(maxLine).length);
}

/** File lines for display: without the '\n' separators and a trailing CR. */
function displayLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
}

function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, BINARY_SNIFF_BYTES).includes(0);
}

function capLine(s: string, n: number): string {
  return s.length > n ? s.slice(0, n) + '…' : s;
}

function short(s: string, n = 60): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > n ? one.slice(0, n - 1) + '…' : one;
}

const RUNG_NOTE: Record<Rung, string> = {
  exact: 'exact match',
  whitespace: 'matched ignoring trailing whitespace and line endings',
  indentation: 'matched ignoring indentation; new_string was re-indented to the file',
  'blank-lines': 'matched allowing one blank line more or less; the file\'s blank lines were kept',
  elision: 'matched the quoted lines around "..."; everything between them was replaced',
};

type Stat = Awaited<ReturnType<typeof fsp.stat>>;

async function statOrNull(p: string): Promise<Stat | null> {
  try {
    return await fsp.stat(p);
  } catch {
    return null;
  }
}

/**
 * The syntax errors a change introduces, for the model ('' when none: it parses, or parsed no better
 * before), and a note for the result when the syntax could not be checked.
 */
async function syntaxGate(rel: string, before: string | null, after: string, editLine?: number): Promise<{ problem: string; note: string }> {
  const v = await checkSyntax(rel, before, after);
  if (v.kind === 'ok') return { problem: '', note: '' };
  if (v.kind === 'unchecked') return { problem: '', note: v.reason ? ` (syntax not checked: ${short(v.reason, 80)})` : '' };
  const p = v.problems[0];
  const lines = displayLines(after);
  const from = Math.max(1, p.line - 2);
  const to = Math.min(lines.length, p.line + 2);
  const snippet = numbered(lines.slice(from - 1, to).map((l) => capLine(l, 200)), from, numberWidth(to)).join('\n');
  const more = v.added > 1 ? ` (and ${v.added - 1} more)` : '';
  const where = editLine !== undefined && Math.abs(editLine - p.line) > 2 ? ` (the edit starts at line ${editLine})` : '';
  return { problem: `does not parse as ${v.language}: line ${p.line}, column ${p.column}: ${p.message}${more}${where}:\n${snippet}`, note: '' };
}

/**
 * The model's search pattern for a linear-time engine (RE2, through re2js): matching never
 * backtracks, so no pattern can stall the process (`(a+)+$` on a long line takes time
 * proportional to the line). JavaScript syntax is accepted (named groups, `\uXXXX`, `\cX`,
 * lookbehind); a pattern that is not a valid JavaScript regex is searched literally; lookahead
 * and backreferences, which need backtracking, are refused with a message saying so.
 */
export function compileSearchPattern(pattern: string): { ok: true; re: RE2JS; literal: boolean } | { ok: false; error: string } {
  try {
    new RegExp(pattern); // syntax check only: compiling a JavaScript regex never runs it
  } catch {
    return { ok: true, re: RE2JS.compile(RE2JS.quote(pattern)), literal: true };
  }
  const unsupported = backtrackingConstruct(pattern);
  if (!unsupported) {
    try {
      return { ok: true, re: RE2JS.compile(RE2JS.translateRegExp(pattern), RE2JS.LOOKBEHINDS), literal: false };
    } catch (e) {
      const why = e instanceof Error ? e.message.replace(/^error parsing regexp: /, '') : String(e);
      return { ok: false, error: `The search pattern ${JSON.stringify(pattern)} is not supported by search's linear-time engine (${why}). Rewrite it more simply, or search for a plain word.` };
    }
  }
  return {
    ok: false,
    error:
      `The search pattern ${JSON.stringify(pattern)} uses ${unsupported}, which search does not support (its engine runs in linear time, so no pattern can stall the run). ` +
      'Search without it (e.g. for the part before the lookahead, then read_file around the matches).',
  };
}

/** Lookahead or a backreference outside escapes, which RE2 cannot run; undefined when there is none. */
function backtrackingConstruct(pattern: string): string | undefined {
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      const next = pattern[i + 1] ?? '';
      if (/[1-9]/.test(next) || (next === 'k' && pattern[i + 2] === '<')) return `a backreference (\\${next}${next === 'k' ? '<…>' : ''})`;
      i++;
    } else if (c === '(' && pattern[i + 1] === '?' && (pattern[i + 2] === '=' || pattern[i + 2] === '!')) {
      return `a lookahead (${pattern.slice(i, i + 3)}…)`;
    }
  }
  return undefined;
}

// ------------------------------------------------------------------ the toolbox

export interface ToolBoxOptions {
  /** Absolute real path of the repository root. */
  root: string;
  /** Tracked plus untracked-not-ignored files, repo-relative with '/' separators. */
  listFiles: () => Promise<string[]>;
  /** Globs the model may not edit (ALWAYS_PROTECTED is added regardless). */
  protectedPaths: string[];
  /** Larger files are neither read, searched, edited nor written. Default 1 MiB. */
  maxFileBytes?: number;
  /** The regions of a file that matter for the task (src/context): a read of a long file without a range shows them first. */
  focus?: (rel: string) => { start: number; end: number; label: string }[];
  /** Awaited right before the model's change to a file is written (src/diagnostics keeps the baseline and the original content). */
  beforeWrite?: (rel: string) => Promise<void>;
  /** Is the path ignored by git (and untracked)? Such a file is never part of the change, so it is never written. */
  isIgnored?: (rel: string) => Promise<boolean>;
}

export class ToolBox {
  private readonly root: string;
  private readonly listFilesFn: () => Promise<string[]>;
  private readonly protectedPaths: string[];
  private readonly maxFileBytes: number;
  private readonly focus?: ToolBoxOptions['focus'];
  private readonly beforeWrite?: ToolBoxOptions['beforeWrite'];
  private readonly isIgnored?: ToolBoxOptions['isIgnored'];

  constructor(opts: ToolBoxOptions) {
    this.focus = opts.focus;
    this.beforeWrite = opts.beforeWrite;
    this.isIgnored = opts.isIgnored;
    this.root = opts.root;
    this.listFilesFn = opts.listFiles;
    this.protectedPaths = opts.protectedPaths;
    this.maxFileBytes = opts.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  }

  /**
   * Runs one tool. `room.maxTokens`: the tokens the result may take in the next request (the
   * loop's share of the endpoint's per-request budget); read_file and search stop at it and say
   * how to get the rest.
   */
  async execute(name: string, rawArgs: string, room: { maxTokens?: number } = {}): Promise<ToolResult> {
    try {
      if (!isToolName(name)) {
        return fail(`Unknown tool "${name}". The tools are: ${TOOL_NAMES.join(', ')}.`, `unknown tool ${short(String(name), 40)}`);
      }
      const v = validateToolArgs(name, rawArgs);
      if (!v.ok) return fail(v.error, `${name}: invalid arguments`);
      switch (name) {
        case 'list_files':
          return await this.listFiles(v.args as ToolArgs['list_files']);
        case 'read_file':
          return await this.readFile(v.args as ToolArgs['read_file'], room.maxTokens);
        case 'search':
          return await this.search(v.args as ToolArgs['search'], room.maxTokens);
        case 'edit_file':
          return await this.editFile(v.args as ToolArgs['edit_file']);
        case 'write_file':
          return await this.writeFile(v.args as ToolArgs['write_file']);
        case 'run_tests':
        case 'finish':
          return fail(`${name} is run by the agent loop, not by the file tools.`, `${name}: not a file tool`);
      }
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      return fail(`${name} failed: ${msg}. Nothing else was changed; check the arguments and try again.`, `${name}: error ${short(msg)}`);
    }
  }

  /**
   * A git-ignored file (`node_modules/`, `.venv/`, build output) is never part of the change: an
   * edit there would make the tests run on something the pull request does not hold.
   */
  private async ignoredRefusal(rel: string, label: string): Promise<ToolResult | null> {
    if (!this.isIgnored || !(await this.isIgnored(rel))) return null;
    return fail(
      `"${rel}" is ignored by git (.gitignore): a change there is not part of the fix, and the tests must pass on the repository's files alone. Nothing was written; change the repository's own source instead.`,
      `${label}: refused (git-ignored)`,
    );
  }

  /** Normalizes an optional directory/file scope; null path means the whole repository. */
  private scope(p: string | undefined): { ok: true; rel: string } | { ok: false; error: string } {
    if (p === undefined || p.trim() === '' || p.trim() === '.' || p.trim() === './') return { ok: true, rel: '' };
    const r = resolveRepoPath(this.root, p, this.protectedPaths, 'read');
    return r.ok ? { ok: true, rel: r.rel } : r;
  }

  private async filesUnder(rel: string): Promise<string[]> {
    const all = await this.listFilesFn();
    if (rel === '') return all;
    return all.filter((f) => f === rel || f.startsWith(rel + '/'));
  }

  /**
   * Resolves a path the model names for a file that should exist. A path that does not exist but is
   * the end of exactly one listed file's path (a bare basename, or a path missing its leading
   * directories) is resolved to that file, with a note saying so; several such files are refused
   * with the candidates listed; none gives `missing`.
   */
  private async resolveExisting(
    p: string,
    access: 'read' | 'write',
  ): Promise<{ ok: true; abs: string; rel: string; note: string } | { ok: false; error: string; missing?: boolean }> {
    const r = resolveRepoPath(this.root, p, this.protectedPaths, access);
    if (!r.ok) return r;
    if (r.rel === '' || (await statOrNull(r.abs))) return { ...r, note: '' };
    const matches = (await this.pathsEndingWith(r.rel)).filter((f) => f !== r.rel);
    if (matches.length === 1) {
      const c = resolveRepoPath(this.root, matches[0], this.protectedPaths, access);
      if (!c.ok) return c;
      return { ...c, note: `"${p}" does not exist; it was resolved to "${c.rel}", the only file whose path ends with "${r.rel}". ` };
    }
    if (matches.length > 1) {
      const shown = matches.slice(0, 10).join(', ') + (matches.length > 10 ? `, … (${matches.length - 10} more)` : '');
      return {
        ok: false,
        error: `"${p}" does not exist, and ${matches.length} files end with "${r.rel}": ${shown}. Nothing was done; call again with the full path of the one you mean.`,
      };
    }
    return { ok: false, missing: true, error: `File "${r.rel}" does not exist, and no file of the repository ends with "${r.rel}".` };
  }

  /** Listed files whose path is `rel` or ends with "/" + `rel`. */
  private async pathsEndingWith(rel: string): Promise<string[]> {
    const all = await this.listFilesFn();
    return all.filter((f) => f === rel || f.endsWith('/' + rel));
  }

  private async listFiles(args: ToolArgs['list_files']): Promise<ToolResult> {
    const sc = this.scope(args.path);
    if (!sc.ok) return fail(sc.error, `list_files ${short(args.path ?? '')}: refused`);
    let files = await this.filesUnder(sc.rel);
    const label = `list_files ${sc.rel || '.'}${args.pattern ? ` (${short(args.pattern, 40)})` : ''}`;
    if (args.pattern && args.pattern.trim() !== '') {
      const glob = args.pattern.trim().replace(/^\.\//, '');
      const isMatch = picomatch(glob, { dot: true, basename: !glob.includes('/') });
      const prefix = sc.rel ? sc.rel + '/' : '';
      files = files.filter((f) => isMatch(f) || (prefix !== '' && f.startsWith(prefix) && isMatch(f.slice(prefix.length))));
    }
    if (files.length === 0) {
      const where = sc.rel ? ` under "${sc.rel}"` : '';
      const what = args.pattern ? ` matching "${args.pattern}"` : '';
      return {
        ok: true,
        content: `No files${where}${what}. Call list_files without arguments to see the repository layout, or use search.`,
        display: `${label}: 0 files`,
      };
    }
    const shown = files.slice(0, LIST_CAP);
    let content = `${files.length} file${files.length === 1 ? '' : 's'}:\n${shown.join('\n')}`;
    if (files.length > LIST_CAP) content += `\n… and ${files.length - LIST_CAP} more; narrow with path or pattern.`;
    return { ok: true, content, display: `${label}: ${files.length} files` };
  }

  private async readFile(args: ToolArgs['read_file'], maxTokens = Number.POSITIVE_INFINITY): Promise<ToolResult> {
    const r = await this.resolveExisting(args.path, 'read');
    if (!r.ok) {
      if (r.missing) return fail(`${r.error} Use list_files or search to find the right path.`, `read_file ${short(args.path)}: not found`);
      return fail(r.error, `read_file ${short(args.path)}: refused`);
    }
    const label = `read_file ${r.rel}`;
    const st = await statOrNull(r.abs);
    if (!st) return fail(`File "${r.rel}" does not exist. Use list_files or search to find the right path.`, `${label}: not found`);
    if (st.isDirectory()) return fail(`"${r.rel || '.'}" is a directory; use list_files with path "${r.rel || '.'}" to see its files.`, `${label}: directory`);
    if (!st.isFile()) return fail(`"${r.rel}" is not a regular file.`, `${label}: not a file`);
    if (st.size > this.maxFileBytes) {
      return fail(
        `"${r.rel}" is ${st.size} bytes, over the ${this.maxFileBytes}-byte limit; it is not read. Use search with path "${r.rel}" to find the lines you need.`,
        `${label}: too large`,
      );
    }
    const buf = await fsp.readFile(r.abs);
    if (isBinary(buf)) return fail(`"${r.rel}" is a binary file; it cannot be read or edited as text.`, `${label}: binary`);
    const lines = displayLines(buf.toString('utf8'));
    const total = lines.length;
    if (total === 0) return { ok: true, content: `${r.rel} is empty (0 lines).`, display: `${label}: empty` };

    if (args.start_line === undefined && args.end_line === undefined && total > READ_MAX_LINES) {
      const focused = this.readFocus(r.rel, lines, label, maxTokens);
      if (focused) return focused;
    }
    const start = args.start_line ?? 1;
    if (start > total) {
      return fail(`"${r.rel}" has only ${total} line${total === 1 ? '' : 's'}; start_line ${start} is past the end.`, `${label}: past end`);
    }
    const requestedEnd = args.end_line ?? total;
    if (requestedEnd < start) return fail(`end_line (${requestedEnd}) is before start_line (${start}).`, `${label}: bad range`);
    let end = Math.min(requestedEnd, total, start + READ_MAX_LINES - 1);

    const width = numberWidth(end);
    const out: string[] = [];
    let bytes = 0;
    // the header and the paging note take ~60 tokens of the room
    let tokens = 60;
    let byRoom = false;
    for (let n = start; n <= end; n++) {
      const line = `${String(n).padStart(width)}| ${capLine(lines[n - 1], READ_MAX_LINE_CHARS)}`;
      bytes += Buffer.byteLength(line) + 1;
      if (bytes > READ_MAX_BYTES && out.length > 0) {
        end = n - 1;
        break;
      }
      if (Number.isFinite(maxTokens)) {
        tokens += countTokens(line) + 1;
        if (tokens > maxTokens && out.length > 0) {
          end = n - 1;
          byRoom = true;
          break;
        }
      }
      out.push(line);
    }
    let header = `${r.rel} (${total} line${total === 1 ? '' : 's'}`;
    header += buf.includes('\r\n') ? ', CRLF line endings)' : ')';
    let content = `${r.note}${header}\n${out.join('\n')}`;
    if (end < Math.min(requestedEnd, total)) {
      const page = end - start + 1;
      content += byRoom
        ? `\n[Showing lines ${start}-${end} of ${total}: a page is what fits this request's token budget (about ${Math.floor(maxTokens)} tokens). For the next page call read_file with start_line=${end + 1}, end_line=${Math.min(total, end + page)}.]`
        : `\n[Showing lines ${start}-${end} of ${total}. To read further call read_file with start_line=${end + 1}.]`;
    } else if (start > 1 || end < total) {
      content += `\n[Showing lines ${start}-${end} of ${total}.]`;
    }
    return { ok: true, content, display: `${label}:${start}-${end}` };
  }

  /** A long file read without a range: the regions that matter for the task first, within the read cap. */
  private readFocus(rel: string, lines: string[], label: string, maxTokens = Number.POSITIVE_INFINITY): ToolResult | null {
    const regions = (this.focus?.(rel) ?? []).filter((x) => x.start >= 1 && x.start <= lines.length).sort((a, b) => a.start - b.start);
    if (regions.length === 0) return null;
    const blocks: string[] = [];
    const spans: string[] = [];
    let budget = READ_MAX_LINES;
    let bytes = 0;
    for (const x of regions) {
      const from = Math.max(1, x.start - 3);
      const to = Math.min(lines.length, x.end + 3, from + budget - 1);
      if (to < from || budget <= 0) break;
      const width = numberWidth(to);
      const body: string[] = [];
      for (let n = from; n <= to; n++) body.push(`${String(n).padStart(width)}| ${capLine(lines[n - 1], READ_MAX_LINE_CHARS)}`);
      let text = body.join('\n');
      if (bytes + text.length > READ_MAX_BYTES && blocks.length > 0) break;
      if (Number.isFinite(maxTokens)) {
        const left = maxTokens - 80 - countTokens(blocks.join('\n'));
        if (left < 60 && blocks.length > 0) break;
        const cut = truncateToTokens(text, Math.max(60, left));
        if (cut !== text) {
          const kept = cut.split('\n').length;
          text = body.slice(0, kept).join('\n');
          blocks.push(`[lines ${from}-${from + kept - 1}: ${x.label}]\n${text}`);
          spans.push(`${from}-${from + kept - 1}`);
          break;
        }
      }
      bytes += text.length;
      budget -= to - from + 1;
      blocks.push(`[lines ${from}-${to}: ${x.label}]\n${text}`);
      spans.push(`${from}-${to}`);
    }
    const content = `${rel} (${lines.length} lines; the regions that matter for this task first)\n${blocks.join('\n')}\n[Shown: lines ${spans.join(', ')} of ${lines.length}. Call read_file with start_line/end_line for any other part.]`;
    return { ok: true, content, display: `${label}: focus ${spans.join(',')}` };
  }

  private async search(args: ToolArgs['search'], maxTokens = Number.POSITIVE_INFINITY): Promise<ToolResult> {
    if (args.pattern === '') return fail('The search pattern is empty; give a word or regular expression to look for.', 'search: empty pattern');
    const sc = this.scope(args.path);
    if (!sc.ok) return fail(sc.error, `search ${short(args.path ?? '')}: refused`);
    const compiled = compileSearchPattern(args.pattern);
    if (!compiled.ok) return fail(compiled.error, `search ${short(args.pattern, 40)}: unsupported pattern`);
    const { re, literal } = compiled;
    const label = `search ${short(args.pattern, 40)}${sc.rel ? ` in ${sc.rel}` : ''}`;
    const files = await this.filesUnder(sc.rel);
    const matches: string[] = [];
    let searched = 0;
    let more = false;
    let tokens = 40;
    let byRoom = false;
    outer: for (const f of files) {
      // list entries come from git, but still keep to the guard (symlinks out, .git)
      const r = resolveRepoPath(this.root, f, this.protectedPaths, 'read');
      if (!r.ok) continue;
      const st = await statOrNull(r.abs);
      if (!st || !st.isFile() || st.size > this.maxFileBytes) continue;
      let buf: Buffer;
      try {
        buf = await fsp.readFile(r.abs);
      } catch {
        continue;
      }
      if (isBinary(buf)) continue;
      searched++;
      const lines = displayLines(buf.toString('utf8'));
      for (let i = 0; i < lines.length; i++) {
        if (re.test(lines[i])) {
          if (matches.length >= SEARCH_MAX_MATCHES) {
            more = true;
            break outer;
          }
          const match = `${f}:${i + 1}: ${capLine(lines[i], SEARCH_MAX_LINE_CHARS)}`;
          if (Number.isFinite(maxTokens)) {
            tokens += countTokens(match) + 1;
            if (tokens > maxTokens && matches.length > 0) {
              more = true;
              byRoom = true;
              break outer;
            }
          }
          matches.push(match);
        }
      }
    }
    const note = literal ? ' (not a valid regular expression; searched for it literally)' : '';
    if (matches.length === 0) {
      return {
        ok: true,
        content: `No matches for ${JSON.stringify(args.pattern)}${note} in ${searched} text file${searched === 1 ? '' : 's'}${sc.rel ? ` under "${sc.rel}"` : ''}.`,
        display: `${label}: 0 matches`,
      };
    }
    let content = `${matches.length}${more ? '+' : ''} match${matches.length === 1 && !more ? '' : 'es'}${note}:\n${matches.join('\n')}`;
    if (more) content += byRoom ? `\n[Stopped after ${matches.length} matches: that is what fits this request's token budget; narrow the pattern or the path.]` : `\n[Stopped after ${SEARCH_MAX_MATCHES} matches; narrow the pattern or the path.]`;
    return { ok: true, content, display: `${label}: ${matches.length}${more ? '+' : ''} matches` };
  }

  private async editFile(args: ToolArgs['edit_file']): Promise<ToolResult> {
    const hasPair = args.old_string !== undefined || args.new_string !== undefined;
    const forms = [hasPair, args.diff !== undefined, args.edits !== undefined].filter(Boolean).length;
    if (forms > 1) {
      return fail('edit_file takes one of: old_string and new_string, diff, or edits; nothing was changed.', `edit_file ${short(args.path)}: invalid arguments`);
    }
    if (forms === 0 || (hasPair && (args.old_string === undefined || args.new_string === undefined))) {
      const missing = args.old_string === undefined ? 'old_string' : 'new_string';
      return fail(
        `Invalid arguments for edit_file: ${missing} is missing (send old_string and new_string, diff, or edits). Expected e.g. ${ARG_EXAMPLES.edit_file}.`,
        `edit_file ${short(args.path)}: invalid arguments`,
      );
    }
    const r = await this.resolveExisting(args.path, 'write');
    if (!r.ok) {
      if (r.missing) {
        return fail(
          `${r.error} Nothing was changed. Use list_files or search to find the file to edit; write_file only for a genuinely new file.`,
          `edit_file ${short(args.path)}: not found`,
        );
      }
      return fail(r.error, `edit_file ${short(args.path)}: refused`);
    }
    const label = `edit_file ${r.rel}`;
    const st = await statOrNull(r.abs);
    if (!st) return fail(`File "${r.rel}" does not exist; nothing was changed.`, `${label}: not found`);
    if (!st.isFile()) return fail(`"${r.rel || '.'}" is not a regular file; nothing was changed.`, `${label}: not a file`);
    if (st.size > this.maxFileBytes) {
      return fail(`"${r.rel}" is ${st.size} bytes, over the ${this.maxFileBytes}-byte limit; agent-fix does not edit it.`, `${label}: too large`);
    }
    const buf = await fsp.readFile(r.abs);
    if (isBinary(buf)) return fail(`"${r.rel}" is a binary file; it cannot be edited as text.`, `${label}: binary`);
    const before = buf.toString('utf8');
    const res: EditResult & { hunks?: number; count?: number } =
      args.diff !== undefined ? applyUnifiedDiff(before, args.diff) : args.edits !== undefined ? applyEdits(before, args.edits) : applyEdit(before, args.old_string!, args.new_string!);
    if (!res.ok) return fail(`${r.note}edit_file "${r.rel}": ${res.error}`, `${label}: no edit`);
    if (res.content === before) {
      return fail(`${r.note}edit_file "${r.rel}": the edit leaves the file exactly as it was; nothing was changed.`, `${label}: no change`);
    }
    if (Buffer.byteLength(res.content) > this.maxFileBytes) {
      return fail(`edit_file "${r.rel}": the result would exceed the ${this.maxFileBytes}-byte limit; nothing was changed.`, `${label}: too large`);
    }
    // The syntax check warns, never refuses: an edit is often one step of a change the model's next
    // edit completes (a block opened here, closed there), and a file left broken fails the tests at
    // finish. The warning says where, so a real slip is fixed at once.
    const ignored = await this.ignoredRefusal(r.rel, label);
    if (ignored) return ignored;
    const syntax = await syntaxGate(r.rel, before, res.content, res.line);
    await this.beforeWrite?.(r.rel);
    await fsp.writeFile(r.abs, res.content);

    const lines = displayLines(res.content);
    const insertedLines = Math.max(1, args.new_string !== undefined ? displayLines(args.new_string).length : 8);
    const from = Math.max(1, res.line - 2);
    const to = Math.min(lines.length, res.line + insertedLines - 1 + 2, from + 29);
    const snippet = lines.length
      ? numbered(lines.slice(from - 1, to).map((l) => capLine(l, READ_MAX_LINE_CHARS)), from, numberWidth(to)).join('\n')
      : '(the file is now empty)';
    const how =
      res.hunks !== undefined
        ? `${res.hunks} hunk${res.hunks === 1 ? '' : 's'} of the diff, ${RUNG_NOTE[res.rung]}`
        : res.count !== undefined
          ? `${res.count} edit${res.count === 1 ? '' : 's'}, ${RUNG_NOTE[res.rung]}`
          : RUNG_NOTE[res.rung];
    const warning = syntax.problem
      ? `\nWarning: the file now ${syntax.problem}\nIf your next edit completes this change, go on; otherwise fix it (a file that does not parse fails the tests).`
      : '';
    const form = res.hunks !== undefined ? 'diff, ' : res.count !== undefined ? `${res.count} edits, ` : '';
    return {
      ok: true,
      content: `${r.note}Edited ${r.rel} at line ${res.line} (${how})${syntax.note}. Lines ${from}-${to} now:\n${snippet}${warning}`,
      display: `${label}: ${form}${res.rung} match at line ${res.line}${syntax.problem ? ' (does not parse)' : ''}`,
      changedPath: r.rel,
    };
  }

  private async writeFile(args: ToolArgs['write_file']): Promise<ToolResult> {
    const r = resolveRepoPath(this.root, args.path, this.protectedPaths, 'write');
    if (!r.ok) return fail(r.error, `write_file ${short(args.path)}: refused`);
    const label = `write_file ${r.rel}`;
    if (r.rel === '') return fail('write_file needs a file path, not the repository root.', `${label}: refused`);
    if (args.content.includes('\0')) {
      return fail(`The content for "${r.rel}" contains NUL bytes; write_file only writes text files. Nothing was written.`, `${label}: binary content`);
    }
    const size = Buffer.byteLength(args.content);
    if (size > this.maxFileBytes) {
      return fail(`The content for "${r.rel}" is ${size} bytes, over the ${this.maxFileBytes}-byte limit. Nothing was written.`, `${label}: too large`);
    }
    const st = await statOrNull(r.abs);
    if (st && !st.isFile()) return fail(`"${r.rel}" exists and is not a regular file (a directory?). Nothing was written.`, `${label}: not a file`);
    if (!st && !/^\.[\\/]/.test(args.path.trim())) {
      // a new path that is the tail of existing files is most likely one of them named short: never duplicate it silently
      const existing = (await this.pathsEndingWith(r.rel)).filter((f) => f !== r.rel);
      if (existing.length > 0) {
        const shown = existing.slice(0, 10).join(', ') + (existing.length > 10 ? `, … (${existing.length - 10} more)` : '');
        return fail(
          `"${r.rel}" does not exist, but ${existing.length === 1 ? 'a file ends with that path' : `${existing.length} files end with that path`}: ${shown}. Nothing was written. ` +
            `To change ${existing.length === 1 ? 'it' : 'one of them'}, use edit_file (or write_file with the full path). To really create a new "${r.rel}", call write_file with path "./${r.rel}".`,
          `${label}: refused (would duplicate ${short(existing[0], 40)})`,
        );
      }
    }
    const previous = st ? await fsp.readFile(r.abs, 'utf8') : null;
    const previousLines = previous === null ? 0 : displayLines(previous).length;
    // write_file sends the whole file, never a step on the way: content that does not parse (where the file parsed better) is refused
    const syntax = await syntaxGate(r.rel, previous, args.content);
    if (syntax.problem) {
      return fail(`write_file "${r.rel}": the content ${syntax.problem}\nNothing was written. Fix the content (balanced brackets, quotes, indentation) and send it again.`, `${label}: refused (syntax error)`);
    }
    const ignored = await this.ignoredRefusal(r.rel, label);
    if (ignored) return ignored;
    await this.beforeWrite?.(r.rel);
    await fsp.mkdir(path.dirname(r.abs), { recursive: true });
    await fsp.writeFile(r.abs, args.content);
    const n = displayLines(args.content).length;
    const lines = (k: number) => `${k} line${k === 1 ? '' : 's'}`;
    const content = st
      ? `Overwrote ${r.rel} (was ${lines(previousLines)}, now ${lines(n)}, ${size} bytes)${syntax.note}.`
      : `Created ${r.rel} (${lines(n)}, ${size} bytes)${syntax.note}.`;
    return { ok: true, content, display: `${label}: ${st ? 'overwrote' : 'created'} (${lines(n)})`, changedPath: r.rel };
  }
}
