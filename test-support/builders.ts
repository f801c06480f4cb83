/**
 * Typed builders for the values tests make by hand: test runs and the conversation's options.
 * Pure: only type imports from src/ and nothing that touches git, a process, a server or the
 * file system, so a unit test that imports this module stays a unit test (checked by
 * __tests__/unit/unit-purity.test.ts). Builders of worlds (a repository, git, the agent loop's
 * dependencies) are in loop-world.ts, for integration tests.
 */
import type { ConversationOptions } from '../src/agent/conversation.js';
import type { ToolSpec } from '../src/ports/llm.js';
import type { TestCase, TestRun, TestStatus } from '../src/verify/types.js';

/** Tests as `{ id: status }`, `[id, status]` pairs or test cases. */
export type Tests = Record<string, TestStatus> | [string, TestStatus][] | TestCase[];

/** The test cases of `tests`, in their order. */
export function testCases(tests: Tests): TestCase[] {
  if (!Array.isArray(tests)) return Object.entries(tests).map(([id, status]) => ({ id, status }));
  return tests.map((t) => (Array.isArray(t) ? { id: t[0], status: t[1] } : t));
}

/** The counts of `tests` by status. */
export function countsOf(tests: readonly TestCase[]): TestRun['counts'] {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const t of tests) counts[t.status]++;
  return counts;
}

/**
 * A test run of `npm test` that exited with `exitCode` and reported `tests` (counted), parsed
 * as jest's, 1 ms long; succeeded when the exit code is 0 and it did not time out. `over`
 * replaces any field (counts given there win over the counted ones).
 */
export function testRun(exitCode: number | null, tests: Tests = [], over: Partial<TestRun> = {}): TestRun {
  const list = testCases(tests);
  return {
    command: 'npm test',
    exitCode,
    timedOut: false,
    durationMs: 1,
    succeeded: exitCode === 0 && !over.timedOut,
    tests: list,
    counts: countsOf(list),
    parsedFrom: 'jest',
    outputTail: '',
    ...over,
  };
}

/** A run whose exit code follows its tests: 1 when one failed, else 0. */
export function runOfTests(tests: Tests, over: Partial<TestRun> = {}): TestRun {
  const list = testCases(tests);
  return testRun(list.some((t) => t.status === 'failed') ? 1 : 0, list, over);
}

/**
 * The options of a `Conversation` about fixing the cart total (agent/conversation.ts), with the
 * notes it writes collected. `tools` is the caller's `TOOL_SPECS` (a value of src/, which this
 * module does not import).
 */
export function conversationOptions(tools: readonly ToolSpec[], more: Partial<ConversationOptions> = {}): { options: ConversationOptions; notes: string[] } {
  const notes: string[] = [];
  const options: ConversationOptions = {
    first: 'Fix the cart total.',
    tools,
    limits: { maxIterations: 3, maxChangedFiles: 10, maxChangedLines: 400 },
    redact: (t) => t,
    changes: async () => '',
    note: (m) => notes.push(m),
    ...more,
  };
  return { options, notes };
}
