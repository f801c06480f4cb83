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
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { startFakeGitHub } from '../test-support/fake-github.js';
import { startScriptedModel, type ScriptedModel } from '../src/scripted/server.js';
import { parseScript, type Script } from '../src/scripted/script.js';
import { makeRepo, cloneShallow, cleanupFixtures, tempDir, commitAs, HUMAN } from '../test-support/git-fixture.js';
import { actionInputs, runAction, ROOT } from '../test-support/run-action.js';

const GH_TOKEN = 'ghs_e2eCiIdentityFakeToken0123456789';
const API_KEY = 'sk-e2e-ci-identity-fake-key-9876543210';
const OWNER = 'octo';
const REPO = 'names';
const FIXTURES = path.join(ROOT, '__tests__', 'fixtures', 'ci-identity');
const read = (p: string) => readFileSync(path.join(FIXTURES, p), 'utf8');

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

/** A real run's output as a GitHub Actions job log, the checkout where the runner puts it. */
function jobLog(command: string, output: string, dir: string): string {
  const body = output.split(dir).join(`/home/runner/work/${REPO}/${REPO}`);
  const lines = ['##[group]Run actions/checkout@v4', `Syncing repository: ${OWNER}/${REPO}`, '##[endgroup]', `##[group]Run ${command}`, command, 'shell: /usr/bin/bash -e {0}', '##[endgroup]', ...body.replace(/\n$/, '').split('\n'), '##[error]Process completed with exit code 1.'];
  return lines.map((l, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.0000000Z ${l}`).join('\n') + '\n';
}

/** Runs `command` in a fresh checkout of the broken commit and returns its combined output. */
function realRun(remoteUrl: string, command: string, withModules: boolean): { output: string; dir: string } {
  const { dir } = cloneShallow(remoteUrl);
  if (withModules) symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  const r = spawnSync('bash', ['-c', `${command} 2>&1`], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: 'true', FORCE_COLOR: '0' } });
  return { output: r.stdout, dir };
}

async function repairRun(p: { files: Record<string, string>; broken: Record<string, string>; script: Script; log: (remoteUrl: string) => string; inputs?: Record<string, string> }) {
  const repo = makeRepo(p.files, { message: 'Initial' });
  const brokenSha = commitAs(repo.dir, HUMAN, p.broken, 'Refactor');
  repo.git('push', '-q', 'origin', 'main');
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model: ScriptedModel = await startScriptedModel(p.script);
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  const run = github.addWorkflowRun({ name: 'CI', headSha: brokenSha, headBranch: 'main', event: 'push', actor: 'maintainer', conclusion: 'failure', pullRequests: [] });
  github.addJob({ runId: run.id, name: 'test', log: p.log(repo.remoteUrl) });
  const full = `${OWNER}/${REPO}`;
  const user = { login: 'maintainer', id: 1, type: 'User' };
  const payload = {
    action: 'completed',
    workflow_run: {
      id: run.id,
      name: run.name,
      head_branch: 'main',
      head_sha: brokenSha,
      run_number: run.runNumber,
      run_attempt: 1,
      event: 'push',
      status: 'completed',
      conclusion: 'failure',
      workflow_id: run.workflowId,
      html_url: `https://github.com/${full}/actions/runs/${run.id}`,
      created_at: run.createdAt,
      pull_requests: [],
      actor: user,
      triggering_actor: user,
      head_repository: { full_name: full },
      repository: { full_name: full },
    },
    workflow: { name: run.name, path: '.github/workflows/ci.yml' },
    repository: { name: REPO, full_name: full, owner: { login: OWNER } },
    sender: user,
  };
  const checkout = cloneShallow(repo.remoteUrl);
  const r = await runAction({
    workspace: checkout.dir,
    tempDir: tempDir('agent-fix-ci-identity-runner-'),
    eventName: 'workflow_run',
    payload,
    repository: full,
    apiUrl: github.url,
    inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: model.url }, { workflows: '', ...p.inputs }),
  });
  return { r, github, model, repo, brokenSha };
}

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
