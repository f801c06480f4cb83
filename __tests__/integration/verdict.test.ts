/**
 * One verdict: the test session judges each run it hands the loop (compare.ts, once) and returns
 * the verdict with the run; the loop, the run_tests tool, the resume path and a candidate's check
 * use that verdict as is. Real `node --test` runs in a temporary repository; a test that fails
 * on exactly one run (a counter file outside the repository) makes the gate re-run.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { makeShell } from '../../src/adapters/shell.js';
import { childEnv } from '../../src/verify/env.js';
import { TestSession } from '../../src/verify/session.js';
import { Redactor } from '../../src/redact.js';
import { makeRepo, cleanupFixtures } from '../../test-support/git-fixture.js';

afterAll(() => cleanupFixtures());

/** A project whose test `flip` fails on the `failOn`-th run of the command only. */
function project(failOn: number) {
  const counter = path.join(mkdtempSync(path.join(tmpdir(), 'agent-fix-verdict-')), 'runs');
  writeFileSync(counter, '0');
  const repo = makeRepo({
    'package.json': JSON.stringify({ name: 'flip', private: true, type: 'module' }) + '\n',
    'src/add.js': 'export const add = (a, b) => a + b;\n',
    'test/add.test.js': [
      "import { test } from 'node:test';",
      "import assert from 'node:assert/strict';",
      "import { readFileSync, writeFileSync } from 'node:fs';",
      "import { add } from '../src/add.js';",
      `const counter = ${JSON.stringify(counter)};`,
      "const run = Number(readFileSync(counter, 'utf8')) + 1;",
      'writeFileSync(counter, String(run));',
      "test('adds', () => assert.equal(add(1, 2), 3));",
      `test('flip', () => assert.notEqual(run, ${failOn}));`,
      '',
    ].join('\n'),
  });
  const shell = makeShell();
  const exec = (command: string) => shell.run(command, { cwd: repo.dir, timeoutMs: 60_000, env: childEnv(process.env), maxOutputChars: 100_000 });
  return { repo, exec, runs: () => Number(readFileSync(counter, 'utf8')) };
}

test('the gate re-runs a newly failing test; the verdict it returns is judged on the re-run-marked run (flaky, so ok)', async () => {
  const p = project(2);
  const session = await TestSession.create({ root: p.repo.dir, testCommand: 'node --test', exec: p.exec, redactor: new Redactor() });
  try {
    const baseline = await session.runBaseline();
    expect(baseline.succeeded).toBe(true);
    const { run, verdict } = await session.runGate();
    expect(session.commands.map((c) => c.purpose)).toEqual(['baseline', 'gate', 'gate-rerun']);
    expect(p.runs()).toBe(3);
    // the first gate run failed `flip`; its second run passed it: flaky, and the verdict says so
    expect(run.succeeded).toBe(false);
    expect(run.flaky).toEqual(['flip']);
    expect(verdict).toMatchObject({ ok: true, newlyFailing: [], flaky: ['flip'] });
  } finally {
    await session.dispose();
  }
});

test('a test that fails on both gate runs is newly failing: the verdict refuses, judged once', async () => {
  const p = project(2);
  const session = await TestSession.create({ root: p.repo.dir, testCommand: 'node --test', exec: p.exec, redactor: new Redactor() });
  try {
    await session.runBaseline();
    // a broken change: `adds` fails on both gate runs, `flip` on the first only
    writeFileSync(path.join(p.repo.dir, 'src/add.js'), 'export const add = (a, b) => a - b;\n');
    const { run, verdict } = await session.runForLoop();
    expect(session.commands.map((c) => c.purpose)).toEqual(['baseline', 'gate', 'gate-rerun']);
    expect(run.flaky).toEqual(['flip']);
    expect(verdict.ok).toBe(false);
    expect(verdict.newlyFailing).toEqual(['adds']);
    expect(verdict.flaky).toEqual(['flip']);
  } finally {
    await session.dispose();
  }
});
