/**
 * A comment updated as the run goes, rate-limited: at most one write per `intervalMs` (the
 * latest body wins, bodies in between are dropped), writes never overlap, and a failed write is
 * logged, never fatal; a write that says the comment is no longer ours ends the updates. `stop()` lets the write under way land and cancels the rest, so the final
 * comment (written by the story after it) is always the last word.
 */
import { errorMessage } from '../errors.js';
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Default interval between two progress updates of the sticky comment. */
export const PROGRESS_INTERVAL_MS = 10_000;

export class LiveComment {
  private pending: string | null = null;
  private timer: unknown = null;
  private inflight: Promise<void> = Promise.resolve();
  private last = Number.NEGATIVE_INFINITY;
  private stopped = false;
  /** Bodies actually written, for the log and the tests. */
  writes = 0;

  constructor(
    /** Writes a body; `false`: the comment is no longer ours to update (a newer run's claim, a stop request). */
    private readonly write: (body: string) => Promise<boolean | void>,
    private readonly intervalMs: number,
    private readonly log: (m: string) => void,
    private readonly clock: Clock = SYSTEM_CLOCK,
  ) {}

  /** A write made by someone else (the start comment) counts for the interval. */
  wrote(): void {
    this.last = this.clock.now();
  }

  /** Shows `body` now or at the end of the interval (then the latest body given by then). */
  show(body: string): void {
    if (this.stopped) return;
    this.pending = body;
    if (this.timer !== null) return;
    const wait = Math.max(0, this.last + this.intervalMs - this.clock.now());
    this.timer = this.clock.setTimeout(() => {
      this.timer = null;
      this.flush();
    }, wait);
  }

  private flush(): void {
    this.inflight = this.inflight.then(async () => {
      const body = this.pending;
      if (body === null || this.stopped) return;
      this.pending = null;
      this.last = this.clock.now();
      try {
        if ((await this.write(body)) === false) {
          this.stopped = true;
          this.pending = null;
          return;
        }
        this.writes++;
      } catch (e) {
        this.log(`Could not update the progress comment: ${errorMessage(e)}`);
      }
    });
  }

  /** No more updates: the one under way lands, pending ones are dropped. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== null) this.clock.clearTimeout(this.timer);
    this.timer = null;
    this.pending = null;
    await this.inflight;
  }
}
