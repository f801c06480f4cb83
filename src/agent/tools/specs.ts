/** The model's tools as it sees them: names, JSON Schemas, caps. */
import type { ToolSpec } from '../../ports/llm.js';

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
export const BINARY_SNIFF_BYTES = 8192;
export const READ_MAX_LINE_CHARS = 2000;

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
