/**
 * Start-up cost of the sandbox per command: `bash -c true` spawned directly (no sandbox), inside
 * the wrapper agent-fix used before issue 20 (`unshare --net` as root, with the mount namespace
 * that covered the credential), and inside today's sandbox (sandbox/sandbox.ts: user, PID, mount
 * and network namespaces, the read-only remount of every mount, setpriv), tests' form (no
 * network) and setup's form (network), with the perl launcher and the sh one (machines without perl).
 * Samples are interleaved; wall time per spawn, in ms.
 *
 *   node scripts/run-ts.mjs bench/sandbox.ts [--runs 50]
 *
 * Run as root it measures the root mode; run as an unprivileged user (e.g. under
 * `setpriv --reuid=nobody --regid=nogroup --clear-groups`) the unprivileged mode (the old
 * wrapper is then `unshare --user --map-root-user --net`, as agent-fix used it then).
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { probeSandbox, openSandbox } from '../src/sandbox/sandbox.js';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '50' } } });
const runs = Number(values.runs);
const root = process.getuid?.() === 0;

const base = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-bench-sandbox-'));
const repo = path.join(base, 'repo');
mkdirSync(path.join(repo, '.git'), { recursive: true });
writeFileSync(path.join(repo, '.git', 'config'), '[http "https://github.com/"]\n\textraheader = AUTHORIZATION: basic eA==\n');
const probe = probeSandbox();
if (probe.mode === 'none') throw new Error(`no sandbox on this machine: ${probe.description}`);
const box = openSandbox(probe, repo, [path.join(repo, '.git', 'config')], path.join(base, 'home'));

const OLD_LO = 'ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null || true; exec "$@"';
const OLD_HIDE =
  'ip link set lo up 2>/dev/null || ifconfig lo up 2>/dev/null || true; ' +
  'while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do mount --bind /dev/null "$1" || exit 125; shift; done; shift; exec "$@"';
const oldNs = root ? ['unshare', '--net'] : ['unshare', '--user', '--map-root-user', '--net'];
const variants: Record<string, string[]> = {
  none: [],
  'before: network namespace': [...oldNs, '--', 'sh', '-c', OLD_LO, 'agent-fix-sandbox'],
  'before: network + mount (credential covered)': [...oldNs, '--mount', '--propagation', 'private', '--', 'sh', '-c', OLD_HIDE, 'agent-fix-sandbox', path.join(repo, '.git', 'config'), '--'],
  'now: sandbox, tests (no network, copy-on-write layers)': box.wrapper('tests', false) as string[],
  'now: sandbox, setup (network, .git layer)': box.wrapper('setup', true) as string[],
};

const samples: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((k) => [k, []]));
for (let i = 0; i < runs + 3; i++) {
  for (const [name, wrapper] of Object.entries(variants)) {
    const argv = [...wrapper, 'bash', '-c', 'true'];
    const t = process.hrtime.bigint();
    const r = spawnSync(argv[0], argv.slice(1), { cwd: repo, stdio: 'ignore' });
    const ms = Number(process.hrtime.bigint() - t) / 1e6;
    if (r.status !== 0) throw new Error(`${name} failed (exit ${r.status})`);
    if (i >= 3) samples[name].push(ms); // 3 warm-up rounds
  }
}

const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];
const rows = Object.entries(samples).map(([name, xs]) => ({
  variant: name,
  median: +q(xs, 0.5).toFixed(1),
  p90: +q(xs, 0.9).toFixed(1),
  min: +Math.min(...xs).toFixed(1),
  mean: +(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(1),
}));
const none = rows[0].median;
console.log(`${root ? 'root' : `uid ${process.getuid?.()}`}, ${runs} runs each (interleaved, after 3 warm-up rounds), ms per \`bash -c true\`:`);
console.log('| variant | median | p90 | min | mean | median over none |');
console.log('| --- | --- | --- | --- | --- | --- |');
for (const r of rows) console.log(`| ${r.variant} | ${r.median} | ${r.p90} | ${r.min} | ${r.mean} | ${(r.median - none).toFixed(1)} |`);
console.log(JSON.stringify({ date: new Date().toISOString(), uid: process.getuid?.(), runs, rows }));
