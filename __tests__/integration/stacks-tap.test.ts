/**
 * node-tap, tape and node's TAP reporter: the CI log and the local run name the same tests
 * (issue 22, part 2). Directives (`# time=…`, `# SKIP`, `# TODO`) are never part of a test's
 * identity, and node-tap's assertions fold into their subtest.
 *
 * The parser cases read TAP as each producer prints it; the real-producer cases run the real
 * producers (node-tap 16 and 21 and tape from the npm registry, installed by .ci/run into
 * .cache/tap-producers; node's own reporter) twice on the same broken project: once framed as a
 * GitHub Actions job log (CI=true, GITHUB_ACTIONS=true), once as the harness's local run. A
 * producer that is not installed is skipped with a message.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { extractFailure } from '../../src/ci/log-extract.js';
import { checkReproduction } from '../../src/ci/fingerprint.js';
import { Redactor } from '../../src/redact.js';
import { identityKey, identityOf, normaliseSegment, sameTestName } from '../../src/verify/identity.js';
import { parseTestOutput } from '../../src/verify/runners/index.js';
import { toTestRun } from '../../src/verify/test-run.js';
import { TAP_MATH_BROKEN, TAP_MATH_FIXED, TAP_PRODUCERS_DIR, TAP_PROJECTS, tapUnavailable, type TapProducer } from '../../test-support/stacks.js';

const statuses = (text: string) => Object.fromEntries(parseTestOutput(text).tests.map((t) => [t.id, t.status]));

describe('TAP directives are no part of a name', () => {
  test('node-tap: `# time=` on subtest points, assertions folded into their subtest', () => {
    const out = [
      'TAP version 13',
      '# Subtest: test/math.js',
      '    # Subtest: adds',
      '        ok 1 - should be equal',
      '        1..1',
      '    ok 1 - adds # time=6.172ms',
      '    # Subtest: diff versions test',
      '        not ok 1 - should subtract',
      '          ---',
      '          compare: ===',
      '          ...',
      '        1..1',
      '        # failed 1 test',
      '    not ok 2 - diff versions test # time=16.209ms',
      '    ok 3 - skipped one # SKIP not now',
      '    ok 4 - todo one # TODO',
      '    1..4',
      '    # failed 1 of 4 tests',
      '    # time=37.961ms',
      'not ok 1 - test/math.js # time=37.961ms',
      '1..1',
      '# failed 1 test',
      '# time=188.655ms',
    ].join('\n');
    const parsed = parseTestOutput(out);
    expect(parsed.parsedFrom).toBe('tap');
    expect(statuses(out)).toEqual({
      'test/math.js > adds': 'passed',
      'test/math.js > diff versions test': 'failed',
      'test/math.js > skipped one': 'skipped',
      'test/math.js > todo one': 'skipped',
    });
    expect(parsed.tests.find((t) => t.status === 'failed')?.message).toBe('should subtract');
    expect(identityOf('test/math.js > diff versions test')).toEqual({ file: 'test/math.js', path: ['diff versions test'] });
  });

  test('the same subtest timed differently in two runs is one identity', () => {
    const run = (ms: string) => `TAP version 14\n# Subtest: parses\n    ok 1 - should be equal\n    1..1\nnot ok 1 - parses # time=${ms}\n1..1\n`;
    expect(Object.keys(statuses(run('64.386ms')))).toEqual(Object.keys(statuses(run('3.1ms'))));
    expect(normaliseSegment('diff versions test # time=64.386ms')).toBe('diff versions test');
    expect(normaliseSegment('pending # TODO not yet')).toBe('pending');
    expect(normaliseSegment('later # SKIP')).toBe('later');
    expect(normaliseSegment('escaped \\# time=3ms stays')).toBe('escaped \\# time=3ms stays');
    expect(sameTestName('diff versions test # time=64.386ms', 'test/math.js > diff versions test')).toBe(true);
  });

  test("tape: a skipped or todo test's heading carries its directive first", () => {
    const out = ['TAP version 13', '# adds', 'ok 1 should be equal', '# SKIP skipped one', '# TODO todo one', 'not ok 2 should be equal # TODO', '', '1..2', '# tests 2', '# pass  1', '# fail  0'].join('\n');
    expect(statuses(out)).toEqual({ adds: 'passed', 'skipped one': 'skipped', 'todo one': 'skipped' });
  });

  test("node-tap's closing lines are no tests, in the CI log either", () => {
    const log = ['# Subtest: t.js', '    # Subtest: a', '        not ok 1 - should be equal', '        1..1', '    not ok 1 - a # time=2ms', '    1..1', 'not ok 1 - t.js # time=9ms', '1..1', '# failed 1 test', '# todo: 1', '# time=188.655ms']
      .map((l) => `2026-01-01T00:00:00.0000000Z ${l}`)
      .join('\n');
    const x = extractFailure(log);
    expect(x.failingTests).toEqual(['t.js > a']);
    expect(x.failures.map((f) => f.name)).toEqual(['t.js > a']);
  });
});

/** A real run's combined output. */
function run(dir: string, command: string, env: Record<string, string>): { output: string; status: number | null; durationMs: number } {
  const started = Date.now();
  const r = spawnSync('bash', ['-c', `${command} 2>&1`], { cwd: dir, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, timeout: 120_000 });
  return { output: r.stdout, status: r.status, durationMs: Date.now() - started };
}

