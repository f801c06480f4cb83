/**
 * Composition root of the action: builds the adapters, runs the story, publishes, reports.
 * settings → trigger → authorize → task → (sticky comment) → fix → publish → report.
 */
import os from 'node:os';
import path from 'node:path';
import { actionsRuntime, type ActionsRuntime } from './adapters/actions.js';
import { makeGitHub } from './adapters/github.js';
import { openGit } from './adapters/git.js';
import { makeShell } from './adapters/shell.js';
import { makeChatModel } from './adapters/openai.js';
import { readSettings } from './settings/inputs.js';
import { parseTrigger } from './trigger/parse.js';
import { authorizeActor } from './trigger/authorize.js';
import { buildIssueTask } from './task/issue-task.js';
import { runFix } from './fix.js';
import { Redactor, secretsFromEnv } from './redact.js';
import { Transcript } from './transcript.js';
import { StickyComment, upsertPullRequest } from './publish/artifacts.js';
import { branchForTask } from './publish/branch.js';
import { publishBranch } from './publish/push.js';
import { commentMarker, renderFinalComment, renderPrBody, renderPrTitle, renderReportMarkdown, renderStartComment } from './report/render.js';
import type { CiTrigger, Outcome, RunReport, Settings, Task } from './types.js';
import type { Identity } from './ports/git.js';
import { runCiRepair } from './ci/run.js';
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

export async function run(rt: ActionsRuntime = actionsRuntime(), env: NodeJS.ProcessEnv = process.env): Promise<void> {
  let settings: Settings;
  try {
    settings = readSettings((name) => rt.getInput(name));
  } catch (e) {
    writeOutputs(rt, { status: 'error' });
    rt.setFailed(message(e));
    return;
  }
  for (const secret of new Set([settings.githubToken, settings.apiKey])) {
    if (!secret) continue;
    rt.setSecret(secret);
    rt.setSecret(Buffer.from(secret).toString('base64'));
    rt.setSecret(Buffer.from(`x-access-token:${secret}`).toString('base64'));
  }
  const redactor = new Redactor([settings.githubToken, settings.apiKey, ...secretsFromEnv(env)]);
  const say = (m: string) => rt.info(redactor.redact(m));

  const trigger = parseTrigger(rt.eventName, rt.payload, { label: settings.label, workflows: settings.workflows });
  if (trigger.kind === 'skip') {
    say(`agent-fix skipped: ${trigger.reason}`);
    if (rt.eventName === 'workflow_run') {
      const client = () => makeGitHub({ token: settings.githubToken, baseUrl: rt.apiUrl, owner: rt.owner, repo: rt.repo, log: say });
      await rt.appendSummary(redactor.redact(await ciSkipReport(rt.payload, trigger.reason, client, rt.repo)));
    }
    writeOutputs(rt, { status: 'skipped' });
    return;
  }

  const github = makeGitHub({ token: settings.githubToken, baseUrl: rt.apiUrl, owner: rt.owner, repo: rt.repo, log: say });
  if (trigger.kind === 'ci') return runCi(rt, env, settings, trigger, github, redactor, say);
  let task: Task | null = null;
  let comment: StickyComment | null = null;
  const transcript = new Transcript({ event: rt.eventName, repository: `${rt.owner}/${rt.repo}`, runUrl: rt.runUrl });
  const transcriptPath = path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-fix', `transcript-${trigger.issueNumber}-${Date.now()}.json`);
  try {
    const auth = await authorizeActor(github, trigger.actor);
    if (!auth.ok) {
      say(`agent-fix refused the trigger: ${auth.reason}`);
      writeOutputs(rt, { status: 'skipped' });
      return;
    }
    task = await buildIssueTask(github, trigger);
    comment = new StickyComment(github, trigger.issueNumber, commentMarker(task.key));
    await comment.set(renderStartComment(task, rt.runUrl));

    const git = await openGit(env.GITHUB_WORKSPACE || process.cwd(), { log: say });
    const model = makeChatModel({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, log: say });
    const result = await runFix(task, { git, shell: makeShell(), model, settings, redactor, parentEnv: env, log: say, emit: transcript.add });
    const report: RunReport = { ...result.report, runUrl: rt.runUrl };
    const outputs: Outputs = { status: report.status, iterations: report.iterations, transcriptPath };

    if (report.status === 'fixed' && result.tree) {
      const branch = branchForTask(task.key);
      const base = await github.getDefaultBranch();
      const pushed = await publishBranch(git, {
        remote: 'origin',
        branch,
        baseSha: result.baseSha,
        tree: result.tree,
        message: `agent-fix: ${task.title}\n\n${report.summary}\n\n${task.issueNumber ? `Fixes #${task.issueNumber}` : ''}`.trim(),
        identity: BOT_IDENTITY,
      });
      if (pushed.kind === 'human-commits') {
        report.status = 'not-fixed';
        report.reason = 'human-commits-on-branch';
        report.detail = `A verified fix was found, but ${branch} has ${pushed.commits.length} commit(s) that agent-fix did not make (${pushed.commits.map((c) => `${c.sha.slice(0, 7)} by ${c.authorName}`).join(', ')}). agent-fix never overwrites a human's commits: merge or delete that branch, then trigger again.`;
      } else if (pushed.kind === 'rejected') {
        report.status = 'error';
        report.reason = 'push-rejected';
        report.detail = `A verified fix was found, but pushing ${branch} was rejected: ${redactor.redact(pushed.reason)}`;
      } else {
        report.branch = branch;
        outputs.branch = branch;
        const pr = await upsertPullRequest(github, { head: branch, base, title: renderPrTitle(task), body: redactor.redact(renderPrBody(report)), draft: settings.draft });
        report.prNumber = pr.pr.number;
        report.prUrl = pr.pr.url;
        say(`Pull request ${pr.kind}: ${pr.pr.url} (branch ${pushed.kind})`);
      }
    }
    outputs.status = report.status;
    outputs.prNumber = report.prNumber;
    outputs.prUrl = report.prUrl;
    await comment.set(redactor.redact(renderFinalComment(report)));
    await rt.appendSummary(redactor.redact(renderReportMarkdown(report, { diff: true })));
    transcript.write(transcriptPath, (t) => redactor.redact(t), report);
    writeOutputs(rt, outputs);
    say(`agent-fix: ${report.status} (${report.reason}). ${report.detail}`);
    if (report.status === 'error') rt.setFailed(`agent-fix: ${report.detail}`);
  } catch (e) {
    const why = redactor.redact(message(e));
    transcript.add({ type: 'error', message: why });
    try {
      transcript.write(transcriptPath, (t) => redactor.redact(t));
    } catch {
      /* the error below is what matters */
    }
    if (comment && task) {
      try {
        await comment.set(`${commentMarker(task.key)}\n**agent-fix** stopped with an error and changed nothing: ${why}${rt.runUrl ? `\n\nSee the [workflow run](${rt.runUrl}).` : ''}\n`);
      } catch (e2) {
        rt.warning(`Could not update the issue comment: ${redactor.redact(message(e2))}`);
      }
    }
    writeOutputs(rt, { status: 'error', transcriptPath });
    rt.setFailed(`agent-fix: ${why}`);
  }
}

