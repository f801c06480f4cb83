/**
 * The published package: `npm pack` gives a self-contained CLI (the bundle needs no installed
 * dependency, so `npx github:OWNER/agent-fix` installs nothing but the package), its `engines`
 * agrees with every package bundled into dist/, and the release notes come from CHANGELOG.md.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
// @ts-expect-error plain .mjs script without types
import { releaseNotes } from '../../scripts/release-notes.mjs';
import { ROOT } from '../../test-support/run-action.js';

const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  files: string[];
  engines: { node: string };
  dependencies?: Record<string, string>;
};
const tmp: string[] = [];
afterAll(() => tmp.forEach((d) => rmSync(d, { recursive: true, force: true })));

test('npm pack + install of the tarball, offline, gives a working `agent-fix demo`', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'agent-fix-pack-'));
  tmp.push(dir);
  const env = { ...process.env, npm_config_cache: path.join(dir, 'npm-cache'), npm_config_update_notifier: 'false' };
  const packed = JSON.parse(execFileSync('npm', ['pack', '--json', '--pack-destination', dir], { cwd: ROOT, env, encoding: 'utf8' })) as [
    { filename: string; files: { path: string }[] },
  ];
  const files = packed[0].files.map((f) => f.path);
  expect(files).toEqual(expect.arrayContaining(['dist/cli.js', 'dist/index.js', 'action.yml', 'LICENSE', 'demo/script.json', 'demo/issue.md']));
  expect(files.filter((f) => f.startsWith('src/') || f.startsWith('__tests__/'))).toEqual([]);
  // every file the bundle loads at run time (e.g. the parsers' WebAssembly in dist/grammars/) ships too
  const dist = readdirSync(path.join(ROOT, 'dist'), { recursive: true, encoding: 'utf8' }).filter((f) => statSync(path.join(ROOT, 'dist', f)).isFile());
  expect(files.filter((f) => f.startsWith('dist/')).sort()).toEqual(dist.map((f) => `dist/${f}`).sort());

  const app = path.join(dir, 'app');
  mkdirSync(app);
  writeFileSync(path.join(app, 'package.json'), '{"name":"consumer","private":true}\n');
  execFileSync('npm', ['install', '--offline', '--no-audit', '--no-fund', path.join(dir, packed[0].filename)], { cwd: app, env, stdio: 'pipe' });
  const installed = JSON.parse(readFileSync(path.join(app, 'node_modules/agent-fix/package.json'), 'utf8')) as { version: string };
  expect(installed.version).toBe(pkg.version);

  const run = spawnSync(path.join(app, 'node_modules/.bin/agent-fix'), ['demo'], { cwd: app, env, encoding: 'utf8' });
  // stderr holds the progress (one line per phase) and nothing else
  expect(run.stderr.trim().split('\n').filter((l) => !/^[▸✓✗–·] /.test(l))).toEqual([]);
  expect(run.stderr).toContain('✓ Baseline: npm test: fails');
  expect(run.status).toBe(0);
  expect(run.stdout).toMatch(/after: +pass \(exit 0; 4 passed, 0 failed\)/);
});

test('the package has no runtime dependencies: dist/ bundles everything the CLI and the action import', () => {
  expect(pkg.dependencies ?? {}).toEqual({});
  expect(pkg.bin['agent-fix']).toBe('dist/cli.js');
  expect(readFileSync(path.join(ROOT, pkg.bin['agent-fix']), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
});

/** Smallest x.y.z that a range like ">=20.5.0", "^18.19.0 || >=20.5.0", ">= 20" accepts, per alternative. */
type V = [number, number, number];
const parseV = (s: string): V => {
  const [a = 0, b = 0, c = 0] = s.split('.').map((n) => Number.parseInt(n, 10));
  return [a, b, c];
};
const cmp = (a: V, b: V): number => a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
function accepts(range: string, v: V): boolean {
  return range.split('||').some((alt) => {
    const parts = alt.trim().replace(/(>=|<=|>|<|\^|~|=)\s+/g, '$1').split(/\s+/).filter(Boolean);
    return parts.every((p) => {
      const m = /^(>=|<=|>|<|\^|~|=)?v?(\d+(?:\.\d+){0,2})/.exec(p);
      if (!m) throw new Error(`engines range not understood: ${range}`);
      const w = parseV(m[2]);
      const c = cmp(v, w);
      switch (m[1]) {
        case '>=': return c >= 0;
        case '>': return c > 0;
        case '<=': return c <= 0;
        case '<': return c < 0;
        case '^': return c >= 0 && v[0] === w[0];
        case '~': return c >= 0 && v[0] === w[0] && v[1] === w[1];
        default: return c === 0 || (m[2].split('.').length < 3 && v[0] === w[0]);
      }
    });
  });
}

