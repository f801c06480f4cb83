/**
 * The repository map: the definitions, references and imports of every tracked source file,
 * read with real parsers (extract.ts). Cached by git blob hash outside the repository
 * (`$RUNNER_TEMP` or the system temp dir), so a re-run on the same commit parses nothing.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { languageOf, type CodeLanguage } from '../code/parser.js';
import { extractSymbols, mapsLanguage, type FileSymbols } from './extract.js';
import { FILTER_CONFIG_ARGS, filterOverrides } from '../ports/git-filters.js';

const run = promisify(execFile);

export interface MapFile extends FileSymbols {
  path: string;
  language: CodeLanguage;
  lines: number;
}

export interface RepoMap {
  files: MapFile[];
  stats: { tracked: number; mapped: number; parsed: number; cached: number; skipped: number; ms: number; /** Threads that parsed (1: this one). */ threads: number };
}

export interface MapOptions {
  /** Where parsed symbols are kept between runs (default: `$RUNNER_TEMP|tmpdir/agent-fix-map`). */
  cacheDir?: string | null;
  /** Larger files are left out of the map (generated code, bundles). Default 200 KB. */
  maxFileBytes?: number;
  /**
   * Parser threads for a cold build: files are parsed in this many worker threads when there are
   * enough of them and the worker script exists (next to the bundle: dist/map-worker.js).
   * Default: the available parallelism, at most 4; 0 or 1 parses in this thread.
   */
  workers?: number;
  /** The worker script (default: map-worker.js next to this module, present in the bundle only). */
  workerScript?: string;
}

/** Generated, vendored and minified code tells the model nothing about where a bug is. */
const SKIP = /(?:^|\/)(?:node_modules|vendor|dist|build|coverage|\.git)\/|\.min\.[cm]?js$|\.d\.ts$|\.bundle\.js$/;

interface TrackedFile {
  path: string;
  key: string;
}

/** Tracked files with a content key: the index's blob hash, or a hash of the worktree content when modified. */
export async function trackedFiles(root: string): Promise<TrackedFile[]> {
  // `status` may hash modified files through a filter driver or ask an fsmonitor: neither may run
  // a command the checkout defines (a setup script could have written one), as in adapters/git.ts.
  const safe = ['-c', 'core.hooksPath=/dev/null', '-c', 'core.fsmonitor=false'];
  const drivers = await run('git', [...safe, ...FILTER_CONFIG_ARGS], { cwd: root, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_COUNT: '0' } }).catch(() => ({ stdout: '' }));
  const opts = { cwd: root, maxBuffer: 256 << 20, encoding: 'utf8' as const, env: { ...process.env, ...filterOverrides(drivers.stdout) } };
  const [staged, status] = await Promise.all([
    run('git', [...safe, 'ls-files', '-s', '-z'], opts),
    run('git', [...safe, 'status', '--porcelain', '-z', '--untracked-files=no', '--ignore-submodules=all'], opts),
  ]);
  const modified = new Set(
    status.stdout
      .split('\0')
      .filter((l) => l.length > 3)
      .map((l) => l.slice(3)),
  );
  const out: TrackedFile[] = [];
  for (const entry of staged.stdout.split('\0')) {
    const m = /^(\d+) ([0-9a-f]+) \d\t(.+)$/.exec(entry);
    if (!m || m[1] === '160000' || m[1] === '120000') continue; // submodules and symlinks
    out.push({ path: m[3], key: modified.has(m[3]) ? '' : m[2] });
  }
  return out;
}

export type CacheEntry = FileSymbols & { lines: number };

function defaultCacheDir(): string {
  return path.join(process.env.RUNNER_TEMP || os.tmpdir(), 'agent-fix-map');
}

const CACHE_VERSION = 2;

function loadCache(file: string | null): Record<string, CacheEntry> {
  if (!file || !existsSync(file)) return {};
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as { version?: number; entries?: Record<string, CacheEntry> };
    return v.version === CACHE_VERSION && v.entries ? v.entries : {};
  } catch {
    return {}; // a broken cache is rebuilt, never fatal
  }
}

