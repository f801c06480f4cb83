/**
 * Composition root of the action: reads the settings, the trigger (once) and the policy, builds
 * the adapters, picks the story's kind and mode, and runs the one story (run/story.ts); the
 * outputs are written once, from the story's result (run/outputs.ts).
 */
import os from 'node:os';
import path from 'node:path';
import { actionsRuntime, type ActionsRuntime } from './adapters/actions.js';
import { makeGitHub, type MakeGitHubOptions } from './adapters/github.js';
import { openGit } from './adapters/git.js';
import { makeShell } from './adapters/shell.js';
import { makeChatModel, type ChatModelOptions } from './adapters/openai.js';
import { openPatchGit } from './adapters/patch.js';
import { candidateSampling } from './bundle/candidate.js';
import type { SandboxProbe } from './sandbox/sandbox.js';
import type { Identity } from './ports/git.js';
import type { SettingsInput } from './settings/types.js';
import { resolveSettings } from './settings/resolve.js';
import { readSettings } from './settings/inputs.js';
import { loadPolicy, type LoadedPolicy } from './policy/load.js';
import { applyPolicy } from './policy/apply.js';
import { PolicyError } from './policy/schema.js';
import { runIdFromEnv } from './publish/claim.js';
import { Redactor, secretsFromEnv } from './redact.js';
import { onCancel } from './run/cancel.js';
import { runStory } from './run/story.js';
import { selectKind } from './run/select.js';
import { runLifecycle } from './run/lifecycle.js';
import { ciSkipReport } from './run/ci-report-only.js';
import { confirmBot, readTrigger } from './run/read-trigger.js';
import { kindForMode, noModel } from './run/mode.js';
import { outputsOf, outputsOnce, type Outputs } from './run/outputs.js';
import { renderStoppedSummary } from './report/render.js';
import type { StoryWorld } from './run/kind.js';
import { groupedProgress } from './run/action-progress.js';
import { ACTION_WORDING } from './settings/wording.js';
import { errorMessage } from './errors.js';

/** The identity of commits made with the workflow token; also what "the bot's own commits" means. */
export const BOT_IDENTITY: Identity = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };

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

