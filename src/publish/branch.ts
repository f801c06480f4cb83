/** Branch naming for published fixes (pure). One deterministic branch per task: re-runs update it. */

export const BRANCH_PREFIX = 'agent-fix/';

/**
 * Why `name` is not a valid branch name by git's ref-name rules (git check-ref-format --branch),
 * or null when it is valid.
 */
export function branchNameProblem(name: string): string | null {
  if (name.length === 0) return 'empty';
  if (name === '@' || name === 'HEAD') return `is "${name}"`;
  if (name.startsWith('-')) return 'starts with "-"';
  if (name.startsWith('/') || name.endsWith('/')) return 'starts or ends with "/"';
  if (name.includes('//')) return 'contains "//"';
  if (name.includes('..')) return 'contains ".."';
  if (name.includes('@{')) return 'contains "@{"';
  if (name.endsWith('.')) return 'ends with "."';
   
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return 'contains a space, a control character or one of ~^:?*[\\';
  for (const part of name.split('/')) {
    if (part.startsWith('.')) return `component "${part}" starts with "."`;
    if (part.endsWith('.lock')) return `component "${part}" ends with ".lock"`;
  }
  return null;
}

export function isValidBranchName(name: string): boolean {
  return branchNameProblem(name) === null;
}

/** `issue-42` → `agent-fix/issue-42`. Throws when the result is not a valid branch name. */
export function branchForTask(taskKey: string): string {
  if (taskKey.trim() === '') throw new Error('invalid task key: empty');
  const branch = `${BRANCH_PREFIX}${taskKey}`;
  const problem = branchNameProblem(branch);
  if (problem) throw new Error(`invalid branch name for task key ${JSON.stringify(taskKey)}: ${problem}`);
  return branch;
}

/** Lowercase ASCII words joined by '-', at most `max` characters, never empty (fallback `task`). */
export function slugify(text: string, max = 40): string {
  const words = text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const limit = Math.max(1, Math.floor(max));
  let out = '';
  for (const w of words) {
    const next = out ? `${out}-${w}` : w;
    if (next.length <= limit) {
      out = next;
      continue;
    }
    // a first word longer than the limit is cut; later words are dropped whole
    if (!out) out = w.slice(0, limit);
    break;
  }
  out = out.replace(/-+$/, '');
  return out || 'task';
}

/** Is `name` (a plain branch name, not `refs/heads/...`) one of ours? */
export function isAgentBranch(name: string): boolean {
  return name.startsWith(BRANCH_PREFIX) && name.length > BRANCH_PREFIX.length && isValidBranchName(name);
}
