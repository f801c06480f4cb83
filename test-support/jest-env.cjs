/**
 * Every test file's process: the test fixtures link their `node_modules` to this repository's, which
 * the sandbox hides when the clone lives under /tmp (its /tmp is empty). The same setting a maintainer
 * uses for a shared dependency directory outside the checkout (docs/security.md).
 */
const path = require('node:path');

const modules = path.resolve(__dirname, '..', 'node_modules');
const listed = (process.env.AGENT_FIX_SANDBOX_READ ?? '').split(':').filter(Boolean);
if (!listed.includes(modules)) process.env.AGENT_FIX_SANDBOX_READ = [...listed, modules].join(':');
