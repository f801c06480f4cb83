/** The only module that talks to @actions/core and @actions/github. */
import * as core from '@actions/core';
import * as github from '@actions/github';

export interface ActionsRuntime {
  getInput(name: string): string;
  setOutput(name: string, value: string | number): void;
  setSecret(value: string): void;
  info(message: string): void;
  warning(message: string): void;
  setFailed(message: string): void;
  appendSummary(markdown: string): Promise<void>;
  /** A collapsible section of the log (`::group::`); groups do not nest. Absent: plain lines. */
  startGroup?(name: string): void;
  endGroup?(): void;
  eventName: string;
  payload: Record<string, unknown>;
  owner: string;
  repo: string;
  runUrl: string | undefined;
  apiUrl: string;
}

export function actionsRuntime(): ActionsRuntime {
  const ctx = github.context;
  const [owner = '', repo = ''] = (process.env.GITHUB_REPOSITORY ?? '').split('/');
  const runUrl = ctx.runId ? `${ctx.serverUrl}/${owner}/${repo}/actions/runs/${ctx.runId}` : undefined;
  return {
    getInput: (name) => core.getInput(name),
    setOutput: (name, value) => core.setOutput(name, String(value)),
    setSecret: (value) => core.setSecret(value),
    info: (m) => core.info(m),
    warning: (m) => core.warning(m),
    setFailed: (m) => core.setFailed(m),
    appendSummary: async (md) => {
      if (!process.env.GITHUB_STEP_SUMMARY) return;
      await core.summary.addRaw(md, true).write();
    },
    startGroup: (name) => core.startGroup(name),
    endGroup: () => core.endGroup(),
    eventName: ctx.eventName,
    payload: ctx.payload as Record<string, unknown>,
    owner,
    repo,
    runUrl,
    apiUrl: ctx.apiUrl,
  };
}
