import { Redactor, secretForms, secretsFromEnv } from '../../src/redact.js';

const TOKEN = 'ghs_AbCdEf0123456789xyzXYZ+/=';

describe('Redactor', () => {
  test('replaces plain occurrences', () => {
    const r = new Redactor([TOKEN]);
    expect(r.redact(`token=${TOKEN} and again ${TOKEN}.`)).toBe('token=*** and again ***.');
  });

  test('ignores empty and short secrets', () => {
    const r = new Redactor(['', 'abc', '   ']);
    expect(r.size).toBe(0);
    expect(r.redact('abc abc')).toBe('abc abc');
    r.add('abcd');
    expect(r.size).toBe(1);
    expect(r.redact('xabcdx')).toBe('x***x');
  });

  test('replaces base64 forms, including x-access-token and user:secret basic auth', () => {
    const r = new Redactor([TOKEN]);
    const b64 = Buffer.from(TOKEN).toString('base64');
    const xat = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    expect(r.redact(`a ${b64} b`)).toBe('a *** b');
    expect(r.redact(`Authorization: basic ${xat}`)).toBe('Authorization: basic ***');
    for (const user of ['u', 'ab', 'someone', 'pat']) {
      const basic = Buffer.from(`${user}:${TOKEN}`).toString('base64');
      const out = r.redact(`Authorization: Basic ${basic}`);
      expect(out).toContain('***');
      // What is left of the encoded token is at most a couple of edge characters.
      expect(out.replace('Authorization: Basic ', '').replace('***', '').length).toBeLessThanOrEqual(
        Buffer.from(`${user}:`).toString('base64').length + 4,
      );
    }
  });

  test('replaces url-encoded, hex and JSON-escaped forms', () => {
    const secret = 'p@ss w/rd"&=\\key';
    const r = new Redactor([secret]);
    expect(r.redact(`https://x?k=${encodeURIComponent(secret)}&z=1`)).toBe('https://x?k=***&z=1');
    expect(r.redact(`k=${encodeURIComponent(secret).toLowerCase()}`)).toContain('***');
    expect(r.redact(`hex ${Buffer.from(secret).toString('hex')}`)).toBe('hex ***');
    expect(r.redact(`hex ${Buffer.from(secret).toString('hex').toUpperCase()}`)).toBe('hex ***');
    expect(r.redact(JSON.stringify({ k: secret }))).toBe('{"k":"***"}');
  });

  test('handles regex metacharacters in secrets literally', () => {
    const r = new Redactor(['a.b*c(d)?[e]']);
    expect(r.redact('a.b*c(d)?[e] axbbc')).toBe('*** axbbc');
  });

  test('several secrets, added later too', () => {
    const r = new Redactor(['first-secret']);
    r.add('second-secret');
    r.add('second-secret');
    expect(r.size).toBe(2);
    expect(r.redact('first-secret second-secret')).toBe('*** ***');
  });

  test('is fast and complete on multi-MB text', () => {
    const secrets = Array.from({ length: 20 }, (_, i) => `sk-${i}-${'q'.repeat(10)}${i * 7919}`);
    const r = new Redactor(secrets);
    const line = 'PASS src/some/file.test.ts ok 1 - a typical line of test output 0123456789\n';
    const parts: string[] = [];
    for (let i = 0; i < 60_000; i++) {
      parts.push(line);
      if (i % 5000 === 0) parts.push(`leak ${secrets[(i / 5000) % secrets.length]} ${Buffer.from(secrets[3]).toString('base64')}\n`);
    }
    const text = parts.join('');
    expect(text.length).toBeGreaterThan(4_000_000);
    const out = r.redact(text);
    for (const s of secrets) expect(out).not.toContain(s);
    expect(out).not.toContain(Buffer.from(secrets[3]).toString('base64'));
    expect(out.match(/\*\*\*/g)).toHaveLength(24);
  });

  test('secretForms lists the encodings', () => {
    const forms = secretForms('my-secret-value');
    expect(forms).toContain('my-secret-value');
    expect(forms).toContain(Buffer.from('my-secret-value').toString('base64'));
    expect(forms).toContain(Buffer.from('my-secret-value').toString('hex'));
  });
});

describe('secretsFromEnv', () => {
  test('values of secret-looking variables, 8 characters or more', () => {
    const found = secretsFromEnv({
      GITHUB_TOKEN: 'ghs_0123456789',
      'INPUT_GITHUB-TOKEN': 'ghs_from_input_1',
      'INPUT_API-KEY': 'sk-from-input-2',
      OPENAI_API_KEY: 'sk-openai-3333',
      APIKEY: 'apikey-44444',
      DB_PASSWORD: 'short',
      MY_SECRET: 'a-longer-secret',
      NPM_CONFIG__AUTH: 'dXNlcjpwYXNz',
      PATH: '/usr/bin:/bin:/usr/local/bin',
      GIT_AUTHOR_NAME: 'github-actions[bot]',
      GIT_COMMITTER_NAME: 'github-actions[bot]',
      HTTP_AUTHORIZATION: 'Bearer abcdefgh',
      EMPTY_TOKEN: '',
      UNSET_TOKEN: undefined,
    });
    expect(found.sort()).toEqual(
      ['ghs_0123456789', 'ghs_from_input_1', 'sk-from-input-2', 'sk-openai-3333', 'apikey-44444', 'a-longer-secret', 'dXNlcjpwYXNz', 'Bearer abcdefgh'].sort(),
    );
  });
});
