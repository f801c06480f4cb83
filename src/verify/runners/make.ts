/**
 * `make test`: detected by a Makefile with a `test` target; run as given, its output read by
 * whichever runner's parser recognises it.
 */
import type { TestRunner } from './runner.js';

export const make: TestRunner = {
  id: 'make',
  stack: 'make',
  parsedFrom: 'none',
  invokedBy: (c) => /^make\s+test\b/.test(c),
  async detect({ readText }) {
    for (const name of ['Makefile', 'makefile', 'GNUmakefile']) {
      const text = await readText(name);
      if (text !== null && /^test\s*:(?!=)/m.test(text)) return { setup: null, test: 'make test', reason: `${name} has a test target` };
    }
    return null;
  },
};
