import { renderCiPrBody, renderCiPrTitle, renderCiSection, renderFailingTests, localStatus } from '../../src/report/ci.js';
import type { CiFailure } from '../../src/ci/context.js';
import type { RunReport } from '../../src/fix/types.js';
import type { TestRun } from '../../src/verify/types.js';
import { testRun } from '../../test-support/builders.js';

const failure: CiFailure = {
  runId: 77,
  runAttempt: 2,
  runNumber: 5,
  runUrl: 'https://github.com/o/r/actions/runs/77',
  workflowName: 'CI',
  event: 'pull_request',
  headSha: 'a'.repeat(40),
  headBranch: 'feature/x',
  pullRequest: 4,
  jobs: [
    { id: 2, name: 'test (20)', url: 'https://github.com/o/r/actions/runs/77/job/2', conclusion: 'failure', failedSteps: ['Run tests'], extract: null },
    { id: 3, name: 'test | 22', url: null, conclusion: 'timed_out', failedSteps: [], extract: null, logProblem: 'the log is gone (expired or deleted)' },
  ],
  failingTests: ['Cart › applies a discount', 'uses `backticks` | pipes'],
  failures: [],
  fingerprint: '0123456789ab',
  basis: 'tests',
  context: 'ctx',
  contextTokens: 1,
};

function run(succeeded: boolean, tests: [string, 'passed' | 'failed'][]): TestRun {
  return testRun(succeeded ? 0 : 1, tests, { succeeded, counts: { passed: 0, failed: 0, skipped: 0 } });
}

describe('CI report', () => {
  const before = run(false, [['src/cart.test.js > Cart > applies a discount', 'failed'], ['other > breaks too', 'failed']]);
  const after = run(true, [['src/cart.test.js > Cart > applies a discount', 'passed']]);

  test('failing tests: in CI, here before, here after; local-only failures listed too; markdown-safe cells', () => {
    const t = renderFailingTests(failure, before, after);
    expect(t).toContain('| `Cart › applies a discount` | **failed** | **failed** | passed |');
    expect(t).toContain('| `` uses `backticks` \\| pipes `` | **failed** | not listed | passed |');
    expect(t).toContain('| `other > breaks too` | not in the log | **failed** | passed |');
    expect(localStatus('x', null)).toBe('—');
  });

  test('the section links the run and the jobs, names failed steps and unreadable logs, and the fingerprint', () => {
    const s = renderCiSection(failure, { baseline: before, final: after });
    expect(s).toContain('[CI #5 (attempt 2)](https://github.com/o/r/actions/runs/77) on `feature/x`');
    expect(s).toContain('pull request #4');
    expect(s).toContain('| [test (20)](https://github.com/o/r/actions/runs/77/job/2) | `Run tests` |');
    expect(s).toContain('(log not read: the log is gone (expired or deleted))');
    expect(s).toContain('`0123456789ab`');
  });

  test('the section names the evidence the reproduction rests on', () => {
    const withRep = (reproduction: CiFailure['reproduction']) => renderCiSection({ ...failure, reproduction }, { baseline: before, final: after });
    expect(withRep({ kind: 'reproduced', evidence: 'test-identity', matched: ['Cart › applies a discount'], local: ['src/cart.test.js > Cart > applies a discount'], detail: '1 of the 2 test(s) that failed in CI fail here too.' })).toContain(
      '**Reproduced here** (evidence: the same tests fail here (matched by test identity: file and name path)): 1 of the 2',
    );
    expect(withRep({ kind: 'reproduced', evidence: 'file-and-message', matched: [], local: ['x'], detail: 'd' })).toContain('the same test file fails here with the same message');
    expect(withRep({ kind: 'reproduced', evidence: 'command', matched: [], local: [], detail: 'd' })).toContain('the test command fails here the same way');
    expect(withRep(undefined)).not.toContain('Reproduced here');
  });

  test('PR title and body', () => {
    expect(renderCiPrTitle(failure)).toBe('agent-fix: repair CI on feature/x: 2 failing tests');
    const report = { task: { key: 'ci-0123456789ab', title: 't', goal: 'g' }, status: 'fixed', reason: 'verified', detail: 'd', model: 'm', setupCommand: null, testCommand: 'npm test', baseline: before, final: after, summary: 's', iterations: 1, maxIterations: 3, attempts: [], changes: [], diff: '', usage: { promptTokens: 0, completionTokens: 0, requests: 0 }, durationMs: 1 } as RunReport;
    const body = renderCiPrBody(report, failure);
    expect(body.startsWith('<!-- agent-fix:ci-0123456789ab -->\n')).toBe(true);
    expect(body).not.toContain('Fixes #');
    expect(body).toContain('Test report');
  });
});
