/**
 * The scripted model's script: a JSON-serializable list of canned replies, one per
 * chat-completions request, used by the tests and by the keyless `agent-fix demo`.
 *
 * ```json
 * { "label": "demo", "steps": [
 *   { "toolCalls": [{ "name": "read_file", "arguments": { "path": "src/a.js" } }] },
 *   { "content": "plain answer", "expect": { "lastMessageIncludes": "1 | export" } },
 *   { "error": { "status": 429, "headers": { "retry-after": "0" } } },
 *   { "truncated": true, "content": "cut off mid-sent" }
 * ] }
 * ```
 */
import { z } from 'zod';

const ToolCallStepSchema = z
  .object({
    /** Defaults to `call_<step>_<n>`. */
    id: z.string().min(1).optional(),
    name: z.string().min(1),
    /** An object (sent as JSON text) or a raw string sent as is, e.g. malformed JSON. */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
  })
  .strict();

const ExpectSchema = z
  .object({
    /** The last message of the request must include this text, else a mismatch is recorded. */
    lastMessageIncludes: z.string().optional(),
  })
  .strict();

const UsageSchema = z
  .object({
    promptTokens: z.number().int().nonnegative().optional(),
    completionTokens: z.number().int().nonnegative().optional(),
  })
  .strict();

const ErrorSchema = z
  .object({
    status: z.number().int().min(400).max(599),
    /** JSON body (default: an OpenAI-style `{ error: { message, type, code } }`), or raw text. */
    body: z.unknown().optional(),
    /** Message of the default body. */
    message: z.string().optional(),
    headers: z.record(z.string(), z.string()).optional(),
  })
  .strict();

export const StepSchema = z
  .object({
    toolCalls: z.array(ToolCallStepSchema).min(1).optional(),
    content: z.string().optional(),
    error: ErrorSchema.optional(),
    /** Answer with finish_reason "length". */
    truncated: z.literal(true).optional(),
    /** Answer with finish_reason "content_filter" and no content (Azure's and GitHub Models' filter on the reply). */
    filtered: z.literal(true).optional(),
    expect: ExpectSchema.optional(),
    usage: UsageSchema.optional(),
  })
  .strict()
  .superRefine((step, ctx) => {
    if (step.error) {
      for (const k of ['toolCalls', 'content', 'truncated', 'filtered', 'usage'] as const) {
        if (step[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `an error step cannot also have "${k}"` });
      }
      return;
    }
    if (step.truncated && step.content === undefined && !step.toolCalls) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'a truncated step needs "content" (or "toolCalls")' });
    }
    if (!step.toolCalls && step.content === undefined && !step.truncated && !step.filtered) {
      ctx.addIssue({ code: 'custom', message: 'a step needs one of "toolCalls", "content", "error", "truncated" or "filtered"' });
    }
  });

export const ScriptSchema = z
  .object({
    label: z.string().default('script'),
    steps: z.array(StepSchema),
  })
  .strict();

export type Script = z.input<typeof ScriptSchema>;
export type Step = z.infer<typeof StepSchema>;
export type StepKind = 'error' | 'truncated' | 'filtered' | 'tool-calls' | 'answer';

export function stepKind(step: Step): StepKind {
  if (step.error) return 'error';
  if (step.filtered) return 'filtered';
  if (step.truncated) return 'truncated';
  if (step.toolCalls) return 'tool-calls';
  return 'answer';
}

/** Validates a script; errors name the bad step (`steps[2]`) and field. */
export function parseScript(json: unknown): Script {
  const r = ScriptSchema.safeParse(json);
  if (r.success) return r.data;
  const label =
    json && typeof json === 'object' && typeof (json as { label?: unknown }).label === 'string'
      ? ` "${(json as { label: string }).label}"`
      : '';
  const problems = r.error.issues.slice(0, 5).map((issue) => {
    const [head, idx, ...rest] = issue.path.map(String);
    const where =
      head === 'steps' && idx !== undefined
        ? `steps[${idx}]${rest.length ? ` (${rest.join('.')})` : ''}`
        : issue.path.length
          ? issue.path.join('.')
          : '(script)';
    return `${where}: ${issue.message}`;
  });
  const more = r.error.issues.length > 5 ? `; and ${r.error.issues.length - 5} more` : '';
  throw new Error(`invalid model script${label}: ${problems.join('; ')}${more}`);
}
