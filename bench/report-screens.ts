/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The screenshot check: every sample outcome's PR body, issue comment and step summary (and a
 * progress comment) rendered with a GitHub-flavoured renderer (marked, GFM) and GitHub's own
 * markdown stylesheet (github-markdown-css), then looked at in a real headless Chromium: how far
 * down the first screen reaches, whether every fold is closed, how tall the page is folded.
 *
 *   node scripts/run-ts.mjs bench/report-screens.ts [--column 780] [--screen 600]
 *
 * The browser comes from the npm registry, installed once into .cache/report-screens
 * (playwright-core drives the Chromium that @sparticuz/chromium ships inside its tarball), so it
 * works where only the registry is reachable. Screenshots go to bench/results/screens/ (not
 * committed), measurements to bench/results/report-screens.json. Exit code 1 when a check fails.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { marked } from 'marked';
import { renderFinalComment, renderPrBody, renderReportMarkdown, renderStartComment } from '../src/report/render.js';
import { applyProgress, EMPTY_CHECKLIST, renderChecklist } from '../src/report/progress.js';
import type { ProgressEvent } from '../src/fix/progress.js';
import { SAMPLE_REPORTS } from '../test-support/sample-reports.js';

/** The part of playwright-core's API used here (its types are not a dependency of the project). */
interface Launcher {
  launch(o: { executablePath: string; args: string[]; headless: boolean }): Promise<{
    version(): string;
    close(): Promise<void>;
    newPage(o: { viewport: { width: number; height: number }; deviceScaleFactor: number }): Promise<{
      goto(url: string, o: { waitUntil: 'load' }): Promise<unknown>;
      evaluate<T>(fn: () => T): Promise<T>;
      screenshot(o: { path: string; fullPage: boolean }): Promise<unknown>;
    }>;
  }>;
}

/** Run from the repository root (the bundled script lives in .cache/). */
const ROOT = process.cwd();
const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
/** Width of a comment's body on github.com at a 1280-pixel window, and the height of it visible without scrolling under the page's header and the PR title. */
const COLUMN = arg('column', 780);
const SCREEN = arg('screen', 600);

const PACKAGES = ['playwright-core@1', '@sparticuz/chromium@153', 'github-markdown-css@5', '@fontsource/noto-emoji@5'];
const prefix = path.join(ROOT, '.cache', 'report-screens');
const need = path.join(prefix, 'node_modules', '@fontsource', 'noto-emoji', 'package.json');
if (!existsSync(need)) {
  console.log(`installing ${PACKAGES.join(', ')} into .cache/report-screens (once)`);
  execFileSync('npm', ['install', '--prefix', prefix, '--no-save', '--no-audit', '--no-fund', ...PACKAGES], { stdio: 'inherit' });
}
const req = createRequire(path.join(prefix, 'package.json'));
const pw = (await import(pathToFileURL(req.resolve('playwright-core')).href)) as { chromium?: Launcher; default?: { chromium: Launcher } };
const playwright = (pw.chromium ?? pw.default?.chromium) as Launcher;
const sparticuz = ((await import(pathToFileURL(req.resolve('@sparticuz/chromium')).href)) as { default: { executablePath(): Promise<string>; args: string[] } }).default;
const css = readFileSync(req.resolve('github-markdown-css/github-markdown-light.css'), 'utf8');
// GitHub shows the checklist's marks as emoji; this Chromium has no emoji font of its own, and draws no colour font: the monochrome Noto Emoji stands in. Only
// the marks are taken from the emoji font (its subsets also cover digits, drawn blank).
const emojiFiles = path.join(path.dirname(req.resolve('@fontsource/noto-emoji/package.json')), 'files');
const emojiFace = (subset: number, range: string) =>
  `@font-face{font-family:'Marks';src:url(${pathToFileURL(path.join(emojiFiles, `noto-emoji-${subset}-400-normal.woff2`)).href}) format('woff2');unicode-range:${range}}`;
const emoji = `${emojiFace(2, 'U+2705,U+274C,U+2B1C,U+2796')}\n${emojiFace(3, 'U+23F3')}`;

function page(md: string): string {
  const body = marked.parse(md, { gfm: true, async: false }) as string;
  return `<!doctype html><html><head><meta charset="utf-8"><style>${emoji}\n${css}\nbody{margin:0;background:#fff}.markdown-body{box-sizing:border-box;width:${COLUMN}px;padding:16px;font-family:"Marks",-apple-system,BlinkMacSystemFont,"Segoe UI","Noto Sans",Helvetica,Arial,sans-serif}</style></head><body><article class="markdown-body">${body}</article></body></html>`;
}

const progressEvents: ProgressEvent[] = [
  { type: 'phase', phase: { kind: 'model' }, state: 'running' },
  { type: 'phase', phase: { kind: 'model' }, state: 'done', detail: 'https://models.github.ai/inference (model "openai/gpt-4.1") answered in 412 ms' },
  { type: 'phase', phase: { kind: 'setup' }, state: 'running', detail: 'npm ci' },
  { type: 'phase', phase: { kind: 'setup' }, state: 'done', detail: 'npm ci passed' },
  { type: 'phase', phase: { kind: 'baseline' }, state: 'running', detail: 'npm test' },
  { type: 'phase', phase: { kind: 'baseline' }, state: 'done', detail: 'npm test: fails (exit 1; 2 passed, 2 failed)' },
  { type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'running' },
  { type: 'phase', phase: { kind: 'attempt', n: 1 }, state: 'failed', detail: 'rejected: 2 passing → 3 passing, 2 failing → 1 failing' },
  { type: 'phase', phase: { kind: 'attempt', n: 2 }, state: 'running' },
];
const checklist = progressEvents.reduce((l, e, i) => applyProgress(l, e, i * 7_000), EMPTY_CHECKLIST);
const fixed = SAMPLE_REPORTS.fixed;

