/**
 * Every workflow a user may copy is valid for GitHub: the files in examples/ and
 * .github/workflows/, and every ```yaml snippet of the README and docs, go through GitHub's own
 * workflow parser; the examples' `if:` and `concurrency` expressions are evaluated against
 * event payloads; every agent-fix step's `with:` names real inputs of action.yml.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { parsePolicy } from '../../src/policy/schema.js';
import { ROOT } from '../../test-support/run-action.js';
import { agentFixSteps, evaluate, truthy, workflowErrors, yamlBlocks, type YamlBlock } from '../../test-support/workflows.js';

const read = (rel: string): string => readFileSync(path.join(ROOT, rel), 'utf8');
const examples = readdirSync(path.join(ROOT, 'examples')).filter((f) => f.endsWith('.yml')).map((f) => `examples/${f}`);
const ownWorkflows = readdirSync(path.join(ROOT, '.github/workflows')).map((f) => `.github/workflows/${f}`);
const markdownFiles = ['README.md', 'CONTRIBUTING.md', 'SECURITY.md', ...readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
const snippets: YamlBlock[] = markdownFiles.flatMap((f) => yamlBlocks(f, read(f)));
const actionInputs = Object.keys((parseYaml(read('action.yml')) as { inputs: Record<string, unknown> }).inputs);
const major = `v${(JSON.parse(read('package.json')) as { version: string }).version.split('.')[0]}`;

type Job = { if?: string; concurrency?: { group?: string; 'cancel-in-progress'?: boolean }; permissions?: Record<string, string>; steps: unknown[] };
type Workflow = { on: Record<string, unknown>; permissions?: Record<string, string>; concurrency?: unknown; jobs: Record<string, Job> };
const workflow = (rel: string): Workflow => parseYaml(read(rel)) as Workflow;

/** A snippet is a workflow (on + jobs), a workflow fragment (on only), a list of steps or a policy file (version). */
function kind(block: YamlBlock): 'workflow' | 'fragment' | 'steps' | 'policy' {
  const doc = parseYaml(block.text) as Record<string, unknown>;
  if (Array.isArray(doc) && doc.every((s) => typeof s === 'object' && s !== null && ('uses' in s || 'run' in s))) return 'steps';
  if (doc && 'on' in doc && 'jobs' in doc) return 'workflow';
  if (doc && 'on' in doc) return 'fragment';
  if (doc && 'version' in doc) return 'policy';
  throw new Error(`${block.file}:${block.line}: a yaml block that is neither a workflow, a workflow's \`on:\` nor a policy file; teach this test what it is`);
}

test('the validator is not vacuous: GitHub\'s parser rejects an unknown key, a bad permission and a broken expression', async () => {
  const text = read('examples/issue.yml');
  expect(await workflowErrors('ok.yml', text)).toEqual([]);
  expect((await workflowErrors('bad.yml', text.replace('timeout-minutes:', 'timeout-minute:'))).join('\n')).toMatch(/timeout-minute/);
  expect((await workflowErrors('bad.yml', text.replace('models: read', 'models: admin'))).join('\n')).toMatch(/admin/);
  expect((await workflowErrors('bad.yml', text.replace("github.event.label.name == 'agent-fix'", "github.event.label.name == ('agent-fix'"))).length).toBeGreaterThan(0);
});

test.each([...examples, ...ownWorkflows])('%s is a valid workflow', async (rel) => {
  expect(await workflowErrors(rel, read(rel))).toEqual([]);
});

test('the README and docs have workflow snippets, and every yaml snippet is valid', async () => {
  expect(snippets.filter((b) => kind(b) === 'workflow').length).toBeGreaterThanOrEqual(3);
  for (const block of snippets) {
    const where = `${block.file}:${block.line}`;
    const k = kind(block);
    if (k === 'policy') {
      expect(() => parsePolicy(block.text, where)).not.toThrow();
      continue;
    }
    // a fragment shows only `on:` (a minimal job completes it), a list of steps gets a job around it
    const text =
      k === 'workflow'
        ? block.text
        : k === 'fragment'
          ? `${block.text}jobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n      - run: 'true'\n`
          : `on: workflow_dispatch\njobs:\n  x:\n    runs-on: ubuntu-latest\n    steps:\n${block.text.replace(/^/gm, '      ').replace(/ +$/, '')}`;
    expect({ where, errors: await workflowErrors(where, text) }).toEqual({ where, errors: [] });
  }
});

