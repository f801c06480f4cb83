import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cartTotal, formatCents } from '../src/cart.js';

test('empty cart costs nothing', () => {
  assert.equal(cartTotal([]), 0);
});

test('multiplies each price by its quantity', () => {
  assert.equal(cartTotal([{ name: 'pen', price: 150, quantity: 3 }]), 450);
});

test('applies a percentage discount', () => {
  assert.equal(cartTotal([{ name: 'book', price: 1000, quantity: 2 }], 10), 1800);
});

test('formats cents as dollars', () => {
  assert.equal(formatCents(1234), '$12.34');
});
