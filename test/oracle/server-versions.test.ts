import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, test } from 'node:test';
import { ProcReader } from '../../src/host/proc.js';
import { parseDatabaseVersion, probeServerVersions } from '../../src/host/servers.js';
import { statusFile, temporaryDirectory, writeTree } from '../helpers/host-fixtures.js';
import { requireTool } from '../helpers/tools.js';

/*
 * The probe reads a server's release from its binary's .rodata instead of
 * running it. The oracle is the binary itself, run here by the test (never
 * by tune-lint): `apache2 -v` and `mariadbd --version` must say the release
 * the bytes gave, for the running process's binary and for the installed one.
 * Checked against Debian 12's apache2 (2.4.68 or later point releases) and
 * MariaDB 10.11.
 */

function said(binary: string, args: readonly string[]): string {
  const run = spawnSync(binary, args, { encoding: 'utf8', env: { PATH: '/usr/sbin:/usr/bin:/sbin:/bin', LANG: 'C' }, timeout: 10_000 });
  return `${run.stdout}\n${run.stderr}`;
}

describe('server versions from the binaries, against what the binaries print', () => {
  test('a running apache2 and mariadbd (root processes of a fake /proc whose exe is the real binary)', async (t) => {
    const apache2 = requireTool(t, 'apache2');
    const mariadbd = requireTool(t, 'mariadbd');
    if (apache2 === undefined || mariadbd === undefined) return;
    const httpdRelease = /Apache\/(\d+\.\d+\.\d+)/.exec(said(apache2, ['-v']))?.[1];
    const database = parseDatabaseVersion(said(mariadbd, ['--version']));
    assert.ok(httpdRelease !== undefined && database !== undefined);

    const { dir, remove } = temporaryDirectory('tune-lint-versions-');
    t.after(remove);
    writeTree(dir, { '/proc/100/status': statusFile('apache2', 100, 1, 9000), '/proc/200/status': statusFile('mariadbd', 200, 1, 90000) });
    fs.symlinkSync(fs.realpathSync(apache2), path.join(dir, 'proc/100/exe'));
    fs.symlinkSync(fs.realpathSync(mariadbd), path.join(dir, 'proc/200/exe'));
    const reader = new ProcReader(dir);
    const versions = await probeServerVersions(reader, {
      apache: [{ pid: 100, ppid: 1, name: 'apache2', rss: 0 }],
      mysql: [{ pid: 200, ppid: 1, name: 'mariadbd', rss: 0 }],
    });
    assert.deepEqual(versions.notes, []);
    assert.equal(versions.facts.httpdVersion?.value, httpdRelease, `apache2 -v says ${httpdRelease}`);
    assert.equal(versions.facts.databaseServer?.value, `mariadb=${database.version}`);
    t.diagnostic(`checked against apache2 ${httpdRelease} and mariadbd ${database.version}`);
  });

  test('the installed binaries of this machine, found on the system paths', async (t) => {
    const apache2 = requireTool(t, 'apache2');
    const mariadbd = requireTool(t, 'mariadbd');
    if (apache2 === undefined || mariadbd === undefined) return;
    const versions = await probeServerVersions(new ProcReader('/'), { apache: [], mysql: [] });
    assert.equal(versions.facts.httpdVersion?.value, /Apache\/(\d+\.\d+\.\d+)/.exec(said(apache2, ['-v']))?.[1]);
    assert.match(versions.facts.httpdVersion?.source ?? '', /^probe \(version in \/usr\/sbin\/apache2, installed\)$/);
    assert.equal(versions.facts.databaseServer?.value, `mariadb=${parseDatabaseVersion(said(mariadbd, ['--version']))?.version ?? '?'}`);
  });
});
