import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countMessages, errorLogPath } from '../../src/live/mysql-log.js';
import { globalPrivAccount } from '../../src/live/mysql-objects.js';
import { supportEnd } from '../../rules/mycnf/support/support-dates.js';

/*
 * What the live reader makes of the rows and log lines MariaDB 10.11 and
 * MySQL 8 give (the rows as `SELECT User, Host, Priv FROM
 * mysql.global_priv` printed them on MariaDB 10.11.19).
 */
describe('accounts from mysql.global_priv', () => {
  const row = (User: string, Host: string, Priv: object) => ({ User, Host, Priv: JSON.stringify(Priv) });

  it("root by unix_socket with the hash 'invalid' takes no password; an empty hash does", () => {
    const root = globalPrivAccount(
      row('root', 'localhost', {
        plugin: 'mysql_native_password',
        authentication_string: 'invalid',
        auth_or: [{}, { plugin: 'unix_socket' }],
      }),
    );
    assert.deepEqual(root, {
      user: 'root',
      host: 'localhost',
      plugin: 'mysql_native_password or unix_socket',
      passwordless: false,
      commonPassword: false,
      locked: false,
    });
    const open = globalPrivAccount(row('nopw', '%', { plugin: 'mysql_native_password', authentication_string: '' }));
    assert.equal(open?.passwordless, true);
    // unix_socket and ed25519 keep no password hash: an empty string there is no open door.
    assert.equal(globalPrivAccount(row('ops', 'localhost', { plugin: 'unix_socket', authentication_string: '' }))?.passwordless, false);
  });

  it('compares the native hash with common passwords and the user name, never keeping it', () => {
    // PASSWORD('app') on MariaDB 10.11.
    const app = globalPrivAccount(
      row('app', 'localhost', { plugin: 'mysql_native_password', authentication_string: '*5BCB3E6AC345B435C7C2E6B7949A04CE6F6563D3' }),
    );
    assert.equal(app?.commonPassword, true);
    assert.ok(!JSON.stringify(app).includes('5BCB3E'));
    const other = globalPrivAccount(
      row('web', 'localhost', { plugin: 'mysql_native_password', authentication_string: '*5BCB3E6AC345B435C7C2E6B7949A04CE6F6563D3' }),
    );
    assert.equal(other?.commonPassword, false, "'app' is common only as the account app's own name");
  });

  it('roles log nobody in and are left out; locked accounts are marked', () => {
    assert.equal(globalPrivAccount(row('r1', '', { access: 0, is_role: true })), undefined);
    const sys = globalPrivAccount(
      row('mariadb.sys', 'localhost', { plugin: 'mysql_native_password', authentication_string: '', account_locked: true }),
    );
    assert.equal(sys?.locked, true);
  });

  it('takes Priv parsed already, as mysql2 gives a JSON column', () => {
    const parsed = globalPrivAccount({ User: 'x', Host: '%', Priv: { plugin: 'mysql_native_password', authentication_string: '' } });
    assert.equal(parsed?.passwordless, true);
  });
});

describe('the error log', () => {
  it('counts MariaDB and MySQL 8 errors and warnings, the same message with other numbers as one', () => {
    const text = [
      "2026-12-06 20:25:30 9 [Warning] Access denied for user 'app'@'localhost' (using password: YES)",
      "2026-12-06 20:26:01 31 [Warning] Aborted connection 31 to db: 'shop' user: 'shop' host: 'localhost' (Got timeout reading communication packets)",
      "2026-12-06 20:27:44 45 [Warning] Aborted connection 45 to db: 'shop' user: 'shop' host: 'localhost' (Got timeout reading communication packets)",
      '2026-12-06 20:23:58 0 [Note] mariadbd: ready for connections.',
      '2026-12-06T20:28:00.123456Z 0 [ERROR] [MY-012592] [InnoDB] Operating system error number 2 in a file operation.',
      'Version: 10.11.19-MariaDB-0+deb12u1  socket: /run/mysqld/mysqld.sock',
    ].join('\n');
    const log = countMessages('/var/log/mysql/error.log', text);
    assert.equal(log.errors, 1);
    assert.equal(log.warnings, 3);
    assert.deepEqual(log.top[0], {
      level: 'warning',
      message: "Aborted connection N to db: 'shop' user: 'shop' host: 'localhost' (Got timeout reading communication packets)",
      count: 2,
      last: '2026-12-06 20:27:44',
    });
    assert.deepEqual(log.top[1], {
      level: 'error',
      message: 'Operating system error number N in a file operation.',
      count: 1,
      last: '2026-12-06T20:28:00',
    });
  });

  it('is a file only when log_error names one; relative to the datadir', () => {
    assert.equal(errorLogPath({ log_error: '', datadir: '/var/lib/mysql/' }), undefined);
    assert.equal(errorLogPath({ log_error: 'stderr' }), undefined);
    assert.equal(errorLogPath({ log_error: './db1.err', datadir: '/var/lib/mysql/' }), '/var/lib/mysql/db1.err');
    assert.equal(errorLogPath({ log_error: '/var/log/mysql/error.log' }), '/var/log/mysql/error.log');
  });
});

describe('support dates', () => {
  it('knows each series, says "before" for older ones and nothing for newer ones', () => {
    assert.equal(supportEnd('mariadb', '10.6.21')?.end, '2026-07-06');
    assert.equal(supportEnd('mysql', '8.0.36')?.when, 'on 2026-04-30');
    assert.equal(supportEnd('mysql', '5.1.73')?.when, 'before 2018-12-31');
    assert.equal(supportEnd('mariadb', '13.0.1'), undefined);
  });
});
