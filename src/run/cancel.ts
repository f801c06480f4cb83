/**
 * Cancellation: when a workflow run is cancelled or hits its `timeout-minutes`, the runner
 * sends SIGINT, then SIGTERM, then kills the process. agent-fix uses that window to leave
 * the issue comment in a final, truthful state (what was left behind) before exiting; the
 * shell adapter's exit hook kills the command's process group.
 */
export type CancelHandler = (signal: NodeJS.Signals) => Promise<void>;

/** Runs `handler` once on the first SIGINT or SIGTERM, then calls `exit`; returns a disposer. */
export function onCancel(handler: CancelHandler, exit: (code: number) => void = (code) => process.exit(code), graceMs = 5000): () => void {
  let fired = false;
  const listener = (signal: NodeJS.Signals) => {
    if (fired) return;
    fired = true;
    const timer = setTimeout(() => exit(1), graceMs);
    timer.unref?.();
    handler(signal)
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(timer);
        exit(1);
      });
  };
  process.on('SIGINT', listener);
  process.on('SIGTERM', listener);
  return () => {
    process.off('SIGINT', listener);
    process.off('SIGTERM', listener);
  };
}
