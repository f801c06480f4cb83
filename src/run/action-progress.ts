/**
 * Progress in the action's log: one collapsible group per phase (`::group::Baseline: npm test`),
 * the model's tool calls as lines inside their attempt's group, and one line with the outcome of
 * each phase. Groups do not nest: a phase that starts closes the one still open.
 */
import { phaseTitle, samePhase, type Phase, type ProgressEvent, type ProgressSink } from '../fix/progress.js';

export interface GroupedLog {
  info(message: string): void;
  /** Absent: the phase's title is an ordinary line. */
  startGroup?(name: string): void;
  endGroup?(): void;
}

const MARK = { done: '✓', failed: '✗', skipped: '–' } as const;

export function groupedProgress(out: GroupedLog, redact: (t: string) => string): ProgressSink & { close(): void } {
  let open: Phase | null = null;
  const close = () => {
    if (open) out.endGroup?.();
    open = null;
  };
  const sink = (e: ProgressEvent): void => {
    if (e.type === 'tool') {
      out.info(redact(`  ${e.ok ? '' : '(failed) '}${e.display}`));
      return;
    }
    if (e.type !== 'phase') return;
    const title = phaseTitle(e.phase);
    if (e.state === 'running') {
      close();
      const name = redact(`agent-fix: ${title}${e.detail ? `: ${e.detail}` : ''}`);
      if (out.startGroup) out.startGroup(name);
      else out.info(name);
      open = e.phase;
      return;
    }
    out.info(redact(`${MARK[e.state]} ${title}${e.detail ? `: ${e.detail}` : ''}`));
    if (open && samePhase(open, e.phase)) close();
  };
  return Object.assign(sink, { close });
}
