/**
 * GitPort on the git command line (spawned with execa; every call is one plumbing command).
 *
 * Design notes:
 * - The ambient environment is cleaned of variables that would redirect git elsewhere
 *   (GIT_DIR, GIT_INDEX_FILE, ...) or inject an identity; messages are forced to English
 *   (LC_ALL=C) so rejections can be recognised; prompts are disabled.
 * - Hooks and an fsmonitor never run: every command gets `-c core.hooksPath=/dev/null -c core.fsmonitor=false` (a setup script run by the
 *   harness could otherwise install hooks, e.g. husky) and push gets `--no-verify`.
 * - Filter drivers never run either: `.gitattributes` can route files through `filter.<name>.clean`,
 *   `.smudge` or `.process`, commands that a setup script (or the model's tests) can define in
 *   `.git/config`, and `add -A` (snapshot), `checkout-index` (restore), `update-index --refresh`
 *   and `checkout` would run them. Before each snapshot and checkout the defined drivers are read
 *   (`git config --list --show-origin`, again only when a file the configuration comes from changed:
 *   the checkout's, the global, the system and every included file, by stat) and every one is
 *   blanked through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_<n>`/`GIT_CONFIG_VALUE_<n>`
 *   (`filter.x.clean` = ``, ...; an empty command is no filter to git; the environment form, unlike
 *   `-c`, takes a driver name holding `=` verbatim), except Git LFS's own exact commands (`git-lfs
 *   clean -- %f`, ...), whose files the guard protects anyway (workspace/repo-state.ts).
 * - Error messages are redacted: `scheme://user:pass@host` becomes `scheme://***@host`.
 * - Tree arguments accept any tree-ish (`<commit>^{tree}` works too).
 *
 * This file is the port (history, branches, fetch and push); git/env.ts (the environment and
 * configuration of every command), git/process.ts (one command), git/snapshots.ts (snapshot and
 * restore of the working tree, the filter drivers read), git/parse.ts (plumbing output),
 * git/version.ts (the git on PATH).
 */
import { execa } from 'execa';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import type { CommitInfo, FileChange, GitPort, Identity, PushResult, ReplayResult } from '../ports/git.js';
import { filterOverrides, withConfig } from '../ports/git-filters.js';
import { GitCommandError, redactUrls, PRIVATE_TMP, baseEnv, transportConfig, authConfig, GLOBAL_CONFIG, SHA_RE } from './git/env.js';
import { checkGitVersion } from './git/version.js';
import { GitProcess } from './git/process.js';
import { Snapshots } from './git/snapshots.js';
import { fileDigest, trackingRef, splitZ, parseRaw, parseRawNumstat, parseNumstat } from './git/parse.js';
export { GitCommandError, redactUrls, transportConfig, authConfig } from './git/env.js';
export { MIN_GIT_VERSION, GitVersionError, parseGitVersion, gitVersionProblem } from './git/version.js';

export { filterOverrides };

export interface OpenGitOptions {
  log?: (m: string) => void;
  /**
   * The token agent-fix fetches and pushes with (the `github-token` input), given to git only for
   * those commands, through GIT_CONFIG_COUNT (never in a file), for `serverUrl` (https) only.
   * Without it the checkout's own credential is used (actions/checkout with persist-credentials).
   */
  auth?: { token: string; serverUrl: string };
}


/** The command-line GitPort, with how often it read the configuration (the filter drivers). */
export type CliGitPort = GitPort & { readonly configReads: number };

export async function openGit(root: string, opts: OpenGitOptions = {}): Promise<CliGitPort> {
  await checkGitVersion();
  const dir = path.resolve(root);
  let top: string;
  try {
    const inside = await execa('git', [...GLOBAL_CONFIG, 'rev-parse', '--is-inside-work-tree'], {
      cwd: dir,
      env: baseEnv(),
      extendEnv: false,
      reject: false,
    });
    if (inside.exitCode !== 0 || String(inside.stdout).trim() !== 'true') throw new Error('no');
    const t = await execa('git', [...GLOBAL_CONFIG, 'rev-parse', '--show-toplevel'], {
      cwd: dir,
      env: baseEnv(),
      extendEnv: false,
      reject: false,
    });
    if (t.exitCode !== 0) throw new Error('no');
    top = String(t.stdout).trim();
  } catch {
    throw new Error(`not a git repository: ${dir}`);
  }
  const git = new CliGit(top, opts.log ?? (() => {}), opts.auth);
  await git.pinConfig();
  return git;
}