// Packages whose declared engines are stricter than what they use; each one checked by hand.
const STRICTER_THAN_NEEDED: Record<string, string> = {
  // declares >=22 but is plain string parsing with no node API; the bundle runs on node 20 in this suite
  'content-type': '>=22',
};

test('engines.node is the lowest node version every bundled package accepts (dist targets node20)', async () => {
  const ours = /^>=\s*(\d+\.\d+\.\d+)$/.exec(pkg.engines.node);
  expect(ours).not.toBeNull();
  const min = parseV(ours![1]);
  expect(min[0]).toBe(20);
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: ['src/index.ts', 'src/cli.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    write: false,
    metafile: true,
    // as scripts/build.mjs: the sandbox's launcher is bundled as text
    loader: { '.pl': 'text' },
    outdir: path.join(os.tmpdir(), 'agent-fix-engines-unused'),
    logLevel: 'silent',
  });
  const dirs = new Set<string>();
  for (const input of Object.keys(result.metafile.inputs)) {
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (m) dirs.add(m[1]);
  }
  expect(dirs.size).toBeGreaterThan(10);
  // our minimum is not higher than needed: just below it, some bundled package refuses
  const below: V = min[2] > 0 ? [min[0], min[1], min[2] - 1] : min[1] > 0 ? [min[0], min[1] - 1, 999] : [min[0] - 1, 999, 999];
  const tooStrict: string[] = [];
  const tooLoose: string[] = [];
  for (const dir of dirs) {
    const dep = JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as { name: string; version: string; engines?: { node?: string } };
    const range = dep.engines?.node;
    if (!range) continue;
    if (STRICTER_THAN_NEEDED[dep.name] === range) continue;
    if (!accepts(range, min)) tooStrict.push(`${dep.name}@${dep.version} wants node ${range}`);
    if (!accepts(range, below)) tooLoose.push(dep.name);
  }
  expect(tooStrict).toEqual([]);
  expect(tooLoose.length).toBeGreaterThan(0);
});

test('engines range parsing', () => {
  expect(accepts('^18.19.0 || >=20.5.0', [20, 5, 0])).toBe(true);
  expect(accepts('^18.19.0 || >=20.5.0', [20, 4, 9])).toBe(false);
  expect(accepts('>= 20', [20, 0, 0])).toBe(true);
  expect(accepts('>=0.6.11 <=0.7.0 || >=0.7.3', [20, 5, 0])).toBe(true);
  expect(accepts('>=22', [20, 5, 0])).toBe(false);
});

test('release notes are the CHANGELOG section of the version', () => {
  const changelog = readFileSync(path.join(ROOT, 'CHANGELOG.md'), 'utf8');
  const notes = releaseNotes(changelog, `v${pkg.version}`) as string | undefined;
  expect(notes).toMatch(/^First version\./);
  expect(notes).toContain('### Added');
  expect(notes).not.toContain('## [');
  expect(notes).not.toMatch(/^\[[^\]]+\]: /m);
  expect(releaseNotes(changelog, '99.0.0')).toBeUndefined();
  expect(releaseNotes('# C\n\n## [1.0.0] - x\n- a\n\n## [0.9.0]\n- b\n', '0.9.0')).toBe('- b');
});
