/** The local story (CLI and demo): same engine, the result left on a local branch. */
import os from 'node:os';
import path from 'node:path';
import { openGit } from './adapters/git.js';
import { makeShell } from './adapters/shell.js';
import { makeChatModel } from './adapters/openai.js';
import { runFix } from './fix.js';
import { Redactor, secretsFromEnv } from './redact.js';
import { Transcript } from './transcript.js';
import { BRANCH_PREFIX, slugify } from './publish/branch.js';
import { foreignCommits } from './publish/push.js';
import { fenceUntrusted } from './task/sanitize.js';
import type { Identity } from './ports/git.js';
import type { RunReport, Settings, Task } from './types.js';

export const LOCAL_IDENTITY: Identity = { name: 'agent-fix', email: 'agent-fix@users.noreply.github.com' };

export interface LocalOptions {
  repo: string;
  taskText: string;
  settings: Settings;
  scripted?: boolean;
  env?: NodeJS.ProcessEnv;
  log?: (m: string) => void;
  transcriptDir?: string;
}

export interface LocalResult {
  report: RunReport;
  transcriptPath: string;
}

export class UsageError extends Error {}

export function localTask(text: string): Task {
  const trimmed = text.trim();
  if (!trimmed) throw new UsageError('The task text is empty: describe the problem, e.g. agent-fix fix "cartTotal ignores quantity"');
  const title = trimmed.split('\n')[0].slice(0, 120);
  return { key: slugify(title), title, goal: fenceUntrusted('task description', trimmed) };
}

export async function runLocal(o: LocalOptions): Promise<LocalResult> {
  const env = o.env ?? process.env;
  const log = o.log ?? (() => undefined);
  const task = localTask(o.taskText);
  const git = await openGit(o.repo);
  const head = await git.headSha();
  const dirty = await git.changes(`${head}^{tree}`, await git.snapshot());
  if (dirty.length > 0) {
    throw new UsageError(
      `${git.root} has uncommitted changes (${dirty.slice(0, 5).map((c) => c.path).join(', ')}${dirty.length > 5 ? ', …' : ''}). Commit or stash them first: agent-fix leaves its fix on a branch and puts your working tree back as it was.`,
    );
  }
  const redactor = new Redactor([o.settings.apiKey, ...secretsFromEnv(env)]);
  const transcript = new Transcript({ repo: git.root, task: task.title, model: o.settings.model, baseUrl: o.settings.baseUrl });
  const model = makeChatModel({ baseUrl: o.settings.baseUrl, apiKey: o.settings.apiKey, model: o.settings.model, log });
  const transcriptPath = path.join(o.transcriptDir ?? os.tmpdir(), `agent-fix-${task.key}-${Date.now()}.json`);
  let result;
  try {
    result = await runFix(task, { git, shell: makeShell(), model, settings: o.settings, redactor, parentEnv: env, log, emit: transcript.add, scripted: o.scripted });
  } catch (e) {
    transcript.writeAfterError(transcriptPath, (t) => redactor.redact(t), redactor.redact(e instanceof Error ? e.message : String(e)));
    throw e;
  }
  const { report } = result;
  try {
    if (report.status === 'fixed' && result.tree) {
      const branch = `${BRANCH_PREFIX}${task.key}`;
      const existing = await git.localBranchSha(branch);
      const foreign = existing ? foreignCommits(await git.commitsBetween(result.baseSha, existing), LOCAL_IDENTITY) : [];
      if (foreign.length > 0) {
        report.status = 'not-fixed';
        report.reason = 'human-commits-on-branch';
        report.detail = `A verified fix was found, but the local branch ${branch} has ${foreign.length} commit(s) agent-fix did not make (${foreign.map((c) => `${c.sha.slice(0, 7)} "${c.subject}"`).join(', ')}); it was left as it is. Rename or delete that branch and run again.`;
      } else {
        const sha = await git.commitTree(result.tree, result.baseSha, `agent-fix: ${task.title}\n\n${report.summary}`.trim(), LOCAL_IDENTITY);
        await git.setLocalBranch(branch, sha);
        report.branch = branch;
      }
    }
  } finally {
    // The user's checkout is left exactly as it was; the fix lives on the branch.
    await git.restore(result.pristineTree);
  }
  transcript.write(transcriptPath, (t) => redactor.redact(t), report);
  return { report, transcriptPath };
}