test('every agent-fix step uses real inputs of action.yml and the released major tag', () => {
  const steps = [
    ...[...examples, ...ownWorkflows].flatMap((rel) => agentFixSteps(rel, read(rel))),
    ...snippets.filter((b) => kind(b) === 'workflow' || kind(b) === 'steps').flatMap((b) => agentFixSteps(`${b.file}:${b.line}`, b.text)),
  ];
  expect(steps.length).toBeGreaterThanOrEqual(examples.length + 3);
  for (const step of steps) {
    expect({ where: step.where, unknown: Object.keys(step.with).filter((k) => !actionInputs.includes(k)) }).toEqual({ where: step.where, unknown: [] });
    if (step.uses !== './') expect({ where: step.where, uses: step.uses }).toEqual({ where: step.where, uses: `OWNER/agent-fix@${major}` });
  }
  // and no document mentions another major of agent-fix
  for (const f of [...markdownFiles, ...examples]) {
    for (const m of read(f).matchAll(/agent-fix@(v\d+)/g)) expect({ f, tag: m[1] }).toEqual({ f, tag: major });
  }
});

test('examples: nothing at workflow level; each job filters events, has its own concurrency and exact permissions', () => {
  expect(examples.sort()).toEqual(['examples/ci-repair.yml', 'examples/issue.yml', 'examples/manual.yml', 'examples/monorepo.yml', 'examples/propose-publish-ci.yml', 'examples/propose-publish-issue.yml', 'examples/pull-request.yml', 'examples/python.yml']);
  for (const rel of examples) {
    const wf = workflow(rel);
    const ci = 'workflow_run' in wf.on;
    expect({ rel, concurrency: wf.concurrency }).toEqual({ rel, concurrency: undefined });
    expect({ rel, permissions: wf.permissions }).toEqual({ rel, permissions: {} });
    for (const [id, job] of Object.entries(wf.jobs)) {
      expect({ rel, id, hasIf: typeof job.if === 'string' }).toEqual({ rel, id, hasIf: true });
      expect({ rel, id, cancel: job.concurrency?.['cancel-in-progress'] }).toEqual({ rel, id, cancel: false });
      expect(job.concurrency?.group).toMatch(/\$\{\{/);
      // actions: read only where a failed run's logs are read, or where /agent-fix stop reads whether a run is in progress
      const actions = ci || rel.includes('manual') || rel === 'examples/issue.yml' || rel === 'examples/python.yml' || rel === 'examples/monorepo.yml' || rel === 'examples/pull-request.yml' ? { actions: 'read' } : {};
      if (rel.includes('propose-publish') && id === 'propose') {
        // the job that runs the model's code can write nothing
        expect({ rel, id, permissions: job.permissions }).toEqual({ rel, id, permissions: { contents: 'read', models: 'read', ...(ci ? {} : { issues: 'read' }), ...actions } });
      } else if (rel.includes('propose-publish') && id === 'publish') {
        // the job that holds the write token asks no model and runs nothing of the repository
        expect({ rel, id, permissions: job.permissions }).toEqual({ rel, id, permissions: { contents: 'write', 'pull-requests': 'write', issues: 'write', ...actions } });
        const stepsText = JSON.stringify(job.steps);
        expect({ rel, id, setup: /setup-|"run"/.test(stepsText) }).toEqual({ rel, id, setup: false });
      } else {
        expect({ rel, id, permissions: job.permissions }).toEqual({ rel, id, permissions: { contents: 'write', 'pull-requests': 'write', issues: 'write', models: 'read', ...actions } });
      }
    }
  }
});

test('the monorepo example filters and groups like the issue example; the gate is the root command', () => {
  expect(workflow('examples/monorepo.yml').jobs.fix.if).toBe(workflow('examples/issue.yml').jobs.fix.if);
  const [agent] = agentFixSteps('examples/monorepo.yml', read('examples/monorepo.yml'));
  expect(agent.with).toMatchObject({ 'setup-command': 'pnpm install --frozen-lockfile', 'test-command': 'pnpm test' });
});

test('the Python example filters and groups like the issue example, and runs pytest in a venv it sets up', () => {
  const py = workflow('examples/python.yml').jobs.fix;
  const issue = workflow('examples/issue.yml').jobs.fix;
  expect(py.if).toBe(issue.if);
  expect(py.concurrency).toEqual(issue.concurrency);
  const [agent] = agentFixSteps('examples/python.yml', read('examples/python.yml'));
  expect(agent.with['setup-command']).toMatch(/^python -m venv \.venv && /);
  expect(agent.with['test-command']).toBe('.venv/bin/python -m pytest');
});

const ppIssue = workflow('examples/propose-publish-issue.yml').jobs as Record<string, Job & { needs?: string; strategy?: { matrix: { candidate: unknown[] } } }>;
const ppCi = workflow('examples/propose-publish-ci.yml').jobs as typeof ppIssue;

test('propose/publish examples: the same event filters as the single-job examples, one group per matrix cell, publish after every candidate', () => {
  const single = workflow('examples/issue.yml').jobs.fix;
  // the fix triggers; the lifecycle ones (a closed issue, stop) stay with the single-job workflow
  const fixTriggers = single.if!.replace("(github.event.label.name == 'agent-fix' || github.event.action == 'closed')", "github.event.label.name == 'agent-fix'");
  expect(fixTriggers).not.toBe(single.if);
  expect(ppIssue.propose.if).toBe(fixTriggers);
  expect(ppCi.propose.if).toBe(workflow('examples/ci-repair.yml').jobs.repair.if);
  for (const jobs of [ppIssue, ppCi]) {
    expect(jobs.propose.strategy?.matrix.candidate).toEqual([1, 2, 3]);
    expect(jobs.publish.needs).toBe('propose');
    const publishes = (result: string) => truthy(evaluate(jobs.publish.if!, { needs: { propose: { result } } }));
    expect(publishes('success')).toBe(true);
    expect(publishes('failure')).toBe(true); // one candidate failed: the others may still be published
    expect(publishes('skipped')).toBe(false); // the event was filtered out
  }
  const cell = (candidate: number) => evaluate(ppIssue.propose.concurrency!.group!, { ...issueEvent('agent-fix', 7), matrix: { candidate } });
  expect(cell(1)).toBe('agent-fix-issue-7-propose-1');
  expect(cell(2)).toBe('agent-fix-issue-7-propose-2');
  expect(evaluate(ppIssue.publish.concurrency!.group!, issueEvent('agent-fix', 7))).toBe('agent-fix-issue-7');
});

const issueJob = workflow('examples/issue.yml').jobs.fix;
const ciJob = workflow('examples/ci-repair.yml').jobs.repair;
const manualJob = workflow('examples/manual.yml').jobs.fix;
const issueEvent = (label: string, issue = 7) => ({ github: { event_name: 'issues', event: { action: 'labeled', label: { name: label }, issue: { number: issue } } } });
const closedEvent = (issue = 7) => ({ github: { event_name: 'issues', event: { action: 'closed', issue: { number: issue } } } });
const otherIssueEvent = (action: string, issue = 7) => ({ github: { event_name: 'issues', event: { action, issue: { number: issue } } } });
const commentEvent = (body: string, type = 'User', issue = 7) => ({
  github: { event_name: 'issue_comment', event: { action: 'created', comment: { body, user: { type } }, issue: { number: issue } } },
});
const runEvent = (conclusion: string, branch = 'main', id = 991) => ({
  github: { event_name: 'workflow_run', event: { workflow_run: { id, conclusion, head_branch: branch } } },
});
const dispatch = (inputs: Record<string, string>) => ({ github: { event_name: 'workflow_dispatch', event: { inputs } }, inputs });

test('issue example: a runner starts only for the agent-fix label or a /agent-fix comment by a person', () => {
  const runs = (ctx: Record<string, unknown>): boolean => truthy(evaluate(issueJob.if!, ctx));
  expect(runs(issueEvent('agent-fix'))).toBe(true);
  expect(runs(issueEvent('bug'))).toBe(false);
  expect(runs(issueEvent('agent-fix-later'))).toBe(false);
  expect(runs(commentEvent('/agent-fix'))).toBe(true);
  expect(runs(commentEvent('/agent-fix use the new API\nand keep it small'))).toBe(true);
  expect(runs(commentEvent('thanks, looks good'))).toBe(false);
  expect(runs(commentEvent('please run /agent-fix'))).toBe(false);
  expect(runs(commentEvent('/agent-fix', 'Bot'))).toBe(false);
  // lifecycle: a closed issue (its open PR is closed), stop and continue commands
  expect(runs(closedEvent())).toBe(true);
  expect(runs(otherIssueEvent('reopened'))).toBe(false);
  expect(runs(otherIssueEvent('edited'))).toBe(false);
  expect(runs(commentEvent('/agent-fix stop'))).toBe(true);
  expect(runs(commentEvent('/agent-fix continue budget=$3'))).toBe(true);
  expect(runs(commentEvent('/agent-fix stop', 'Bot'))).toBe(false);
});

test('issue example: the label run and a comment on the same issue share one concurrency group; other issues do not', () => {
  const group = (ctx: Record<string, unknown>): unknown => evaluate(issueJob.concurrency!.group!, ctx);
  expect(group(issueEvent('agent-fix', 7))).toBe('agent-fix-issue-7');
  expect(group(commentEvent('/agent-fix', 'User', 7))).toBe('agent-fix-issue-7');
  expect(group(commentEvent('/agent-fix', 'User', 8))).toBe('agent-fix-issue-8');
  // closing the issue waits for the running fix (then closes the PR it opened); continue queues like a fix
  expect(group(closedEvent(7))).toBe('agent-fix-issue-7');
  expect(group(commentEvent('/agent-fix continue', 'User', 7))).toBe('agent-fix-issue-7');
  // stop must reach the running run: a group of its own
  expect(group(commentEvent('/agent-fix stop', 'User', 7))).toBe('agent-fix-issue-7-stop');
  // a manual run for the same issue queues behind it too (concurrency groups span workflows)
  expect(evaluate(manualJob.concurrency!.group!, dispatch({ 'issue-number': '7', 'run-id': '' }))).toBe('agent-fix-issue-7');
});

test('CI example: only failed runs outside agent-fix/* start a runner, one group per failed run', () => {
  const runs = (ctx: Record<string, unknown>): boolean => truthy(evaluate(ciJob.if!, ctx));
  expect(runs(runEvent('failure'))).toBe(true);
  expect(runs(runEvent('success'))).toBe(false);
  expect(runs(runEvent('cancelled'))).toBe(false);
  expect(runs(runEvent('failure', 'agent-fix/ci-1a2b3c'))).toBe(false);
  expect(runs(runEvent('failure', 'feature/agent-fix'))).toBe(true);
  expect(evaluate(ciJob.concurrency!.group!, runEvent('failure', 'main', 4242))).toBe('agent-fix-ci-4242');
});

test('manual example: a runner starts only with an issue number or a run id', () => {
  const runs = (inputs: Record<string, string>): boolean => truthy(evaluate(manualJob.if!, dispatch(inputs)));
  expect(runs({ 'issue-number': '12', 'run-id': '' })).toBe(true);
  expect(runs({ 'issue-number': '', 'run-id': 'https://github.com/o/r/actions/runs/5' })).toBe(true);
  expect(runs({ 'issue-number': '', 'run-id': '' })).toBe(false);
  expect(evaluate(manualJob.concurrency!.group!, dispatch({ 'issue-number': '', 'run-id': '5' }))).toBe('agent-fix-run-5');
});

const pullJob = workflow('examples/pull-request.yml').jobs['follow-up'];
const pullEvent = (name: 'pull_request_review' | 'pull_request_review_comment', p: { state?: string; body?: string; head?: string; headRepo?: string; sender?: string; number?: number } = {}) => ({
  github: {
    event_name: name,
    repository: 'octo/shop',
    event: {
      pull_request: { number: p.number ?? 8, head: { ref: p.head ?? 'agent-fix/issue-7', repo: { full_name: p.headRepo ?? 'octo/shop' } } },
      sender: { type: p.sender ?? 'User' },
      ...(name === 'pull_request_review' ? { review: { state: p.state ?? 'changes_requested' } } : { comment: { body: p.body ?? '/agent-fix rename it' } }),
    },
  },
});

test('pull request example: a runner starts only for a review requesting changes or a /agent-fix review comment by a person, on agent-fix\'s own pull request', () => {
  const runs = (ctx: Record<string, unknown>): boolean => truthy(evaluate(pullJob.if!, ctx));
  expect(runs(pullEvent('pull_request_review'))).toBe(true);
  expect(runs(pullEvent('pull_request_review', { state: 'approved' }))).toBe(false);
  expect(runs(pullEvent('pull_request_review', { state: 'commented' }))).toBe(false);
  expect(runs(pullEvent('pull_request_review_comment'))).toBe(true);
  expect(runs(pullEvent('pull_request_review_comment', { body: 'nit: rename' }))).toBe(false);
  expect(runs(pullEvent('pull_request_review', { head: 'feature/x' }))).toBe(false);
  expect(runs(pullEvent('pull_request_review', { headRepo: 'mallory/shop' }))).toBe(false);
  expect(runs(pullEvent('pull_request_review', { sender: 'Bot' }))).toBe(false);
  // one group with a comment on the same pull request (issue.yml): one run per pull request
  expect(evaluate(pullJob.concurrency!.group!, pullEvent('pull_request_review', { number: 8 }))).toBe(evaluate(issueJob.concurrency!.group!, commentEvent('/agent-fix', 'User', 8)));
  expect(evaluate(pullJob.concurrency!.group!, pullEvent('pull_request_review_comment', { number: 8, body: '/agent-fix rename it' }))).toBe('agent-fix-issue-8');
  // a stop must not queue behind the run it stops
  expect(evaluate(pullJob.concurrency!.group!, pullEvent('pull_request_review_comment', { number: 8, body: '/agent-fix stop' }))).toBe('agent-fix-issue-8-stop');
});

test('the README quick start is the issue example, verbatim', () => {
  const example = read('examples/issue.yml').split('\n').filter((l) => !l.startsWith('#')).join('\n');
  const readmeWorkflows = yamlBlocks('README.md', read('README.md')).map((b) => b.text);
  expect(readmeWorkflows).toContain(example);
});

test('README troubleshooting: ten entries, each quoting a message agent-fix really writes (or GitHub\'s, where marked)', () => {
  const readme = read('README.md');
  const section = readme.slice(readme.indexOf('### Troubleshooting'), readme.indexOf('## Local CLI'));
  const rows = section.split('\n').filter((l) => l.startsWith('| `'));
  expect(rows).toHaveLength(10);
  const sources = readdirSync(path.join(ROOT, 'src'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => read(path.join('src', f)))
    .join('\n');
  for (const row of rows) {
    const first = row.split(' | ')[0];
    if (first.includes('(GitHub)')) continue;
    for (const quoted of first.matchAll(/`([^`]+)`/g)) {
      for (const piece of quoted[1].split('…').map((p) => p.trim()).filter(Boolean)) {
        expect({ row: first, found: sources.includes(piece) ? piece : `not in src/: ${piece}` }).toEqual({ row: first, found: piece });
      }
    }
  }
});

test('snippets inside list items are found too (the App-token steps of the prerequisites)', () => {
  // the App-token steps (the Python section's steps are the other list of steps)
  const steps = snippets.filter((b) => b.file === 'README.md' && kind(b) === 'steps' && b.text.includes('app-token'));
  expect(steps).toHaveLength(1);
  expect(snippets.filter((b) => b.file === 'README.md' && kind(b) === 'steps')).toHaveLength(2);
  expect(agentFixSteps('README', steps[0].text)[0].with).toEqual({ 'github-token': '${{ steps.app-token.outputs.token }}', 'api-key': '${{ github.token }}' });
});
