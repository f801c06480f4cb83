/**
 * The repository's own type checkers and linters, when it has them: each language's checkers
 * (src/lang/<id>/), asked whether the repository configures and installs them. Always the
 * repository's installed binaries (never a download); nothing found, nothing runs.
 */
import { checkers, type CheckerSetup } from '../lang/index.js';

export type { CheckerSetup } from '../lang/index.js';

/** What each checker found in the repository, by checker id (a checker it does not have is absent). */
export function detectCheckers(root: string): CheckerSetup {
  const setup: Record<string, unknown> = {};
  for (const c of checkers()) {
    const found = c.detect(root);
    if (found !== undefined) setup[c.id] = found;
  }
  return setup as CheckerSetup;
}
