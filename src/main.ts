/**
 * Composition root of the action: builds the adapters, runs the story, publishes, reports.
 * settings → trigger → authorize → task → (sticky comment) → fix → publish → report.
 */
import os from 'node:os';
import path from 'node:path';
import { actionsRuntime, type ActionsRuntime } from './adapters/actions.js';
import { makeGitHub, type MakeGitHubOptions } from './adapters/github.js';
import { openGit } from './adapters/git.js';
import { makeShell } from './adapters/shell.js';
import { makeChatModel, type ChatModelOptions } from './adapters/openai.js';
import type { SandboxProbe } from './safety/sandbox.js';
import type { GitPort } from './ports/git.js';
import type { Shell } from './ports/shell.js';
import type { ChatModel } from './ports/llm.js';
import { readSettings } from './settings/inputs.js';
import { parseTrigger } from './trigger/parse.js';
import { loadPolicy, type LoadedPolicy } from './policy/load.js';
import { authorizeByPolicy, isBotLogin, SELF_LOGINS } from './policy/authorize.js';
import { applyPolicy } from './policy/apply.js';
import { PolicyError } from './policy/schema.js';
import { newerClaim, runIdFromEnv, withClaim, type RunId } from './safety/claim.js';
import { renderFailureComment } from './safety/failure.js';
import { onCancel } from './safety/cancel.js';
import { buildIssueTask } from './task/issue-task.js';
import { runFix } from './fix.js';
import { Redactor, secretsFromEnv } from './redact.js';
import { Transcript } from './transcript.js';
import { StickyComment } from './publish/artifacts.js';
import { deliverFix } from './publish/deliver.js';
import { branchForTask } from './publish/branch.js';
import { commentMarker, renderFinalComment, renderPrBody, renderPrTitle, renderReportMarkdown, renderStartComment, renderStoppedSummary } from './report/render.js';
import type { CiTrigger, Outcome, RunReport, Settings, Task } from './types.js';
import type { Identity } from './ports/git.js';
import { CiRepairStopped, runCiRepair } from './ci/run.js';
import { ciSkipReport } from './ci/report-only.js';

/** The identity of commits made with the workflow token; also what "the bot's own commits" means. */
export const BOT_IDENTITY: Identity = { name: 'github-actions[bot]', email: '41898282+github-actions[bot]@users.noreply.github.com' };

interface Outputs {
  status: Outcome;
  prNumber?: number;
  prUrl?: string;
  branch?: string;
  iterations?: number;
  transcriptPath?: string;
}

function writeOutputs(rt: ActionsRuntime, o: Outputs): void {
  rt.setOutput('status', o.status);
  rt.setOutput('pr-number', o.prNumber ?? '');
  rt.setOutput('pr-url', o.prUrl ?? '');
  rt.setOutput('branch', o.branch ?? '');
  rt.setOutput('iterations', o.iterations ?? 0);
  rt.setOutput('transcript-path', o.transcriptPath ?? '');
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
}

/**
 * What both stories (an issue, a CI repair) run on besides GitHub: the checkout, the shell,
 * the model, the sandbox, this run's id for claims, and the cancellation hook. Built once.
 */
interface StoryAdapters {
  openGit: () => Promise<GitPort>;
  shell: Shell;
  makeModel: () => ChatModel;
  sandbox?: SandboxProbe;
  runId: RunId | null;
  /** Installs a SIGINT/SIGTERM handler (safety/cancel.ts); returns its disposer. */
  onCancel: (handler: (signal: NodeJS.Signals) => Promise<void>) => () => void;
}

function storyAdapters(env: NodeJS.ProcessEnv, settings: Settings, say: (m: string) => void, overrides: RunOverrides): StoryAdapters {
  return {
    openGit: () => openGit(env.GITHUB_WORKSPACE || process.cwd(), { log: say }),
    shell: makeShell(),
    makeModel: () => makeChatModel({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, log: say, ...overrides.model }),
    sandbox: overrides.sandbox,
    runId: runIdFromEnv(env),
    onCancel: (handler) => onCancel(handler, overrides.exit),
  };
}

/**
 * Every run leaves a step summary, however it ends: the stories write their own report; when
 * a run ends without one (refused, skipped, a crash), the summary says how it ended and why.
 */
