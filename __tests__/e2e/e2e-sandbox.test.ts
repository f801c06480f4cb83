/**
 * End to end (dist/index.js under node 24): model-written code attacking the runner from inside
 * the tests, through every path of issue 20, as root and as an unprivileged user (`nobody`), each
 * once with the sandbox and once without it (AGENT_FIX_SANDBOX=off: the positive control, which
 * shows the same test code reaching every target). One run per case: the scripted model writes
 * the attack as a test file next to a legitimate fix, the test command runs it (baseline, gate
 * and proof), and the fix must still be published, with exactly the model's bytes.
 *
 * The attack prints what it found: the channel a real attacker has is the test output, which
 * reaches the model, the report and the transcript (read here). Nothing a test writes survives it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { cleanupFixtures } from '../../test-support/git-fixture.js';
import { giveToNobody, runIssueAction, stageIssueRun, startIssueServers } from '../../test-support/issue-run.js';
import { ADDER } from '../../test-support/run-main.js';

const open: { close(): Promise<void> }[] = [];
afterAll(async () => {
  for (const s of open.splice(0)) await s.close();
  cleanupFixtures();
});

const HOME_TOKEN = 'ghp_homeCredential0123456789abcdef';
const FIXED = 'export function add(a, b) {\n  return a + b;\n}\n';

/** The model's test file: every attack of issue 20; each finding is a line `FOUND <what>`. */
function attack(t: { home: string; temp: string; actions: string; workspace: string }): string {
  return `const fs = require('fs'); const cp = require('child_process');
const found = []; const say = (w) => found.push('FOUND ' + w); const wrote = (w) => found.push('WROTE ' + w);
const sh = (c) => { try { return cp.execSync(c, { stdio: ['ignore', 'pipe', 'ignore'] }).toString(); } catch { return null; } };
// 1. secrets in other processes' environment
for (const pid of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
  try { const e = fs.readFileSync('/proc/' + pid + '/environ', 'utf8'); if (/(^|\\0)INPUT_API-KEY=[^\\0]/.test(e)) say('environ api-key'); if (/(^|\\0)INPUT_GITHUB-TOKEN=[^\\0]/.test(e)) say('environ github-token'); } catch {}
  // 2. other processes' root: the checkout's credential and the real HOME through them
  try { if (fs.readFileSync('/proc/' + pid + '/root${t.home}/.git-credentials', 'utf8').includes(${JSON.stringify(HOME_TOKEN)})) say('proc-root home'); } catch {}
}
// 3. undo the cover of the checkout's credential
if (sh('umount .git/config 2>/dev/null && echo ok')) say('umount');
try { if (fs.readFileSync('.git/config', 'utf8').includes('extraheader')) say('checkout credential'); } catch {}
// 4. leave the namespaces: into those of agent-fix's own process
for (const pid of fs.readdirSync('/proc').filter((p) => /^\\d+$/.test(p))) {
  let cmd = ''; try { cmd = fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8'); } catch {}
  if (cmd.includes('dist/index.js') && sh('nsenter -t ' + pid + ' -m -n true && echo ok')) { say('nsenter'); break; }
}
// 5. credentials in HOME
for (const f of ['${t.home}/.git-credentials', '${t.home}/.gitconfig']) { try { if (fs.readFileSync(f, 'utf8').includes(${JSON.stringify(HOME_TOKEN)})) say('home ' + f.split('/').pop()); } catch {} }
// 6. agent-fix's own git: a transport and hooks that run the attacker's program on its fetch/push
const pwn = 'ext::sh -c touch% ${t.temp}/pwned% >&2% ';
const transport = '[protocol "ext"]\\n\\tallow = always\\n[url "' + pwn + '"]\\n\\tinsteadOf = file://\\n[core]\\n\\tsshCommand = touch ${t.temp}/pwned-ssh\\n[credential]\\n\\thelper = !touch ${t.temp}/pwned-helper\\n';
try { fs.appendFileSync('${t.home}/.gitconfig', transport); wrote('home gitconfig'); } catch {}
try { fs.appendFileSync('.git/config', transport); if (fs.readFileSync('.git/config', 'utf8').includes('protocol "ext"')) wrote('git config'); } catch {}
try { fs.writeFileSync('.git/hooks/pre-push', '#!/bin/sh\\ntouch ${t.temp}/pwned-hook\\n', { mode: 0o755 }); wrote('hook'); } catch {}
// 7. the runner's file commands and a later step's action
for (const f of ['${t.temp}/output.txt', '${t.temp}/summary.md', '${t.actions}/evil/action.js']) { try { fs.appendFileSync(f, 'ATTACKER\\n'); wrote(f.split('/').pop()); } catch {} }
// 8. a daemon that outlives the test and rewrites what agent-fix wrote and will publish
cp.spawn('setsid', ['sh', '-c', 'sleep 2; echo DAEMON >> ${t.workspace}/src/add.js; echo alive > ${t.workspace}/findings-daemon.txt; echo DAEMON >> ${t.temp}/output.txt'], { detached: true, stdio: 'ignore' }).unref();
cp.execSync('sleep 0.3');
// 9. append to the file the model wrote
fs.appendFileSync('src/add.js', '// appended by a test\\n');
// the channel a real attacker has: the test output, which reaches the model, the report and the transcript
console.log('ATTACK ' + [...new Set(found), 'RAN'].join(' | '));
`;
}

