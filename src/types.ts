/**
 * Compatibility only: nothing in this branch imports this file. Every type lives with its layer
 * (settings/, trigger/, task/, verify/, agent/, fix/ `types.ts`); this type-only re-export lets
 * branches written before the split still merge. Delete it once they have landed (import from
 * the layer instead).
 */
export type * from './settings/types.js';
export type * from './trigger/types.js';
export type * from './task/types.js';
export type * from './verify/types.js';
export type * from './agent/types.js';
export type * from './fix/types.js';
