import { cell, codeCell, commentMarker, describeRun, escapeMarkdown, GITHUB_BODY_LIMIT, renderFinalComment, renderPrBody, renderReportMarkdown, renderStartComment, renderTerminal, truncateMarkdown } from '../../src/report/render.js';
import type { RunReport } from '../../src/fix/types.js';
import { run } from '../../test-support/sample-reports.js';


const base: RunReport = {
  status: 'fixed',
  reason: 'verified',
  detail: 'The test command `npm test` failed before and passes now, and nothing that passed before fails.',
  task: { key: 'issue-7', title: 'Cart total is wrong', goal: '...', issueNumber: 7 },
  model: 'openai/gpt-4.1',
  setupCommand: 'npm ci',
  testCommand: 'npm test',
  baseline: run({ exitCode: 1, succeeded: false, counts: { passed: 2, failed: 2, skipped: 0 } }),
  final: run({}),
  summary: 'Multiply price by quantity.',
  iterations: 2,
  maxIterations: 5,
  attempts: [
    { iteration: 1, summary: 'half', verdict: { ok: false, newlyFailing: [], nowPassing: ['a'], stillFailing: ['b'], summary: '2 failing → 1 failing' }, changedFiles: ['src/cart.js'], rolledBack: false },
    { iteration: 2, summary: 'all', verdict: { ok: true, newlyFailing: [], nowPassing: ['a', 'b'], stillFailing: [], summary: '2 failing → 0 failing' }, changedFiles: ['src/cart.js'], rolledBack: false },
  ],
  changes: [{ path: 'src/cart.js', status: 'modified', additions: 2, deletions: 2, binary: false }],
  diff: 'diff --git a/src/cart.js b/src/cart.js\n-old\n+new\n',
  usage: { promptTokens: 1000, completionTokens: 200, requests: 7 },
  durationMs: 4500,
  runUrl: 'https://github.com/o/r/actions/runs/1',
};

test('describeRun says pass/FAIL, the exit and the counts, or that nothing was parsed', () => {
  expect(describeRun(base.baseline)).toBe('FAIL (exit 1; 2 passed, 2 failed)');
  expect(describeRun(run({ timedOut: true, succeeded: false, exitCode: null }))).toBe('FAIL (timed out; 4 passed, 0 failed)');
  expect(describeRun(run({ parsedFrom: 'none' }))).toBe('pass (exit 0; no per-test results parsed)');
  expect(describeRun(null)).toBe('not run');
});

test('the PR body, as a whole: first screen = outcome, evidence table, diff stats; the rest folded', () => {
  expect(renderPrBody({ ...base, branch: 'agent-fix/issue-7' })).toBe(
    [
      '<!-- agent-fix:issue-7 -->',
      'Fixes #7. Opened by agent-fix for a human to review; it is not merged automatically.',
      '',
      '### agent-fix: Fixed: the tests confirm it',
      '',
      'The test command `npm test` failed before and passes now, and nothing that passed before fails.',
      '',
      '| test | before | after |',
      '| --- | --- | --- |',
      '| `a` | FAIL | pass |',
      '| `b` | FAIL | pass |',
      '| whole command `npm test` | FAIL (exit 1; 2 passed, 2 failed) | pass (exit 0; 4 passed, 0 failed) |',
      '',
      '**1 file changed**, +2 −2: `src/cart.js` (+2 −2)',
      '',
      '<details><summary>Test report</summary>',
      '',
      "The harness ran these commands itself; the model's word is not evidence.",
      '',
      '| | command | result |',
      '| --- | --- | --- |',
      '| setup | `npm ci` | ran once before the baseline |',
      '| before (baseline, untouched code) | `npm test` | FAIL (exit 1; 2 passed, 2 failed) |',
      '| after (final gate) | `npm test` | pass (exit 0; 4 passed, 0 failed) |',
      '',
      'Now passing: `a`, `b`',
      '',
      '</details>',
      '',
      "<details><summary>What changed and why (the model's summary, not evidence)</summary>",
      '',
      '> Multiply price by quantity.',
      '',
      '</details>',
      '',
      '<details><summary>Attempts: 2, 1 rejected</summary>',
      '',
      '1. rejected: 2 failing → 1 failing. Changed `src/cart.js`. The model said (not evidence): half',
      '2. verified. Changed `src/cart.js`. The model said (not evidence): all',
      '',
      '</details>',
      '',
      '<details><summary>Cost: 1200 tokens, 4.5 s</summary>',
      '',
      '2 of 5 iteration(s) · 7 model request(s) · 1200 tokens (1000 prompt, 200 completion) · 4.5 s · model `openai/gpt-4.1`',
      '',
      '</details>',
      '',
      '[Workflow run](https://github.com/o/r/actions/runs/1)',
      '',
    ].join('\n'),
  );
});

