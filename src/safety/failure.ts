/**
 * The issue comment of a run that failed with an error: always final and truthful. It says
 * what was left behind (a pushed branch, an opened PR) rather than "nothing changed" when
 * something did. Pure.
 */
export interface FailureFacts {
  marker: string;
  /** Redacted, one or two sentences. */
  why: string;
  pushedBranch?: string;
  prUrl?: string;
  runUrl?: string;
  policy?: string;
}

export function renderFailureComment(f: FailureFacts): string {
  const lines = [f.marker];
  let left: string;
  if (f.prUrl) left = `It had already opened or updated ${f.prUrl} (branch \`${f.pushedBranch}\`), which is left as it is for review.`;
  else if (f.pushedBranch) left = `It had already pushed the branch \`${f.pushedBranch}\`, but no pull request was opened; trigger again to open it, or delete the branch.`;
  else left = 'Nothing was pushed and no pull request was opened.';
  lines.push(`**agent-fix** stopped with an error: ${f.why}`);
  lines.push('');
  lines.push(left);
  if (f.policy) lines.push('', `Policy: ${f.policy}.`);
  if (f.runUrl) lines.push('', `See the [workflow run](${f.runUrl}).`);
  return `${lines.join('\n')}\n`;
}
