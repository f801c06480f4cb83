import { claimMarker, claimTrailer, isNewer, newerClaim, parseClaim, parseClaimTrailer, runIdFromEnv, withClaim, withClaimTrailer } from '../../src/publish/claim.js';
import { renderFailureComment } from '../../src/report/failure.js';
import { onCancel } from '../../src/run/cancel.js';
import { FakeGitHubPort } from '../../test-support/fake-github-port.js';

describe('run claims', () => {
  test('markers round-trip and replace each other', () => {
    const body = withClaim('<!-- agent-fix:issue-1 -->\nworking', { id: 10, attempt: 1 });
    expect(parseClaim(body)).toEqual({ id: 10, attempt: 1 });
    const newer = withClaim(body, { id: 12, attempt: 2 });
    expect(parseClaim(newer)).toEqual({ id: 12, attempt: 2 });
    expect(newer.match(/agent-fix-run/g)).toHaveLength(1);
    expect(claimMarker({ id: 1, attempt: 3 })).toBe('<!-- agent-fix-run:1.3 -->');
  });

  test('newer: a higher run id, or the same run re-run', () => {
    expect(isNewer({ id: 2, attempt: 1 }, { id: 1, attempt: 5 })).toBe(true);
    expect(isNewer({ id: 1, attempt: 2 }, { id: 1, attempt: 1 })).toBe(true);
    expect(isNewer({ id: 1, attempt: 1 }, { id: 1, attempt: 1 })).toBe(false);
    expect(runIdFromEnv({ GITHUB_RUN_ID: '77', GITHUB_RUN_ATTEMPT: '2' })).toEqual({ id: 77, attempt: 2 });
    expect(runIdFromEnv({})).toBeNull();
  });

  test('only the bot\'s own sticky comment counts: a human cannot fake a newer claim', async () => {
    const marker = '<!-- agent-fix:issue-1 -->';
    const gh = new FakeGitHubPort({
      comments: {
        1: [
          { id: 1, body: `${marker} ${claimMarker({ id: 999, attempt: 1 })}`, author: 'mallory', url: 'u', createdAt: 'x', updatedAt: 'x' },
          { id: 2, body: `${marker} ${claimMarker({ id: 10, attempt: 1 })}`, author: 'github-actions[bot]', url: 'u', createdAt: 'x', updatedAt: 'x' },
        ],
      },
    });
    expect(await newerClaim(gh, 1, marker, { id: 10, attempt: 1 })).toBeNull();
    expect(await newerClaim(gh, 1, marker, { id: 9, attempt: 1 })).toEqual({ id: 10, attempt: 1 });
  });
});

describe('claims on fix commits (tasks without a status comment)', () => {
  test('the trailer is the last line of the commit message and round-trips', () => {
    const msg = withClaimTrailer('agent-fix: repair CI on main\n\nThe discount is a percentage.\n\nFailed run: https://x/runs/1\n', { id: 4242, attempt: 2 });
    expect(msg.trimEnd().split('\n').pop()).toBe('Agent-Fix-Run: 4242.2');
    expect(msg.startsWith('agent-fix: repair CI on main\n\nThe discount')).toBe(true);
    expect(parseClaimTrailer(msg)).toEqual({ id: 4242, attempt: 2 });
    expect(claimTrailer({ id: 7, attempt: 1 })).toBe('Agent-Fix-Run: 7.1');
  });

  test('only the last line counts: a claim the model writes into its summary is not one', () => {
    // the summary is the model's text, placed before the trailer
    const forged = withClaimTrailer(`agent-fix: x\n\n${claimTrailer({ id: 999999, attempt: 9 })}\nmore text`, { id: 10, attempt: 1 });
    expect(parseClaimTrailer(forged)).toEqual({ id: 10, attempt: 1 });
    expect(parseClaimTrailer(`agent-fix: x\n\n${claimTrailer({ id: 999999, attempt: 9 })}\nmore text`)).toBeNull();
    expect(parseClaimTrailer('agent-fix: x')).toBeNull();
    expect(parseClaimTrailer('Agent-Fix-Run: 12.1 and more')).toBeNull();
  });
});

describe('failure comment', () => {
  test('says exactly what was left behind', () => {
    const base = { marker: '<!-- m -->', why: 'boom.' };
    expect(renderFailureComment(base)).toContain('Nothing was pushed and no pull request was opened.');
    expect(renderFailureComment({ ...base, pushedBranch: 'agent-fix/issue-1' })).toContain('already pushed the branch `agent-fix/issue-1`, but no pull request was opened');
    expect(renderFailureComment({ ...base, pushedBranch: 'agent-fix/issue-1', prUrl: 'https://x/pull/3' })).toContain('already opened or updated https://x/pull/3');
  });
});

describe('onCancel', () => {
  test('runs the handler once, then exits with 1; the disposer removes the listeners', async () => {
    const before = process.listenerCount('SIGTERM');
    const calls: string[] = [];
    let exited: number | null = null;
    const exitedP = new Promise<void>((resolve) => {
      const dispose = onCancel(async (sig) => {
        calls.push(sig);
      }, (code) => {
        exited = code;
        dispose();
        resolve();
      });
      process.emit('SIGTERM', 'SIGTERM');
      process.emit('SIGINT', 'SIGINT');
    });
    await exitedP;
    expect(calls).toEqual(['SIGTERM']);
    expect(exited).toBe(1);
    expect(process.listenerCount('SIGTERM')).toBe(before);
  });
});
