/**
 * One failed CI run repaired by the bundled action (dist/index.js under node 24), for the stack
 * end-to-end tests: a repository with a broken commit on `main`, the fake GitHub API serving a
 * failed `workflow_run` whose job log the caller makes (from a real run of the project's test
 * command at the broken commit, in the runner's log framing), and the scripted model.
 * Also an issue run on the same kind of repository.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { startScriptedModel, type ScriptedModel } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { makeRepo, cloneShallow, tempDir, commitAs, HUMAN, type RepoFixture } from './git-fixture.js';
import { actionInputs, runAction, ROOT, type ActionRun } from './run-action.js';

export const GH_TOKEN = 'ghs_e2eStacksFakeToken0123456789abcd';
export const API_KEY = 'sk-e2e-stacks-fake-key-9876543210abcd';
export const OWNER = 'octo';

/** A real run's output as a GitHub Actions job log, the checkout where the runner puts it. */
export function jobLog(repo: string, command: string, output: string, dir: string): string {
  const body = output.split(dir).join(`/home/runner/work/${repo}/${repo}`);
  const lines = ['##[group]Run actions/checkout@v4', `Syncing repository: ${OWNER}/${repo}`, '##[endgroup]', `##[group]Run ${command}`, command, 'shell: /usr/bin/bash -e {0}', '##[endgroup]', ...body.replace(/\n$/, '').split('\n'), '##[error]Process completed with exit code 1.'];
  return lines.map((l, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.0000000Z ${l}`).join('\n') + '\n';
}

/** Runs `command` in a fresh checkout of the remote's main and returns its combined output. */
export function realRun(remoteUrl: string, command: string, opts: { modules?: string; env?: Record<string, string>; timeoutMs?: number } = {}): { output: string; dir: string; status: number | null } {
  const { dir } = cloneShallow(remoteUrl);
  if (opts.modules) symlinkSync(opts.modules, path.join(dir, 'node_modules'), 'dir');
  const r = spawnSync('bash', ['-c', `${command} 2>&1`], { cwd: dir, encoding: 'utf8', env: { ...process.env, CI: 'true', GITHUB_ACTIONS: 'true', FORCE_COLOR: '0', ...opts.env }, timeout: opts.timeoutMs ?? 180_000, maxBuffer: 64 << 20 });
  return { output: r.stdout, dir, status: r.status };
}

export interface Repaired {
  r: ActionRun;
  github: FakeGitHub;
  model: ScriptedModel;
  repo: RepoFixture;
  brokenSha: string;
}

type Closable = { close(): Promise<void> };

/** The broken commit is pushed on top of `files`; the CI run of that commit failed with `log`. */
export async function repairCiRun(
  open: Closable[],
  p: { repo: string; files: Record<string, string>; broken: Record<string, string>; script: Script; log: (remoteUrl: string) => string; inputs?: Record<string, string>; binary?: Record<string, Buffer>; env?: Record<string, string> },
): Promise<Repaired> {
  const repo = makeRepo(p.files, { message: 'Initial' });
  if (p.binary && Object.keys(p.binary).length) {
    // files that are not UTF-8 text (data files of a real project), byte for byte
    for (const [f, bytes] of Object.entries(p.binary)) {
      mkdirSync(path.dirname(path.join(repo.dir, f)), { recursive: true });
      writeFileSync(path.join(repo.dir, f), bytes);
    }
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'Data files');
  }
  const brokenSha = commitAs(repo.dir, HUMAN, p.broken, 'Refactor');
  repo.git('push', '-q', 'origin', 'main');
  const github = await startFakeGitHub({ owner: OWNER, repo: p.repo, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel(p.script);
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  const run = github.addWorkflowRun({ name: 'CI', headSha: brokenSha, headBranch: 'main', event: 'push', actor: 'maintainer', conclusion: 'failure', pullRequests: [] });
  github.addJob({ runId: run.id, name: 'test', log: p.log(repo.remoteUrl) });
  const full = `${OWNER}/${p.repo}`;
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
    repository: { name: p.repo, full_name: full, owner: { login: OWNER } },
    sender: user,
  };
  const checkout = cloneShallow(repo.remoteUrl);
  const r = await runAction({
    workspace: checkout.dir,
    tempDir: tempDir('agent-fix-stacks-runner-'),
    eventName: 'workflow_run',
    payload,
    repository: full,
    apiUrl: github.url,
    inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: model.url }, { workflows: '', ...p.inputs }),
    ...(p.env ? { extraEnv: p.env } : {}),
  });
  return { r, github, model, repo, brokenSha };
}

/** An issue labelled `agent-fix` on a repository whose `main` is `files` then `broken`. */
export async function repairIssue(
  open: Closable[],
  p: { repo: string; files: Record<string, string>; broken?: Record<string, string>; script: Script; title: string; body: string; inputs?: Record<string, string>; env?: Record<string, string> },
): Promise<Repaired> {
  const repo = makeRepo(p.files, { message: 'Initial' });
  const brokenSha = p.broken ? commitAs(repo.dir, HUMAN, p.broken, 'Refactor') : repo.git('rev-parse', 'HEAD').trim();
  repo.git('push', '-q', 'origin', 'main');
  const github = await startFakeGitHub({ owner: OWNER, repo: p.repo, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel(p.script);
  open.push(github, model);
  github.setPermission('maintainer', 'write');
  github.addIssue({ number: 7, title: p.title, body: p.body, author: 'reporter', labels: ['agent-fix'] });
  const full = `${OWNER}/${p.repo}`;
  const payload = {
    action: 'labeled',
    label: { name: 'agent-fix' },
    issue: { number: 7, title: p.title, body: p.body, state: 'open', user: { login: 'reporter', type: 'User' }, updated_at: new Date().toISOString() },
    repository: { name: p.repo, full_name: full, owner: { login: OWNER } },
    sender: { login: 'maintainer', type: 'User' },
  };
  const checkout = cloneShallow(repo.remoteUrl);
  const r = await runAction({
    workspace: checkout.dir,
    tempDir: tempDir('agent-fix-stacks-runner-'),
    eventName: 'issues',
    payload,
    repository: full,
    apiUrl: github.url,
    inputs: actionInputs({ token: GH_TOKEN, apiKey: API_KEY, baseUrl: model.url }, p.inputs ?? {}),
    ...(p.env ? { extraEnv: p.env } : {}),
  });
  return { r, github, model, repo, brokenSha };
}

export { ROOT };