function asJobLog(output: string, dir: string): string {
  const body = output.split(dir).join('/home/runner/work/lib/lib');
  return ['##[group]Run npm test', 'npm test', '##[endgroup]', ...body.split('\n'), '##[error]Process completed with exit code 1.']
    .map((l, i) => `2026-01-01T00:00:${String(i % 60).padStart(2, '0')}.${String(i).padStart(7, '0')}Z ${l}`)
    .join('\n');
}

const PRODUCERS: TapProducer[] = ['node-tap-16', 'node-tap-21', 'tape', 'node-test-tap'];

describe.each(PRODUCERS)('real %s: the CI log and the local run name the same failing tests', (producer) => {
  const why = tapUnavailable(producer);
  const project = TAP_PROJECTS[producer];
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(path.join(tmpdir(), `agent-fix-${producer}-`));
    mkdirSync(path.join(dir, 'src'));
    mkdirSync(path.join(dir, 'test'));
    writeFileSync(path.join(dir, 'package.json'), '{ "name": "lib", "private": true }\n');
    writeFileSync(path.join(dir, 'src', 'math.js'), TAP_MATH_BROKEN);
    for (const [f, text] of Object.entries(project.files)) writeFileSync(path.join(dir, f), text);
    if (project.needs) symlinkSync(path.join(TAP_PRODUCERS_DIR, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const maybe = why ? test.skip : test;
  if (why) test(`skipped: ${why}`, () => expect(why).toContain('not installed'));

  maybe('reproduced by test identity; the local names are stable between runs and directive-free', () => {
    const ci = run(dir, project.command, { CI: 'true', GITHUB_ACTIONS: 'true' });
    expect(ci.status).not.toBe(0);
    const extract = extractFailure(asJobLog(ci.output, dir), { repoName: 'lib' });
    const local = run(dir, project.command, {});
    const again = run(dir, project.command, {});
    const baseline = toTestRun({ command: project.command, exitCode: local.status, signal: null, timedOut: false, durationMs: local.durationMs, output: local.output, truncated: false }, new Redactor());
    const failingHere = baseline.tests.filter((t) => t.status === 'failed').map((t) => t.id);
    expect(failingHere.length).toBeGreaterThan(0);
    for (const id of [...failingHere, ...extract.failingTests]) expect(id).not.toMatch(/#\s*(?:time=|SKIP|TODO)|should (?:subtract|be)/i);
    // every failing test of the CI log is one failing here, and no other
    const ciKeys = extract.failures.map((f) => identityKey(f.identity)).sort();
    const localKeys = baseline.tests.filter((t) => t.status === 'failed').map((t) => identityKey(identityOf(t.id, t.file))).sort();
    expect(ciKeys).toEqual(localKeys);
    expect(extract.failingTests).toEqual(extract.failures.map((f) => f.name));
    const rep = checkReproduction({ tests: extract.failingTests, failures: extract.failures, files: extract.failingFiles, errors: extract.errors }, baseline);
    expect(rep).toMatchObject({ kind: 'reproduced', evidence: 'test-identity' });
    if (rep.kind === 'reproduced') expect(rep.matched).toHaveLength(extract.failures.length);
    // the fail-to-pass proof compares ids across runs: the same ids each time
    expect(parseTestOutput(again.output).tests.map((t) => t.id)).toEqual(parseTestOutput(local.output).tests.map((t) => t.id));
    // fixed: the same tests pass
    writeFileSync(path.join(dir, 'src', 'math.js'), TAP_MATH_FIXED);
    const fixed = run(dir, project.command, {});
    writeFileSync(path.join(dir, 'src', 'math.js'), TAP_MATH_BROKEN);
    const after = statuses(fixed.output);
    for (const id of failingHere) expect(after[id]).toBe('passed');
  }, 120_000);
});
