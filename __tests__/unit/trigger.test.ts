import { parseTrigger } from '../../src/trigger/parse.js';
import { parseCommand } from '../../src/trigger/command.js';

const NOW = '2024-05-01T12:00:00Z';
const opts = { label: 'agent-fix', selfLogin: 'agent-fix-app[bot]', now: NOW };

// ---------------------------------------------------------------- payloads shaped like GitHub's webhooks

const repository = {
  id: 123456789,
  node_id: 'R_kgDOHxyz12',
  name: 'widgets',
  full_name: 'octo-org/widgets',
  private: false,
  owner: { login: 'octo-org', id: 9919, type: 'Organization', site_admin: false },
  html_url: 'https://github.com/octo-org/widgets',
  default_branch: 'main',
};

function user(login: string, type: 'User' | 'Bot' = 'User') {
  return {
    login,
    id: 583231,
    node_id: 'MDQ6VXNlcjU4MzIzMQ==',
    avatar_url: `https://avatars.githubusercontent.com/u/583231?v=4`,
    url: `https://api.github.com/users/${login}`,
    html_url: `https://github.com/${login}`,
    type,
    site_admin: false,
  };
}

function issue(over: Record<string, unknown> = {}) {
  return {
    url: 'https://api.github.com/repos/octo-org/widgets/issues/42',
    repository_url: 'https://api.github.com/repos/octo-org/widgets',
    html_url: 'https://github.com/octo-org/widgets/issues/42',
    id: 2271234567,
    node_id: 'I_kwDOHxyz12M6HRvw',
    number: 42,
    title: 'parseDate throws on ISO week dates',
    user: user('reporter'),
    labels: [{ id: 7001, node_id: 'LA_kwDOA', name: 'agent-fix', color: 'ededed', default: false, description: null }],
    state: 'open',
    locked: false,
    assignee: null,
    assignees: [],
    milestone: null,
    comments: 2,
    created_at: '2024-04-30T09:00:00Z',
    updated_at: '2024-05-01T11:59:58Z',
    closed_at: null,
    author_association: 'NONE',
    active_lock_reason: null,
    body: 'Calling `parseDate("2024-W01")` throws.',
    reactions: { url: 'https://api.github.com/repos/octo-org/widgets/issues/42/reactions', total_count: 0 },
    timeline_url: 'https://api.github.com/repos/octo-org/widgets/issues/42/timeline',
    state_reason: null,
    ...over,
  };
}

function labeled(labelName = 'agent-fix', over: Record<string, unknown> = {}) {
  return {
    action: 'labeled',
    issue: issue(),
    label: { id: 7001, node_id: 'LA_kwDOA', url: 'https://api.github.com/repos/octo-org/widgets/labels/agent-fix', name: labelName, color: 'ededed', default: false, description: '' },
    repository,
    sender: user('maintainer'),
    ...over,
  };
}

function commented(body: string, over: Record<string, unknown> = {}) {
  return {
    action: 'created',
    issue: issue(),
    comment: {
      url: 'https://api.github.com/repos/octo-org/widgets/issues/comments/2088000001',
      html_url: 'https://github.com/octo-org/widgets/issues/42#issuecomment-2088000001',
      issue_url: 'https://api.github.com/repos/octo-org/widgets/issues/42',
      id: 2088000001,
      node_id: 'IC_kwDOHxyz125802abc',
      user: user('maintainer'),
      created_at: '2024-05-01T11:58:00Z',
      updated_at: '2024-05-01T11:58:00Z',
      author_association: 'MEMBER',
      body,
      reactions: { total_count: 0 },
      performed_via_github_app: null,
    },
    repository,
    sender: user('maintainer'),
    ...over,
  };
}

function dispatched(inputs: Record<string, unknown> | undefined, sender = user('maintainer')) {
  return {
    inputs,
    ref: 'refs/heads/main',
    repository,
    organization: { login: 'octo-org', id: 9919 },
    sender,
    workflow: '.github/workflows/agent-fix.yml',
  };
}

// ---------------------------------------------------------------- issues.labeled

