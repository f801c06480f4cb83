/** A delivery's kind is read once (run/story-steps.ts readDelivery): the report after it, the publish line and state, what exists. */
import { readDelivery, withDelivery } from '../../src/run/story-steps.js';
import type { RunReport } from '../../src/fix/types.js';

const report = { status: 'fixed', reason: 'verified', detail: 'ok', iterations: 1 } as unknown as RunReport;

test('a pull request: the report names it, the phase is done, its URL exists', () => {
  const r = readDelivery(report, { kind: 'pull-request', branch: 'agent-fix/issue-7', sha: 'abc', pr: 'created', prNumber: 3, prUrl: 'https://x/pull/3' } as never);
  expect(r).toMatchObject({ state: 'done', line: 'pull request #3 created from agent-fix/issue-7', prUrl: 'https://x/pull/3' });
  expect(r.report).toMatchObject({ status: 'fixed', branch: 'agent-fix/issue-7', headSha: 'abc', prNumber: 3 });
  expect(r.superseded).toBeUndefined();
});

test('a bundle leaves the report as it is and says where the bundle is', () => {
  const r = readDelivery(report, { kind: 'bundle', path: '/tmp/b', candidate: '2' });
  expect(r.report).toBe(report);
  expect(r).toMatchObject({ state: 'done', bundlePath: '/tmp/b', line: 'bundle of candidate 2 written to /tmp/b' });
});

test('superseded, human commits, rejected: failed with the first line of the detail; only superseded yields', () => {
  const sup = readDelivery(report, { kind: 'superseded', by: { id: 9, attempt: 1 }, detail: 'newer run\nmore' } as never);
  expect(sup).toMatchObject({ state: 'failed', line: 'newer run', superseded: { kind: 'superseded' } });
  expect(sup.report).toMatchObject({ status: 'skipped', reason: 'superseded' });
  const human = readDelivery(report, { kind: 'human-commits', detail: 'a human pushed\nx' } as never);
  expect(human).toMatchObject({ state: 'failed', line: 'a human pushed' });
  expect(human.superseded).toBeUndefined();
  expect(withDelivery(report, { kind: 'rejected', detail: 'no' } as never)).toMatchObject({ status: 'error', reason: 'push-rejected', detail: 'no' });
  expect(report.status).toBe('fixed');
});
