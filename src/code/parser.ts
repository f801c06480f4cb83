/**
 * Real parsers for the languages the harness reads: tree-sitter grammars compiled to
 * WebAssembly (web-tree-sitter), shared by the edit check (an edit must not introduce a
 * syntax error) and the repository map (definitions and references).
 *
 * The grammar `.wasm` files come from the grammars' own npm packages. The build copies
 * them next to the bundle (`dist/grammars/`); run from the sources, they are read from
 * `node_modules`. Languages and the runtime are loaded once per process, on first use.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Language, Parser, type Node, type Tree } from 'web-tree-sitter';

export type { Language, Node, Tree };

export type CodeLanguage = 'javascript' | 'typescript' | 'tsx' | 'python' | 'go' | 'json';

/** Where each grammar comes from: npm package and the `.wasm` file inside it. */
export const GRAMMARS: Record<CodeLanguage, { pkg: string; file: string }> = {
  javascript: { pkg: 'tree-sitter-javascript', file: 'tree-sitter-javascript.wasm' },
  typescript: { pkg: 'tree-sitter-typescript', file: 'tree-sitter-typescript.wasm' },
  tsx: { pkg: 'tree-sitter-typescript', file: 'tree-sitter-tsx.wasm' },
  python: { pkg: 'tree-sitter-python', file: 'tree-sitter-python.wasm' },
  go: { pkg: 'tree-sitter-go', file: 'tree-sitter-go.wasm' },
  json: { pkg: 'tree-sitter-json', file: 'tree-sitter-json.wasm' },
};

const BY_EXTENSION: Record<string, CodeLanguage> = {
  '.js': 'javascript',
  '.mjs': 'javascript',
  '.cjs': 'javascript',
  '.jsx': 'javascript',
  '.ts': 'typescript',
  '.mts': 'typescript',
  '.cts': 'typescript',
  '.tsx': 'tsx',
  '.py': 'python',
  '.pyi': 'python',
  '.go': 'go',
  '.json': 'json',
};

/** The language of a file by its name, or null when no grammar is shipped for it. */
export function languageOf(file: string): CodeLanguage | null {
  const ext = path.extname(file).toLowerCase();
  // `.d.ts` parses as TypeScript; JSON with comments (tsconfig.json) is handled by the caller comparing before/after.
  return BY_EXTENSION[ext] ?? null;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

/** The directory holding `tree-sitter.wasm` and the grammars next to the bundle, if any. */
function bundledDir(): string | null {
  const dir = path.join(here, 'grammars');
  return existsSync(path.join(dir, 'tree-sitter.wasm')) ? dir : null;
}

/** Path of a `.wasm` file: next to the bundle, else inside its npm package. */
export function wasmPath(pkg: string, file: string): string {
  const dir = bundledDir();
  if (dir) return path.join(dir, file);
  return require.resolve(`${pkg}/${file}`);
}

let runtime: Promise<void> | null = null;
const languages = new Map<CodeLanguage, Promise<Language>>();

function init(): Promise<void> {
  runtime ??= Parser.init({
    locateFile: (name: string) => wasmPath('web-tree-sitter', name),
  }).catch((err: unknown) => {
    runtime = null;
    throw err;
  });
  return runtime;
}

/** The tree-sitter language (for queries), loaded once. */
export function loadLanguage(language: CodeLanguage): Promise<Language> {
  let loaded = languages.get(language);
  if (!loaded) {
    const { pkg, file } = GRAMMARS[language];
    loaded = init().then(() => Language.load(wasmPath(pkg, file)));
    loaded.catch(() => languages.delete(language));
    languages.set(language, loaded);
  }
  return loaded;
}

/** Parses source text. The caller owns the tree (`tree.delete()` frees its memory early). */
export async function parseCode(language: CodeLanguage, text: string): Promise<Tree> {
  const lang = await loadLanguage(language);
  const parser = new Parser();
  try {
    parser.setLanguage(lang);
    const tree = parser.parse(text);
    if (!tree) throw new Error(`the ${language} parser returned no tree`);
    return tree;
  } finally {
    parser.delete();
  }
}

export interface SyntaxProblem {
  /** 1-based line. */
  line: number;
  /** 1-based column. */
  column: number;
  message: string;
}

const MAX_PROBLEMS = 20;

/** Pure over a tree: the ERROR and MISSING nodes, outermost first, in source order. */
export function treeProblems(tree: Tree, text: string): SyntaxProblem[] {
  const problems: SyntaxProblem[] = [];
  const lines = text.split('\n');
  const visit = (node: Node): void => {
    if (problems.length >= MAX_PROBLEMS) return;
    if (node.isMissing) {
      problems.push({
        line: node.startPosition.row + 1,
        column: node.startPosition.column + 1,
        message: `missing ${JSON.stringify(node.type)}`,
      });
      return;
    }
    if (node.isError) {
      const row = node.startPosition.row;
      const source = (lines[row] ?? '').trim();
      const excerpt = source.length > 80 ? `${source.slice(0, 77)}...` : source;
      problems.push({
        line: row + 1,
        column: node.startPosition.column + 1,
        message: `unexpected ${JSON.stringify(firstToken(node, text))}${excerpt ? ` in \`${excerpt}\`` : ''}`,
      });
      return;
    }
    if (!node.hasError) return;
    for (const child of node.children) if (child) visit(child);
  };
  visit(tree.rootNode);
  return problems;
}

function firstToken(node: Node, text: string): string {
  const raw = text.slice(node.startIndex, Math.min(node.endIndex, node.startIndex + 40));
  const token = raw.trim().split(/\s+/)[0] ?? '';
  return token || raw.trim() || node.type;
}

/**
 * The syntax errors of a file's text, or null when no grammar is shipped for its language.
 * An empty list means the file parses.
 */
export async function syntaxErrors(file: string, text: string): Promise<SyntaxProblem[] | null> {
  const language = languageOf(file);
  if (!language) return null;
  const tree = await parseCode(language, text);
  try {
    return treeProblems(tree, text);
  } finally {
    tree.delete();
  }
}
