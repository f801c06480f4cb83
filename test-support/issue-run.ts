/**
 * An issue run of the action, staged the way the isolation and sandbox e2e tests stage it: a
 * repository (its bare remote, and a shallow clone of it as the job's workspace), a temporary
 * directory with a HOME in it, optionally given to `nobody` (the action then runs as nobody);
 * the fake GitHub over the remote, with issue #7 labelled by a maintainer; the scripted model;
 * and the action run on that issue with `test` as its test command.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { startScriptedModel, type ScriptedModel, type ScriptedModelOptions } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { cloneShallow, makeRepo, tempDir, type RepoFixture } from './git-fixture.js';
import { runAction, type ActionRun } from './run-action.js';
import { API_KEY, GH_TOKEN, labeledPayload, OWNER, REPO } from './run-main.js';

export type RunUser = 'root' | 'nobody';

export interface IssueStage {
  repo: RepoFixture;
  temp: string;
  home: string;
  workspace: string;
}

/** The repository of `files`, a temporary directory (`tempPrefix`) with `home/`, then (after `beforeClone`) the workspace cloned from the remote. */
export function stageIssueRun(files: Record<string, string>, tempPrefix: string, beforeClone?: (s: Omit<IssueStage, 'workspace'>) => void): IssueStage {
  const repo = makeRepo(files);
  const temp = tempDir(tempPrefix);
  const home = path.join(temp, 'home');
  mkdirSync(home, { recursive: true });
  beforeClone?.({ repo, temp, home });
  const workspace = cloneShallow(repo.remoteUrl).dir;
  return { repo, temp, home, workspace };
}

/** The remote, the workspace, the temporary directory and `more`, owned by nobody (for a run `asUser: 'nobody'`). */
export function giveToNobody(s: IssueStage, more: string[] = []): void {
  const dirs = [path.dirname(s.repo.remoteDir), path.dirname(s.workspace), s.temp, ...more];
  for (const d of dirs) execFileSync('chown', ['-R', 'nobody:nogroup', d]);
  for (const d of dirs) chmodSync(d, 0o755);
}

/** The fake GitHub over the stage's remote (issue #7 labelled, `maintainer` may write, `policy` on the default branch) and the model serving `steps`. */
export async function startIssueServers(s: IssueStage, steps: Script['steps'], o: { model?: ScriptedModelOptions; policy?: string } = {}): Promise<{ github: FakeGitHub; model: ScriptedModel }> {
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: s.repo.remoteDir });
  const model = await startScriptedModel({ steps }, o.model);
  github.setPermission('maintainer', 'write');
  if (o.policy) github.setFile('.github/agent-fix.yml', o.policy);
  github.addIssue({ number: 7, title: 'add is wrong', body: 'add(2, 3) returns -1', author: 'reporter', labels: ['agent-fix'] });
  return { github, model };
}

/** The action on issue #7's `labeled` event in the stage's workspace, as `user`, up to 3 iterations. */
export function runIssueAction(
  s: IssueStage,
  servers: { github: FakeGitHub; model: ScriptedModel },
  o: { test: string; setup?: string; user: RunUser; extraEnv: Record<string, string>; prefix?: string[] },
): Promise<ActionRun> {
  return runAction({
    workspace: s.workspace,
    tempDir: s.temp,
    eventName: 'issues',
    payload: labeledPayload('maintainer'),
    repository: `${OWNER}/${REPO}`,
    apiUrl: servers.github.url,
    inputs: { 'github-token': GH_TOKEN, 'api-key': API_KEY, 'base-url': servers.model.url, model: 'gpt-4.1-mini', 'test-command': o.test, ...(o.setup ? { 'setup-command': o.setup } : {}), 'max-iterations': '3' },
    extraEnv: o.extraEnv,
    ...(o.user === 'nobody' ? { asUser: o.user } : {}),
    ...(o.prefix ? { prefix: o.prefix } : {}),
  });
}
