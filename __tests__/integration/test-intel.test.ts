import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RunReport } from '../../src/fix/types.js';
import type { TestCase, TestRun, TestStatus } from '../../src/verify/types.js';
import { testRun } from '../../test-support/builders.js';
import { goJsonToText, parseGoJson } from '../../src/verify/runners/go.js';
import { parseJestJson } from '../../src/verify/runners/jest.js';
import { parseJUnit } from '../../src/verify/runners/junit.js';
import { parseMochaJsonl } from '../../src/verify/runners/mocha.js';
import { firstRepoFrame } from '../../src/verify/runners/report.js';
import { displayCommand, identifyRunner, ownReportFile, parseStructured, planFiles, planRelated, planStructured } from '../../src/verify/runners/index.js';
import { reconcile, describeConsistency } from '../../src/verify/reconcile.js';
import type { MochaConfig } from '../../src/verify/runners/mocha-config.js';
import type { SupportFile } from '../../src/verify/runners/runner.js';

/** A support file's content: written from text, or copied from a file shipped with agent-fix (the mocha reporter). */
const supportText = (file: SupportFile): string => ('text' in file ? file.text : readFileSync(file.copyOf, 'utf8'));
import { compareRuns } from '../../src/verify/compare.js';
import { packFeedback, stripNoise, estimateTokens } from '../../src/verify/feedback.js';
import { differingTests } from '../../src/verify/session.js';
import { judgeProof } from '../../src/verify/proof.js';
import { renderTestSection } from '../../src/report/test-table.js';
import { renderPrBody, renderTerminal } from '../../src/report/render.js';

const DIR = path.join(process.cwd(), '__tests__', 'fixtures', 'verify', 'structured');
const read = (f: string) => readFileSync(path.join(DIR, f), 'utf8');
const ROOT = '/home/runner/work/fx';
const failing = (tests: TestCase[]) => tests.filter((t) => t.status === 'failed').map((t) => t.id).sort();

function run(exitCode: number | null, tests: Record<string, TestStatus>, over: Partial<TestRun> = {}): TestRun {
  return testRun(exitCode, tests, { durationMs: 10, succeeded: exitCode === 0, ...over });
}

describe('structured parsers on captured reports', () => {
  test('jest --json: every test, load errors, in-repo frames, durations', () => {
    const r = parseJestJson(read('jest.json'), ROOT)!;
    expect(failing(r.tests)).toEqual(['test/broken.test.js', 'test/math.test.js > math > subtracts']);
    expect(r.loadErrors).toEqual(['test/broken.test.js']);
    expect(r.totals).toEqual({ passed: 2, failed: 2, skipped: 1 });
    const sub = r.tests.find((t) => t.id.endsWith('subtracts'))!;
    expect(sub.frame).toBe('test/math.test.js:4:47');
    expect(sub.details).toContain('Expected: 3');
    expect(sub.details).toContain('Received: 2');
    expect(sub.file).toBe('test/math.test.js');
    expect(typeof sub.durationMs).toBe('number');
    expect(r.tests.find((t) => t.id === 'test/broken.test.js')!.message).toMatch(/failed to run|Cannot find module/);
  });

  test('vitest JSON reporter (jest-compatible shape)', () => {
    const r = parseJestJson(read('vitest.json'), ROOT)!;
    expect(failing(r.tests)).toEqual(['test/broken.test.js', 'test/math.test.js > math > subtracts']);
    expect(r.loadErrors).toEqual(['test/broken.test.js']);
    expect(r.tests.find((t) => t.id.endsWith('subtracts'))!.message).toContain('expected 2 to be 3');
  });

  test('node test runner JUnit: nested suites, file-level failure as a load error', () => {
    const r = parseJUnit(read('node-junit.xml'), ROOT)!;
    expect(failing(r.tests)).toEqual(['math > subtracts', 'test/broken.test.js']);
    expect(r.loadErrors).toEqual(['test/broken.test.js']);
    expect(r.tests.map((t) => t.id)).toContain('sometimes');
    expect(r.tests.find((t) => t.id === 'math > multiplies')!.status).toBe('skipped');
    expect(r.tests.find((t) => t.id === 'math > subtracts')!.frame).toBe('test/math.test.js:6:36');
  });

  test('pytest JUnit (xunit1): node ids with classes, setup errors, skips', () => {
    const r = parseJUnit(read('pytest-junit.xml'), ROOT, 'pytest')!;
    expect(failing(r.tests)).toEqual(['tests/test_broken.py::test_queries', 'tests/test_math.py::test_subtracts']);
    expect(r.tests.map((t) => t.id)).toContain('tests/test_math.py::TestMore::test_add_zero');
    expect(r.tests.find((t) => t.id.endsWith('test_multiplies'))!.status).toBe('skipped');
    expect(r.tests.find((t) => t.id.endsWith('test_subtracts'))!.frame).toBe('tests/test_math.py:10');
  });

  test('pytest JUnit: a collection error is a load error; classes without a file attribute', () => {
    const xml = `<?xml version="1.0"?><testsuites><testsuite name="pytest" errors="1">
      <testcase classname="" name="tests.test_broken" time="0.000"><error message="collection failure">ImportError: No module named calc.missing</error></testcase>
      <testcase classname="tests.test_a.TestX" name="test_y[1-2]" time="0.010"/>
    </testsuite></testsuites>`;
    const r = parseJUnit(xml, ROOT, 'pytest')!;
    expect(r.loadErrors).toEqual(['tests/test_broken.py']);
    expect(r.tests.map((t) => t.id)).toEqual(['tests/test_broken.py', 'tests/test_a.py::TestX::test_y[1-2]']);
  });

  test('go test -json: leaves only, build failure from the plain lines, output text', () => {
    const r = parseGoJson(`${read('go.jsonl')}\n${read('go-stderr.txt')}`, ROOT)!;
    expect(failing(r.tests)).toEqual(['example.com/fx/broken', 'example.com/fx/calc > TestSub']);
    expect(r.loadErrors).toEqual(['example.com/fx/broken']);
    expect(r.tests.map((t) => t.id)).not.toContain('example.com/fx/calc > TestTable');
    expect(r.tests.find((t) => t.id.endsWith('TestTable/skipped'))!.status).toBe('skipped');
    expect(r.tests.find((t) => t.id === 'example.com/fx/broken')!.details).toContain('undefined: Divide');
    expect(goJsonToText(read('go.jsonl'))).toContain('--- FAIL: TestSub');
  });

  test('garbage is not a report', () => {
    expect(parseJestJson('not json', ROOT)).toBeNull();
    expect(parseJUnit('<html></html>', ROOT)).toBeNull();
    expect(parseGoJson('', ROOT)).toBeNull();
  });

  test('first in-repo frame skips node_modules, node internals and paths outside the repo', () => {
    const stack = [
      'Error: boom',
      '    at fn (/home/runner/work/fx/node_modules/lib/index.js:1:1)',
      '    at node:internal/process/task_queues:95:5',
      '    at other (/usr/lib/x.js:3:3)',
      '    at Object.<anonymous> (/home/runner/work/fx/src/a.js:12:5)',
    ].join('\n');
    expect(firstRepoFrame(stack, ROOT)).toBe('src/a.js:12:5');
    expect(firstRepoFrame('tests/test_a.py:33: AssertionError', ROOT)).toBe('tests/test_a.py:33');
  });
});

