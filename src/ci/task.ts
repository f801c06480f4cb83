/**
 * A collected CI failure -> the `Task` the model works on. The log excerpts are untrusted
 * (a pull request's author controls test names and output): sanitized and fenced as data.
 */
import type { Task } from '../task/types.js';
import { fenceUntrusted, sanitizeOneLine, sanitizeUntrusted } from '../task/sanitize.js';
import type { CiFailure } from './context.js';

/** `ci-<fingerprint>`: names the branch `agent-fix/ci-<fingerprint>` and the comment marker. */
export function ciTaskKey(fingerprint: string): string {
  return `ci-${fingerprint}`;
}

export function buildCiTask(f: CiFailure): Task {
  const workflow = sanitizeOneLine(f.workflowName, 100) || 'CI';
  const branch = sanitizeOneLine(f.headBranch, 200);
  const jobs = f.jobs.map((j) => sanitizeOneLine(j.name, 100));
  const title = `fix failing ${workflow} (${jobs.slice(0, 3).join(', ')}${jobs.length > 3 ? ', …' : ''}) on ${branch}`;
  const jobLines = f.jobs.map((j) => {
    const steps = j.failedSteps.length ? `failed step(s): ${j.failedSteps.map((s) => `"${sanitizeOneLine(s, 100)}"`).join(', ')}` : 'no failed step recorded';
    return `- job "${sanitizeOneLine(j.name, 100)}" (${j.conclusion}): ${steps}${j.logProblem ? `; log not available: ${j.logProblem}` : ''}`;
  });
  const intro = [
    `A GitHub Actions run of the workflow "${workflow}" failed on branch \`${branch}\` at commit ${f.headSha.slice(0, 12)} (run ${f.runId}, attempt ${f.runAttempt}, event ${sanitizeOneLine(f.event, 40)}).`,
    'The working tree is that commit. Find the cause of the failure and fix it with the smallest correct change, so that the failing tests pass and nothing else breaks.',
    'Fix the code, not the tests: do not delete, skip or loosen the failing tests, unless the log makes clear that the test itself is wrong.',
    `Failed jobs:\n${jobLines.join('\n')}`,
  ];
  const log = sanitizeUntrusted(f.context, { maxChars: 24_000 });
  const goal = [...intro, fenceUntrusted('What the failed jobs\' logs show (extracted: failing tests, errors, stack frames in repository files, excerpts)', log || '(nothing)')].join('\n\n');
  const task: Task = { key: ciTaskKey(f.fingerprint), title, goal };
  return task;
}
