/**
 * Runs the action's composition root (src/main.ts `run`) in process, against the fake
 * GitHub API, the scripted model and a real git repository with a bare `file://` remote.
 * Faster than the end-to-end runs of dist/index.js, so the fault-injection and adversarial
 * suites can afford many cases; adapters get short retry waits through `RunOverrides`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { run, type RunOverrides } from '../src/main.js';
import type { ActionsRuntime } from '../src/adapters/actions.js';
import { startFakeGitHub, type FakeGitHub } from './fake-github.js';
import { startScriptedModel, type ScriptedModel } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { cloneShallow, gitIn, makeRepo, tempDir, type RepoFixture } from './git-fixture.js';

export const GH_TOKEN = 'ghs_inProcessWorkflowToken0123456789';
export const API_KEY = 'sk-in-process-model-key-9876543210';
export const OWNER = 'octo';
export const REPO = 'adder';
export const ISSUE = 7;

/** A tiny repository with one bug (`add` subtracts) and a test command that exits 1 on it. */
export const ADDER: Record<string, string> = {
  'package.json': '{ "name": "adder", "type": "module", "private": true }\n',
  'src/add.js': 'export function add(a, b) {\n  return a - b;\n}\n',
  'test.js': "import { add } from './src/add.js';\nif (add(2, 3) !== 5) {\n  console.log('FAIL add(2, 3) = ' + add(2, 3));\n  process.exit(1);\n}\nconsole.log('ok add');\n",
};

