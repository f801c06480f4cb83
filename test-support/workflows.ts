/**
 * Workflow checking for tests: GitHub's own workflow parser (@actions/workflow-parser, the one
 * behind the Actions language service) and expression evaluator (@actions/expressions).
 * The parser imports its JSON schema without an import attribute, which node's ESM loader
 * refuses; esbuild bundles it once into a temporary module that inlines the schema.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { Evaluator, Lexer, Parser, data } from '@actions/expressions';
import { parse as parseYaml } from 'yaml';
import { ROOT } from './run-action.js';

type ParserModule = typeof import('@actions/workflow-parser');
let parser: Promise<ParserModule> | undefined;

function loadParser(): Promise<ParserModule> {
  parser ??= (async () => {
    const result = await build({
      stdin: { contents: "export * from '@actions/workflow-parser';", resolveDir: ROOT, loader: 'js' },
      bundle: true,
      platform: 'node',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
    });
    const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'agent-fix-workflow-parser-')), 'parser.mjs');
    writeFileSync(file, result.outputFiles[0].text);
    return (await import(pathToFileURL(file).href)) as ParserModule;
  })();
  return parser;
}

/** Errors GitHub's parser finds in a workflow file (syntax, schema, expressions); [] when valid. */
export async function workflowErrors(name: string, content: string): Promise<string[]> {
  const { parseWorkflow, convertWorkflowTemplate, NoOperationTraceWriter } = await loadParser();
  const parsed = parseWorkflow({ name, content }, new NoOperationTraceWriter());
  const errors = parsed.context.errors.getErrors().map((e) => e.message);
  if (errors.length > 0 || !parsed.value) return errors.length > 0 ? errors : [`${name}: not a workflow`];
  const template = await convertWorkflowTemplate(parsed.context, parsed.value);
  return [...(template.errors ?? []).map((e) => e.Message), ...parsed.context.errors.getErrors().map((e) => e.message)];
}

/** The job-status functions of an `if:`, for a run that is not cancelled (`success()`/`failure()` need the needed jobs' results: not modelled). */
const STATUS_FUNCTIONS = [
  { name: 'cancelled', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(false) },
  { name: 'always', minArgs: 0, maxArgs: 0, call: () => new data.BooleanData(true) },
];

/**
 * Evaluates a workflow expression (with or without `${{ }}`) against the given contexts, as the
 * runner does before a job starts. A template string like `a-${{ x }}` gives the joined string.
 */
export function evaluate(expression: string, contexts: Record<string, unknown>): unknown {
  const one = (expr: string): unknown => {
    const lexed = new Lexer(expr).lex();
    const ast = new Parser(lexed.tokens, Object.keys(contexts), STATUS_FUNCTIONS).parse();
    const ctx = JSON.parse(JSON.stringify(contexts), data.reviver) as InstanceType<typeof data.Dictionary>;
    const result = new Evaluator(ast, ctx, new Map(STATUS_FUNCTIONS.map((f) => [f.name, f]))).evaluate();
    return JSON.parse(JSON.stringify(result, data.replacer));
  };
  if (!expression.includes('${{')) return one(expression);
  // `${{ expr }}` alone (an `if:` may be written so) is the value itself, not a string
  const whole = /^\s*\$\{\{([\s\S]*?)\}\}\s*$/.exec(expression);
  if (whole && !whole[1].includes('}}')) return one(whole[1].trim());
  return expression.replace(/\$\{\{([\s\S]*?)\}\}/g, (_, e: string) => {
    const v = one(e.trim());
    return v === null || v === undefined ? '' : String(v);
  });
}

/** Truthiness of an evaluated value the way Actions coerces an `if:`. */
export const truthy = (v: unknown): boolean => v !== null && v !== undefined && v !== false && v !== 0 && v !== '';

export interface YamlBlock {
  file: string;
  line: number;
  text: string;
}

/** The ```yaml / ```yml fenced blocks of a markdown file (also indented ones, in list items), dedented. */
export function yamlBlocks(file: string, markdown: string): YamlBlock[] {
  const blocks: YamlBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^( *)```ya?ml\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1];
    const start = i + 1;
    let end = start;
    while (end < lines.length && lines[end].trim() !== '```') end++;
    const text = lines.slice(start, end).map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l.trimStart())).join('\n');
    blocks.push({ file, line: start + 1, text: `${text}\n` });
    i = end;
  }
  return blocks;
}

export interface ActionStep {
  where: string;
  uses: string;
  with: Record<string, unknown>;
}

/** Every step of a workflow text that uses agent-fix (`OWNER/agent-fix@...` or `./` in this repository). */
export function agentFixSteps(where: string, text: string): ActionStep[] {
  type Step = { uses?: string; with?: Record<string, unknown> };
  const parsed = parseYaml(text) as { jobs?: Record<string, { steps?: Step[] }> } | Step[];
  // a snippet that is a list of steps counts as one job's steps
  const doc = Array.isArray(parsed) ? { jobs: { snippet: { steps: parsed } } } : parsed;
  const steps: ActionStep[] = [];
  for (const job of Object.values(doc.jobs ?? {})) {
    for (const step of job.steps ?? []) {
      if (typeof step.uses === 'string' && (/^[\w.-]+\/agent-fix@/.test(step.uses) || step.uses === './')) {
        steps.push({ where, uses: step.uses, with: step.with ?? {} });
      }
    }
  }
  return steps;
}