export async function run(rt: ActionsRuntime = actionsRuntime(), env: NodeJS.ProcessEnv = process.env, overrides: RunOverrides = {}): Promise<void> {
  const seen = { summary: false, status: '', failed: '', note: '' };
  const tracked: ActionsRuntime = Object.assign(Object.create(rt) as ActionsRuntime, {
    appendSummary: async (md: string) => {
      seen.summary = true;
      await rt.appendSummary(md);
    },
    setOutput: (name: string, value: string | number) => {
      if (name === 'status') seen.status = String(value);
      rt.setOutput(name, value);
    },
    setFailed: (m: string) => {
      seen.failed = m;
      rt.setFailed(m);
    },
    info: (m: string) => {
      if (/^agent-fix (skipped|refused)/.test(m)) seen.note = m;
      rt.info(m);
    },
  });
  try {
    await runAction(tracked, env, overrides);
  } catch (e) {
    // Nothing should reach here; if it does, the run still ends in a reported error state.
    const redactor = new Redactor([rt.getInput('github-token'), rt.getInput('api-key'), ...secretsFromEnv(env)]);
    seen.failed = `agent-fix: ${redactor.redact(message(e))}`;
    rt.setOutput('status', 'error');
    rt.setFailed(seen.failed);
  } finally {
    if (!seen.summary) {
      const status = seen.status || 'error';
      const why = seen.failed || seen.note || 'The run ended without writing a report; the job log has the details.';
      try {
        await rt.appendSummary(renderStoppedSummary(status === 'skipped' ? 'Skipped' : 'Error', why, status === 'skipped' ? 'Nothing was changed.' : 'See the job log above for what was done before it stopped.'));
      } catch (e2) {
        rt.warning(`Could not write the step summary: ${message(e2)}`);
      }
    }
  }
}

