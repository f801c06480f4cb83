/**
 * The pure parts of the propose and publish kinds: the candidates appendix of a report, and the
 * bundle as a delivery (the report is left as it is; the story returns the bundle's path).
 */
import { withAppendix } from '../../src/run/kind.js';
import { withDelivery } from '../../src/run/story.js';
import type { RunReport } from '../../src/fix/types.js';

describe('withAppendix', () => {
  test('appends the candidates after the report, once, with a blank line', () => {
    expect(withAppendix('report\n\n', () => '**Candidates**: 2\n\n- a\n- b')).toBe('report\n\n**Candidates**: 2\n\n- a\n- b\n');
    expect(withAppendix('report', () => '')).toBe('report');
    expect(withAppendix('report')).toBe('report');
  });

  test('a long list is cut at a line boundary under the cap and says where the rest is; a summary takes it whole', () => {
    const lines = Array.from({ length: 40 }, (_, i) => `- candidate \`${i + 1}\` (\`openai/gpt-4.1\`, temperature 0.2): verified, 1 file +1/-1, $0.0042 — lost: larger change`);
    const list = `**Candidates**: 40 bundle(s)\n\n${lines.join('\n')}`;
    const capped = withAppendix('report', () => list);
    expect(capped.length).toBeLessThanOrEqual('report\n\n'.length + 1_800 + 1);
    expect(capped).toMatch(/\n- … \(more candidates in the step summary\)\n$/);
    for (const line of capped.split('\n').slice(2, -2)) expect(lines.concat(['', '**Candidates**: 40 bundle(s)'])).toContain(line);
    expect(withAppendix('report', () => list, Infinity)).toBe(`report\n\n${list}\n`);
  });
});

test('a bundle delivery leaves the report as it is', () => {
  const report = { status: 'not-fixed', reason: 'tests-still-failing', detail: 'x' } as RunReport;
  expect(withDelivery(report, { kind: 'bundle', path: '/tmp/b', candidate: '2' })).toBe(report);
});
