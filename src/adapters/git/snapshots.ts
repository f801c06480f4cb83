/**
 * Snapshots of the working tree as git trees, and the working tree put back to one (restore),
 * on a private index that lives as long as this object; the filter drivers read and blanked
 * before each snapshot (refreshFilters).
 */
import { mkdtemp, rm, copyFile, unlink, rmdir, lstat, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_LIST_ARGS, configSources, defaultConfigFiles, filterOverrides } from '../../ports/git-filters.js';
import { PRIVATE_TMP, removeAtExit } from './env.js';
import { isSafeRelPath, parseRaw, fileStates } from './parse.js';
import type { GitProcess } from './process.js';

export class Snapshots {
  constructor(private readonly git: GitProcess) {}

  /** HEAD moved: the next snapshot seeds its index from the new HEAD. */
  forget(): void {
    this.snapshotEnv = null;
  }

  /**
   * A snapshot is `add -A` + `write-tree` on a private index that lives as long as this object:
   * seeded once from HEAD (through the real index, whose stat cache spares re-hashing unchanged
   * files), then kept in step with the working tree, so each later snapshot costs two git calls.
   */
  async snapshot(): Promise<string> {
    await this.refreshFilters();
    const env = await this.snapshotIndex();
    await this.git.run(['add', '-A', '--', '.', ...(await this.gitlinkExcludes(env))], { env });
    const tree = await this.git.out(['write-tree'], { env });
    this.knownTrees.add(tree);
    return tree;
  }

  /**
   * Reads the filter drivers defined now (a setup script or a test may have added one since) and
   * blanks them. Skipped when none of the files git reads its configuration from (the checkout's,
   * the global and system ones, every file a value came from or an include names) changed since
   * the last read: a write changes a file's ctime, an atomic replace its inode.
   */
  async refreshFilters(): Promise<void> {
    const watched = this.filterWatch;
    if (watched && watched.state !== 'racy' && (await fileStates(watched.files)) === watched.state) return;
    const defaults = await this.defaultConfigFiles();
    const stated = [...new Set([...defaults, ...(watched?.files ?? [])])];
    // stated before the read: a write during the read shows as a change next time
    const before = await fileStates(stated);
    // the configuration as defined (files, includes), without the blanks of the last look
    const r = await this.git.run(CONFIG_LIST_ARGS, { ok: [0, 1], env: { GIT_CONFIG_COUNT: '0' } });
    const sources = configSources(r.stdout, this.git.root, process.env.HOME);
    this.git.filterOff = filterOverrides(sources.filters);
    const added = sources.files.filter((f) => !stated.includes(f));
    const after = await fileStates(added);
    this.filterWatch = { files: [...stated, ...added], state: before === 'racy' || after === 'racy' ? 'racy' : [before, after].filter(Boolean).join('\n') };
    this.configReads++;
  }

  /** How often the configuration was read (refreshFilters); for the tests. */
  configReads = 0;
  private filterWatch: { files: string[]; state: string } | null = null;
  private configFiles: string[] | null = null;

  private async defaultConfigFiles(): Promise<string[]> {
    if (this.configFiles) return this.configFiles;
    const [gitDir, commonDir] = (await this.git.out(['rev-parse', '--absolute-git-dir', '--git-common-dir'])).split('\n');
    const execPath = await this.git.out(['--exec-path']);
    this.configFiles = defaultConfigFiles({ gitDir, commonDir: path.resolve(this.git.root, commonDir), execPath, env: process.env });
    return this.configFiles;
  }

  private snapshotEnv: Record<string, string> | null = null;
  /** Trees this object wrote: restore() need not verify them. */
  private readonly knownTrees = new Set<string>();

  /**
   * Submodules stay as HEAD records them: a setup's `git submodule update --init` checks one out
   * with its git directory in the sandbox's layer over `.git` (sandbox/plan.ts), which agent-fix's
   * own git never reads, so `add` would fail on it; and no change of agent-fix's moves a submodule.
   */
  private async gitlinkExcludes(env: Record<string, string>): Promise<string[]> {
    if (this.gitlinks === null) {
      const staged = (await this.git.run(['ls-files', '-s', '-z'], { env })).stdout.split('\0');
      this.gitlinks = staged.filter((e) => e.startsWith('160000 ')).map((e) => e.slice(e.indexOf('\t') + 1));
    }
    return this.gitlinks.map((p) => `:(exclude,literal,top)${p}`);
  }

