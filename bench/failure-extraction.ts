/**
 * Failure extraction: generated projects with a known set of failing tests (about 8 % of
 * 300 tests in 10 files, each failure an object diff with a stack trace) for jest, vitest,
 * mocha, node:test, pytest and go. For each stack, the real runner runs
 *   - with a structured report (as the harness asks for it): the failing-test set must be exact;
 *   - plain (the command as given, output parsed): precision, recall, F1 of the failing set;
 * and the feedback for the model (default budget) is compared with the raw log's size (the
 * plain command's output) and with the output the harness itself holds in structured mode
 * (for go, the -v style text rebuilt from the `go test -json` events, bench/results/logs/go-structured.txt).
 * The captured plain logs are written next to the figures (bench/results/logs/) so the
 * plain-text parsers can be re-scored offline.
 * Prints and writes raw figures (bench/results/failure-extraction.json).
 *
 *   node scripts/run-ts.mjs bench/failure-extraction.ts [--files 10] [--tests 30]
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, realpathSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { makeShell } from '../src/adapters/shell.js';
import { Redactor } from '../src/redact.js';
import { TestSession } from '../src/verify/session.js';
import { packFeedback } from '../src/verify/feedback.js';
import { goJsonToText } from '../src/verify/runners/go.js';
import { unavailable, type Stack } from '../test-support/stacks.js';

function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 && process.argv[i + 1] ? process.argv[i + 1] : fallback;
}
const FILES = Number(arg('files', '10'));
/** `--show go`: print that stack's feedback texts (to read what the model gets). */
const SHOW = arg('show', '');
const TESTS = Number(arg('tests', '30'));
const fails = (f: number, t: number) => (f * TESTS + t) % 13 === 0;

interface Generated {
  files: Record<string, string>;
  command: string;
  truth: string[];
}

function expected(f: number, t: number): string {
  return `{ id: ${t}, group: ${f}, items: [1, 2, 3], total: ${t * 3}, label: 'item-${t}' }`;
}
function actual(f: number, t: number): string {
  return fails(f, t) ? `{ id: ${t}, group: ${f}, items: [1, 2, 4], total: ${t * 3 + 1}, label: 'item-${t}' }` : expected(f, t);
}

