/** What the gaming scan of one source file shares: the file, its findings, and helpers over its syntax tree. */
import type { Node } from '../../code/parser.js';
import type { GamingFinding } from '../../verify/types.js';
import { excerpt, literalOf } from './literals.js';
import type { Expectation } from './tests.js';

/** A source file of the change: its text after, before (null: new), and the 1-based lines the change added. */
export interface ChangedSource {
  path: string;
  before: string | null;
  after: string;
  added: Set<number>;
}

export const flat = (s: string) => s.replace(/\s+/g, '');

export interface Scan {
  file: ChangedSource;
  python: boolean;
  beforeFlat: string;
  expectations: Expectation[];
  frameworkNames: Set<string>;
  out: GamingFinding[];
}

export const lineOf = (n: Node) => n.startPosition.row + 1;
export const onAdded = (n: Node, s: Scan) => s.file.added.has(lineOf(n));
/** Any line of the node is added, and the node's text was not in the file before (moved code is not new). */
export function isNew(n: Node, s: Scan): boolean {
  let touched = false;
  for (let r = n.startPosition.row + 1; r <= n.endPosition.row + 1 && !touched; r++) touched = s.file.added.has(r);
  return touched && !s.beforeFlat.includes(flat(n.text));
}

export function push(s: Scan, kind: GamingFinding['kind'], n: Node, detail: string, code = n.text): void {
  s.out.push({ kind, file: s.file.path, line: lineOf(n), code: excerpt(code), detail });
}

/** The string literals inside a node. */
export function stringsIn(n: Node): string[] {
  const out: string[] = [];
  const walk = (x: Node): void => {
    const l = x.type === 'string' || x.type === 'template_string' ? literalOf(x) : null;
    if (l && typeof l.scalar === 'string') out.push(l.scalar);
    for (const c of x.namedChildren) if (c) walk(c);
  };
  walk(n);
  return out;
}
