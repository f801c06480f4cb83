/** Rust: test files under `tests/`, `cargo test`. */
import { cargo } from '../../verify/runners/cargo.js';
import type { Language } from '../types.js';

export const rust = {
  id: 'rust',
  sources: /\.rs$/,
  testNames: [],
  testPlaces: [/(?:^|\/)tests?\/.*\.rs$/],
  runners: [cargo],
  checkers: [],
} as const satisfies Language;
