/** Plumbing output read (`diff-tree --raw -z`, `--numstat`), paths checked, files stated and digested. */
import { stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';

export function fileDigest(file: string): string {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('hex');
  } catch {
    return 'absent';
  }
}

export function trackingRef(remote: string, branch: string): string {
  return /^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(remote) ? `refs/remotes/${remote}/${branch}` : `refs/agent-fix/fetched/${branch}`;
}

/** A repo-relative path that stays inside the work tree and outside `.git`. */
export function isSafeRelPath(p: string): boolean {
  if (!p || p.startsWith('/') || p.includes('\0')) return false;
  return p.split('/').every((part) => part !== '' && part !== '.' && part !== '..' && part.toLowerCase() !== '.git');
}

export function splitZ(s: string): string[] {
  return s.split('\0').filter((x) => x.length > 0);
}

interface RawEntry {
  srcMode: string;
  dstMode: string;
  status: string;
  path: string;
  oldPath?: string;
}

/** Parses `diff-tree -z --raw` output. */
export function parseRaw(out: string): RawEntry[] {
  const t = out.split('\0');
  const entries: RawEntry[] = [];
  let i = 0;
  while (i < t.length) {
    const head = t[i];
    if (!head || !head.startsWith(':')) {
      i++;
      continue;
    }
    const [srcMode, dstMode, , , statusField] = head.slice(1).split(' ');
    const status = statusField.charAt(0);
    if (status === 'R' || status === 'C') {
      entries.push({ srcMode, dstMode, status, oldPath: t[i + 1], path: t[i + 2] });
      i += 3;
    } else {
      entries.push({ srcMode, dstMode, status, path: t[i + 1] });
      i += 2;
    }
  }
  return entries;
}

/** Splits `diff-tree -z --raw --numstat` output: the raw records (each `:<modes> <shas> <status>` then one or two paths) come first. */
export function parseRawNumstat(out: string): { raw: string; numstat: string } {
  const t = out.split('\0');
  let i = 0;
  while (i < t.length && /^:\d{6} \d{6} [0-9a-f]+ [0-9a-f]+ [A-Z]\d*$/.test(t[i])) i += /^[RC]/.test(t[i].split(' ')[4]) ? 3 : 2;
  return { raw: t.slice(0, i).join('\0'), numstat: t.slice(i).join('\0') };
}

/**
 * Each file's state (inode, size, change and modification times), or `-` when it does not exist,
 * in one string; `racy` when a file changed within the last 2 s on a file system with whole-second
 * timestamps (a second write in the same tick could keep all four), which never equals a later state.
 */
export async function fileStates(files: string[]): Promise<string> {
  const recent = (BigInt(Date.now()) - 2000n) * 1_000_000n;
  let racy = false;
  const states = await Promise.all(
    files.map(async (f) => {
      const st = await stat(f, { bigint: true }).catch(() => null);
      if (st && st.ctimeNs >= recent && st.ctimeNs % 1_000_000_000n === 0n) racy = true;
      return st ? `${f}:${st.ino}:${st.size}:${st.ctimeNs}:${st.mtimeNs}` : `${f}:-`;
    }),
  );
  return racy ? 'racy' : states.join('\n');
}

/** Parses `diff-tree -z --numstat` output, keyed by the new path. */
export function parseNumstat(out: string): Map<string, { additions: number; deletions: number; binary: boolean }> {
  const t = out.split('\0');
  const m = new Map<string, { additions: number; deletions: number; binary: boolean }>();
  let i = 0;
  while (i < t.length) {
    const rec = t[i];
    if (!rec) {
      i++;
      continue;
    }
    // added, deleted, path: the path may hold tabs itself (-z leaves it unquoted)
    const [a, d] = rec.split('\t', 2);
    const p = rec.split('\t').slice(2).join('\t');
    const binary = a === '-' && d === '-';
    const stat = { additions: binary ? 0 : Number(a), deletions: binary ? 0 : Number(d), binary };
    if (p === '') {
      // rename/copy: "a\td\t" NUL old NUL new
      m.set(t[i + 2], stat);
      i += 3;
    } else {
      m.set(p, stat);
      i += 1;
    }
  }
  return m;
}