describe('issues', () => {
  test('labelled with the trigger label -> issue trigger via label', () => {
    expect(parseTrigger('issues', labeled(), opts)).toEqual({
      kind: 'issue',
      via: 'label',
      issueNumber: 42,
      actor: 'maintainer',
      extraInstructions: '',
      triggeredAt: '2024-05-01T11:59:58Z',
      issueBodyAtTrigger: 'Calling `parseDate("2024-W01")` throws.',
    });
  });

  test('label match is case-insensitive', () => {
    const t = parseTrigger('issues', labeled('Agent-Fix'), opts);
    expect(t.kind).toBe('issue');
    expect(parseTrigger('issues', labeled('agent-fix'), { ...opts, label: 'AGENT-FIX' }).kind).toBe('issue');
  });

  test('triggeredAt falls back to now when updated_at is missing', () => {
    const t = parseTrigger('issues', labeled('agent-fix', { issue: issue({ updated_at: undefined }) }), opts);
    expect(t).toMatchObject({ kind: 'issue', triggeredAt: NOW });
  });

  test('another label -> skip naming both labels', () => {
    expect(parseTrigger('issues', labeled('bug'), opts)).toEqual({ kind: 'skip', reason: 'label "bug" is not the trigger label "agent-fix".' });
  });

  test.each(['opened', 'edited', 'unlabeled', 'reopened'])('action %s -> skip', (action) => {
    const t = parseTrigger('issues', { ...labeled(), action }, opts);
    expect(t.kind).toBe('skip');
    expect(t.kind === 'skip' && t.reason).toContain(`issues action "${action}" is not handled`);
  });

  test('closed issue -> skip', () => {
    const t = parseTrigger('issues', labeled('agent-fix', { issue: issue({ state: 'closed', state_reason: 'completed' }) }), opts);
    expect(t).toEqual({ kind: 'skip', reason: 'issue #42 is closed.' });
  });

  test('missing issue number -> skip, no throw', () => {
    expect(parseTrigger('issues', labeled('agent-fix', { issue: { ...issue(), number: 'x' } }), opts).kind).toBe('skip');
    expect(parseTrigger('issues', labeled('agent-fix', { label: undefined }), opts).kind).toBe('skip');
  });
});

// ---------------------------------------------------------------- bots

describe('bots', () => {
  test('sender of type Bot -> skip with the loop reason', () => {
    const t = parseTrigger('issues', labeled('agent-fix', { sender: user('renovate', 'Bot') }), opts);
    expect(t).toEqual({ kind: 'skip', reason: 'sender renovate is a bot; agent-fix ignores bots to avoid loops.' });
  });

  test('login ending in [bot] -> skip', () => {
    const t = parseTrigger('issue_comment', commented('/agent-fix', { sender: user('github-actions[bot]') }), opts);
    expect(t).toEqual({ kind: 'skip', reason: 'sender github-actions[bot] is a bot; agent-fix ignores bots to avoid loops.' });
  });

  test('our own login -> skip, even when it looks like a user', () => {
    const t = parseTrigger('issue_comment', commented('/agent-fix again'), { ...opts, selfLogin: 'Maintainer' });
    expect(t.kind === 'skip' && t.reason).toBe('sender maintainer is a bot; agent-fix ignores bots to avoid loops.');
  });

  test('dispatch by a bot -> skip', () => {
    expect(parseTrigger('workflow_dispatch', dispatched({ 'issue-number': '42' }, user('dependabot[bot]', 'Bot')), opts).kind).toBe('skip');
  });

  test('no sender -> skip', () => {
    expect(parseTrigger('issues', labeled('agent-fix', { sender: undefined }), opts).kind).toBe('skip');
  });
});

// ---------------------------------------------------------------- issue_comment.created

