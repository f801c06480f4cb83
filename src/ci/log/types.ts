/** What the log extract is (LogExtract), what it takes (ExtractOptions), and its limits. */
import { TAP_SUMMARY_LINE } from '../../verify/runners/index.js';
import type { TestIdentity } from '../../verify/identity.js';

export interface ExtractOptions {
  /** Token budget of the rendered text (default 4000). */
  budgetTokens?: number;
  /** Repository name, to strip `/home/runner/work/<name>/<name>/` style prefixes. */
  repoName?: string;
  /** When given, a stack frame counts as a repository frame only if its path passes. */
  isRepoFile?: (path: string) => boolean;
}

/** A failing test as the log names it, with its identity (verify/identity.ts). */
export interface LogFailure {
  /** The name as the test parsers build it (`file > suite > name`, `file.py::test`, `pkg > TestX/sub`). */
  name: string;
  identity: TestIdentity;
  /** First line of its failure message, when the log shows one. */
  message?: string;
}

export interface LogExtract {
  /** Failing test names, in order of first appearance, durations removed. */
  failingTests: string[];
  /**
   * Failing tests found by the same parsers that read a local run (verify/runners/, `parseTestOutput`) on the
   * cleaned log: the identities reproduction matches against the local run's.
   */
  failures: LogFailure[];
  /** Test files reported as failing (jest `FAIL file`, go `FAIL package`). */
  failingFiles: string[];
  /**
   * Workspace packages of a monorepo whose tests failed, as the log names them: npm's banner
   * over the failing output (`> @mono/a@1.0.0 test`), `npm error workspace @mono/a@1.0.0`, or the
   * step's filtered command (`npm test -w packages/a`, `pnpm --filter a test`, `yarn workspace a
   * test`, `turbo run test --filter=a`, `nx test a`) when the job ran one package's tests.
   */
  failingPackages: string[];
  /** Compiler errors and error/assertion lines (deduplicated, first ones). */
  errors: string[];
  /** Stack frames in repository files, repo-relative (`src/cart.js:7:20`). */
  frames: string[];
  /** The rendered failure context, within the budget. */
  text: string;
  /** Estimated tokens of `text`. */
  tokens: number;
  stats: {
    lines: number;
    chars: number;
    noiseLines: number;
    blocks: number;
    blocksShown: number;
    testsShown: number;
  };
}

export const DEFAULT_BUDGET_TOKENS = 4000;
export const CHARS_PER_TOKEN = 3;
export const MAX_LINE = 2000;
export const MAX_TEST_NAME = 240;
export const BEFORE = 3;
export const AFTER = 8;
export const MAX_BLOCK_LINES = 40;
export const MAX_BLOCKS = 500;
export const MAX_ERRORS = 60;
export const MAX_FRAMES = 60;
/** The parsers read at most the last this many characters of the cleaned log (summaries come last). */
export const MAX_PARSED_CHARS = 4_000_000;
/** Lines after the last failing-test line that the parsers still read (details, the summary). */
export const PARSE_AFTER_LAST_TEST = 3000;
/** Closing lines of tape, node-tap and node's TAP reporter are not test names (as the TAP parser reads them). */
export const TAP_SUMMARY = TAP_SUMMARY_LINE;
export const NOTES_ROOM = 150;
/** Left-out lines after which an excerpt ends. */
export const GAP = 20;

/** Conservative token estimate of text (3 characters per token). */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}

// ------------------------------------------------------------------ the pass

export interface Block {
  /** 0: failing test, 1: compiler error, 2: other error. */
  priority: number;
  start: number;
  lines: string[];
  key: string;
}
