/**
 * Composition root of the action: reads the settings, the trigger and the policy, builds the
 * adapters, picks the story's kind (issue or CI repair) and runs the one story (run/story.ts);
 * the outputs are written once, from the story's result.
 */
import os from 'node:os';
import path from 'node:path';
import { actionsRuntime, type ActionsRuntime } from './adapters/actions.js';
import { makeGitHub, type MakeGitHubOptions } from './adapters/github.js';
import { openGit } from './adapters/git.js';
import { makeShell } from './adapters/shell.js';
import { makeChatModel, type ChatModelOptions } from './adapters/openai.js';
import { openPatchGit } from './adapters/patch.js';
import type { ChatModel } from './ports/llm.js';
import { candidateSampling } from './bundle/candidate.js';
import type { SandboxProbe } from './sandbox/sandbox.js';
import type { Identity } from './ports/git.js';
import type { Settings } from './settings/types.js';
import type { Outcome } from './fix/types.js';
import { readSettings } from './settings/inputs.js';
import { parseTrigger } from './trigger/parse.js';
import { loadPolicy, type LoadedPolicy } from './policy/load.js';
import { isBotLogin, SELF_LOGINS } from './policy/authorize.js';
import { applyPolicy } from './policy/apply.js';
import { PolicyError } from './policy/schema.js';
import { runIdFromEnv } from './publish/claim.js';
import { Redactor, secretsFromEnv } from './redact.js';
import { onCancel } from './run/cancel.js';
import { runStory } from './run/story.js';
import { selectKind } from './run/select.js';
import { runLifecycle } from './run/lifecycle.js';
import { proposeKind } from './run/propose.js';
import { publishKind } from './run/publish.js';
import { ciSkipReport } from './run/ci-report-only.js';
import { renderStoppedSummary } from './report/render.js';
import type { StoryKind, StoryResult, StoryWorld } from './run/kind.js';
import { groupedProgress } from './run/action-progress.js';
import { ACTION_WORDING } from './settings/wording.js';

/** The identity of commits made with the workflow token; also what "the bot's own commits" means. */
export const BOT_IDENTITY: Identity = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };

interface Outputs {
  status: Outcome;
  prNumber?: number;
  prUrl?: string;
  branch?: string;
  iterations?: number;
  transcriptPath?: string;
  /** propose: the directory holding the bundle. */
  bundlePath?: string;
  /** Status `error`: the message the step fails with. */
  failed?: string;
  /** Status `skipped`: why, in one line (for the step summary when nothing else wrote one). */
  note?: string;
  /** Why, as a code (output `reason`): a report's reason, or how the run ended before one (absent: from the status). */
  reason?: string;
  headSha?: string;
  prOperation?: 'created' | 'updated';
  costUsd?: number | null;
  tokens?: number;
}