describe('runner plans', () => {
  test('identifies the runner behind a package script or a direct command', () => {
    expect(identifyRunner('npm test', 'jest --ci')).toEqual({ runner: 'jest', base: 'npm test --', invocation: 'jest --ci' });
    expect(identifyRunner('yarn test', 'vitest run')).toMatchObject({ runner: 'vitest', base: 'yarn test' });
    expect(identifyRunner('npm test', 'tsc && jest')).toMatchObject({ runner: 'jest', base: null });
    expect(identifyRunner('npx jest', null)).toMatchObject({ runner: 'jest', base: 'npx jest' });
    expect(identifyRunner('python -m pytest -q', null).runner).toBe('pytest');
    expect(identifyRunner('go test ./...', null).runner).toBe('go');
    expect(identifyRunner('cargo test', null).runner).toBe('cargo');
    expect(identifyRunner('make test', null).runner).toBe('make');
    expect(identifyRunner('npm test', 'node --test').runner).toBe('node-test');
    expect(identifyRunner('npm test', 'NODE_ENV=test mocha').runner).toBe('mocha');
  });

  test('structured output through a file of ours, without touching the user configuration', () => {
    const f = '/tmp/r.json';
    expect(planStructured('npm test', identifyRunner('npm test', 'jest'), f).command).toBe('npm test -- --json --outputFile=/tmp/r.json');
    expect(planStructured('npm test', identifyRunner('npm test', 'vitest run'), f).command).toBe('npm test -- --reporter=default --reporter=json --outputFile.json=/tmp/r.json');
    expect(planStructured('pytest', identifyRunner('pytest', null), f).command).toBe('pytest --junitxml=/tmp/r.json -o junit_family=xunit1');
    expect(planStructured('go test ./...', identifyRunner('go test ./...', null), f).command).toBe('go test -json ./... > /tmp/r.json');
    expect(planStructured('node --test', identifyRunner('node --test', null), f).command).toMatch(/^node --test-reporter=spec .*--test-reporter=junit --test-reporter-destination=\/tmp\/r.json --test$/);
    // Not safely extendable: the plain command, parsed from its output.
    for (const [cmd, script] of [['npm test', 'tsc && jest'], ['npm test', 'tsc && mocha'], ['cargo test', null], ['make test', null]] as const) {
      const p = planStructured(cmd, identifyRunner(cmd, script), f);
      expect(p.command).toBe(cmd);
      expect(p.reportFile).toBeUndefined();
    }
  });

  test("a command that already writes a JSON report: that file is read, and the harness's own runs replace its flags", () => {
    const f = '/tmp/r.json';
    expect(ownReportFile('jest', 'npx jest --coverage=false --json --outputFile=.jest-result.json test/a.test.js')).toBe('.jest-result.json');
    expect(ownReportFile('jest', "jest --json --outputFile 'out dir/r.json'")).toBe('out dir/r.json');
    expect(ownReportFile('vitest', 'npx vitest run --reporter=json --outputFile=.jest-result.json test/base.test.ts')).toBe('.jest-result.json');
    expect(ownReportFile('vitest', 'vitest run --reporter=default --reporter=json --outputFile.json=r.json')).toBe('r.json');
    // not a JSON report of the whole run: our flags are used
    expect(ownReportFile('jest', 'jest --outputFile=x.json')).toBeNull();
    expect(ownReportFile('vitest', 'vitest run --reporter=junit --outputFile=x.xml')).toBeNull();
    expect(ownReportFile('vitest', 'vitest run --reporter=json --reporter=junit --outputFile=x')).toBeNull();
    expect(ownReportFile('jest', 'tsc && jest --json --outputFile=x.json')).toBeNull();
    const cmd = 'npx jest --coverage=false --json --outputFile=.jest-result.json';
    const info = identifyRunner(cmd, null);
    expect(planStructured(cmd, info, f)).toMatchObject({ command: cmd, reportFile: '.jest-result.json', ownReport: true, format: 'jest-json' });
    expect(planRelated(info, ['src/a.js'], [], f)!.command).toBe('npx jest --coverage=false --findRelatedTests src/a.js --passWithNoTests --json --outputFile=/tmp/r.json');
    expect(planFiles(info, ['test/a.test.js'], f)!.command).toBe('npx jest --coverage=false --runTestsByPath test/a.test.js --json --outputFile=/tmp/r.json');
    // through a package script the flags cannot be removed: no composed runs
    const script = identifyRunner('npm test', 'jest --json --outputFile=out.json');
    expect(planStructured('npm test', script, f)).toMatchObject({ command: 'npm test', reportFile: 'out.json', ownReport: true });
    expect(planRelated(script, ['src/a.js'], [], f)).toBeNull();
  });

  test('related tests: jest --findRelatedTests, vitest related, pytest test modules, go packages', () => {
    const f = '/tmp/r';
    expect(planRelated(identifyRunner('npm test', 'jest'), ['src/a.ts', 'README.md'], [], f)!.command).toBe(
      'npm test -- --findRelatedTests src/a.ts --passWithNoTests --json --outputFile=/tmp/r',
    );
    expect(planRelated(identifyRunner('npm test', 'vitest run'), ['src/a.ts'], [], f)!.command).toMatch(/^npx --no-install vitest related --run src\/a.ts /);
    // a script with options: the related run keeps configuration options and drops the full run's (coverage)
    const covered = planRelated(identifyRunner('npm test', 'vitest run --coverage'), ['src/a.ts'], [], f)!.command;
    expect(covered).toMatch(/^npx --no-install vitest related --run src\/a.ts /);
    expect(covered).not.toContain('--coverage');
    const py = planRelated(identifyRunner('python -m pytest', null), ['calc/math.py'], ['tests/test_math.py', 'tests/test_other.py'], f)!;
    expect(py.command).toBe('python -m pytest tests/test_math.py --junitxml=/tmp/r -o junit_family=xunit1');
    expect(planRelated(identifyRunner('python -m pytest tests/unit', null), ['calc/math.py'], ['tests/test_math.py'], f)).toBeNull();
    expect(planRelated(identifyRunner('go test ./...', null), ['calc/calc.go', 'main.go'], [], f)!.command).toBe('go test -json ./calc . > /tmp/r');
    // mocha cannot find related tests itself: no test file in the selection, no plan (the session tries files named after the sources).
    expect(planRelated(identifyRunner('npm test', 'mocha'), ['src/a.js'], [], f)).toBeNull();
    // A compound script: the full command stays the script, related tests go through the runner itself.
    const compound = identifyRunner('npm test', 'TZ=UTC npm run test-tz && jest');
    expect(compound).toMatchObject({ runner: 'jest', base: null, direct: 'npx --no-install jest' });
    // variables set for the runner stay in front of it
    expect(identifyRunner('npm test', 'tsc && NODE_ENV=test TZ=UTC jest --ci').direct).toBe('NODE_ENV=test TZ=UTC npx --no-install jest --ci');
    expect(identifyRunner('pnpm test', 'tsc && NODE_ENV=test vitest run').direct).toBe('NODE_ENV=test pnpm exec vitest run');
    expect(planStructured('npm test', compound, f).command).toBe('npm test');
    expect(planRelated(compound, ['src/a.js'], [], f)!.command).toBe('npx --no-install jest --findRelatedTests src/a.js --passWithNoTests --json --outputFile=/tmp/r');
    expect(planRelated(identifyRunner('npm test', 'jest'), ['docs/a.md'], [], f)).toBeNull();
  });

  test('the report shows commands without our reporter plumbing', () => {
    const f = '/tmp/agent-fix-tests-x/report-1.json';
    for (const [cmd, script] of [['npm test', 'jest'], ['npm test', 'vitest run'], ['python -m pytest', null], ['go test ./...', null], ['node --test', null], ['npm test', 'mocha'], ['npx mocha --recursive', null]] as const) {
      expect(displayCommand(planStructured(cmd, identifyRunner(cmd, script), f).command)).toBe(cmd);
    }
    expect(displayCommand(planRelated(identifyRunner('npm test', 'jest'), ['src/a.js'], [], f)!.command)).toBe('npm test -- --findRelatedTests src/a.js --passWithNoTests');
  });

  test('selected test files for the proof', () => {
    expect(planFiles(identifyRunner('npm test', 'jest'), ['test/a.test.js'], '/tmp/r')!.command).toBe('npm test -- --runTestsByPath test/a.test.js --json --outputFile=/tmp/r');
    expect(planFiles(identifyRunner('npm test', 'mocha'), ['test/a.test.js'], '/tmp/r')!.command).toBe(
      'npm test -- test/a.test.js --reporter /tmp/agent-fix-mocha-reporter.cjs --reporter-option agentFixOutput=/tmp/r',
    );
  });
});

