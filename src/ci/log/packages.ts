/** Monorepo packages named in a log (failed, filtered on), and the failing tests the local-run parsers find in it. */
import { parseTestOutput } from '../../verify/runners/index.js';
import { identityOf } from '../../verify/identity.js';
import { type LogFailure, MAX_PARSED_CHARS, PARSE_AFTER_LAST_TEST } from './types.js';
import { capName } from './recognise.js';

/**
 * The package a workspace tool names as failed: turbo `Failed:    @scope/a#test`, `ERROR  @scope/a#test:
 * command … exited (1)`, pnpm `ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL  @scope/a@1.0.0 test: …` or its
 * recursive summary `ERROR  @scope/a@1.0.0 test: \`vitest run\``.
 */
export function failedPackageOf(line: string): string | null {
  if (!line.includes('#') && !line.includes('ERR_PNPM_') && !line.includes('ERROR')) return null;
  const failed =
    /^\s*(?:Failed:|ERROR)\s+(\S+?)#[\w:.-]*[A-Za-z][\w:.-]*(?::\s+command\b|\s*$)/.exec(line) ??
    /(?:ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL|^\s*ERROR)\s+(\S+?)@[^\s@]*\s+test[\w:.-]*: `/.exec(line);
  return failed?.[1] ?? null;
}

/** The failing tests the local-run parsers (verify/runners/) find in the cleaned log. */
export function parsedFailures(lines: string[], lastTest: number): LogFailure[] {
  // A window of the log, not all of it (the parsers are not built for 20 MB): ending a little
  // after the last line the recogniser took for a failing test (the runner's summary follows it),
  // or at the end; reaching back at most MAX_PARSED_CHARS.
  const to = lastTest >= 0 ? Math.min(lines.length, lastTest + PARSE_AFTER_LAST_TEST) : lines.length;
  let from = to;
  for (let chars = 0; from > 0 && chars + lines[from - 1].length < MAX_PARSED_CHARS; from--) chars += lines[from - 1].length + 1;
  const parsed = parseTestOutput(lines.slice(from, to).join('\n'));
  const out: LogFailure[] = [];
  for (const t of parsed.tests) {
    if (t.status !== 'failed') continue;
    const f: LogFailure = { name: capName(t.id), identity: identityOf(t.id, t.file) };
    if (t.message) f.message = t.message;
    out.push(f);
  }
  return out;
}

/** The packages a workspace tool's filtered test command names (`npm test -w packages/a`, `pnpm --filter a test`, …). */
export function filteredPackages(command: string): string[] {
  const out: string[] = [];
  for (const m of command.matchAll(/(?:^|\s)(?:-w|--workspace)(?:=|\s+)(\S+)/g)) out.push(m[1]);
  for (const m of command.matchAll(/(?:^|\s)(?:--filter|-F)(?:=|\s+)(\S+)/g)) out.push(m[1].replace(/^['"]|['"]$/g, ''));
  const yarn = /(?:^|\s)yarn\s+workspace\s+(\S+)\s/.exec(command);
  if (yarn) out.push(yarn[1]);
  const nx = /(?:^|\s)nx\s+(?:run\s+(\S+?):test|test\s+(\S+))/.exec(command);
  if (nx) out.push(nx[1] ?? nx[2]);
  return [...new Set(out)];
}
