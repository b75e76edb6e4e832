import { FilePatches } from '../../src/fix/patch.js';
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { formatStylish } from '../../src/formatters/stylish.js';
import { onlyRules, removeScratch, runCli, scratchDir, writeFiles } from '../helpers/cli.js';

const dir = scratchDir('stylish');
after(() => removeScratch(dir));
const PREFORK = (eol: string) =>
  [
    'LoadModule mpm_prefork_module m.so',
    'LoadModule php_module libphp.so',
    '<IfModule mpm_prefork_module>',
    '    MaxClients 150',
    '</IfModule>',
    '',
  ].join(eol);
const HOST = ['--no-probe', '--host-ram', '500M', '--per-child', '20M'];
/** The sizing rule and the renamed-directive rule only: one tune fix and one safe fix on PREFORK. */
const RULES = onlyRules({ AP2001: 'error', AP4001: 'warn' });

describe('stylish output', () => {
  it("at 80 columns no line but the patch's is wider; each rule reported has its page; --no-patch leaves the patch out", () => {
    const tree = path.join(dir, 'story');
    fs.cpSync(path.resolve('fixtures/apache/story-drupal-500mb'), tree, { recursive: true });
    fs.cpSync(path.resolve('fixtures/mycnf/story'), tree, { recursive: true });
    const args = [...HOST, '--sysroot', '.', 'etc/apache2/apache2.conf', 'etc/mysql/my.cnf'];
    const run = runCli(args, { cwd: tree, env: { COLUMNS: '80' } });
    const [report = '', patch = ''] = run.stdout.split(/^Suggested patch .*$/m);
    assert.notEqual(patch, '', 'the story has a patch');
    const wide = report.split('\n').filter((line) => line.length > 80);
    assert.deepEqual(wide, []);
    // The patch is never wrapped: the same lines as --format diff prints, for git apply.
    const diff = runCli([...args, '--format', 'diff'], { cwd: tree, env: { COLUMNS: '80' } }).stdout.trimEnd();
    assert.ok(patch.includes(diff), 'the patch as --format diff prints it');
    const ids = new Set([...report.matchAll(/ {2}([A-Z]{2}\d{4}) [a-z0-9-]+$/gm)].map((match) => match[1]));
    assert.ok(ids.size > 3, report);
    for (const id of ids) assert.match(report, new RegExp(`^ {2}https://\\S+/docs/rules/${id}\\.md$`, 'm'), `${id} has no page`);
    // Unwrapped without a terminal and without COLUMNS, as a log or a golden file wants it.
    assert.ok(
      runCli(args, { cwd: tree })
        .stdout.split('\n')
        .some((line) => line.length > 80),
    );
    const bare = runCli([...args, '--no-patch'], { cwd: tree, env: { COLUMNS: '80' } });
    assert.doesNotMatch(bare.stdout, /Suggested patch|^\+\+\+ /m);
    assert.match(bare.stdout, /tune-lint --fix writes the patch \(--format diff\s+prints it\)/);
    assert.equal(bare.status, run.status);
  });

  it('prints a patch of 300,000 lines (it spread them into one call and overflowed the stack)', () => {
    const lines = Array.from({ length: 300_000 }, (_, index) => `+max_connections = ${index}`);
    const patch = `--- a/my.cnf\n+++ b/my.cnf\n@@ -1,0 +1,300000 @@\n${lines.join('\n')}\n`;
    const text = formatStylish({
      units: [],
      rules: [],
      version: '0',
      color: false,
      patch,
      patches: new FilePatches(patch),
      wrote: false,
      fixType: 'all',
      quiet: false,
      remaining: undefined,
    });
    assert.ok(text.endsWith('+max_connections = 299999\n'));
    assert.equal(text.split('\n').length, 300_000 + 7, 'the summary, the title and the three header lines, then the patch');
  });

  it('a file name with control characters is shown escaped, never sent to the terminal raw', () => {
    const name = 'evil\u001b]0;owned\u0007.conf';
    fs.writeFileSync(path.join(dir, name), PREFORK('\n'));
    const run = runCli([...HOST, name], { cwd: dir });
    assert.equal(run.status, 1);
    assert.ok(!/[\u0000-\u0008\u000b-\u001f]/.test(run.stdout), 'no control character but tab and newline');
    assert.ok(run.stdout.includes('evil\\x1b]0;owned\\x07.conf'));
  });

  it('a CRLF file: the report shows its patch without carriage returns; --format diff keeps them for git apply', () => {
    writeFiles(dir, { 'crlf.conf': PREFORK('\r\n') });
    const stylish = runCli([...HOST, 'crlf.conf'], { cwd: dir }).stdout;
    assert.ok(!stylish.includes('\r'));
    assert.match(stylish, /^-    MaxClients 150$/m);
    const diff = runCli([...HOST, '--format', 'diff', 'crlf.conf'], { cwd: dir }).stdout;
    assert.match(diff, /^-    MaxClients 150\r$/m);
  });

  it('the summary counts fixable problems by kind and says what the patch holds', () => {
    writeFiles(dir, { 'lf.conf': PREFORK('\n') });
    const all = runCli([...HOST, ...RULES, 'lf.conf'], { cwd: dir }).stdout;
    assert.match(all, /^ {2}2 fixable: 1 safe, 1 tune; tune-lint --fix writes the patch below$/m);
    assert.match(all, /^\+ {4}MaxRequestWorkers 21$/m);
    const safe = runCli([...HOST, ...RULES, '--fix-type', 'safe', 'lf.conf'], { cwd: dir }).stdout;
    assert.match(safe, /^ {2}2 fixable: 1 safe, 1 tune; tune-lint --fix --fix-type safe writes the patch below \(safe fixes only\)$/m);
    assert.match(safe, /^\+ {4}MaxRequestWorkers 150$/m, 'renamed, not resized');
  });

  it('an estimated per-child size is listed with the host facts, with its reasoning; a given one as given', () => {
    writeFiles(dir, { 'estimate.conf': PREFORK('\n') });
    const estimated = runCli(['--no-probe', '--host-ram', '8G', ...RULES, 'estimate.conf'], { cwd: dir }).stdout;
    assert.match(
      estimated,
      /^Host facts used:\n {2}RAM 8 GiB \(from flag --host-ram\)\n {2}per child 64 MiB \(estimate: prefork with mod_php: 64 MiB per process; /m,
    );
    assert.match(estimated, /MaxClients 150 x 64 MiB per child/);
    const given = runCli([...HOST, ...RULES, 'estimate.conf'], { cwd: dir }).stdout;
    assert.match(given, /^ {2}per child 20 MiB \(from flag --per-child\)$/m);
    assert.doesNotMatch(given, /\(estimate:/);
    const noRam = runCli(['--no-probe', ...RULES, 'estimate.conf'], { cwd: dir }).stdout;
    assert.doesNotMatch(noRam, /per child/, 'without RAM nothing is sized, so nothing rests on the estimate');
  });

  it('--fix says the patch was written, and the file holds it', () => {
    writeFiles(dir, { 'write.conf': PREFORK('\n') });
    const run = runCli([...HOST, ...RULES, '--fix', 'write.conf'], { cwd: dir });
    assert.equal(run.status, 0, 'the exit code is about the configs as written');
    assert.match(run.stdout, /; --fix wrote the patch below$/m);
    assert.match(run.stdout, /^ {2}after the fixes: no problems left$/m);
    assert.match(run.stdout, /^Patch written:$/m);
    assert.match(fs.readFileSync(path.join(dir, 'write.conf'), 'utf8'), /^ {4}MaxRequestWorkers 21$/m);
  });
});