class CliGit implements GitPort {
  /** Remote of the last fetchBranch; used to deepen a shallow clone. */
  private lastRemote = 'origin';
  /** The git commands (with the filter drivers blanked), and the working-tree snapshots. */
  private readonly proc: GitProcess;
  private readonly trees: Snapshots;

  constructor(
    readonly root: string,
    private readonly log: (m: string) => void,
    private readonly auth?: { token: string; serverUrl: string },
  ) {
    this.proc = new GitProcess(root);
    this.trees = new Snapshots(this.proc);
  }

  /** How often the configuration was read (the filter drivers); for the tests. */
  get configReads(): number {
    return this.trees.configReads;
  }

  /** The repository's configuration file and its digest when the adapter was opened, and origin's URL then. */
  private pinned: { file: string; digest: string; originUrl: string | null } | null = null;

  /** Remembers `.git/config` and origin's URL before any repository command runs. */
  async pinConfig(): Promise<void> {
    const file = path.resolve(this.root, await this.proc.out(['rev-parse', '--git-path', 'config']));
    const url = await this.proc.run(['config', '--local', '--get', 'remote.origin.url'], { ok: [0, 1] });
    this.pinned = { file, digest: fileDigest(file), originUrl: url.exitCode === 0 ? url.stdout.trim() || null : null };
  }

  /**
   * Before a fetch or a push: `.git/config` must be as it was when agent-fix started (a command
   * could have added a transport, a proxy or an insteadOf there); the arguments and environment
   * that pin the transport, the URL (origin's, as it was then) and the token for this command.
   */
  private async network(remote: string, withAuth: boolean): Promise<{ args: string[]; url: string; env: Record<string, string> }> {
    const p = this.pinned;
    if (p && fileDigest(p.file) !== p.digest) {
      throw new GitCommandError(`the repository's git configuration (${p.file}) changed since agent-fix started (a setup or test command wrote it): agent-fix does not fetch or push with it`, null, '');
    }
    const url = remote === 'origin' && p?.originUrl ? p.originUrl : remote;
    const pairs = withAuth ? authConfig(this.auth, url) : [];
    return { args: transportConfig(p?.originUrl ?? null), url, env: withConfig(this.proc.filterOff, pairs) };
  }

  // ------------------------------------------------------------------ GitPort
  snapshot(): Promise<string> {
    return this.trees.snapshot();
  }

  restore(tree: string): Promise<void> {
    return this.trees.restore(tree);
  }

  async headSha(): Promise<string> {
    return this.proc.out(['rev-parse', '--verify', 'HEAD^{commit}']);
  }

  async diff(fromTree: string, toTree: string): Promise<string> {
    return (
      await this.proc.run(['diff-tree', '-r', '-p', '-M', '--no-color', '--no-ext-diff', '--no-textconv', fromTree, toTree])
    ).stdout;
  }

  async changes(fromTree: string, toTree: string): Promise<FileChange[]> {
    const { raw, numstat } = parseRawNumstat((await this.proc.run(['diff-tree', '-r', '-M', '-z', '--raw', '--numstat', fromTree, toTree])).stdout);
    const stats = parseNumstat(numstat);
    const result: FileChange[] = [];
    for (const e of parseRaw(raw)) {
      const s = stats.get(e.path) ?? { additions: 0, deletions: 0, binary: false };
      const status: FileChange['status'] =
        e.status === 'A' || e.status === 'C'
          ? 'added'
          : e.status === 'D'
            ? 'deleted'
            : e.status === 'R'
              ? 'renamed'
              : 'modified';
      const change: FileChange = { path: e.path, status, additions: s.additions, deletions: s.deletions, binary: s.binary };
      if (e.oldPath !== undefined) change.oldPath = e.oldPath;
      result.push(change);
    }
    return result;
  }

