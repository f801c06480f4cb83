/**
 * node's test runner (`node --test`): detected by `*.test.js` files when package.json has
 * no test script and no test framework; a direct `node ... --test` invocation is given a
 * JUnit reporter next to the spec one (read by runners/junit.ts), and given files run as
 * `node --test <files>`; the plain output is parsed when no report exists: the spec
 * reporter here, the TAP reporter by runners/tap.ts.
 */
import type { TestStatus } from '../types.js';
import { quote, type TestRunner } from './runner.js';
import { Collector, indentOf, messageFrom, SEP, type ParserResult } from './text.js';

// ------------------------------------------------------------------------- plain output (spec reporter)

const NODE_SPEC_LINE = /^(\s*)(✔|✖|﹣|▶|⚠)\s+(.+?)(?:\s+\((\d+(?:\.\d+)?)ms\))?(\s+#\s*(?:SKIP|TODO)\b.*)?$/;

function parseNodeSpec(lines: string[]): ParserResult {
  const out = new Collector();
  interface Frame { indent: number; name: string; childFailed: boolean }
  const stack: Frame[] = [];
  let inFailureSummary = false;
  let afterTestAt = false;

  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (/^✖ failing tests:\s*$/.test(line)) {
      inFailureSummary = true;
      stack.length = 0;
      continue;
    }
    if (inFailureSummary) {
      // `test at file:line:col` then `✖ name (dur)` then the indented error, repeated.
      if (/^test at \S/.test(line)) {
        afterTestAt = true;
        continue;
      }
      if (!line.trim() || /^\s/.test(line)) continue;
      if (afterTestAt && line.startsWith('✖')) {
        // Newer node prints the errors only here: give the message to the first failed
        // test of that name still without one (the summary keeps the order of failures).
        afterTestAt = false;
        const m = NODE_SPEC_LINE.exec(line);
        const name = m ? m[3].trim() : '';
        const message = messageFrom(lines, i + 1, (l) => l.trim() !== '' && indentOf(l) === 0);
        const target = out
          .list()
          .find((t) => t.status === 'failed' && !t.message && (t.id === name || t.id.endsWith(`${SEP}${name}`)));
        if (target && message) out.setMessage(target.id, message);
        continue;
      }
      if (!NODE_SPEC_LINE.test(line) || line.startsWith('ℹ')) continue;
      inFailureSummary = false; // another run starts
    }
    const m = NODE_SPEC_LINE.exec(line);
    if (!m) continue;
    const indent = m[1].length;
    const symbol = m[2];
    const name = m[3].trim();
    const hasDuration = m[4] !== undefined;
    const directive = m[5] ?? '';

    if (symbol === '▶' && !hasDuration) {
      while (stack.length && stack[stack.length - 1].indent >= indent) stack.pop();
      stack.push({ indent, name, childFailed: false });
      continue;
    }
    while (stack.length && stack[stack.length - 1].indent > indent) stack.pop();
    const top = stack[stack.length - 1];
    if (top && top.indent === indent && top.name === name) {
      // The closing line of a suite or of a test with subtests.
      stack.pop();
      const failedHere = symbol === '✖';
      if (failedHere && !top.childFailed) {
        const id = [...stack.map((f) => f.name), name].join(SEP);
        out.add(id, 'failed', messageFrom(lines, i + 1, (l) => l.trim() !== '' && indentOf(l) <= indent));
      }
      if (failedHere) for (const f of stack) f.childFailed = true;
      continue;
    }
    if (top && top.indent === indent) stack.pop();
    let status: TestStatus;
    if (symbol === '﹣' || /SKIP|TODO/i.test(directive)) status = 'skipped';
    else if (symbol === '✖') status = 'failed';
    else if (symbol === '✔' || symbol === '▶') status = 'passed';
    else continue; // ⚠ (cancelled notices and warnings)
    const id = [...stack.map((f) => f.name), name].join(SEP);
    let message: string | undefined;
    if (status === 'failed') {
      message = messageFrom(lines, i + 1, (l) => l.trim() !== '' && indentOf(l) <= indent);
      for (const f of stack) f.childFailed = true;
    }
    out.add(id, status, message, hasDuration ? Number(m[4]) : undefined);
  }
  return { tests: out.list(), parsedFrom: 'node-test' };
}

/** Our reporters: the spec one on stdout (what the user sees), JUnit into the report file. */
const flags = (reportFile: string) => `--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=${quote(reportFile)}`;

export const nodeTest: TestRunner = {
  id: 'node-test',
  stack: 'node',
  parsedFrom: 'node-test',
  reportsSkips: true,
  countsTests: true,
  invokedBy: (c) => /^node\b.*\s--test\b/.test(c),
  async detect({ listDir }) {
    const testFile = /\.test\.[cm]?js$/;
    for (const dir of ['test', 'tests', '__tests__', '.']) {
      if ((await listDir(dir)).some((f) => testFile.test(f))) {
        return { setup: null, test: 'node --test', reason: `*.test.js files in ${dir === '.' ? 'the root' : `${dir}/`} and no test framework: node's test runner` };
      }
    }
    return null;
  },
  compose(info, reportFile) {
    // Only a direct `node ... --test` invocation: reporter flags go right after `node`.
    if (info.base !== info.invocation || !/^node\s/.test(info.base)) return null;
    return { command: info.base.replace(/^node\s/, `node ${flags(reportFile)} `), reportFile, format: 'junit', flavour: 'generic', parsedFrom: 'node-test' };
  },
  files(info, testFiles, reportFile) {
    // A direct `node --test [files]`: the same flags with our files instead.
    if (info.base !== info.invocation || !/^node\s+--test\s*(?:\S+\s*)*$/.test(info.base) || /--test-/.test(info.base)) return null;
    return { command: `node ${flags(reportFile)} --test ${testFiles.map(quote).join(' ')}`, reportFile, format: 'junit', flavour: 'generic', parsedFrom: 'node-test' };
  },
  display: (command) => command.replace(/--test-reporter=spec --test-reporter-destination=stdout --test-reporter=junit --test-reporter-destination=\S+ /g, ''),
  output: [
    {
      kind: 'tree',
      detect: (t) => /^ℹ (?:tests|pass|fail) \d+/m.test(t) || /^\s*(?:✔|✖) .+ \(\d+(?:\.\d+)?ms\)\s*$/m.test(t),
      parse: parseNodeSpec,
    },
  ],
};