function generate(stack: Stack): Generated {
  const files: Record<string, string> = {};
  const truth: string[] = [];
  const range = (n: number) => Array.from({ length: n }, (_, i) => i);
  switch (stack) {
    case 'jest':
    case 'vitest': {
      const esm = stack === 'vitest';
      files['package.json'] = JSON.stringify({ name: `bx-${stack}`, private: true, type: esm ? 'module' : 'commonjs', scripts: { test: esm ? 'vitest run' : 'jest' }, ...(esm ? {} : { jest: { testEnvironment: 'node' } }) });
      if (esm) files['vitest.config.mjs'] = "export default { cacheDir: '.vite-cache', test: { include: ['test/**/*.test.js'] } };\n";
      for (const f of range(FILES)) {
        const head = esm ? "import { describe, test, expect } from 'vitest';\nimport { make } from '../src/make.js';\n" : "const { make } = require('../src/make');\n";
        const body = range(TESTS)
          .map((t) => {
            if (fails(f, t)) truth.push(`test/g${f}.test.js > group ${f} > case ${t}`);
            return `  test('case ${t}', () => {\n    console.log('checking case ${t} of group ${f}');\n    expect(make(${actual(f, t)})).toEqual(${expected(f, t)});\n  });`;
          })
          .join('\n');
        files[`test/g${f}.test.js`] = `${head}describe('group ${f}', () => {\n${body}\n});\n`;
      }
      files['src/make.js'] = esm ? 'export const make = (x) => ({ ...x });\n' : 'exports.make = (x) => ({ ...x });\n';
      return { files, command: 'npm test', truth };
    }
    case 'mocha':
    case 'node-test': {
      const node = stack === 'node-test';
      files['package.json'] = JSON.stringify({ name: `bx-${stack}`, private: true, type: node ? 'module' : 'commonjs', scripts: { test: node ? 'node --test' : 'mocha' } });
      for (const f of range(FILES)) {
        const head = node
          ? "import { describe, test } from 'node:test';\nimport assert from 'node:assert/strict';\nimport { make } from '../src/make.js';\n"
          : "const assert = require('assert');\nconst { make } = require('../src/make');\n";
        const it = node ? 'test' : 'it';
        const body = range(TESTS)
          .map((t) => {
            if (fails(f, t)) truth.push(`group ${f} > case ${t}`);
            return `  ${it}('case ${t}', () => {\n    assert.deepStrictEqual(make(${actual(f, t)}), ${expected(f, t)});\n  });`;
          })
          .join('\n');
        files[`test/g${f}.test.js`] = `${head}describe('group ${f}', () => {\n${body}\n});\n`;
      }
      files['src/make.js'] = node ? 'export const make = (x) => ({ ...x });\n' : 'exports.make = (x) => ({ ...x });\n';
      return { files, command: node ? 'node --test' : 'npm test', truth };
    }
    case 'pytest': {
      files['pytest.ini'] = '[pytest]\ntestpaths = tests\n';
      files['conftest.py'] = 'import os, sys\nsys.path.insert(0, os.path.dirname(__file__))\n';
      files['lib/__init__.py'] = '';
      files['lib/make.py'] = 'def make(x):\n    return dict(x)\n';
      const py = (s: string) => s.replace(/(\w+): /g, "'$1': ").replace(/\[/g, '[').replace(/'item-(\d+)'/g, "'item-$1'");
      for (const f of range(FILES)) {
        const body = range(TESTS)
          .map((t) => {
            if (fails(f, t)) truth.push(`tests/test_g${f}.py::test_case_${t}`);
            return `def test_case_${t}():\n    print("checking case ${t} of group ${f}")\n    assert make(${py(actual(f, t))}) == ${py(expected(f, t))}\n`;
          })
          .join('\n\n');
        files[`tests/test_g${f}.py`] = `from lib.make import make\n\n\n${body}`;
      }
      return { files, command: 'python3 -m pytest', truth };
    }
    case 'go': {
      files['go.mod'] = 'module example.com/bx\n\ngo 1.18\n';
      for (const f of range(FILES)) {
        const body = range(TESTS)
          .map((t) => {
            if (fails(f, t)) truth.push(`example.com/bx/g${f} > TestCase${t}`);
            const got = fails(f, t) ? t * 3 + 1 : t * 3;
            return `func TestCase${t}(t *testing.T) {\n\tt.Log("checking case ${t} of group ${f}")\n\tif got, want := total(${got}), ${t * 3}; got != want {\n\t\tt.Errorf("total(items of case ${t}) = %d, want %d; items = [1 2 4], label = item-${t}", got, want)\n\t}\n}`;
          })
          .join('\n\n');
        files[`g${f}/g${f}_test.go`] = `package g${f}\n\nimport "testing"\n\nfunc total(n int) int { return n }\n\n${body}\n`;
      }
      return { files, command: 'go test ./...', truth };
    }
  }
}

function f1(found: string[], truth: string[]): { precision: number; recall: number; f1: number } {
  const t = new Set(truth);
  const tp = found.filter((x) => t.has(x)).length;
  const precision = found.length ? tp / found.length : 0;
  const recall = truth.length ? tp / truth.length : 1;
  return { precision, recall, f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0 };
}

/**
 * Whether the feedback names a test: in full (`- pkg > TestA: …`), or in a compact list
 * (`same failure in 3 more, under example.com/bx/: g0 > TestA, TestB; g1 > TestC`).
 */
function names(feedback: string, id: string): boolean {
  if (feedback.includes(id)) return true;
  const cut = Math.max(id.lastIndexOf(' > '), id.lastIndexOf('::'));
  if (cut < 0) return false;
  const sep = id.startsWith(' > ', cut) ? ' > ' : '::';
  const [parent, name] = [id.slice(0, cut), id.slice(cut + sep.length)];
  for (const line of feedback.split('\n')) {
    const m = /same failure in \d+ more(?:, under (\S+): |: )(.*)\)$/.exec(line);
    if (!m) continue;
    const prefix = m[1] ?? '';
    for (const group of m[2].split('; ')) {
      const at = group.lastIndexOf(sep);
      if (at >= 0 && `${prefix}${group.slice(0, at)}` === parent && group.slice(at + sep.length).split(', ').includes(name)) return true;
    }
  }
  return false;
}