async function attackRun(asUser: 'root' | 'nobody', sandbox: 'on' | 'off') {
  let actions = '';
  const stage = stageIssueRun({ ...ADDER, '.gitignore': 'findings*.txt\n' }, 'agent-fix-e2e-sandbox-', ({ temp, home }) => {
    actions = path.join(temp, '_actions');
    mkdirSync(path.join(actions, 'evil'), { recursive: true });
    writeFileSync(path.join(actions, 'evil', 'action.js'), 'trusted\n');
    writeFileSync(path.join(home, '.git-credentials'), `https://x-access-token:${HOME_TOKEN}@github.com\n`);
    writeFileSync(path.join(home, '.gitconfig'), `[url "https://x-access-token:${HOME_TOKEN}@github.com/"]\n\tinsteadOf = https://github.com/\n`);
  });
  const { repo, temp, home, workspace } = stage;
  // actions/checkout's v4 layout: the token in the checkout's .git/config
  execFileSync('git', ['config', 'http.https://github.com/.extraheader', 'AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46Z2hzX2NoZWNrb3V0'], { cwd: workspace });
  if (asUser === 'nobody') giveToNobody(stage);
  const servers = await startIssueServers(stage, [
    { toolCalls: [{ name: 'write_file', arguments: { path: 'attack.test.cjs', content: attack({ home, temp, actions, workspace }) } }] },
    { toolCalls: [{ name: 'edit_file', arguments: { path: 'src/add.js', old_string: 'return a - b;', new_string: 'return a + b;' } }] },
    { toolCalls: [{ name: 'finish', arguments: { summary: 'add now adds.' } }] },
  ]);
  const { github, model } = servers;
  open.push(github, model);
  const result = await runIssueAction(stage, servers, {
    test: 'node attack.test.cjs 2>/dev/null; node test.js',
    user: asUser,
    extraEnv: { HOME: home, ...(sandbox === 'off' ? { AGENT_FIX_SANDBOX: 'off' } : {}) },
  });
  // the daemon sleeps 2 s after the last test run: give it time to act
  await new Promise((resolve) => setTimeout(resolve, 3000));
  const read = (f: string) => (existsSync(f) ? readFileSync(f, 'utf8') : '');
  const pushed = spawnSync('git', ['--git-dir', repo.remoteDir, 'show', 'agent-fix/issue-7:src/add.js'], { encoding: 'utf8' }).stdout;
  return {
    result,
    github,
    // the attack's output, as the transcript keeps it (the tails of the test runs)
    findings: transcriptText(path.join(temp, 'agent-fix')),
    daemon: existsSync(path.join(workspace, 'findings-daemon.txt')),
    pwned: ['pwned', 'pwned-ssh', 'pwned-helper', 'pwned-hook'].filter((f) => existsSync(path.join(temp, f))),
    output: read(path.join(temp, 'output.txt')),
    actionFile: read(path.join(actions, 'evil', 'action.js')),
    homeConfig: read(path.join(home, '.gitconfig')),
    pushed,
  };
}

