/**
 * Who may trigger a run, by the policy: the actor's permission must reach
 * `triggers.min-permission`; when `allowed-users` or `allowed-teams` are set the actor must
 * also be listed or a member; bots may trigger only when listed in `allowed-bots`, and
 * agent-fix's own account never may (no loops); a story may require more than the policy (`atLeast`:
 * CI repair needs write). The one authorizer of every story. Nothing is authorized on an API error.
 */
import type { GitHubPort, Permission } from '../ports/github.js';
import { permissionAtLeast, type Policy } from './schema.js';

export type PolicyAuthorization =
  | { ok: true; permission: Permission | 'allowed-bot'; via: string }
  | { ok: false; reason: string };

export const SELF_LOGINS = ['github-actions[bot]', 'github-actions'];

export function isBotLogin(login: string): boolean {
  return /\[bot\]$/i.test(login);
}

const eq = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase();

export async function authorizeByPolicy(github: GitHubPort, actor: string, policy: Policy, opts: { selfLogin?: string; atLeast?: Permission } = {}): Promise<PolicyAuthorization> {
  const login = actor.trim();
  if (login === '') return { ok: false, reason: 'the event names no actor, so agent-fix cannot check who triggered it.' };
  const t = policy.triggers;
  const selves = [...SELF_LOGINS, ...(opts.selfLogin ? [opts.selfLogin] : [])];
  if (selves.some((s) => eq(s, login))) return { ok: false, reason: `@${login} is agent-fix's own account; it never triggers itself.` };
  if (isBotLogin(login)) {
    if (t['allowed-bots'].some((b) => eq(b, login))) return { ok: true, permission: 'allowed-bot', via: `@${login} is listed in triggers.allowed-bots` };
    return { ok: false, reason: `@${login} is a bot and is not listed in triggers.allowed-bots of the policy.` };
  }
  const permission = await github.getPermission(login);
  const has = permission === 'none' ? '"none" permission (not a collaborator)' : `"${permission}" permission`;
  if (!permissionAtLeast(permission, t['min-permission'])) {
    return { ok: false, reason: `@${login} has ${has} on this repository; the policy requires at least "${t['min-permission']}" (triggers.min-permission).` };
  }
  if (opts.atLeast && !permissionAtLeast(permission, opts.atLeast)) {
    return { ok: false, reason: `@${login} has ${has} on this repository; this kind of run needs at least "${opts.atLeast}" whatever the policy allows.` };
  }
  const users = t['allowed-users'];
  const teams = t['allowed-teams'];
  if (users.length === 0 && teams.length === 0) return { ok: true, permission, via: `"${permission}" permission (at least ${t['min-permission']})` };
  if (users.some((u) => eq(u, login))) return { ok: true, permission, via: `listed in triggers.allowed-users` };
  for (const team of teams) {
    const [org, slug] = team.split('/');
    if (!github.isTeamMember) break;
    if (await github.isTeamMember(org, slug, login)) return { ok: true, permission, via: `member of ${team} (triggers.allowed-teams)` };
  }
  return { ok: false, reason: `@${login} is neither listed in triggers.allowed-users nor a member of triggers.allowed-teams of the policy.` };
}
