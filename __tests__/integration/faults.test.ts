/**
 * Fault-injection suite: the fake GitHub API and the scripted model fail on demand; every case
 * asserts what happened, that nothing was duplicated or lost, and that the issue comment ends
 * in a final, truthful state.
 */
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { mainWorld, FIX_STEPS, botComments, remoteBranch, ISSUE, type MainWorld } from '../../test-support/run-main.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';

const worlds: MainWorld[] = [];
async function world(...a: Parameters<typeof mainWorld>): Promise<MainWorld> {
  const w = await mainWorld(...a);
  worlds.push(w);
  return w;
}
afterAll(async () => {
  for (const w of worlds.splice(0)) await w.close();
  cleanupFixtures();
});

describe('happy path (baseline for the faults below)', () => {
  test('a fix becomes one draft PR; the report names the policy, the isolation and the budget', async () => {
    const w = await world({ steps: FIX_STEPS });
    const r = await w.run();
    expect(r.rt.failed).toBeNull();
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    // the PR holds the whole report (the comment is its first screen and links it)
    const [c] = botComments(w.github);
    expect(c.body).toContain(`/pull/${w.github.pulls[0].number}`);
    const body = w.github.pulls[0].body;
    expect(body).toContain('the default policy (no .github/agent-fix.yml on main)');
    expect(body).toMatch(/Isolation: setup: (sandboxed \(.*\), )?network allowed by the policy; tests: /);
    expect(body).toMatch(/Budget: tokens \d+ of 2000000/);
    w.github.assertNoViolations();
  });
});

describe('model faults', () => {
  test('429 with retry-after is waited out and retried; the run goes on to a fix', async () => {
    const w = await world({ steps: [{ error: { status: 429, headers: { 'retry-after': '0' }, message: 'Rate limit reached' } }, ...FIX_STEPS] });
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.model.consumed).toBe(3);
    expect(w.github.pulls).toHaveLength(1);
  });

  test('5xx that persists after retries ends the run cleanly: not fixed, nothing pushed, the comment says why', async () => {
    const e500 = { error: { status: 500, headers: { 'retry-after-ms': '1' }, message: 'upstream exploded' } };
    const w = await world({ steps: [FIX_STEPS[0], e500, e500, e500] });
    const r = await w.run();
    expect(r.rt.failed).toBeNull();
    expect(r.rt.outputs.status).toBe('not-fixed');
    expect(w.github.pulls).toHaveLength(0);
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBeNull();
    const [c] = botComments(w.github);
    expect(c.body).toContain('finished: not fixed');
    expect(c.body).toContain('the model could not be reached or answered with an error');
    expect(c.body).toContain('HTTP 500');
    expect(c.body).not.toContain('is working on this');
    expect(r.transcript).toContain('model request failed');
    w.github.assertNoViolations();
  });

  test('429 asking to wait longer than the adapter accepts ends the run at once with a clear report', async () => {
    const w = await world({ steps: [{ error: { status: 429, headers: { 'retry-after': '3600' }, message: 'Rate limit of 10 per day reached' } }, ...FIX_STEPS] });
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('not-fixed');
    expect(w.model.consumed).toBe(1);
    expect(botComments(w.github)[0].body).toContain('the server asks to wait 3600s');
  });

  test('a model endpoint that refuses connections fails the endpoint check: a clear error before any test runs', async () => {
    const w = await world({ steps: FIX_STEPS });
    const { startScriptedModel } = await import('../../src/scripted/server.js');
    const dead = await startScriptedModel({ steps: [] });
    await dead.close();
    const r = await w.run({ inputs: { 'base-url': dead.url }, overrides: { model: { maxRetries: 0 } } });
    expect(r.rt.outputs.status).toBe('error');
    expect(r.rt.outputs.reason).toBe('model-error');
    expect(r.rt.failed).toMatch(/model endpoint check failed, so nothing was run: could not reach the model endpoint .* Check the `base-url` input/);
    const [c] = botComments(w.github);
    expect(c.body).toMatch(/could not reach the model endpoint/);
    // no test command ran: the baseline is "not run"
    expect(JSON.parse(r.transcript).result.baseline).toBeNull();
    expect(r.transcript).not.toContain('"test-run"');
  });

  test('a model endpoint that never answers fails the endpoint check: a clear error before any test runs', async () => {
    const { createServer } = await import('node:http');
    const hang = createServer(() => undefined);
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', () => resolve()));
    const port = (hang.address() as { port: number }).port;
    try {
      const w = await world({ steps: FIX_STEPS });
      const r = await w.run({ inputs: { 'base-url': `http://127.0.0.1:${port}/v1` }, overrides: { model: { maxRetries: 0, timeoutMs: 300 } } });
      expect(r.rt.outputs.status).toBe('error');
      expect(r.rt.failed).toContain('The model endpoint check failed, so nothing was run');
      expect(r.transcript).not.toContain('"test-run"');
      expect(botComments(w.github)[0].body).toMatch(/timed out|could not reach the model endpoint/);
    } finally {
      hang.closeAllConnections();
      hang.close();
    }
  });

  test('malformed tool-call JSON, unknown tools, empty and cut-off answers become feedback; the run still fixes', async () => {
    const w = await world({
      steps: [
        { toolCalls: [{ name: 'edit_file', arguments: '{"path": "src/add.js", "old_string": ' }] },
        { expect: { lastMessageIncludes: 'not valid JSON' }, toolCalls: [{ name: 'rm_rf', arguments: {} }] },
        { expect: { lastMessageIncludes: 'Unknown tool' }, content: '' },
        { expect: { lastMessageIncludes: 'calling a tool' }, truncated: true, content: 'I will now write a very long' },
        { expect: { lastMessageIncludes: 'cut off at the token limit' }, ...FIX_STEPS[0] },
        FIX_STEPS[1],
      ],
    });
    const r = await w.run();
    expect(w.model.mismatches).toEqual([]);
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
  });
});

