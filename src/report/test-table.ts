/**
 * The test part of the report (PR body, issue comment, step summary): before / after
 * counts, newly passing, newly failing, still failing and flaky tests, the fail-to-pass
 * proof, test-integrity refusals, and every test command the harness ran with its exit
 * code. Pure.
 */
import type { RunReport } from '../fix/types.js';
import type { TestRun } from '../verify/types.js';
import { describeConsistency } from '../verify/reconcile.js';
import { describeCommentHunks } from '../verify/comments.js';

const PURPOSE: Record<string, string> = {
  baseline: 'baseline (untouched code)',
  'baseline-rerun': 'baseline re-run (flaky check)',
  related: 'related tests (inside the loop)',
  gate: 'full suite (gate)',
  'gate-rerun': 'full suite re-run (flaky check)',
  'proof-before': 'proof: changed tests on the base code',
  'proof-after': 'proof: changed tests on the fix',
  relatedness: "runner's related-test selection for the changed files (relatedness evidence)",
  'original-tests': 'original tests (as before the change) on the source changes only',
};

function code(text: string): string {
  const t = text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const ticks = t.includes('`') ? '``' : '`';
  return `${ticks}${t.length > 160 ? `${t.slice(0, 159)}…` : t}${ticks}`;
}

function ids(list: string[], max = 15): string {
  const shown = list.slice(0, max).map((id) => code(id)).join(', ');
  return list.length > max ? `${shown} and ${list.length - max} more` : shown;
}

function counts(run: TestRun | null): string {
  if (!run) return 'not run';
  const c = run.counts;
  const src = run.structured ? `${run.parsedFrom} report` : run.parsedFrom === 'none' ? 'exit code only' : `${run.parsedFrom} output`;
  return `${c.passed} passed, ${c.failed} failed, ${c.skipped} skipped (${src})`;
}

function failing(run: TestRun | null): string[] {
  return run ? run.tests.filter((t) => t.status === 'failed').map((t) => t.id) : [];
}

