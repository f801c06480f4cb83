/** Candidate sampling (seed, temperature) through the real openai adapter, and the fake GitHub's read-only token. */
import { candidateSampling, fnv1a, TEMPERATURE_LADDER } from '../../src/bundle/candidate.js';
import { makeChatModel } from '../../src/adapters/openai.js';
import { makeGitHub } from '../../src/adapters/github.js';
import { startScriptedModel, type ScriptedModel } from '../../src/scripted/server.js';
import { startFakeGitHub, type FakeGitHub } from '../../test-support/fake-github.js';

test('each candidate id gets its own deterministic seed and a temperature from the ladder', () => {
  expect(candidateSampling('')).toEqual({});
  expect(candidateSampling(undefined)).toEqual({});
  const ids = ['1', '2', '3', '4', '5', '6', 'strong-model', 'cheap'];
  const all = ids.map((id) => candidateSampling(id));
  expect(all.map((s) => s.temperature).slice(0, 6)).toEqual([0.2, 0.4, 0.6, 0.8, 1.0, 0.2]);
  for (const s of all) {
    expect(Number.isInteger(s.seed)).toBe(true);
    expect(s.seed).toBeGreaterThanOrEqual(0);
    expect(s.seed).toBeLessThan(2 ** 31);
    expect(TEMPERATURE_LADDER).toContain(s.temperature);
  }
  expect(new Set(all.map((s) => s.seed)).size).toBe(ids.length);
  expect(candidateSampling('3')).toEqual(candidateSampling(' 3 '));
  // FNV-1a reference values
  expect(fnv1a('')).toBe(0x811c9dc5);
  expect(fnv1a('a')).toBe(0xe40c292c);
  expect(fnv1a('foobar')).toBe(0xbf9cf968);
});

let servers: ScriptedModel[] = [];
afterEach(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
});

test('the openai adapter sends the seed and temperature of a candidate', async () => {
  const server = await startScriptedModel({ steps: [{ content: 'one' }] });
  servers.push(server);
  const model = makeChatModel({ baseUrl: server.url, apiKey: 'sk-test-0123456789', model: 'm', ...candidateSampling('2') });
  await model.complete([{ role: 'user', content: 'hi' }], []);
  expect(server.requests[0]).toMatchObject({ seed: candidateSampling('2').seed, temperature: 0.4 });
});

test('a server that rejects the seed gets the request again without it', async () => {
  const server = await startScriptedModel({
    steps: [{ error: { status: 400, body: { error: { message: "Unrecognized request argument supplied: seed", param: 'seed' } } } }, { content: 'fine' }, { content: 'again' }],
  });
  servers.push(server);
  const logs: string[] = [];
  const model = makeChatModel({ baseUrl: server.url, apiKey: 'sk-test-0123456789', model: 'm', seed: 42, log: (m) => logs.push(m) });
  expect((await model.complete([{ role: 'user', content: 'hi' }], [])).content).toBe('fine');
  expect((await model.complete([{ role: 'user', content: 'hi' }], [])).content).toBe('again');
  expect(server.requests.map((r) => r.seed)).toEqual([42, undefined, undefined]);
  expect(logs.join('\n')).toMatch(/rejected seed 42; retrying without it/);
});

describe('fake GitHub with a read-only token', () => {
  let gh: FakeGitHub;
  afterEach(async () => {
    await gh?.close();
  });

  test('reads work, every write is answered 403 like GitHub does for contents: read, and recorded', async () => {
    gh = await startFakeGitHub({ owner: 'octo', repo: 'demo', token: 'ghs_readonly0123456789', readOnly: true });
    gh.addIssue({ number: 1, title: 'bug', body: 'x', author: 'alice' });
    const api = makeGitHub({ owner: 'octo', repo: 'demo', token: 'ghs_readonly0123456789', baseUrl: gh.url, retries: 0 });
    expect((await api.getIssue(1)).title).toBe('bug');
    await expect(api.createComment(1, 'hello')).rejects.toThrow(/Resource not accessible by integration/);
    expect(gh.comments).toHaveLength(0);
    expect(gh.writeAttempts.map((r) => `${r.method} ${r.path} ${r.status}`)).toEqual(['POST /repos/octo/demo/issues/1/comments 403']);
    gh.setReadOnly(false);
    await api.createComment(1, 'now allowed');
    expect(gh.comments).toHaveLength(1);
    expect(gh.writeAttempts).toHaveLength(1);
    gh.assertNoViolations();
  });
});
