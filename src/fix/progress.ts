/**
 * What a run says while it works: typed progress events, produced by the fix (model check,
 * setup, baseline, attempts) and the story (publish), shown by each entry its own way (the
 * sticky comment's checklist, `::group::` sections in the action log, the CLI's phase line and
 * spinner). Producers never format for a surface; `detail` is plain text (renderers escape it).
 */
import type { LoopEvent } from '../agent/loop.js';

export type Phase = { kind: 'model' } | { kind: 'setup' } | { kind: 'baseline' } | { kind: 'attempt'; n: number } | { kind: 'publish' };

export type PhaseState = 'running' | 'done' | 'failed' | 'skipped';

export type ProgressEvent =
  /** A phase starts (`running`) or ends; `detail` says how (one line of plain text). */
  | { type: 'phase'; phase: Phase; state: PhaseState; detail?: string }
  /** What the current phase is waiting for, for a spinner ("the model (request 3)", "the tests"). */
  | { type: 'waiting'; on: string }
  /** One tool call of the model, as the human sees it (`read_file src/a.js`). */
  | { type: 'tool'; attempt: number; name: string; display: string; ok: boolean };

export type ProgressSink = (e: ProgressEvent) => void;

export function phaseTitle(p: Phase): string {
  switch (p.kind) {
    case 'model':
      return 'Model check';
    case 'setup':
      return 'Setup';
    case 'baseline':
      return 'Baseline';
    case 'attempt':
      return `Attempt ${p.n}`;
    case 'publish':
      return 'Publish';
  }
}

export function samePhase(a: Phase, b: Phase): boolean {
  return a.kind === b.kind && (a.kind !== 'attempt' || a.n === (b as { n: number }).n);
}

/**
 * Turns the agent loop's events into attempt phases: attempt N runs from the first model request
 * after attempt N-1's verdict until its own verdict (the model reads and edits, then calls finish
 * and the harness verifies). `end` closes an attempt the loop left open (budget, model error).
 */
export function loopProgress(sink: ProgressSink): { onLoop: (e: LoopEvent) => void; end: (why: string) => void } {
  let open: number | null = null;
  let done = 0;
  const start = () => {
    if (open !== null) return open;
    open = done + 1;
    sink({ type: 'phase', phase: { kind: 'attempt', n: open }, state: 'running' });
    return open;
  };
  return {
    onLoop(e) {
      switch (e.type) {
        case 'model-request':
          start();
          sink({ type: 'waiting', on: `the model (request ${e.turn})` });
          break;
        case 'tool':
          sink({ type: 'tool', attempt: start(), name: e.name, display: e.display, ok: e.ok });
          break;
        case 'verifying':
          start();
          sink({ type: 'waiting', on: 'the tests (verifying the change)' });
          break;
        case 'attempt': {
          const a = e.attempt;
          const n = start();
          const verdict = a.verdict.ok ? `verified: ${a.verdict.summary}` : `rejected: ${a.verdict.summary}${a.rolledBack ? '; rolled back' : ''}`;
          sink({ type: 'phase', phase: { kind: 'attempt', n }, state: a.verdict.ok ? 'done' : 'failed', detail: verdict });
          done = n;
          open = null;
          break;
        }
        default:
          break;
      }
    },
    end(why) {
      if (open === null) return;
      sink({ type: 'phase', phase: { kind: 'attempt', n: open }, state: 'failed', detail: why });
      done = open;
      open = null;
    },
  };
}
