/**
 * Total of a shopping cart in cents.
 * @param {{ name: string, price: number, quantity: number }[]} items price in cents
 * @param {number} discountPercent e.g. 10 for 10 %
 */
export function cartTotal(items, discountPercent = 0) {
  const subtotal = items.reduce((sum, item) => sum + item.price, 0);
  const discount = subtotal * discountPercent;
  return Math.round(subtotal - discount);
}

export function formatCents(cents) {
  return `$${(cents / 100).toFixed(2)}`;
}
