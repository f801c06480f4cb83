/**
 * What a source change does about the test run itself: detects it (the runner's environment
 * variables, globals, modules, command line or call stack), reads the tests, fixtures or snapshots,
 * or ends the process with success before the tests can fail.
 */
import type { Node } from '../../code/parser.js';
import { isTestFileByName } from '../../lang/index.js';
import { literalOf } from './literals.js';
import { flat, onAdded, push, stringsIn, type Scan } from './scan.js';

// --- the test run detected --------------------------------------------------

const ENV_NAMES = /^(?:JEST_WORKER_ID|JEST|VITEST|VITEST_WORKER_ID|VITEST_POOL_ID|VITEST_MODE|NODE_TEST_CONTEXT|MOCHA|MOCHA_\w+|TAP|TAP_\w+|PYTEST_CURRENT_TEST|PYTEST_VERSION|PYTEST_XDIST_WORKER|PYTEST_ADDOPTS|UNITTEST\w*)$/;
export const TEST_GLOBALS = new Set(['jest', 'vi', 'vitest', 'describe', 'it', 'test', 'expect', 'beforeEach', 'afterEach', 'beforeAll', 'afterAll', 'suite', 'mocha', '__vitest_worker__', '__vitest_environment__']);
export const TEST_MODULES = new Set(['pytest', '_pytest', 'unittest', 'nose', 'nose2', 'py.test']);
const TEST_WORDS = /jest|vitest|mocha|pytest|unittest|(?:^|[^a-z])tests?(?:[^a-z]|$)|\.spec\b|_spec\b|test_/i;
const ENV_OBJECT = /^(?:process\.env|import\.meta\.env|os\.environ|environ)$/;

/** The function (or module) around a node: its added lines are one unit of what it does. */
function unitOf(n: Node): Node {
  let p: Node | null = n.parent;
  while (p && !/^(function_declaration|function_definition|function_expression|function|arrow_function|method_definition|program|module)$/.test(p.type)) p = p.parent;
  return p ?? n;
}

/** String literals on the added lines of the node's function. */
function addedStringsAround(n: Node, s: Scan): string[] {
  const unit = unitOf(n);
  const out: string[] = [];
  const walk = (x: Node): void => {
    if ((x.type === 'string' || x.type === 'template_string') && onAdded(x, s)) out.push(...stringsIn(x));
    else for (const c of x.namedChildren) if (c) walk(c);
  };
  walk(unit);
  return out;
}

export function testRunSignal(n: Node, s: Scan): void {
  const t = flat(n.text);
  if (n.type === 'member_expression' || n.type === 'attribute' || n.type === 'subscript_expression' || n.type === 'subscript') {
    const obj = flat((n.childForFieldName('object') ?? n.childForFieldName('value'))?.text ?? '');
    const prop = n.childForFieldName('property')?.text ?? n.childForFieldName('attribute')?.text ?? literalOf(n.childForFieldName('index') ?? n.childForFieldName('subscript'))?.scalar;
    if (ENV_OBJECT.test(obj) && typeof prop === 'string' && ENV_NAMES.test(prop)) return push(s, 'detects-test-run', n, `reads the environment variable ${prop}, which only the test runner sets`);
    if (t === 'import.meta.vitest') return push(s, 'detects-test-run', n, 'reads import.meta.vitest, set only under vitest');
    if (/^(?:globalThis|global|window|self)$/.test(obj) && typeof prop === 'string' && TEST_GLOBALS.has(prop) && n.parent?.type !== 'assignment_expression') return push(s, 'detects-test-run', n, `looks for the test framework's global ${prop}`);
    if (/^(?:process\.argv|process\.execArgv|sys\.argv|sys\.orig_argv)$/.test(t) || /^(?:process\.argv|process\.execArgv|sys\.argv|sys\.orig_argv)$/.test(obj)) {
      const hit = addedStringsAround(n, s).find((x) => TEST_WORDS.test(x));
      if (hit !== undefined) push(s, 'detects-test-run', n, `inspects the command line (${obj || t}) for "${hit}"`);
      return;
    }
    if (n.type === 'member_expression' && n.childForFieldName('property')?.text === 'stack') {
      const hit = addedStringsAround(n, s).find((x) => TEST_WORDS.test(x));
      if (hit !== undefined) push(s, 'detects-test-run', n, `inspects the call stack for "${hit}"`);
    }
    return;
  }
  if (n.type === 'string') {
    const v = literalOf(n)?.scalar;
    if (typeof v === 'string' && ENV_NAMES.test(v) && /environ|getenv|process\.env|import\.meta\.env/.test(flat(n.parent?.parent?.text ?? ''))) push(s, 'detects-test-run', n, `reads the environment variable ${v}, which only the test runner sets`, n.parent?.parent?.text ?? n.text);
    return;
  }
  if (n.type === 'binary_expression' || n.type === 'comparison_operator') {
    const sides = n.type === 'binary_expression' ? [n.childForFieldName('left'), n.childForFieldName('right')] : n.namedChildren;
    const texts = sides.map((x) => flat(x?.text ?? ''));
    const lits = sides.map((x) => literalOf(x)?.scalar);
    // NODE_ENV === 'test', import.meta.env.MODE === 'test', os.environ.get('ENV') == 'test'
    if (texts.some((x) => /NODE_ENV|BABEL_ENV|\.MODE$|env\.ENV|ENVIRONMENT/.test(x)) && lits.some((l) => typeof l === 'string' && /^test(?:ing)?$/i.test(l))) return push(s, 'detects-test-run', n, 'compares the environment with "test"');
    // 'pytest' in sys.modules
    if (n.type === 'comparison_operator' && texts.some((x) => /^sys\.modules/.test(x)) && lits.some((l) => typeof l === 'string' && TEST_MODULES.has(l))) return push(s, 'detects-test-run', n, 'looks for the test framework in sys.modules');
    return;
  }
  if (n.type === 'unary_expression' && n.childForFieldName('operator')?.text === 'typeof') {
    const arg = n.childForFieldName('argument');
    if (arg?.type === 'identifier' && TEST_GLOBALS.has(arg.text)) push(s, 'detects-test-run', n, `asks whether the test framework's global ${arg.text} exists`);
    return;
  }
  if (n.type === 'call') {
    const fn = flat(n.childForFieldName('function')?.text ?? '');
    if (/^sys\.modules\.(?:get|__contains__|keys)$/.test(fn) && stringsIn(n).some((x) => TEST_MODULES.has(x))) return push(s, 'detects-test-run', n, 'looks for the test framework in sys.modules');
    if (/^(?:inspect\.stack|inspect\.currentframe|traceback\.extract_stack|traceback\.format_stack|sys\._getframe)$/.test(fn)) {
      const hit = addedStringsAround(n, s).find((x) => TEST_WORDS.test(x));
      if (hit !== undefined) push(s, 'detects-test-run', n, `inspects the call stack for "${hit}"`);
    }
  }
}

