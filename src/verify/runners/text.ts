/**
 * What the plain-text parsers of every runner share (runners/<runner>.ts `output`): lines
 * cut to a bounded length, a collector of test cases by id, summary numbers, the first
 * lines of an error block. Pure.
 */
import { stripVTControlCharacters } from 'node:util';
import type { ParsedFrom, TestCase, TestStatus } from '../types.js';
import { normaliseId } from '../identity.js';

export interface TestTotals {
  passed: number;
  failed: number;
  skipped: number;
}

/** What one runner's plain-text parser read from an output. */
export interface ParserResult {
  tests: TestCase[];
  parsedFrom: ParsedFrom;
  /**
   * The runner's own summary counts, when it prints leaf counts (jest, vitest, mocha,
   * pytest) — more complete than `tests` when the runner does not list passing tests.
   */
  totals?: TestTotals;
  /** Test files reported as passing whole, their tests not named (vitest's default reporter, jest's `PASS`). */
  passedFiles?: string[];
}

export const MAX_MESSAGE = 300;
/** Between the levels of an id: `file > suite > test`. */
export const SEP = ' > ';

/** Terminal escape sequences (colours, cursor moves, OSC links and titles, charset switches) removed: node's own stripper. */
export function stripAnsi(text: string): string {
  return stripVTControlCharacters(text);
}

/** Longer lines are cut: no test line is that long, and it bounds the cost of every regex. */
const MAX_LINE = 2000;

export function toLines(text: string): string[] {
  return text.split(/\r?\n/).map((line) => {
    const cr = line.lastIndexOf('\r');
    const visible = cr >= 0 ? line.slice(cr + 1) : line;
    return visible.length > MAX_LINE ? visible.slice(0, MAX_LINE) : visible;
  });
}

export function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

export function shorten(text: string): string {
  const oneLine = text.replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_MESSAGE ? `${oneLine.slice(0, MAX_MESSAGE - 1)}…` : oneLine;
}

/** Test cases in first-seen order; the same id seen twice is merged (failure wins). */
export class Collector {
  private readonly byId = new Map<string, TestCase>();
  private static readonly rank: Record<TestStatus, number> = { skipped: 0, passed: 1, failed: 2 };

  add(id: string, status: TestStatus, message?: string, durationMs?: number): void {
    // the shared identity's id form (verify/identity.ts): levels normalised, empty levels dropped
    id = normaliseId(id);
    if (!id) return;
    const msg = message ? shorten(message) : undefined;
    const existing = this.byId.get(id);
    if (!existing) {
      const test: TestCase = { id, status };
      if (msg) test.message = msg;
      if (durationMs !== undefined && Number.isFinite(durationMs)) test.durationMs = durationMs;
      this.byId.set(id, test);
      return;
    }
    if (Collector.rank[status] > Collector.rank[existing.status]) existing.status = status;
    if (msg && !existing.message) existing.message = msg;
  }

  setMessage(id: string, message: string): void {
    const test = this.byId.get(normaliseId(id));
    if (test && !test.message && message.trim()) test.message = shorten(message);
  }

  get size(): number {
    return this.byId.size;
  }

  list(): TestCase[] {
    return [...this.byId.values()];
  }
}

export function countsOf(tests: TestCase[]): TestTotals {
  const totals = { passed: 0, failed: 0, skipped: 0 };
  for (const t of tests) totals[t.status]++;
  return totals;
}

/** Reads `N word` pairs out of a summary line: `2 failed, 3 passed, 1 skipped`. */
export function summaryNumbers(text: string): Map<string, number> {
  const found = new Map<string, number>();
  for (const m of text.matchAll(/(\d+)\s+([a-z]+)/gi)) {
    const word = m[2].toLowerCase();
    found.set(word, (found.get(word) ?? 0) + Number(m[1]));
  }
  return found;
}

export function addTotals(into: TestTotals | undefined, add: TestTotals): TestTotals {
  if (!into) return { ...add };
  into.passed += add.passed;
  into.failed += add.failed;
  into.skipped += add.skipped;
  return into;
}

/** First lines of an error block worth showing: skips blanks, stack frames and code frames. */
export function messageFrom(lines: string[], start: number, stopAt: (line: string, index: number) => boolean, maxLines = 2): string {
  const picked: string[] = [];
  for (let i = start; i < lines.length && picked.length < maxLines; i++) {
    const line = lines[i];
    if (stopAt(line, i)) break;
    const text = line.trim();
    if (!text) continue;
    if (/^at\s/.test(text) || /^>?\s*\d+\s*\|/.test(text) || /^\|/.test(text)) {
      if (picked.length) break;
      continue;
    }
    picked.push(text);
  }
  return picked.join(' ');
}
