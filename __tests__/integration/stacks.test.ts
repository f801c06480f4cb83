/**
 * The harness's test runs against real runners on fixture projects: structured reports
 * (jest/vitest JSON, node and pytest JUnit, go -json) and plain-output fallback, load
 * errors, flaky tests marked by the baseline re-run, related tests first.
 * A stack whose toolchain is missing is skipped with a message (.ci/run installs them).
 */
import { mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Redactor } from '../../src/redact.js';
import { parseTestOutput } from '../../src/verify/runners/index.js';
import { TestSession } from '../../src/verify/session.js';
import { makeStackProject, STACK_COMMANDS, unavailable, type Stack } from '../../test-support/stacks.js';

interface Expectation {
  failing: string[];
  /** The failing assertion (fixed by `fix`) and the erroring test (stays failing). */
  assertion: string;
  erroring: string;
  flaky: string;
  loadErrors: string[];
  structured: boolean;
  /** The source file to fix (sub) and the fixed text. */
  source: string;
  fix: [string, string];
  related: boolean;
}

const JS_FIX: [string, string] = ['a - b', 'a - b + 1'];
const EXPECT: Record<Stack, Expectation> = {
  jest: {
    failing: ['test/broken.test.js', 'test/math.test.js > math > subtracts'],
    assertion: 'test/math.test.js > math > subtracts',
    erroring: 'test/broken.test.js',
    flaky: 'test/flaky.test.js > sometimes',
    loadErrors: ['test/broken.test.js'],
    structured: true,
    source: 'src/math.js',
    fix: JS_FIX,
    related: true,
  },
  vitest: {
    failing: ['test/broken.test.js', 'test/math.test.js > math > subtracts'],
    assertion: 'test/math.test.js > math > subtracts',
    erroring: 'test/broken.test.js',
    flaky: 'test/flaky.test.js > sometimes',
    loadErrors: ['test/broken.test.js'],
    structured: true,
    source: 'src/math.js',
    fix: JS_FIX,
    related: true,
  },
  mocha: {
    failing: ['broken setup > "before all" hook for "queries"', 'math > subtracts'],
    assertion: 'math > subtracts',
    erroring: 'broken setup > "before all" hook for "queries"',
    flaky: 'flaky > sometimes',
    loadErrors: [],
    structured: true,
    source: 'src/math.js',
    fix: JS_FIX,
    related: true,
  },
  'node-test': {
    failing: ['math > subtracts', 'test/broken.test.js'],
    assertion: 'math > subtracts',
    erroring: 'test/broken.test.js',
    flaky: 'sometimes',
    loadErrors: ['test/broken.test.js'],
    structured: true,
    source: 'src/math.js',
    fix: JS_FIX,
    related: false,
  },
  pytest: {
    failing: ['tests/test_broken.py::test_queries', 'tests/test_math.py::test_subtracts'],
    assertion: 'tests/test_math.py::test_subtracts',
    erroring: 'tests/test_broken.py::test_queries',
    flaky: 'tests/test_flaky.py::test_sometimes',
    loadErrors: [],
    structured: true,
    source: 'calc/math.py',
    fix: ['return a - b', 'return a - b + 1'],
    related: true,
  },
  go: {
    failing: ['example.com/fx/broken', 'example.com/fx/calc > TestSub'],
    assertion: 'example.com/fx/calc > TestSub',
    erroring: 'example.com/fx/broken',
    flaky: 'example.com/fx/flaky > TestSometimes',
    loadErrors: ['example.com/fx/broken'],
    structured: true,
    source: 'calc/calc.go',
    fix: ['return a - b }', 'return a - b + 1 }'],
    related: true,
  },
};

const MOCHA_FILES = ['test/math.test.js', 'test/broken.test.js', 'test/flaky.test.js'];

const failingIds = (run: { tests: { id: string; status: string }[] }) =>
  run.tests.filter((t) => t.status === 'failed').map((t) => t.id).sort();

