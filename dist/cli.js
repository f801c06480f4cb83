#!/usr/bin/env node
import { createRequire as __afCreateRequire } from 'node:module'; const require = __afCreateRequire(import.meta.url);

// src/cli.ts
console.log("agent-fix: not yet wired");
