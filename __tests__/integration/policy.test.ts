import { parsePolicy, PolicyError, DEFAULT_POLICY, permissionAtLeast } from '../../src/policy/schema.js';
import { applyPolicy, allowListAsProtected } from '../../src/policy/apply.js';
import { authorizeByPolicy } from '../../src/policy/authorize.js';
import { loadPolicy } from '../../src/policy/load.js';
import { makeGitHub } from '../../src/adapters/github.js';
import { readSettings } from '../../src/settings/inputs.js';
import { resolveSettings } from '../../src/settings/resolve.js';
import { startFakeGitHub } from '../../test-support/fake-github.js';
import { FakeGitHubPort } from '../../test-support/fake-github-port.js';

const EXAMPLE = `
version: 1
triggers:
  min-permission: maintain
  allowed-users: [alice]
  allowed-teams: [octo/fixers]
  allowed-bots: ["renovate[bot]"]
  fork-ci: false
commands:
  setup: npm ci
  test: npm test -- --ci
paths:
  allowed: ["src/**", "test/**"]
  forbidden: ["src/generated/**"]
limits:
  max-changed-files: 5
  max-changed-lines: 100
  max-iterations: 3
budgets:
  max-tokens: 500000
  max-cost-usd: 2
  max-minutes: 30
  prices:
    my-model: { input: 1, output: 4 }
sandbox:
  setup-network: true
  test-network: false
  require-isolation: true
  memory-mb: 4096
`;

function problems(text: string): string[] {
  try {
    parsePolicy(text);
  } catch (e) {
    expect(e).toBeInstanceOf(PolicyError);
    return (e as PolicyError).problems;
  }
  throw new Error('expected a PolicyError');
}

describe('parsePolicy', () => {
  test('the documented example parses', () => {
    const p = parsePolicy(EXAMPLE);
    expect(p.triggers['min-permission']).toBe('maintain');
    expect(p.paths.allowed).toEqual(['src/**', 'test/**']);
    expect(p.budgets.prices['my-model']).toEqual({ input: 1, output: 4 });
    expect(p.sandbox['memory-mb']).toBe(4096);
  });

  test('empty file = defaults', () => {
    expect(parsePolicy('')).toEqual(DEFAULT_POLICY);
    expect(DEFAULT_POLICY.triggers['min-permission']).toBe('write');
    expect(DEFAULT_POLICY.sandbox['test-network']).toBe(false);
  });

  test('errors name the bad field', () => {
    expect(problems('triggers:\n  min-permission: everyone\n')[0]).toContain('field "triggers.min-permission"');
    expect(problems('limits:\n  max-changed-files: 0\n')[0]).toContain('field "limits.max-changed-files"');
    expect(problems('triggers:\n  allowed-users: ["not a login"]\n')[0]).toContain('field "triggers.allowed-users[0]"');
    expect(problems('budgets:\n  max-cost-usd: -1\n')[0]).toContain('field "budgets.max-cost-usd"');
    expect(problems('limit:\n  max-changed-files: 3\n')[0]).toBe('unknown field "limit"');
    expect(problems('triggers:\n  min_permission: write\n')[0]).toBe('unknown field "min_permission" in "triggers"');
    expect(problems('a: [1\n')[0]).toContain('not valid YAML');
    expect(problems('- a\n- b\n')[0]).toContain('YAML mapping');
    expect(problems('version: 2\n')[0]).toContain('field "version"');
  });

  test('the error message names the file and every problem', () => {
    expect(() => parsePolicy('limits:\n  max-iterations: 99\nsandbox:\n  memory-mb: lots\n')).toThrow(/Invalid \.github\/agent-fix\.yml: \n- field "limits\.max-iterations".*\n- field "sandbox\.memory-mb"/s);
  });

  test('permission order', () => {
    expect(permissionAtLeast('admin', 'write')).toBe(true);
    expect(permissionAtLeast('maintain', 'write')).toBe(true);
    expect(permissionAtLeast('triage', 'write')).toBe(false);
    expect(permissionAtLeast('none', 'read')).toBe(false);
  });
});

describe('applyPolicy', () => {
  const base = readSettings((n) => (n === 'github-token' ? 'ghs_x1234567890' : ''));

  test('the stricter limit and budget win; commands: inputs first; forbidden paths added', () => {
    const s = resolveSettings(applyPolicy(base, parsePolicy(EXAMPLE), 'test'));
    expect(s.maxChangedFiles).toBe(5);
    expect(s.maxIterations).toBe(3);
    expect(s.budget).toEqual({ maxTokens: 500000, maxCostUsd: 2, maxWallMs: 30 * 60_000, prices: { 'my-model': { input: 1, output: 4 } } });
    expect(s.testCommand).toBe('npm test -- --ci');
    expect(s.protectedPaths).toEqual(['.github/workflows/**', 'src/generated/**']);
    expect(s.allowedPaths).toEqual(['src/**', 'test/**']);
    expect(s.sandbox).toEqual({ setupNetwork: true, testNetwork: false, requireIsolation: true, memoryMb: 4096, requireSandbox: 'github-hosted' });
    expect(s.policySource).toBe('test');
    const explicit = resolveSettings(applyPolicy({ ...base, testCommand: 'make test', maxChangedFiles: 2 }, parsePolicy(EXAMPLE), 'test'));
    expect(explicit.testCommand).toBe('make test');
    expect(explicit.maxChangedFiles).toBe(2);
  });

  test('a policy cannot loosen the inputs; an input cap of 0 (none) takes the policy cap', () => {
    const s = resolveSettings(applyPolicy({ ...base, budget: { maxTokens: 0, maxCostUsd: 1, maxWallMs: 0, prices: {} } }, parsePolicy('limits:\n  max-changed-files: 1000\nbudgets:\n  max-tokens: 9000\n  max-cost-usd: 50\n'), 'p'));
    expect(s.maxChangedFiles).toBe(resolveSettings(base).maxChangedFiles);
    expect(s.budget.maxTokens).toBe(9000);
    expect(s.budget.maxCostUsd).toBe(1);
  });

  test('allow-list as one negated glob', () => {
    expect(allowListAsProtected([])).toEqual([]);
    expect(allowListAsProtected(['src/**'])).toEqual(['!src/**']);
    expect(allowListAsProtected(['src/**', 'lib/**'])).toEqual(['!{src/**,lib/**}']);
  });
});

