/** For a refusal: the file region most similar to what the model quoted. */
import { rstrip, cap } from './text.js';

// ------------------------------------------------------------------ closest region

function bigrams(s: string): Set<string> {
  const t = s.trim().replace(/\s+/g, ' ');
  const set = new Set<string>();
  if (t.length === 1) set.add(t);
  for (let i = 0; i + 1 < t.length; i++) set.add(t.slice(i, i + 2));
  return set;
}

function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  const [small, big] = a.size < b.size ? [a, b] : [b, a];
  for (const x of small) if (big.has(x)) inter++;
  return (2 * inter) / (a.size + b.size);
}

/** A short description of the file region most similar to `block`, with line numbers. */
export function closest(file: string[], block: string[]): string {
  const want = block.slice(0, 40);
  const n = want.length;
  if (file.length === 0 || n === 0) return 'The file is empty.';
  const cache = new Map<string, Set<string>>();
  const grams = (s: string) => {
    let g = cache.get(s);
    if (!g) {
      g = bigrams(s);
      cache.set(s, g);
    }
    return g;
  };
  const wantGrams = want.map(grams);
  // keep the work bounded on very large files: score at most ~2M line pairs
  const windows = Math.max(1, file.length - n + 1);
  const step = Math.max(1, Math.ceil((windows * n) / 2_000_000));
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < windows; i += step) {
    let score = 0;
    for (let j = 0; j < n && i + j < file.length; j++) score += similarity(wantGrams[j], grams(file[i + j]));
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  const pct = Math.round((100 * bestScore) / n);
  const shownCount = Math.min(n, 12, file.length - best);
  const width = String(best + shownCount).length;
  const shown = file
    .slice(best, best + shownCount)
    .map((l, k) => `${String(best + k + 1).padStart(width)}| ${cap(l.replace(/\r$/, ''), 160)}`);
  let diffNote = '';
  for (let j = 0; j < shownCount; j++) {
    const f = file[best + j];
    if (rstrip(f) !== rstrip(want[j])) {
      diffNote =
        `\nFirst difference at line ${best + j + 1}: the file has ${JSON.stringify(cap(rstrip(f), 120))}, ` +
        `old_string has ${JSON.stringify(cap(rstrip(want[j]), 120))}.`;
      break;
    }
  }
  return (
    `Closest region (lines ${best + 1}-${best + shownCount}, ~${pct}% similar):\n` +
    shown.join('\n') +
    (shownCount < n ? '\n…' : '') +
    diffNote
  );
}
