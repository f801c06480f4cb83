/**
 * Failure context from a GitHub Actions job log, within a size budget. Pure.
 *
 * One linear pass over the log, line by line (no regex ever sees more than one line, and
 * lines are cut at MAX_LINE characters first, so no pattern can backtrack across the log):
 *
 * 1. clean: the byte-order mark, the runner's timestamp prefix (`2024-05-14T10:21:33.1234567Z `),
 *    ANSI escapes, carriage-return progress redraws, and runner noise (`##[group]` markers,
 *    debug lines, checkout and package-manager chatter, `Process completed with exit code`);
 * 2. recognise: failing test names (jest, vitest, node:test spec and TAP, mocha, pytest, go,
 *    cargo, rspec, gradle, maven surefire, dotnet test, phpunit), compiler and lint errors
 *    (tsc, gcc/clang/go `file:line:col: error`, rustc, eslint), error
 *    and assertion lines, and stack frames, kept only when they point into repository files
 *    (the runner's workspace prefix `/home/runner/work/<repo>/<repo>/` is removed);
 * 3. keep: a few lines around each of those (the assertion message after a test header, the
 *    code frame after a compiler error), as numbered blocks with a priority;
 * 4. render within the budget: every failing test name first (the thing a fix must make
 *    pass), then error lines, repository frames, and the blocks by priority and position.
 *
 * Tokens are estimated conservatively at 3 characters per token (logs are symbol-heavy).
 *
 * This file is the extract as a whole; log/clean.ts (step 1), log/recognise.ts (step 2),
 * log/pass.ts (the pass and what it has seen: a LogPass), log/render.ts (step 4), log/packages.ts
 * (monorepo packages, the local-run parsers on the log), log/types.ts.
 */
import { identityOf, matchIdentity } from '../verify/identity.js';
import { type ExtractOptions, type LogExtract, DEFAULT_BUDGET_TOKENS, CHARS_PER_TOKEN, MAX_LINE, NOTES_ROOM, estimateTokens } from './log/types.js';
import { parsedFailures } from './log/packages.js';
import { LogPass } from './log/pass.js';
import { render } from './log/render.js';
export { DEFAULT_BUDGET_TOKENS, estimateTokens } from './log/types.js';
export type { ExtractOptions, LogFailure, LogExtract } from './log/types.js';
export { cleanLine, isNoise, stripWorkspace } from './log/clean.js';
export { stripDuration, classify, isPassingLine, isRepoPath } from './log/recognise.js';
export type { LineKind } from './log/recognise.js';
export { filteredPackages } from './log/packages.js';

export function extractFailure(log: string, opts: ExtractOptions = {}): LogExtract {
  // Room is kept for the closing notes ("… and N more").
  const budget = Math.max(200, Math.floor(opts.budgetTokens ?? DEFAULT_BUDGET_TOKENS)) * CHARS_PER_TOKEN - NOTES_ROOM;
  const pass = new LogPass(opts);
  const text = log.charCodeAt(0) === 0xfeff ? log.slice(1) : log;
  let pos = 0;
  const n = text.length;
  while (pos < n) {
    let end = text.indexOf('\n', pos);
    if (end < 0) end = n;
    // Cut very long lines before anything else looks at them.
    pass.line(end - pos > MAX_LINE + 40 ? text.slice(pos, pos + MAX_LINE + 40) : text.slice(pos, end));
    pos = end + 1;
  }
  const { tests, tapPoints, packages, filtered, errors, files, frames, blocks, lines, noise } = pass;

  const failures = parsedFailures(pass.cleaned, pass.lastTestLine);
  // In order of first appearance; a name the parsers also found is shown in their form (the
  // tape test rather than its assertion, the full path); then what only the parsers found.
  const failingTests: string[] = [];
  const used = new Set<number>();
  const ids = failures.map((f) => f.identity);
  for (const name of tests) {
    const id = identityOf(name);
    const m = failures.length ? matchIdentity(id, ids) : null;
    // A TAP point the parsers did not take for a failing test is a node-tap assertion inside a
    // failing subtest (`not ok 1 - should be equal`) or the parent of one (`not ok 5 - nested`).
    if (!m && failures.length && tapPoints.has(name)) continue;
    const shown = m ? m.index.map((i) => failures[i].name) : [name];
    if (m) for (const i of m.index) used.add(i);
    for (const s of shown) if (!failingTests.includes(s)) failingTests.push(s);
  }
  failures.forEach((f, i) => {
    if (!used.has(i) && !failingTests.includes(f.name)) failingTests.push(f.name);
  });
  // a job that ran one package's tests: its failures are that package's
  const failingPackages = packages.size ? [...packages] : (failingTests.length || errors.size) && filtered.size === 1 ? [...filtered] : [];
  const result = render(
    { failingTests, failingFiles: [...files], failingPackages, errors: [...errors], frames: [...frames], blocks },
    budget,
  );
  return {
    failingTests,
    failures,
    failingFiles: [...files],
    failingPackages,
    errors: [...errors],
    frames: [...frames],
    text: result.text,
    tokens: estimateTokens(result.text),
    stats: { lines, chars: n, noiseLines: noise, blocks: blocks.length, blocksShown: result.blocksShown, testsShown: result.testsShown },
  };
}
