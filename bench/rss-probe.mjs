// Preloaded into the benchmarked action (node --import): records its peak RSS at exit.
import { writeFileSync } from 'node:fs';

const file = process.env.AGENT_FIX_RSS_FILE;
if (file) process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
