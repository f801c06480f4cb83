/**
 * A test command's output is parsed whole up to TEST_OUTPUT_CAP (src/fix/workbench.ts): a large
 * suite's verbose listing (here 6,000 vitest lines, ~475,000 characters, as a pnpm monorepo's
 * `vitest --reporter=verbose` prints) keeps every test id, the ones in the middle included. The
 * control runs the same command under the cap used before (400,000): the shell drops the middle,
 * and with it the ids a fail-to-pass proof needs (how valibot-ff9348ab's real fix was refused).
 * Real command through the real shell adapter, real parser.
 */
import { makeShell } from '../../src/adapters/shell.js';
import { childEnv } from '../../src/verify/env.js';
import { toTestRun } from '../../src/verify/test-run.js';
import { SETUP_OUTPUT_CAP, TEST_OUTPUT_CAP } from '../../src/fix/workbench.js';
import { Redactor } from '../../src/redact.js';

const TESTS = 6000;
// in the part the old cap dropped: past its head (the first 20 %), before its tail (the last 80 %)
const MIDDLE = `test/file${TESTS / 4}.test.ts > partialCheck > keeps the issue of entry ${TESTS / 4}`;
const PRINT = [
  'const lines = [" RUN  v3.2.4 /repo", ""];',
  `for (let i = 0; i < ${TESTS}; i++) lines.push(" \\u2713 test/file" + i + ".test.ts > partialCheck > keeps the issue of entry " + i + " 1ms");`,
  `lines.push("", " Test Files  ${TESTS} passed (${TESTS})", "      Tests  ${TESTS} passed (${TESTS})", "");`,
  'process.stdout.write(lines.join("\\n"));',
].join(' ');

async function listing(maxOutputChars: number) {
  const r = await makeShell().run(`node -e '${PRINT}'`, { cwd: process.cwd(), timeoutMs: 60_000, env: childEnv(process.env), maxOutputChars });
  expect(r.exitCode).toBe(0);
  return toTestRun(r, new Redactor([]));
}

test('a verbose listing of 6,000 tests is read whole: every id, the middle one included', async () => {
  const run = await listing(TEST_OUTPUT_CAP);
  expect(run.parsedFrom).toBe('vitest');
  expect(run.tests).toHaveLength(TESTS);
  expect(run.tests.find((t) => t.id === MIDDLE)?.status).toBe('passed');
  expect(run.counts).toEqual({ passed: TESTS, failed: 0, skipped: 0 });
});

test('control: under the old 400,000-character cap (still the setup cap) the middle ids are lost, only the summary counts them', async () => {
  expect(SETUP_OUTPUT_CAP).toBe(400_000);
  const run = await listing(SETUP_OUTPUT_CAP);
  expect(run.tests.length).toBeLessThan(TESTS);
  expect(run.tests.find((t) => t.id === MIDDLE)).toBeUndefined();
  expect(run.counts.passed).toBe(TESTS);
});