export const FIX_STEPS: Script['steps'] = [
  { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/add.js', old_string: 'return a - b;', new_string: 'return a + b;' } }] },
  { toolCalls: [{ name: 'finish', arguments: { summary: 'add now adds.' } }] },
];

export interface FakeRuntime extends ActionsRuntime {
  outputs: Record<string, string>;
  secrets: string[];
  logs: string[];
  failed: string | null;
  summary: string;
}

export function fakeRuntime(p: { inputs: Record<string, string>; eventName: string; payload: Record<string, unknown>; apiUrl: string }): FakeRuntime {
  const rt: FakeRuntime = {
    outputs: {},
    secrets: [],
    logs: [],
    failed: null,
    summary: '',
    getInput: (name) => p.inputs[name] ?? '',
    setOutput: (name, value) => {
      rt.outputs[name] = String(value);
    },
    setSecret: (v) => {
      rt.secrets.push(v);
    },
    info: (m) => {
      rt.logs.push(m);
    },
    warning: (m) => {
      rt.logs.push(`warning: ${m}`);
    },
    setFailed: (m) => {
      rt.failed = m;
    },
    appendSummary: async (md) => {
      rt.summary += md;
    },
    startGroup: (name) => {
      rt.logs.push(`::group::${name}`);
    },
    endGroup: () => {
      rt.logs.push('::endgroup::');
    },
    eventName: p.eventName,
    payload: p.payload,
    owner: OWNER,
    repo: REPO,
    runUrl: `https://github.com/${OWNER}/${REPO}/actions/runs/4242`,
    apiUrl: p.apiUrl,
  };
  return rt;
}

export function labeledPayload(actor: string, body = 'add(2, 3) returns -1', sender: Record<string, unknown> = { login: actor, type: actor.endsWith('[bot]') ? 'Bot' : 'User' }) {
  return {
    action: 'labeled',
    label: { name: 'agent-fix' },
    issue: { number: ISSUE, title: 'add is wrong', body, state: 'open', user: { login: 'reporter', type: 'User' }, updated_at: new Date().toISOString() },
    repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
    sender,
  };
}

export function commentPayload(actor: string, body: string, createdAt = new Date().toISOString()) {
  return {
    action: 'created',
    comment: { id: 99, body, user: { login: actor, type: actor.endsWith('[bot]') ? 'Bot' : 'User' }, created_at: createdAt, updated_at: createdAt },
    issue: { number: ISSUE, title: 'add is wrong', body: 'add(2, 3) returns -1', state: 'open', user: { login: 'reporter', type: 'User' } },
    repository: { name: REPO, full_name: `${OWNER}/${REPO}`, owner: { login: OWNER } },
    sender: { login: actor, type: actor.endsWith('[bot]') ? 'Bot' : 'User' },
  };
}

export interface MainRun {
  rt: FakeRuntime;
  checkout: string;
  transcript: string;
}

export interface MainWorld {
  repo: RepoFixture;
  github: FakeGitHub;
  model: ScriptedModel;
  run(o?: { actor?: string; payload?: Record<string, unknown>; eventName?: string; inputs?: Record<string, string>; env?: Record<string, string>; runId?: number; model?: ScriptedModel; overrides?: RunOverrides; prepare?: (checkout: string) => void }): Promise<MainRun>;
  close(): Promise<void>;
}

export async function mainWorld(script: Script, files: Record<string, string> = ADDER, issueBody = 'add(2, 3) returns -1'): Promise<MainWorld> {
  const repo = makeRepo(files);
  const github = await startFakeGitHub({ owner: OWNER, repo: REPO, token: GH_TOKEN, gitDir: repo.remoteDir });
  const model = await startScriptedModel(script);
  github.setPermission('maintainer', 'write');
  github.setPermission('visitor', 'read');
  github.addIssue({ number: ISSUE, title: 'add is wrong', body: issueBody, author: 'reporter', labels: ['agent-fix'] });
  const extra: ScriptedModel[] = [];
  return {
    repo,
    github,
    model,
    async run(o = {}) {
      const checkout = cloneShallow(repo.remoteUrl).dir;
      o.prepare?.(checkout);
      const runner = tempDir('agent-fix-main-');
      const m = o.model ?? model;
      if (o.model) extra.push(o.model);
      const rt = fakeRuntime({
        eventName: o.eventName ?? 'issues',
        payload: o.payload ?? labeledPayload(o.actor ?? 'maintainer', issueBody),
        apiUrl: github.url,
        inputs: {
          'github-token': GH_TOKEN,
          'api-key': API_KEY,
          'base-url': m.url,
          model: 'scripted',
          'test-command': 'node test.js',
          'max-iterations': '3',
          'command-timeout-minutes': '2',
          ...o.inputs,
        },
      });
      const env: NodeJS.ProcessEnv = {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        GITHUB_WORKSPACE: checkout,
        RUNNER_TEMP: runner,
        GITHUB_RUN_ID: String(o.runId ?? 4242),
        GITHUB_RUN_ATTEMPT: '1',
        // git identity and config of the checkout come from the fixture, never the global config
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_CONFIG_NOSYSTEM: '1',
        ...o.env,
      };
      await run(rt, env, { github: { retryAfterBaseMs: 1, maxRateLimitWaitSeconds: 5, ...o.overrides?.github }, model: { maxRetries: 2, ...o.overrides?.model }, sandbox: o.overrides?.sandbox, exit: o.overrides?.exit, progressIntervalMs: o.overrides?.progressIntervalMs });
      if (process.env.AGENT_FIX_DEBUG_HARNESS) {
        const c = github.comments.filter((x) => x.issueNumber === ISSUE).map((x) => x.body.slice(0, 1500)).join('\n---\n');
        process.stderr.write(`HARNESS status=${rt.outputs.status}\n${c}\n${rt.logs.join('\n').slice(0, 3000)}\nEND HARNESS\n`);
      }
      const tp = rt.outputs['transcript-path'];
      return { rt, checkout, transcript: tp ? readFileSync(tp, 'utf8') : '' };
    },
    async close() {
      await github.close();
      await model.close();
      for (const m of extra) await m.close();
    },
  };
}

export function remoteBranch(repo: RepoFixture, branch: string): string | null {
  try {
    return gitIn(repo.remoteDir)('rev-parse', '--verify', '--quiet', `refs/heads/${branch}`) || null;
  } catch {
    return null;
  }
}

export function botComments(github: FakeGitHub) {
  return github.comments.filter((c) => c.issueNumber === ISSUE && c.body.includes(`<!-- agent-fix:issue-${ISSUE} -->`));
}

export { path };
