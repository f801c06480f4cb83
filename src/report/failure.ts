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
  /** What a maintainer does to let agent-fix try again (default "trigger again"). */
  retryHint?: string;
}

/** One sentence: what a stopped run left behind. */
export function renderLeftBehind(f: Pick<FailureFacts, 'pushedBranch' | 'prUrl' | 'retryHint'>): string {
  if (f.prUrl) return `It had already opened or updated ${f.prUrl} (branch \`${f.pushedBranch}\`), which is left as it is for review.`;
  if (f.pushedBranch) return `It had already pushed the branch \`${f.pushedBranch}\`, but no pull request was opened; ${f.retryHint ?? 'trigger again'} to open it, or delete the branch.`;
  return 'Nothing was pushed and no pull request was opened.';
}

export function renderFailureComment(f: FailureFacts): string {
  const lines = [f.marker];
  const left = renderLeftBehind(f);
  lines.push(`**agent-fix** stopped with an error: ${f.why}`);
  lines.push('');
  lines.push(left);
  if (f.policy) lines.push('', `Policy: ${f.policy}.`);
  if (f.runUrl) lines.push('', `See the [workflow run](${f.runUrl}).`);
  return `${lines.join('\n')}\n`;
}
