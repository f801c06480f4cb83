/**
 * The repository's own import graph, for deciding whether a test file can see a changed
 * file (evidence for tolerating a failure that predates the change, see tolerance.ts).
 * Each language reads its own imports (src/lang/<id>/imports.ts: JS/TS specifiers resolved like
 * Node and TypeScript, Python modules, Go packages of the module); a file of a language without
 * an import graph cannot be followed.
 *
 * Pure apart from the injected file reader. A test file that cannot be read is `unknown`:
 * the caller blocks on doubt.
 */
import { languageOfFile, languages, type Dependencies, type GraphFiles } from '../lang/index.js';

export interface GraphSource {
  /** Every tracked file of the repository (repo-relative, `/` separators). */
  files: string[];
  /** The file's text, or null when it cannot be read. */
  read: (file: string) => Promise<string | null>;
}

export interface Reach {
  /** The test file reaches a changed file (`via` is the import chain), or it does not, or it could not be read. */
  status: 'connected' | 'not-connected' | 'unknown';
  via?: string[];
  /** Files the walk could not follow (bare imports of other packages are not counted). */
  unresolved?: string[];
  detail: string;
}

export class ImportGraph {
  private readonly repo: GraphFiles;
  private readonly edges = new Map<string, Promise<Dependencies | null>>();

  constructor(src: GraphSource) {
    const files = new Set(src.files);
    const memo = new Map<string, Promise<unknown>>();
    this.repo = {
      files,
      read: src.read,
      memo<T>(key: string, make: () => Promise<T>): Promise<T> {
        if (!memo.has(key)) memo.set(key, make());
        return memo.get(key) as Promise<T>;
      },
    };
  }

  /** The repo files a file depends on directly. */
  private dependencies(file: string): Promise<Dependencies | null> {
    let p = this.edges.get(file);
    if (!p) {
      p = (async () => {
        const text = await this.repo.read(file);
        if (text === null) return null;
        const follow = languageOfFile(file)?.dependencies;
        return follow ? follow(file, text, this.repo) : { deps: [], unresolved: [] };
      })();
      this.edges.set(file, p);
    }
    return p;
  }

  /** Whether `testFile` reaches any of `changed` through the repository's imports. */
  async reach(testFile: string, changed: string[]): Promise<Reach> {
    const targets = new Set(changed);
    const files = this.repo.files;
    if (!files.has(testFile)) return { status: 'unknown', detail: `${testFile} is not a file of the repository` };
    if (targets.has(testFile)) return { status: 'connected', via: [testFile], detail: `the change edits ${testFile} itself` };
    const first = await this.dependencies(testFile);
    if (!first) return { status: 'unknown', detail: `${testFile} could not be read` };
    if (!languageOfFile(testFile)?.dependencies) {
      const followed = languages().filter((l) => l.dependencies).map((l) => l.id).join(', ');
      return { status: 'unknown', detail: `no import graph for ${testFile} (only files of ${followed} are followed)` };
    }
    const parent = new Map<string, string | null>([[testFile, null]]);
    const queue = [testFile];
    const unresolved: string[] = [];
    while (queue.length) {
      const f = queue.shift()!;
      const d = await this.dependencies(f);
      if (!d) continue;
      unresolved.push(...d.unresolved);
      for (const dep of d.deps) {
        if (parent.has(dep)) continue;
        parent.set(dep, f);
        if (targets.has(dep)) {
          const via = [dep];
          for (let p = parent.get(dep); p; p = parent.get(p)) via.unshift(p);
          return { status: 'connected', via, detail: `imports ${via.slice(1).join(' → ')}` };
        }
        queue.push(dep);
      }
    }
    if (unresolved.length) {
      return { status: 'unknown', unresolved, detail: `${unresolved.length} import(s) of the repository could not be resolved (${unresolved.slice(0, 3).join('; ')})` };
    }
    return { status: 'not-connected', detail: `its ${parent.size - 1} imported file(s) of the repository include no changed file` };
  }
}

/** At most this many test files are read for an import-related selection (a bound on one loop turn's reading). */
const MAX_IMPORT_SCAN = 400;

/**
 * The test files among `testFiles` whose imports reach a changed file: the related tests of a
 * runner that cannot find them itself (pytest). Those the graph cannot tell about are left out
 * (the full gate runs after the related tests anyway).
 */
export async function testsReaching(graph: ImportGraph, testFiles: string[], changed: string[]): Promise<string[]> {
  if (changed.length === 0) return [];
  const out: string[] = [];
  for (const f of testFiles.slice(0, MAX_IMPORT_SCAN)) if ((await graph.reach(f, changed)).status === 'connected') out.push(f);
  return out;
}