describe.each(Object.keys(EXPECT) as Stack[])('%s fixture', (stack) => {
  const missing = unavailable(stack);
  const e = EXPECT[stack];
  if (missing) {
    test.skip(`skipped: ${missing}`, () => undefined);
     
    console.warn(`[stacks.test] ${stack} skipped: ${missing}`);
    return;
  }

  test('baseline: structured results, load errors, flaky test marked, exit code reconciled', async () => {
    const p = makeStackProject(stack);
    try {
      const session = await TestSession.create({ root: p.dir, testCommand: STACK_COMMANDS[stack], exec: p.exec, redactor: new Redactor() });
      const run = await session.runBaseline();
      expect(Boolean(run.structured)).toBe(e.structured);
      expect(failingIds(run)).toEqual(e.failing);
      expect(run.flaky).toEqual([e.flaky]);
      expect(run.loadErrors ?? []).toEqual(e.loadErrors);
      expect(run.succeeded).toBe(false);
      expect(run.consistency).toBe('consistent');
      expect(run.counts.failed).toBe(2);
      expect(session.commands.map((c) => c.purpose)).toEqual(['baseline', 'baseline-rerun']);
      const failing = run.tests.find((t) => t.id === e.assertion)!;
      expect(failing.message).toBeTruthy();
      await session.dispose();
    } finally {
      p.cleanup();
    }
  });

  test('plain-output fallback finds the failing assertion', async () => {
    const p = makeStackProject(stack);
    try {
      const session = await TestSession.create({ root: p.dir, testCommand: STACK_COMMANDS[stack], exec: p.exec, redactor: new Redactor(), structured: false });
      const run = await session.runFull('baseline');
      expect(run.structured).toBeUndefined();
      expect(failingIds(run)).toContain(e.assertion);
      expect(run.counts.failed).toBeGreaterThanOrEqual(2);
      await session.dispose();
    } finally {
      p.cleanup();
    }
  });

  test(`inside the loop: ${e.related ? 'related tests first, then the full gate' : 'the full gate (no selection for this runner)'}`, async () => {
    const p = makeStackProject(stack);
    try {
      const session = await TestSession.create({
        root: p.dir,
        testCommand: STACK_COMMANDS[stack],
        exec: p.exec,
        redactor: new Redactor(),
        changedFiles: async () => [e.source],
        listFiles: async () => [e.source, ...(stack === 'mocha' ? MOCHA_FILES : ['tests/test_math.py', 'tests/test_broken.py', 'tests/test_flaky.py'])],
      });
      const file = path.join(p.dir, e.source);
      writeFileSync(file, readFileSync(file, 'utf8').replace(e.fix[0], e.fix[1]));
      const { run } = await session.runForLoop();
      const purposes = session.commands.map((c) => c.purpose);
      if (e.related) {
        expect(purposes[0]).toBe('related');
        const related = session.commands[0];
        expect(related.exitCode).toBe(0);
        expect(related.counts.failed).toBe(0);
        expect(related.counts.passed).toBeGreaterThan(0);
      }
      expect(purposes).toContain('gate');
      expect(run.scope).toBe('full');
      expect(failingIds(run)).toContain(e.erroring);
      expect(failingIds(run)).not.toContain(e.assertion);
      await session.dispose();
    } finally {
      p.cleanup();
    }
  });
});

