/**
 * End to end, a failed CI run of a node-tap project (issue 22, part 2): the bundled action under
 * node 24 on a `workflow_run` event, against the fake GitHub API serving the job log and the
 * scripted model, on a real repository whose tests run on real node-tap 16 (from the npm
 * registry, installed by .ci/run into .cache/tap-producers; skipped with a message without it).
 *
 * node-tap prints a time directive on each subtest's point (`not ok 1 - diff versions test #
 * time=64.386ms`), different in the CI log and in the local run: the failure is reproduced by test
 * identity all the same, and fixed. The log is made at test time from a real run of the project's
 * test command at the broken commit, inside the GitHub runner's log framing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScript } from '../../src/scripted/script.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { jobLog, realRun, repairCiRun, ROOT } from '../../test-support/ci-repair.js';
import { TAP_PRODUCERS_DIR, tapUnavailable } from '../../test-support/stacks.js';

const FIXTURE = path.join(ROOT, '__tests__', 'fixtures', 'stacks-tap');
const read = (p: string) => readFileSync(path.join(FIXTURE, p), 'utf8');
const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

/** node-tap 16 as the project's devDependency would put it: `node_modules/tap`, `.bin/tap`. */
const SETUP = `mkdir -p node_modules/.bin && ln -sfn ${path.join(TAP_PRODUCERS_DIR, 'node_modules', 'tap16')} node_modules/tap && ln -sfn ../tap/bin/run.js node_modules/.bin/tap`;
const why = tapUnavailable('node-tap-16');
const maybe = why ? test.skip : test;
if (why) test(`skipped: ${why}`, () => expect(why).toContain('not installed'));

maybe('node-tap: the log times each subtest; the failure is reproduced by test identity and fixed (dist/index.js under node 24)', async () => {
  const good = read('lib/diff.js');
  const broken = good.replace('for (let i = 0; i < parts.length; i++) {', 'for (let i = 0; i < parts.length - 1; i++) {');
  expect(broken).not.toBe(good);
  const files = { 'package.json': read('package.json'), '.gitignore': read('gitignore.txt'), 'lib/diff.js': good, 'test/diff.js': read('test/diff.js') };
  const script = parseScript({
    label: 'node-tap repair',
    steps: [
      { expect: { lastMessageIncludes: 'diff versions test' }, toolCalls: [{ name: 'read_file', arguments: { path: 'lib/diff.js' } }] },
      { toolCalls: [{ name: 'write_file', arguments: { path: 'lib/diff.js', content: good } }] },
      { toolCalls: [{ name: 'finish', arguments: { summary: 'diff looks at the patch part again.' } }] },
    ],
  });
  let logText = '';
  const { r, github, model, repo } = await repairCiRun(open, {
    repo: 'versions',
    files,
    broken: { 'lib/diff.js': broken },
    script,
    inputs: { 'setup-command': SETUP },
    log: (url) => {
      const { output, dir } = realRun(url, `${SETUP} && npm test`);
      expect(output).toMatch(/not ok 1 - diff versions test # time=[\d.]+ms/);
      logText = jobLog('versions', 'npm test', output, dir);
      return logText;
    },
  });
  expect(r.outputs.status).toBe('fixed');
  expect(model.mismatches).toEqual([]);
  github.assertNoViolations();
  const pr = github.pulls[0];
  expect(pr.body).toContain('**Reproduced here** (evidence: the same tests fail here (matched by test identity');
  expect(pr.body).toMatch(/\| `test\/diff\.js > diff versions test` \| \*\*failed\*\* \| \*\*failed\*\* \| passed \|/);
  expect(pr.body).not.toMatch(/# time=/);
  expect(r.stdout).toMatch(/Reproduction: reproduced \(evidence: test-identity\)/);
  expect(execFileSync('git', ['--git-dir', repo.remoteDir, 'show', `${r.outputs.branch}:lib/diff.js`], { encoding: 'utf8' })).toBe(good);
}, 240_000);
