import { readFileSync } from 'node:fs';
import { readSettings as readInputs, SettingsError, parseGlobList } from '../../src/settings/inputs.js';
import { resolveSettings } from '../../src/settings/resolve.js';
import { ALWAYS_PROTECTED as GUARDED } from '../../src/workspace/paths.js';

/** The effective settings of the inputs: read (only what was given), then every default applied once. */
const readSettings = (...a: Parameters<typeof readInputs>) => resolveSettings(readInputs(...a));

/** The protected glob every settings object names (the path guard adds `.git/**` too). */
const ALWAYS_PROTECTED = GUARDED[0];

const SECRET = 'ghs_secretTokenValue1234567890';

/** The values a runner passes when the workflow sets only `with:` entries in `given` (defaults from action.yml). */
function inputs(given: Record<string, string> = {}): (name: string) => string {
  const defaults: Record<string, string> = {
    'github-token': SECRET,
    'api-key': '',
    'base-url': 'https://models.github.ai/inference',
    model: 'openai/gpt-4.1',
    'test-command': '',
    'setup-command': '',
    label: 'agent-fix',
    'max-iterations': '5',
    'max-changed-files': '10',
    'max-changed-lines': '200',
    draft: 'true',
    'command-timeout-minutes': '15',
    'protected-paths': '',
    'max-tokens': '2000000',
    'max-cost-usd': '5',
    'max-run-minutes': '60',
    'model-prices': '',
    'feedback-tokens': '',
    'context-tokens': '8000',
    'related-tests-first': 'true',
    'test-integrity-allow': '',
  };
  const all = { ...defaults, ...given };
  return (name) => all[name] ?? '';
}

function errorOf(given: Record<string, string>): SettingsError {
  try {
    readSettings(inputs(given));
  } catch (e) {
    expect(e).toBeInstanceOf(SettingsError);
    return e as SettingsError;
  }
  throw new Error('expected a SettingsError');
}