  async listFiles(): Promise<string[]> {
    const all = splitZ((await this.proc.run(['ls-files', '-z', '--cached', '--others', '--exclude-standard'])).stdout);
    const deleted = new Set(splitZ((await this.proc.run(['ls-files', '-z', '--deleted'])).stdout));
    const set = new Set<string>();
    for (const f of all) if (!deleted.has(f)) set.add(f.split(path.sep).join('/'));
    return [...set].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  }

  async isIgnored(rel: string): Promise<boolean> {
    return (await this.proc.run(['check-ignore', '-q', '--', rel], { ok: [0, 1] })).exitCode === 0;
  }

  async commitTree(tree: string, parent: string | string[], message: string, author: Identity): Promise<string> {
    const env = {
      GIT_AUTHOR_NAME: author.name,
      GIT_AUTHOR_EMAIL: author.email,
      GIT_COMMITTER_NAME: author.name,
      GIT_COMMITTER_EMAIL: author.email,
    };
    const msg = message.endsWith('\n') ? message : `${message}\n`;
    const parents = (Array.isArray(parent) ? parent : [parent]).flatMap((p) => ['-p', p]);
    return this.proc.out(['-c', 'commit.gpgsign=false', 'commit-tree', '--no-gpg-sign', tree, ...parents], {
      env,
      input: msg,
    });
  }