test('the first screen is everything before the first <details>, and it is short', () => {
  const body = renderPrBody({ ...base, branch: 'agent-fix/issue-7' });
  const first = body.slice(0, body.indexOf('<details>'));
  expect(first.split('\n').length).toBeLessThanOrEqual(18); // with the PR's marker, Fixes #N and review note
  expect(first).not.toContain('Attempts');
  expect(first).not.toContain('tokens');
  // newly passing tests appear once on the first screen (not twice in two tables)
  expect(first.match(/`a`/g)).toHaveLength(1);
});

test('not fixed: no "what changed" for a change never published; what was tried and why each attempt was rejected', () => {
  const md = renderReportMarkdown({
    ...base,
    status: 'not-fixed',
    reason: 'tests-still-failing',
    detail: 'No attempt passed verification in 2 iteration(s); no pull request was opened.',
    summary: 'Really fixed now',
    attempts: [
      { ...base.attempts[0] },
      { iteration: 2, summary: 'Really fixed now', verdict: { ok: false, newlyFailing: ['c'], nowPassing: ['a'], stillFailing: ['b'], summary: '2 failing → 2 failing (1 newly failing)' }, changedFiles: ['src/cart.js'], rolledBack: true },
    ],
    final: run({ exitCode: 1, succeeded: false, counts: { passed: 2, failed: 2, skipped: 0 } }),
  });
  expect(md).not.toContain('What changed and why');
  expect(md).toContain('**Nothing was published.** The last attempt changed `src/cart.js` (+2 −2) (not published: it did not pass verification).');
  expect(md).toContain('| test | before | last attempt |');
  expect(md).toContain('| `c` | pass | FAIL |');
  expect(md).toContain('| `b` | FAIL | FAIL |');
  expect(md).toContain('1. rejected: 2 failing → 1 failing.');
  expect(md).toContain('2. rejected: 2 failing → 2 failing (1 newly failing) (rolled back). Changed `src/cart.js`. The model said (not evidence): Really fixed now');
  expect(md).not.toMatch(/files? changed\*\*/);
});

