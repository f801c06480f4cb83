/**
 * The model's tools: specs (JSON Schemas the model sees) and the ToolBox that executes the
 * file tools against the working tree. Every failure is data for the model (ok: false with an
 * actionable message); nothing throws out of execute().
 *
 * run_tests and finish are executed by the agent loop; only their specs live here.
 *
 * This file is the ToolBox; tools/specs.ts (names, schemas, caps), tools/args.ts (argument
 * validation), tools/results.ts (how results are written, the syntax gate), tools/search-pattern.ts
 * (the linear-time search pattern), tools/read-focus.ts (a long file's regions that matter first).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import picomatch from 'picomatch';
import { resolveRepoPath } from '../workspace/paths.js';
import { applyEdit, applyEdits, type EditResult } from './edit-match.js';
import { applyUnifiedDiff } from './unified-diff.js';
import { countTokens } from '../context/tokens.js';
import { type ToolResult, LIST_CAP, READ_MAX_LINES, READ_MAX_BYTES, SEARCH_MAX_MATCHES, SEARCH_MAX_LINE_CHARS, DEFAULT_MAX_FILE_BYTES, READ_MAX_LINE_CHARS, TOOL_NAMES } from './tools/specs.js';
import { type ToolArgs, ARG_EXAMPLES, isToolName, validateToolArgs } from './tools/args.js';
import { fail, numbered, numberWidth, displayLines, isBinary, capLine, short, RUNG_NOTE, statOrNull, syntaxGate } from './tools/results.js';
import { compileSearchPattern } from './tools/search-pattern.js';
import { readFocus } from './tools/read-focus.js';
export { LIST_CAP, READ_MAX_LINES, READ_MAX_BYTES, SEARCH_MAX_MATCHES, SEARCH_MAX_LINE_CHARS, DEFAULT_MAX_FILE_BYTES, TOOL_SPECS, TOOL_NAMES } from './tools/specs.js';
export type { ToolResult, ToolName } from './tools/specs.js';
export { validateToolArgs } from './tools/args.js';
export type { ToolArgs } from './tools/args.js';
export { compileSearchPattern } from './tools/search-pattern.js';

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
      const focused = readFocus(this.focus?.(r.rel) ?? [], r.rel, lines, label, maxTokens);
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