describe('issue_comment', () => {
  test('/agent-fix with instructions on the first line and below', () => {
    const t = parseTrigger('issue_comment', commented('/agent-fix please keep the public API\r\nand add a test for 2024-W53'), opts);
    expect(t).toEqual({
      kind: 'issue',
      via: 'comment',
      issueNumber: 42,
      actor: 'maintainer',
      extraInstructions: 'please keep the public API\nand add a test for 2024-W53',
      triggeredAt: '2024-05-01T11:58:00Z',
      issueBodyAtTrigger: expect.any(String),
    });
  });

  test('bare /agent-fix after leading whitespace', () => {
    expect(parseTrigger('issue_comment', commented('  \n /agent-fix  '), opts)).toMatchObject({ kind: 'issue', via: 'comment', extraInstructions: '' });
  });

  test('instructions on following lines only', () => {
    expect(parseTrigger('issue_comment', commented('/agent-fix\n\nUse the existing helper.'), opts)).toMatchObject({ extraInstructions: 'Use the existing helper.' });
  });

  test.each(['/agent-fixed it myself', '/agent-fix: now', 'please /agent-fix', 'agent-fix', '> /agent-fix', ''])('%j is not the command', (body) => {
    const t = parseTrigger('issue_comment', commented(body), opts);
    expect(t).toEqual({ kind: 'skip', reason: 'the comment does not start with /agent-fix.' });
  });

  test('edited and deleted comments do not trigger', () => {
    for (const action of ['edited', 'deleted']) {
      const t = parseTrigger('issue_comment', { ...commented('/agent-fix'), action }, opts);
      expect(t.kind === 'skip' && t.reason).toContain(`issue_comment action "${action}" is not handled`);
    }
  });

  test('comment on a pull request -> a pull trigger (whose pull request it is is read from the API)', () => {
    expect(parseTrigger('issue_comment', commented('/agent-fix address the review', { issue: prIssue() }), opts)).toEqual({
      kind: 'pull',
      via: 'comment',
      prNumber: 57,
      headRef: null,
      actor: 'maintainer',
      triggeredAt: '2024-05-01T11:58:00Z',
      command: { verb: 'instructions', text: 'address the review' },
      commentId: 2088000001,
      reviewId: null,
      bodyAtTrigger: expect.any(String),
    });
  });

  test('comment on a closed issue -> skip', () => {
    const t = parseTrigger('issue_comment', commented('/agent-fix', { issue: issue({ state: 'closed' }) }), opts);
    expect(t).toEqual({ kind: 'skip', reason: 'issue #42 is closed.' });
  });

  test('parseCommand', () => {
    expect(parseCommand('/agent-fix')).toBe('');
    expect(parseCommand('/agent-fix\tdo it')).toBe('do it');
    expect(parseCommand('/agent-fixes')).toBeUndefined();
  });
});

// ---------------------------------------------------------------- a conversation on agent-fix's own pull request

function prIssue(over: Record<string, unknown> = {}) {
  return issue({
    number: 57,
    html_url: 'https://github.com/octo-org/widgets/pull/57',
    pull_request: {
      url: 'https://api.github.com/repos/octo-org/widgets/pulls/57',
      html_url: 'https://github.com/octo-org/widgets/pull/57',
      diff_url: 'https://github.com/octo-org/widgets/pull/57.diff',
      patch_url: 'https://github.com/octo-org/widgets/pull/57.patch',
      merged_at: null,
    },
    ...over,
  });
}

function pullRequest(headRef = 'agent-fix/issue-42', over: Record<string, unknown> = {}, headRepo: unknown = repository) {
  return {
    url: 'https://api.github.com/repos/octo-org/widgets/pulls/57',
    id: 1876543210,
    number: 57,
    state: 'open',
    title: 'agent-fix: parseDate throws on ISO week dates',
    user: user('github-actions[bot]', 'Bot'),
    body: 'report',
    head: { label: `octo-org:${headRef}`, ref: headRef, sha: 'a'.repeat(40), user: user('octo-org'), repo: headRepo },
    base: { label: 'octo-org:main', ref: 'main', sha: 'b'.repeat(40), user: user('octo-org'), repo: repository },
    ...over,
  };
}

function reviewed(state: string, over: Record<string, unknown> = {}, pr = pullRequest()) {
  return {
    action: 'submitted',
    review: {
      id: 80,
      node_id: 'PRR_kwDOA',
      user: user('maintainer'),
      body: 'Please also handle week 53.',
      state,
      html_url: 'https://github.com/octo-org/widgets/pull/57#pullrequestreview-80',
      pull_request_url: 'https://api.github.com/repos/octo-org/widgets/pulls/57',
      submitted_at: '2024-05-01T11:57:00Z',
      commit_id: 'a'.repeat(40),
      author_association: 'MEMBER',
    },
    pull_request: pr,
    repository,
    sender: user('maintainer'),
    ...over,
  };
}

