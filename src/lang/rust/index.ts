/** Rust: test files under `tests/`, `#[test]` and `#[ignore]`, `cargo test`. */
import { cargo } from '../../verify/runners/cargo.js';
import type { Language } from '../types.js';

export const rust = {
  id: 'rust',
  sources: /\.rs$/,
  testNames: [],
  testPlaces: [/(?:^|\/)tests?\/.*\.rs$/],
  testDeclarations: [/^\s*#\[test\]/],
  skipMarkers: [/#\[ignore\]/],
  crashHeaders: ["thread '"],
  dependencyPaths: ['/.cargo/'],
  runners: [cargo],
  checkers: [],
} as const satisfies Language;
