/**
 * The local kind (CLI and demo): the task is the text given on the command line, there is no
 * one to authorize and no comment, and the verified change is left on the local branch
 * `agent-fix/<slug>`; the user's working tree is put back exactly as it was.
 */
import os from 'node:os';
import path from 'node:path';
import { Redactor, secretsFromEnv } from '../redact.js';
import { BRANCH_PREFIX, slugify } from '../publish/branch.js';
import { foreignCommits } from '../publish/push.js';
import { fenceUntrusted } from '../task/sanitize.js';
import type { GitPort, Identity } from '../ports/git.js';
import type { Shell } from '../ports/shell.js';
import type { ChatModel } from '../ports/llm.js';
import type { Settings } from '../settings/types.js';
import type { Task } from '../task/types.js';
import type { RunReport } from '../fix/types.js';
import type { StoryKind } from './kind.js';
import { runStory } from './story.js';
import type { ProgressSink } from '../fix/progress.js';
import type { Wording } from '../settings/wording.js';

export const LOCAL_IDENTITY: Identity = { name: 'agent-fix', email: 'agent-fix@users.noreply.github.com' };

export interface LocalOptions {
  repo: string;
  taskText: string;
  settings: Settings;
  scripted?: boolean;
  env?: NodeJS.ProcessEnv;
  log?: (m: string) => void;
  transcriptDir?: string;
  /** The adapters, built by the entry (cli.ts). */
  openGit: (repo: string) => Promise<GitPort>;
  shell: Shell;
  makeModel: (log: (m: string) => void) => ChatModel;
  /** Where the run shows its phases (the CLI's phase line and spinner). */
  progress?: ProgressSink;
  /** How messages name settings (the CLI's flags). */
  wording?: Wording;
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

export function localKind(o: { task: Task; repo: string; settings: Settings; transcriptDir: string }): StoryKind {
  const { task } = o;
  return {
    name: 'local',
    actor: null,
    transcript: { meta: { repo: o.repo, task: task.title, model: o.settings.model, baseUrl: o.settings.baseUrl }, path: path.join(o.transcriptDir, `agent-fix-${task.key}-${Date.now()}.json`) },
    async prepare(world) {
      const git: GitPort = await world.openGit();
      const head = await git.headSha().catch(() => null);
      if (head === null) {
        throw new UsageError(
          `${git.root} is a git repository without any commit yet: agent-fix works from a commit and leaves its fix on a branch beside it. Commit your files first (git add -A && git commit -m "initial"), then run again.`,
        );
      }
      const dirty = await git.changes(`${head}^{tree}`, await git.snapshot());
      if (dirty.length > 0) {
        throw new UsageError(
          `${git.root} has uncommitted changes (${dirty.slice(0, 5).map((c) => c.path).join(', ')}${dirty.length > 5 ? ', …' : ''}). Commit or stash them first: agent-fix leaves its fix on a branch and puts your working tree back as it was.`,
        );
      }
      return {
        task,
        git,
        destination: {
          commentOn: null,
          retryHint: 'run again',
          async deliver(fix) {
            const branch = `${BRANCH_PREFIX}${task.key}`;
            const existing = await git.localBranchSha(branch);
            const foreign = existing ? foreignCommits(await git.commitsBetween(fix.baseSha, existing), LOCAL_IDENTITY) : [];
            if (foreign.length > 0) {
              return {
                kind: 'human-commits',
                detail: `A verified fix was found, but the local branch ${branch} has ${foreign.length} commit(s) agent-fix did not make (${foreign.map((c) => `${c.sha.slice(0, 7)} "${c.subject}"`).join(', ')}); it was left as it is. Rename or delete that branch and run again.`,
              };
            }
            const sha = await git.commitTree(fix.tree as string, fix.baseSha, `agent-fix: ${task.title}\n\n${fix.report.summary}`.trim(), LOCAL_IDENTITY);
            await git.setLocalBranch(branch, sha);
            return { kind: 'local-branch', branch, sha };
          },
          // The user's checkout is left exactly as it was; the fix lives on the branch.
          release: (fix) => git.restore(fix.pristineTree),
        },
        texts: { start: () => '', final: () => '', summary: () => null, superseded: () => '' },
      };
    },
  };
}

/** A local run: the local kind through the one story, with local adapters. Throws what stopped it. */
export async function runLocal(o: LocalOptions): Promise<LocalResult> {
  const env = o.env ?? process.env;
  const log = o.log ?? (() => undefined);
  const task = localTask(o.taskText);
  const kind = localKind({ task, repo: o.repo, settings: o.settings, transcriptDir: o.transcriptDir ?? os.tmpdir() });
  const result = await runStory(kind, {
    github: null,
    policy: null,
    openGit: () => o.openGit(o.repo),
    shell: o.shell,
    makeModel: () => o.makeModel(log),
    settings: o.settings,
    redactor: new Redactor([o.settings.apiKey, ...secretsFromEnv(env)]),
    parentEnv: env,
    log,
    runId: null,
    scripted: o.scripted,
    progress: o.progress,
    wording: o.wording,
  });
  if (result.thrown !== undefined) throw result.thrown;
  if (!result.report || !result.transcriptPath) throw new Error(`agent-fix stopped: ${result.reason}`);
  return { report: result.report, transcriptPath: result.transcriptPath };
}