describe('mocha: our reporter on the real mocha', () => {
  const statuses = (run: { tests: { id: string; status: string }[] }) => run.tests.map((t) => `${t.status} ${t.id}`).sort();

  test('readable spec output, parsed to the same ids as the report; failures with message, diff and frame', async () => {
    const p = makeStackProject('mocha');
    try {
      const session = await TestSession.create({ root: p.dir, testCommand: 'npm test', exec: p.exec, redactor: new Redactor() });
      const run = await session.runFull('baseline');
      expect(run.structured).toBe(true);
      expect(run.executed).toMatch(/^npm test -- --reporter \S+agent-fix-mocha-reporter\.cjs --reporter-option agentFixOutput=\S+report-1\.jsonl$/);
      expect(session.commands[0].command).toBe('npm test');
      expect(run.exitCode).toBe(2);
      expect(statuses(run)).toEqual([
        'failed broken setup > "before all" hook for "queries"',
        'failed math > subtracts',
        'passed flaky > sometimes',
        'passed math > adds',
        'skipped math > multiplies',
      ]);
      expect(run.counts).toEqual({ passed: 2, failed: 2, skipped: 1 });
      const sub = run.tests.find((t) => t.id === 'math > subtracts')!;
      expect(sub).toMatchObject({ file: 'test/math.test.js', frame: 'test/math.test.js:5:34', message: 'Expected values to be strictly equal: 2 !== 3' });
      expect(sub.details).toContain('+ expected - actual');
      expect(run.tests.find((t) => t.id.startsWith('broken setup'))).toMatchObject({ file: 'test/broken.test.js', message: 'database not reachable' });
      // The output is mocha's spec layout: a person reads it, and the plain parser finds the same tests.
      expect(run.outputTail).toContain('  math\n    ✔ adds\n    2) subtracts\n    - multiplies');
      expect(run.outputTail).toMatch(/2 passing \(\d+m?s\)\n {2}1 pending\n {2}2 failing/);
      expect(run.outputTail).toContain('  2) math\n       subtracts:\n     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:');
      const plain = parseTestOutput(run.outputTail);
      expect(plain.parsedFrom).toBe('mocha');
      expect(statuses({ tests: plain.tests })).toEqual(statuses(run));
      await session.dispose();
    } finally {
      p.cleanup();
    }
  });

  test('selected files only: the related run and the proof run just the given test files', async () => {
    const p = makeStackProject('mocha');
    try {
      const session = await TestSession.create({
        root: p.dir,
        testCommand: 'npx mocha',
        exec: p.exec,
        redactor: new Redactor(),
        changedFiles: async () => ['src/math.js'],
        listFiles: async () => ['src/math.js', ...MOCHA_FILES],
      });
      const baseline = await session.runBaseline();
      expect(failingIds(baseline)).toEqual(['broken setup > "before all" hook for "queries"', 'math > subtracts']);
      const files = await session.runFiles(['test/math.test.js'], 'proof-after');
      expect(files!.structured).toBe(true);
      expect(statuses(files!)).toEqual(['failed math > subtracts', 'passed math > adds', 'skipped math > multiplies']);
      expect(session.commands.at(-1)!.command).toBe('npx mocha test/math.test.js');
      // Inside the loop: the files of the baseline failures (both still failing: the feedback, no gate).
      const { run: loop } = await session.runForLoop();
      expect(loop.scope).toBe('related');
      expect(session.commands.at(-1)!.command).toBe('npx mocha test/broken.test.js test/math.test.js');
      expect(statuses(loop)).toEqual(['failed broken setup > "before all" hook for "queries"', 'failed math > subtracts', 'passed math > adds', 'skipped math > multiplies']);
      await session.dispose();
    } finally {
      p.cleanup();
    }
  });

  // A setup file the tests need (a `require` hook), a timeout and a ui of the configuration: kept in the selected runs.
  const SETUP = "globalThis.FIXTURE_SETUP = 'ran';\n";
  const SEES_SETUP = `
describe('setup', () => {
  it('ran before the tests', function () {
    require('assert').strictEqual(globalThis.FIXTURE_SETUP, 'ran');
    require('assert').strictEqual(this.timeout(), 4321);
  });
});
`;
  const OPTIONS = { spec: ['test/**/*.test.js'], require: ['test/support/setup.js'], timeout: 4321, ui: 'bdd', reporter: 'dot' };
  const configs: { name: string; files: Record<string, string>; executed: RegExp }[] = [
    { name: '.mocharc.json', files: { '.mocharc.json': JSON.stringify(OPTIONS) }, executed: /^npm test -- test\/setup\.test\.js test\/broken\.test\.js test\/math\.test\.js --config \S+agent-fix-mocharc\.json --reporter / },
    {
      name: '.mocharc.yml',
      files: { '.mocharc.yml': 'spec: "test/**/*.test.js"\nrequire:\n  - test/support/setup.js\ntimeout: 4321\nui: bdd\nreporter: dot\n' },
      executed: /^npm test -- test\/setup\.test\.js test\/broken\.test\.js test\/math\.test\.js --config \S+agent-fix-mocharc\.json --reporter /,
    },
    {
      name: '.mocharc.jsonc',
      files: { '.mocharc.jsonc': `// the project's options\n{\n  "spec": "test/**/*.test.js", /* every test file */\n  "require": "test/support/setup.js",\n  "timeout": 4321\n}\n` },
      executed: /^npm test -- test\/setup\.test\.js test\/broken\.test\.js test\/math\.test\.js --config \S+agent-fix-mocharc\.json --reporter /,
    },
    {
      name: '.mocharc.js (loaded by mocha through a wrapper of ours)',
      files: { '.mocharc.js': `const path = require('path');\nmodule.exports = { spec: ['test/**/*.test.js'], require: [path.join(__dirname, 'test/support/setup.js')], timeout: 4321 };\n` },
      executed: /^npm test -- test\/setup\.test\.js test\/broken\.test\.js test\/math\.test\.js --config \S+agent-fix-mocharc\.cjs --reporter /,
    },
    {
      name: 'package.json mocha.spec',
      files: { 'package.json': JSON.stringify({ name: 'fx-mocha', private: true, scripts: { test: 'mocha' }, mocha: { spec: 'test/*.test.js', require: 'test/support/setup.js', timeout: 4321 } }) },
      executed: /^npm test -- test\/setup\.test\.js test\/broken\.test\.js test\/math\.test\.js --package \S+agent-fix-mocha-package\.json --reporter /,
    },
    {
      name: "a script `mocha 'test/*.test.js'`",
      files: { 'package.json': JSON.stringify({ name: 'fx-mocha', private: true, scripts: { test: "mocha -r test/support/setup.js --timeout 4321 'test/*.test.js'" } }) },
      executed: /^npx --no-install mocha -r test\/support\/setup\.js --timeout 4321 test\/setup\.test\.js test\/broken\.test\.js test\/math\.test\.js --reporter /,
    },
  ];
  test.each(configs)('spec files named by $name: the selected run executes only the given files, with the other options', async ({ files, executed }) => {
    const p = makeStackProject('mocha');
    try {
      mkdirSync(path.join(p.dir, 'test/support'));
      writeFileSync(path.join(p.dir, 'test/support/setup.js'), SETUP);
      writeFileSync(path.join(p.dir, 'test/setup.test.js'), SEES_SETUP);
      for (const [name, text] of Object.entries(files)) writeFileSync(path.join(p.dir, name), text);
      const all = ['src/math.js', ...MOCHA_FILES, 'test/setup.test.js', 'test/support/setup.js'];
      const session = await TestSession.create({ root: p.dir, testCommand: 'npm test', exec: p.exec, redactor: new Redactor(), changedFiles: async () => ['test/setup.test.js'], listFiles: async () => all });
      const full = await session.runBaseline();
      expect(full.structured).toBe(true);
      expect(statuses(full)).toEqual([
        'failed broken setup > "before all" hook for "queries"',
        'failed math > subtracts',
        'passed flaky > sometimes',
        'passed math > adds',
        'passed setup > ran before the tests',
        'skipped math > multiplies',
      ]);
      // The proof's run: only the given file, and the hook still ran (the setup test would fail without it).
      const one = await session.runFiles(['test/setup.test.js'], 'proof-after');
      expect(one!.structured).toBe(true);
      expect(statuses(one!)).toEqual(['passed setup > ran before the tests']);
      expect(session.commands.at(-1)!.command).toMatch(/^(?:npm test -- |npx --no-install mocha -r test\/support\/setup\.js --timeout 4321 )test\/setup\.test\.js$/);
      // The loop: the changed test file and those of the baseline's failures (broken, math), nothing else (not flaky).
      const { run: loop } = await session.runForLoop();
      expect(loop.scope).toBe('related');
      expect(session.commands.at(-1)!.purpose).toBe('related');
      expect(loop.executed).toMatch(executed);
      expect(statuses(loop)).toEqual([
        'failed broken setup > "before all" hook for "queries"',
        'failed math > subtracts',
        'passed math > adds',
        'passed setup > ran before the tests',
        'skipped math > multiplies',
      ]);
      // The same ids as the full run.
      const ids = new Set(full.tests.map((t) => t.id));
      expect(loop.tests.every((t) => ids.has(t.id))).toBe(true);
      await session.dispose();
    } finally {
      p.cleanup();
    }
  });
});