async function runAction(rt: ActionsRuntime, env: NodeJS.ProcessEnv, overrides: RunOverrides): Promise<void> {
  let settings: Settings;
  try {
    settings = readSettings((name) => rt.getInput(name));
  } catch (e) {
    writeOutputs(rt, { status: 'error' });
    rt.setFailed(message(e));
    return;
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
    say(`agent-fix skipped: ${trigger.reason}`);
    if (rt.eventName === 'workflow_run') {
      const client = () => makeGitHub({ token: settings.githubToken, baseUrl: rt.apiUrl, owner: rt.owner, repo: rt.repo, log: say });
      await rt.appendSummary(redactor.redact(await ciSkipReport(rt.payload, trigger.reason, client, rt.repo)));
    }
    writeOutputs(rt, { status: 'skipped' });
    return;
  }

  const github = makeGitHub({ token: settings.githubToken, baseUrl: rt.apiUrl, owner: rt.owner, repo: rt.repo, log: say, ...overrides.github });
  // The policy comes from the default branch through the API, never from the working tree.
  let loaded: LoadedPolicy;
  let defaultBranch: string;
  try {
    defaultBranch = await github.getDefaultBranch();
    loaded = await loadPolicy(github, defaultBranch);
  } catch (e) {
    writeOutputs(rt, { status: 'error' });
    rt.setFailed(`agent-fix: ${redactor.redact(message(e))}${e instanceof PolicyError ? ' Nothing else was done.' : ''}`);
    return;
  }
  if (maybeAllowedBot) trigger = parseTrigger(rt.eventName, rt.payload, { label: settings.label, workflows: settings.workflows, allowedBots: loaded.policy.triggers['allowed-bots'] });
  if (trigger.kind === 'skip') {
    say(`agent-fix skipped: ${trigger.reason}`);
    writeOutputs(rt, { status: 'skipped' });
    return;
  }
  settings = applyPolicy(settings, loaded.policy, loaded.source);
  say(`Policy: ${loaded.source}`);
  const adapters = storyAdapters(env, settings, say, overrides);
  if (trigger.kind === 'ci') {
    // The policy's `triggers` narrow who may trigger CI repair too (it also checks write permission itself).
    let ciAuth;
    try {
      ciAuth = await authorizeByPolicy(github, trigger.actor, loaded.policy);
    } catch (e) {
      writeOutputs(rt, { status: 'error' });
      rt.setFailed(`agent-fix: ${redactor.redact(message(e))}`);
      return;
    }
    if (!ciAuth.ok) {
      say(`agent-fix refused the trigger: ${ciAuth.reason}`);
      writeOutputs(rt, { status: 'skipped' });
      return;
    }
    return runCi({ rt, env, settings, github, redactor, say, adapters }, trigger);
  }
  const { runId } = adapters;
  const claim = (body: string) => (runId ? withClaim(body, runId) : body);
  let pushedBranch: string | undefined;
  let openedPrUrl: string | undefined;
  let disposeCancel: (() => void) | undefined;
  let task: Task | null = null;
  let comment: StickyComment | null = null;
  const transcript = new Transcript({ event: rt.eventName, repository: `${rt.owner}/${rt.repo}`, runUrl: rt.runUrl });
  const transcriptPath = path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-fix', `transcript-${trigger.issueNumber}-${Date.now()}.json`);
  try {
    const auth = await authorizeByPolicy(github, trigger.actor, loaded.policy);
    if (!auth.ok) {
      say(`agent-fix refused the trigger: ${auth.reason}`);
      writeOutputs(rt, { status: 'skipped' });
      return;
    }
    say(`Authorized: ${auth.via}`);
    task = await buildIssueTask(github, trigger);
    comment = new StickyComment(github, trigger.issueNumber, commentMarker(task.key));
    await comment.set(claim(renderStartComment(task, rt.runUrl)));
    const startedComment = comment;
    const cancelMarker = commentMarker(task.key);
    disposeCancel = adapters.onCancel(async (signal) => {
      const why = `the workflow run was cancelled or timed out (${signal}) before agent-fix finished.`;
      rt.warning(`agent-fix: ${why}`);
      writeOutputs(rt, { status: 'error', transcriptPath, branch: pushedBranch });
      await startedComment.set(claim(redactor.redact(renderFailureComment({ marker: cancelMarker, why, pushedBranch, prUrl: openedPrUrl, runUrl: rt.runUrl, policy: loaded.source }))));
    });
    const taskMarker = commentMarker(task.key);
    const issueNumber = trigger.issueNumber;
    /** True when a newer run claimed this task since: this run then publishes nothing. */
    const superseded = async (): Promise<boolean> => {
      if (!runId) return false;
      const newer = await newerClaim(github, issueNumber, taskMarker, runId);
      if (newer) say(`A newer run (${newer.id}, attempt ${newer.attempt}) has taken over this task; this run (${runId.id}) yields and publishes nothing.`);
      return newer !== null;
    };

    const git = await adapters.openGit();
    const result = await runFix(task, { git, shell: adapters.shell, model: adapters.makeModel(), settings, redactor, parentEnv: env, log: say, emit: transcript.add, sandbox: adapters.sandbox });
    const report: RunReport = { ...result.report, runUrl: rt.runUrl };
    const outputs: Outputs = { status: report.status, iterations: report.iterations, transcriptPath };

    /** Yielding to a newer run: nothing published, the comment left to that run. */
    const yieldNow = async () => {
      transcript.write(transcriptPath, (t) => redactor.redact(t), { ...report, status: 'skipped', reason: 'superseded' });
      writeOutputs(rt, { status: 'skipped', iterations: report.iterations, transcriptPath });
      const what = `A newer agent-fix run has taken over issue #${issueNumber}; this run${runId ? ` (${runId.id}, attempt ${runId.attempt})` : ''} yields to it (its own result: ${report.status}, ${report.reason}).`;
      await rt.appendSummary(redactor.redact(renderStoppedSummary('Superseded', what, 'This run pushed nothing and opened no pull request; the issue comment is left to the newer run.')));
    };
    if (await superseded()) return await yieldNow();
    if (report.status === 'fixed' && result.tree) {
      const branch = branchForTask(task.key);
      await deliverFix({
        git,
        github,
        report,
        branch,
        baseSha: result.baseSha,
        baseBranch: defaultBranch,
        tree: result.tree,
        commitMessage: `agent-fix: ${task.title}\n\n${report.summary}\n\n${task.issueNumber ? `Fixes #${task.issueNumber}` : ''}`.trim(),
        identity: BOT_IDENTITY,
        prTitle: renderPrTitle(task),
        prBody: renderPrBody,
        draft: settings.draft,
        redact: (t) => redactor.redact(t),
        log: say,
        retryHint: 'trigger again',
        claim: runId,
        onPushed: (b) => {
          pushedBranch = b;
        },
      });
      // A newer run pushed the branch after the check above (seen on the tip the leased push would replace).
      if (report.reason === 'superseded') return await yieldNow();
      outputs.branch = report.branch;
      openedPrUrl = report.prUrl;
    }
    outputs.status = report.status;
    outputs.prNumber = report.prNumber;
    outputs.prUrl = report.prUrl;
    await comment.set(claim(redactor.redact(renderFinalComment(report))));
    await rt.appendSummary(redactor.redact(renderReportMarkdown(report, { diff: true })));
    transcript.write(transcriptPath, (t) => redactor.redact(t), report);
    writeOutputs(rt, outputs);
    say(`agent-fix: ${report.status} (${report.reason}). ${report.detail}`);
    if (report.status === 'error') rt.setFailed(`agent-fix: ${report.detail}`);
  } catch (e) {
    const why = redactor.redact(message(e));
    transcript.writeAfterError(transcriptPath, (t) => redactor.redact(t), why);
    if (comment && task) {
      try {
        const body = renderFailureComment({ marker: commentMarker(task.key), why, pushedBranch, prUrl: openedPrUrl, runUrl: rt.runUrl, policy: loaded.source });
        await comment.set(claim(redactor.redact(body)));
      } catch (e2) {
        rt.warning(`Could not update the issue comment: ${redactor.redact(message(e2))}`);
      }
    }
    const left = pushedBranch
      ? `agent-fix already pushed the branch \`${pushedBranch}\`${openedPrUrl ? ` and opened ${openedPrUrl}` : ', but no pull request was opened'}.`
      : 'Nothing was pushed and no pull request was opened.';
    try {
      await rt.appendSummary(redactor.redact(renderStoppedSummary('Error', `The run stopped with an error: ${why}`, left)));
    } catch (e2) {
      rt.warning(`Could not write the step summary: ${redactor.redact(message(e2))}`);
    }
    writeOutputs(rt, { status: 'error', transcriptPath, branch: pushedBranch });
    rt.setFailed(`agent-fix: ${why}`);
  } finally {
    disposeCancel?.();
  }
}

