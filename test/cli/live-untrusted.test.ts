import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ProcReader } from '../../src/host/proc.js';
import { runningApaches, runningDatabases } from '../../src/host/running.js';
import { runCli } from '../helpers/cli.js';
import { temporaryDirectory } from '../helpers/host-fixtures.js';
import { impostorUnavailable, startImpostor, type Impostor } from '../helpers/impostor.js';
import { freeLoopbackPort } from '../helpers/processes.js';
import { inCI } from '../helpers/tools.js';

/*
 * tune-lint run as root on a host where a local user runs look-alikes of the
 * servers: `mariadbd` on a socket in a directory anyone may write, `apache2`
 * on a loopback port, both as `nobody`, each writing down what it is sent.
 * The plain lint, with root's ~/.my.cnf holding a password and
 * --mysql-defaults-file giving one, must send them nothing and take nothing
 * from them. (The look-alikes are this test's own processes; it ends them.)
 */

interface Report {
  readonly host: {
    readonly mysqlRunning?: { value: boolean };
    readonly apacheRunning?: { value: boolean };
    readonly notes?: readonly string[];
  };
  readonly live?: { readonly mysql?: unknown; readonly apache?: unknown; readonly notes?: readonly string[] };
}

const unavailable = impostorUnavailable();
if (unavailable !== undefined && inCI) throw new Error(`CI=true runs as root, and this test needs it: ${unavailable}`);

describe('live mode beside look-alike servers of a local user', { skip: unavailable ?? false }, () => {
  let database: Impostor;
  let web: Impostor;
  let port: number;
  let dir: string;
  let remove: () => void;

  before(async () => {
    port = await freeLoopbackPort();
    database = await startImpostor('mariadbd', { socketName: 'mysql.sock' });
    web = await startImpostor('apache2', { port });
    ({ dir, remove } = temporaryDirectory('tune-lint-untrusted-'));
    fs.writeFileSync(path.join(dir, 'my.cnf'), `[client]\nsocket = ${database.socket}\n[mysqld]\nsocket = ${database.socket}\n`);
    fs.writeFileSync(
      path.join(dir, 'apache2.conf'),
      [
        `ServerRoot ${dir}`,
        'LoadModule status_module /usr/lib/apache2/modules/mod_status.so',
        '<Location /server-status>',
        '    SetHandler server-status',
        '</Location>',
        `Listen 127.0.0.1:${port}`,
        '',
      ].join('\n'),
    );
    fs.writeFileSync(path.join(dir, '.my.cnf'), '[client]\nuser = root\npassword = root-s3cret\n', { mode: 0o600 });
    fs.writeFileSync(path.join(dir, 'client.cnf'), '[client]\nuser = dba\npassword = dba-s3cret\n', { mode: 0o600 });
    fs.writeFileSync(path.join(dir, '.tune-lint.yaml'), 'host:\n  oomKills: []\n');
  });
  after(async () => {
    await database.stop();
    await web.stop();
    remove();
  });

  const lint = (args: readonly string[]): Report => {
    const run = runCli(['my.cnf', 'apache2.conf', '--host-ram', '2G', '--format', 'json', ...args], { cwd: dir, env: { HOME: dir } });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    return JSON.parse(run.stdout) as Report;
  };

  it("sends root's passwords to neither, and takes neither for a server", () => {
    for (const args of [[], ['--mysql-defaults-file', path.join(dir, 'client.cnf')]]) {
      const report = lint(args);
      assert.equal(database.received(), '', `the mariadbd look-alike was connected to (${args.join(' ')})`);
      assert.equal(web.received(), '', `the apache2 look-alike was connected to (${args.join(' ')})`);
      const notes = report.host.notes ?? [];
      assert.ok(
        notes.some((note) => note.startsWith(`mariadbd PID ${database.pid} runs as uid 65534, not as root, this user or mysql`)),
        JSON.stringify(notes),
      );
      assert.ok(notes.some((note) => note.startsWith(`apache2 PID ${web.pid} runs as uid 65534, not as root or this user`)));
    }
  });

  it('with no server of root or mysql running, the defaults file is used with none and says so', (t) => {
    const reader = new ProcReader();
    if ((runningDatabases(reader)?.parents.length ?? 0) > 0 || (runningApaches(reader)?.parents.length ?? 0) > 0) {
      t.skip('this machine runs a database or web server of its own: the note would name it, which this test cannot foresee');
      return;
    }
    const report = lint(['--mysql-defaults-file', path.join(dir, 'client.cnf')]);
    assert.equal(report.host.mysqlRunning?.value, false);
    assert.equal(report.host.apacheRunning?.value, false);
    assert.deepEqual(report.live?.notes, [
      `MySQL/MariaDB not asked: no mysqld or mariadbd of root, this user or mysql runs here (mariadbd PID ${database.pid} runs as uid 65534, not as root, this user or mysql: not taken for the database server, nor measured, nor asked)`,
    ]);
  });
});
