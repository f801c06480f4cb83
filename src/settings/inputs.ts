/**
 * Reads and validates the action inputs (see action.yml) into one typed `SettingsInput`.
 *
 * `getInput` is injected (in the action it is `@actions/core.getInput`, in the CLI a
 * lookup in the parsed flags), so this module stays pure. An empty string means "not
 * given": the field stays absent, and `resolveSettings` (settings/resolve.ts) applies the
 * documented default, exactly as action.yml does. No default is applied here.
 *
 * Every problem is reported at once, each naming the input, the bad value (never the
 * value of a secret input) and what is expected.
 */
import { z } from 'zod';
import { parse as parseYaml } from 'yaml';
import type { Mode, SettingsInput } from './types.js';
import { ALWAYS_PROTECTED } from '../workspace/paths.js';
import { CandidateIdSchema } from '../bundle/schema.js';

export class SettingsError extends Error {
  /** One sentence per invalid input. */
  readonly problems: string[];

  constructor(problems: string[]) {
    super(problems.length === 1 ? problems[0] : `Invalid inputs:\n- ${problems.join('\n- ')}`);
    this.name = 'SettingsError';
    this.problems = problems;
  }
}

/** Named in the settings (and so in the report); the path guard adds `.git/**` too (workspace/paths.ts ALWAYS_PROTECTED). */
const WORKFLOWS = ALWAYS_PROTECTED[0];

/** Categories of test changes the test-integrity guard refuses (see docs/test-intelligence.md). */
export const TEST_INTEGRITY_CATEGORIES = ['delete-test', 'remove-test', 'skip', 'assertion', 'snapshot', 'timeout', 'config'] as const;

/** Inputs whose values must never appear in a message. */
const SECRET_INPUTS = new Set(['github-token', 'api-key']);

interface Field<T> {
  input: string;
  schema: z.ZodType<T>;
  /** Completes "Input "x" must be ...". */
  expected: string;
}

/** `true` / `false`, any case. */
function trueOrFalse() {
  return z
    .string()
    .transform((s) => s.toLowerCase())
    .pipe(z.enum(['true', 'false']))
    .transform((s) => s === 'true');
}

const wholeNumber = (min: number, max: number) =>
  z
    .string()
    .regex(/^\+?\d+$/)
    .transform((s) => Number(s))
    .pipe(z.number().int().min(min).max(max));

const token = z.string().regex(/^[\x21-\x7e]+$/);

