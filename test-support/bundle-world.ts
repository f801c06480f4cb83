/**
 * Candidates for bundle tests and the best-of-N benchmark: a real fix run (src/fix.ts runFix)
 * in a fresh clone of a fixture repository, against a scripted model, with the repository's
 * real test command; its result written as a bundle (src/bundle/write.ts).
 */
import { writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { openGit } from '../src/adapters/git.js';
import { openPatchGit } from '../src/adapters/patch.js';
import { makeShell } from '../src/adapters/shell.js';
import { makeChatModel } from '../src/adapters/openai.js';
import { runFix } from '../src/fix.js';
import { Redactor } from '../src/redact.js';
import { startScriptedModel } from '../src/scripted/server.js';
import type { Script } from '../src/scripted/script.js';
import { ALWAYS_PROTECTED } from '../src/workspace/paths.js';
import { candidateSampling } from '../src/bundle/candidate.js';
import { writeBundle, type WrittenBundle } from '../src/bundle/write.js';
import { MANIFEST_FILE, PATCH_FILE } from '../src/bundle/schema.js';
import { createHash } from 'node:crypto';
import type { Settings, SettingsInput } from '../src/settings/types.js';
import { resolveSettings } from '../src/settings/resolve.js';
import type { Task } from '../src/task/types.js';
import { cloneShallow } from './git-fixture.js';

export const BUNDLE_API_KEY = 'sk-bundle-test-key-0123456789abcdef';

/** The ADDER task of test-support/run-main.ts. */
export const ADDER_TASK: Task = { key: 'issue-7', title: 'add is wrong', goal: 'add(2, 3) returns -1', issueNumber: 7 };

export function bundleSettings(over: Partial<SettingsInput> = {}): Settings {
  return resolveSettings({
    githubToken: '',
    apiKey: BUNDLE_API_KEY,
    baseUrl: 'http://127.0.0.1:1/v1',
    model: 'scripted',
    testCommand: 'node test.js',
    setupCommand: null,
    label: 'agent-fix',
    maxIterations: 1,
    maxChangedFiles: 10,
    maxChangedLines: 200,
    draft: true,
    commandTimeoutMs: 60_000,
    protectedPaths: [...ALWAYS_PROTECTED],
    feedbackTokens: 3000,
    contextTokens: 8000,
    // no per-request input limit (by hand only: the endpoint's default would be the model's window)
    maxInputTokens: 0,
    relatedTestsFirst: true,
    preexistingFailures: 'allow',
    testIntegrityAllow: [],
    workflows: [],
    budget: { maxTokens: 0, maxCostUsd: 0, maxWallMs: 0, prices: {} },
    ...over,
  });
}

export interface ProposeOptions {
  remoteUrl: string;
  script: Script;
  candidate: string;
  outDir: string;
  task?: Task;
  settings?: Partial<SettingsInput>;
}

export interface Proposed {
  bundle: WrittenBundle;
  status: string;
  checkout: string;
}

/** One candidate: clone, fix with the scripted model, bundle. */
export async function proposeCandidate(o: ProposeOptions): Promise<Proposed> {
  const checkout = cloneShallow(o.remoteUrl).dir;
  const model = await startScriptedModel(o.script);
  const sampling = candidateSampling(o.candidate);
  const settings = bundleSettings({ baseUrl: model.url, ...o.settings });
  const redactor = new Redactor([settings.apiKey]);
  const git = await openGit(checkout);
  const patches = await openPatchGit(checkout);
  try {
    const chat = makeChatModel({ baseUrl: model.url, apiKey: settings.apiKey, model: settings.model, maxRetries: 0, ...sampling });
    const fix = await runFix(o.task ?? ADDER_TASK, {
      git,
      shell: makeShell(),
      model: chat,
      settings,
      redactor,
      parentEnv: { PATH: process.env.PATH, HOME: process.env.HOME },
      log: () => undefined,
      scripted: true,
      sandbox: { mode: 'none', description: 'no isolation (test)' },
    });
    const bundle = await writeBundle({ fix, candidate: { id: o.candidate, ...sampling }, settings, redactor, patches, outDir: o.outDir });
    await git.restore(fix.pristineTree);
    return { bundle, status: fix.report.status, checkout };
  } finally {
    await patches.dispose();
    await model.close();
  }
}

/** Replaces a bundle's patch and keeps the manifest's size and sha256 in step (so the check gets past them). */
export function replacePatch(dir: string, patch: string | Buffer): void {
  const data = Buffer.isBuffer(patch) ? patch : Buffer.from(patch, 'utf8');
  writeFileSync(path.join(dir, PATCH_FILE), data);
  editManifest(dir, (m) => {
    m.patch.bytes = data.length;
    m.patch.sha256 = createHash('sha256').update(data).digest('hex');
  });
}

export function editManifest(dir: string, edit: (m: any) => void): void {
  const file = path.join(dir, MANIFEST_FILE);
  const m = JSON.parse(readFileSync(file, 'utf8'));
  edit(m);
  writeFileSync(file, JSON.stringify(m));
}

/** A scripted session: edit `src/add.js` from `return a - b;` to `replacement`, then finish. */
export function editScript(newString: string, summary = 'fixed add'): Script {
  return {
    label: summary,
    steps: [
      { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/add.js', old_string: 'return a - b;', new_string: newString } }] },
      { toolCalls: [{ name: 'finish', arguments: { summary } }] },
    ],
  };
}