function reviewCommented(body: string, over: Record<string, unknown> = {}, pr = pullRequest()) {
  return {
    action: 'created',
    comment: {
      id: 2100000001,
      pull_request_review_id: 81,
      diff_hunk: '@@ -1,3 +1,4 @@',
      path: 'src/date.js',
      line: 12,
      user: user('maintainer'),
      body,
      created_at: '2024-05-01T11:56:00Z',
      updated_at: '2024-05-01T11:56:00Z',
      in_reply_to_id: undefined,
    },
    pull_request: pr,
    repository,
    sender: user('maintainer'),
    ...over,
  };
}

describe('pull request conversation', () => {
  test('a review requesting changes on its own pull request -> pull trigger via review', () => {
    expect(parseTrigger('pull_request_review', reviewed('changes_requested'), opts)).toEqual({
      kind: 'pull',
      via: 'review',
      prNumber: 57,
      headRef: 'agent-fix/issue-42',
      actor: 'maintainer',
      triggeredAt: '2024-05-01T11:57:00Z',
      command: { verb: 'instructions', text: '' },
      commentId: null,
      reviewId: 80,
    });
  });

  test.each(['approved', 'commented', 'dismissed'])('a review in state %s -> skip', (state) => {
    const t = parseTrigger('pull_request_review', reviewed(state), opts);
    expect(t).toEqual({ kind: 'skip', reason: `the review's state is "${state}"; only a review that requests changes triggers a follow-up.` });
  });

  test.each(['edited', 'dismissed'])('review action %s -> skip', (action) => {
    const t = parseTrigger('pull_request_review', reviewed('changes_requested', { action }), opts);
    expect(t.kind === 'skip' && t.reason).toContain(`pull_request_review action "${action}" is not handled`);
  });

  test("a human's pull request, a fork's agent-fix/* branch, or a missing head repository -> skip", () => {
    const fork = { ...repository, full_name: 'mallory/widgets' };
    for (const pr of [pullRequest('feature/dates'), pullRequest('agent-fix/issue-42', {}, fork), pullRequest('agent-fix/issue-42', {}, null)]) {
      const t = parseTrigger('pull_request_review', reviewed('changes_requested', {}, pr), opts);
      expect(t.kind === 'skip' && t.reason).toContain("is not agent-fix's own");
      const c = parseTrigger('pull_request_review_comment', reviewCommented('/agent-fix rename it', {}, pr), opts);
      expect(c.kind === 'skip' && c.reason).toContain("is not agent-fix's own");
    }
  });

  test('a closed pull request -> skip', () => {
    const t = parseTrigger('pull_request_review', reviewed('changes_requested', {}, pullRequest('agent-fix/issue-42', { state: 'closed' })), opts);
    expect(t).toEqual({ kind: 'skip', reason: 'pull request #57 is closed.' });
  });

  test('a review by a bot (agent-fix itself included) -> skip: its own comments never trigger it', () => {
    for (const sender of [user('github-actions[bot]', 'Bot'), user('agent-fix-app[bot]', 'Bot')]) {
      expect(parseTrigger('pull_request_review', reviewed('changes_requested', { sender }), opts).kind).toBe('skip');
      expect(parseTrigger('pull_request_review_comment', reviewCommented('/agent-fix again', { sender }), opts).kind).toBe('skip');
      expect(parseTrigger('issue_comment', commented('/agent-fix again', { issue: prIssue(), sender }), opts).kind).toBe('skip');
    }
  });

  test('an inline /agent-fix review comment -> pull trigger via review-comment with its ids', () => {
    expect(parseTrigger('pull_request_review_comment', reviewCommented('/agent-fix use a named constant here'), opts)).toEqual({
      kind: 'pull',
      via: 'review-comment',
      prNumber: 57,
      headRef: 'agent-fix/issue-42',
      actor: 'maintainer',
      triggeredAt: '2024-05-01T11:56:00Z',
      command: { verb: 'instructions', text: 'use a named constant here' },
      commentId: 2100000001,
      reviewId: 81,
    });
  });

  test('an inline comment that is not the command, or an edit -> skip', () => {
    expect(parseTrigger('pull_request_review_comment', reviewCommented('nit: rename'), opts)).toEqual({ kind: 'skip', reason: 'the review comment does not start with /agent-fix.' });
    const t = parseTrigger('pull_request_review_comment', reviewCommented('/agent-fix x', { action: 'edited' }), opts);
    expect(t.kind === 'skip' && t.reason).toContain('pull_request_review_comment action "edited" is not handled');
  });

  test('/agent-fix rebase and continue on a pull request -> pull triggers with the verb', () => {
    expect(parseTrigger('issue_comment', commented('/agent-fix rebase', { issue: prIssue() }), opts)).toMatchObject({ kind: 'pull', via: 'comment', command: { verb: 'rebase' } });
    expect(parseTrigger('pull_request_review_comment', reviewCommented('/agent-fix rebase'), opts)).toMatchObject({ kind: 'pull', via: 'review-comment', command: { verb: 'rebase' } });
    expect(parseTrigger('issue_comment', commented('/agent-fix continue budget=$3', { issue: prIssue() }), opts)).toMatchObject({
      kind: 'pull',
      command: { verb: 'continue', budgetUsd: 3 },
    });
  });

  test('/agent-fix stop on an issue, a pull request and inline -> stop trigger, even when closed', () => {
    expect(parseTrigger('issue_comment', commented('/agent-fix stop'), opts)).toEqual({
      kind: 'stop',
      number: 42,
      onPullRequest: false,
      actor: 'maintainer',
      triggeredAt: '2024-05-01T11:58:00Z',
      commentId: 2088000001,
    });
    expect(parseTrigger('issue_comment', commented('/agent-fix stop', { issue: prIssue({ state: 'closed' }) }), opts)).toMatchObject({ kind: 'stop', number: 57, onPullRequest: true });
    expect(parseTrigger('pull_request_review_comment', reviewCommented('/agent-fix stop'), opts)).toMatchObject({ kind: 'stop', number: 57, onPullRequest: true, commentId: 2100000001 });
  });

  test('/agent-fix continue on an issue -> the issue story resuming, with the raised budget', () => {
    expect(parseTrigger('issue_comment', commented('/agent-fix continue budget=$2.50'), opts)).toMatchObject({
      kind: 'issue',
      via: 'comment',
      issueNumber: 42,
      extraInstructions: '',
      resume: { budgetUsd: 2.5 },
    });
    expect(parseTrigger('issue_comment', commented('/agent-fix continue'), opts)).toMatchObject({ kind: 'issue', resume: { budgetUsd: null } });
    const words = parseTrigger('issue_comment', commented('/agent-fix continue please'), opts);
    expect(words.kind === 'skip' && words.reason).toContain('use `/agent-fix continue` or `/agent-fix continue budget=$3`');
  });

  test('a malformed lifecycle command -> skip that says how to write it; rebase on an issue -> skip', () => {
    const bad = parseTrigger('issue_comment', commented('/agent-fix stop now'), opts);
    expect(bad.kind === 'skip' && bad.reason).toContain('`/agent-fix stop` takes no arguments');
    const budget = parseTrigger('issue_comment', commented('/agent-fix continue budget=$5000'), opts);
    expect(budget.kind === 'skip' && budget.reason).toContain('out of range');
    const rebase = parseTrigger('issue_comment', commented('/agent-fix rebase'), opts);
    expect(rebase).toEqual({ kind: 'skip', reason: "`/agent-fix rebase` works on agent-fix's own pull request, not on issue #42." });
  });

  test('an issue closed -> issue-closed trigger with its reason; a pull request closed -> skip', () => {
    const closed = { ...labeled(), action: 'closed', label: undefined, issue: issue({ state: 'closed', state_reason: 'not_planned', closed_at: '2024-05-01T11:59:00Z' }) };
    expect(parseTrigger('issues', closed, opts)).toEqual({ kind: 'issue-closed', issueNumber: 42, actor: 'maintainer', stateReason: 'not_planned', triggeredAt: '2024-05-01T11:59:00Z' });
    const pr = parseTrigger('issues', { ...closed, issue: prIssue({ state: 'closed' }) }, opts);
    expect(pr.kind).toBe('skip');
  });

  test('malformed review payloads never throw', () => {
    for (const p of [{ action: 'submitted', sender: user('maintainer') }, reviewed('changes_requested', { review: { state: 'changes_requested' } }), reviewCommented('/agent-fix x', { comment: { body: '/agent-fix x' } })]) {
      expect(parseTrigger('pull_request_review', p, opts).kind).toBe('skip');
      expect(parseTrigger('pull_request_review_comment', p, opts).kind).toBe('skip');
    }
  });
});