describe('authorizeByPolicy', () => {
  const gh = () => new FakeGitHubPort({ permissions: { alice: 'write', bob: 'maintain', carol: 'triage', dave: 'admin' } });

  test('minimum permission', async () => {
    const p = parsePolicy('triggers:\n  min-permission: maintain\n');
    expect(await authorizeByPolicy(gh(), 'alice', p)).toMatchObject({ ok: false, reason: expect.stringContaining('requires at least "maintain"') });
    expect(await authorizeByPolicy(gh(), 'bob', p)).toMatchObject({ ok: true });
    expect(await authorizeByPolicy(gh(), 'dave', p)).toMatchObject({ ok: true });
    expect((await authorizeByPolicy(gh(), 'carol', DEFAULT_POLICY)).ok).toBe(false);
    expect((await authorizeByPolicy(gh(), 'carol', parsePolicy('triggers:\n  min-permission: triage\n'))).ok).toBe(true);
  });

  test('allowed users narrow, never widen', async () => {
    const p = parsePolicy('triggers:\n  allowed-users: [alice, carol]\n');
    expect((await authorizeByPolicy(gh(), 'alice', p)).ok).toBe(true);
    expect((await authorizeByPolicy(gh(), 'ALICE', p)).ok).toBe(true);
    expect((await authorizeByPolicy(gh(), 'bob', p)).ok).toBe(false);
    expect((await authorizeByPolicy(gh(), 'carol', p)).ok).toBe(false); // listed, but only triage
  });

  test('bots: only listed ones, never agent-fix itself; empty actor refused', async () => {
    const p = parsePolicy('triggers:\n  allowed-bots: ["renovate[bot]", "github-actions[bot]"]\n');
    expect(await authorizeByPolicy(gh(), 'renovate[bot]', p)).toMatchObject({ ok: true, permission: 'allowed-bot' });
    expect((await authorizeByPolicy(gh(), 'dependabot[bot]', p)).ok).toBe(false);
    expect((await authorizeByPolicy(gh(), 'github-actions[bot]', p)).ok).toBe(false);
    expect((await authorizeByPolicy(gh(), '  ', p)).ok).toBe(false);
  });

  test('API errors are not authorizations', async () => {
    const g = gh();
    g.failures.getPermission = new Error('boom');
    await expect(authorizeByPolicy(g, 'alice', DEFAULT_POLICY)).rejects.toThrow('boom');
  });

  test('fork CI is never acted on: `fork-ci: true` is refused with the reason, `false` (what it always was) is accepted', () => {
    expect(() => parsePolicy('triggers:\n  fork-ci: true\n')).toThrow(PolicyError);
    expect(() => parsePolicy('triggers:\n  fork-ci: true\n')).toThrow(/triggers\.fork-ci.*was removed: agent-fix never checks out or runs a fork's code/);
    expect(parsePolicy('triggers:\n  fork-ci: false\n').triggers['min-permission']).toBe('write');
  });
});

describe('loadPolicy through the contents API (the fake GitHub)', () => {
  test('reads the default branch version; missing file = defaults; team membership works', async () => {
    const fake = await startFakeGitHub({ owner: 'o', repo: 'r' });
    try {
      const gh = makeGitHub({ token: 't0k3n-value', baseUrl: fake.url, owner: 'o', repo: 'r' });
      expect((await loadPolicy(gh, 'main')).source).toContain('the default policy (no .github/agent-fix.yml on main)');
      fake.setFile('.github/agent-fix.yml', 'triggers:\n  min-permission: admin\n');
      fake.setFile('.github/agent-fix.yml', 'triggers:\n  min-permission: read\n', 'attacker-branch');
      const loaded = await loadPolicy(gh, 'main');
      expect(loaded.policy.triggers['min-permission']).toBe('admin');
      expect(loaded.source).toBe('.github/agent-fix.yml from the default branch main');
      fake.setFile('.github/agent-fix.yml', 'triggers: [oops]\n');
      await expect(loadPolicy(gh, 'main')).rejects.toThrow(/field "triggers"/);
      fake.addTeamMember('o/fixers', 'zed');
      expect(await gh.isTeamMember!('o', 'fixers', 'zed')).toBe(true);
      expect(await gh.isTeamMember!('o', 'fixers', 'amy')).toBe(false);
      fake.assertNoViolations();
    } finally {
      await fake.close();
    }
  });
});
