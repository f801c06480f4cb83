/**
 * The test runners, in order of precedence: each language's (src/lang/<id>/ names them, in the
 * registry's order), then make, which runs any language's tests.
 */
import { languageRunners } from '../../lang/index.js';
import { make } from './make.js';
import type { RunnerId, TestRunner } from './runner.js';

export function allRunners(): readonly TestRunner[] {
  return [...languageRunners(), make];
}

export function runnerById(id: RunnerId): TestRunner | undefined {
  return allRunners().find((r) => r.id === id);
}
