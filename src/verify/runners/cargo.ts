/**
 * cargo test: detected by Cargo.toml; run as given (no report is asked for); its output is
 * parsed: one block per test binary, `test path::name ... ok|FAILED|ignored` lines, failure
 * sections and `test result:` summaries.
 */
import type { TestStatus } from '../types.js';
import type { TestRunner } from './runner.js';
import { addTotals, Collector, SEP, type ParserResult, type TestTotals } from './text.js';

/**
 * `cargo test`: one block per test binary (`Running unittests src/lib.rs (...)`,
 * `Running tests/api.rs (...)`, `Doc-tests calc`), `test path::name ... ok|FAILED|ignored`
 * lines, `---- name stdout ----` failure sections, `test result:` summaries.
 * Ids: `src/lib.rs > tests::adds`, `tests/api.rs > works`, `doc-tests calc > src/lib.rs - add (line 5)`.
 */
function parseCargo(lines: string[]): ParserResult {
  const out = new Collector();
  let target = '';
  let totals: TestTotals | undefined;
  let failureOf: string | null = null;
  let failureText: string[] = [];
  const endFailure = () => {
    if (failureOf) out.setMessage(failureOf, failureText.filter((l) => l.trim() && !/^note: run with/.test(l)).join('\n'));
    failureOf = null;
    failureText = [];
  };
  for (const line of lines) {
    const running = /^\s*Running (?:unittests )?(\S+)/.exec(line);
    if (running) {
      endFailure();
      target = running[1];
      continue;
    }
    const doc = /^\s*Doc-tests (\S+)/.exec(line);
    if (doc) {
      endFailure();
      target = `doc-tests ${doc[1]}`;
      continue;
    }
    const t = /^test (.+?) \.\.\. (ok|FAILED|ignored)\b/.exec(line);
    if (t) {
      const status: TestStatus = t[2] === 'ok' ? 'passed' : t[2] === 'FAILED' ? 'failed' : 'skipped';
      out.add(target ? `${target}${SEP}${t[1]}` : t[1], status);
      continue;
    }
    const section = /^---- (.+?) stdout ----$/.exec(line);
    if (section) {
      endFailure();
      failureOf = target ? `${target}${SEP}${section[1]}` : section[1];
      continue;
    }
    const result = /^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored/.exec(line);
    if (result) {
      endFailure();
      totals = addTotals(totals, { passed: Number(result[1]), failed: Number(result[2]), skipped: Number(result[3]) });
      continue;
    }
    if (failureOf) {
      if (/^failures:\s*$/.test(line)) endFailure();
      else failureText.push(line);
    }
  }
  endFailure();
  const res: ParserResult = { tests: out.list(), parsedFrom: 'cargo' };
  if (totals) res.totals = totals;
  return res;
}

export const cargo: TestRunner = {
  id: 'cargo',
  stack: 'rust',
  parsedFrom: 'cargo',
  invokedBy: (c) => /^cargo\s+test\b/.test(c),
  detect: async ({ exists }) => ((await exists('Cargo.toml')) ? { setup: null, test: 'cargo test', reason: 'Cargo.toml' } : null),
  output: [
    {
      kind: 'lines',
      detect: (t) => /^test result: (?:ok|FAILED)\. \d+ passed;/m.test(t) || /^test \S+ \.\.\. (?:ok|FAILED|ignored)$/m.test(t),
      parse: parseCargo,
    },
  ],
};
