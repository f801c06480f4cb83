/**
 * Event name + webhook payload -> a typed `Trigger`, or a skip with a one-sentence reason.
 *
 * Pure: no I/O, no clock unless `opts.now` is absent. Payloads are untrusted JSON, so
 * every field is read defensively and a malformed payload becomes a skip, never a throw.
 * Authorization (does the actor have write access?) is a separate step: authorize.ts.
 */
import type { Trigger } from './types.js';
import { parseCiDispatch, parseWorkflowRun } from './workflow-run.js';

export interface ParseTriggerOptions {
  /** The label that triggers a fix (Settings.label). Compared case-insensitively, like GitHub does. */
  label: string;
  /** Login of the account agent-fix acts as; its own events are ignored. */
  selfLogin?: string;
  /** ISO time of "now", for triggers whose payload carries no time (dispatch). */
  now?: string;
  /** Bot logins the policy lets trigger (triggers.allowed-bots); never `selfLogin`. */
  allowedBots?: string[];
  /** workflow_run: names of the workflows whose failures count (Settings.workflows; empty: all). */
  workflows?: string[];
}

export const COMMAND = '/agent-fix';

type IssueTrigger = Extract<Trigger, { kind: 'issue' }>;

const skip = (reason: string): Trigger => ({ kind: 'skip', reason });

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function obj(v: unknown): Record<string, any> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, any>) : undefined;
}

function positiveInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : undefined;
}

function isIsoTime(v: unknown): v is string {
  return typeof v === 'string' && !Number.isNaN(Date.parse(v));
}

/** Why the sender must be ignored, or undefined when it is a human we may serve. */
function botReason(sender: Record<string, any> | undefined, selfLogin: string | undefined, allowedBots: string[] = []): string | undefined {
  const login = str(sender?.login);
  if (login === undefined || login === '') return 'the payload has no sender, so agent-fix cannot tell who triggered it.';
  const isBot =
    sender?.type === 'Bot' ||
    /\[bot\]$/i.test(login) ||
    (selfLogin !== undefined && selfLogin !== '' && login.toLowerCase() === selfLogin.toLowerCase());
  const self = /^github-actions(\[bot\])?$/i.test(login) || (selfLogin !== undefined && login.toLowerCase() === selfLogin.toLowerCase());
  if (isBot && !self && allowedBots.some((b) => b.toLowerCase() === login.toLowerCase())) return undefined;
  return isBot ? `sender ${login} is a bot; agent-fix ignores bots to avoid loops.` : undefined;
}

/**
 * If `body` is a `/agent-fix` command, the instructions after it (the rest of the first
 * line plus the following lines, trimmed); otherwise undefined. `/agent-fixed` or
 * `/agent-fix:` are not the command: it must be followed by whitespace or the end.
 */
export function parseCommand(body: string): string | undefined {
  const text = body.replace(/\r\n?/g, '\n').trimStart();
  if (!text.startsWith(COMMAND)) return undefined;
  const rest = text.slice(COMMAND.length);
  if (rest !== '' && !/^\s/.test(rest)) return undefined;
  const newline = rest.indexOf('\n');
  const firstLine = (newline === -1 ? rest : rest.slice(0, newline)).trim();
  const following = newline === -1 ? '' : rest.slice(newline + 1);
  return [firstLine, following].filter((s) => s.trim() !== '').join('\n').trim();
}

function parseIssues(payload: Record<string, any>, opts: ParseTriggerOptions): Trigger {
  const action = str(payload.action) ?? '(none)';
  const issue = obj(payload.issue);
  const issueNumber = positiveInt(issue?.number);
  if (action !== 'labeled') {
    return skip(`issues action "${action}" is not handled (agent-fix reacts when the "${opts.label}" label is added).`);
  }
  const labelName = str(obj(payload.label)?.name) ?? '';
  if (labelName.trim().toLowerCase() !== opts.label.trim().toLowerCase()) {
    return skip(`label "${labelName}" is not the trigger label "${opts.label}".`);
  }
  if (issueNumber === undefined) return skip('the issues payload has no issue number.');
  if (obj(issue?.pull_request)) {
    return skip(`#${issueNumber} is a pull request; labelling pull requests does not trigger agent-fix (comment /agent-fix instead).`);
  }
  if (issue?.state === 'closed') return skip(`issue #${issueNumber} is closed.`);
  const sender = obj(payload.sender);
  // The issue's updated_at is bumped by the labelling itself: it is the time of the trigger.
  const triggeredAt = isIsoTime(issue?.updated_at) ? issue.updated_at : opts.now ?? new Date().toISOString();
  const trigger: IssueTrigger = {
    kind: 'issue',
    via: 'label',
    issueNumber,
    actor: str(sender?.login) ?? '',
    extraInstructions: '',
    triggeredAt,
    ...(typeof issue?.body === 'string' ? { issueBodyAtTrigger: issue.body } : issue && issue.body === null ? { issueBodyAtTrigger: '' } : {}),
  };
  return trigger;
}