// ---------------------------------------------------------------- workflow_dispatch

describe('workflow_dispatch', () => {
  test('issue-number input -> issue trigger via dispatch at now', () => {
    expect(parseTrigger('workflow_dispatch', dispatched({ 'issue-number': '42' }), opts)).toEqual({
      kind: 'issue',
      via: 'dispatch',
      issueNumber: 42,
      actor: 'maintainer',
      extraInstructions: '',
      triggeredAt: NOW,
    });
  });

  test('optional instructions input and a number-typed input', () => {
    expect(parseTrigger('workflow_dispatch', dispatched({ 'issue-number': 7, instructions: ' only touch src/ ' }), opts)).toMatchObject({
      issueNumber: 7,
      extraInstructions: 'only touch src/',
    });
    expect(parseTrigger('workflow_dispatch', dispatched({ 'issue-number': ' #8 ' }), opts)).toMatchObject({ issueNumber: 8 });
  });

  test.each([undefined, {}, { 'issue-number': '' }, { 'issue-number': '  ' }])('missing issue-number (%j) -> skip naming the input', (inputs) => {
    const t = parseTrigger('workflow_dispatch', dispatched(inputs as Record<string, unknown> | undefined), opts);
    expect(t).toEqual({ kind: 'skip', reason: 'workflow_dispatch input "issue-number" is missing; give the number of the issue to fix.' });
  });

  test.each(['abc', '0', '-4', '4.5', '12abc'])('invalid issue-number %j -> skip naming the input and value', (value) => {
    const t = parseTrigger('workflow_dispatch', dispatched({ 'issue-number': value }), opts);
    expect(t).toEqual({ kind: 'skip', reason: `workflow_dispatch input "issue-number" must be a positive whole number (got ${JSON.stringify(value)}).` });
  });
});