/** The CI-repair trigger (src/ci/run.ts), with the action's adapters and outputs. */
async function runCi(
  rt: ActionsRuntime,
  env: NodeJS.ProcessEnv,
  settings: Settings,
  trigger: CiTrigger,
  github: ReturnType<typeof makeGitHub>,
  redactor: Redactor,
  say: (m: string) => void,
): Promise<void> {
  const transcript = new Transcript({ event: rt.eventName, repository: `${rt.owner}/${rt.repo}`, runUrl: rt.runUrl, failedRun: trigger.runUrl });
  const transcriptPath = path.join(env.RUNNER_TEMP || os.tmpdir(), 'agent-fix', `transcript-ci-${trigger.runId}-${Date.now()}.json`);
  try {
    const r = await runCiRepair(trigger, {
      github,
      openGit: () => openGit(env.GITHUB_WORKSPACE || process.cwd(), { log: say }),
      shell: makeShell(),
      makeModel: () => makeChatModel({ baseUrl: settings.baseUrl, apiKey: settings.apiKey, model: settings.model, log: say }),
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
    });
    const wrote = r.report ? transcript.write(transcriptPath, (t) => redactor.redact(t), r.report) : undefined;
    writeOutputs(rt, { status: r.status, prNumber: r.prNumber, prUrl: r.prUrl, branch: r.branch, iterations: r.iterations, transcriptPath: wrote });
    if (r.status === 'error') rt.setFailed(`agent-fix: ${r.report?.detail ?? r.reason}`);
  } catch (e) {
    const why = redactor.redact(message(e));
    transcript.add({ type: 'error', message: why });
    try {
      transcript.write(transcriptPath, (t) => redactor.redact(t));
    } catch {
      /* the error below is what matters */
    }
    await rt.appendSummary(`### agent-fix: Error\n\nRepairing the failed run ${trigger.runUrl} stopped with an error and changed nothing: ${why}\n`).catch(() => undefined);
    writeOutputs(rt, { status: 'error', transcriptPath });
    rt.setFailed(`agent-fix: ${why}`);
  }
}