function parseIssueComment(payload: Record<string, any>): Trigger {
  const action = str(payload.action) ?? '(none)';
  if (action !== 'created') {
    return skip(`issue_comment action "${action}" is not handled (only new /agent-fix comments trigger a run; edits do not).`);
  }
  const comment = obj(payload.comment);
  const issue = obj(payload.issue);
  const body = str(comment?.body) ?? '';
  const instructions = parseCommand(body);
  if (instructions === undefined) return skip(`the comment does not start with ${COMMAND}.`);
  const issueNumber = positiveInt(issue?.number);
  if (issueNumber === undefined) return skip('the issue_comment payload has no issue number.');
  const kind = obj(issue?.pull_request) ? 'pull request' : 'issue';
  if (issue?.state === 'closed') return skip(`${kind} #${issueNumber} is closed.`);
  const sender = obj(payload.sender);
  const trigger: IssueTrigger = {
    kind: 'issue',
    // Comments on pull requests are accepted too; the task builder sees isPullRequest from the API.
    via: 'comment',
    issueNumber,
    actor: str(sender?.login) ?? str(obj(comment?.user)?.login) ?? '',
    extraInstructions: instructions,
    triggeredAt: isIsoTime(comment?.created_at) ? comment.created_at : isIsoTime(comment?.updated_at) ? comment.updated_at : new Date(0).toISOString(),
    ...(typeof issue?.body === 'string' ? { issueBodyAtTrigger: issue.body } : issue && issue.body === null ? { issueBodyAtTrigger: '' } : {}),
  };
  return trigger;
}

function parseDispatch(payload: Record<string, any>, opts: ParseTriggerOptions): Trigger {
  const inputs = obj(payload.inputs) ?? {};
  const raw = inputs['issue-number'];
  // CI repair of a given failed run (src/ci/trigger.ts), when no issue is named.
  if ((raw === undefined || raw === null || String(raw).trim() === '') && inputs['run-id'] !== undefined && String(inputs['run-id']).trim() !== '') {
    return parseCiDispatch(inputs['run-id'], str(obj(payload.sender)?.login) ?? '');
  }
  if (raw === undefined || raw === null || (typeof raw === 'string' && raw.trim() === '')) {
    return skip('workflow_dispatch input "issue-number" is missing; give the number of the issue to fix.');
  }
  let issueNumber: number | undefined;
  if (typeof raw === 'number') issueNumber = positiveInt(raw);
  else if (typeof raw === 'string' && /^#?\d+$/.test(raw.trim())) issueNumber = positiveInt(Number(raw.trim().replace(/^#/, '')));
  if (issueNumber === undefined) {
    return skip(`workflow_dispatch input "issue-number" must be a positive whole number (got ${JSON.stringify(String(raw).slice(0, 40))}).`);
  }
  const instructions = str(inputs['instructions']) ?? '';
  const trigger: IssueTrigger = {
    kind: 'issue',
    via: 'dispatch',
    issueNumber,
    actor: str(obj(payload.sender)?.login) ?? '',
    extraInstructions: instructions.trim(),
    triggeredAt: opts.now ?? new Date().toISOString(),
  };
  return trigger;
}

const HANDLED = new Set(['issues', 'issue_comment', 'workflow_dispatch', 'workflow_run']);

export function parseTrigger(eventName: string, payload: any, opts: ParseTriggerOptions): Trigger {
  if (!HANDLED.has(eventName)) {
    return skip(`event "${eventName}" is not handled (agent-fix reacts to issues, issue_comment, workflow_dispatch and workflow_run).`);
  }
  const p = obj(payload);
  if (p === undefined) return skip(`the ${eventName} event has no payload.`);
  const bot = botReason(obj(p.sender), opts.selfLogin, opts.allowedBots);
  if (bot !== undefined) return skip(bot);
  switch (eventName) {
    case 'issues':
      return parseIssues(p, opts);
    case 'issue_comment':
      return parseIssueComment(p);
    case 'workflow_run':
      return parseWorkflowRun(p, { workflows: opts.workflows });
    default:
      return parseDispatch(p, opts);
  }
}