function writeOutputs(rt: ActionsRuntime, o: Outputs): void {
  rt.setOutput('status', o.status);
  rt.setOutput('pr-number', o.prNumber ?? '');
  rt.setOutput('pr-url', o.prUrl ?? '');
  rt.setOutput('branch', o.branch ?? '');
  rt.setOutput('iterations', o.iterations ?? 0);
  rt.setOutput('transcript-path', o.transcriptPath ?? '');
  rt.setOutput('reason', o.reason ?? (o.status === 'skipped' ? 'not-applicable' : o.status === 'error' ? 'internal-error' : ''));
  rt.setOutput('head-sha', o.headSha ?? '');
  rt.setOutput('pull-request-operation', o.prOperation ?? 'none');
  rt.setOutput('cost-usd', typeof o.costUsd === 'number' ? o.costUsd.toFixed(4) : '');
  rt.setOutput('tokens', o.tokens ?? 0);
  rt.setOutput('bundle-path', o.bundlePath ?? '');
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Adapter options for in-process tests (short retry waits, a given sandbox). */
export interface RunOverrides {
  github?: Partial<MakeGitHubOptions>;
  model?: Partial<ChatModelOptions>;
  sandbox?: SandboxProbe;
  /** Called instead of process.exit after a cancellation (SIGINT/SIGTERM) was handled. */
  exit?: (code: number) => void;
  /** Least time between two progress updates of the sticky comment. */
  progressIntervalMs?: number;
}

/** Writes the outputs (and fails the step on an error) once: later calls are ignored. */
function outputsOnce(rt: ActionsRuntime): (o: Outputs) => void {
  let written = false;
  return (o) => {
    if (written) return;
    written = true;
    writeOutputs(rt, o);
    if (o.status === 'error' && o.failed) rt.setFailed(o.failed);
  };
}

/** Story results whose `reason` is a sentence (a kind's skip) report this code instead. */
const REASON_CODE = /^[a-z]+(?:-[a-z]+)*$/;

function outputsOf(r: StoryResult): Outputs {
  const u = r.report?.usage;
  return {
    reason: r.report?.reason ?? (REASON_CODE.test(r.reason) ? r.reason : r.status === 'skipped' ? 'not-applicable' : 'internal-error'),
    headSha: r.report?.headSha,
    prOperation: r.report?.prOperation,
    costUsd: r.report?.safety?.costUsd,
    tokens: u ? u.promptTokens + u.completionTokens : 0,
    status: r.status,
    prNumber: r.prNumber,
    prUrl: r.prUrl,
    branch: r.branch,
    iterations: r.iterations,
    transcriptPath: r.transcriptPath,
    bundlePath: r.bundlePath,
    // propose: an error the bundle records (setup failed...) is the publish job's to report; the step succeeds so the bundle is uploaded
    failed: r.status === 'error' && !r.bundlePath ? `agent-fix: ${r.error ?? r.reason}` : undefined,
    note: r.note,
  };
}

/**
 * Every run leaves a step summary, however it ends: the story writes its own report; when a
 * run ends without one (refused, skipped, a crash), the summary says how it ended and why.
 * The outputs are written once, from the result.
 */
export async function run(rt: ActionsRuntime = actionsRuntime(), env: NodeJS.ProcessEnv = process.env, overrides: RunOverrides = {}): Promise<void> {
  let summarized = false;
  const tracked: ActionsRuntime = Object.assign(Object.create(rt) as ActionsRuntime, {
    appendSummary: async (md: string) => {
      summarized = true;
      await rt.appendSummary(md);
    },
  });
  const finish = outputsOnce(rt);
  let out: Outputs;
  try {
    out = await action(tracked, env, overrides, finish);
  } catch (e) {
    // Nothing should reach here; if it does, the run still ends in a reported error state.
    const redactor = new Redactor([rt.getInput('github-token'), rt.getInput('api-key'), ...secretsFromEnv(env)]);
    out = { status: 'error', reason: 'internal-error', failed: `agent-fix: ${redactor.redact(message(e))}` };
  }
  finish(out);
  if (summarized) return;
  const skipped = out.status === 'skipped';
  const why = out.failed || out.note || 'The run ended without writing a report; the job log has the details.';
  try {
    await rt.appendSummary(renderStoppedSummary(skipped ? 'Skipped' : 'Error', why, skipped ? 'Nothing was changed.' : 'See the job log above for what was done before it stopped.'));
  } catch (e2) {
    rt.warning(`Could not write the step summary: ${message(e2)}`);
  }
}

async function action(rt: ActionsRuntime, env: NodeJS.ProcessEnv, overrides: RunOverrides, finish: (o: Outputs) => void): Promise<Outputs> {
  let settings: Settings;
  try {
    settings = readSettings((name) => rt.getInput(name));
  } catch (e) {
    return { status: 'error', reason: 'invalid-settings', failed: message(e) };
  }
  for (const secret of new Set([settings.githubToken, settings.apiKey, ...secretsFromEnv(env)])) {
    if (!secret) continue;
    rt.setSecret(secret);
    rt.setSecret(Buffer.from(secret).toString('base64'));
    rt.setSecret(Buffer.from(`x-access-token:${secret}`).toString('base64'));
  }
  const redactor = new Redactor([settings.githubToken, settings.apiKey, ...secretsFromEnv(env)]);
  const say = (m: string) => rt.info(redactor.redact(m));

  let trigger = parseTrigger(rt.eventName, rt.payload, { label: settings.label, workflows: settings.workflows });
  const senderLogin = String((rt.payload?.sender as { login?: unknown } | undefined)?.login ?? '');
  // A bot's event is skipped before any API call unless the policy may allow that bot.
  const maybeAllowedBot = trigger.kind === 'skip' && isBotLogin(senderLogin) && !SELF_LOGINS.includes(senderLogin.toLowerCase());
  if (trigger.kind === 'skip' && !maybeAllowedBot) {
    const note = `agent-fix skipped: ${trigger.reason}`;
    say(note);
    if (rt.eventName === 'workflow_run') {
      const client = () => makeGitHub({ token: settings.githubToken, baseUrl: rt.apiUrl, owner: rt.owner, repo: rt.repo, log: say });
      await rt.appendSummary(redactor.redact(await ciSkipReport(rt.payload, trigger.reason, client, rt.repo)));
    }
    return { status: 'skipped', reason: 'not-triggered', note: redactor.redact(note) };
  }

  const github = makeGitHub({ token: settings.githubToken, baseUrl: rt.apiUrl, owner: rt.owner, repo: rt.repo, log: say, ...overrides.github });
  // The policy comes from the default branch through the API, never from the working tree.
  let loaded: LoadedPolicy;
  let defaultBranch: string;
  try {
    defaultBranch = await github.getDefaultBranch();
    loaded = await loadPolicy(github, defaultBranch);
  } catch (e) {
    return { status: 'error', reason: e instanceof PolicyError ? 'invalid-policy' : 'internal-error', failed: `agent-fix: ${redactor.redact(message(e))}${e instanceof PolicyError ? ' Nothing else was done.' : ''}` };
  }
  if (maybeAllowedBot) trigger = parseTrigger(rt.eventName, rt.payload, { label: settings.label, workflows: settings.workflows, allowedBots: loaded.policy.triggers['allowed-bots'] });
  if (trigger.kind === 'skip') {
    const note = `agent-fix skipped: ${trigger.reason}`;
    say(note);
    return { status: 'skipped', reason: 'not-triggered', note: redactor.redact(note) };
  }
  settings = applyPolicy(settings, loaded.policy, loaded.source);
  say(`Policy: ${loaded.source}`);

  const transcriptDir = path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-fix');
  const mode = settings.mode ?? 'run';
  const meta = { event: rt.eventName, repository: `${rt.owner}/${rt.repo}`, runUrl: rt.runUrl, ...(mode !== 'run' ? { mode } : {}), ...(settings.candidate ? { candidate: settings.candidate } : {}) };
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const openPatches = (root: string) => openPatchGit(root);
  // publish: the trigger's kind ends its PR body, comment and summary with the candidates
  const candidates = { markdown: '' };
  const appendix = mode === 'publish' ? () => candidates.markdown : undefined;
  const selected = await selectKind(trigger, github, { defaultBranch, identity: BOT_IDENTITY, owner: rt.owner, repo: rt.repo, transcriptDir, meta, appendix });
  if ('skip' in selected) {
    const note = `agent-fix skipped: ${selected.skip}`;
    say(note);
    return { status: 'skipped', reason: 'not-applicable', note: redactor.redact(note) };
  }
  // A lifecycle command (stop, issue closed) fixes nothing and writes to GitHub: not in a propose job.
  if ('act' in selected && mode === 'propose') {
    const note = `agent-fix skipped: \`${selected.name}\` writes to GitHub, so it runs in mode run or publish, not in this propose job.`;
    say(note);
    return { status: 'skipped', note: redactor.redact(note) };
  }
  let kind: StoryKind | null = 'act' in selected ? null : selected;
  if (kind && mode === 'propose') {
    const id = settings.candidate ?? 'default';
    const outDir = path.resolve(workspace, settings.bundles ?? path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-fix-bundle'));
    kind = proposeKind(kind, { candidate: { id, ...candidateSampling(settings.candidate) }, outDir, openPatches });
  } else if (kind && mode === 'publish') {
    if (rt.getInput('api-key').trim() !== '') rt.warning('agent-fix: mode publish asks no model: the api-key input is not used; remove it from this job so the key is not exposed to it.');
    kind = publishKind(kind, { bundlesDir: path.resolve(workspace, settings.bundles as string), openPatches, candidates });
  }
  say(`Mode: ${mode}${settings.candidate ? ` (candidate ${settings.candidate})` : ''}`);
  const shown = groupedProgress(rt, (t) => redactor.redact(t));
  const world: StoryWorld = {
    github,
    policy: loaded.policy,
    openGit: () => openGit(workspace, { log: say }),
    shell: makeShell(),
    makeModel: () =>
      mode === 'publish'
        ? noModel(settings.model)
        : makeChatModel({
            baseUrl: settings.baseUrl,
            apiKey: settings.apiKey,
            model: settings.model,
            log: say,
            wording: ACTION_WORDING,
            maxOutputTokens: settings.maxOutputTokens,
            requestsPerMinute: settings.requestsPerMinute,
            ...candidateSampling(settings.candidate),
            ...overrides.model,
          }),
    sandbox: overrides.sandbox,
    settings,
    redactor,
    parentEnv: env,
    log: say,
    warn: (m) => rt.warning(redactor.redact(m)),
    appendSummary: (md) => rt.appendSummary(md),
    runId: runIdFromEnv(env),
    runUrl: rt.runUrl,
    progress: shown,
    progressIntervalMs: overrides.progressIntervalMs,
    // A cancellation's report is final: its outputs are written before the process exits.
    onCancel: (handler) => onCancel(async (signal) => finish(outputsOf(await handler(signal))), overrides.exit),
  };
  // A lifecycle command needs no model and no checkout (run/lifecycle.ts).
  if ('act' in selected) return outputsOf(await runLifecycle(selected, world));
  let result: StoryResult;
  try {
    result = await runStory(kind as StoryKind, world);
  } finally {
    shown.close();
  }
  if (result.bundlePath && result.status === 'error') rt.warning(redactor.redact(`agent-fix: ${result.error ?? result.reason} (recorded in the bundle for the publish job; this step does not fail so the bundle is uploaded)`));
  return outputsOf(result);
}

/** publish asks no model: one that is never called, and says so if it were. */
function noModel(model: string): ChatModel {
  return {
    model,
    complete: () => Promise.reject(new Error('internal error: mode publish asked the model (it never should)')),
  };
}
