/**
 * The repository context of a task: map (cached by blob), signals, localization. The first
 * message renders it into what remains of the token budget (src/agent/prompt.ts).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { TestRun } from '../verify/types.js';
import { buildRepoMap, type MapOptions, type RepoMap } from './map.js';
import { localize, type LineReader, type Localization } from './localize.js';
import { taskSignals, type Signals } from './signals.js';

export interface RepoContext {
  map: RepoMap;
  signals: Signals;
  localization: Localization;
  read: LineReader;
}

/** A reader of a checkout's files as lines, cached per file. */
export function lineReader(root: string): LineReader {
  const cache = new Map<string, string[] | null>();
  return (file) => {
    let v = cache.get(file);
    if (v === undefined) {
      try {
        v = readFileSync(path.join(root, file), 'utf8').replace(/\r\n/g, '\n').split('\n');
        if (v.length > 1 && v[v.length - 1] === '') v.pop();
      } catch {
        v = null;
      }
      cache.set(file, v);
    }
    return v;
  };
}

export async function prepareContext(root: string, taskText: string, baseline: TestRun | null, opts: MapOptions = {}): Promise<RepoContext> {
  const map = await buildRepoMap(root, opts);
  const read = lineReader(root);
  const signals = taskSignals(taskText, baseline, map.files.map((f) => f.path));
  return { map, signals, localization: localize(map, signals, read), read };
}