// ---------------------------------------------------------------- everything else

describe('other events', () => {
  test.each(['push', 'pull_request', 'schedule'])('%s -> skip', (name) => {
    expect(parseTrigger(name, { ref: 'refs/heads/main', sender: user('maintainer') }, opts)).toEqual({
      kind: 'skip',
      reason: `event "${name}" is not handled (agent-fix reacts to issues, issue_comment, pull_request_review, pull_request_review_comment, workflow_dispatch and workflow_run).`,
    });
  });

  test('workflow_run without a completed action -> skip (parsed by src/ci/trigger.ts)', () => {
    expect(parseTrigger('workflow_run', { ref: 'refs/heads/main', sender: user('maintainer') }, opts)).toEqual({
      kind: 'skip',
      reason: 'workflow_run action "(none)" is not handled (agent-fix repairs completed runs that failed).',
    });
  });

  test('null or non-object payloads never throw', () => {
    for (const p of [null, undefined, 'x', 42, []]) {
      expect(parseTrigger('issues', p, opts).kind).toBe('skip');
      expect(parseTrigger('issue_comment', p, opts).kind).toBe('skip');
    }
  });

  test('reasons are one sentence', () => {
    const reasons = [
      parseTrigger('push', {}, opts),
      parseTrigger('issues', labeled('bug'), opts),
      parseTrigger('issue_comment', commented('hi'), opts),
      parseTrigger('workflow_dispatch', dispatched({}), opts),
    ].map((t) => (t.kind === 'skip' ? t.reason : ''));
    for (const r of reasons) {
      expect(r).toMatch(/\.$/);
      expect(r).not.toContain('\n');
    }
  });
});