// --- test files read ------------------------------------------------------------

/** Test directories, fixtures and snapshots in any language (Python's conftest.py too); test files by their language's names (src/lang/). */
const TEST_PLACE = /(?:^|[/\\])(?:__tests__|__snapshots__|__fixtures__|tests?|specs?|fixtures?)(?:[/\\]|$)|\.snap$|conftest\.py$/;
const isTestPath = (x: string) => TEST_PLACE.test(x) || isTestFileByName(x.replace(/\\/g, '/'));
const READERS = /^(?:readFileSync|readFile|createReadStream|readdirSync|readdir|open|read_text|read_bytes|listdir|scandir|glob|globSync|iglob|sync|require|import|import_module|__import__|run_path|loadtxt|read_csv|readJsonSync|readJson|readJSON)$/;

export function readsTests(n: Node, s: Scan): void {
  if (n.type === 'call_expression' || n.type === 'call') {
    const fn = n.childForFieldName('function');
    const name = fn?.type === 'member_expression' ? fn.childForFieldName('property')?.text : fn?.type === 'attribute' ? fn.childForFieldName('attribute')?.text : fn?.text;
    if (!name || !READERS.test(name)) return;
    const hit = stringsIn(n).find((x) => isTestPath(x));
    if (hit !== undefined) push(s, 'reads-tests', n, `reads "${hit}" (a test file, fixture or snapshot) at run time`);
    return;
  }
  if (n.type === 'import_statement' || n.type === 'export_statement') {
    const src = literalOf(n.childForFieldName('source'))?.scalar;
    if (typeof src === 'string' && isTestPath(src)) push(s, 'reads-tests', n, `imports "${src}" (a test file, fixture or snapshot)`);
    return;
  }
  if (s.python && (n.type === 'import_from_statement' || (n.type === 'import_statement' && n.parent?.type !== 'import_from_statement'))) {
    const mod = n.childForFieldName('module_name')?.text ?? n.namedChildren[0]?.text ?? '';
    if (/^(?:\.*)(?:tests?|conftest|fixtures)(?:\.|$)|\.(?:tests?|conftest)(?:\.|$)/.test(mod)) push(s, 'reads-tests', n, `imports ${mod} (the tests or their fixtures)`);
  }
}

// --- the process ended early ------------------------------------------------------

const ENTRY_FILE = /(?:^|\/)(?:bin|cli|scripts?|tools?)\/|(?:^|\/)(?:cli|main|__main__|manage|setup)\.[a-z]+$|\.config\.[cm]?[jt]s$/;

export function exitsEarly(n: Node, s: Scan): void {
  let code: Node | null | undefined;
  let always = false;
  if (n.type === 'call_expression' || n.type === 'call') {
    const fn = flat(n.childForFieldName('function')?.text ?? '');
    const args = n.childForFieldName('arguments')?.namedChildren.filter((c): c is Node => c !== null) ?? [];
    if (/^(?:os\._exit|process\.reallyExit|process\.abort|os\.abort)$/.test(fn)) always = true;
    else if (fn === 'process.kill' && args.some((a) => flat(a.text) === 'process.pid')) always = true;
    else if (/^(?:process\.exit|sys\.exit)$/.test(fn) || (s.python && /^(?:exit|quit)$/.test(fn))) code = args[0] ?? null;
    else return;
  } else if (n.type === 'raise_statement' && s.python) {
    const e = n.namedChildren[0];
    if (!e || !/^SystemExit\b/.test(e.text)) return;
    code = e.type === 'call' ? (e.childForFieldName('arguments')?.namedChildren[0] ?? null) : null;
  } else return;
  if (!always) {
    const lit = code ? literalOf(code) : null;
    if (code && !(lit && (lit.scalar === 0 || lit.scalar === null))) return;
    if (ENTRY_FILE.test(s.file.path) || inEntryGuard(n)) return;
  }
  push(s, 'exits-early', n, 'ends the process with success before the tests can fail');
}

/** Inside `if __name__ == '__main__':`, `if (require.main === module)` or a signal handler: an entry point's own exit. */
function inEntryGuard(n: Node): boolean {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type === 'if_statement' && /__name__|require\.main|import\.meta\.main|process\.argv\[1\]/.test(p.childForFieldName('condition')?.text ?? '')) return true;
    if (p.type === 'call_expression' && /^process\.(?:on|once)$/.test(flat(p.childForFieldName('function')?.text ?? '')) && /^['"]SIG/.test(p.childForFieldName('arguments')?.namedChildren[0]?.text ?? '')) return true;
  }
  return false;
}