describe('a command that already writes its own JSON report (jest --json --outputFile, vitest --reporter=json --outputFile)', () => {
  const cases = [
    { stack: 'jest' as const, command: 'npx --no-install jest --json --outputFile=.jest-result.json', related: /^npx --no-install jest --findRelatedTests src\/math\.js (?:test\/(?:math|broken)\.test\.js ){2}--passWithNoTests --json --outputFile=\S+report-\d+\.json$/ },
    { stack: 'vitest' as const, command: 'npx --no-install vitest run --reporter=json --outputFile=.jest-result.json', related: /^npx --no-install vitest related --run src\/math\.js (?:test\/(?:math|broken)\.test\.js ){2}--passWithNoTests --reporter=default --reporter=json --outputFile\.json=\S+report-\d+\.json$/ },
  ];
  test.each(cases)('$stack: its file is read (never deleted, never stale), and the runs the harness composes use their own', async ({ stack, command, related }) => {
    const missing = unavailable(stack);
    if (missing) return console.warn(`[stacks.test] ${stack} skipped: ${missing}`);
    const p = makeStackProject(stack);
    try {
      const files = ['src/math.js', 'test/math.test.js', 'test/broken.test.js', 'test/flaky.test.js'];
      const session = await TestSession.create({ root: p.dir, testCommand: command, exec: p.exec, redactor: new Redactor(), changedFiles: async () => ['src/math.js'], listFiles: async () => files });
      const run = await session.runFull('baseline');
      expect(run.structured).toBe(true);
      expect(run.executed).toBe(command); // the command as given: no second output file
      expect(failingIds(run)).toEqual(EXPECT[stack].failing);
      // A report left by an earlier run is not read when this run does not write one (here: a missing config file).
      const report = path.join(p.dir, '.jest-result.json');
      const stale = readFileSync(report, 'utf8');
      const broken = await TestSession.create({ root: p.dir, testCommand: `${command} --config=missing.config.js`, exec: p.exec, redactor: new Redactor() });
      const failedToStart = await broken.runFull('baseline');
      expect(failedToStart.succeeded).toBe(false);
      expect(failedToStart.structured).toBeFalsy();
      expect(failedToStart.tests).toEqual([]);
      expect(readFileSync(report, 'utf8')).toBe(stale);
      await broken.dispose();
      // The related run carries only our output file (a runner takes one).
      session.useBaseline(run);
      writeFileSync(path.join(p.dir, 'src/math.js'), readFileSync(path.join(p.dir, 'src/math.js'), 'utf8').replace('a - b', 'a - b + 1'));
      const { run: loop } = await session.runForLoop();
      expect(loop.scope).toBe('related');
      expect(loop.executed).toMatch(related);
      expect(loop.structured).toBe(true);
      await session.dispose();
    } finally {
      p.cleanup();
    }
  });
});
