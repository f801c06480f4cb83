/**
 * Which story a trigger starts. Most triggers name their kind; a `/agent-fix` comment on a pull
 * request is a follow-up only on agent-fix's own pull request (head `agent-fix/*` of this
 * repository, read from the API: the comment's payload does not name the head); on anybody
 * else's it is the issue story on that thread, as before.
 */
import type { Identity } from '../ports/git.js';
import type { ReviewGitHubPort } from '../ports/review.js';
import type { Trigger } from '../trigger/types.js';
import { issueTriggerOf } from '../trigger/parse.js';
import { isAgentBranch } from '../publish/branch.js';
import { issueKind } from './issue.js';
import { ciKind } from './ci.js';
import { followUpKind } from './follow-up.js';
import { rebaseKind } from './rebase.js';
import type { StoryKind } from './kind.js';
import type { LifecycleKind } from './lifecycle.js';
import { stopKind } from './stop.js';
import { issueClosedKind } from './issue-closed.js';

export interface KindContext {
  defaultBranch: string;
  identity: Identity;
  owner: string;
  repo: string;
  transcriptDir: string;
  meta: Record<string, unknown>;
  /** Appended to the PR body, final comment and summary (publish: the candidates). */
  appendix?: () => string;
}

/** A fix story's kind, a lifecycle command (run/lifecycle.ts: `'act' in selected`), or a skip. */
export type Selected = StoryKind | LifecycleKind | { skip: string };

export async function selectKind(trigger: Exclude<Trigger, { kind: 'skip' }>, github: ReviewGitHubPort, c: KindContext): Promise<Selected> {
  switch (trigger.kind) {
    case 'ci':
      return ciKind(trigger, { identity: c.identity, repoName: c.repo, repository: `${c.owner}/${c.repo}`, transcriptDir: c.transcriptDir, meta: c.meta, appendix: c.appendix });
    case 'issue':
      return issueKind(trigger, { defaultBranch: c.defaultBranch, identity: c.identity, transcriptDir: c.transcriptDir, meta: c.meta, appendix: c.appendix });
    case 'pull': {
      if (trigger.via === 'comment') {
        const pr = await github.getPullRequest(trigger.prNumber);
        const own = isAgentBranch(pr.head) && (pr.headRepository ?? '').toLowerCase() === `${c.owner}/${c.repo}`.toLowerCase();
        if (!own) {
          if (trigger.command.verb !== 'instructions') {
            return { skip: `\`/agent-fix ${trigger.command.verb}\` works on agent-fix's own pull requests; #${trigger.prNumber} is not one (its head is not an agent-fix/* branch of this repository).` };
          }
          return issueKind(issueTriggerOf({ ...trigger, command: trigger.command }), { defaultBranch: c.defaultBranch, identity: c.identity, transcriptDir: c.transcriptDir, meta: c.meta, appendix: c.appendix });
        }
      }
      const pull = { review: github, identity: c.identity, repository: `${c.owner}/${c.repo}`, transcriptDir: c.transcriptDir, meta: c.meta };
      if (trigger.command.verb === 'instructions') return followUpKind({ ...trigger, command: trigger.command }, pull);
      if (trigger.command.verb === 'rebase') return rebaseKind({ ...trigger, command: trigger.command }, pull);
      // `continue`: follow-ups on a pull request keep no best attempt; only a run on an issue that stopped on its budget can be continued.
      return { skip: `\`/agent-fix continue\` on pull request #${trigger.prNumber}: there is nothing to continue here (a follow-up on a pull request keeps no best attempt); \`/agent-fix continue\` resumes a run on an issue that stopped on its budget, on that issue.` };
    }
    case 'stop':
      return stopKind(trigger, {
        headOf: async (prNumber) => {
          const pr = await github.getPullRequest(prNumber);
          return (pr.headRepository ?? '').toLowerCase() === `${c.owner}/${c.repo}`.toLowerCase() ? pr.head : null;
        },
      });
    case 'issue-closed':
      return issueClosedKind(trigger, { defaultBranch: c.defaultBranch });
  }
}
