/**
 * End to end: `mode: propose` and `mode: publish` through the bundled action (dist/index.js under
 * node 24), as two jobs of a workflow would run them: a matrix of propose jobs, each with a
 * read-only token that the fake GitHub answers with 403 on every write, writing its bundle into
 * one directory (what download-artifact with merge-multiple makes of their artifacts); then a
 * publish job with a write token and no model key. Real git with a file:// remote, the real
 * test command, scripted models; no doubles.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeGitHub, type FakeGitHub } from '../../test-support/fake-github.js';
import { startScriptedModel } from '../../src/scripted/server.js';
import type { Script } from '../../src/scripted/script.js';
import { cleanupFixtures, cloneShallow, gitIn, makeRepo, tempDir, type RepoFixture } from '../../test-support/git-fixture.js';
import { actionInputs, runAction, type ActionRun } from '../../test-support/run-action.js';
import { ADDER } from '../../test-support/run-main.js';
import { editManifest, editScript, replacePatch } from '../../test-support/bundle-world.js';
import { DEFAULT_LIMITS, MANIFEST_FILE } from '../../src/bundle/schema.js';

const GH_TOKEN = 'ghs_e2eProposePublishToken0123456789';
const API_KEY = 'sk-e2e-propose-model-key-9876543210';
const OWNER = 'octo';
const REPO = 'adder';
/** Nothing listens here: a publish job that asked a model would fail to connect. */
const NO_MODEL = 'http://127.0.0.1:9/v1';

const LARGE = ['// add: the sum of two numbers.', ...Array.from({ length: 24 }, (_, i) => `// note ${i + 1}: addition is commutative and associative.`), 'return a + b;'].join('\n  ');

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

function labeled(actor = 'maintainer') {
  return {
    action: 'labeled',
    label: { name: 'agent-fix' },
    issue: { number: 7, title: 'add is wrong', body: 'add(2, 3) returns -1', state: 'open', user: { login: 'reporter', type: 'User' }, updated_at: new Date().toISOString() },
    repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
    sender: { login: actor, type: 'User' },
  };
}

interface World {
  repo: RepoFixture;
  github: FakeGitHub;
  bundles: string;
  propose(candidate: string, script: Script, over?: Record<string, string>, extraEnv?: Record<string, string>): Promise<ActionRun>;
  publish(over?: Record<string, string>, checkout?: string): Promise<ActionRun>;
}

async function world(): Promise<World> {
  const repo = makeRepo(ADDER);
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  open.push(github);
  github.setPermission('maintainer', 'write');
  github.addIssue({ number: 7, title: 'add is wrong', body: 'add(2, 3) returns -1', author: 'reporter', labels: ['agent-fix'] });
  const bundles = tempDir('agent-fix-downloaded-');
  const base = { 'test-command': 'node test.js', 'max-iterations': '1' };
  return {
    repo,
    github,
    bundles,
    async propose(candidate, script, over = {}, extraEnv = {}) {
      const model = await startScriptedModel(script);
      open.push(model);
      // each propose job uploads its own bundle-path; download-artifact (merge-multiple) puts them side by side
      const own = tempDir('agent-fix-propose-out-');
      github.setReadOnly(true);
      try {
        const r = await runAction({
          workspace: cloneShallow(repo.remoteUrl).dir,
          tempDir: tempDir('agent-fix-runner-'),
          eventName: 'issues',
          payload: labeled(),
          repository: `${OWNER}/${REPO}`,
          apiUrl: github.url,
          inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: model.url }, { ...base, mode: 'propose', candidate, bundles: own, ...over }),
          extraEnv,
        });
        if (r.outputs['bundle-path']) cpSync(r.outputs['bundle-path'], bundles, { recursive: true });
        return r;
      } finally {
        github.setReadOnly(false);
      }
    },
    async publish(over = {}, checkout = cloneShallow(repo.remoteUrl).dir) {
      return runAction({
        workspace: checkout,
        tempDir: tempDir('agent-fix-runner-'),
        eventName: 'issues',
        payload: labeled(),
        repository: `${OWNER}/${REPO}`,
        apiUrl: github.url,
        inputs: actionInputs({ token: GH_TOKEN, apiKey: '', baseUrl: NO_MODEL }, { ...base, mode: 'publish', bundles, ...over }),
      });
    },
  };
}

