import { childEnv } from '../../src/verify/env.js';

const parent: NodeJS.ProcessEnv = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/runner',
  USER: 'runner',
  LANG: 'C.UTF-8',
  LC_ALL: 'C.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  TZ: 'UTC',
  TERM: 'xterm',
  TMPDIR: '/tmp',
  SHELL: '/bin/bash',
  CI: 'false',
  RUNNER_OS: 'Linux',
  RUNNER_ARCH: 'X64',
  RUNNER_TEMP: '/home/runner/work/_temp',
  RUNNER_TOOL_CACHE: '/opt/hostedtoolcache',
  GITHUB_ACTIONS: 'true',
  GITHUB_WORKSPACE: '/home/runner/work/repo/repo',
  JAVA_HOME: '/usr/lib/jvm/17',
  JAVA_HOME_17_X64: '/usr/lib/jvm/17',
  GOPATH: '/home/runner/go',
  CARGO_HOME: '/home/runner/.cargo',
  VIRTUAL_ENV: '/home/runner/venv',
  npm_config_cache: '/home/runner/.npm',
  NPM_CONFIG_REGISTRY: 'https://registry.npmjs.org/',
  'npm_config_//registry.npmjs.org/:_authToken': 'npm_abcdefghijklmnop',
  NPM_CONFIG__AUTH: 'dXNlcjpwYXNz',
  NPM_TOKEN: 'npm_secret_token_value',
  GITHUB_TOKEN: 'ghs_0123456789abcdef',
  GH_TOKEN: 'ghs_0123456789abcdef',
  'INPUT_GITHUB-TOKEN': 'ghs_0123456789abcdef',
  'INPUT_API-KEY': 'sk-abcdef0123456789',
  INPUT_LABEL: 'agent-fix',
  ACTIONS_RUNTIME_TOKEN: 'eyJ0eXAiOiJKV1Q',
  ACTIONS_ID_TOKEN_REQUEST_URL: 'https://token.actions.example',
  ACTIONS_CACHE_URL: 'https://cache.example',
  OPENAI_API_KEY: 'sk-live-123456789',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  DB_PASSWORD: 'hunter22',
  NODE_OPTIONS: '--require /tmp/evil.js',
  GITHUB_REPOSITORY: 'owner/repo',
  SOME_RANDOM_VAR: 'x',
  HTTPS_PROXY: 'http://user:pass@proxy:3128',
  NO_PROXY: 'localhost',
  UNDEFINED_ONE: undefined,
};

describe('childEnv', () => {
  const env = childEnv(parent);

  test('keeps the allow-listed basics', () => {
    for (const name of ['PATH', 'HOME', 'USER', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM', 'TMPDIR', 'SHELL',
      'RUNNER_OS', 'RUNNER_ARCH', 'RUNNER_TEMP', 'RUNNER_TOOL_CACHE', 'GITHUB_ACTIONS', 'GITHUB_WORKSPACE',
      'JAVA_HOME', 'JAVA_HOME_17_X64', 'GOPATH', 'CARGO_HOME', 'VIRTUAL_ENV', 'npm_config_cache', 'NPM_CONFIG_REGISTRY', 'NO_PROXY']) {
      expect(env[name]).toBe(parent[name]);
    }
  });

  test('drops everything secret-looking, action inputs, runtime tokens and NODE_OPTIONS', () => {
    for (const name of ['npm_config_//registry.npmjs.org/:_authToken', 'NPM_CONFIG__AUTH', 'NPM_TOKEN', 'GITHUB_TOKEN', 'GH_TOKEN',
      'INPUT_GITHUB-TOKEN', 'INPUT_API-KEY', 'INPUT_LABEL', 'ACTIONS_RUNTIME_TOKEN', 'ACTIONS_ID_TOKEN_REQUEST_URL',
      'ACTIONS_CACHE_URL', 'OPENAI_API_KEY', 'AWS_SECRET_ACCESS_KEY', 'DB_PASSWORD', 'NODE_OPTIONS']) {
      expect(env).not.toHaveProperty([name]);
    }
    const values = Object.values(env).join('\n');
    expect(values).not.toMatch(/ghs_|sk-|npm_abc|hunter22|aws-secret|evil/);
  });

  test('drops what is not allow-listed', () => {
    expect(env).not.toHaveProperty('GITHUB_REPOSITORY');
    expect(env).not.toHaveProperty('SOME_RANDOM_VAR');
    expect(env).not.toHaveProperty('UNDEFINED_ONE');
  });

  test('drops a proxy URL that carries credentials', () => {
    expect(env).not.toHaveProperty('HTTPS_PROXY');
    expect(childEnv({ HTTPS_PROXY: 'http://proxy:3128' }).HTTPS_PROXY).toBe('http://proxy:3128');
  });

  test('sets CI and turns colors off', () => {
    expect(env.CI).toBe('true');
    expect(env.FORCE_COLOR).toBe('0');
    expect(env.NO_COLOR).toBe('1');
  });

  test('extra variables are added last', () => {
    const e = childEnv(parent, { extra: { MY_FLAG: '1', CI: '1' } });
    expect(e.MY_FLAG).toBe('1');
    expect(e.CI).toBe('1');
  });

  test('works on the real process environment', () => {
    const e = childEnv(process.env);
    expect(e.PATH).toBe(process.env.PATH);
    for (const name of Object.keys(e)) expect(name).not.toMatch(/TOKEN|SECRET|PASSWORD|API_?KEY/i);
  });
});
