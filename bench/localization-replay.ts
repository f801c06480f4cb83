/**
 * Tokens per fixed task, before and after the repository context: the CLI bundle on real bugs of
 * ../shared/bench/dev-tasks.json (buggy commit + the fix commit's failing tests, the task's own
 * install and test commands, the issue text as the task), against a scripted model that replays
 * the real upstream fix as edit_file calls (one per hunk of `git diff -U2 buggy fix`, all in one reply).
 *   before (--context-tokens 0): the model must find the code first: a search for the fixed
 *          file's name, a read_file of each fixed file, the edits, finish.
 *   after (default budget): the edits and finish straight away when the first request showed
 *          every changed line; otherwise it reads the fixed files first, as before.
 * Tokens: every request the scripted server received (messages and tool schemas), counted with
 * o200k_base; summed per run. Only runs the harness verified count as fixed.
 *
 *   node scripts/run-ts.mjs bench/localization-replay.ts [--ids a,b] [--mirrors /work/.mirror] [--out FILE]
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startScriptedModel } from '../src/scripted/server.js';
import { parseScript, type Script } from '../src/scripted/script.js';
import { countTokens } from '../src/context/tokens.js';
import { node24, ROOT } from '../test-support/run-action.js';
import { arg, benchGit, fixHunks, prepareTask, type DevTask } from './dev-task.js';


const mirrors = arg('mirrors', '/work/.mirror')!;
const work = arg('work', path.join(os.tmpdir(), 'agent-fix-replay'))!;
const all: DevTask[] = JSON.parse(readFileSync('/work/shared/bench/dev-tasks.json', 'utf8')).tasks;
const ids = arg('ids')?.split(',');
const tasks = ids ? all.filter((t) => ids.includes(t.id)) : all;

function editSteps(dir: string, t: DevTask): Script['steps'] {
  const calls: { name: string; arguments: Record<string, unknown> }[] = [];
  for (const f of t.fix_files) {
    const text = benchGit(dir, 'show', `${t.buggy_sha}:${f}`);
    const hs = fixHunks(dir, t).filter((h) => h.file === f);
    // an edit_file per hunk when its old text is unique in the file; else the whole file
    const unique = hs.every((h) => h.old.length > 0 && text.split(h.old).length === 2);
    if (unique) calls.push(...hs.map((h) => ({ name: 'edit_file', arguments: { path: f, old_string: h.old, new_string: h.new } })));
    else calls.push({ name: 'write_file', arguments: { path: f, content: `${benchGit(dir, 'show', `${t.fix_sha}:${f}`)}\n` } });
  }
  // all edits in one reply (parallel tool calls), as models do once they know what to change
  return [{ toolCalls: calls }];
}

function readSteps(t: DevTask): Script['steps'] {
  const stem = path.basename(t.fix_files[0]).replace(/\.[^.]+$/, '');
  const name = stem === 'index' ? path.basename(path.dirname(t.fix_files[0])) : stem;
  return [{ toolCalls: [{ name: 'search', arguments: { pattern: name } }] }, ...t.fix_files.map((f) => ({ toolCalls: [{ name: 'read_file', arguments: { path: f } }] }))];
}

const finish = { toolCalls: [{ name: 'finish', arguments: { summary: 'upstream fix' } }] };

function requestTokens(req: { messages: { content?: string | null; tool_calls?: { function: { name: string; arguments: string } }[] }[]; tools?: unknown }): number {
  let n = countTokens(JSON.stringify(req.tools ?? []));
  for (const m of req.messages) {
    n += 4 + countTokens(m.content ?? '');
    for (const c of m.tool_calls ?? []) n += countTokens(c.function.name) + countTokens(c.function.arguments);
  }
  return n;
}

async function runCli(dir: string, t: DevTask, steps: Script['steps'], contextTokens: number) {
  const model = await startScriptedModel(parseScript({ label: `replay ${t.id}`, steps }));
  const child = spawn(
    node24(),
    [path.join(ROOT, 'dist', 'cli.js'), 'fix', `${t.issue_title}\n\n${t.issue_body}`, '--repo', dir, '--test-command', t.test_command, '--base-url', model.url, '--model', 'scripted', '--max-iterations', '1', '--context-tokens', String(contextTokens), '--json'],
    { env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', OPENAI_API_KEY: 'bench-key-123456' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d));
  child.stderr.on('data', () => undefined);
  await new Promise((r) => child.on('close', r));
  await model.close();
  const report = out.trim().startsWith('{') ? JSON.parse(out) : { status: 'cli-error' };
  const perRequest = model.requests.map((r) => requestTokens(r));
  return { status: report.status as string, requests: perRequest.length, promptTokens: perRequest.reduce((a, b) => a + b, 0), firstRequest: perRequest[0] ?? 0, first: model.requests[0] };
}

/** Whether the first request shows every changed line of the fix as numbered code. */
function shownIn(first: { messages: { content?: string | null }[] } | undefined, dir: string, t: DevTask): boolean {
  const text = first?.messages.map((m) => m.content ?? '').join('\n') ?? '';
  return fixHunks(dir, t).every((h) => {
    const lines = readFileSync(path.join(dir, h.file), 'utf8').split('\n');
    for (let n = h.oldStart; n < h.oldStart + Math.max(1, h.oldLines); n++) {
      const src = lines[n - 1];
      if (src === undefined) continue;
      if (!new RegExp(`(?:^|\\n) *${n}\\| ${src.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?:\\n|$)`).test(text)) return false;
    }
    return true;
  });
}

const rows: unknown[] = [];
for (const t of tasks) {
  try {
    process.stderr.write(`${t.id}\n`);
    const dir = prepareTask(t, mirrors, work);
    const edits = editSteps(dir, t);
    const before = await runCli(dir, t, [...readSteps(t), ...edits, finish], 0);
    let after = await runCli(dir, t, [...edits, finish], 8000);
    const shown = shownIn(after.first, dir, t);
    let replay = 'edits only (the changed lines were shown)';
    if (!shown) {
      after = await runCli(dir, t, [...t.fix_files.map((f) => ({ toolCalls: [{ name: 'read_file', arguments: { path: f } }] })), ...edits, finish], 8000);
      replay = 'read_file of the fixed files, then the edits';
    }
    const row = {
      id: t.id,
      before: { status: before.status, requests: before.requests, promptTokens: before.promptTokens, firstRequest: before.firstRequest },
      after: { status: after.status, requests: after.requests, promptTokens: after.promptTokens, firstRequest: after.firstRequest, replay },
    };
    rows.push(row);
    process.stderr.write(`${JSON.stringify(row)}\n`);
  } catch (e) {
    rows.push({ id: t.id, error: e instanceof Error ? e.message : String(e) });
  }
}
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2) : null;
};
type Row = { before: { status: string; promptTokens: number }; after: { status: string; promptTokens: number } };
const ok = rows.filter((r): r is Row => (r as Row).before?.status === 'fixed' && (r as Row).after?.status === 'fixed');
const summary = {
  tasks: rows.length,
  fixedBoth: ok.length,
  medianPromptTokensBefore: median(ok.map((r) => r.before.promptTokens)),
  medianPromptTokensAfter: median(ok.map((r) => r.after.promptTokens)),
};
const result = { date: new Date().toISOString(), machine: { nproc: os.cpus().length, node: process.version }, summary, rows };
if (arg('out')) writeFileSync(arg('out')!, JSON.stringify(result, null, 2));
process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
if (!existsSync(work)) process.exitCode = 1;