describe('readSettings', () => {
  test('action.yml defaults give the documented settings', () => {
    expect(readSettings(inputs())).toEqual({
      githubToken: SECRET,
      apiKey: SECRET,
      baseUrl: 'https://models.github.ai/inference',
      model: 'openai/gpt-4.1',
      testCommand: null,
      setupCommand: null,
      label: 'agent-fix',
      maxIterations: 5,
      maxChangedFiles: 10,
      maxChangedLines: 200,
      draft: true,
      commandTimeoutMs: 15 * 60_000,
      protectedPaths: [ALWAYS_PROTECTED],
      budget: { maxTokens: 2_000_000, maxCostUsd: 5, maxWallMs: 60 * 60_000, prices: {} },
      feedbackTokens: 2000,
      contextTokens: 8000,
      maxInputTokens: 8000,
      maxOutputTokens: 4000,
      requestsPerMinute: 10,
      relatedTestsFirst: true,
      preexistingFailures: 'allow',
      testIntegrityAllow: [],
      workflows: [],
      closeOnIssueClose: true,
      // what only the resolved settings hold (the policy's, the mode's): their defaults
      changedExpectations: 'draft',
      gaming: 'draft',
      mode: 'run',
      candidate: null,
      bundles: null,
      allowedPaths: [],
      sandbox: { setupNetwork: true, testNetwork: false, requireIsolation: false, memoryMb: 0, requireSandbox: 'github-hosted' },
      policySource: 'the action inputs (no repository policy was read)',
    });
  });

  test('the reader gives only what was given: no default (resolveSettings applies them)', () => {
    // only the token given (as the CLI, which passes no action.yml defaults)
    const only = (given: Record<string, string>) => (name: string) => ({ 'github-token': SECRET, ...given })[name] ?? '';
    expect(readInputs(only({}))).toEqual({ githubToken: SECRET, apiKey: SECRET, protectedPaths: [ALWAYS_PROTECTED] });
    expect(resolveSettings(readInputs(only({})))).toEqual(readSettings(inputs()));
    expect(readInputs(only({ 'max-tokens': '0', 'base-url': 'https://api.openai.com/v1/' }))).toEqual({ githubToken: SECRET, apiKey: SECRET, protectedPaths: [ALWAYS_PROTECTED], baseUrl: 'https://api.openai.com/v1', budget: { maxTokens: 0 } });
  });

  test('budget inputs: caps and a price table, with errors naming the input', () => {
    const s = readSettings(inputs({ 'max-tokens': '50000', 'max-cost-usd': '0.75', 'max-run-minutes': '0', 'model-prices': '{"my-model": {"input": 1, "output": 4}}' }));
    expect(s.budget).toEqual({ maxTokens: 50000, maxCostUsd: 0.75, maxWallMs: 0, prices: { 'my-model': { input: 1, output: 4 } } });
    const e = errorOf({ 'max-cost-usd': 'lots', 'model-prices': 'my-model: cheap' });
    expect(e.problems).toHaveLength(2);
    expect(e.problems[0]).toContain('Input "max-cost-usd"');
    expect(e.problems[1]).toContain('Input "model-prices"');
  });

  test('test intelligence inputs', () => {
    const s = readSettings(inputs({ 'feedback-tokens': '1500', 'related-tests-first': 'FALSE', 'test-integrity-allow': 'snapshot, timeout', 'preexisting-failures': 'Block' }));
    expect(s.feedbackTokens).toBe(1500);
    expect(s.relatedTestsFirst).toBe(false);
    expect(s.testIntegrityAllow).toEqual(['snapshot', 'timeout']);
    expect(s.preexistingFailures).toBe('block');
    const e = errorOf({ 'feedback-tokens': '10', 'test-integrity-allow': 'everything', 'preexisting-failures': 'ignore' });
    expect(e.problems).toHaveLength(3);
    expect(e.problems[1]).toContain('Input "preexisting-failures"');
    expect(e.problems[1]).toContain('allow or block');
    expect(e.problems[2]).toContain('test-integrity-allow');
  });

  test('context-tokens: 0 turns the repository context off; a non-number is refused with what to give', () => {
    expect(readSettings(inputs({ 'context-tokens': '0' })).contextTokens).toBe(0);
    expect(readSettings(inputs({ 'context-tokens': '12000' })).contextTokens).toBe(12000);
    expect(errorOf({ 'context-tokens': 'lots' }).problems[0]).toContain('Input "context-tokens"');
  });

  test('empty inputs (e.g. from the CLI) fall back to the same defaults', () => {
    const s = readSettings((name) => (name === 'github-token' ? SECRET : ''));
    expect(s.maxIterations).toBe(5);
    expect(s.draft).toBe(true);
    expect(s.label).toBe('agent-fix');
    expect(s.commandTimeoutMs).toBe(900_000);
  });

  test('explicit values are parsed', () => {
    const s = readSettings(
      inputs({
        'api-key': 'sk-abc',
        'base-url': 'http://localhost:11434/v1/',
        model: 'llama3.1',
        'test-command': 'npm test -- --ci',
        'setup-command': 'npm ci',
        label: 'Bot Fix',
        'max-iterations': '50',
        'max-changed-files': '3',
        'max-changed-lines': '1000',
        draft: 'FALSE',
        'command-timeout-minutes': '30',
      }),
    );
    expect(s.apiKey).toBe('sk-abc');
    expect(s.baseUrl).toBe('http://localhost:11434/v1');
    expect(s.model).toBe('llama3.1');
    expect(s.testCommand).toBe('npm test -- --ci');
    expect(s.setupCommand).toBe('npm ci');
    expect(s.label).toBe('Bot Fix');
    expect(s.maxIterations).toBe(50);
    expect(s.maxChangedFiles).toBe(3);
    expect(s.maxChangedLines).toBe(1000);
    expect(s.draft).toBe(false);
    expect(s.commandTimeoutMs).toBe(30 * 60_000);
  });

  test.each(['true', 'True', 'TRUE'])('draft %s is true', (v) => expect(readSettings(inputs({ draft: v })).draft).toBe(true));
  test.each(['false', 'False'])('draft %s is false', (v) => expect(readSettings(inputs({ draft: v })).draft).toBe(false));

  test('empty api-key means the github token (GitHub Models)', () => {
    expect(readSettings(inputs({ 'api-key': '' })).apiKey).toBe(SECRET);
  });

  test('max-iterations errors name the input, the value and what is expected', () => {
    expect(errorOf({ 'max-iterations': 'abc' }).message).toBe('Input "max-iterations" must be a whole number from 1 to 50 (got "abc").');
    expect(errorOf({ 'max-iterations': '0' }).message).toContain('(got "0")');
    expect(errorOf({ 'max-iterations': '51' }).message).toContain('from 1 to 50');
    expect(errorOf({ 'max-iterations': '2.5' }).message).toContain('(got "2.5")');
    expect(errorOf({ 'max-iterations': '-3' }).message).toContain('(got "-3")');
  });

  test('other numeric and boolean inputs are checked', () => {
    expect(errorOf({ 'max-changed-files': 'ten' }).message).toBe('Input "max-changed-files" must be a whole number from 1 to 1000 (got "ten").');
    expect(errorOf({ 'max-changed-lines': '1e3' }).message).toContain('Input "max-changed-lines"');
    expect(errorOf({ 'command-timeout-minutes': '0' }).message).toContain('minutes from 1 to 360');
    expect(errorOf({ draft: 'yes' }).message).toBe('Input "draft" must be true or false (got "yes").');
  });

  test('base-url and model are checked', () => {
    expect(errorOf({ 'base-url': 'models.github.ai' }).message).toMatch(/^Input "base-url" must be an http\(s\) URL .*\(got "models.github.ai"\)\.$/);
    expect(errorOf({ 'base-url': 'ftp://x' }).message).toContain('Input "base-url"');
    expect(errorOf({ model: 'gpt 4' }).message).toContain('Input "model" must be a model name without spaces');
  });

  test('label is checked', () => {
    expect(errorOf({ label: 'x'.repeat(51) }).message).toContain('Input "label" must be a label name of 1 to 50 characters');
  });

  test('all problems are reported at once', () => {
    const e = errorOf({ 'max-iterations': 'abc', draft: 'maybe' });
    expect(e.problems).toHaveLength(2);
    expect(e.message).toContain('max-iterations');
    expect(e.message).toContain('draft');
  });

  test('missing github-token says how to provide one', () => {
    const e = errorOf({ 'github-token': '' });
    expect(e.message).toContain('Input "github-token" is required');
    expect(e.message).toContain('github-token');
    expect(e.message).toContain('permissions');
  });

  test('secret values never appear in errors', () => {
    const badToken = 'ghp_abc def';
    const e1 = errorOf({ 'github-token': badToken });
    expect(e1.message).toContain('Input "github-token"');
    expect(e1.message).not.toContain('ghp_abc');
    const badKey = 'sk-live\nsecond-line';
    const e2 = errorOf({ 'api-key': badKey });
    expect(e2.message).toContain('Input "api-key"');
    expect(e2.message).not.toContain('sk-live');
    // A secret must not leak through an error about another input either.
    expect(errorOf({ 'max-iterations': 'x' }).message).not.toContain(SECRET);
  });

  test('long bad values are shortened in messages', () => {
    const e = errorOf({ model: 'a b'.repeat(100) });
    expect(e.message.length).toBeLessThan(250);
  });

  test('protected paths: newline or comma separated, always including workflows', () => {
    const s = readSettings(inputs({ 'protected-paths': 'package-lock.json, src/generated/**\n./docs/**\n\n/infra/**,.github/workflows/**' }));
    expect(s.protectedPaths).toEqual([ALWAYS_PROTECTED, 'package-lock.json', 'src/generated/**', 'docs/**', 'infra/**']);
    expect(parseGlobList(' a ,a,\r\nb ')).toEqual(['a', 'b']);
  });

  test('test and setup commands: empty means detect (null), whitespace is trimmed', () => {
    const s = readSettings(inputs({ 'test-command': '   ', 'setup-command': '  make deps ' }));
    expect(s.testCommand).toBeNull();
    expect(s.setupCommand).toBe('make deps');
  });
});

