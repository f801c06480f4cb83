/**
 * Who may trigger agent-fix: people with write, maintain or admin permission on the
 * repository. Anyone can label-request or comment on a public repository, and a run
 * spends the repository's model budget and pushes branches, so everyone else is refused.
 *
 * Errors from the API (network, token without access) propagate: the caller reports them
 * as an error rather than as a refusal. Nothing is authorized on an error.
 */
import type { GitHubPort, Permission } from '../ports/github.js';

const ALLOWED: ReadonlySet<Permission> = new Set<Permission>(['write', 'maintain', 'admin']);

export type Authorization = { ok: true; permission: Permission } | { ok: false; reason: string };

export async function authorizeActor(github: GitHubPort, actor: string): Promise<Authorization> {
  const login = actor.trim();
  if (login === '') {
    return { ok: false, reason: 'the event names no actor, so agent-fix cannot check who triggered it.' };
  }
  const permission = await github.getPermission(login);
  if (ALLOWED.has(permission)) return { ok: true, permission };
  const has = permission === 'none' ? '"none" permission (not a collaborator)' : `"${permission}" permission`;
  return {
    ok: false,
    reason: `@${login} has ${has} on this repository; agent-fix runs only for people with write, maintain or admin permission.`,
  };
}
