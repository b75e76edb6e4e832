import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { NOBODY, openScratch, runTuneLint, writeTree } from '../fuzz/child.js';
import { CLI } from '../helpers/cli.js';

/*
 * --fix through the whole command line, beyond the writer's own tests
 * (test/unit/write-safety.test.ts, test/cli/write-cli.test.ts): the CLI killed with
 * SIGKILL while it writes an Apache file and a my.cnf; a config repository
 * whose symlinks point out of the --sysroot; a tree where one file changes
 * and every other file, directory, owner and mode stays as it was; files
 * with NUL, latin1, lone CR, CRLF and no final newline, where only the edited
 * bytes change.
 */

const TEMP_NAME = /^\..+\.tune-lint-\d+-[0-9a-f]{8}$/;
const PREFORK = 'LoadModule mpm_prefork_module modules/mod_mpm_prefork.so\n';

let scratch: string;
before(() => {
  scratch = openScratch('hostile-fix');
});
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

interface Snapshot {
  readonly bytes: Buffer;
  readonly ino: number;
  readonly mtimeMs: number;
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

function snapshot(file: string): Snapshot {
  const stat = fs.statSync(file);
  return { bytes: fs.readFileSync(file), ino: stat.ino, mtimeMs: stat.mtimeMs, mode: stat.mode, uid: stat.uid, gid: stat.gid };
}

function temps(dir: string): string[] {
  return fs.readdirSync(dir).filter((name) => TEMP_NAME.test(name));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('--fix through the CLI', () => {
  it(
    'killed with SIGKILL at any point of writing two files, each is its old or its new version, and the next run finishes the job',
    { timeout: 600_000 },
    async () => {
      const dir = path.join(scratch, 'killed');
      const padding = (comment: string): string =>
        `${comment} a long generated comment line to make the write take a while\n`.repeat(150_000);
      const oldApache = `${PREFORK}MaxClients 150\n${padding('#')}`;
      const oldMycnf = `[mysqld]\nkey_buffer = 16M\n${padding('#')}`;
      const newApache = oldApache.replace('MaxClients 150', 'MaxRequestWorkers 150');
      const newMycnf = oldMycnf.replace('key_buffer = 16M', 'key_buffer_size = 16M');
      const files = { apache: path.join(dir, 'apache2.conf'), mycnf: path.join(dir, 'my.cnf') };
      const args = [CLI, '--no-probe', '--fix', '--rule', 'AP4001=warn', files.apache, files.mycnf];
      let killedMidWrite = 0;
      const states = new Set<string>();
      for (let trial = 0; trial < 6; trial++) {
        writeTree(dir, { 'apache2.conf': oldApache, 'my.cnf': oldMycnf });
        for (const stray of temps(dir)) fs.rmSync(path.join(dir, stray));
        const child = spawn(process.execPath, args, { cwd: dir, stdio: 'ignore' });
        const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
        let done = false;
        void exited.then(() => (done = true));
        // Wait for the write phase (a temp file, or a file already replaced), then kill a little later each trial.
        const deadline = Date.now() + 120_000;
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set when the child closes, between the awaits
        while (!done && temps(dir).length === 0 && fs.statSync(files.apache).size === Buffer.byteLength(oldApache) && Date.now() < deadline)
          await delay(1);
        await delay(trial * 2);
        const midWrite = temps(dir).length > 0;
        child.kill('SIGKILL');
        await exited;
        const apache = fs.readFileSync(files.apache, 'utf8');
        const mycnf = fs.readFileSync(files.mycnf, 'utf8');
        assert.ok(apache === oldApache || apache === newApache, `trial ${trial}: apache2.conf is whole`);
        assert.ok(mycnf === oldMycnf || mycnf === newMycnf, `trial ${trial}: my.cnf is whole`);
        states.add(`${apache === newApache ? 'new' : 'old'}/${mycnf === newMycnf ? 'new' : 'old'}`);
        const strays = temps(dir);
        assert.ok(strays.length <= 2, `trial ${trial}: at most one temp file per file: ${strays.join(', ')}`);
        if (midWrite) killedMidWrite++;
        // The next run (once the strays are old enough to be another run's for sure) writes what is left and removes them.
        for (const stray of strays) fs.utimesSync(path.join(dir, stray), new Date(Date.now() - 600_000), new Date(Date.now() - 600_000));
        const rerun = await runTuneLint(['--fix', '--rule', 'AP4001=warn', files.apache, files.mycnf], { cwd: dir });
        assert.ok(rerun.status === 0 || rerun.status === 1, rerun.stderr);
        assert.equal(fs.readFileSync(files.apache, 'utf8'), newApache);
        assert.equal(fs.readFileSync(files.mycnf, 'utf8'), newMycnf);
        assert.deepEqual(temps(dir), []);
      }
      assert.ok(killedMidWrite > 0, 'at least one kill landed while the new versions were being written');
      assert.ok(states.has('old/old'), `the originals survive a kill before the renames (states seen: ${[...states].join(', ')})`);
    },
  );

  it('under --sysroot, a fix of a file reached through a symlink out of the root is written inside the root, never outside', async () => {
    const outside = path.join(scratch, 'host-etc');
    const root = path.join(scratch, 'repo');
    const line = 'MaxClients 150\n';
    writeTree(outside, { 'mpm.conf': line });
    writeTree(root, {
      'etc/apache2/apache2.conf': `${PREFORK}Include conf.d/*.conf\n`,
      // Where the links lead once they are resolved inside the root:
      [`${outside.slice(1)}/mpm.conf`]: line,
      'host-etc/mpm.conf': line,
    });
    fs.mkdirSync(path.join(root, 'etc/apache2/conf.d'));
    fs.symlinkSync(path.join(outside, 'mpm.conf'), path.join(root, 'etc/apache2/conf.d/a.conf'));
    fs.symlinkSync('../../../../host-etc/mpm.conf', path.join(root, 'etc/apache2/conf.d/b.conf'));
    const before = snapshot(path.join(outside, 'mpm.conf'));
    const run = await runTuneLint(['--fix', '--sysroot', root, path.join(root, 'etc/apache2/apache2.conf')], { cwd: scratch });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    assert.deepEqual(snapshot(path.join(outside, 'mpm.conf')), before, 'the host file outside the sysroot is untouched');
    assert.equal(fs.readFileSync(path.join(root, outside.slice(1), 'mpm.conf'), 'utf8'), 'MaxRequestWorkers 150\n');
    assert.equal(fs.readFileSync(path.join(root, 'host-etc/mpm.conf'), 'utf8'), 'MaxRequestWorkers 150\n');
    assert.equal(fs.readlinkSync(path.join(root, 'etc/apache2/conf.d/a.conf')), path.join(outside, 'mpm.conf'), 'the link stays a link');
    assert.deepEqual(temps(path.join(root, outside.slice(1))), []);
  });

  it('touches no file, directory, owner or mode but the one it edits; owner, group and mode of that one stay; a second run writes nothing', async (t) => {
    const dir = path.join(scratch, 'untouched');
    const tree: Record<string, string> = {
      'apache2.conf': `${PREFORK}IncludeOptional conf.d/*.conf\nIncludeOptional sites/*.conf\n`,
      'conf.d/mpm.conf': 'MaxClients 150\n',
      'my.cnf': '[mysqld]\nkey_buffer = 16M\n!includedir cnf.d\n',
    };
    for (let index = 0; index < 8; index++) {
      tree[`conf.d/other-${index}.conf`] = `ServerAlias a${index}.example.org\n`;
      tree[`sites/site-${index}.conf`] = `<VirtualHost *:80>\nServerName s${index}.example.org\n</VirtualHost>\n`;
      tree[`cnf.d/other-${index}.cnf`] = `[client]\nport = ${3306 + index}\n`;
    }
    writeTree(dir, tree);
    const root = process.geteuid?.() === 0;
    const edited = ['conf.d/mpm.conf', 'my.cnf'];
    for (const name of edited) {
      fs.chmodSync(path.join(dir, name), 0o640);
      if (root) fs.chownSync(path.join(dir, name), NOBODY, NOBODY);
    }
    if (!root) t.diagnostic('not root: the owner is only checked as root');
    const all = Object.keys(tree);
    const before = new Map(all.map((name) => [name, snapshot(path.join(dir, name))]));
    const directories = ['.', 'conf.d', 'sites', 'cnf.d'];
    const dirsBefore = new Map(directories.map((name) => [name, fs.statSync(path.join(dir, name)).mtimeMs]));
    const run = await runTuneLint(['--fix', '--include-base', dir, path.join(dir, 'apache2.conf'), path.join(dir, 'my.cnf')], { cwd: dir });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    for (const name of all) {
      const now = snapshot(path.join(dir, name));
      const was = before.get(name) as Snapshot;
      if (!edited.includes(name)) {
        assert.deepEqual(now, was, `${name} untouched`);
        continue;
      }
      assert.notDeepEqual(now.bytes, was.bytes, `${name} fixed`);
      assert.deepEqual([now.mode & 0o7777, now.uid, now.gid], [was.mode & 0o7777, was.uid, was.gid], `${name}: mode, owner and group kept`);
    }
    for (const name of ['sites', 'cnf.d'])
      assert.equal(fs.statSync(path.join(dir, name)).mtimeMs, dirsBefore.get(name), `${name}/: no temp file was ever made there`);
    for (const name of directories) assert.deepEqual(temps(path.join(dir, name)), []);
    const fixed = new Map(all.map((name) => [name, snapshot(path.join(dir, name))]));
    const again = await runTuneLint(['--fix', '--include-base', dir, path.join(dir, 'apache2.conf'), path.join(dir, 'my.cnf')], {
      cwd: dir,
    });
    assert.ok(again.status === 0 || again.status === 1, again.stderr);
    for (const name of all) assert.deepEqual(snapshot(path.join(dir, name)), fixed.get(name), `${name}: the second run writes nothing`);
  });

  it('in files with NUL, latin1, lone CR, CRLF and no final newline, only the edited bytes change', async () => {
    const dir = path.join(scratch, 'bytes');
    const apache = Buffer.concat([
      Buffer.from(PREFORK),
      Buffer.from('# Configuraci\xf3n \0 with a NUL\r\nServerAdmin caf\xe9@example.org\r\nKeepAlive On\rTimeout 30\r\n', 'latin1'),
      Buffer.from('MaxClients 150'),
    ]);
    const mycnf = Buffer.from(
      '[mysqld]\r\n# caf\xe9 \0 NUL in a comment\r\nkey_buffer = 16M\r\nmax_connections = 20\r\nquery_cache_type = 0',
      'latin1',
    );
    writeTree(dir, { 'apache2.conf': apache, 'my.cnf': mycnf });
    const run = await runTuneLint(['--fix', 'apache2.conf', 'my.cnf'], { cwd: dir });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    const replace = (bytes: Buffer, from: string, to: string): Buffer => {
      const at = bytes.indexOf(from);
      assert.ok(at !== -1);
      return Buffer.concat([bytes.subarray(0, at), Buffer.from(to), bytes.subarray(at + from.length)]);
    };
    assert.deepEqual(fs.readFileSync(path.join(dir, 'apache2.conf')), replace(apache, 'MaxClients 150', 'MaxRequestWorkers 150'));
    assert.deepEqual(fs.readFileSync(path.join(dir, 'my.cnf')), replace(mycnf, 'key_buffer = 16M', 'key_buffer_size = 16M'));
  });
});