describe('mocha: our reporter, selection of files', () => {
  const f = '/tmp/agent-fix-tests-x/report-1.jsonl';
  const reporter = '/tmp/agent-fix-tests-x/agent-fix-mocha-reporter.cjs';
  const ours = `--reporter ${reporter} --reporter-option agentFixOutput=${f}`;

  test('structured: our reporter appended to a direct call or to a script that is exactly mocha', () => {
    for (const [cmd, script, expected] of [
      ['npm test', 'mocha', `npm test -- ${ours}`],
      ['yarn test', 'mocha --recursive', `yarn test ${ours}`],
      ['pnpm test', 'NODE_ENV=test mocha -r ts-node/register', `pnpm test -- ${ours}`],
      ['npx mocha', null, `npx mocha ${ours}`],
      ['npx --no-install mocha test/unit', null, `npx --no-install mocha test/unit ${ours}`],
      ['./node_modules/.bin/mocha --timeout 5000', null, `./node_modules/.bin/mocha --timeout 5000 ${ours}`],
      // mocha takes the last --reporter: the user's reporter is replaced for our runs only.
      ['mocha -R dot', null, `mocha -R dot ${ours}`],
    ] as const) {
      const plan = planStructured(cmd, identifyRunner(cmd, script), f);
      expect(plan.command).toBe(expected);
      expect(plan).toMatchObject({ reportFile: f, format: 'mocha-jsonl', parsedFrom: 'mocha', support: [{ path: reporter }] });
      expect(supportText(plan.support![0])).toContain("runner.on('fail'");
      expect(displayCommand(plan.command)).toBe(cmd);
    }
    // A compound script or one mocha cannot be appended to: the plain command.
    for (const [cmd, script] of [['npm test', 'tsc && mocha'], ['npm test', 'mocha | tee out.txt'], ['mocha && eslint .', null]] as const) {
      const plan = planStructured(cmd, identifyRunner(cmd, script), f);
      expect(plan.command).toBe(cmd);
      expect(plan.reportFile).toBeUndefined();
      expect(plan.support).toBeUndefined();
    }
  });

  test('files: appended when the invocation names no spec files, only files the full command runs', () => {
    expect(planFiles(identifyRunner('npx mocha --recursive -r ts-node/register --timeout=5000', null), ['test/a.test.js', 'test/b c.test.js'], f)!.command).toBe(
      `npx mocha --recursive -r ts-node/register --timeout=5000 test/a.test.js 'test/b c.test.js' ${ours}`,
    );
    // `-r ts-node/register` takes a value: it is not a file of the invocation.
    expect(planFiles(identifyRunner('npm test', 'mocha -r ts-node/register'), ['test/a.test.js'], f)!.command).toBe(`npm test -- test/a.test.js ${ours}`);
    // mocha's default spec is `test` (not recursive, .js/.cjs/.mjs): other files are not run by the full command.
    expect(planFiles(identifyRunner('npx mocha', null), ['test/a.test.js', 'test/unit/b.test.js', 'test/c.test.ts', 'lib/d.spec.js'], f)!.command).toBe(`npx mocha test/a.test.js ${ours}`);
    expect(planFiles(identifyRunner('npx mocha --recursive', null), ['test/unit/b.test.js', 'test/.hidden.test.js'], f)!.command).toBe(`npx mocha --recursive test/unit/b.test.js ${ours}`);
    expect(planFiles(identifyRunner('npx mocha', null), ['lib/d.spec.js'], f)).toBeNull();
    // A compound script: through mocha itself.
    expect(planFiles(identifyRunner('npm test', 'tsc && mocha'), ['test/a.test.js'], f)!.command).toBe(`npx --no-install mocha test/a.test.js ${ours}`);
  });

  test('files: spec files of the invocation are replaced by the selection, when it can be taken apart safely', () => {
    const files = ['test/a.test.js', 'test/unit/b.spec.js', 'lib/c.test.js'];
    for (const [cmd, script, expected] of [
      // A direct call: rebuilt word by word, options and their values kept, the specs replaced.
      ['npx mocha "test/**/*.spec.js"', null, `npx mocha test/unit/b.spec.js ${ours}`],
      ["npx mocha --timeout 5000 'test/**/*.{test,spec}.js' -r ./test/setup.js", null, `npx mocha --timeout 5000 -r ./test/setup.js test/a.test.js test/unit/b.spec.js ${ours}`],
      ['mocha --recursive test', null, `mocha --recursive test/a.test.js test/unit/b.spec.js ${ours}`],
      ['mocha test lib', null, `mocha test/a.test.js lib/c.test.js ${ours}`],
      ['NODE_ENV=test ./node_modules/.bin/mocha --spec=lib/c.test.js --exit', null, `NODE_ENV=test ./node_modules/.bin/mocha --exit lib/c.test.js ${ours}`],
      // A package script that names spec files: mocha through the package manager, with the script's environment.
      ['npm test', "NODE_ENV=test mocha 'test/*.test.js'", `NODE_ENV=test npx --no-install mocha test/a.test.js ${ours}`],
      ['pnpm test', 'mocha --recursive test/unit', `pnpm exec mocha --recursive test/unit/b.spec.js ${ours}`],
      ['yarn test', 'npx mocha test/a.test.js', `yarn exec mocha test/a.test.js ${ours}`],
    ] as const) {
      const plan = planFiles(identifyRunner(cmd, script), files, f)!;
      expect(plan.command).toBe(expected);
      expect(plan.support!.map((x) => x.path)).toEqual([reporter]);
    }
    // None of the files is run by the full command: no selection (the full command runs).
    expect(planFiles(identifyRunner('npx mocha "test/**/*.spec.js"', null), ['test/a.test.js'], f)).toBeNull();
    // Invocations that cannot be taken apart safely.
    for (const [cmd, script] of [
      ['npx mocha --config .mocharc.ci.js', null],
      ['npx mocha --package ci/package.json', null],
      ['npx mocha --no-config test', null],
      ['npx mocha -- test', null],
      ['npx mocha -bR dot test', null], // bundled short flags
      ['npx mocha --loader ts-node/esm test', null], // unknown option: `ts-node/esm` may be its value
      ['npx mocha test/\\*.js', null], // an escape
      ['npx mocha "test/+(a|b).js"', null], // extglob
      ['npx mocha /abs/test', null],
      ['npm test', 'cross-env NODE_ENV=test mocha test'],
    ] as const) {
      expect(planFiles(identifyRunner(cmd, script), files, f)).toBeNull();
    }
  });

  test('files: spec and ignore globs are read as mocha\'s glob reads them (picomatch)', () => {
    const files = ['test/unit/a1.test.js', 'test/unit/a2.test.js', 'test/unit/a9.test.js', 'test/e2e/x.test.js', 'test/.tmp/y.test.js', 'src/z.test.js'];
    const cmd = (spec: string) => planFiles(identifyRunner(`npx mocha '${spec}'`, null), files, f)?.command;
    // nested braces and numeric ranges
    expect(cmd('test/{unit/a{1..2},e2e/x}.test.js')).toBe(`npx mocha test/unit/a1.test.js test/unit/a2.test.js test/e2e/x.test.js ${ours}`);
    // `**` spans directories but never hidden ones; `[…]` classes and `?`
    expect(cmd('test/**/*.test.js')).toBe(`npx mocha test/unit/a1.test.js test/unit/a2.test.js test/unit/a9.test.js test/e2e/x.test.js ${ours}`);
    expect(cmd('test/unit/a[!2].test.js')).toBe(`npx mocha test/unit/a1.test.js test/unit/a9.test.js ${ours}`);
    expect(cmd('test/*/a?.test.js')).toBe(`npx mocha test/unit/a1.test.js test/unit/a2.test.js test/unit/a9.test.js ${ours}`);
    // unbalanced brackets or braces cannot be judged: no selection
    expect(cmd('test/unit/a[12.test.js')).toBeUndefined();
    expect(cmd('test/{unit/a1.test.js')).toBeUndefined();
    // ignore globs from the configuration
    const ignored = planFiles({ ...identifyRunner('npx mocha', null), mochaConfig: { file: '.mocharc.json', options: { spec: ['test/**/*.test.js'], ignore: ['test/unit/**', './test/e2e/*.js'] } } }, files, f);
    expect(ignored).toBeNull();
    const some = planFiles({ ...identifyRunner('npx mocha', null), mochaConfig: { file: '.mocharc.json', options: { spec: ['test/**/*.test.js'], ignore: ['test/unit/a{1,2}.*'] } } }, files, f)!;
    expect(some.command.split(' ').slice(0, 4)).toEqual(['npx', 'mocha', 'test/unit/a9.test.js', 'test/e2e/x.test.js']);
  });

  test('files: a configuration that names spec files is replaced by one of ours without them, everything else kept', () => {
    const info = (cmd: string, script: string | null, mochaConfig: MochaConfig) => ({ ...identifyRunner(cmd, script), mochaConfig });
    const rc = { spec: ['test/**/*.spec.js'], require: ['test/setup.js'], timeout: 4321, extension: ['js'], ui: 'bdd' };
    const plan = planFiles(info('npm test', 'mocha', { file: '.mocharc.json', options: rc }), ['test/unit/b.spec.js', 'test/a.test.js'], f)!;
    const config = '/tmp/agent-fix-tests-x/agent-fix-mocharc.json';
    expect(plan.command).toBe(`npm test -- test/unit/b.spec.js --config ${config} ${ours}`);
    expect(plan.support!.map((x) => x.path)).toEqual([reporter, config]);
    expect(JSON.parse(supportText(plan.support![1]))).toEqual({ require: ['test/setup.js'], timeout: 4321, extension: ['js'], ui: 'bdd' });
    expect(displayCommand(plan.command)).toBe('npm test -- test/unit/b.spec.js');
    // No spec in the configuration: it stays the project's (its extension and recursive still decide which files count).
    const plain = planFiles(info('npx mocha', null, { file: '.mocharc.yml', options: { extension: ['cjs'], recursive: true } }), ['test/a/b.test.cjs', 'test/c.test.js'], f)!;
    expect(plain.command).toBe(`npx mocha test/a/b.test.cjs ${ours}`);
    // Positional `_` counts as spec too; `ignore` drops files.
    const ignored = planFiles(info('npx mocha', null, { file: '.mocharc.json', options: { _: ['test'], ignore: ['test/slow.test.js'] } }), ['test/slow.test.js', 'test/a.test.js'], f)!;
    expect(ignored.command).toBe(`npx mocha test/a.test.js --config ${config} ${ours}`);
    expect(JSON.parse(supportText(ignored.support![1]))).toEqual({ ignore: ['test/slow.test.js'] });
    // package.json's `mocha` field: a package file of ours without the spec (mocha merges it with the .mocharc as usual).
    const pkgPlan = planFiles(info('npm test', 'mocha', { pkg: { spec: 'spec/*.js', require: 'spec/helper.js' } }), ['spec/a.js', 'test/b.js'], f)!;
    const pkgFile = '/tmp/agent-fix-tests-x/agent-fix-mocha-package.json';
    expect(pkgPlan.command).toBe(`npm test -- spec/a.js --package ${pkgFile} ${ours}`);
    expect(JSON.parse(supportText(pkgPlan.support![1]))).toEqual({ mocha: { require: 'spec/helper.js' } });
    expect(displayCommand(pkgPlan.command)).toBe('npm test -- spec/a.js');
    // Both, and spec files of the invocation too: the union decides which files count.
    const both = planFiles(info('npx mocha test/x.test.js', null, { file: '.mocharc.json', options: { spec: 'test/unit' }, pkg: { spec: 'spec/*.js' } }), ['test/unit/u.js', 'spec/s.js', 'test/x.test.js', 'test/y.test.js'], f)!;
    expect(both.command).toBe(`npx mocha test/unit/u.js spec/s.js test/x.test.js --config ${config} --package ${pkgFile} ${ours}`);
  });

  test('files: a JS configuration is loaded by mocha itself, through a wrapper of ours that drops its spec', () => {
    const info = (cmd: string, mochaConfig: MochaConfig) => ({ ...identifyRunner(cmd, null), mochaConfig });
    const plan = planFiles(info('npx mocha', { file: '.mocharc.js', jsSpec: true }), ['test/a.test.js', 'lib/b.test.js'], f)!;
    const wrapper = '/tmp/agent-fix-tests-x/agent-fix-mocharc.cjs';
    // Its spec is unknown here: the files are run as given.
    expect(plan.command).toBe(`npx mocha test/a.test.js lib/b.test.js --config ${wrapper} ${ours}`);
    expect(supportText(plan.support![1])).toContain(`require(require('path').resolve(".mocharc.js"))`);
    expect(supportText(plan.support![1])).toContain('delete options.spec;');
    // No mention of spec: the project's file stays.
    expect(planFiles(info('npx mocha', { file: '.mocharc.cjs', jsSpec: false }), ['test/a.test.js'], f)!.command).toBe(`npx mocha test/a.test.js ${ours}`);
    // With spec files in the invocation, only globs and files are judged (a directory's files depend on the JS options).
    expect(planFiles(info("npx mocha 'test/*.test.js'", { file: '.mocharc.js', jsSpec: true }), ['test/a.test.js', 'lib/b.test.js'], f)!.command).toBe(
      `npx mocha test/a.test.js --config ${wrapper} ${ours}`,
    );
    expect(planFiles(info('npx mocha test', { file: '.mocharc.js', jsSpec: true }), ['test/a.test.js'], f)).toBeNull();
    // A configuration that cannot be used: no selection.
    expect(planFiles(info('npx mocha', { file: '.mocharc.mjs', unselectable: '.mocharc.mjs may set spec' }), ['test/a.test.js'], f)).toBeNull();
  });

  test('related: the test files among the selection (changed tests, files of the baseline failures) that the full command runs', () => {
    const info = identifyRunner('npm test', 'mocha');
    expect(planRelated(info, ['src/math.js', 'test/math.test.js', 'test/b.test.js', 'lib/x.spec.ts', 'README.md'], [], f)!.command).toBe(
      `npm test -- test/math.test.js test/b.test.js ${ours}`,
    );
    expect(planRelated(info, ['src/math.js', 'lib/contest.js'], [], f)).toBeNull();
    const spec = { ...identifyRunner('npm test', "mocha 'spec/**/*.spec.ts' -r ts-node/register"), mochaConfig: { file: '.mocharc.json', options: { extension: ['ts'] } } };
    expect(planRelated(spec, ['src/math.ts', 'spec/math.spec.ts', 'test/other.test.js'], [], f)!.command).toBe(
      `npx --no-install mocha -r ts-node/register spec/math.spec.ts ${ours}`,
    );
  });

  test('the report lines: spec ids, hooks, files, a test that passed and then failed', () => {
    const root = '/repo';
    const lines = [
      { type: 'hook', path: ['broken setup', '"before all" hook for "queries"'], state: 'failed', file: '/repo/test/broken.test.js', duration: 0, message: 'database not reachable', details: '     Error: database not reachable\n      at Context.<anonymous> (test/broken.test.js:3:24)\n      at process.processImmediate (node:internal/timers:483:21)' },
      { type: 'test', path: ['math', 'adds'], state: 'passed', file: '/repo/test/math.test.js', duration: 2 },
      { type: 'test', path: ['math', 'nested', 'subtracts'], state: 'failed', file: '/repo/test/math.test.js', duration: 1, message: 'Expected values to be strictly equal:\n\n2 !== 3\n', details: '     AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n2 !== 3\n\n      + expected - actual\n\n      -2\n      +3\n\n      at Context.<anonymous> (/repo/test/math.test.js:5:34)' },
      { type: 'test', path: ['math', 'multiplies'], state: 'skipped', file: '/repo/test/math.test.js' },
      { type: 'test', path: ['top level'], state: 'passed', file: '/repo/test/top.test.js', duration: 0 },
      { type: 'test', path: ['top level'], state: 'failed', file: '/repo/test/top.test.js', message: 'done() called multiple times', details: 'Error: done() called multiple times' },
      { type: 'end', passes: 2, failures: 3, pending: 1, duration: 9 },
    ];
    const r = parseMochaJsonl(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n{"type":"te`, root)!;
    expect(r.tests.map((t) => [t.id, t.status, t.file])).toEqual([
      ['broken setup > "before all" hook for "queries"', 'failed', 'test/broken.test.js'],
      ['math > adds', 'passed', 'test/math.test.js'],
      ['math > nested > subtracts', 'failed', 'test/math.test.js'],
      ['math > multiplies', 'skipped', 'test/math.test.js'],
      ['top level', 'failed', 'test/top.test.js'],
    ]);
    expect(r.totals).toEqual({ passed: 1, failed: 3, skipped: 1 });
    expect(r.loadErrors).toEqual([]);
    const sub = r.tests[2];
    expect(sub.message).toBe('Expected values to be strictly equal: 2 !== 3');
    expect(sub.details).toContain('+ expected - actual');
    expect(sub.frame).toBe('test/math.test.js:5:34');
    expect(r.tests[0].frame).toBe('test/broken.test.js:3:24');
    expect(parseStructured('mocha-jsonl', '', root)).toEqual({ tests: [], loadErrors: [], totals: { passed: 0, failed: 0, skipped: 0 } });
    expect(parseMochaJsonl('mocha: not a report', root)).toBeNull();
  });
});

describe('reconcile', () => {
  test('a non-zero exit with no failing test is a failure, and said so', () => {
    const r = reconcile(run(1, { a: 'passed' }));
    expect(r.succeeded).toBe(false);
    expect(r.consistency).toBe('exit-nonzero-without-failing-test');
    expect(describeConsistency(r)).toMatch(/no test failed/);
  });
  test('exit 0 with failing tests is reported; the exit code keeps deciding success, the comparison still counts the failure', () => {
    const r = reconcile(run(0, { a: 'failed' }));
    expect(r.consistency).toBe('exit-zero-with-failing-tests');
    expect(r.succeeded).toBe(true);
    expect(compareRuns(run(0, { a: 'passed' }), r).ok).toBe(false);
  });

  test('a failing todo test in node JUnit output is skipped, not failed', () => {
    const xml = '<testsuites><testcase name="later" classname="test" failure="not yet"><skipped type="todo" message="true"/><failure type="testCodeFailure" message="not yet">Error</failure></testcase></testsuites>';
    expect(parseJUnit(xml, ROOT)!.tests).toEqual([{ id: 'later', status: 'skipped', durationMs: undefined }].map(({ durationMs: _d, ...t }) => t));
  });
  test('consistent runs and runs without results', () => {
    expect(reconcile(run(1, { a: 'failed' })).consistency).toBe('consistent');
    expect(reconcile(run(0, { a: 'passed' })).succeeded).toBe(true);
    expect(reconcile(run(2, {}, { parsedFrom: 'none' })).consistency).toBe('no-results');
    expect(reconcile(run(1, {}, { structured: true })).consistency).toBe('exit-nonzero-without-failing-test');
    expect(reconcile(run(1, { 'x.test.js': 'failed' }, { loadErrors: ['x.test.js'], structured: true })).consistency).toBe('consistent');
  });
});

describe('baseline differential and flaky tests', () => {
  test('tests whose result differs between two runs of the same code', () => {
    expect(differingTests(run(1, { a: 'passed', b: 'failed', c: 'failed', d: 'skipped' }), run(1, { a: 'failed', b: 'failed', c: 'passed' }))).toEqual(['a', 'c']);
  });
  test('a flaky failure is neither newly failing nor blocking', () => {
    const baseline = run(1, { a: 'passed', f: 'passed', d: 'failed' }, { flaky: ['f'] });
    const v = compareRuns(baseline, reconcile(run(1, { a: 'passed', f: 'failed', d: 'passed' })));
    expect(v.newlyFailing).toEqual([]);
    expect(v.flaky).toEqual(['f']);
    expect(v.ok).toBe(true);
    expect(v.summary).toContain('1 flaky (not blocking)');
  });
  test('a real failure next to a flaky one still blocks', () => {
    const v = compareRuns(run(1, { a: 'passed', d: 'failed' }), reconcile(run(1, { a: 'failed', f: 'failed', d: 'passed' }, { flaky: ['f'] })));
    expect(v.newlyFailing).toEqual(['a']);
    expect(v.ok).toBe(false);
  });
  test('a crash is never excused by a flaky test', () => {
    const current = reconcile(run(1, { f: 'failed' }, { flaky: ['f'], loadErrors: ['x.test.js'] }));
    expect(compareRuns(run(0, { f: 'passed' }), current).ok).toBe(false);
  });
});

describe('concise feedback', () => {
  const details = (n: number) =>
    [
      `Error: expect(received).toEqual(expected) // deep equality`,
      '',
      '- Expected  - 1',
      '+ Received  + 1',
      '',
      `-   "total": ${n},`,
      `+   "total": ${n + 1},`,
      '',
      '    at Object.<anonymous> (/repo/node_modules/expect/build/index.js:10:10)',
      `    at Object.<anonymous> (/repo/test/cart.test.js:${n}:5)`,
      '    at node:internal/process/task_queues:95:5',
    ].join('\n');

  test('new, already failing and flaky failures are told apart; duplicates grouped; in budget', () => {
    const baseline = run(1, { 'cart > old': 'failed', 'cart > a': 'passed', flaky: 'passed' }, { flaky: ['flaky'] });
    const current = run(1, {}, { outputTail: `${'PASS test/x.test.js\n'.repeat(50)}Tests: 40 failed\n` });
    current.tests = [
      { id: 'cart > old', status: 'failed', message: 'old failure', details: 'Error: old failure' },
      { id: 'flaky', status: 'failed', message: 'timing' },
      ...Array.from({ length: 40 }, (_, i) => ({
        id: `cart > total ${i}`,
        status: 'failed' as const,
        message: 'expect(received).toEqual(expected) // deep equality',
        details: details(i + 10),
        frame: `test/cart.test.js:${i + 10}:5`,
      })),
    ];
    current.counts = { passed: 1, failed: 42, skipped: 0 };
    const text = packFeedback(current, { baseline, budgetTokens: 600 });
    expect(estimateTokens(text)).toBeLessThanOrEqual(600);
    expect(text).toContain('NEW failures');
    expect(text).toContain('Still failing (already failing before any edit)');
    expect(text).toMatch(/- cart > old/);
    expect(text).toContain('Flaky');
    expect(text).toContain('distinct failures');
    expect(text).toContain('(same failure in 39 more');
    expect(text).toContain('+   "total": 11,');
    expect(text).toContain('at test/cart.test.js:10:5');
    expect(text).not.toContain('node_modules/expect');
    expect(text).not.toContain('node:internal');
  });

  test('noise is stripped and repeats folded', () => {
    const out = stripNoise('PASS a.test.js\n    at x (node_modules/y.js:1:1)\nreal line\nreal line\nreal line\nTime: 3 s\n');
    expect(out).toBe('real line\n  (previous line repeated 2 more times)');
  });

  test('the default budget is 3,000 tokens', () => {
    const r = run(1, {});
    const word = (i: number) => i.toString(26).replace(/\d/g, (d) => 'qrstuvwxyz'[Number(d)]);
    r.tests = Array.from({ length: 2000 }, (_, i) => ({ id: `t${i}`, status: 'failed' as const, message: `distinct message ${word(i)} ${'x'.repeat(100)}` }));
    const text = packFeedback(r);
    expect(text.length).toBeLessThanOrEqual(12000);
    expect(text.length).toBeGreaterThan(10000);
    expect(text).toContain('and');
  });
});

describe('fail-to-pass proof', () => {
  const files = ['test/cart.test.js'];
  test('fails before, passes after', () => {
    const before = run(1, { 'test/cart.test.js > adds tax': 'failed', 'test/cart.test.js > sums': 'passed' }, { scope: 'related' });
    const after = run(0, { 'test/cart.test.js > adds tax': 'passed', 'test/cart.test.js > sums': 'passed', 'other > x': 'passed' }, { scope: 'related' });
    const p = judgeProof(before, after, files);
    expect(p.status).toBe('proven');
    expect(p.tests).toEqual([
      { id: 'test/cart.test.js > adds tax', before: 'failed', after: 'passed' },
      { id: 'test/cart.test.js > sums', before: 'passed', after: 'passed' },
    ]);
  });
  test('a test file that did not load before counts as failing before', () => {
    const before = run(1, {}, { loadErrors: ['test/cart.test.js'], scope: 'related' });
    before.tests = [{ id: 'test/cart.test.js', status: 'failed' }];
    const after = run(0, { 'test/cart.test.js > adds tax': 'passed' }, { scope: 'related' });
    expect(judgeProof(before, after, files).status).toBe('proven');
  });
  test('a test that already passes on the base code proves nothing', () => {
    const both = run(0, { 'test/cart.test.js > adds tax': 'passed' }, { scope: 'related' });
    const p = judgeProof(both, both, files);
    expect(p.status).toBe('not-proven');
    expect(p.detail).toMatch(/already pass on the base code/);
  });

  describe('no per-test results (make, an unknown runner): the exit codes decide', () => {
    const plain = (exitCode: number | null, over: Partial<TestRun> = {}) => run(exitCode, {}, { parsedFrom: 'none', scope: 'full', ...over });
    const passingBaseline = plain(0);

    test('fails on the original code with only the test changes, passes with the fix: proven, and the detail says how it was judged', () => {
      const p = judgeProof(plain(2), plain(0), files, passingBaseline);
      expect(p).toEqual({
        status: 'proven',
        testFiles: files,
        tests: [],
        detail: 'Judged by exit code (no per-test results name the changed tests): with only test/cart.test.js on the original code the command fails (exit 2), and with the fix it passes.',
      });
      // a timeout on the original code (the bug hangs) fails there too
      expect(judgeProof(plain(null, { timedOut: true }), plain(0), files, passingBaseline).detail).toContain('the command fails (timed out)');
      // no baseline given: judged the same way
      expect(judgeProof(plain(1), plain(0), files).status).toBe('proven');
    });

    test('passes on the original code with only the test changes: they do not reproduce the problem', () => {
      const p = judgeProof(plain(0), plain(0), files, passingBaseline);
      expect(p.status).toBe('not-proven');
      expect(p.detail).toBe('No fail-to-pass proof: no test of the changed test files was recognised in the runs, and judged by exit code the command passes on the original code with only test/cart.test.js, so they do not reproduce the problem.');
    });

    test('the fix does not pass: not proven', () => {
      expect(judgeProof(plain(1), plain(1), files, passingBaseline).detail).toContain('judged by exit code the command does not pass with the fix');
    });

    test('a baseline that already failed: the failure on the original code shows nothing about the test changes', () => {
      const p = judgeProof(plain(1), plain(0), files, plain(1));
      expect(p.status).toBe('not-proven');
      expect(p.detail).toContain('the command already failed on the original code before the test changes, so its exit code shows nothing');
    });
  });

  test('the whole command both times, ids without file names: the tests whose result the fix changed are the proof', () => {
    // node --test through `npm test`: no file selection, ids are bare names
    const before = run(1, { 'empty cart costs nothing': 'passed', 'multiplies by quantity': 'failed' }, { parsedFrom: 'node-test', scope: 'full' });
    const after = run(0, { 'empty cart costs nothing': 'passed', 'multiplies by quantity': 'passed' }, { parsedFrom: 'node-test', scope: 'full' });
    const p = judgeProof(before, after, files, run(0, { 'empty cart costs nothing': 'passed' }));
    expect(p.status).toBe('proven');
    expect(p.tests).toEqual([{ id: 'multiplies by quantity', before: 'failed', after: 'passed' }]);
    // a runner that lists only failures: a failure no longer listed once the command succeeds passed
    const quiet = judgeProof(run(1, { 'multiplies by quantity': 'failed' }, { scope: 'full' }), run(0, {}, { scope: 'full' }), files);
    expect(quiet.tests).toEqual([{ id: 'multiplies by quantity', before: 'failed', after: 'passed' }]);
    expect(quiet.status).toBe('proven');
    // only the changed test file ran on the original code (by file), the fix's run is the gate's: its tests, looked up there
    const byFile = run(1, { 'multiplies by quantity': 'failed', 'formats cents': 'passed' }, { parsedFrom: 'node-test', scope: 'related' });
    const gate = run(0, { 'empty cart costs nothing': 'passed', 'multiplies by quantity': 'passed', 'formats cents': 'passed' }, { parsedFrom: 'node-test', scope: 'full' });
    expect(judgeProof(byFile, gate, files).tests).toEqual([
      { id: 'multiplies by quantity', before: 'failed', after: 'passed' },
      { id: 'formats cents', before: 'passed', after: 'passed' },
    ]);
    const stillPassing = run(0, { 'multiplies by quantity': 'passed' }, { parsedFrom: 'node-test', scope: 'related' });
    expect(judgeProof(stillPassing, gate, files).detail).toMatch(/already pass on the base code/);
    // nothing differs: the exit codes decide (here: the same, so not proven)
    const same = run(0, { 'empty cart costs nothing': 'passed' }, { scope: 'full' });
    expect(judgeProof(same, same, files).status).toBe('not-proven');
  });
});

describe('report: test section', () => {
  const base: RunReport = {
    status: 'fixed',
    reason: 'verified',
    detail: 'ok',
    task: { key: 'issue-7', title: 'Tax is wrong', goal: 'fix', issueNumber: 7 },
    model: 'm',
    setupCommand: 'npm ci',
    testCommand: 'npm test',
    baseline: reconcile(run(1, { 'cart > tax': 'failed', 'cart > old': 'failed', 'cart > sum': 'passed', flaky: 'failed' }, { flaky: ['flaky'], structured: true })),
    final: reconcile(run(1, { 'cart > tax': 'passed', 'cart > old': 'failed', 'cart > sum': 'passed', flaky: 'passed' }, { structured: true })),
    summary: 'fixed tax',
    iterations: 1,
    maxIterations: 5,
    attempts: [{ iteration: 1, summary: 's', verdict: { ok: true, newlyFailing: [], nowPassing: ['cart > tax'], stillFailing: ['cart > old'], summary: 'v' }, changedFiles: ['src/cart.js'], rolledBack: false }],
    changes: [],
    diff: '',
    usage: { promptTokens: 1, completionTokens: 1, requests: 1 },
    durationMs: 1000,
    tests: {
      runner: 'jest',
      detection: 'package.json has a test script ("jest"); package-lock.json -> npm',
      commands: [
        { purpose: 'baseline', command: 'npm test -- --json --outputFile=/tmp/r1.json', exitCode: 1, timedOut: false, durationMs: 2100, counts: { passed: 1, failed: 3, skipped: 0 } },
        { purpose: 'related', command: 'npm test -- --findRelatedTests src/cart.js', exitCode: 0, timedOut: false, durationMs: 500, counts: { passed: 2, failed: 0, skipped: 0 } },
        { purpose: 'gate', command: 'npm test -- --json --outputFile=/tmp/r2.json', exitCode: 1, timedOut: false, durationMs: 2000, counts: { passed: 3, failed: 1, skipped: 0 } },
      ],
      proof: { status: 'proven', detail: '1 test(s) in test/cart.test.js fail before the fix and pass after it.', testFiles: ['test/cart.test.js'], tests: [{ id: 'cart > tax', before: 'failed', after: 'passed' }] },
      refusals: ['[skip] adds a skip/only/xfail marker in test/cart.test.js'],
    },
  };

  test('before/after counts, newly passing, still failing, flaky, proof, refusals, commands with exit codes', () => {
    const md = renderTestSection(base);
    expect(md).toContain('| before | 1 passed, 3 failed, 0 skipped (jest report) |');
    expect(md).toContain('| after | 3 passed, 1 failed, 0 skipped (jest report) |');
    expect(md).toContain('**Newly passing** (1): `cart > tax`');
    expect(md).toContain('**Still failing** (1, already failing before any edit): `cart > old`');
    expect(md).toContain('**Flaky** (1');
    expect(md).toContain('**Fail-to-pass proof**: fails before, passes after.');
    expect(md).toContain('| `cart > tax` | failed | passed |');
    expect(md).toContain('adds a skip/only/xfail marker');
    expect(md).toContain('| related tests (inside the loop) | `npm test -- --findRelatedTests src/cart.js` | 0 | 2 | 0 | 0.5 s |');
    expect(md).toContain('Detected (jest): package.json has a test script');
    const body = renderPrBody(base);
    expect(body).toContain('**Newly passing**');
    expect(renderTerminal(base)).toContain('proof:    fails before, passes after');
  });

  test('failures that predate the change and did not block it say so', () => {
    const last = base.attempts[0];
    const evidence = 'excused: test/old.test.js: its 0 imported file(s) of the repository include no changed file, and it fails exactly as before (boom)';
    const r: RunReport = { ...base, attempts: [{ ...last, verdict: { ...last.verdict, preexisting: ['cart > old'], tolerance: [{ id: 'cart > old', file: 'test/old.test.js', excused: true, evidence }] } }] };
    const md = renderTestSection(r);
    expect(md).toContain('**Still failing** (1, already failing before any edit; not blocking: the evidence below shows each is unrelated to the change): `cart > old`');
    expect(md).toContain(`- **Evidence for failures that predate the change** (1 excused, 0 blocking):\n  - \`cart > old\`: ${evidence}`);
  });

  test('missing proof and an unexplained exit code are shown as such', () => {
    const r: RunReport = {
      ...base,
      final: reconcile(run(1, { 'cart > tax': 'passed' })),
      tests: { ...base.tests!, proof: { status: 'no-test-changed', detail: 'The change adds or changes no test, so there is no fail-to-pass proof.', testFiles: [], tests: [] } },
    };
    const md = renderTestSection(r);
    expect(md).toContain('**Fail-to-pass proof**: missing. The change adds or changes no test');
    expect(md).toContain('**Exit code vs results** (after): The command exited with 1 but no test failed');
  });
});

describe('related selection helpers', () => {
  test('test files named after the changed sources', async () => {
    const { testFilesNamedAfter, failingTestFiles } = await import('../../src/verify/session.js');
    const all = ['src/plugin/duration/index.js', 'test/plugin/duration.test.js', 'test/display.test.js', 'tests/test_math.py', 'calc/math.py', 'calc/calc_test.go', 'calc/calc.go'];
    expect(testFilesNamedAfter(['src/plugin/duration/index.js'], all)).toEqual(['test/plugin/duration.test.js']);
    expect(testFilesNamedAfter(['calc/math.py'], all)).toEqual(['tests/test_math.py']);
    expect(testFilesNamedAfter(['calc/calc.go'], all)).toEqual(['calc/calc_test.go']);
    expect(testFilesNamedAfter(['README.md'], all)).toEqual([]);
    expect(testFilesNamedAfter(['src/math.js'], all)).toEqual([]);
    const { resolveFrames } = await import('../../src/verify/session.js');
    expect(resolveFrames([{ id: 'p > TestSub', status: 'failed', frame: 'calc_test.go:13' }], ['calc/calc_test.go', 'calc/calc.go'])[0].frame).toBe('calc/calc_test.go:13');
    expect(resolveFrames([{ id: 'x', status: 'failed', frame: 'a_test.go:1' }], ['p/a_test.go', 'q/a_test.go'])[0].frame).toBe('a_test.go:1');
    const base = run(1, { 'test/display.test.js > Format > YY': 'failed', 'tests/test_math.py::test_a': 'failed', 'math > x': 'failed', 'test/plugin/duration.test.js > ok': 'passed' });
    expect(failingTestFiles(base, all)).toEqual(['test/display.test.js', 'tests/test_math.py']);
  });
});

describe('a runner that rejects the reporter flags', () => {
  test('the session falls back to the command as given', async () => {
    const { mkdtempSync, writeFileSync: write } = await import('node:fs');
    const os = await import('node:os');
    const { TestSession } = await import('../../src/verify/session.js');
    const { Redactor } = await import('../../src/redact.js');
    const root = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-flags-'));
    write(path.join(root, 'package.json'), JSON.stringify({ scripts: { test: 'jest' } }));
    const seen: string[] = [];
    const exec = async (command: string) => {
      seen.push(command);
      const bad = command.includes('--json');
      return {
        command,
        exitCode: bad ? 2 : 0,
        signal: null,
        timedOut: false,
        durationMs: 5,
        output: bad ? 'Unrecognized option "json"\n' : 'PASS test/a.test.js\n  ✓ works (2 ms)\n\nTests:       1 passed, 1 total\n',
        truncated: false,
      };
    };
    const s = await TestSession.create({ root, testCommand: 'npm test', exec, redactor: new Redactor(), changedFiles: async () => ['src/a.js'] });
    const base = await s.runBaseline();
    expect(base.succeeded).toBe(true);
    expect(base.counts.passed).toBe(1);
    const { run: gate } = await s.runForLoop();
    expect(gate.succeeded).toBe(true);
    expect(gate.scope).toBe('full');
    expect(seen).toEqual(['npm test -- --json --outputFile=' + seen[0].split('=')[1], 'npm test', 'npm test']);
    await s.dispose();
  });
});

describe('cargo test (plain output)', () => {
  test('unit, integration and doc tests, ignored tests, failure messages, totals', async () => {
    const { parseTestOutput } = await import('../../src/verify/runners/index.js');
    const out = readFileSync(path.join(process.cwd(), '__tests__', 'fixtures', 'verify', 'cargo-test.txt'), 'utf8');
    const r = parseTestOutput(out);
    expect(r.parsedFrom).toBe('cargo');
    expect(failing(r.tests)).toEqual(['doc-tests calc > src/lib.rs - sub (line 10)', 'src/lib.rs > tests::subtracts', 'tests/api.rs > panics']);
    expect(r.tests.find((t) => t.id === 'src/lib.rs > tests::later')!.status).toBe('skipped');
    expect(r.tests.find((t) => t.id === 'src/lib.rs > tests::subtracts')!.message).toContain('assertion `left == right` failed: sub(3, 1)');
    expect(r.totals).toEqual({ passed: 3, failed: 3, skipped: 1 });
  });
});
