import { createRequire as __afCreateRequire } from 'node:module'; const require = __afCreateRequire(import.meta.url);

// src/main.ts
async function run() {
  throw new Error("not yet wired");
}

// src/index.ts
await run();