describe('mode, candidate, bundles', () => {
  test('run is the default and adds nothing; propose and publish are read in any case', () => {
    const s = readSettings(inputs({ mode: 'run' }));
    expect(s.mode).toBe('run');
    expect(readInputs(inputs()).mode).toBeUndefined();
    expect(readSettings(inputs({ mode: 'Propose', candidate: '3' }))).toMatchObject({ mode: 'propose', candidate: '3', apiKey: SECRET });
    expect(readSettings(inputs({ mode: 'publish', bundles: 'bundles' }))).toMatchObject({ mode: 'publish', bundles: 'bundles' });
  });

  test('an unknown mode names the three modes', () => {
    const e = errorOf({ mode: 'dry-run' });
    expect(e.problems).toEqual([expect.stringContaining('Input "mode" must be run (one job fixes and publishes), propose')]);
    expect(e.message).toContain('got "dry-run"');
  });

  test('publish needs no model key: the key is dropped (never handed to a model), and bundles is required', () => {
    const s = readSettings(inputs({ mode: 'publish', bundles: '/tmp/b', 'api-key': 'sk-unused-key' }));
    expect(s.apiKey).toBe('');
    const e = errorOf({ mode: 'publish' });
    expect(e.problems).toEqual([expect.stringContaining('Input "bundles" is required with mode: publish')]);
  });

  test('a candidate id that cannot name a directory is refused with an example', () => {
    for (const bad of ['../x', 'a b', '-1', 'x'.repeat(65)]) {
      expect(errorOf({ mode: 'propose', candidate: bad }).problems[0]).toMatch(/^Input "candidate" must be 1 to 64 letters.*such as "1"/);
    }
    expect(readSettings(inputs({ candidate: 'strong-model.2' })).candidate).toBe('strong-model.2');
  });
});

