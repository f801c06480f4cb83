import { foldRounds, parseBody, roundsIn } from '../../src/report/follow-up.js';
import { parseProofMarker, proofMarker } from '../../src/fix/follow-up-gate.js';

const FIRST = `<!-- agent-fix:issue-7 -->\nFixes #7\n\n> Opened by agent-fix for a human to review. It is not merged automatically.\n\n### agent-fix: Fixed\n\nthe first report\n\n<details><summary>Test report</summary>\n\nrows\n\n</details>\n\n${proofMarker(['a > b'])}\n`;

describe('pull request body rounds', () => {
  test('a first fix\'s body is round 1: header kept on top, the report below it, the proof marker read', () => {
    const parts = parseBody(FIRST);
    expect(parts.header).toBe('<!-- agent-fix:issue-7 -->\nFixes #7\n\n> Opened by agent-fix for a human to review. It is not merged automatically.');
    expect(parts.current.round).toBe(1);
    expect(parts.current.content.startsWith('### agent-fix: Fixed')).toBe(true);
    expect(parts.current.content).not.toContain('agent-fix:proof');
    expect(parts.proof).toEqual(['a > b']);
    expect(roundsIn(FIRST)).toBe(1);
  });

  test('each round goes on top; the previous newest is folded above the older ones, all still readable', () => {
    const two = foldRounds(FIRST, { number: 2, content: '### Round 2: rename\n\nsecond' }, null);
    expect(roundsIn(two)).toBe(2);
    expect(two.startsWith('<!-- agent-fix:issue-7 -->\nFixes #7')).toBe(true);
    expect(two).toContain('<details><summary>Round 1: the original fix</summary>\n\n### agent-fix: Fixed\n\nthe first report');
    expect(parseProofMarker(two)).toEqual(['a > b']);
    const three = foldRounds(two, { number: 3, content: '### Round 3: export it\n\nthird' }, null);
    expect(roundsIn(three)).toBe(3);
    const order = ['### Round 3: export it', '<details><summary>Round 2: rename</summary>', '<details><summary>Round 1: the original fix</summary>'].map((s) => three.indexOf(s));
    expect(order.every((i) => i >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(three).toContain('second');
    expect(three).toContain('the first report');
    expect(three.match(/agent-fix:proof/g)).toHaveLength(1);
    // balanced folds
    expect((three.match(/<details>/g) ?? []).length).toBe((three.match(/<\/details>/g) ?? []).length);
  });

  test('a body agent-fix did not write (edited by hand) becomes round 1 as it is', () => {
    const body = 'A maintainer rewrote this description.';
    const two = foldRounds(body, { number: 2, content: '### Round 2: x\n\ny' }, null);
    expect(two).toContain('<details><summary>Round 1: the original fix</summary>\n\nA maintainer rewrote this description.');
    expect(two).not.toContain('agent-fix:proof');
  });

  test('the body stays under GitHub\'s limit: the oldest rounds are shortened, the folds stay balanced', () => {
    let body = FIRST;
    for (let n = 2; n <= 8; n++) body = foldRounds(body, { number: n, content: `### Round ${n}: big\n\n${'x'.repeat(15_000)}` }, null);
    expect(body.length).toBeLessThanOrEqual(65_536);
    expect(body).toContain('### Round 8: big');
    expect(body).toContain('shortened');
    expect((body.match(/<details>/g) ?? []).length).toBe((body.match(/<\/details>/g) ?? []).length);
    expect(parseProofMarker(body)).toEqual(['a > b']);
  });
});
