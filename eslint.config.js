// ESLint (flat config): typescript-eslint's recommended rules, plus the architecture as rules.
// Layers, top to bottom; a file may import its own layer and the layers below, never above
// (README, Architecture). SDKs (Octokit, openai, execa, @actions/*) only in src/adapters/.
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import noTypeCycle from './scripts/eslint/no-type-cycle.js';
import maxFunctionLines from './scripts/eslint/max-function-lines.js';

export const LAYERS = [
  ['src/index.ts', 'src/main.ts', 'src/cli.ts'],
  ['src/run'],
  ['src/report'],
  ['src/fix.ts', 'src/fix', 'src/agent'],
  ['src/verify', 'src/guard', 'src/context', 'src/ci', 'src/diagnostics', 'src/lang'],
  ['src/publish', 'src/policy', 'src/settings', 'src/trigger', 'src/task', 'src/budget'],
  ['src/workspace', 'src/sandbox', 'src/code', 'src/scripted', 'src/redact.ts', 'src/transcript.ts'],
  ['src/adapters'],
  ['src/ports', 'src/errors.ts'],
];

const rel = (p) => `./${p}`;
/** One zone per layer: its files may not import anything of the layers above it. */
const upward = LAYERS.flatMap((layer, i) =>
  i === 0
    ? []
    : [{ target: layer.map(rel), from: LAYERS.slice(0, i).flat().map(rel), message: 'Imports run one way (entries → stories → report → fix/agent → verify → publish/policy/settings → workspace → adapters → ports); this one goes up.' }],
);
/** Only the entries (the composition roots) build adapters. */
const adapters = { target: LAYERS.slice(1).flat().filter((p) => p !== 'src/adapters').map(rel), from: ['./src/adapters'], message: 'Adapters are built by the entries (main.ts, cli.ts) and passed in as ports.' };

const SDKS = ['@octokit/*', '@actions/*', 'openai', 'openai/*', 'execa', 'simple-git'];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'coverage/**', 'bench/results/**', '**/*.cjs', '**/*.mjs', 'demo/**', '__tests__/fixtures/**', 'test-support/fixtures/**'] },
  ...tseslint.configs.recommended,
  {
    plugins: { 'import-x': importX, local: { rules: { 'no-type-cycle': noTypeCycle, 'max-function-lines': maxFunctionLines } } },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      // Payloads are untrusted JSON read defensively through `Record<string, any>` views.
      '@typescript-eslint/no-explicit-any': 'off',
      // A variable a closure reads before its one assignment cannot be const.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: [...upward, adapters] }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      // import-x/no-cycle skips type-only imports; this one sees them (scripts/eslint/no-type-cycle.js).
      'local/no-type-cycle': 'error',
      // No function over 150 lines, counted whole: nested closures included (scripts/eslint/max-function-lines.js).
      'local/max-function-lines': ['error', { max: 150 }],
      // No file over 500 lines: a file does one thing.
      'max-lines': ['error', { max: 500, skipBlankLines: false, skipComments: false }],
      // A type-position import('…') hides a dependency from a reader: import the type at the top.
      'no-restricted-syntax': ['error', { selector: 'TSImportType', message: "A type-position import('…') hides a dependency; import the type at the top of the file (import type)." }],
      'no-restricted-imports': ['error', { patterns: [{ group: SDKS, message: 'SDK imports live only in src/adapters/ (behind a port in src/ports/).' }] }],
    },
  },
  { files: ['src/adapters/**/*.ts'], rules: { 'no-restricted-imports': 'off' } },
);
