/**
 * The report as GitHub renders it, checked through a real GitHub-flavoured markdown parser
 * (marked, GFM): for every outcome and every surface (PR body, issue comment, step summary,
 * progress comment), the first screen is the outcome, one evidence table and the diff stats,
 * everything else is folded, and outside text renders inert. bench/report-screens.ts looks at
 * the same reports in a headless browser.
 */
import { marked, type Token, type Tokens } from 'marked';
import { renderFinalComment, renderPrBody, renderReportMarkdown, renderStartComment, GITHUB_BODY_LIMIT } from '../../src/report/render.js';
import { applyProgress, EMPTY_CHECKLIST, renderChecklist } from '../../src/report/progress.js';
import { SAMPLE_REPORTS } from '../../test-support/sample-reports.js';

const surfaces = (r: (typeof SAMPLE_REPORTS)[string]) => ({
  'pr-body': renderPrBody(r),
  comment: renderFinalComment(r),
  summary: renderReportMarkdown(r, { diff: true }),
});

/** Top-level tokens before the first `<details>`, without blank space. */
function firstScreen(tokens: Token[]): Token[] {
  const at = tokens.findIndex((t) => t.type === 'html' && t.raw.trimStart().startsWith('<details'));
  return (at < 0 ? tokens : tokens.slice(0, at)).filter((t) => t.type !== 'space');
}

const links = (html: string) => [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1]);

describe.each(Object.entries(SAMPLE_REPORTS))('%s', (name, report) => {
  test.each(Object.entries(surfaces(report)))('%s: outcome, evidence table and diff stats first; the rest folded; outside text inert', (surface, md) => {
    expect(md.length).toBeLessThanOrEqual(GITHUB_BODY_LIMIT);
    const tokens = marked.lexer(md, { gfm: true });
    const first = firstScreen(tokens);
    const heading = first.find((t): t is Tokens.Heading => t.type === 'heading');
    expect(heading?.text).toMatch(/^agent-fix: (Fixed|Not fixed|Error)/);
    const ran = report.baseline !== null;
    const tables = first.filter((t): t is Tokens.Table => t.type === 'table');
    expect(tables).toHaveLength(ran ? 1 : 0);
    if (ran) {
      expect(tables[0].header.map((h) => h.text)).toEqual(['test', 'before', report.status === 'fixed' ? 'after' : 'last attempt']);
      // at most 3 test rows (4 when exactly 4), then one row for the rest, then the whole command
      expect(tables[0].rows.length).toBeLessThanOrEqual(5);
      if (name === 'fixed-many-tests') expect(tables[0].rows[3].map((c) => c.text)).toEqual(['… 21 more tests (all in the transcript)', 'FAIL', 'pass']);
      expect(tables[0].rows[tables[0].rows.length - 1][0].text).toMatch(/^whole command/);
      // every row has exactly three cells: pipes in test names and commands did not split them
      expect(tables[0].rows.every((row) => row.length === 3)).toBe(true);
    }
    const paragraphs = first.filter((t) => t.type === 'paragraph').map((t) => t.raw);
    expect(paragraphs.some((p) => /^\*\*(\d+ files? changed|Nothing was published|No files changed|No test ran)/.test(p))).toBe(true);
    // the first screen is short: at most these blocks, whatever the outcome (two more, a line and a list, for the constructs of a change that games the tests)
    expect(first.length).toBeLessThanOrEqual((surface === 'pr-body' ? 8 : 7) + (report.tests?.gaming?.length ? 2 : 0));
    if (name === 'games-the-tests') {
      expect(heading?.text).toBe('agent-fix: Not fixed: the change games the tests');
      const shown = first.map((t) => t.raw).join('\n');
      expect(shown).toContain('**Not a fix: the tests pass because the change games them.**');
      expect(shown).toContain("- special-cases the failing tests' values: `if (items.length === 2 && discountPercent === 10) return 27;` (`src/cart.js:3`): returns 27 for 2, 10");
      expect(shown).toContain('- detects the test run: `process.env.JEST_WORKER_ID` (`src/cart.js:5`)');
    }
    // below it: only folds (and the workflow run link)
    const rest = tokens.slice(tokens.indexOf(first[first.length - 1]) + 1).filter((t) => t.type !== 'space');
    let depth = 0;
    for (const t of rest) {
      if (t.type === 'html' && /^<details/.test(t.raw.trim())) depth++;
      else if (t.type === 'html' && /^<\/details>/.test(t.raw.trim())) depth--;
      else if (depth === 0) expect(t.raw.trim()).toMatch(/^\[Workflow run\]\(https:\/\/github\.com\/[^)]+\)$/);
    }
    expect(depth).toBe(0);
    // rendered: no image, no raw HTML from outside text, links only to GitHub, mentions as code
    const html = marked.parse(md, { gfm: true, async: false });
    expect(html).not.toMatch(/<img|<script|<b>/i); // as text (&lt;img …&gt;) they are inert
    expect(links(html).every((href) => href.startsWith('https://github.com/'))).toBe(true);
    expect(html).not.toMatch(/(^|[^`>\w])@octo\//);
    if (name === 'not-fixed') {
      expect(html).toContain('<code>@octo/maintainers</code>');
      // the hidden marker appears once (ours), never from the model's text
      expect(md.split('<!-- agent-fix:issue-7 -->').length - 1).toBe(surface === 'summary' ? 0 : 1);
    }
  });
});

test('the progress comment is the start line and a checklist, rendered as a plain list', () => {
  const list = [
    { type: 'phase', phase: { kind: 'model' }, state: 'done', detail: 'answered' },
    { type: 'phase', phase: { kind: 'baseline' }, state: 'done', detail: 'npm test: fails (exit 1; 2 passed, 2 failed)' },
    { type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'running' },
  ] as const;
  const checklist = list.reduce((l, e, i) => applyProgress(l, e, i * 1000), EMPTY_CHECKLIST);
  const md = `${renderStartComment(SAMPLE_REPORTS.fixed.task, 'https://github.com/octo/tiny-shop/actions/runs/4242').trimEnd()}\n\n${renderChecklist(checklist, 5000)}\n`;
  const tokens = marked.lexer(md, { gfm: true }).filter((t) => t.type !== 'space');
  const items = (tokens.find((t) => t.type === 'list') as Tokens.List).items;
  expect(items.map((i) => i.text)).toEqual(['✅ Model check: answered (0 ms)', '✅ Baseline: npm test: fails (exit 1; 2 passed, 2 failed) (0 ms)', '⏳ **Attempt 2**'.replace('2', '1') + ' (running for 3.0 s)', '⬜ Publish']);
  // no task-list checkboxes: a click by a reader would edit the bot's comment
  expect(items.every((i) => !i.task)).toBe(true);
});
