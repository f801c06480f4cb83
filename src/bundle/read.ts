/**
 * Reads and validates bundles for the `publish` mode. Every bundle is untrusted input: the
 * propose job ran model-written code (the tests), which could have rewritten the bundle on disk.
 * A bundle is accepted only when all of these hold, else it is refused with the reason:
 *
 * - its directory holds exactly manifest.json and change.patch, regular files (no symbolic
 *   links), within the size limits (BundleLimits);
 * - the manifest is JSON, an agent-fix bundle of version 1, valid against the schema;
 * - it is for this task (key) and this base (the sha publish itself checked out), and that
 *   commit is present;
 * - the patch is the one the manifest names (bytes and sha256), and a verified bundle has one
 *   (an unverified bundle has none);
 * - every path the patch names, and every path of the resulting tree that differs from the
 *   base, is a plain relative path (no `..`, no absolute path, no `.git` component) and is not
 *   protected (`.github/workflows/**`, `.git/**`, the policy's forbidden paths, paths outside
 *   its allow-list, LFS files and submodules of the checkout);
 * - the patch applies cleanly to the base tree (git apply --cached on a private index in an
 *   isolated git directory, adapters/patch.ts: no hook, filter or configured command of the
 *   checkout can run, and the working tree is never touched);
 * - the result creates or changes no symbolic link (a fix made by agent-fix never contains one:
 *   its tools write regular files; so every new symlink is refused, whether its target escapes
 *   the repository or not, and the reason says where it points), no submodule (gitlink) and
 *   no `.gitmodules`;
 * - the change stays within max-changed-files and max-changed-lines;
 * - the test-integrity guard (static: no deleted tests, no added skip/only, no weakened
 *   assertions, no snapshot updates...) finds nothing, as it did in the propose job.
 * Nothing of the repository is executed: no setup, no tests, no npm, no hooks.
 *
 * What cannot be checked without running the tests is the claim "verified" itself: publish
 * trusts the evidence of a bundle that passes every check above, and the PR says which
 * candidate's evidence it is. The checks bound what a forged bundle can do to what a pull
 * request for a human to review may contain.
 */