function remoteBranch(repo: RepoFixture, branch: string): string | null {
  try {
    return gitIn(repo.remoteDir)('rev-parse', '--verify', `refs/heads/${branch}`);
  } catch {
    return null;
  }
}

const writes = (g: FakeGitHub) => g.requests.filter((r) => !['GET', 'HEAD'].includes(r.method));

describe('propose → publish through dist/index.js', () => {
  let w: World;
  const proposed: Record<string, ActionRun> = {};

  beforeAll(async () => {
    w = await world();
    // three candidates: one fails, one passes with a large diff, one with a small diff
    proposed['1'] = await w.propose('1', editScript('return a * b;', 'candidate 1'));
    proposed['2'] = await w.propose('2', editScript(LARGE, 'candidate 2'));
    proposed['3'] = await w.propose('3', editScript('return a + b;', 'candidate 3'));
  }, 300_000);

  test('the propose jobs, whose token may not write, make no write call and push nothing; each writes its bundle', () => {
    expect(w.github.writeAttempts).toEqual([]);
    expect(writes(w.github)).toEqual([]);
    expect(w.github.comments).toEqual([]);
    expect(w.github.pulls).toEqual([]);
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBeNull();
    expect(gitIn(w.repo.remoteDir)('for-each-ref', '--format=%(refname)')).toBe('refs/heads/main');
    for (const [id, r] of Object.entries(proposed)) {
      expect(r.code).toBe(0);
      expect(r.outputs['bundle-path']).toBeTruthy();
      expect(readdirSync(r.outputs['bundle-path'])).toEqual([`candidate-${id}`]);
      expect(r.outputs['pr-url']).toBe('');
      expect(r.outputs.branch).toBe('');
      expect(r.summary).toContain(`**Bundle**: candidate \`${id}\``);
    }
    // the failed candidate still wrote its evidence (not verified), for publish to report
    expect(proposed['1'].outputs.status).toBe('not-fixed');
    expect(proposed['2'].outputs.status).toBe('fixed');
    expect(proposed['3'].outputs.status).toBe('fixed');
    const m1 = JSON.parse(readFileSync(path.join(w.bundles, 'candidate-1', MANIFEST_FILE), 'utf8'));
    expect(m1.evidence.status).toBe('not-fixed');
    expect(m1.candidate).toMatchObject({ id: '1', temperature: 0.2 });
    expect(JSON.stringify(m1)).not.toContain(API_KEY);
    expect(JSON.stringify(m1)).not.toContain(GH_TOKEN);
    w.github.assertNoViolations();
  });

  test('publish, without a model key, pushes the small verified candidate and lists all three in the PR', async () => {
    const before = w.github.requests.length;
    const r = await w.publish();
    expect(r.stderr).not.toMatch(/ECONNREFUSED/);
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('fixed');
    expect(r.outputs.branch).toBe('agent-fix/issue-7');
    expect(w.github.pulls).toHaveLength(1);
    const pr = w.github.pulls[0];
    expect(pr).toMatchObject({ head: 'agent-fix/issue-7', base: 'main' });
    expect(r.outputs['pr-number']).toBe(String(pr.number));
    // the winner named, the others one line each
    expect(pr.body).toMatch(/\*\*Candidates\*\*: 3 bundle\(s\); candidate `3` is published/);
    expect(pr.body).toMatch(/- candidate `3` \(`scripted-e2e`, temperature 0\.6\): verified, 1 file \+1\/-1, .* — \*\*published\*\*/);
    expect(pr.body).toMatch(/- candidate `2` .*: verified, 1 file \+\d+\/-1, .* — lost: larger change/);
    expect(pr.body).toMatch(/- candidate `1` .*: not verified \(tests-still-failing\).* — lost: not verified/);
    // the pushed branch is the small fix on top of the base, and nothing else
    const sha = remoteBranch(w.repo, 'agent-fix/issue-7');
    const g = gitIn(w.repo.remoteDir);
    expect(g('rev-parse', `${sha}^`)).toBe(w.repo.sha);
    expect(g('diff', '--name-only', w.repo.sha, sha!)).toBe('src/add.js');
    expect(g('show', `${sha}:src/add.js`)).toBe('export function add(a, b) {\n  return a + b;\n}');
    // the sticky comment links the PR; the summary lists the candidates
    const comments = w.github.comments.filter((c) => c.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(comments).toHaveLength(1);
    expect(comments[0].body).toContain(`/pull/${pr.number}`);
    expect(comments[0].body).toContain('candidate `3` is published');
    expect(r.summary).toMatch(/candidate `1`[\s\S]*candidate `2`|candidate `2`[\s\S]*candidate `1`/);
    // no request of publish went to a model; its only writes are the comment and the PR
    expect(w.github.requests.slice(before).filter((q) => q.method !== 'GET').map((q) => `${q.method} ${q.path.replace(/\d+/g, 'N')}`).sort()).toEqual(
      ['PATCH /repos/octo/adder/issues/comments/N', 'POST /repos/octo/adder/issues/N/comments', 'POST /repos/octo/adder/pulls'].sort(),
    );
    w.github.assertNoViolations();
  });
});

describe('publish refuses what it cannot trust', () => {
  test('tampered bundles (protected path, path escape, wrong base, oversize, malformed) are refused with a clear error; nothing is pushed', async () => {
    const w = await world();
    const made = await w.propose('good', editScript('return a + b;'));
    expect(made.outputs.status).toBe('fixed');
    const good = path.join(w.bundles, 'candidate-good');
    const NEW_FILE = (file: string) => `diff --git a/${file} b/${file}\nnew file mode 100644\n--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+x\n`;
    const variants: [string, (d: string) => void][] = [
      ['protected', (d) => replacePatch(d, NEW_FILE('.github/workflows/evil.yml'))],
      ['escape', (d) => replacePatch(d, NEW_FILE('../escape.txt'))],
      ['base', (d) => editManifest(d, (m) => (m.baseSha = 'b'.repeat(40)))],
      ['oversize', (d) => replacePatch(d, Buffer.alloc(DEFAULT_LIMITS.patchBytes + 1, 0x61))],
      ['malformed', (d) => writeFileSync(path.join(d, MANIFEST_FILE), '{"kind": "agent-fix-bundle", "version": 1,')],
    ];
    for (const [id, tamper] of variants) {
      const dir = path.join(w.bundles, `candidate-${id}`);
      cpSync(good, dir, { recursive: true });
      editManifest(dir, (m) => (m.candidate.id = id));
      tamper(dir);
    }
    rmSync(good, { recursive: true });

    const r = await w.publish();
    expect(r.code).not.toBe(0);
    expect(r.outputs.status).toBe('error');
    expect(r.stdout).toMatch(/::error::agent-fix: None of the 5 bundle\(s\) could be used/);
    for (const reason of [
      /candidate `protected` — refused: it touches the protected path `.github\/workflows\/evil.yml`/,
      /candidate `escape` — refused: it names a path that escapes the repository/,
      /candidate `base` — refused: its base bbbbbbbbbbbb is not the commit this job checked out/,
      /refused: the patch is 8388609 bytes, over the limit of 8388608 bytes/,
      /`candidate-malformed` — refused: manifest.json is not valid JSON/,
    ]) {
      expect(r.summary).toMatch(reason);
    }
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBeNull();
    expect(w.github.pulls).toEqual([]);
    const comment = w.github.comments.find((c) => c.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(comment?.body).toMatch(/None of the 5 bundle\(s\) could be used/);
    w.github.assertNoViolations();
  }, 300_000);

  test('an empty or missing bundles directory is a clear error; nothing is pushed', async () => {
    const w = await world();
    const empty = await w.publish();
    expect(empty.outputs.status).toBe('error');
    expect(empty.stdout).toMatch(/::error::agent-fix: No bundle was found under .*actions\/download-artifact with merge-multiple: true/);
    const missing = await w.publish({ bundles: path.join(w.bundles, 'nope') });
    expect(missing.outputs.status).toBe('error');
    expect(missing.stdout).toMatch(/::error::agent-fix: The bundles directory .*nope does not exist: download the propose jobs' artifacts there first/);
    const unset = await w.publish({ bundles: '' });
    expect(unset.outputs.status).toBe('error');
    expect(unset.stdout).toMatch(/Input "bundles" is required with mode: publish/);
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBeNull();
    expect(w.github.pulls).toEqual([]);
    w.github.assertNoViolations();
  }, 300_000);

  test('no candidate verified: the comment gets the best attempt\'s report, no PR is opened', async () => {
    const w = await world();
    await w.propose('1', editScript('return a * b;'));
    await w.propose('2', editScript('return b - a;'));
    // a cell whose setup fails ends in an error, and still hands its evidence on: the step succeeds so the bundle is uploaded
    const broken = await w.propose('3', editScript('return a + b;'), { 'setup-command': 'echo cannot install >&2; exit 3' });
    expect(broken.code).toBe(0);
    expect(broken.outputs.status).toBe('error');
    expect(broken.outputs['bundle-path']).toBeTruthy();
    expect(broken.stdout).toMatch(/::warning::agent-fix: The setup command .* exited with 3.*recorded in the bundle for the publish job/);
    expect(w.github.writeAttempts).toEqual([]);
    const r = await w.publish();
    expect(r.code).toBe(0);
    expect(r.outputs.status).toBe('not-fixed');
    expect(w.github.pulls).toEqual([]);
    expect(remoteBranch(w.repo, 'agent-fix/issue-7')).toBeNull();
    const comment = w.github.comments.find((c) => c.body.includes('<!-- agent-fix:issue-7 -->'));
    expect(comment?.body).toMatch(/No candidate produced a verified fix, so nothing was published\. The best attempt was candidate `1`/);
    expect(comment?.body).toMatch(/\*\*Candidates\*\*: 3 bundle\(s\); none is verified, so nothing is published/);
    expect(comment?.body).toMatch(/- candidate `3` .*: not verified \(setup-failed\)/);
    w.github.assertNoViolations();
  }, 300_000);

  test('a bundle whose patch makes the test script leave a marker: publishing it leaves none (no tests, no hooks, no filters)', async () => {
    const w = await world();
    const markers = tempDir('agent-fix-markers-');
    const marker = (name: string) => path.join(markers, name);
    const script: Script = {
      label: 'marker',
      steps: [
        {
          toolCalls: [
            { name: 'edit_file', arguments: { path: 'src/add.js', old_string: 'return a - b;', new_string: 'return a + b;' } },
            {
              name: 'edit_file',
              arguments: { path: 'test.js', old_string: "import { add } from './src/add.js';", new_string: `import { add } from './src/add.js';\nimport { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker('test-ran'))}, 'x');` },
            },
          ],
        },
        { toolCalls: [{ name: 'finish', arguments: { summary: 'fixed add' } }] },
      ],
    };
    // without the sandbox (which keeps a test from writing outside the checkout: __tests__/e2e/e2e-sandbox.test.ts), so the marker shows the test ran
    const made = await w.propose('1', script, {}, { AGENT_FIX_SANDBOX: 'off' });
    expect(made.outputs.status).toBe('fixed');
    // the propose job ran the model's test script: that is where model-written code runs
    expect(existsSync(marker('test-ran'))).toBe(true);
    rmSync(marker('test-ran'));

    // the publish checkout at its worst: hooks and a filter driver that would each leave a marker
    const checkout = cloneShallow(w.repo.remoteUrl).dir;
    const g = gitIn(checkout);
    const hooks = path.join(checkout, '.git', 'hooks');
    mkdirSync(hooks, { recursive: true });
    for (const hook of ['pre-push', 'post-checkout', 'reference-transaction', 'pre-commit', 'post-commit', 'post-index-change']) {
      writeFileSync(path.join(hooks, hook), `#!/bin/sh\ntouch '${marker(`hook-${hook}`)}'\n`, { mode: 0o755 });
    }
    g('config', 'core.hooksPath', hooks);
    g('config', 'filter.evil.clean', `touch '${marker('filter-clean')}'; cat`);
    g('config', 'filter.evil.smudge', `touch '${marker('filter-smudge')}'; cat`);
    writeFileSync(path.join(checkout, '.git', 'info', 'attributes'), '* filter=evil\n');

    const r = await w.publish({}, checkout);
    expect(r.outputs.status).toBe('fixed');
    const sha = remoteBranch(w.repo, 'agent-fix/issue-7');
    expect(gitIn(w.repo.remoteDir)('show', `${sha}:test.js`)).toContain('test-ran');
    expect(readdirSync(markers)).toEqual([]);
    // the control: the same checkout does fire its hooks and filters when git is used normally
    writeFileSync(path.join(checkout, 'x.txt'), 'x');
    g('add', 'x.txt');
    expect(readdirSync(markers).length).toBeGreaterThan(0);
  }, 300_000);
});