const cases: { name: string; md: string; report: boolean }[] = [
  { name: 'progress-comment', md: `${renderStartComment(fixed.task, fixed.runUrl).trimEnd()}\n\n${renderChecklist(checklist, 70_000)}\n`, report: false },
];
for (const [outcome, r] of Object.entries(SAMPLE_REPORTS)) {
  cases.push({ name: `${outcome}-pr-body`, md: renderPrBody(r), report: true });
  cases.push({ name: `${outcome}-comment`, md: renderFinalComment(r), report: true });
  cases.push({ name: `${outcome}-summary`, md: renderReportMarkdown(r, { diff: true }), report: true });
}

const shots = path.join(ROOT, 'bench', 'results', 'screens');
mkdirSync(shots, { recursive: true });
const browser = await playwright.launch({ executablePath: await sparticuz.executablePath(), args: sparticuz.args, headless: true });
const version = browser.version();
const results: Record<string, unknown>[] = [];
let failures = 0;
try {
  const tab = await browser.newPage({ viewport: { width: COLUMN, height: SCREEN }, deviceScaleFactor: 1 });
  for (const c of cases) {
    // a file:// page, so that it may load the emoji font from the package's files
    const file = path.join(os.tmpdir(), `agent-fix-report-${c.name}.html`);
    writeFileSync(file, page(c.md));
    await tab.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    await tab.evaluate(() => document.fonts.ready.then(() => true));
    const m = await tab.evaluate(() => {
      const article = document.querySelector('article') as HTMLElement;
      const top = article.getBoundingClientRect().top;
      const blocks = [...article.children] as HTMLElement[];
      const firstFold = blocks.findIndex((b) => b.tagName === 'DETAILS');
      const before = firstFold < 0 ? blocks : blocks.slice(0, firstFold);
      const bottom = (el: Element | undefined) => (el ? Math.round(el.getBoundingClientRect().bottom - top) : null);
      const table = before.find((b) => b.tagName === 'TABLE');
      const stats = before.find((b) => b.tagName === 'P' && /^(\d+ files? changed|Nothing was published|No files changed|No test ran)/.test(b.textContent ?? ''));
      const heading = before.find((b) => /^H[1-6]$/.test(b.tagName));
      const folds = [...article.querySelectorAll('details')];
      return {
        heading: heading?.textContent ?? null,
        headingBottom: bottom(heading),
        tableBottom: bottom(table),
        tableRows: table ? table.querySelectorAll('tbody tr').length : 0,
        statsBottom: bottom(stats),
        firstScreenBottom: bottom(before[before.length - 1]),
        folds: folds.length,
        openFolds: folds.filter((d) => d.open).length,
        summaries: folds.map((d) => d.querySelector('summary')?.textContent ?? ''),
        height: Math.round(article.getBoundingClientRect().height),
        images: article.querySelectorAll('img').length,
        links: [...article.querySelectorAll('a')].map((a) => a.getAttribute('href')),
      };
    });
    await tab.screenshot({ path: path.join(shots, `${c.name}.png`), fullPage: true });
    const problems: string[] = [];
    if (c.report) {
      if (!m.heading?.startsWith('agent-fix:')) problems.push('no outcome heading');
      const ran = !/^error-before-run/.test(c.name);
      if (ran && m.tableBottom === null) problems.push('no evidence table before the folds');
      if (m.statsBottom === null) problems.push('no diff stats before the folds');
      if ((m.statsBottom ?? Infinity) > SCREEN) problems.push(`the diff stats end at ${m.statsBottom} px, below the first screen (${SCREEN} px)`);
      // a fixed run's comment is the first screen and a link to the PR, which holds the rest
      if (m.folds === 0 && !/^fixed|^huge/.test(c.name.replace(/-comment$/, '') + (c.name.endsWith('-comment') ? '' : '-x'))) problems.push('nothing folded');
    } else if (m.height > SCREEN) problems.push(`the progress comment is ${m.height} px tall, more than a screen`);
    if (m.openFolds > 0) problems.push(`${m.openFolds} fold(s) open`);
    if (m.images > 0) problems.push(`${m.images} image(s)`);
    const foreign = m.links.filter((h) => !h?.startsWith('https://github.com/'));
    if (foreign.length) problems.push(`links outside GitHub: ${foreign.join(', ')}`);
    failures += problems.length ? 1 : 0;
    results.push({ case: c.name, ...m, links: m.links.length, problems });
    console.log(`${problems.length ? 'FAIL' : 'ok  '} ${c.name.padEnd(30)} first screen ${String(m.firstScreenBottom).padStart(4)} px (stats at ${m.statsBottom ?? '-'} px), folded height ${m.height} px, ${m.folds} folds${problems.length ? `: ${problems.join('; ')}` : ''}`);
  }
} finally {
  await browser.close();
}
const out = path.join(ROOT, 'bench', 'results', 'report-screens.json');
writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), machine: { nproc: os.cpus().length, node: process.version }, browser: `Chromium ${version} (@sparticuz/chromium, headless)`, renderer: 'marked (GFM) + github-markdown-css (light)', column: COLUMN, screen: SCREEN, results }, null, 2)}\n`);
console.log(`\n${cases.length - failures} of ${cases.length} pass; screenshots in ${path.relative(ROOT, shots)}/, figures in ${path.relative(ROOT, out)}`);
process.exit(failures ? 1 : 0);