export function renderTestSection(r: RunReport): string {
  const out: string[] = [];
  const intel = r.tests;
  const lines: string[] = ['| | tests |', '| --- | --- |'];
  lines.push(`| before | ${counts(r.baseline)} |`);
  lines.push(`| after | ${counts(r.final)} |`);
  out.push(lines.join('\n'));

  const before = new Set(failing(r.baseline));
  const after = failing(r.final);
  const flaky = [...new Set([...(r.baseline?.flaky ?? []), ...(r.final?.flaky ?? [])])];
  const flakySet = new Set(flaky);
  const last = r.attempts[r.attempts.length - 1];
  const nowPassing = last?.verdict.nowPassing.length
    ? last.verdict.nowPassing
    : r.final
      ? [...before].filter((id) => r.final!.tests.some((t) => t.id === id && t.status === 'passed'))
      : [];
  const items: string[] = [];
  if (nowPassing.length) items.push(`- **Newly passing** (${nowPassing.length}): ${ids(nowPassing)}`);
  const newly = after.filter((id) => !before.has(id) && !flakySet.has(id));
  if (newly.length) items.push(`- **Newly failing** (${newly.length}): ${ids(newly)}`);
  const still = after.filter((id) => before.has(id) && !flakySet.has(id));
  const tolerated = last?.verdict.ok && last.verdict.preexisting?.length ? '; not blocking: the evidence below shows each is unrelated to the change' : '';
  if (still.length) items.push(`- **Still failing** (${still.length}, already failing before any edit${tolerated}): ${ids(still)}`);
  const decisions = last?.verdict.tolerance ?? [];
  if (decisions.length) {
    const rows = decisions.slice(0, 15).map((d) => `  - ${code(d.id)}: ${d.evidence}`);
    if (decisions.length > 15) rows.push(`  - … and ${decisions.length - 15} more`);
    items.push(`- **Evidence for failures that predate the change** (${decisions.filter((d) => d.excused).length} excused, ${decisions.filter((d) => !d.excused).length} blocking):\n${rows.join('\n')}`);
  }
  if (!r.final && before.size) items.push(`- **Failing before any edit** (${before.size}): ${ids([...before])}`);
  if (flaky.length) items.push(`- **Flaky** (${flaky.length}, result differs between two runs of the same code; not blocking): ${ids(flaky)}`);
  for (const run of [r.baseline, r.final]) {
    if (run?.loadErrors?.length) items.push(`- **Failed to load** (${run === r.baseline ? 'before' : 'after'}): ${ids(run.loadErrors)}`);
  }
  for (const [label, run] of [['before', r.baseline], ['after', r.final]] as const) {
    const why = run ? describeConsistency(run) : '';
    if (why && run?.consistency !== 'no-results') items.push(`- **Exit code vs results** (${label}): ${why}`);
  }
  if (items.length) out.push(items.join('\n'));

  // A follow-up or rebase is judged by its own gate; an unproven proof there is not a missing one.
  const proof = intel?.proof && (intel.proof.status === 'proven' || !intel.proofNotAsked) ? intel.proof : undefined;
  if (proof) {
    const head = proof.status === 'proven' ? '**Fail-to-pass proof**: fails before, passes after.' : `**Fail-to-pass proof**: missing. ${proof.detail}`;
    const rows = proof.tests.slice(0, 20).map((t) => `| ${code(t.id)} | ${t.before} | ${t.after} |`);
    out.push(
      rows.length
        ? `${head}${proof.status === 'proven' ? ` ${proof.detail}` : ''}\n\n| test | before the fix | after the fix |\n| --- | --- | --- |\n${rows.join('\n')}`
        : head,
    );
  } else if (r.status === 'fixed' && intel?.proofNotAsked) {
    out.push(`**Fail-to-pass proof**: not asked (${intel.proofNotAsked}).`);
  } else if (r.status === 'fixed') {
    out.push('**Fail-to-pass proof**: missing (not run).');
  }

  if (intel?.original) {
    const o = intel.original;
    const verdictWord = o.relaxed ? 'relaxed by policy' : o.ok ? 'passed' : 'refused';
    out.push(`**Original tests** (${verdictWord}): the change touches ${ids(o.testFiles, 8)}, so the tests as they were before it ran against only the source changes (${o.counts.passed} passed, ${o.counts.failed} failed, exit ${o.exitCode ?? 'none'}). ${o.detail}`);
  }

  if (intel?.commentOnly?.length) {
    const lines = describeCommentHunks(intel.commentOnly);
    out.push(`**Comment-only changes** (${lines.length}; no effect on the code, review whether they belong in the change):\n${lines.slice(0, 10).map((l) => `- ${l}`).join('\n')}`);
  }

  const gateRefusals = [...new Set((intel?.refusals ?? []).filter((x) => /^\[(?:original-tests|test-edits-alone)\]/.test(x)))];
  if (gateRefusals.length) {
    out.push(`**The gate** refused ${gateRefusals.length === 1 ? 'a change' : 'changes'} whose tests were edited:\n${gateRefusals.slice(0, 10).map((x) => `- ${x}`).join('\n')}`);
  }
  const guardRefusals = (intel?.refusals ?? []).filter((x) => !gateRefusals.includes(x));
  if (guardRefusals.length) {
    const uniq = [...new Set(guardRefusals)];
    out.push(`**Test-integrity guard** refused ${uniq.length === 1 ? 'a change' : 'changes'} during the run:\n${uniq.slice(0, 10).map((x) => `- ${x}`).join('\n')}`);
  }

  if (intel?.commands.length) {
    const rows = ['| step | command | exit | passed | failed | time |', '| --- | --- | --- | --- | --- | --- |'];
    for (const c of intel.commands) {
      const exit = c.timedOut ? 'timed out' : String(c.exitCode ?? 'none');
      rows.push(`| ${PURPOSE[c.purpose] ?? c.purpose} | ${code(c.command)} | ${exit} | ${c.counts.passed} | ${c.counts.failed} | ${(c.durationMs / 1000).toFixed(1)} s |`);
    }
    const detected = intel.detection ? `Detected (${intel.runner}): ${intel.detection}.\n\n` : `Runner: ${intel.runner}.\n\n`;
    out.push(`<details><summary>Test commands run (${intel.commands.length})</summary>\n\n${detected}${rows.join('\n')}\n\n</details>`);
  }
  return out.join('\n\n');
}