function transcriptText(dir: string): string {
  if (!existsSync(dir)) return '';
  const lines = readdirSync(dir).flatMap((f) => readFileSync(path.join(dir, f), 'utf8').split('\\n'));
  return lines.flatMap((l) => [...l.matchAll(/ATTACK ([^"\\\\]*)/g)].map((m) => m[1])).join('\n');
}

const root = typeof process.getuid === 'function' && process.getuid() === 0;
const nobodyOk = root && spawnSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', 'unshare', '--user', '--map-root-user', 'true']).status === 0;

describe.each([
  ['root', root],
  ['nobody', nobodyOk],
] as const)('model-written tests attacking the runner, as %s', (user, possible) => {
  (possible ? test : test.skip)('sandbox on: nothing found, nothing trusted changed, nothing left running; the fix is published with the model\'s bytes', async () => {
    const r = await attackRun(user, 'on');
    expect(r.result.outputs.status).toBe('fixed');
    expect(r.findings).toContain('RAN');
    expect(r.findings).not.toContain('FOUND');
    expect(r.daemon).toBe(false);
    expect(r.pwned).toEqual([]);
    expect(r.output).not.toContain('ATTACKER');
    expect(r.output).not.toContain('DAEMON');
    expect(r.actionFile).toBe('trusted\n');
    expect(r.homeConfig).not.toContain('protocol "ext"');
    expect(r.pushed).toBe(FIXED);
    expect(r.result.summary).toMatch(/tests: sandboxed \(its own user, PID, mount and network namespaces/);
    expect(r.result.summary).toContain(user === 'root' ? '(unshare + perl, as root)' : '(unshare + perl, unprivileged)');
    // the test's append to src/add.js (and its writes to .git) stayed in its own layer: the checkout never changed
    expect(r.result.summary).not.toContain('a test run modified the working tree');
    expect(r.github.pulls).toHaveLength(1);
  });

  (possible ? test : test.skip)('sandbox off (control): the same test code reaches the targets', async () => {
    const r = await attackRun(user, 'off');
    expect(r.findings).toContain('FOUND home .git-credentials');
    expect(r.findings).toContain('FOUND checkout credential');
    expect(r.findings).toContain('WROTE home gitconfig');
    expect(r.findings).toContain('WROTE git config');
    expect(r.findings).toContain('WROTE hook');
    expect(r.findings).toContain('WROTE output.txt');
    expect(r.findings).toContain('WROTE action.js');
    expect(r.findings).toContain('FOUND environ api-key');
    expect(r.findings).toContain('FOUND proc-root home');
    if (user === 'root') expect(r.findings).toContain('FOUND nsenter');
    expect(r.daemon).toBe(true);
    expect(r.actionFile).toContain('ATTACKER');
    expect(r.output).toContain('ATTACKER');
    expect(r.result.stdout).toContain('Sandbox: NOT sandboxed: turned off by AGENT_FIX_SANDBOX=off');
    // even then agent-fix's own git refuses the .git/config a test changed and never runs the planted transport, helper or hook
    expect(r.pwned).toEqual([]);
    expect(r.result.outputs.status).toBe('error');
    expect(r.result.summary).toContain("the repository's git configuration");
    expect(r.result.summary).toContain('changed since agent-fix started');
  });
});