const shell = makeShell();
const rows: Record<string, unknown>[] = [];
const outDir = path.join(process.cwd(), 'bench', 'results');
mkdirSync(path.join(outDir, 'logs'), { recursive: true });
for (const stack of ['jest', 'vitest', 'mocha', 'node-test', 'pytest', 'go'] as Stack[]) {
  const missing = unavailable(stack);
  if (missing) {
    console.log(`${stack}: skipped (${missing})`);
    rows.push({ stack, skipped: missing });
    continue;
  }
  const g = generate(stack);
  const base = mkdtempSync(path.join(os.tmpdir(), `agent-fix-bx-${stack}-`));
  const dir = path.join(base, 'repo');
  for (const [name, content] of Object.entries(g.files)) {
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), content);
  }
  if (g.files['package.json']) symlinkSync(realpathSync(path.join(process.cwd(), 'node_modules')), path.join(dir, 'node_modules'), 'dir');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  Object.assign(env, { CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', GOFLAGS: '-count=1', GOCACHE: path.join(base, 'gocache'), GOPROXY: 'off' });
  let lastOutput = '';
  /** The readable output the harness itself holds for the last command (see session.ts execute). */
  let harnessOutput = '';
  const exec = async (command: string) => {
    const r = await shell.run(command, { cwd: dir, timeoutMs: 300_000, env, maxOutputChars: 5_000_000 });
    lastOutput = r.output;
    harnessOutput = r.output;
    // go: the command's stdout is the -json report (`go test -json … > <report>`); the harness
    // rebuilds the readable output from its events, as session.ts does.
    const report = /^go test -json\b.* > '?([^' ]+)'?$/.exec(command);
    if (report) {
      let content = '';
      try {
        content = readFileSync(report[1], 'utf8');
      } catch {
        // no report: the output is all there is
      }
      harnessOutput = `${content ? goJsonToText(content) : ''}${r.output}`;
    }
    return r;
  };
  const failingOf = (tests: { id: string; status: string }[]) => tests.filter((t) => t.status === 'failed').map((t) => t.id);

  const structured = await TestSession.create({ root: dir, testCommand: g.command, exec, redactor: new Redactor() });
  const sRun = await structured.runFull('baseline');
  const structuredLog = harnessOutput;
  const sFailing = failingOf(sRun.tests);
  const plain = await TestSession.create({ root: dir, testCommand: g.command, exec, redactor: new Redactor(), structured: false });
  const pRun = await plain.runFull('baseline');
  const rawLog = lastOutput;
  writeFileSync(path.join(outDir, 'logs', `${stack}-plain.txt`), rawLog.split(dir).join('/repo'));
  // go: the harness's own output (rebuilt from the -json events) differs in kind from the plain log.
  if (stack === 'go') writeFileSync(path.join(outDir, 'logs', `${stack}-structured.txt`), structuredLog.split(dir).join('/repo'));
  const pFailing = failingOf(pRun.tests);
  const feedbackStructured = packFeedback(sRun);
  const feedbackPlain = packFeedback(pRun);
  const truthSet = new Set(g.truth);
  const row = {
    stack,
    tests: FILES * TESTS,
    failing: g.truth.length,
    structuredReport: Boolean(sRun.structured),
    structuredExact: sFailing.length === g.truth.length && sFailing.every((id) => truthSet.has(id)),
    structuredFound: sFailing.length,
    plain: f1(pFailing, g.truth),
    plainFound: pFailing.length,
    rawLogChars: rawLog.length,
    feedbackChars: feedbackPlain.length,
    feedbackStructuredChars: feedbackStructured.length,
    feedbackRatio: feedbackPlain.length / rawLog.length,
    feedbackStructuredRatio: feedbackStructured.length / rawLog.length,
    structuredLogChars: structuredLog.length,
    feedbackStructuredToStructuredLogRatio: feedbackStructured.length / structuredLog.length,
    feedbackNamesEveryFailure: g.truth.every((id) => names(feedbackStructured, id)),
    feedbackPlainNamesEveryFailure: g.truth.every((id) => names(feedbackPlain, id)),
  };
  rows.push(row);
  console.log(
    `${stack}: ${row.failing}/${row.tests} failing; structured ${row.structuredReport ? 'report' : '(plain: no report for this runner)'} exact=${row.structuredExact}; ` +
      `plain P=${row.plain.precision.toFixed(3)} R=${row.plain.recall.toFixed(3)} F1=${row.plain.f1.toFixed(3)}; ` +
      `raw log ${row.rawLogChars} chars, feedback ${row.feedbackChars} (${(row.feedbackRatio * 100).toFixed(1)} %), structured feedback ${row.feedbackStructuredChars} (${(row.feedbackStructuredRatio * 100).toFixed(1)} %); ` +
      `harness output in structured mode ${row.structuredLogChars} chars, structured feedback ${(row.feedbackStructuredToStructuredLogRatio * 100).toFixed(1)} % of it`,
  );
  if (SHOW === stack) console.log(`----- feedback from plain text\n${feedbackPlain}\n----- feedback from the report\n${feedbackStructured}\n-----`);
  await structured.dispose();
  await plain.dispose();
  rmSync(base, { recursive: true, force: true });
}
writeFileSync(
  path.join(outDir, 'failure-extraction.json'),
  `${JSON.stringify({ date: new Date().toISOString(), machine: { cpus: os.cpus().length, node: process.version }, files: FILES, testsPerFile: TESTS, rows }, null, 2)}\n`,
);
