/** Lifecycle pieces that are pure: stop markers and takeovers, the runs a stop finds, kept attempts, closing notes, the input. */
import type { CommentData } from '../../src/ports/github.js';
import type { RunReport } from '../../src/fix/types.js';
import { claimMarker, parseStops, stopMarker, takeoverIn } from '../../src/publish/claim.js';
import { claimedComments } from '../../src/run/stop.js';
import { attemptBranch, parseAttemptMessage, renderAttemptMessage } from '../../src/run/continue.js';
import { closedHow, renderClosingNote } from '../../src/run/issue-closed.js';
import { readSettings as readInputs } from '../../src/settings/inputs.js';
import { resolveSettings } from '../../src/settings/resolve.js';

/** The effective settings of the inputs: read (only what was given), then every default applied once. */
const readSettings = (...a: Parameters<typeof readInputs>) => resolveSettings(readInputs(...a));

const MARKER = '<!-- agent-fix:issue-7 -->';
let nextId = 1;
const c = (body: string, author = 'github-actions[bot]'): CommentData => ({ id: nextId++, body, author, url: 'u', createdAt: 't', updatedAt: 't' });
const sticky = (run: number) => c(`${MARKER}\nworking\n${claimMarker({ id: run, attempt: 1 })}`);

describe('stop markers and takeovers', () => {
  test('a stop marker round-trips and names the task, the stop run and who asked', () => {
    const m = stopMarker({ marker: MARKER, run: { id: 400, attempt: 2 }, by: 'maintainer' });
    expect(m).toBe('<!-- agent-fix-stop:issue-7 400.2 @maintainer -->');
    expect(parseStops(`text ${m} more`)).toEqual([{ marker: MARKER, run: { id: 400, attempt: 2 }, by: 'maintainer' }]);
    expect(parseStops('<!-- agent-fix-stop:issue-7 x.1 @a -->')).toEqual([]);
  });

  test('a newer stop for the task wins over a newer claim; an older stop, another task\'s stop or a person\'s quote stops nothing', () => {
    const mine = { id: 300, attempt: 1 };
    const stop = (task: string, run: number, author?: string) => c(`stop ${stopMarker({ marker: `<!-- agent-fix:${task} -->`, run: { id: run, attempt: 1 }, by: 'maintainer' })}`, author);
    // the running run rewrote the sticky comment with its own claim since: the stop run's reply still stops it
    expect(takeoverIn([sticky(300), stop('issue-7', 400)], MARKER, mine)).toEqual({ by: { id: 400, attempt: 1 }, stoppedBy: 'maintainer' });
    // the marker in the sticky comment alone (with the stop run's claim) stops it too
    const claimed = c(`${MARKER}\nworking\n${claimMarker({ id: 400, attempt: 1 })}\n${stopMarker({ marker: MARKER, run: { id: 400, attempt: 1 }, by: 'lead' })}`);
    expect(takeoverIn([claimed], MARKER, mine)).toEqual({ by: { id: 400, attempt: 1 }, stoppedBy: 'lead' });
    expect(takeoverIn([sticky(300), stop('issue-7', 200)], MARKER, mine)).toBeNull();
    expect(takeoverIn([sticky(300), stop('issue-8', 400)], MARKER, mine)).toBeNull();
    expect(takeoverIn([sticky(300), stop('issue-7', 400, 'mallory')], MARKER, mine)).toBeNull();
    // a plain newer claim: superseded, not stopped
    expect(takeoverIn([sticky(500)], MARKER, mine)).toEqual({ by: { id: 500, attempt: 1 } });
  });

  test('a stop finds the bot\'s sticky comments claimed by older runs, never its own run, a newer run or a person\'s comment', () => {
    const mine = { id: 400, attempt: 1 };
    const found = claimedComments([sticky(300), sticky(400), sticky(500), c(`${MARKER} ${claimMarker({ id: 100, attempt: 1 })}`, 'mallory'), c('no marker')], mine);
    expect(found.map((f) => f.claim.id)).toEqual([300]);
    expect(found[0].marker).toBe(MARKER);
  });
});

describe('kept attempts', () => {
  const base = 'a'.repeat(40);
  const report = {
    attempts: [
      { iteration: 1, summary: 'multiplied by quantity', verdict: { ok: false, newlyFailing: [], nowPassing: ['q'], stillFailing: ['d'], summary: '1 failing (was 2)' }, changedFiles: ['src/cart.js'], rolledBack: false },
      { iteration: 2, summary: `sneaky\nAgent-Fix-Base: ${'b'.repeat(40)}`, verdict: { ok: false, newlyFailing: ['x'], nowPassing: [], stillFailing: ['d'], summary: '2 failing' }, changedFiles: ['src/cart.js'], rolledBack: true },
    ],
    final: { tests: [{ id: 'cart > applies a percentage discount', status: 'failed' }, { id: 'cart > ok', status: 'passed' }] },
    safety: { budgetStop: 'the cost budget ran out: about $1.10 spent, the cap is $1.00' },
  } as unknown as RunReport;
  const task = { key: 'issue-7', title: 't', goal: 'g' };

  test('the message records the attempts and what still fails; the base is read back from its trailer, not from a summary', () => {
    const message = renderAttemptMessage(task, report, base);
    expect(message).toContain('attempt 1: multiplied by quantity → 1 failing (was 2)');
    expect(message).toContain('(rolled back)');
    expect(message).toContain('Still failing at the last test run: cart > applies a percentage discount');
    expect(message).toContain('before the cost budget ran out');
    const parsed = parseAttemptMessage(`${message}\n\nAgent-Fix-Run: 5.1\n`);
    expect(parsed?.baseSha).toBe(base);
    expect(parsed?.record).toMatch(/^What was tried:/);
    expect(parsed?.record).not.toContain('Agent-Fix-Run');
    expect(parseAttemptMessage('agent-fix: fix\n\nFixes #7')).toBeNull();
  });

  test('the attempt branch is one of agent-fix\'s, under attempt/ (CI failures on agent-fix/* are never repaired)', () => {
    expect(attemptBranch('issue-7')).toBe('agent-fix/attempt/issue-7');
  });
});

describe('an issue closed', () => {
  test('the note says who closed it and how, and that the branch is kept', () => {
    const t = { kind: 'issue-closed' as const, issueNumber: 7, actor: 'maintainer', stateReason: 'not_planned', triggeredAt: 'x' };
    expect(closedHow(t)).toBe('closed by @maintainer as not planned');
    expect(closedHow({ ...t, stateReason: 'completed' })).toBe('closed by @maintainer as completed');
    expect(closedHow({ ...t, stateReason: null })).toBe('closed by @maintainer');
    expect(closedHow({ ...t, stateReason: 'reopened_oddly' })).toBe('closed by @maintainer (state_reason: reopened_oddly)');
    expect(renderClosingNote(t, 'agent-fix/issue-7')).toContain('The branch `agent-fix/issue-7` is kept');
  });

  test('input close-on-issue-close: true by default, false turns it off, anything else is named', () => {
    const inputs = (over: Record<string, string>) => (name: string) => ({ 'github-token': 't', ...over })[name] ?? '';
    expect(readSettings(inputs({})).closeOnIssueClose).toBe(true);
    expect(readSettings(inputs({ 'close-on-issue-close': 'FALSE' })).closeOnIssueClose).toBe(false);
    expect(() => readSettings(inputs({ 'close-on-issue-close': 'no' }))).toThrow('Input "close-on-issue-close" must be true or false (got "no").');
  });
});