/** The CI-repair trigger (src/ci/run.ts), with the action's adapters and outputs. */
async function runCi(
  ctx: { rt: ActionsRuntime; env: NodeJS.ProcessEnv; settings: Settings; github: ReturnType<typeof makeGitHub>; redactor: Redactor; say: (m: string) => void; adapters: StoryAdapters },
  trigger: CiTrigger,
): Promise<void> {
  const { rt, env, settings, github, redactor, say, adapters } = ctx;
  const transcript = new Transcript({ event: rt.eventName, repository: `${rt.owner}/${rt.repo}`, runUrl: rt.runUrl, failedRun: trigger.runUrl });
  const transcriptPath = path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-fix', `transcript-ci-${trigger.runId}-${Date.now()}.json`);
  const redact = (t: string) => redactor.redact(t);
  try {
    const r = await runCiRepair(trigger, {
      github,
      openGit: adapters.openGit,
      shell: adapters.shell,
      makeModel: adapters.makeModel,
      sandbox: adapters.sandbox,
      settings,
      redactor,
      parentEnv: env,
      identity: BOT_IDENTITY,
      repoName: rt.repo,
      repository: `${rt.owner}/${rt.repo}`,
      runUrl: rt.runUrl,
      log: say,
      appendSummary: (md) => rt.appendSummary(md),
      emit: transcript.add,
      runId: adapters.runId,
      // The repair makes its comment and summary final; the outputs and the transcript say the same.
      onCancel: (handler) =>
        adapters.onCancel(async (signal) => {
          rt.warning(`agent-fix: the workflow run was cancelled or timed out (${signal}) before agent-fix finished.`);
          const r = await handler(signal);
          transcript.writeAfterError(transcriptPath, redact, `cancelled (${signal})`);
          writeOutputs(rt, { status: 'error', branch: r.branch, prUrl: r.prUrl, transcriptPath });
        }),
    });
    const wrote = r.report ? transcript.write(transcriptPath, redact, r.report) : undefined;
    writeOutputs(rt, { status: r.status, prNumber: r.prNumber, prUrl: r.prUrl, branch: r.branch, iterations: r.iterations, transcriptPath: wrote });
    if (r.status === 'error') rt.setFailed(`agent-fix: ${r.reason === 'cancelled' ? 'cancelled' : r.report?.detail ?? r.reason}`);
  } catch (e) {
    // runCiRepair has made the comment and the step summary final (what exists, why it stopped).
    const why = redactor.redact(message(e));
    transcript.writeAfterError(transcriptPath, redact, why);
    // A push may have happened before the error: the outputs name what exists, like the comment does.
    const left = e instanceof CiRepairStopped ? { branch: e.branch, prUrl: e.prUrl } : {};
    writeOutputs(rt, { status: 'error', transcriptPath, ...left });
    rt.setFailed(`agent-fix: ${why}`);
  }
}