const fields = {
  baseUrl: {
    input: 'base-url',
    schema: z
      .string()
      .refine((s) => {
        try {
          const u = new URL(s);
          return (u.protocol === 'https:' || u.protocol === 'http:') && u.hostname !== '';
        } catch {
          return false;
        }
      })
      .transform((s) => s.replace(/\/+$/, '')),
    expected: 'an http(s) URL of an OpenAI-compatible API, such as "https://models.github.ai/inference"',
  },
  model: {
    input: 'model',
    schema: z.string().regex(/^[^\s]{1,200}$/),
    expected: 'a model name without spaces, such as "openai/gpt-4.1"',
  },
  label: {
    input: 'label',
    // GitHub labels are at most 50 characters.
    schema: z.string().min(1).max(50).refine((s) => !/[\r\n]/.test(s)),
    expected: 'a label name of 1 to 50 characters on one line',
  },
  maxIterations: { input: 'max-iterations', schema: wholeNumber(1, 50), expected: 'a whole number from 1 to 50' },
  maxChangedFiles: { input: 'max-changed-files', schema: wholeNumber(1, 1000), expected: 'a whole number from 1 to 1000' },
  maxChangedLines: { input: 'max-changed-lines', schema: wholeNumber(1, 100000), expected: 'a whole number from 1 to 100000' },
  commandTimeoutMinutes: {
    input: 'command-timeout-minutes',
    // A GitHub-hosted job runs at most 6 hours.
    schema: wholeNumber(1, 360),
    expected: 'a whole number of minutes from 1 to 360',
  },
  maxTokens: { input: 'max-tokens', schema: wholeNumber(0, 1_000_000_000), expected: 'a whole number of tokens (0: no cap)' },
  maxCostUsd: {
    input: 'max-cost-usd',
    schema: z
      .string()
      .regex(/^\+?\d+(\.\d+)?$/)
      .transform((s) => Number(s))
      .pipe(z.number().min(0).max(10000)),
    expected: 'a number of US dollars from 0 (no cap) to 10000, such as "2.50"',
  },
  maxRunMinutes: { input: 'max-run-minutes', schema: wholeNumber(0, 360), expected: 'a whole number of minutes from 0 (no cap) to 360' },
  modelPrices: {
    input: 'model-prices',
    schema: z
      .string()
      .transform((s, ctx) => {
        try {
          return parseYaml(s) as unknown;
        } catch {
          ctx.addIssue({ code: 'custom', message: 'not YAML/JSON' });
          return z.NEVER;
        }
      })
      .pipe(z.record(z.string().min(1), z.object({ input: z.number().nonnegative(), output: z.number().nonnegative() }).strict())),
    expected: 'a YAML or JSON mapping of model name to USD per million tokens, such as {"my-model": {"input": 1, "output": 4}}',
  },
  draft: {
    input: 'draft',
    schema: trueOrFalse(),
    expected: 'true or false',
  },
  contextTokens: { input: 'context-tokens', schema: wholeNumber(0, 1_000_000), expected: 'a whole number of tokens (0: no repository context in the first request)' },
  maxInputTokens: {
    input: 'max-input-tokens',
    schema: wholeNumber(1000, 10_000_000),
    expected: "a whole number of tokens from 1000, the endpoint's input limit per request (GitHub Models' free use: 8000), or empty for the default",
  },
  maxOutputTokens: {
    input: 'max-output-tokens',
    schema: wholeNumber(0, 1_000_000),
    expected: "a whole number of tokens (the reply's cap per request; GitHub Models' free use allows 4000; 0: the endpoint's default), or empty for the default",
  },
  requestsPerMinute: {
    input: 'requests-per-minute',
    schema: wholeNumber(0, 100_000),
    expected: 'a whole number of model requests per minute to pace to (0: no pacing without rate-limit headers), or empty for the default',
  },
  feedbackTokens: { input: 'feedback-tokens', schema: wholeNumber(200, 100000), expected: 'a whole number of tokens from 200 to 100000' },
  closeOnIssueClose: { input: 'close-on-issue-close', schema: trueOrFalse(), expected: 'true or false' },
  relatedTestsFirst: {
    input: 'related-tests-first',
    schema: trueOrFalse(),
    expected: 'true or false',
  },
  preexistingFailures: {
    input: 'preexisting-failures',
    schema: z
      .string()
      .transform((s) => s.trim().toLowerCase())
      .pipe(z.enum(['allow', 'block'])),
    expected: 'allow or block',
  },
  testIntegrityAllow: {
    input: 'test-integrity-allow',
    schema: z
      .string()
      .transform((s) => [...new Set(s.split(/[\s,]+/).map((x) => x.trim().toLowerCase()).filter(Boolean))])
      .pipe(z.array(z.enum([...TEST_INTEGRITY_CATEGORIES, 'all', 'none']))),
    expected: `a comma-separated list of ${TEST_INTEGRITY_CATEGORIES.join(', ')}, or all, or none`,
  },
  mode: {
    input: 'mode',
    schema: z
      .string()
      .transform((s) => s.toLowerCase())
      .pipe(z.enum(['run', 'propose', 'publish'])),
    expected: 'run (one job fixes and publishes), propose (fix and write a bundle, read-only) or publish (publish the best bundle, no model)',
  },
  candidate: {
    input: 'candidate',
    schema: CandidateIdSchema,
    expected: '1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, such as "1" or "${{ matrix.candidate }}"',
  },
  bundles: {
    input: 'bundles',
    schema: z.string().refine((s) => !s.includes('\0') && !/[\r\n]/.test(s)),
    expected: 'a directory path on one line',
  },
  command: {
    input: '', // set per use
    schema: z.string().refine((s) => !s.includes('\0')),
    expected: 'a shell command (or empty to detect it from the repository)',
  },
} satisfies Record<string, Field<unknown>>;

function describeValue(input: string, raw: string): string {
  if (SECRET_INPUTS.has(input)) return 'the value is secret and not shown';
  const shown = raw.length > 80 ? `${raw.slice(0, 80)}…` : raw;
  return `got ${JSON.stringify(shown)}`;
}

/** Splits a newline- or comma-separated list of globs; trims, drops empties and leading `./`, dedupes. */
export function parseGlobList(raw: string): string[] {
  const out: string[] = [];
  for (const part of raw.split(/[\r\n,]+/)) {
    let glob = part.trim();
    while (glob.startsWith('./')) glob = glob.slice(2);
    if (glob.startsWith('/')) glob = glob.replace(/^\/+/, '');
    if (glob !== '' && !out.includes(glob)) out.push(glob);
  }
  return out;
}

/** Splits a newline- or comma-separated list of names (workflow names); trims, drops empties, dedupes. */
export function parseNameList(raw: string): string[] {
  const out: string[] = [];
  for (const part of raw.split(/[\r\n,]+/)) {
    const name = part.trim();
    if (name !== '' && !out.includes(name)) out.push(name);
  }
  return out;
}

/** Who reads the settings: the action (inputs) or the CLI (flags and environment). */
export interface ReadOptions {
  /** How a problem names the setting: `Input "max-iterations"` (default) or the CLI's `--max-iterations`. */
  name?: (input: string) => string;
  /** The action needs a GitHub token; the CLI does not talk to GitHub. Default true. */
  requireGithubToken?: boolean;
}

/**
 * The one settings reader, for the action (`getInput` = @actions/core.getInput) and for the CLI
 * (`getInput` = a lookup in the parsed flags and the environment, with the CLI's defaults).
 */
