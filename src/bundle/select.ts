/**
 * Picks the candidate to publish among checked bundles. Pure.
 *
 * Order (first difference decides):
 *   1. verified before not verified;
 *   2. fewer tests still failing in the final run (a verified fix may leave failures that
 *      predate it; an unverified attempt without a final run counts as worst);
 *   3. smaller change: fewer changed lines, then fewer files (measured on the applied patch,
 *      not taken from the bundle's word);
 *   4. lower cost (unknown cost after any known one);
 *   5. candidate id (numbers in numeric order, then text), so the choice is deterministic.
 * Only a verified candidate is published; when none is, the best attempt's report is what the
 * comment shows. Every other candidate gets one line saying why it lost or why it was refused.
 */
import { code, type AcceptedBundle, type CheckedBundle, type RefusedBundle } from './read.js';

export interface CandidateLine {
  candidate: string | null;
  dir: string;
  role: 'winner' | 'best-attempt' | 'lost' | 'refused';
  /** One line of markdown. */
  text: string;
}

export interface Selection {
  /** The best verified candidate: the one to publish. */
  winner: AcceptedBundle | null;
  /** The best candidate, verified or not (the comment's report when there is no winner). */
  best: AcceptedBundle | null;
  ranked: AcceptedBundle[];
  refused: RefusedBundle[];
  lines: CandidateLine[];
}

interface Key {
  verified: boolean;
  stillFailing: number;
  lines: number;
  files: number;
  cost: number;
  id: string;
}

function keyOf(b: AcceptedBundle): Key {
  const e = b.manifest.evidence;
  const cost = e.safety?.costUsd;
  return {
    verified: e.status === 'fixed',
    stillFailing: e.final ? e.final.counts.failed : Number.POSITIVE_INFINITY,
    lines: b.size.lines,
    files: b.size.files,
    cost: typeof cost === 'number' ? cost : Number.POSITIVE_INFINITY,
    id: b.manifest.candidate.id,
  };
}

export function compareIds(a: string, b: string): number {
  const na = /^\d+$/.test(a) ? Number(a) : null;
  const nb = /^\d+$/.test(b) ? Number(b) : null;
  if (na !== null && nb !== null && na !== nb) return na - nb;
  if (na !== null && nb === null) return -1;
  if (na === null && nb !== null) return 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function compareBundles(a: AcceptedBundle, b: AcceptedBundle): number {
  const x = keyOf(a);
  const y = keyOf(b);
  if (x.verified !== y.verified) return x.verified ? -1 : 1;
  if (x.stillFailing !== y.stillFailing) return x.stillFailing - y.stillFailing;
  if (x.lines !== y.lines) return x.lines - y.lines;
  if (x.files !== y.files) return x.files - y.files;
  if (x.cost !== y.cost) return x.cost < y.cost ? -1 : 1;
  return compareIds(x.id, y.id);
}

/** Why `loser` ranks after `winner`: the first key that differs. */
export function whyLost(loser: AcceptedBundle, winner: AcceptedBundle): string {
  const l = keyOf(loser);
  const w = keyOf(winner);
  if (l.verified !== w.verified) return 'not verified';
  if (l.stillFailing !== w.stillFailing) return `more tests still failing (${fmtCount(l.stillFailing)} vs ${fmtCount(w.stillFailing)})`;
  if (l.lines !== w.lines) return `larger change (${l.lines} vs ${w.lines} changed lines)`;
  if (l.files !== w.files) return `more files changed (${l.files} vs ${w.files})`;
  if (l.cost !== w.cost) return `higher cost (${fmtCost(l.cost)} vs ${fmtCost(w.cost)})`;
  return `same rank; candidate "${w.id}" comes first by id`;
}

export function selectBundle(checked: CheckedBundle[]): Selection {
  const ranked = checked.filter((c): c is AcceptedBundle => c.kind === 'accepted').sort(compareBundles);
  const refused = checked.filter((c): c is RefusedBundle => c.kind === 'refused');
  const best = ranked[0] ?? null;
  const winner = best && best.manifest.evidence.status === 'fixed' ? best : null;
  const lines: CandidateLine[] = [];
  for (const b of ranked) {
    const role: CandidateLine['role'] = b === winner ? 'winner' : b === best ? 'best-attempt' : 'lost';
    const tail = role === 'winner' ? ' — **published**' : role === 'best-attempt' ? ' — best attempt (not published)' : ` — lost: ${whyLost(b, best!)}`;
    lines.push({ candidate: b.manifest.candidate.id, dir: b.dir, role, text: `${describe(b)}${tail}` });
  }
  for (const r of refused) {
    const who = r.candidate !== null ? `candidate \`${r.candidate}\`` : code(r.dir);
    lines.push({ candidate: r.candidate, dir: r.dir, role: 'refused', text: `${who} — refused: ${r.reason}` });
  }
  return { winner, best, ranked, refused, lines };
}

/** `candidate `2` (gpt-4.1, temperature 0.4): verified, 1 file +2/-1, $0.0042` */
export function describe(b: AcceptedBundle): string {
  const m = b.manifest;
  const e = m.evidence;
  const sampling = [code(m.settings.model, 80), m.candidate.temperature !== undefined ? `temperature ${m.candidate.temperature}` : null].filter(Boolean).join(', ');
  const status = e.status === 'fixed' ? 'verified' : `not verified (${e.reason})`;
  const adds = b.changes.reduce((n, c) => n + c.additions, 0);
  const dels = b.changes.reduce((n, c) => n + c.deletions, 0);
  const diff = b.tree ? `${b.size.files} file${b.size.files === 1 ? '' : 's'} +${adds}/-${dels}` : 'no change';
  const failing = e.final && e.final.counts.failed > 0 ? `, ${e.final.counts.failed} test(s) still failing` : '';
  const cost = e.safety?.costUsd;
  return `candidate \`${m.candidate.id}\` (${sampling}): ${status}, ${diff}${failing}, ${typeof cost === 'number' ? fmtCost(cost) : 'cost unknown'}`;
}

/** The candidates section of the PR body / comment. */
export function renderCandidates(s: Selection): string {
  if (s.lines.length === 0) return '';
  const head = s.winner
    ? `**Candidates**: ${s.lines.length} bundle(s); candidate \`${s.winner.manifest.candidate.id}\` is published (verified first, then fewest failing tests, smallest change, lowest cost).`
    : `**Candidates**: ${s.lines.length} bundle(s); none is verified, so nothing is published.`;
  return `${head}\n\n${s.lines.map((l) => `- ${l.text}`).join('\n')}`;
}

function fmtCost(c: number): string {
  if (!Number.isFinite(c)) return 'cost unknown';
  return `$${c < 0.01 ? c.toFixed(4) : c.toFixed(2)}`;
}

function fmtCount(n: number): string {
  return Number.isFinite(n) ? String(n) : 'no final run';
}
