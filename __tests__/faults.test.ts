/**
 * Fault-injection suite: the fake GitHub API and the scripted model fail on demand; every case
 * asserts what happened, that nothing was duplicated or lost, and that the issue comment ends
 * in a final, truthful state.
 */
import { mainWorld, FIX_STEPS, botComments, remoteBranch, ISSUE, type MainWorld } from '../test-support/run-main.js';
import { cleanupFixtures } from '../test-support/git-fixture.js';

const worlds: MainWorld[] = [];
async function world(...a: Parameters<typeof mainWorld>): Promise<MainWorld> {
  const w = await mainWorld(...a);
  worlds.push(w);
  return w;
}
afterAll(async () => {
  for (const w of worlds.splice(0)) await w.close();
  cleanupFixtures();
});

describe('happy path (baseline for the faults below)', () => {
  test('a fix becomes one draft PR; the report names the policy, the isolation and the budget', async () => {
    const w = await world({ steps: FIX_STEPS });
    const r = await w.run();
    expect(r.rt.failed).toBeNull();
    expect(r.rt.outputs.status).toBe('fixed');
    expect(w.github.pulls).toHaveLength(1);
    const [c] = botComments(w.github);
    expect(c.body).toContain('the default policy (no .github/agent-fix.yml on main)');
    expect(c.body).toMatch(/Isolation: setup: network allowed by the policy; tests: /);
    expect(c.body).toMatch(/Budget: tokens \d+ of 2000000/);
    w.github.assertNoViolations();
  });
});
