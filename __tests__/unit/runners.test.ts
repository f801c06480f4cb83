/** The runner registry (src/verify/runners/): one module per runner, one interface, callers through index.ts. */
import { existsSync, readFileSync } from 'node:fs';
import { displayCommand, identifyRunner, parseTestOutput, planFiles, planRelated, planStructured, allRunners, runnerById } from '../../src/verify/runners/index.js';
import { MOCHA_REPORTER } from '../../src/verify/runners/mocha.js';
import { core } from '../../src/verify/runners/runner.js';

const REPORT = '/tmp/agent-fix-tests-x/report-1.out';

/** A command each runner recognises as its own (the runner's binary as a person types it). */
const TYPICAL: Record<string, string[]> = {
  jest: ['npx jest', 'jest --ci', './node_modules/.bin/jest src'],
  vitest: ['npx vitest run', 'vitest --run'],
  mocha: ['npx mocha', 'mocha test/unit'],
  'node-test': ['node --test', 'node --experimental-strip-types --test test/'],
  pytest: ['pytest -q', 'python -m pytest', 'python3 -m pytest tests'],
  go: ['go test ./...'],
  cargo: ['cargo test'],
  make: ['make test'],
};

test('each runner has one module in the registry, and a command is claimed by exactly one runner', () => {
  const ids = allRunners().map((r) => r.id);
  expect(new Set(ids).size).toBe(ids.length);
  for (const [id, commands] of Object.entries(TYPICAL)) {
    for (const c of commands) {
      expect(allRunners().filter((r) => r.invokedBy(core(c))).map((r) => r.id)).toEqual([id]);
      expect(identifyRunner(c, null).runner).toBe(id);
    }
  }
  // TAP is read from any output, its producers' commands are not claimed.
  expect(identifyRunner('tape test/*.js', null).runner).toBe('unknown');
  expect(runnerById('tap')!.output!.length).toBe(1);
});

test("whatever a runner module adds to a command (report flags, our reporter, a selection's plumbing), displayCommand takes away again", () => {
  for (const [cmd, files] of [
    ['npx jest', ['src/a.js']],
    ['npx vitest run', ['src/a.ts']],
    ['npx mocha', ['test/a.test.js']],
    ['node --test', ['test/a.test.js']],
    ['pytest -q', ['tests/test_a.py']],
    ['go test ./...', ['pkg/a/a.go']],
  ] as const) {
    const info = identifyRunner(cmd, null);
    const full = planStructured(cmd, info, REPORT);
    expect(full.reportFile).toBe(REPORT);
    expect(full.command).not.toBe(cmd);
    expect(displayCommand(full.command)).toBe(cmd);
    for (const plan of [planRelated(info, [...files], [...files], REPORT), planFiles(info, [...files], REPORT)]) {
      if (!plan) continue;
      expect(plan.reportFile).toBe(REPORT);
      // the selection stays, our plumbing goes
      const shown = displayCommand(plan.command);
      expect(shown).not.toContain(REPORT);
      expect(shown).not.toMatch(/--json|--junitxml|--test-reporter|agent-fix-mocha|-json /);
    }
  }
  // Runners without a report, and unknown commands, run as given.
  for (const cmd of ['cargo test', 'make test', 'tape test/*.js']) {
    const plan = planStructured(cmd, identifyRunner(cmd, null), REPORT);
    expect(plan.command).toBe(cmd);
    expect(plan.reportFile).toBeUndefined();
  }
});

test('the mocha reporter is a real CommonJS file next to its module, handed to mocha by copy', () => {
  expect(existsSync(MOCHA_REPORTER)).toBe(true);
  const source = readFileSync(MOCHA_REPORTER, 'utf8');
  expect(source).toMatch(/^'use strict';/);
  expect(source).toContain('module.exports = AgentFixReporter;');
  const plan = planStructured('npx mocha', identifyRunner('npx mocha', null), REPORT);
  expect(plan.support).toEqual([{ path: '/tmp/agent-fix-tests-x/agent-fix-mocha-reporter.cjs', copyOf: MOCHA_REPORTER }]);
});

test('plain output: one tree-drawing parser applies (the first in registry order), every line parser that recognises its lines', () => {
  // vitest's and jest's trees both use ✓; the vitest header decides, and the TAP line next to it is read too.
  const out = [' RUN  v1.6.0 /repo', '', ' ✓ src/a.test.ts > adds 2ms', ' × src/a.test.ts > subtracts 3ms', '', 'ok 1 - from a TAP producer', ' Test Files  1 failed (1)'].join('\n');
  const parsed = parseTestOutput(out);
  expect(parsed.parsedFrom).toBe('vitest');
  expect(parsed.tests.map((t) => [t.id, t.status])).toEqual([
    ['src/a.test.ts > adds', 'passed'],
    ['src/a.test.ts > subtracts', 'failed'],
    ['from a TAP producer', 'passed'],
  ]);
});
