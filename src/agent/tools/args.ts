/** A tool call's arguments validated (zod), with an example the model can copy when they are wrong. */
import { z } from 'zod';
import { type ToolName, TOOL_NAMES } from './specs.js';

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

export const ARG_EXAMPLES: Record<ToolName, string> = {
  list_files: '{"path": "src", "pattern": "*.ts"}',
  read_file: '{"path": "src/index.ts", "start_line": 1, "end_line": 200}',
  search: '{"pattern": "parseConfig\\\\(", "path": "src"}',
  edit_file: '{"path": "src/a.ts", "old_string": "return a - b;", "new_string": "return a + b;"}',
  write_file: '{"path": "src/new.ts", "content": "export const x = 1;\\n"}',
  run_tests: '{}',
  finish: '{"summary": "Fixed the off-by-one in parseRange and added a test."}',
};

export function isToolName(name: string): name is ToolName {
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
