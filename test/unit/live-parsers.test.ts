import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { describe, it } from 'node:test';
import type { HostFacts } from '../../src/host/facts.js';
import { parseKmsgRecord } from '../../src/host/kernel-log.js';
import { hostFactsToProfileYaml, parseHostProfile } from '../../src/host/profile.js';
import { maxWorkersLines, parseStatusPage } from '../../src/live/apache.js';
import { temporaryDirectory } from '../helpers/host-fixtures.js';
import { inCI } from '../helpers/tools.js';

describe('live evidence parsers', () => {
  it("reads mod_status's ?auto page as httpd 2.4 writes it", () => {
    const page = [
      '127.0.0.1',
      'ServerVersion: Apache/2.4.71 (Debian)',
      'ServerMPM: prefork',
      'Server Built: 2025-07-29T18:31:38',
      'ServerUptimeSeconds: 41',
      'Uptime: 41',
      'Total Accesses: 2003',
      'Total kBytes: 1250',
      'BusyWorkers: 10',
      'IdleWorkers: 0',
      'Scoreboard: KKKKKKKKKW......................................................',
      '',
    ].join('\n');
    assert.deepEqual(parseStatusPage('http://127.0.0.1:8080/server-status?auto', page), {
      url: 'http://127.0.0.1:8080/server-status?auto',
      busyWorkers: 10,
      idleWorkers: 0,
      scoreboardSlots: 64,
      totalAccesses: 2003,
      uptime: 41,
      mpm: 'prefork',
    });
    assert.equal(parseStatusPage('http://127.0.0.1/', '<html>Not Found</html>'), undefined);
  });

  it('counts AH00161 and AH00484 in the error log with the first and last date, and nothing else', async (t) => {
    const { dir, remove } = temporaryDirectory('tune-lint-log-');
    t.after(remove);
    const log = path.join(dir, 'error.log');
    fs.writeFileSync(
      log,
      [
        '[Mon Nov 30 09:12:01.123456 2026] [mpm_prefork:notice] [pid 100] AH00163: Apache/2.4.71 (Debian) configured -- resuming normal operations',
        '[Mon Nov 30 09:14:11.000001 2026] [mpm_prefork:error] [pid 100] AH00161: server reached MaxRequestWorkers setting, consider raising the MaxRequestWorkers setting',
        '[Tue Dec 01 10:00:00.5 2026] [core:notice] [pid 100] AH00094: Command line: /usr/sbin/apache2',
        '[Wed Dec 02 11:40:13.987654 2026] [mpm_event:error] [pid 200:tid 7] AH00484: server reached MaxRequestWorkers setting, consider raising the MaxRequestWorkers setting',
        '',
      ].join('\n'),
    );
    const notes: string[] = [];
    assert.deepEqual(await maxWorkersLines(log, notes), {
      file: log,
      count: 2,
      first: 'Mon Nov 30 09:14:11.000001 2026',
      last: 'Wed Dec 02 11:40:13.987654 2026',
    });
    assert.equal(await maxWorkersLines(path.join(dir, 'missing.log'), notes), undefined);
    assert.deepEqual(notes, [`Apache error log ${path.join(dir, 'missing.log')} not read: ENOENT`]);
  });

  it('an ErrorLog that is a FIFO or a directory is not read, and nothing waits for a writer', async (t) => {
    const { dir, remove } = temporaryDirectory('tune-lint-log-');
    t.after(remove);
    const fifo = path.join(dir, 'error.log');
    const made = spawnSync('mkfifo', [fifo]);
    if (made.status !== 0) {
      if (inCI) assert.fail('mkfifo (coreutils) is missing');
      t.skip('mkfifo is not installed');
      return;
    }
    const notes: string[] = [];
    assert.equal(await maxWorkersLines(fifo, notes), undefined);
    assert.equal(await maxWorkersLines(dir, notes), undefined);
    assert.deepEqual(notes, [
      `Apache error log ${fifo} not read: not a regular file`,
      `Apache error log ${dir} not read: not a regular file`,
    ]);
  });

  it("takes the kernel's OOM kills of server processes from /dev/kmsg records, and no other", () => {
    const uptime = 5000;
    assert.deepEqual(
      parseKmsgRecord('3,2201,4900000000,-;Out of memory: Killed process 4242 (apache2) total-vm:312000kB, anon-rss:98000kB', uptime),
      { process: 'apache2', pid: 4242, secondsAgo: 100 },
    );
    assert.deepEqual(parseKmsgRecord('3,2202,1000000,-;Memory cgroup out of memory: Killed process 77 (php-fpm8.2) total-vm:1kB', uptime), {
      process: 'php-fpm8.2',
      pid: 77,
      secondsAgo: 4999,
    });
    assert.equal(parseKmsgRecord('3,2203,1000000,-;Out of memory: Killed process 9 (node) total-vm:1kB', uptime), undefined);
    assert.equal(parseKmsgRecord(' SUBSYSTEM=memory', uptime), undefined);
  });

  it('a profile keeps the live facts exactly: probe --yaml, then --profile', async () => {
    const facts: HostFacts = {
      mysqlLive: {
        value: {
          server: 'mariadb=10.11.19',
          uptime: 86_400,
          variables: {
            max_connections: '151',
            version: '10.11.19-MariaDB-0+deb12u1',
            sql_mode: 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION',
          },
          status: { max_used_connections: '27', uptime: '86400' },
          engines: [{ engine: 'InnoDB', tables: 3, dataBytes: 49152, indexBytes: 16384 }],
        },
        source: 'live (10.11.19-MariaDB via /run/mysqld/mysqld.sock as root; account from login name)',
      },
      apacheLive: {
        value: {
          status: { url: 'http://127.0.0.1:80/server-status?auto', busyWorkers: 3, idleWorkers: 47, scoreboardSlots: 150, mpm: 'event' },
          maxWorkersReached: { file: '/var/log/apache2/error.log', count: 2, first: 'Mon Nov 30', last: 'Wed "Dec" 02' },
        },
        source: 'live (http://127.0.0.1:80/server-status?auto, /var/log/apache2/error.log)',
      },
      oomKills: { value: [{ process: 'apache2', pid: 4242, secondsAgo: 100 }], source: 'probe (kernel log, /dev/kmsg)' },
    };
    const back = await parseHostProfile(await hostFactsToProfileYaml(facts), 'prod.yaml');
    const source = 'profile prod.yaml';
    assert.deepEqual(back, {
      mysqlLive: { value: facts.mysqlLive?.value, source },
      apacheLive: { value: facts.apacheLive?.value, source },
      oomKills: { value: facts.oomKills?.value, source },
    });
  });

  it('a profile reads back what a young live host gives: an Apache with nothing to say, accounts, tables, the error log', async () => {
    const facts: HostFacts = {
      mysqlLive: {
        value: {
          server: 'mariadb=10.11.19',
          uptime: 12,
          variables: { slow_query_log: 'OFF', long_query_time: '10.000000', log_error: '' },
          status: { uptime: '12' },
          accounts: [
            { user: '', host: 'localhost', plugin: 'mysql_native_password', passwordless: true, commonPassword: false, locked: false },
            {
              user: 'app',
              host: '%',
              plugin: 'mysql_native_password or unix_socket',
              passwordless: false,
              commonPassword: true,
              locked: false,
            },
          ],
          tables: { total: 40, myisam: { count: 1, names: ['app.legacy'] }, withoutPrimaryKey: { count: 0, names: [] }, unread: ['big'] },
          errorLog: {
            file: '/var/log/mysql/error.log',
            bytesRead: 4096,
            errors: 1,
            warnings: 2,
            top: [
              {
                level: 'warning',
                message: "Access denied for user 'app'@'localhost' (using password: YES)",
                count: 2,
                last: '2026-12-06 20:25:30',
              },
            ],
          },
        },
        source: 'live (10.11.19-MariaDB via /run/mysqld/mysqld.sock as root; account from login name)',
      },
      apacheLive: { value: {}, source: 'live (no status page)' },
    };
    const text = await hostFactsToProfileYaml(facts);
    assert.match(text, /^apacheLive: \{\}/m);
    const back = await parseHostProfile(text, 'prod.yaml');
    assert.deepEqual(back, {
      mysqlLive: { value: facts.mysqlLive?.value, source: 'profile prod.yaml' },
      apacheLive: { value: {}, source: 'profile prod.yaml' },
    });
  });
});
