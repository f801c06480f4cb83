/**
 * Event name + webhook payload -> a typed `Trigger`, or a skip with a one-sentence reason.
 *
 * Pure: no I/O, no clock unless `opts.now` is absent. Payloads are untrusted JSON, so
 * every field is read defensively and a malformed payload becomes a skip, never a throw.
 * Authorization (does the actor have write access?) is a separate step: authorize.ts.
 */
import type { IssueClosedTrigger, PullTrigger, StopTrigger, Trigger } from './types.js';
import { parseCiDispatch, parseWorkflowRun } from './workflow-run.js';
import { COMMAND, parseFollowUpCommand } from './command.js';
import { BRANCH_PREFIX } from '../publish/branch.js';

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

function parseIssues(payload: Record<string, any>, opts: ParseTriggerOptions): Trigger {
  const action = str(payload.action) ?? '(none)';
  const issue = obj(payload.issue);
  const issueNumber = positiveInt(issue?.number);
  if (action === 'closed') return parseIssueClosed(payload);
  if (action !== 'labeled') {
    return skip(`issues action "${action}" is not handled (agent-fix reacts when the "${opts.label}" label is added, and closes its pull request when the issue is closed).`);
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

function parseIssueClosed(payload: Record<string, any>): Trigger {
  const issue = obj(payload.issue);
  const issueNumber = positiveInt(issue?.number);
  if (issueNumber === undefined) return skip('the issues payload has no issue number.');
  if (obj(issue?.pull_request)) return skip(`#${issueNumber} is a pull request; only closing an issue closes agent-fix's pull request for it.`);
  const trigger: IssueClosedTrigger = {
    kind: 'issue-closed',
    issueNumber,
    actor: str(obj(payload.sender)?.login) ?? '',
    stateReason: str(issue?.state_reason) ?? null,
    triggeredAt: isIsoTime(issue?.closed_at) ? issue.closed_at : isIsoTime(issue?.updated_at) ? issue.updated_at : new Date(0).toISOString(),
  };
  return trigger;
}

/** `sender.login`, else the comment's or review's author. */
function actorOf(payload: Record<string, any>, written: Record<string, any> | undefined): string {
  return str(obj(payload.sender)?.login) ?? str(obj(written?.user)?.login) ?? '';
}

function createdAt(c: Record<string, any> | undefined): string {
  return isIsoTime(c?.created_at) ? c.created_at : isIsoTime(c?.updated_at) ? c.updated_at : new Date(0).toISOString();
}

function parseIssueComment(payload: Record<string, any>): Trigger {
  const action = str(payload.action) ?? '(none)';
  if (action !== 'created') {
    return skip(`issue_comment action "${action}" is not handled (only new /agent-fix comments trigger a run; edits do not).`);
  }
  const comment = obj(payload.comment);
  const issue = obj(payload.issue);
  const command = parseFollowUpCommand(str(comment?.body) ?? '');
  if (command === null) return skip(`the comment does not start with ${COMMAND}.`);
  const issueNumber = positiveInt(issue?.number);
  if (issueNumber === undefined) return skip('the issue_comment payload has no issue number.');
  const onPullRequest = obj(issue?.pull_request) !== undefined;
  const kind = onPullRequest ? 'pull request' : 'issue';
  if (command.verb === 'invalid') return skip(`the ${COMMAND} command is not understood: ${command.reason}`);
  const actor = actorOf(payload, comment);
  const triggeredAt = createdAt(comment);
  const commentId = positiveInt(comment?.id) ?? null;
  // `stop` is served on a closed thread too: a run may still be working on it.
  if (command.verb === 'stop') {
    const stop: StopTrigger = { kind: 'stop', number: issueNumber, onPullRequest, actor, triggeredAt, commentId };
    return stop;
  }
  if (issue?.state === 'closed') return skip(`${kind} #${issueNumber} is closed.`);
  const bodyAtTrigger = typeof issue?.body === 'string' ? { issueBodyAtTrigger: issue.body } : issue && issue.body === null ? { issueBodyAtTrigger: '' } : {};
  if (onPullRequest) {
    const pull: PullTrigger = {
      kind: 'pull',
      via: 'comment',
      prNumber: issueNumber,
      headRef: null,
      actor,
      triggeredAt,
      command,
      commentId,
      reviewId: null,
      ...(bodyAtTrigger.issueBodyAtTrigger !== undefined ? { bodyAtTrigger: bodyAtTrigger.issueBodyAtTrigger } : {}),
    };
    return pull;
  }
  if (command.verb === 'rebase') return skip(`\`${COMMAND} rebase\` works on agent-fix's own pull request, not on issue #${issueNumber}.`);
  const trigger: IssueTrigger = {
    kind: 'issue',
    via: 'comment',
    issueNumber,
    actor,
    extraInstructions: command.verb === 'instructions' ? command.text : '',
    triggeredAt,
    ...bodyAtTrigger,
    ...(command.verb === 'continue' ? { resume: { budgetUsd: command.budgetUsd } } : {}),
  };
  return trigger;
}

/**
 * The pull request of a review event, when it is agent-fix's own and open: its number and head
 * branch; otherwise the reason to skip. Own = head branch `agent-fix/*` in this repository (a
 * fork's branch of that name is not ours).
 */
function ownPullRequest(payload: Record<string, any>, event: string): { prNumber: number; headRef: string } | { skip: string } {
  const pr = obj(payload.pull_request);
  const prNumber = positiveInt(pr?.number);
  if (prNumber === undefined) return { skip: `the ${event} payload has no pull request number.` };
  const head = obj(pr?.head);
  const headRef = str(head?.ref) ?? '';
  const headRepo = str(obj(head?.repo)?.full_name);
  const repo = str(obj(payload.repository)?.full_name);
  if (!headRef.startsWith(BRANCH_PREFIX) || headRepo === undefined || repo === undefined || headRepo.toLowerCase() !== repo.toLowerCase()) {
    return { skip: `pull request #${prNumber} is not agent-fix's own (its head is not an ${BRANCH_PREFIX}* branch of this repository); agent-fix follows up only on its own pull requests.` };
  }
  if (pr?.state === 'closed') return { skip: `pull request #${prNumber} is closed.` };
  return { prNumber, headRef };
}

function parseReview(payload: Record<string, any>): Trigger {
  const action = str(payload.action) ?? '(none)';
  if (action !== 'submitted') return skip(`pull_request_review action "${action}" is not handled (only a submitted review that requests changes triggers a follow-up).`);
  const review = obj(payload.review);
  const state = (str(review?.state) ?? '').toLowerCase();
  if (state !== 'changes_requested') return skip(`the review's state is "${state || '(none)'}"; only a review that requests changes triggers a follow-up.`);
  const own = ownPullRequest(payload, 'pull_request_review');
  if ('skip' in own) return skip(own.skip);
  const reviewId = positiveInt(review?.id);
  if (reviewId === undefined) return skip('the pull_request_review payload has no review id.');
  const trigger: PullTrigger = {
    kind: 'pull',
    via: 'review',
    prNumber: own.prNumber,
    headRef: own.headRef,
    actor: actorOf(payload, review),
    triggeredAt: isIsoTime(review?.submitted_at) ? review.submitted_at : new Date(0).toISOString(),
    command: { verb: 'instructions', text: '' },
    commentId: null,
    reviewId,
  };
  return trigger;
}

function parseReviewComment(payload: Record<string, any>): Trigger {
  const action = str(payload.action) ?? '(none)';
  if (action !== 'created') return skip(`pull_request_review_comment action "${action}" is not handled (only new ${COMMAND} review comments trigger a run; edits do not).`);
  const comment = obj(payload.comment);
  const command = parseFollowUpCommand(str(comment?.body) ?? '');
  if (command === null) return skip(`the review comment does not start with ${COMMAND}.`);
  if (command.verb === 'invalid') return skip(`the ${COMMAND} command is not understood: ${command.reason}`);
  const own = ownPullRequest(payload, 'pull_request_review_comment');
  if ('skip' in own && command.verb !== 'stop') return skip(own.skip);
  const commentId = positiveInt(comment?.id) ?? null;
  if (commentId === null) return skip('the pull_request_review_comment payload has no comment id.');
  const actor = actorOf(payload, comment);
  const triggeredAt = createdAt(comment);
  if (command.verb === 'stop') {
    const prNumber = positiveInt(obj(payload.pull_request)?.number);
    if (prNumber === undefined) return skip('the pull_request_review_comment payload has no pull request number.');
    const stop: StopTrigger = { kind: 'stop', number: prNumber, onPullRequest: true, actor, triggeredAt, commentId };
    return stop;
  }
  if ('skip' in own) return skip(own.skip);
  const trigger: PullTrigger = {
    kind: 'pull',
    via: 'review-comment',
    prNumber: own.prNumber,
    headRef: own.headRef,
    actor,
    triggeredAt,
    command,
    commentId,
    reviewId: positiveInt(comment?.pull_request_review_id) ?? null,
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

const HANDLED = new Set(['issues', 'issue_comment', 'pull_request_review', 'pull_request_review_comment', 'workflow_dispatch', 'workflow_run']);

export function parseTrigger(eventName: string, payload: any, opts: ParseTriggerOptions): Trigger {
  if (!HANDLED.has(eventName)) {
    return skip(`event "${eventName}" is not handled (agent-fix reacts to issues, issue_comment, pull_request_review, pull_request_review_comment, workflow_dispatch and workflow_run).`);
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
    case 'pull_request_review':
      return parseReview(p);
    case 'pull_request_review_comment':
      return parseReviewComment(p);
    case 'workflow_run':
      return parseWorkflowRun(p, { workflows: opts.workflows });
    default:
      return parseDispatch(p, opts);
  }
}

/**
 * A `/agent-fix` comment on somebody else's pull request is what it was before follow-ups
 * existed: the issue story on that pull request's thread (the fix goes to a new branch).
 */
export function issueTriggerOf(pull: PullTrigger & { command: { verb: 'instructions' } }): IssueTrigger {
  return {
    kind: 'issue',
    via: 'comment',
    issueNumber: pull.prNumber,
    actor: pull.actor,
    extraInstructions: pull.command.text,
    triggeredAt: pull.triggeredAt,
    ...(pull.bodyAtTrigger !== undefined ? { issueBodyAtTrigger: pull.bodyAtTrigger } : {}),
  };
}