  private gitlinks: string[] | null = null;

  private async snapshotIndex(): Promise<Record<string, string>> {
    if (this.snapshotEnv) return this.snapshotEnv;
    const dir = await mkdtemp(path.join(PRIVATE_TMP, 'agent-fix-index-'));
    removeAtExit(dir);
    const env = { GIT_INDEX_FILE: path.join(dir, 'index') };
    if (await this.git.hasHead()) {
      const realIndex = path.resolve(this.git.root, await this.git.out(['rev-parse', '--git-path', 'index']));
      let seeded = false;
      try {
        await copyFile(realIndex, env.GIT_INDEX_FILE);
        // Keep the index's own mtime: git's racy-clean check compares file mtimes with it, and a
        // fresh mtime would make a same-size edit made in the same second as the checkout look
        // unchanged (the edit would be lost from the snapshot). __tests__/integration/git-racy.test.ts
        const st = await stat(realIndex);
        await utimes(env.GIT_INDEX_FILE, st.atime, st.mtime);
        // content equal to HEAD whatever the user staged; the stat cache is what we keep
        await this.git.run(['read-tree', '-m', 'HEAD'], { env });
        seeded = true;
      } catch {
        seeded = false;
      }
      if (!seeded) {
        await rm(env.GIT_INDEX_FILE, { force: true });
        await this.git.run(['read-tree', 'HEAD'], { env });
      }
    } else {
      await this.git.run(['read-tree', '--empty'], { env });
    }
    this.snapshotEnv = env;
    return env;
  }

  async restore(tree: string): Promise<void> {
    const target = this.knownTrees.has(tree) ? tree : await this.git.out(['rev-parse', '--verify', `${tree}^{tree}`]);
    const current = await this.snapshot();
    if (current === target) return;
    const raw = await this.git.out(['diff-tree', '-r', '--no-renames', '-z', current, target]);
    const toDelete: string[] = [];
    const toWrite: string[] = [];
    for (const e of parseRaw(raw)) {
      if (!isSafeRelPath(e.path)) throw new Error(`refusing to restore unsafe path ${JSON.stringify(e.path)}`);
      if (e.status === 'D') {
        if (e.srcMode !== '160000') toDelete.push(e.path);
      } else if (e.status === 'T' && e.srcMode === '160000') {
        // a submodule became a file: leave the directory alone, cannot be written safely
        continue;
      } else if (e.dstMode !== '160000') {
        toWrite.push(e.path);
      }
    }
    const dirs = new Set<string>();
    for (const p of toDelete) {
      const abs = path.join(this.git.root, p);
      await unlink(abs).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      for (let d = path.posix.dirname(p); d !== '.' && d !== '/'; d = path.posix.dirname(d)) dirs.add(d);
    }
    // Remove directories left empty, deepest first (rmdir fails on non-empty ones: ignored files survive).
    for (const d of [...dirs].sort((a, b) => b.length - a.length)) {
      await rmdir(path.join(this.git.root, d)).catch(() => {});
    }
    if (toWrite.length > 0) {
      await this.git.withTempIndex(async (env) => {
        await this.git.run(['read-tree', target], { env });
        // A file being replaced by a directory (or the reverse) must go first.
        for (const p of toWrite) await this.clearPathConflicts(p);
        await this.git.run(['checkout-index', '-f', '-q', '-z', '--stdin'], { env, input: toWrite.join('\0') + '\0' });
      });
    }
    // Refresh stat info of the real index only (never changes what is staged).
    await this.git.run(['update-index', '-q', '--refresh'], { ok: [0, 1] }).catch(() => {});
  }

  /** If a parent of `p` exists as a non-directory, remove it so the file can be written. */
  private async clearPathConflicts(p: string): Promise<void> {
    const parts = p.split('/');
    for (let i = 1; i < parts.length; i++) {
      const abs = path.join(this.git.root, ...parts.slice(0, i));
      const st = await lstat(abs).catch(() => null);
      if (!st) return;
      if (!st.isDirectory()) {
        await unlink(abs);
        return;
      }
    }
  }
}
