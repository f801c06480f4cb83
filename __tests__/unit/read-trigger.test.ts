/**
 * The event is read into a trigger once (run/read-trigger.ts): a bot sender the policy may allow
 * is read as allowed and confirmed against the policy's allowed-bots afterwards; the result is
 * what trigger/parse.ts would say with the policy's list, without a second parse.
 */
import { confirmBot, readTrigger } from '../../src/run/read-trigger.js';
import { parseTrigger } from '../../src/trigger/parse.js';

const settings = { label: 'agent-fix', workflows: [] };
const sender = (login: string, type = 'User') => ({ login, id: 1, type });
const labeled = (login: string, type = 'User', label = 'agent-fix') => ({
  action: 'labeled',
  issue: { number: 42, title: 'parseDate throws', body: 'x', user: { login: 'reporter' }, labels: [{ name: label }], state: 'open', updated_at: '2024-05-01T11:59:58Z', created_at: '2024-04-30T09:00:00Z' },
  label: { name: label },
  repository: { name: 'widgets', full_name: 'octo-org/widgets', owner: { login: 'octo-org' }, default_branch: 'main' },
  sender: sender(login, type),
});

test('a human sender: parsed once, nothing to confirm; the policy list changes nothing', () => {
  const read = readTrigger('issues', labeled('maintainer'), settings);
  expect(read.bot).toBeUndefined();
  expect(read.trigger.kind).toBe('issue');
  expect(confirmBot(read, [])).toBe(read.trigger);
  expect(read.trigger).toEqual(parseTrigger('issues', labeled('maintainer'), settings));
});

test('a bot the policy lists triggers; one it does not list is skipped with the parser\'s words', () => {
  const payload = labeled('renovate[bot]', 'Bot');
  const read = readTrigger('issues', payload, settings);
  expect(read.bot).toBe('renovate[bot]');
  expect(read.trigger.kind).toBe('issue');
  // the same as parsing with the policy's list, either way
  expect(confirmBot(read, ['Renovate[bot]'])).toEqual(parseTrigger('issues', payload, { ...settings, allowedBots: ['Renovate[bot]'] }));
  expect(confirmBot(read, ['dependabot[bot]'])).toEqual({ kind: 'skip', reason: 'sender renovate[bot] is a bot; agent-fix ignores bots to avoid loops.' });
  expect(confirmBot(read, ['dependabot[bot]'])).toEqual(parseTrigger('issues', payload, { ...settings, allowedBots: ['dependabot[bot]'] }));
});

test('agent-fix itself is never read as allowed: skipped at once, before any policy is read', () => {
  const read = readTrigger('issues', labeled('github-actions[bot]', 'Bot'), settings);
  expect(read.bot).toBeUndefined();
  expect(read.trigger).toEqual({ kind: 'skip', reason: 'sender github-actions[bot] is a bot; agent-fix ignores bots to avoid loops.' });
  expect(confirmBot(read, ['github-actions[bot]'])).toEqual(read.trigger);
});

test('a bot whose event is skipped for another reason stays skipped for that reason', () => {
  const read = readTrigger('issues', labeled('renovate[bot]', 'Bot', 'bug'), settings);
  expect(read.trigger.kind).toBe('skip');
  expect(confirmBot(read, [])).toBe(read.trigger);
});
