/**
 * Transitional re-export while other branches still import `../types.js`: every type lives with
 * its layer (settings/, trigger/, task/, verify/, agent/, fix/). Import from there; this file goes.
 */
export type * from './settings/types.js';
export type * from './trigger/types.js';
export type * from './task/types.js';
export type * from './verify/types.js';
export type * from './agent/types.js';
export type * from './fix/types.js';
