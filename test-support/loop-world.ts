/**
 * The agent loop's world for integration tests: a git repository of `files`, its tests run by
 * `node --test` through the real shell, the baseline run and tree, and the loop's dependencies
 * (`LoopDeps`) over them: the session's verdict is compareRuns against the baseline, events are
 * collected. Not pure (git, processes, temporary directories): integration tests only.
 */
import type { LoopDeps, LoopEvent, LoopLimits } from '../src/agent/loop.js';
import { ToolBox } from '../src/agent/tools.js';
import { openGit } from '../src/adapters/git.js';
import { makeShell } from '../src/adapters/shell.js';
import { childEnv } from '../src/verify/env.js';
import { toTestRun } from '../src/verify/test-run.js';
import { compareRuns } from '../src/verify/compare.js';
import { Redactor } from '../src/redact.js';
import type { ChatModel } from '../src/ports/llm.js';
import type { TestRun } from '../src/verify/types.js';
import { makeRepo, type MakeRepoOptions, type RepoFixture } from './git-fixture.js';

/** The limits the loop tests run with unless they say otherwise. */
export const LOOP_LIMITS: LoopLimits = { maxIterations: 3, maxChangedFiles: 10, maxChangedLines: 200, maxTurns: 20, maxTokens: 0 };

export interface LoopWorld {
  repo: RepoFixture;
  git: Awaited<ReturnType<typeof openGit>>;
  shell: ReturnType<typeof makeShell>;
  /** The tests' environment. */
  env: ReturnType<typeof childEnv>;
  redactor: Redactor;
  /** `node --test` in the repository, as a test run. */
  runTests: () => Promise<TestRun>;
  baseline: TestRun;
  baselineTree: string;
  events: LoopEvent[];
  /** The loop's dependencies: `model` with the world's tools, git, tests, limits (LOOP_LIMITS, then `limits`) and `more` last. */
  deps(model: ChatModel, limits?: Partial<LoopLimits>, more?: Partial<LoopDeps>): LoopDeps;
}

/** A repository of `files` (`prepare` runs on its directory before anything else) and its baseline run. */
export async function openLoopWorld(files: Record<string, string>, opts: { fixture?: MakeRepoOptions; prepare?: (dir: string) => void } = {}): Promise<LoopWorld> {
  const repo = makeRepo(files, opts.fixture);
  opts.prepare?.(repo.dir);
  const git = await openGit(repo.dir);
  const shell = makeShell();
  const redactor = new Redactor();
  const env = childEnv(process.env);
  const runTests = async () => toTestRun(await shell.run('node --test', { cwd: repo.dir, timeoutMs: 60_000, env, maxOutputChars: 100_000 }), redactor);
  const baseline = await runTests();
  const baselineTree = await git.snapshot();
  const events: LoopEvent[] = [];
  const deps = (model: ChatModel, limits: Partial<LoopLimits> = {}, more: Partial<LoopDeps> = {}): LoopDeps => ({
    model,
    tools: new ToolBox({ root: git.root, listFiles: () => git.listFiles(), protectedPaths: [] }),
    git,
    // the gate's verdict comes with the run (the test session judges; here compareRuns directly)
    runTests: async () => {
      const run = await runTests();
      return { run, verdict: compareRuns(baseline, run) };
    },
    baseline,
    baselineTree,
    limits: { ...LOOP_LIMITS, ...limits },
    redact: (t) => redactor.redact(t),
    emit: (e) => events.push(e),
    ...more,
  });
  return { repo, git, shell, env, redactor, runTests, baseline, baselineTree, events, deps };
}