function saveCache(file: string, entries: Record<string, CacheEntry>): void {
  try {
    mkdirSync(path.dirname(file), { recursive: true });
    const tmp = `${file}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify({ version: CACHE_VERSION, entries }));
    renameSync(tmp, file);
  } catch {
    // an unwritable cache only costs time on the next run
  }
}

/** The symbols of one file, or null when it is left out (too large, unreadable, unparsable). */
export async function parseFile(root: string, rel: string, language: CodeLanguage, maxBytes: number): Promise<CacheEntry | null> {
  const abs = path.join(root, rel);
  let text: string;
  try {
    if (statSync(abs).size > maxBytes) return null;
    text = readFileSync(abs, 'utf8');
  } catch {
    return null;
  }
  try {
    return { ...(await extractSymbols(language, text)), lines: text.split('\n').length };
  } catch {
    return null;
  }
}

export interface ParseJob {
  root: string;
  maxBytes: number;
  files: { path: string; language: CodeLanguage }[];
}

const here = path.dirname(fileURLToPath(import.meta.url));
/** Below this many files to parse, starting threads costs more than it saves. */
const MIN_FILES_FOR_WORKERS = 200;
const CHUNK = 64;

/** Parses the files in worker threads, chunk by chunk (a free worker takes the next chunk); results in input order. */
async function parseInWorkers(script: string, count: number, job: ParseJob): Promise<(CacheEntry | null)[]> {
  const results: (CacheEntry | null)[] = new Array(job.files.length);
  let next = 0;
  const workers = Array.from({ length: count }, () => new Worker(script));
  try {
    await Promise.all(
      workers.map(
        (w) =>
          new Promise<void>((resolve, reject) => {
            let start = 0;
            const give = () => {
              if (next >= job.files.length) return resolve();
              start = next;
              next = Math.min(job.files.length, next + CHUNK);
              w.postMessage({ root: job.root, maxBytes: job.maxBytes, files: job.files.slice(start, next) } satisfies ParseJob);
            };
            w.on('message', (chunk: (CacheEntry | null)[]) => {
              chunk.forEach((r, k) => (results[start + k] = r));
              give();
            });
            w.on('error', reject);
            w.on('exit', (code) => (next < job.files.length || code !== 0 ? reject(new Error(`map worker exited with ${code}`)) : resolve()));
            give();
          }),
      ),
    );
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  return results;
}

async function parseAll(job: ParseJob, opts: MapOptions): Promise<{ entries: (CacheEntry | null)[]; threads: number }> {
  const script = opts.workerScript ?? path.join(here, 'map-worker.js');
  const count = Math.min(opts.workers ?? Math.min(4, os.availableParallelism()), Math.ceil(job.files.length / CHUNK));
  if (count > 1 && job.files.length >= MIN_FILES_FOR_WORKERS && existsSync(script)) {
    try {
      return { entries: await parseInWorkers(script, count, job), threads: count };
    } catch {
      // a worker that cannot start or dies costs the parallelism, never the map
    }
  }
  const out: (CacheEntry | null)[] = [];
  for (const f of job.files) out.push(await parseFile(job.root, f.path, f.language, job.maxBytes));
  return { entries: out, threads: 1 };
}

export async function buildRepoMap(root: string, opts: MapOptions = {}): Promise<RepoMap> {
  const started = Date.now();
  const maxBytes = opts.maxFileBytes ?? 200_000;
  const tracked = await trackedFiles(root);
  const cacheDir = opts.cacheDir === undefined ? defaultCacheDir() : opts.cacheDir;
  // one pack per repository (keyed by the path of its root), entries keyed by blob
  const cacheFile = cacheDir ? path.join(cacheDir, `${createHash('sha1').update(path.resolve(root)).digest('hex').slice(0, 16)}.json`) : null;
  const cache = loadCache(cacheFile);
  const next: Record<string, CacheEntry> = {};
  const files: MapFile[] = [];
  let parsed = 0;
  let cached = 0;
  let skipped = 0;
  // cached entries first; the rest is parsed (in worker threads when there are many)
  const slots: { path: string; language: CodeLanguage; key: string; entry?: CacheEntry }[] = [];
  for (const t of tracked) {
    const language = languageOf(t.path);
    if (!mapsLanguage(language) || SKIP.test(t.path)) continue;
    const key = t.key ? `${language}:${t.key}` : '';
    const entry = key ? cache[key] : undefined;
    if (entry) cached++;
    slots.push({ path: t.path, language, key, entry });
  }
  const todo = slots.filter((x) => !x.entry);
  const { entries: fresh, threads } = await parseAll({ root, maxBytes, files: todo.map((x) => ({ path: x.path, language: x.language })) }, opts);
  todo.forEach((x, i) => {
    const entry = fresh[i];
    if (entry) {
      x.entry = entry;
      parsed++;
    } else skipped++;
  });
  for (const x of slots) {
    if (!x.entry) continue;
    if (x.key) next[x.key] = x.entry;
    files.push({ path: x.path, language: x.language, ...x.entry });
  }
  if (cacheFile && parsed > 0) saveCache(cacheFile, next);
  return { files, stats: { tracked: tracked.length, mapped: files.length, parsed, cached, skipped, ms: Date.now() - started, threads } };
}