/**
 * Every run leaves a step summary, however it ends: the story writes its own report; when a
 * run ends without one (refused, skipped, a crash), the summary says how it ended and why.
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
  // Nothing should throw out of action(); if something does, the run still ends in a reported error state.
  const crashed = (e: unknown): Outputs => ({ status: 'error', reason: 'internal-error', failed: `agent-fix: ${new Redactor([rt.getInput('github-token'), rt.getInput('api-key'), ...secretsFromEnv(env)]).redact(errorMessage(e))}` });
  const out = await action(tracked, env, overrides, finish).catch(crashed);
  finish(out);
  if (summarized) return;
  const skipped = out.status === 'skipped';
  const why = out.failed || out.note || 'The run ended without writing a report; the job log has the details.';
  await rt.appendSummary(renderStoppedSummary(skipped ? 'Skipped' : 'Error', why, skipped ? 'Nothing was changed.' : 'See the job log above for what was done before it stopped.')).catch((e2: unknown) => rt.warning(`Could not write the step summary: ${errorMessage(e2)}`));
}

async function action(rt: ActionsRuntime, env: NodeJS.ProcessEnv, overrides: RunOverrides, finish: (o: Outputs) => void): Promise<Outputs> {
  let input: SettingsInput;
  try {
    input = readSettings((name) => rt.getInput(name));
  } catch (e) {
    return { status: 'error', reason: 'invalid-settings', failed: errorMessage(e) };
  }
  const secrets = [input.githubToken, input.apiKey, ...secretsFromEnv(env)];
  for (const s of new Set(secrets.filter(Boolean))) [s, Buffer.from(s).toString('base64'), Buffer.from(`x-access-token:${s}`).toString('base64')].forEach((v) => rt.setSecret(v));
  const redactor = new Redactor(secrets);
  const say = (m: string) => rt.info(redactor.redact(m));
  const skip = (note: string, reason?: string): Outputs => (say(note), { status: 'skipped', ...(reason ? { reason } : {}), note: redactor.redact(note) });
  // The trigger is read before the policy is loaded: its label and workflows, which no policy sets, as resolved.
  const read = readTrigger(rt.eventName, rt.payload, resolveSettings(input));
  if (read.trigger.kind === 'skip') {
    // A bot's run is not reported on: agent-fix ignores bots unless the policy allows them.
    const client = () => makeGitHub({ token: input.githubToken, baseUrl: rt.apiUrl, owner: rt.owner, repo: rt.repo, log: say });
    if (rt.eventName === 'workflow_run' && !read.bot) await rt.appendSummary(redactor.redact(await ciSkipReport(rt.payload, read.trigger.reason, client, rt.repo)));
    return skip(`agent-fix skipped: ${read.trigger.reason}`, 'not-triggered');
  }
  const github = makeGitHub({ token: input.githubToken, baseUrl: rt.apiUrl, owner: rt.owner, repo: rt.repo, log: say, ...overrides.github });
  // The policy comes from the default branch through the API, never from the working tree.
  let loaded: LoadedPolicy;
  let defaultBranch: string;
  try {
    defaultBranch = await github.getDefaultBranch();
    loaded = await loadPolicy(github, defaultBranch);
  } catch (e) {
    return { status: 'error', reason: e instanceof PolicyError ? 'invalid-policy' : 'internal-error', failed: `agent-fix: ${redactor.redact(errorMessage(e))}${e instanceof PolicyError ? ' Nothing else was done.' : ''}` };
  }
  const trigger = confirmBot(read, loaded.policy.triggers['allowed-bots']);
  if (trigger.kind === 'skip') return skip(`agent-fix skipped: ${trigger.reason}`, 'not-triggered');
  // The effective settings of the run: the inputs narrowed by the policy, every default applied once.
  const settings = resolveSettings(applyPolicy(input, loaded.policy, loaded.source));
  say(`Policy: ${loaded.source}`);
  const { mode } = settings;
  const tempDir = env.RUNNER_TEMP || os.tmpdir();
  const meta = { event: rt.eventName, repository: `${rt.owner}/${rt.repo}`, runUrl: rt.runUrl, ...(mode !== 'run' ? { mode } : {}), ...(settings.candidate ? { candidate: settings.candidate } : {}) };
  // publish: the trigger's kind ends its PR body, comment and summary with the candidates
  const candidates = { markdown: '' };
  const appendix = mode === 'publish' ? () => candidates.markdown : undefined;
  const selected = await selectKind(trigger, github, { defaultBranch, identity: BOT_IDENTITY, owner: rt.owner, repo: rt.repo, transcriptDir: path.join(tempDir, 'agent-fix'), meta, appendix });
  if ('skip' in selected) return skip(`agent-fix skipped: ${selected.skip}`, 'not-applicable');
  // A lifecycle command (stop, issue closed) fixes nothing and writes to GitHub: not in a propose job.
  if ('act' in selected && mode === 'propose') return skip(`agent-fix skipped: \`${selected.name}\` writes to GitHub, so it runs in mode run or publish, not in this propose job.`);
  if (mode === 'publish' && !('act' in selected) && rt.getInput('api-key').trim() !== '') rt.warning('agent-fix: mode publish asks no model: the api-key input is not used; remove it from this job so the key is not exposed to it.');
  say(`Mode: ${mode}${settings.candidate ? ` (candidate ${settings.candidate})` : ''}`);
  const workspace = env.GITHUB_WORKSPACE || process.cwd();
  const shown = groupedProgress(rt, (t) => redactor.redact(t));
  const model: ChatModelOptions = { baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, log: say, wording: ACTION_WORDING, maxOutputTokens: settings.maxOutputTokens, requestsPerMinute: settings.requestsPerMinute, ...candidateSampling(settings.candidate), ...overrides.model };
  const world: StoryWorld = {
    github,
    policy: loaded.policy,
    // agent-fix fetches and pushes with the github-token input, given to git per command (persist-credentials: false works)
    openGit: () => openGit(workspace, { log: say, auth: { token: settings.githubToken, serverUrl: env.GITHUB_SERVER_URL || 'https://github.com' } }),
    shell: makeShell(),
    makeModel: () => (mode === 'publish' ? noModel(settings.model) : makeChatModel(model)),
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
  const kind = kindForMode(selected, mode, { settings, workspace, tempDir, openPatches: (root) => openPatchGit(root), candidates });
  const result = await runStory(kind, world).finally(() => shown.close());
  if (result.bundlePath && result.status === 'error') rt.warning(redactor.redact(`agent-fix: ${result.error ?? result.reason} (recorded in the bundle for the publish job; this step does not fail so the bundle is uploaded)`));
  return outputsOf(result);
}