import { createHash } from 'node:crypto';
import { lstat, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import type { PatchGit, TreeChange } from '../ports/patch.js';
import type { Settings } from '../settings/types.js';
import { ALWAYS_PROTECTED, matchingGlob } from '../workspace/paths.js';
import { allowListAsProtected } from '../policy/apply.js';
import { repoStateProtections } from '../workspace/repo-state.js';
import { checkTestIntegrity, type IntegrityCategory } from '../guard/test-integrity.js';
import { BUNDLE_VERSION, DEFAULT_LIMITS, MANIFEST_FILE, ManifestSchema, PATCH_FILE, describeIssues, type BundleLimits, type Manifest } from './schema.js';

export interface BundleExpectation {
  taskKey: string;
  /** The commit publish checked out and will base the branch on. */
  baseSha: string;
  /** Globs no change may touch (ALWAYS_PROTECTED is added). */
  protectedPaths: string[];
  maxChangedFiles: number;
  maxChangedLines: number;
  /** Test-integrity categories this task may use (settings and task text: guard/test-integrity.ts allowedCategories); default none. */
  integrityAllowed?: IntegrityCategory[];
  limits?: BundleLimits;
}

export interface AcceptedBundle {
  kind: 'accepted';
  /** The bundle directory, relative to the `bundles` directory. */
  dir: string;
  manifest: Manifest;
  patch: Buffer;
  /** The tree to publish (base + patch); null when the bundle carries no change. */
  tree: string | null;
  changes: TreeChange[];
  size: { files: number; lines: number };
}

export interface RefusedBundle {
  kind: 'refused';
  dir: string;
  /** Candidate id when the manifest got far enough to name one. */
  candidate: string | null;
  reason: string;
}

export type CheckedBundle = AcceptedBundle | RefusedBundle;

/** The protected globs of publish: the settings', the allow-list's complement, LFS files and submodules of the checkout. */
export async function publishProtections(settings: Pick<Settings, 'protectedPaths' | 'allowedPaths'>, root: string): Promise<string[]> {
  return [...new Set([...ALWAYS_PROTECTED, ...settings.protectedPaths, ...allowListAsProtected(settings.allowedPaths), ...(await repoStateProtections(root))])];
}

/**
 * Every bundle under `root` (a directory holding manifest.json, at most three levels down;
 * `download-artifact` puts them at depth 1 with `merge-multiple`, at depth 2 without), each
 * checked. Throws only when `root` itself cannot be read.
 */
export async function readBundles(root: string, expect: BundleExpectation, patches: PatchGit): Promise<CheckedBundle[]> {
  const limits = expect.limits ?? DEFAULT_LIMITS;
  const rootStat = await lstat(root).catch(() => null);
  if (!rootStat) throw new Error(`The bundles directory ${root} does not exist: download the propose jobs' artifacts there first (actions/download-artifact with merge-multiple: true).`);
  if (!rootStat.isDirectory()) throw new Error(`The bundles input ${root} is not a directory.`);
  const found: string[] = [];
  const refused: RefusedBundle[] = [];
  let entries = 0;
  const walk = async (dir: string, depth: number): Promise<void> => {
    const names = (await readdir(dir)).sort();
    if (names.includes(MANIFEST_FILE)) {
      found.push(dir);
      return;
    }
    for (const name of names) {
      if (++entries > limits.entries) return;
      const abs = path.join(dir, name);
      const st = await lstat(abs);
      if (st.isSymbolicLink()) {
        refused.push({ kind: 'refused', dir: rel(root, abs), candidate: null, reason: 'a symbolic link in the bundles directory; not followed' });
      } else if (st.isDirectory() && depth < 3) {
        await walk(abs, depth + 1);
      }
    }
  };
  await walk(root, 0);
  if (entries > limits.entries) {
    refused.push({ kind: 'refused', dir: '.', candidate: null, reason: `the bundles directory has more than ${limits.entries} entries; only the first were looked at` });
  }
  const checked: CheckedBundle[] = [];
  const seen = new Set<string>();
  for (const [i, dir] of found.entries()) {
    if (i >= limits.bundles) {
      checked.push({ kind: 'refused', dir: rel(root, dir), candidate: null, reason: `more than ${limits.bundles} bundles; this one was not read` });
      continue;
    }
    const result = await checkBundle(dir, expect, patches, rel(root, dir));
    const id = result.kind === 'accepted' ? result.manifest.candidate.id : null;
    if (id !== null && seen.has(id)) {
      checked.push({ kind: 'refused', dir: result.dir, candidate: id, reason: `another bundle already has candidate id "${id}" (give each matrix cell its own candidate)` });
      continue;
    }
    if (id !== null) seen.add(id);
    checked.push(result);
  }
  return [...checked, ...refused];
}

/** Checks one bundle directory; never throws for anything the bundle contains. */
export async function checkBundle(dir: string, expect: BundleExpectation, patches: PatchGit, shown = dir): Promise<CheckedBundle> {
  let candidate: string | null = null;
  const refuse = (reason: string): RefusedBundle => ({ kind: 'refused', dir: shown, candidate, reason });
  const limits = expect.limits ?? DEFAULT_LIMITS;

  // ---- files
  const names = (await readdir(dir)).sort();
  const extra = names.filter((n) => n !== MANIFEST_FILE && n !== PATCH_FILE);
  if (extra.length) return refuse(`unexpected file(s) in the bundle: ${extra.slice(0, 5).map((n) => code(n)).join(', ')} (a bundle holds only ${MANIFEST_FILE} and ${PATCH_FILE})`);
  if (!names.includes(PATCH_FILE)) return refuse(`${PATCH_FILE} is missing`);
  const manifestRead = await readRegular(path.join(dir, MANIFEST_FILE), limits.manifestBytes, 'manifest', MANIFEST_FILE);
  if (!manifestRead.ok) return refuse(manifestRead.error);
  const patchRead = await readRegular(path.join(dir, PATCH_FILE), limits.patchBytes, 'patch', PATCH_FILE);
  if (!patchRead.ok) return refuse(patchRead.error);
  const patch = patchRead.data;

  // ---- manifest
  let json: unknown;
  try {
    json = JSON.parse(manifestRead.data.toString('utf8'));
  } catch (e) {
    return refuse(`${MANIFEST_FILE} is not valid JSON (${code((e as Error).message)})`);
  }
  if (!json || typeof json !== 'object' || (json as { kind?: unknown }).kind !== 'agent-fix-bundle') {
    return refuse(`${MANIFEST_FILE} is not an agent-fix bundle (no "kind": "agent-fix-bundle")`);
  }
  const version = (json as { version?: unknown }).version;
  if (version !== BUNDLE_VERSION) {
    return refuse(`bundle version ${code(JSON.stringify(version) ?? 'none')} is not supported: this agent-fix reads version ${BUNDLE_VERSION}; use the same agent-fix version in the propose and publish jobs`);
  }
  const rawId = (json as { candidate?: { id?: unknown } }).candidate?.id;
  if (typeof rawId === 'string' && /^[A-Za-z0-9._-]{1,64}$/.test(rawId)) candidate = rawId;
  const parsed = ManifestSchema.safeParse(json);
  if (!parsed.success) return refuse(`${MANIFEST_FILE} does not match the bundle schema: ${code(describeIssues(parsed.error), 600)}`);
  const manifest = parsed.data;

  // ---- identity
  if (manifest.task.key !== expect.taskKey) return refuse(`it is for task ${code(manifest.task.key)}, not ${code(expect.taskKey)}`);
  if (manifest.baseSha !== expect.baseSha) {
    return refuse(`its base ${manifest.baseSha.slice(0, 12)} is not the commit this job checked out (${expect.baseSha.slice(0, 12)}): the propose and publish jobs must check out the same commit`);
  }
  if (!(await patches.hasCommit(manifest.baseSha))) return refuse(`its base commit ${manifest.baseSha} is not in this checkout`);
  if (patch.length !== manifest.patch.bytes || createHash('sha256').update(patch).digest('hex') !== manifest.patch.sha256) {
    return refuse(`${PATCH_FILE} is not the patch the manifest names (size or sha256 differs): the bundle was altered or truncated`);
  }
  const fixed = manifest.evidence.status === 'fixed';
  if (fixed !== (manifest.evidence.reason === 'verified')) return refuse(`status "${manifest.evidence.status}" contradicts reason "${manifest.evidence.reason}"`);
  if (fixed && patch.length === 0) return refuse('it claims a verified fix but carries no change');
  if (!fixed && patch.length > 0) return refuse(`it carries a change but no verified fix (status "${manifest.evidence.status}")`);
  if (!fixed) return { kind: 'accepted', dir: shown, manifest, patch, tree: null, changes: [], size: { files: 0, lines: 0 } };

  // ---- the patch, before applying it
  const globs = [...new Set([...ALWAYS_PROTECTED, ...expect.protectedPaths])];
  const named = await patches.patchPaths(patch);
  if (!named.ok) return refuse(`${PATCH_FILE} is not a patch git can read: ${code(named.error, 400)}`);
  for (const p of named.paths) {
    const problem = pathProblem(p, globs);
    if (problem) return refuse(problem);
  }

  // ---- applied on a private index, never the working tree
  const baseTree = `${manifest.baseSha}^{tree}`;
  const applied = await patches.applyToTree(baseTree, patch);
  if (!applied.ok) return refuse(`the patch does not apply cleanly to ${manifest.baseSha.slice(0, 12)}: ${code(applied.error, 400)}`);
  const changes = await patches.treeChanges(baseTree, applied.tree);
  if (changes.length === 0) return refuse('the patch changes nothing');
  for (const c of changes) {
    const problem = pathProblem(c.path, globs);
    if (problem) return refuse(problem);
    if (c.oldMode === '160000' || c.newMode === '160000' || c.path.toLowerCase() === '.gitmodules') {
      return refuse(`it changes a submodule (${code(c.path)}); agent-fix never publishes submodule changes`);
    }
    if (c.newMode === '120000') {
      const target = (await patches.readBlob(applied.tree, c.path)).toString('utf8');
      const where = symlinkEscapes(c.path, target) ? 'outside the repository' : 'inside the repository';
      return refuse(`it makes ${code(c.path)} a symbolic link (to ${code(target)}, ${where}); agent-fix never publishes symbolic links`);
    }
  }
  const lines = changes.reduce((n, c) => n + c.additions + c.deletions, 0);
  if (expect.maxChangedFiles > 0 && changes.length > expect.maxChangedFiles) {
    return refuse(`it changes ${changes.length} files, more than max-changed-files (${expect.maxChangedFiles})`);
  }
  if (expect.maxChangedLines > 0 && lines > expect.maxChangedLines) {
    return refuse(`it changes ${lines} lines, more than max-changed-lines (${expect.maxChangedLines})`);
  }
  // The propose job's guard ran where model-written code ran too: the same static check again, here.
  const findings = checkTestIntegrity(patch.toString('utf8'), expect.integrityAllowed ?? []);
  if (findings.length) {
    return refuse(`the test-integrity guard refuses it: ${findings.slice(0, 3).map((f) => `[${f.category}] ${f.reason}`).join('; ')}`);
  }
  return { kind: 'accepted', dir: shown, manifest, patch, tree: applied.tree, changes, size: { files: changes.length, lines } };
}

/** Why `p` (a path from a patch or a tree) may not be changed, or null. */
export function pathProblem(p: string, protectedGlobs: readonly string[]): string | null {
  const shown = code(p);
  if (!p || p.includes('\0')) return `it names an empty or NUL-containing path`;
  if (p.startsWith('/') || /^[A-Za-z]:[\\/]/.test(p) || p.startsWith('\\')) return `it names an absolute path ${shown}`;
  const parts = p.split(/[\\/]/);
  if (parts.some((s) => s === '..')) return `it names a path that escapes the repository: ${shown}`;
  if (parts.some((s) => s === '' || s === '.')) return `it names a path that is not in plain form: ${shown}`;
  if (parts.some((s) => s.toLowerCase().replace(/[. ]+$/, '') === '.git' || /^git~\d+$/i.test(s))) return `it touches git internals: ${shown}`;
  const glob = matchingGlob(p, protectedGlobs);
  if (glob) return `it touches the protected path ${shown} (${code(glob)})`;
  return null;
}

/** Does a symlink at `linkPath` with `target` point outside the repository? */
export function symlinkEscapes(linkPath: string, target: string): boolean {
  if (target.startsWith('/') || /^[A-Za-z]:[\\/]/.test(target)) return true;
  const resolved = path.posix.normalize(path.posix.join(path.posix.dirname(linkPath), target.replace(/\\/g, '/')));
  return resolved === '..' || resolved.startsWith('../');
}

type Read = { ok: true; data: Buffer } | { ok: false; error: string };

/** Reads a regular file of at most `max` bytes (a symlink or anything else is refused; the size is checked before and while reading). */
async function readRegular(file: string, max: number, what: string, name: string): Promise<Read> {
  const st = await lstat(file).catch(() => null);
  if (!st) return { ok: false, error: `${name} is missing` };
  if (st.isSymbolicLink()) return { ok: false, error: `${name} is a symbolic link; not followed` };
  if (!st.isFile()) return { ok: false, error: `${name} is not a regular file` };
  if (st.size > max) return { ok: false, error: `the ${what} is ${st.size} bytes, over the limit of ${max} bytes` };
  const handle = await open(file, 'r');
  try {
    // one byte more than expected: a file that grew since lstat is noticed, not cut short
    const buf = Buffer.alloc(st.size + 1);
    let total = 0;
    while (total < buf.length) {
      const { bytesRead } = await handle.read(buf, total, buf.length - total, total);
      if (bytesRead === 0) break;
      total += bytesRead;
    }
    if (total !== st.size) return { ok: false, error: `${name} changed while it was read` };
    return { ok: true, data: buf.subarray(0, total) };
  } finally {
    await handle.close();
  }
}

/**
 * Bundle-controlled text (paths, names, git's messages) as inline code: in a comment or PR
 * body it cannot render as markdown or HTML, mention anyone, or break out of its line.
 */
export function code(text: string, max = 200): string {
  const t = text.replace(/[\r\n`]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '?');
  return `\`${t.length > max ? `${t.slice(0, max)}…` : t}\``;
}

function rel(root: string, p: string): string {
  return path.relative(root, p).split(path.sep).join('/') || '.';
}
