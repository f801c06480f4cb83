/**
 * Every test file's process: the test fixtures link their `node_modules` to this repository's (and
 * to the TAP producers in .cache), which the sandbox hides when the clone lives under /tmp (its /tmp
 * is empty). The same setting a maintainer uses for a shared dependency directory outside the
 * checkout (docs/security.md).
 */
const { existsSync } = require('node:fs');
const path = require('node:path');

// node_modules, and .cache (the real TAP producers the stack tests link, node 24)
const dirs = ['node_modules', '.cache'].map((d) => path.resolve(__dirname, '..', d)).filter((d) => existsSync(d));
const listed = (process.env.AGENT_FIX_SANDBOX_READ ?? '').split(':').filter(Boolean);
process.env.AGENT_FIX_SANDBOX_READ = [...new Set([...listed, ...dirs])].join(':');
