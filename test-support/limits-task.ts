/**
 * The task the endpoint-limit tests share (issue 21): the demo's cart with a long module next to it
 * (read whole, far over 8,000 tokens), and a scripted model that reads what a real one would.
 */
import { parseScript } from '../src/scripted/script.js';

/** `src/rates.js`: 900 one-line functions. */
export const RATES_JS = `${Array.from({ length: 900 }, (_, i) => `export function rate${i}(amount, region) { return Math.round(amount * (1 + ${i % 17} / 100) * regionFactor(region, ${i})); }`).join('\n')}\n`;

/** The two halves of the cart's fix, as edit_file arguments. */
export const QUANTITY = { path: 'src/cart.js', old_string: '(sum, item) => sum + item.price, 0)', new_string: '(sum, item) => sum + item.price * item.quantity, 0)' };
export const PERCENT = { path: 'src/cart.js', old_string: 'const discount = subtotal * discountPercent;', new_string: 'const discount = (subtotal * discountPercent) / 100;' };

/** Reads the long module (two pages), searches, reads the cart and its test, fixes, runs the tests, finishes. */
export const READER = parseScript({
  label: 'reads a lot',
  steps: [
    { toolCalls: [{ name: 'read_file', arguments: { path: 'src/rates.js' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'src/rates.js', start_line: 300, end_line: 700 } }] },
    { toolCalls: [{ name: 'search', arguments: { pattern: 'rate\\d+' } }] },
    { toolCalls: [{ name: 'read_file', arguments: { path: 'src/cart.js' } }, { name: 'read_file', arguments: { path: 'test/cart.test.js' } }] },
    { toolCalls: [{ name: 'edit_file', arguments: QUANTITY }, { name: 'edit_file', arguments: PERCENT }] },
    { toolCalls: [{ name: 'run_tests', arguments: {} }] },
    { toolCalls: [{ name: 'finish', arguments: { summary: 'multiply by quantity, percent discount' } }] },
  ],
});