describe('action.yml', () => {
  /** Input names and defaults, read with a small line parser (the file's layout is simple and fixed). */
  function actionDefaults(): Map<string, string> {
    const text = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
    const section = text.slice(text.indexOf('\ninputs:'), text.indexOf('\noutputs:'));
    const out = new Map<string, string>();
    let current = '';
    for (const line of section.split('\n')) {
      const name = /^  ([a-z-]+):\s*$/.exec(line);
      if (name) current = name[1];
      const def = /^    default: (.*)$/.exec(line);
      if (def && current) out.set(current, def[1].trim().replace(/^'(.*)'$/, '$1'));
    }
    return out;
  }

  test('declares every input readSettings reads, with defaults that give the documented settings', () => {
    const defaults = actionDefaults();
    const asked: string[] = [];
    const s = readSettings((name) => {
      asked.push(name);
      const v = defaults.get(name) ?? '';
      return v === '${{ github.token }}' ? SECRET : v;
    });
    expect(new Set(asked)).toEqual(new Set(defaults.keys()));
    expect(s).toEqual(readSettings(inputs()));
  });

  test('declares the outputs and the node24 runtime', () => {
    const text = readFileSync(new URL('../../action.yml', import.meta.url), 'utf8');
    for (const output of ['status', 'pr-number', 'pr-url', 'branch', 'iterations', 'transcript-path', 'bundle-path']) {
      expect(text).toMatch(new RegExp(`\\n  ${output}:\\n    description: `));
    }
    expect(text).toMatch(/runs:\n  using: node24\n  main: dist\/index.js/);
  });
});

describe('the CLI reads its flags and environment as inputs and resolves them with its own defaults', () => {
  test('an unset or empty endpoint and model are the CLI default (OpenAI), as --help says; a given one is taken', async () => {
    const { settingsFrom } = await import('../../src/cli.js');
    for (const env of [{}, { OPENAI_BASE_URL: '', AGENT_FIX_MODEL: '' }]) {
      expect(settingsFrom({}, { OPENAI_API_KEY: 'k', ...env })).toMatchObject({ baseUrl: 'https://api.openai.com/v1', model: 'gpt-4.1' });
    }
    expect(settingsFrom({ 'base-url': '' }, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).toMatchObject({ baseUrl: 'http://127.0.0.1:9/v1' });
    expect(settingsFrom({ 'base-url': 'http://127.0.0.1:8/v1', model: 'm' }, { OPENAI_API_KEY: 'k', OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' })).toMatchObject({ baseUrl: 'http://127.0.0.1:8/v1', model: 'm' });
  });
});
