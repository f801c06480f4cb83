/**
 * Progress for a person at a terminal (the CLI, on stderr): on a TTY one live phase line with a
 * spinner and the elapsed time, redrawn in place, and a permanent line per finished phase; on
 * anything else (a pipe, a CI log) plain lines only, no escape codes. With `verbose`, one line
 * per tool call of the model. Log lines print above the live line. Plain ANSI, no library: a
 * carriage return and "erase line" are all it needs.
 */
import { phaseTitle, type PhaseState, type ProgressEvent } from '../fix/progress.js';

export interface TerminalOut {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface TerminalProgressOptions {
  verbose?: boolean;
  now?: () => number;
  /** Starts the redraw timer (default: every 100 ms, unref'd); returns its stop. Tests pass their own. */
  every?: (ms: number, fn: () => void) => () => void;
}

const FRAMES = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const MARK: Record<Exclude<PhaseState, 'running'>, string> = { done: '✓', failed: '✗', skipped: '–' };
const CLEAR = '\r\x1b[2K';

export function clockTime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

export class TerminalProgress {
  private readonly tty: boolean;
  private readonly now: () => number;
  private current: { title: string; detail?: string; since: number } | null = null;
  private waiting = '';
  private frame = 0;
  private drawn = false;
  private stopTimer: (() => void) | null = null;

  constructor(
    private readonly out: TerminalOut,
    private readonly opts: TerminalProgressOptions = {},
  ) {
    this.tty = out.isTTY === true;
    this.now = opts.now ?? Date.now;
  }

  event(e: ProgressEvent): void {
    if (e.type === 'waiting') {
      this.waiting = e.on;
      this.redraw();
      return;
    }
    if (e.type === 'tool') {
      if (this.opts.verbose) this.line(`    ${e.ok ? '' : '(failed) '}${e.display}`);
      return;
    }
    const title = phaseTitle(e.phase);
    if (e.state === 'running') {
      this.current = { title, detail: e.detail, since: this.now() };
      this.waiting = '';
      if (this.tty) this.startTimer();
      else this.line(`▸ ${title}${e.detail ? `: ${e.detail}` : ''}`);
      this.redraw();
      return;
    }
    const took = this.current?.title === title ? ` (${clockTime(this.now() - this.current.since)})` : '';
    if (this.current?.title === title) this.current = null;
    this.line(`${MARK[e.state]} ${title}${e.detail ? `: ${e.detail}` : ''}${took}`);
    if (!this.current) this.stopTimerNow();
  }

  /** A log line, printed above the live line. */
  log(message: string): void {
    this.line(`· ${message}`);
  }

  /** Clears the live line and stops the timer (before the report is printed). */
  stop(): void {
    this.stopTimerNow();
    this.clear();
    this.current = null;
  }

  private line(text: string): void {
    this.clear();
    this.out.write(`${text}\n`);
    this.redraw();
  }

  private clear(): void {
    if (this.tty && this.drawn) this.out.write(CLEAR);
    this.drawn = false;
  }

  private redraw(): void {
    if (!this.tty || !this.current) return;
    const c = this.current;
    const parts = [`${FRAMES[this.frame % FRAMES.length]} ${c.title} ${clockTime(this.now() - c.since)}`, c.detail, this.waiting ? `waiting for ${this.waiting}` : ''].filter(Boolean);
    const width = Math.max(20, (this.out.columns || 80) - 1);
    const text = parts.join(' · ');
    this.out.write(`${CLEAR}${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.drawn = true;
  }

  private startTimer(): void {
    if (this.stopTimer) return;
    const every =
      this.opts.every ??
      ((ms: number, fn: () => void) => {
        const t = setInterval(fn, ms);
        t.unref();
        return () => clearInterval(t);
      });
    this.stopTimer = every(100, () => {
      this.frame++;
      this.redraw();
    });
  }

  private stopTimerNow(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }
}