  async fetchBranch(remote: string, branch: string): Promise<string | null> {
    await this.checkBranchName(branch);
    this.lastRemote = remote;
    const dst = trackingRef(remote, branch);
    const net = await this.network(remote, true);
    const r = await this.proc.run(
      [...net.args, 'fetch', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', net.url, `+refs/heads/${branch}:${dst}`],
      { ok: [0, 1, 128], env: net.env },
    );
    if (r.exitCode !== 0) {
      if (/couldn't find remote ref|could not find remote ref/i.test(r.stderr)) {
        // The branch is gone on the remote: drop a stale tracking ref so nobody trusts it.
        await this.proc.run(['update-ref', '-d', dst], { ok: [0, 1, 128] });
        return null;
      }
      throw new GitCommandError(
        redactUrls(`could not fetch branch ${branch} from ${remote} (exit ${r.exitCode}): ${r.stderr.trim()}`),
        r.exitCode,
        redactUrls(r.stderr),
      );
    }
    return this.proc.out(['rev-parse', '--verify', `${dst}^{commit}`]);
  }

  async commitsBetween(base: string, tip: string): Promise<CommitInfo[]> {
    await this.ensureHistory(base, tip, async () => {
      if (!(await this.hasCommits(base, tip))) return false;
      const rows = await this.revListParents(tip, base);
      // A parentless commit here is either a shallow boundary (history cut) or a root commit
      // that base's truncated history could not exclude: either way the answer is not reliable.
      return rows.every((r) => r.parents.length > 0);
    });
    const fmt = '%H%x1f%an%x1f%ae%x1f%ce%x1f%s%x1e';
    const out = (await this.proc.run(['log', `--format=${fmt}`, tip, `^${base}`, '--'])).stdout;
    const commits: CommitInfo[] = [];
    for (const rec of out.split('\x1e')) {
      const [sha, authorName, authorEmail, committerEmail, subject] = rec.replace(/^\n+/, '').split('\x1f');
      if (!sha || subject === undefined) continue;
      commits.push({ sha, authorName, authorEmail, committerEmail, subject });
    }
    return commits;
  }

  async readCommit(sha: string): Promise<CommitInfo & { message: string }> {
    // The message comes last and is taken whole (it may contain the separator).
    const out = (await this.proc.run(['log', '-1', '--format=%H%x1f%an%x1f%ae%x1f%ce%x1f%B', sha, '--'])).stdout;
    const [id, authorName, authorEmail, committerEmail, ...rest] = out.split('\x1f');
    const message = rest.join('\x1f').replace(/\n+$/, '');
    return { sha: id, authorName, authorEmail, committerEmail, subject: message.split('\n')[0], message };
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    const ask = async () =>
      (await this.proc.run(['merge-base', '--is-ancestor', ancestor, descendant], { ok: [0, 1] })).exitCode === 0;
    await this.ensureHistory(ancestor, descendant, async () => {
      if (!(await this.hasCommits(ancestor, descendant))) return false;
      if (await ask()) return true; // a local path is a real path
      // "no" is only trustworthy if the walk from `descendant` was not cut by a shallow boundary
      const shallow = await this.shallowSet();
      const rows = await this.revListParents(descendant, ancestor);
      return rows.every((row) => !shallow.has(row.sha));
    });
    return ask();
  }

  async push(remote: string, sha: string, branch: string, expected: string | null): Promise<PushResult> {
    await this.checkBranchName(branch);
    const ref = `refs/heads/${branch}`;
    const lease = `--force-with-lease=${ref}:${expected ?? ''}`;
    const net = await this.network(remote, true);
    const r = await this.proc.run([...net.args, 'push', '--porcelain', '--no-verify', lease, net.url, `${sha}:${ref}`], {
      ok: [0, 1, 128],
      env: net.env,
    });
    const refLine = r.stdout.split('\n').find((l) => l.includes(`\t${sha}:${ref}\t`) || l.includes(`:${ref}\t`));
    if (r.exitCode === 0 && !(refLine && refLine.startsWith('!'))) {
      await this.proc.run(['update-ref', trackingRef(remote, branch), sha], { ok: [0, 1, 128] });
      return { kind: 'pushed', sha };
    }
    if (refLine && refLine.startsWith('!')) {
      const summary = refLine.split('\t').slice(2).join(' ').trim();
      const remoteLines = r.stderr
        .split('\n')
        .filter((l) => /^remote:/.test(l) || /^(error|hint):/.test(l))
        .map((l) => l.trim())
        .filter((l) => l && l !== 'remote:');
      const reason = redactUrls([summary, ...remoteLines].filter(Boolean).join('\n'));
      this.log(`push of ${branch} rejected: ${summary}`);
      return { kind: 'rejected', reason: reason || 'rejected by the remote' };
    }
    throw new GitCommandError(
      redactUrls(`could not push ${branch} to ${remote} (exit ${r.exitCode}): ${r.stderr.trim()}`),
      r.exitCode,
      redactUrls(r.stderr),
    );
  }

  async replayCommits(p: { from: string; to: string; onto: string; identity: Identity }): Promise<ReplayResult> {
    await this.ensureHistory(p.from, p.to, async () => this.hasCommits(p.from, p.to));
    const dir = await mkdtemp(path.join(PRIVATE_TMP, 'agent-fix-replay-'));
    const env = { GIT_COMMITTER_NAME: p.identity.name, GIT_COMMITTER_EMAIL: p.identity.email, GIT_LFS_SKIP_SMUDGE: '1' };
    try {
      await this.proc.run(['worktree', 'add', '--detach', '--quiet', dir, p.onto], { env });
      const inTree = (args: string[], ok: number[] = [0]) =>
        execa('git', [...GLOBAL_CONFIG, '-c', 'commit.gpgsign=false', ...args], { cwd: dir, env: { ...baseEnv(), ...env }, extendEnv: false, reject: false }).then((r) => {
          if (!ok.includes(r.exitCode ?? -1)) throw new GitCommandError(`git ${args[0]} failed (exit ${r.exitCode}): ${String(r.stderr).trim()}`, r.exitCode ?? null, String(r.stderr));
          return r;
        });
      const picked = await inTree(['cherry-pick', '--allow-empty', '--keep-redundant-commits', `${p.from}..${p.to}`], [0, 1]);
      if (picked.exitCode !== 0) {
        const files = String((await inTree(['diff', '--name-only', '--diff-filter=U'])).stdout).split('\n').filter(Boolean);
        const at = String((await inTree(['log', '-1', '--format=%s', 'CHERRY_PICK_HEAD'], [0, 128])).stdout).trim();
        await inTree(['cherry-pick', '--abort'], [0, 128]);
        return { kind: 'conflict', files, at };
      }
      return { kind: 'done', sha: String((await inTree(['rev-parse', 'HEAD'])).stdout).trim() };
    } finally {
      await this.proc.run(['worktree', 'remove', '--force', dir], { ok: [0, 1, 128] });
      await this.proc.run(['worktree', 'prune'], { ok: [0, 1, 128] });
      await rm(dir, { recursive: true, force: true });
    }
  }

  async mergeCommit(p: { ours: string; theirs: string; message: string; identity: Identity }): Promise<ReplayResult> {
    await this.ensureHistory(p.ours, p.theirs, async () => (await this.localMergeBase(p.ours, p.theirs)) !== null);
    const r = await this.proc.run(['merge-tree', '--write-tree', '--name-only', '--no-messages', p.ours, p.theirs], { ok: [0, 1] });
    const [tree, ...files] = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    if (r.exitCode === 1) return { kind: 'conflict', files: [...new Set(files)], at: `merge of ${p.theirs.slice(0, 12)}` };
    const env = { GIT_AUTHOR_NAME: p.identity.name, GIT_AUTHOR_EMAIL: p.identity.email, GIT_COMMITTER_NAME: p.identity.name, GIT_COMMITTER_EMAIL: p.identity.email };
    const msg = p.message.endsWith('\n') ? p.message : `${p.message}\n`;
    const sha = await this.proc.out(['-c', 'commit.gpgsign=false', 'commit-tree', '--no-gpg-sign', tree, '-p', p.ours, '-p', p.theirs], { env, input: msg });
    return { kind: 'done', sha };
  }

  async mergeTree(ours: string, theirs: string): Promise<{ tree: string; conflicts: string[] }> {
    await this.ensureHistory(ours, theirs, async () => (await this.localMergeBase(ours, theirs)) !== null);
    const r = await this.proc.run(['merge-tree', '--write-tree', '--name-only', '--no-messages', ours, theirs], { ok: [0, 1] });
    const [tree, ...files] = r.stdout.split('\n').map((l) => l.trim()).filter(Boolean);
    return { tree, conflicts: r.exitCode === 1 ? [...new Set(files)] : [] };
  }

  async mergeBase(a: string, b: string): Promise<string | null> {
    // A shallow clone may hold too little history to see the fork point: fetch more first (a
    // history that stays unrelated after unshallowing is simply unrelated).
    await this.ensureHistory(a, b, async () => (await this.localMergeBase(a, b)) !== null).catch(() => undefined);
    return this.localMergeBase(a, b);
  }

  private async localMergeBase(a: string, b: string): Promise<string | null> {
    const r = await this.proc.run(['merge-base', a, b], { ok: [0, 1] });
    return r.exitCode === 0 ? r.stdout.trim() : null;
  }

  async setLocalBranch(branch: string, sha: string): Promise<void> {
    await this.checkBranchName(branch);
    const ref = `refs/heads/${branch}`;
    const head = await this.proc.run(['symbolic-ref', '-q', 'HEAD'], { ok: [0, 1, 128] });
    if (head.exitCode === 0 && head.stdout.trim() === ref) {
      throw new Error(`refusing to move ${branch}: it is the checked-out branch`);
    }
    const commit = await this.proc.out(['rev-parse', '--verify', `${sha}^{commit}`]);
    await this.proc.run(['update-ref', '-m', 'agent-fix: publish', ref, commit]);
  }

  async localBranchSha(branch: string): Promise<string | null> {
    await this.checkBranchName(branch);
    const r = await this.proc.run(['rev-parse', '-q', '--verify', `refs/heads/${branch}^{commit}`], { ok: [0, 1, 128] });
    return r.exitCode === 0 ? r.stdout.trim() : null;
  }

  async checkoutDetached(remote: string, sha: string): Promise<void> {
    if (!SHA_RE.test(sha)) throw new Error(`not a full commit id: ${JSON.stringify(sha)}`);
    if (!(await this.hasCommits(sha))) {
      this.lastRemote = remote;
      // A shallow clone (actions/checkout's default) fetches just that commit; a full one its history.
      const depth = (await this.isShallow()) ? ['--depth=1'] : [];
      const net = await this.network(remote, true);
      const r = await this.proc.run([...net.args, 'fetch', '--no-tags', '--no-recurse-submodules', '--no-write-fetch-head', ...depth, net.url, sha], { ok: [0, 1, 128], env: net.env });
      if (r.exitCode !== 0 || !(await this.hasCommits(sha))) {
        throw new GitCommandError(
          redactUrls(`could not fetch commit ${sha} from ${remote} (exit ${r.exitCode}): ${r.stderr.trim() || 'not found'}. It may have been force-pushed away; re-run the failed workflow on the current branch head.`),
          r.exitCode,
          redactUrls(r.stderr),
        );
      }
    }
    await this.trees.refreshFilters();
    const r = await this.proc.run(['-c', 'advice.detachedHead=false', 'checkout', '-q', '--detach', sha, '--'], { ok: [0, 1, 128] });
    if (r.exitCode !== 0) {
      throw new GitCommandError(redactUrls(`could not check out ${sha} (exit ${r.exitCode}): ${r.stderr.trim()}. The checkout must be clean.`), r.exitCode, redactUrls(r.stderr));
    }
    // HEAD moved: the next snapshot seeds its index from the new HEAD.
    this.trees.forget();
  }

  // ------------------------------------------------------------------ helpers
  private async checkBranchName(branch: string): Promise<void> {
    const r = await this.proc.run(['check-ref-format', '--branch', branch], { ok: [0, 1, 128] });
    if (r.exitCode !== 0 || branch.startsWith('-')) throw new Error(`invalid branch name: ${JSON.stringify(branch)}`);
  }

  private async hasCommits(...shas: string[]): Promise<boolean> {
    for (const s of shas) {
      const r = await this.proc.run(['cat-file', '-e', `${s}^{commit}`], { ok: [0, 1, 128] });
      if (r.exitCode !== 0) return false;
    }
    return true;
  }

  private async isShallow(): Promise<boolean> {
    return (await this.proc.out(['rev-parse', '--is-shallow-repository'])) === 'true';
  }

  private async shallowSet(): Promise<Set<string>> {
    const file = path.resolve(this.root, await this.proc.out(['rev-parse', '--git-path', 'shallow']));
    const text = await readFile(file, 'utf8').catch(() => '');
    return new Set(text.split('\n').map((s) => s.trim()).filter(Boolean));
  }

  private async revListParents(tip: string, base: string): Promise<{ sha: string; parents: string[] }[]> {
    const out = await this.proc.out(['rev-list', '--parents', tip, `^${base}`, '--']);
    return out
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        const [sha, ...parents] = l.trim().split(' ');
        return { sha, parents };
      });
  }

  /**
   * In a shallow clone, deepens history until `reliable()` holds (or the clone is complete).
   * Steps: --deepen by growing amounts (wanting the two commits, else the configured refspec),
   * then --unshallow.
   */
  private async ensureHistory(a: string, b: string, reliable: () => Promise<boolean>): Promise<void> {
    for (const depth of [50, 500, 0]) {
      if (!(await this.isShallow())) return;
      if (await reliable()) return;
      const remote = this.lastRemote;
      const flag = depth > 0 ? `--deepen=${depth}` : '--unshallow';
      this.log(`shallow clone: fetching more history (${flag}) from ${remote}`);
      const wants = [a, b].filter((x) => SHA_RE.test(x));
      const withShas = await this.proc.run(['fetch', '--no-tags', '--no-write-fetch-head', flag, remote, ...wants], {
        ok: [0, 1, 128],
      });
      if (withShas.exitCode !== 0 || wants.length === 0) {
        await this.proc.run(['fetch', '--no-tags', flag, remote]);
      }
    }
    if (await this.isShallow()) {
      if (!(await reliable())) {
        throw new Error('shallow clone: could not fetch enough history to compare commits');
      }
    }
  }
}
