/**
 * The action's outputs, as a value made from the story's result (or from how the run ended
 * before one), and written once (main.ts).
 */
import type { Outcome } from '../fix/types.js';
import type { StoryResult } from './kind.js';

export interface Outputs {
  status: Outcome;
  prNumber?: number;
  prUrl?: string;
  branch?: string;
  iterations?: number;
  transcriptPath?: string;
  /** propose: the directory holding the bundle. */
  bundlePath?: string;
  /** Status `error`: the message the step fails with. */
  failed?: string;
  /** Status `skipped`: why, in one line (for the step summary when nothing else wrote one). */
  note?: string;
  /** Why, as a code (output `reason`): a report's reason, or how the run ended before one (absent: from the status). */
  reason?: string;
  headSha?: string;
  prOperation?: 'created' | 'updated';
  costUsd?: number | null;
  tokens?: number;
}

/** Where outputs go: the runner's `setOutput` and `setFailed`. */
export interface OutputSink {
  setOutput(name: string, value: string | number): void;
  setFailed(message: string): void;
}

export function writeOutputs(rt: OutputSink, o: Outputs): void {
  rt.setOutput('status', o.status);
  rt.setOutput('pr-number', o.prNumber ?? '');
  rt.setOutput('pr-url', o.prUrl ?? '');
  rt.setOutput('branch', o.branch ?? '');
  rt.setOutput('iterations', o.iterations ?? 0);
  rt.setOutput('transcript-path', o.transcriptPath ?? '');
  rt.setOutput('reason', o.reason ?? (o.status === 'skipped' ? 'not-applicable' : o.status === 'error' ? 'internal-error' : ''));
  rt.setOutput('head-sha', o.headSha ?? '');
  rt.setOutput('pull-request-operation', o.prOperation ?? 'none');
  rt.setOutput('cost-usd', typeof o.costUsd === 'number' ? o.costUsd.toFixed(4) : '');
  rt.setOutput('tokens', o.tokens ?? 0);
  rt.setOutput('bundle-path', o.bundlePath ?? '');
}

/** Writes the outputs (and fails the step on an error) once: later calls are ignored. */
export function outputsOnce(rt: OutputSink): (o: Outputs) => void {
  let written = false;
  return (o) => {
    if (written) return;
    written = true;
    writeOutputs(rt, o);
    if (o.status === 'error' && o.failed) rt.setFailed(o.failed);
  };
}

/** Story results whose `reason` is a sentence (a kind's skip) report this code instead. */
const REASON_CODE = /^[a-z]+(?:-[a-z]+)*$/;

export function outputsOf(r: StoryResult): Outputs {
  const u = r.report?.usage;
  return {
    reason: r.report?.reason ?? (REASON_CODE.test(r.reason) ? r.reason : r.status === 'skipped' ? 'not-applicable' : 'internal-error'),
    headSha: r.report?.headSha,
    prOperation: r.report?.prOperation,
    costUsd: r.report?.safety?.costUsd,
    tokens: u ? u.promptTokens + u.completionTokens : 0,
    status: r.status,
    prNumber: r.prNumber,
    prUrl: r.prUrl,
    branch: r.branch,
    iterations: r.iterations,
    transcriptPath: r.transcriptPath,
    bundlePath: r.bundlePath,
    // propose: an error the bundle records (setup failed...) is the publish job's to report; the step succeeds so the bundle is uploaded
    failed: r.status === 'error' && !r.bundlePath ? `agent-fix: ${r.error ?? r.reason}` : undefined,
    note: r.note,
  };
}