describe('budgets end the run with a partial report, never silently', () => {
  test('token budget', async () => {
    const big = { usage: { promptTokens: 6000, completionTokens: 10 } };
    const w = await world({ steps: [{ ...FIX_STEPS[0], ...big }, { toolCalls: [{ name: 'read_file', arguments: { path: 'src/add.js' } }], ...big }, FIX_STEPS[1]] });
    const r = await w.run({ inputs: { 'max-tokens': '10000' } });
    expect(r.rt.outputs.status).toBe('not-fixed');
    expect(w.model.consumed).toBe(2);
    expect(w.github.pulls).toHaveLength(0);
    const [c] = botComments(w.github);
    expect(c.body).toContain('the token budget ran out: 12020 tokens used, the cap is 10000');
    expect(c.body).toContain('The report below is partial');
    expect(c.body).toContain('Stopped by the budget');
  });

  test('cost budget, with an overridden price table', async () => {
    const w = await world({ steps: [{ ...FIX_STEPS[0], usage: { promptTokens: 1000, completionTokens: 1000 } }, FIX_STEPS[1]] });
    const r = await w.run({ inputs: { 'max-cost-usd': '0.5', 'model-prices': '{"scripted": {"input": 300, "output": 300}}' } });
    expect(r.rt.outputs.status).toBe('not-fixed');
    expect(botComments(w.github)[0].body).toContain('the cost budget ran out: about $0.60 spent, the cap is $0.50');
  });
});