export function readSettings(getInput: (name: string) => string, opts: ReadOptions = {}): SettingsInput {
  const problems: string[] = [];
  const named = opts.name ?? ((input: string) => `Input "${input}"`);
  const read = (name: string): string => {
    const v = getInput(name);
    return typeof v === 'string' ? v.trim() : '';
  };

  /** The parsed value; undefined when not given (or invalid: then a problem is recorded). */
  function parse<T>(field: Field<T>, input = field.input): T | undefined {
    const raw = read(input);
    if (raw === '') return undefined;
    const result = field.schema.safeParse(raw);
    if (result.success) return result.data;
    problems.push(`${named(input)} must be ${field.expected} (${describeValue(input, raw)}).`);
    return undefined;
  }
  const minutes = (m: number | undefined) => (m === undefined ? undefined : m * 60_000);

  const mode = parse<Mode>(fields.mode);
  // Secrets: validated without ever echoing them.
  let githubToken = read('github-token');
  if (githubToken === '' && opts.requireGithubToken !== false) {
    problems.push(
      'Input "github-token" is required: pass `github-token: ${{ secrets.GITHUB_TOKEN }}` (or another token), ' +
        'or give the job `permissions` (contents: write, issues: write, pull-requests: write) so the default token can be used.',
    );
  } else if (githubToken !== '' && !token.safeParse(githubToken).success) {
    problems.push(`${named('github-token')} must be a token without spaces or line breaks (the value is secret and not shown).`);
    githubToken = '';
  }
  let apiKey = read('api-key');
  if (apiKey !== '' && !token.safeParse(apiKey).success) {
    problems.push(`${named('api-key')} must be an API key without spaces or line breaks${opts.requireGithubToken === false ? '' : ', or empty to use github-token'} (the value is secret and not shown).`);
    apiKey = '';
  }

  const candidate = parse<string>(fields.candidate);
  const bundles = parse<string>(fields.bundles);
  if (mode === 'publish' && bundles === undefined) {
    problems.push(
      'Input "bundles" is required with mode: publish: the directory the propose jobs\' bundles were downloaded to ' +
        '(actions/download-artifact with `pattern: agent-fix-bundle-*`, `merge-multiple: true` and the same `path`).',
    );
  }

  // Parsed in the order the problems are listed.
  const baseUrl = parse(fields.baseUrl);
  const model = parse(fields.model);
  const maxInputTokens = parse(fields.maxInputTokens);
  const testCommand = parse(fields.command, 'test-command');
  const setupCommand = parse(fields.command, 'setup-command');
  const label = parse(fields.label);
  const maxIterations = parse(fields.maxIterations);
  const maxChangedFiles = parse(fields.maxChangedFiles);
  const maxChangedLines = parse(fields.maxChangedLines);
  const draft = parse(fields.draft);
  const commandTimeoutMs = minutes(parse(fields.commandTimeoutMinutes));
  const protectedPaths = [WORKFLOWS, ...parseGlobList(read('protected-paths')).filter((g) => g !== WORKFLOWS)];
  const budget = { maxTokens: parse(fields.maxTokens), maxCostUsd: parse(fields.maxCostUsd), maxWallMs: minutes(parse(fields.maxRunMinutes)), prices: parse(fields.modelPrices) };
  const contextTokens = parse(fields.contextTokens);
  const feedbackTokens = parse(fields.feedbackTokens);
  const maxOutputTokens = parse(fields.maxOutputTokens);
  const requestsPerMinute = parse(fields.requestsPerMinute);
  const relatedTestsFirst = parse(fields.relatedTestsFirst);
  const preexistingFailures = parse<'allow' | 'block'>(fields.preexistingFailures);
  const testIntegrityAllow = parse<string[]>(fields.testIntegrityAllow)?.filter((c) => c !== 'none');
  const workflows = read('workflows');
  const closeOnIssueClose = parse(fields.closeOnIssueClose);
  const given: SettingsInput = {
    githubToken,
    // publish runs no model: no key is needed, and the token is not handed to one
    apiKey: mode === 'publish' ? '' : apiKey === '' ? githubToken : apiKey,
    baseUrl,
    model,
    testCommand,
    setupCommand,
    label,
    maxIterations,
    maxChangedFiles,
    maxChangedLines,
    draft,
    commandTimeoutMs,
    protectedPaths,
    budget,
    contextTokens,
    maxInputTokens,
    feedbackTokens,
    maxOutputTokens,
    requestsPerMinute,
    relatedTestsFirst,
    preexistingFailures,
    testIntegrityAllow,
    workflows: workflows === '' ? undefined : parseNameList(workflows),
    closeOnIssueClose,
    mode,
    candidate,
    bundles,
  };

  if (problems.length > 0) throw new SettingsError(problems);
  return withoutAbsent(given);
}

/** Drops the fields (and budget caps) that were not given, so an absent input is absent, not `undefined`. */
function withoutAbsent(input: SettingsInput): SettingsInput {
  const drop = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
  const budget = input.budget && drop(input.budget);
  return drop({ ...input, budget: budget && Object.keys(budget).length > 0 ? budget : undefined });
}
