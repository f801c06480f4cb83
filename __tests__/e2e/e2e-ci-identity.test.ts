/**
 * End to end, CI repair when the log names tests differently from the local run (issue 10,
 * "one test identity"): the bundled action under node 24 on a `workflow_run` event, against the
 * fake GitHub API serving the job log and the scripted model, on a real repository.
 *
 *   - tape style: the log's failing lines are assertion messages (`not ok 1 should be deeply
 *     equivalent`) under a `# test name` heading, the local run names the test;
 *   - vitest: the log names the failing test through an unnamed describe level and cut short
 *     (`…`), as a narrow reporter prints it; the local run (JSON reporter) names it in full.
 * Both logs are made at test time from a real run of the project's test command at the broken
 * commit (the vitest one then edited to carry those two reporter differences), inside the
 * GitHub runner's log framing. Both failures are reproduced, by test identity, and fixed; the
 * PR says which evidence the reproduction rests on.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseScript, type Script } from '../../src/scripted/script.js';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { ROOT } from '../../test-support/run-action.js';
import { jobLog as framedLog, realRun as runAt, repairCiRun } from '../../test-support/ci-repair.js';

const REPO = 'names';
const FIXTURES = path.join(ROOT, '__tests__', 'fixtures', 'ci-identity');
const read = (p: string) => readFileSync(path.join(FIXTURES, p), 'utf8');

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

/** The job log of the failed run: the shared framing, this repository's checkout path. */
const jobLog = (command: string, output: string, dir: string) => framedLog(REPO, command, output, dir);

/** Runs `command` in a fresh checkout of the broken commit (outside GitHub Actions: no reporter annotations). */
const realRun = (remoteUrl: string, command: string, withModules: boolean) =>
  runAt(remoteUrl, command, { env: { GITHUB_ACTIONS: '' }, ...(withModules ? { modules: path.join(ROOT, 'node_modules') } : {}) });

const repairRun = (p: { files: Record<string, string>; broken: Record<string, string>; script: Script; log: (remoteUrl: string) => string; inputs?: Record<string, string> }) =>
  repairCiRun(open, { repo: REPO, ...p });

const TAPE_FIXED = read('tape/src/parse.js').replace("out[k] = v === 'false' ? false : v;", "out[k] = v === 'false' ? false : v === 'true' || v === 'yes' ? true : v;");

describe('CI repair matches the log to the local run by test identity (dist/index.js under node 24)', () => {
  test('tape: the log names assertion messages under the test heading; the test is reproduced and fixed', async () => {
    const files = {
      'package.json': read('tape/package.json'),
      'test/harness.js': read('tape/test/harness.js'),
      'test/index.js': read('tape/test/index.js'),
      'src/parse.js': TAPE_FIXED,
    };
    const script = parseScript({
      label: 'tape repair',
      steps: [
        { expect: { lastMessageIncludes: 'boolean and alias options' }, toolCalls: [{ name: 'read_file', arguments: { path: 'src/parse.js' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'src/parse.js', content: TAPE_FIXED } }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'true and yes parse as true again.' } }] },
      ],
    });
    let logText = '';
    const { r, github, model } = await repairRun({
      files,
      broken: { 'src/parse.js': read('tape/src/parse.js') },
      script,
      log: (url) => {
        const { output, dir } = realRun(url, 'npm test', false);
        expect(output).toContain('not ok 1 should be deeply equivalent');
        logText = jobLog('npm test', output, dir);
        return logText;
      },
    });
    expect(logText).toContain('# boolean and alias options');
    expect(r.outputs.status).toBe('fixed');
    expect(model.mismatches).toEqual([]);
    github.assertNoViolations();
    const pr = github.pulls[0];
    expect(pr.body).toMatch(/\| `boolean and alias options` \| \*\*failed\*\* \| \*\*failed\*\* \| passed \|/);
    expect(pr.body).toContain('**Reproduced here** (evidence: the same tests fail here (matched by test identity');
    expect(pr.body).not.toContain('`should be deeply equivalent`');
    expect(r.stdout).toMatch(/Reproduction: reproduced \(evidence: test-identity\)/);
  });

  test('vitest: the log names the test through an unnamed describe level and cut short; it is reproduced and fixed', async () => {
    const good = read('vitest-url/src/url.js');
    const broken = good.replace("url = `${url.replace(/\\/+$/, '')}/${part.replace(/^\\/+/, '')}`;", 'url = `${url}/${part}`;');
    expect(broken).not.toBe(good);
    const files = {
      'package.json': read('vitest-url/package.json'),
      'vitest.config.mjs': read('vitest-url/vitest.config.mjs'),
      '.gitignore': read('vitest-url/gitignore.txt'),
      'test/url.test.js': read('vitest-url/test/url.test.js'),
      'src/url.js': good,
    };
    const full = 'joins a very long list of segments into one url without doubling any slash between them';
    const cut = 'joins a very long list of segments into…';
    const script = parseScript({
      label: 'vitest repair',
      steps: [
        { expect: { lastMessageIncludes: cut }, toolCalls: [{ name: 'read_file', arguments: { path: 'src/url.js' } }] },
        { toolCalls: [{ name: 'write_file', arguments: { path: 'src/url.js', content: good } }] },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'One slash between parts again.' } }] },
      ],
    });
    let logText = '';
    const { r, github, model, repo } = await repairRun({
      files,
      broken: { 'src/url.js': broken },
      script,
      // a node_modules of links (vite writes node_modules/.vite-temp: the sandbox keeps the shared one read-only)
      inputs: { 'setup-command': `mkdir -p node_modules && ln -sfn ${path.join(ROOT, 'node_modules')}/* ${path.join(ROOT, 'node_modules')}/.bin node_modules/` },
      log: (url) => {
        const { output, dir } = realRun(url, 'npm test', true);
        expect(output).toContain(full);
        // the two reporter differences: an unnamed describe level, and the name cut short
        // (vitest colours the separators even here: the level goes in between the escapes)
        const edited = output.replace(/url((?:\x1b\[[0-9;]*m)*) > ((?:\x1b\[[0-9;]*m)*)joinURL/g, 'url$1 >  > $2joinURL').split(full).join(cut);
        expect(edited).not.toContain(full);
        logText = jobLog('npm test', edited, dir);
        return logText;
      },
    });
    expect(logText.replace(/\x1b\[[0-9;]*m/g, '')).toContain(`url >  > joinURL > ${cut}`);
    expect(r.outputs.status).toBe('fixed');
    expect(model.mismatches).toEqual([]);
    github.assertNoViolations();
    const pr = github.pulls[0];
    expect(pr.body).toContain('**Reproduced here** (evidence: the same tests fail here (matched by test identity');
    expect(pr.body).toContain('by a truncated name');
    expect(pr.body).toMatch(/\| `test\/url\.test\.js > url > joinURL > joins a very long list of segments into…` \| \*\*failed\*\* \| \*\*failed\*\* \| passed \|/);
    expect(execFileSync('git', ['--git-dir', repo.remoteDir, 'show', `${r.outputs.branch}:src/url.js`], { encoding: 'utf8' })).toBe(good);
  });
});
