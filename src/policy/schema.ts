/**
 * The repository policy, `.github/agent-fix.yml`: who may trigger agent-fix, which commands
 * run, which paths the model may change, how large a change may be, what a run may spend,
 * and how model-written code is isolated. Pure: text in, a typed `Policy` or a
 * `PolicyError` naming every bad field out.
 *
 * The file is read from the default branch through the API (policy/load.ts), never from
 * the working tree, which a pull request can change.
 */
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import type { Permission } from '../ports/github.js';
import { errorMessage } from '../errors.js';

export const POLICY_PATH = '.github/agent-fix.yml';

export const PERMISSION_ORDER: readonly Permission[] = ['none', 'read', 'triage', 'write', 'maintain', 'admin'];

/** USD per million tokens. */
const PriceSchema = z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }).strict();

const login = z.string().regex(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?$/, 'must be a GitHub login such as "octocat" or "renovate[bot]"');
const team = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]*\/[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be "org/team-slug"');
const glob = z
  .string()
  .min(1)
  .refine((s) => !s.includes('\0') && !/[\r\n]/.test(s), 'must be one glob pattern on one line');
const command = z.string().min(1).max(2000).refine((s) => !s.includes('\0'), 'must not contain NUL');

export const PolicySchema = z
  .object({
    version: z.literal(1).default(1),
    triggers: z
      .object({
        'min-permission': z.enum(['read', 'triage', 'write', 'maintain', 'admin']).default('write'),
        /** When non-empty, only these people (or members of `allowed-teams`) may trigger. */
        'allowed-users': z.array(login).default([]),
        'allowed-teams': z.array(team).default([]),
        /** Bots that may trigger (they are ignored otherwise, to avoid loops). agent-fix's own account never can. */
        'allowed-bots': z.array(login).default([]),
        /**
         * Removed: a fork's failed run is never acted on (its code is never checked out or run with
         * this repository's token; it gets a report-only step summary). `false` is accepted, `true` refused.
         */
        'fork-ci': z
          .boolean()
          .optional()
          .refine((v) => v !== true, "was removed: agent-fix never checks out or runs a fork's code with this repository's token (a fork's failed run gets a report-only step summary); delete the key"),
      })
      .strict()
      .default({ 'min-permission': 'write', 'allowed-users': [], 'allowed-teams': [], 'allowed-bots': [] }),
    commands: z
      .object({ setup: command.optional(), test: command.optional() })
      .strict()
      .default({}),
    paths: z
      .object({
        /** When non-empty, the model may change only files matching one of these globs. */
        allowed: z.array(glob).default([]),
        /** Never changed (added to `.github/workflows/**` and `.git/**`, which always are). */
        forbidden: z.array(glob).default([]),
      })
      .strict()
      .default({ allowed: [], forbidden: [] }),
    limits: z
      .object({
        'max-changed-files': z.number().int().min(1).max(1000).optional(),
        'max-changed-lines': z.number().int().min(1).max(100000).optional(),
        'max-iterations': z.number().int().min(1).max(50).optional(),
      })
      .strict()
      .default({}),
    budgets: z
      .object({
        'max-tokens': z.number().int().min(1000).optional(),
        'max-cost-usd': z.number().positive().max(10000).optional(),
        'max-minutes': z.number().int().min(1).max(360).optional(),
        /** Per-model prices in USD per million tokens, overriding the built-in table. */
        prices: z.record(z.string().min(1), PriceSchema).default({}),
      })
      .strict()
      .default({ prices: {} }),
    gate: z
      .object({
        /**
         * A fix that changes what an existing test expects, proven by the tests (the old test
         * passes on the original code, the edited one fails there and passes with the fix):
         * `draft` accepted, listed on the report's first screen, the pull request a draft;
         * `ready` accepted and listed, the pull request as the `draft` input says; `forbid` refused.
         */
        'changed-expectations': z.enum(['draft', 'ready', 'forbid']).default('draft'),
        /**
         * A change that makes the tests pass by gaming them (special-casing the failing tests'
         * values, detecting the test run, reading the tests, exiting early, replacing the
         * assertions): `draft` the model is told once, and a final change that still does is a
         * draft pull request never called fixed; `refuse` refused at every attempt, never published.
         */
        gaming: z.enum(['draft', 'refuse']).default('draft'),
      })
      .strict()
      .default({ 'changed-expectations': 'draft', gaming: 'draft' }),
    sandbox: z
      .object({
        /** Network for the setup command (installing dependencies usually needs it). */
        'setup-network': z.boolean().default(true),
        /** Network for the test runs (model-written code): off by default. */
        'test-network': z.boolean().default(false),
        /** Fail the run when network isolation is unavailable instead of running without it. */
        'require-isolation': z.boolean().default(false),
        /** Address-space limit of each command, in MiB (0: none). */
        'memory-mb': z.number().int().min(0).max(1_048_576).default(0),
        /**
         * Refuse to run the repository's commands without the sandbox (user, PID, mount and network
         * namespaces, no capabilities): always, only on GitHub-hosted runners (where it must work), or never.
         */
        'require-sandbox': z.enum(['always', 'github-hosted', 'never']).default('github-hosted'),
      })
      .strict()
      .default({ 'setup-network': true, 'test-network': false, 'require-isolation': false, 'memory-mb': 0, 'require-sandbox': 'github-hosted' }),
  })
  .strict();

export type Policy = z.infer<typeof PolicySchema>;

export class PolicyError extends Error {
  override readonly name = 'PolicyError';
  constructor(
    /** One sentence per problem, each naming the field. */
    readonly problems: string[],
    readonly source: string,
  ) {
    super(`Invalid ${source}: ${problems.length === 1 ? problems[0] : `\n- ${problems.join('\n- ')}`}`);
  }
}

export const DEFAULT_POLICY: Policy = PolicySchema.parse({});

function fieldName(path: PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out || '(top level)';
}

/** Parses the YAML text of a policy file. Empty text is the default policy. */
export function parsePolicy(text: string, source = POLICY_PATH): Policy {
  let raw: unknown;
  try {
    raw = parseYaml(text, { maxAliasCount: 100 });
  } catch (e) {
    throw new PolicyError([`it is not valid YAML: ${errorMessage(e).split('\n')[0]}`], source);
  }
  if (raw === null || raw === undefined) return DEFAULT_POLICY;
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new PolicyError(['the file must be a YAML mapping (key: value)'], source);
  const r = PolicySchema.safeParse(raw);
  if (r.success) return r.data;
  const problems = r.error.issues.slice(0, 10).map((issue) => {
    const field = fieldName(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const keys = (issue as { keys?: string[] }).keys ?? [];
      const where = issue.path.length ? ` in "${field}"` : '';
      return `unknown field${keys.length > 1 ? 's' : ''} ${keys.map((k) => `"${k}"`).join(', ')}${where}`;
    }
    return `field "${field}": ${issue.message}`;
  });
  throw new PolicyError(problems, source);
}

/** Does `have` reach `min`? */
export function permissionAtLeast(have: Permission, min: Permission): boolean {
  return PERMISSION_ORDER.indexOf(have) >= PERMISSION_ORDER.indexOf(min);
}