test('every table cell and all model text is escaped: pipes, @mentions, images, HTML, links', () => {
  const hostile: RunReport = {
    ...base,
    branch: 'agent-fix/issue-7',
    testCommand: 'npm test | tee out.log',
    summary: '@octo-org/team please merge ![x](https://evil.example/p.png) <img src=x onerror=alert(1)> <!-- agent-fix:issue-9 --> [click](https://evil.example) `keep @code | here`',
    attempts: [{ ...base.attempts[1], verdict: { ...base.attempts[1].verdict, nowPassing: ['cart | total @admin'] } }],
  };
  const body = renderPrBody(hostile);
  const tables = body.split('\n').filter((l) => l.startsWith('|'));
  // every row of every table has exactly its columns: no cell breaks out
  for (const row of tables) {
    const cols = row.replace(/\\\|/g, '').split('|').length - 2;
    expect({ row, cols }).toEqual({ row, cols: row.startsWith('| step |') ? 6 : 3 });
  }
  expect(body).toContain('| whole command `npm test \\| tee out.log` |');
  expect(body).toContain('| `cart \\| total @admin` | FAIL | pass |');
  // model text: no live mention, image, HTML or link; the code span is kept as written
  const said = body.slice(body.indexOf('What changed and why'), body.indexOf('Attempts'));
  expect(said).toContain('`@octo-org/team` please merge');
  expect(said).not.toMatch(/(^|[^`])@octo/);
  expect(said).toContain('\\!\\[x\\](`https://evil.example/p.png`)'); // a bare URL is code: GitHub would link it
  expect(said).toContain('&lt;img src=x onerror=alert(1)&gt;');
  expect(said).toContain('&lt;\\!-- agent-fix:issue-9 --&gt;');
  expect(said).toContain('\\[click\\](`https://evil.example`)');
  expect(said).toContain('`keep @code | here`');
  expect(body.match(/<!-- agent-fix:/g)).toHaveLength(1);
});

test('escape helpers', () => {
  expect(escapeMarkdown('a @b c@d.e (@f)')).toBe('a `@b` `c@d.e` (`@f`)');
  expect(escapeMarkdown('see https://x.example/a_b. or www.y.example, (http://z.example/p)')).toBe('see `https://x.example/a_b`. or `www.y.example`, (`http://z.example/p`)');
  expect(escapeMarkdown('# head\n> quote\n* item')).toBe('\\# head\n&gt; quote\n\\* item');
  expect(cell('a | b\nc')).toBe('a \\| b c');
  expect(codeCell('x ` y | z')).toBe('``x ` y \\| z``');
  expect(codeCell('`edge`')).toBe('`` `edge` ``');
});

test('GitHub\'s 65,536-character limit: folded parts are shortened, largest first; fences stay closed', () => {
  const hugeDiff = `diff --git a/x b/x\n${Array.from({ length: 20_000 }, (_, i) => `+line ${i} ${'y'.repeat(20)}`).join('\n')}\n`;
  const tail = Array.from({ length: 5_000 }, (_, i) => `out ${i}`).join('\n');
  const r: RunReport = { ...base, status: 'not-fixed', diff: hugeDiff, final: run({ succeeded: false, exitCode: 1, outputTail: tail }) };
  const md = renderReportMarkdown(r, { diff: true });
  expect(hugeDiff.length).toBeGreaterThan(GITHUB_BODY_LIMIT * 7);
  expect(md.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT - 2_000);
  // the first screen and every section are still there, the diff says it was cut
  expect(md).toContain('| whole command `npm test` |');
  for (const s of ['Test report', 'Attempts', 'Cost', 'Tail of the last test output', 'Diff']) expect(md).toContain(`<summary>${s}`);
  expect(md).toContain('truncated: the full text is in the run transcript');
  expect(md.match(/<details>/g)?.length).toBe(md.match(/<\/details>/g)?.length);
  // every fence opened is closed
  const fences = md.split('\n').filter((l) => /^`{3,}/.test(l));
  expect(fences.length % 2).toBe(0);
  // the PR body and comment around it stay under the limit too
  expect(renderPrBody({ ...r, status: 'fixed', branch: 'b' }).length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
  expect(renderFinalComment(r).length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
  const cut = truncateMarkdown(`\`\`\`\n${'x\n'.repeat(50)}\`\`\`\n`, 40, 'cut');
  expect(cut.length).toBeLessThanOrEqual(40);
  expect(cut).toMatch(/^```\n(x\n)+```\n… \(cut\)$/);
  expect(truncateMarkdown('short', 100)).toBe('short');
});

test('a scripted session is labelled as such everywhere', () => {
  expect(renderPrBody({ ...base, scripted: true })).toContain('SCRIPTED');
  expect(renderTerminal({ ...base, scripted: true })).toContain('SCRIPTED');
});

test('the final comment links the PR when fixed (first screen only), and explains a failure with the last output otherwise', () => {
  const withPr = renderFinalComment({ ...base, prUrl: 'https://github.com/o/r/pull/9' });
  expect(withPr).toContain('opened https://github.com/o/r/pull/9 for review');
  expect(withPr).toContain('| `a` | FAIL | pass |');
  expect(withPr).not.toContain('<details>');
  const failed = renderFinalComment({
    ...base,
    status: 'not-fixed',
    reason: 'tests-still-failing',
    detail: 'No attempt passed verification in 5 iteration(s); no pull request was opened.',
    final: run({ exitCode: 1, succeeded: false, outputTail: 'not ok 3 - applies a percentage discount' }),
  });
  expect(failed).toContain('finished: not fixed.\n\n### agent-fix: Not fixed\n\nNo attempt passed verification');
  expect(failed).toContain('not ok 3 - applies a percentage discount');
  expect(failed.startsWith(commentMarker('issue-7'))).toBe(true);
});

test('fences survive backticks in the output', () => {
  const md = renderFinalComment({ ...base, status: 'not-fixed', final: run({ succeeded: false, exitCode: 1, outputTail: 'a ```` b' }) });
  expect(md).toContain('`````\na ```` b\n`````');
});

test('the start comment carries the marker and the run link', () => {
  expect(renderStartComment(base.task, 'https://x/run')).toMatch(/^<!-- agent-fix:issue-7 -->\n\*\*agent-fix\*\* is working on this \(\[run\]\(https:\/\/x\/run\)\)/);
});

test('the terminal report shows the outcome, before/after, attempts, changes and the diff', () => {
  const t = renderTerminal({ ...base, branch: 'agent-fix/cart' });
  expect(t).toContain('outcome:    fixed (verified)');
  expect(t).toContain('before:   FAIL (exit 1; 2 passed, 2 failed)');
  expect(t).toContain('branch:     agent-fix/cart');
  expect(t).toContain('modified src/cart.js (+2/-2)');
  expect(t).toContain('+new');
});

test('a change that games the tests: the terminal report names it, never "Fixed"', async () => {
  const { GAMES_THE_TESTS } = await import('../../test-support/sample-reports.js');
  const t = renderTerminal(GAMES_THE_TESTS);
  expect(t).toContain('agent-fix: Not fixed: the change games the tests');
  expect(t).toContain("outcome:    not-fixed (games-the-tests) — The tests pass, but the change games them");
  expect(t).toContain("GAMES THE TESTS: special-cases the failing tests' values: if (items.length === 2 && discountPercent === 10) return 27; (src/cart.js:3): returns 27 for 2, 10");
  expect(t).not.toContain('Fixed: the tests confirm it');
  // the issue's comment links the draft and says what it is
  const comment = renderFinalComment(GAMES_THE_TESTS);
  expect(comment).toContain('**agent-fix** opened https://github.com/octo/tiny-shop/pull/12 as a draft: the tests pass, but the change games them, so it is not a fix.');
  expect(comment).toContain('**Not a fix: the tests pass because the change games them.**');
});