describe('GitHub faults', () => {
  test('5xx on comment and PR writes are retried: one comment, one PR', async () => {
    const w = await world({ steps: FIX_STEPS });
    w.github.failNext({ method: 'POST', path: '/repos/{owner}/{repo}/issues/{issue_number}/comments', status: 502, times: 2 });
    w.github.failNext({ method: 'POST', path: '/repos/{owner}/{repo}/pulls', status: 503 });
    w.github.failNext({ method: 'PATCH', path: '/repos/{owner}/{repo}/issues/comments/{comment_id}', status: 500 });
    const r = await w.run();
    if (r.rt.outputs.status !== 'fixed') console.log(botComments(w.github).map((c) => c.body).join('\n----\n'), r.rt.logs.join('\n'));
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(botComments(w.github)).toHaveLength(1);
    expect(botComments(w.github)[0].body).toContain('opened');
  });

  test('GitHub failing for good while reading the policy: the step fails, nothing else happens', async () => {
    const w = await world({ steps: FIX_STEPS });
    w.github.failNext({ method: 'GET', path: '/repos/{owner}/{repo}/contents/{path}', status: 502, times: 20 });
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('error');
    expect(r.rt.failed).toMatch(/contents.*502/);
    expect(r.rt.summary).toContain('agent-fix: Error');
    expect(r.rt.summary).toMatch(/contents.*502/);
    expect(w.github.comments).toHaveLength(0);
    expect(w.model.requests).toHaveLength(0);
  });

  test('a secondary rate limit (403 + retry-after) is waited out', async () => {
    const w = await world({ steps: FIX_STEPS });
    w.github.failNext({ method: 'POST', path: '/repos/{owner}/{repo}/pulls', status: 403, body: { message: 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.' }, headers: { 'retry-after': '1' } });
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(r.rt.logs.join('\n')).toMatch(/secondary rate limit/);
  });

  test('422 "pull request already exists" (a race with another run) updates that PR instead of failing', async () => {
    const w = await world({ steps: FIX_STEPS });
    // the other run's PR appears between our lookup and our create
    w.github.failNext({ method: 'GET', path: '/repos/{owner}/{repo}/pulls', status: 200, body: [] });
    const pushedBefore = w.github.addPull({ title: 'agent-fix: add is wrong', head: 'agent-fix/issue-7', draft: true });
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(r.rt.outputs['pr-number']).toBe(String(pushedBefore.number));
    expect(w.github.pulls[0].body).toContain('Fixes #7');
  });

  test('404 when updating the PR found a moment before: the run recovers and leaves exactly one up-to-date PR', async () => {
    const w = await world({ steps: FIX_STEPS });
    w.github.addPull({ title: 'old', head: 'agent-fix/issue-7', draft: true });
    w.github.failNext({ method: 'PATCH', path: '/repos/{owner}/{repo}/pulls/{pull_number}', status: 404 });
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(w.github.pulls[0].body).toContain('Fixes #7');
    expect(botComments(w.github)[0].body).toContain('opened');
  });

  test('a closed PR whose branch was deleted: a new branch and a new PR, the closed one untouched', async () => {
    const w = await world({ steps: FIX_STEPS });
    const old = w.github.addPull({ title: 'old', head: 'agent-fix/issue-7', draft: true, state: 'closed' });
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(2);
    expect(w.github.pulls.find((p) => p.number === old.number)).toMatchObject({ state: 'closed', title: 'old' });
    expect(r.rt.outputs['pr-number']).not.toBe(String(old.number));
  });

  test('push rejected by the remote (protected branch): error report, no PR, the comment says so', async () => {
    const w = await world({ steps: FIX_STEPS });

    const hook = `${w.repo.remoteDir}/hooks/pre-receive`;
    writeFileSync(hook, '#!/bin/sh\necho "GH006: Protected branch update failed for refs/heads/agent-fix/issue-7." >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('error');
    expect(r.rt.failed).toContain('pushing agent-fix/issue-7 was rejected');
    expect(w.github.pulls).toHaveLength(0);
    const [c] = botComments(w.github);
    expect(c.body).toContain('was rejected');
    expect(c.body).not.toContain('is working on this');
  });

  test('PR creation failing for good after the push: the comment truthfully says the branch was pushed', async () => {
    const w = await world({ steps: FIX_STEPS });
    w.github.failNext({ method: 'POST', path: '/repos/{owner}/{repo}/pulls', status: 500, times: 10 });
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('error');
    expect(r.rt.outputs.branch).toBe('agent-fix/issue-7');
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBeTruthy();
    expect(w.github.pulls).toHaveLength(0);
    const [c] = botComments(w.github);
    expect(c.body).toContain('stopped with an error');
    expect(c.body).toContain('already pushed the branch `agent-fix/issue-7`, but no pull request was opened');
    expect(c.body).not.toContain('changed nothing');
    // The job's step summary is not left empty: it says how the run ended and what exists.
    expect(r.rt.summary).toContain('agent-fix: Error');
    expect(r.rt.summary).toContain('already pushed the branch `agent-fix/issue-7`, but no pull request was opened');
  });

  test('a push rejected once with GitHub\'s "fatal error in commit_refs" is retried: fixed, one commit, one PR', async () => {
    const w = await world({ steps: FIX_STEPS });
    const hook = `${w.repo.remoteDir}/hooks/pre-receive`;
    const counter = `${w.repo.remoteDir}/attempts`;
    writeFileSync(hook, `#!/bin/sh\nc=$(cat "${counter}" 2>/dev/null || echo 0); c=$((c+1)); echo $c > "${counter}"\nif [ $c -le 1 ]; then echo "fatal error in commit_refs" >&2; exit 1; fi\n`);
    chmodSync(hook, 0o755);
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(readFileSync(counter, 'utf8').trim()).toBe('2');
    expect(w.repo.git('--git-dir', w.repo.remoteDir, 'rev-list', '--count', `${w.repo.sha}..refs/heads/agent-fix/issue-7`)).toBe('1');
  });

  test('a human commit on the branch is never overwritten', async () => {
    const w = await world({ steps: FIX_STEPS });
    const { commitAs, cloneFull, HUMAN } = await import('../../test-support/git-fixture.js');
    const c = cloneFull(w.repo.remoteUrl);
    c.git('checkout', '-b', 'agent-fix/issue-7');
    commitAs(c.dir, HUMAN, { 'NOTES.md': 'mine\n' }, 'human work');
    c.git('push', 'origin', 'agent-fix/issue-7');
    const before = remoteBranch(w.repo, 'agent-fix/issue-7');
    const r = await w.run();
    expect(r.rt.outputs.status).toBe('not-fixed');
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBe(before);
    expect(botComments(w.github)[0].body).toContain("agent-fix never overwrites a human's commits");
  });
});

describe('test command faults', () => {
  test('a missing test command is a clear error', async () => {
    const w = await world({ steps: FIX_STEPS });
    const r = await w.run({ inputs: { 'test-command': 'definitely-not-a-command-xyz' } });
    expect(r.rt.outputs.status).toBe('error');
    expect(w.model.requests).toHaveLength(0);
    expect(botComments(w.github)[0].body).toContain('could not be run (exit 127: command not found)');
  });

  test('background processes a test run leaves behind are killed with its process group', async () => {
    const w = await world({ steps: FIX_STEPS });
    const r = await w.run({ inputs: { 'test-command': '(sleep 301.25 &) ; node test.js' } });
    expect(r.rt.outputs.status).toBe('fixed');
    const { spawnSync } = await import('node:child_process');
    const ps = spawnSync('ps', ['-eo', 'args'], { encoding: 'utf8' }).stdout ?? '';
    expect(ps.split('\n').filter((l) => l.includes('sleep 301.25'))).toEqual([]);
  });

  test('a flood of output is capped everywhere (model request, comment, transcript)', async () => {
    const w = await world({ steps: FIX_STEPS });
    const r = await w.run({ inputs: { 'test-command': 'node -e "process.stdout.write(\'x\'.repeat(20000000))"; node test.js' } });
    expect(r.rt.outputs.status).toBe('fixed');
    expect(JSON.stringify(w.model.requests).length).toBeLessThan(2_000_000);
    expect(r.transcript.length).toBeLessThan(5_000_000);
  });
});

describe('concurrency', () => {
  test('a run that sees a newer run claim the task yields: no push, no PR, the newer run publishes once', async () => {
    const w = await world({ steps: FIX_STEPS });
    const { startScriptedModel } = await import('../../src/scripted/server.js');
    // while the older run (100) waits for the model's finish, a newer run (200) claims the task
    let claimed = false;
    const older = await startScriptedModel(
      { steps: FIX_STEPS },
      {
        onRequest: () => {
          const c = botComments(w.github)[0];
          if (c && !claimed && c.body.includes('agent-fix-run:100.1')) {
            c.body = c.body.replace('agent-fix-run:100.1', 'agent-fix-run:200.1');
            claimed = true;
          }
        },
      },
    );
    const a = await w.run({ runId: 100, model: older });
    expect(claimed).toBe(true);
    expect(a.rt.outputs.status).toBe('skipped');
    expect(a.rt.logs.join('\n')).toContain('yields');
    expect(a.rt.summary).toContain('### agent-fix: Superseded');
    expect(a.rt.summary).toContain('A newer agent-fix run has taken over issue #7; this run (100, attempt 1) yields to it');
    expect(a.rt.summary).toContain('This run pushed nothing and opened no pull request');
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBeNull();
    expect(w.github.pulls).toHaveLength(0);
    const b = await w.run({ runId: 200 });
    expect(b.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(botComments(w.github)).toHaveLength(1);
    // a third, sequential run updates the same PR
    const again = await startScriptedModel({ steps: FIX_STEPS });
    const c = await w.run({ runId: 300, model: again, inputs: { 'base-url': again.url } });
    expect(c.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    expect(botComments(w.github)).toHaveLength(1);
    w.github.assertNoViolations();
  });

  test('a newer run that pushed the branch after this run checked the comment: the push sees its commit and this run yields', async () => {
    const w = await world({ steps: FIX_STEPS });
    const { startScriptedModel } = await import('../../src/scripted/server.js');
    const { gitIn } = await import('../../test-support/git-fixture.js');
    const { BOT_IDENTITY } = await import('../../src/main.js');
    // while the older run (100) works, a newer run (200) pushes its fix commit to the branch
    let newer = '';
    const older = await startScriptedModel(
      { steps: FIX_STEPS },
      {
        onRequest: () => {
          if (newer) return;
          const bot = gitIn(w.repo.remoteDir, BOT_IDENTITY);
          newer = bot('commit-tree', `${w.repo.sha}^{tree}`, '-p', w.repo.sha, '-m', 'agent-fix: add is wrong', '-m', 'Agent-Fix-Run: 200.1');
          bot('update-ref', 'refs/heads/agent-fix/issue-7', newer);
        },
      },
    );
    const a = await w.run({ runId: 100, model: older });
    expect(newer).not.toBe('');
    expect(a.rt.outputs.status).toBe('skipped');
    expect(a.rt.logs.join('\n')).toContain('a newer run (200, attempt 1) has already pushed agent-fix/issue-7; this run yields');
    expect(a.rt.summary).toContain('### agent-fix: Superseded');
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBe(newer);
    expect(w.github.pulls).toHaveLength(0);
    // the comment is left to the newer run: still this run's "working on it", never a final report of a fix it did not publish
    expect(botComments(w.github)[0].body).toContain('is working on this');
    w.github.assertNoViolations();
  });
});

void ISSUE;

describe('cancellation', () => {
  test('SIGTERM (cancelled or timed-out job) leaves the comment final and truthful before exiting', async () => {
    const w = await world({ steps: FIX_STEPS });
    const { startScriptedModel } = await import('../../src/scripted/server.js');
    let sent = false;
    const m = await startScriptedModel({ steps: FIX_STEPS }, { onRequest: () => {
      if (!sent) {
        sent = true;
        process.emit('SIGTERM', 'SIGTERM');
      }
    } });
    let atExit: { code: number; comment: string } | null = null;
    // in production exit() ends the process; here the run goes on, so wait for it too
    await w.run({ model: m, overrides: { exit: (code) => {
      atExit ??= { code, comment: botComments(w.github)[0]?.body ?? '' };
    } } });
    await m.close();
    expect(atExit!.code).toBe(1);
    expect(atExit!.comment).toContain('cancelled or timed out (SIGTERM)');
    expect(atExit!.comment).toContain('Nothing was pushed and no pull request was opened.');
    expect(process.listenerCount('SIGTERM')).toBeLessThanOrEqual(1);
  });
});

describe('git states', () => {
  test('detached HEAD in a shallow clone, a dirty tree left by setup, LFS pointers and a submodule: only the fix is published', async () => {
    const pointer = 'version https://git-lfs.github.com/spec/v1\noid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 12345\n';
    const files = { ...(await import('../../test-support/run-main.js')).ADDER, '.gitattributes': '*.bin filter=lfs diff=lfs merge=lfs -text\n', 'assets/model.bin': pointer, 'notes.txt': 'notes\n' };
    const w = await world({
      steps: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'assets/model.bin', content: 'not a pointer any more' } }] },
        { expect: { lastMessageIncludes: 'protected' }, toolCalls: [{ name: 'write_file', arguments: { path: 'vendor/lib/x.js', content: 'x' } }] },
        { expect: { lastMessageIncludes: 'protected' }, ...FIX_STEPS[0] },
        FIX_STEPS[1],
      ],
    }, files);
    const { gitIn } = await import('../../test-support/git-fixture.js');
    const { writeFileSync } = await import('node:fs');
    const r = await w.run({
      // setup dirties the tree: a build output and a modified tracked file
      inputs: { 'setup-command': 'mkdir -p build && echo out > build/out.txt && echo touched >> notes.txt' },
      prepare: (dir) => {
        const g = gitIn(dir);
        g('checkout', '--detach');
        // a submodule entry (gitlink) in the index, as a checkout with submodules has
        g('update-index', '--add', '--cacheinfo', `160000,${g('rev-parse', 'HEAD')},vendor/lib`);
        writeFileSync(`${dir}/.gitmodules`, '[submodule "vendor/lib"]\n\tpath = vendor/lib\n\turl = https://example.com/lib.git\n');
      },
    });
    expect(w.model.mismatches).toEqual([]);
    expect(r.rt.outputs.status).toBe('fixed');
    const sha = remoteBranch(w.repo, 'agent-fix/issue-7')!;
    expect(gitIn(w.repo.remoteDir)('diff', '--name-only', w.repo.sha, sha)).toBe('src/add.js');
  });
});
