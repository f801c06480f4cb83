/** The one authorizer (policy/authorize.ts) as the CI-repair story calls it: the default policy, and write at least. */
import { authorizeByPolicy } from '../../src/policy/authorize.js';
import { DEFAULT_POLICY, parsePolicy } from '../../src/policy/schema.js';
import type { GitHubPort } from '../../src/ports/github.js';
import { FakeGitHubPort } from '../../test-support/fake-github-port.js';

const authorizeActor = (github: GitHubPort, actor: string) => authorizeByPolicy(github, actor, DEFAULT_POLICY, { atLeast: 'write' });

function port(): FakeGitHubPort {
  return new FakeGitHubPort({
    permissions: { alice: 'admin', bob: 'maintain', carol: 'write', dave: 'triage', erin: 'read' },
  });
}

describe('authorizeActor', () => {
  test.each([
    ['alice', 'admin'],
    ['bob', 'maintain'],
    ['carol', 'write'],
  ])('%s with %s permission may trigger', async (actor, permission) => {
    const github: GitHubPort = port();
    await expect(authorizeActor(github, actor)).resolves.toMatchObject({ ok: true, permission });
  });

  test.each([
    ['dave', '"triage" permission'],
    ['erin', '"read" permission'],
    ['mallory', '"none" permission (not a collaborator)'],
  ])('%s is refused with a reason naming them and their permission', async (actor, has) => {
    const result = await authorizeActor(port(), actor);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(`@${actor} has ${has} on this repository;`);
  });

  test('asks GitHub about the trimmed actor', async () => {
    const github = port();
    await authorizeActor(github, ' carol ');
    expect(github.callsTo('getPermission')).toEqual([['carol']]);
  });

  test('an empty actor is refused without asking GitHub', async () => {
    const github = port();
    const result = await authorizeActor(github, '');
    expect(result.ok).toBe(false);
    expect(github.calls).toHaveLength(0);
  });

  test('an unexpected permission string from the adapter is refused', async () => {
    const github = port();
    github.getPermission = async () => 'pull' as never;
    const result = await authorizeActor(github, 'x');
    expect(result).toMatchObject({ ok: false });
  });

  test('API errors propagate (nothing is authorized on an error)', async () => {
    const github = port();
    github.failures.getPermission = new Error('HttpError: Bad credentials');
    await expect(authorizeActor(github, 'alice')).rejects.toThrow('Bad credentials');
  });

  test('a story may require more than the policy: a policy letting triage trigger still refuses triage for CI repair', async () => {
    const lenient = parsePolicy('triggers:\n  min-permission: triage\n');
    await expect(authorizeByPolicy(port(), 'dave', lenient)).resolves.toMatchObject({ ok: true, permission: 'triage' });
    const ci = await authorizeByPolicy(port(), 'dave', lenient, { atLeast: 'write' });
    expect(ci.ok).toBe(false);
    expect(!ci.ok && ci.reason).toContain('needs at least "write" whatever the policy allows');
  });
});
