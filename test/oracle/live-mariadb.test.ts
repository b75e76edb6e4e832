import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CLI, CLI_NODE, runCli } from '../helpers/cli.js';
import { startMariadb, type PrivateMariadb } from '../helpers/mariadb-server.js';
import { findTool, inCI } from '../helpers/tools.js';
import { impostorUnavailable, startImpostor, type Impostor } from '../helpers/impostor.js';
import { NOBODY } from '../helpers/host-probe-runner.js';

/*
 * The live part against a real MariaDB this test starts itself: its own
 * datadir and socket, no TCP, root by unix_socket and one password account.
 * The server is loaded so that counters have known values (failed logins,
 * refused connections, tables per engine, SET GLOBAL changes), then the CLI
 * lints the server's option file on this host and must report what the server
 * says. The version checked is the installed mariadbd's (10.11 on Debian 12).
 */

interface Report {
  readonly live?: {
    readonly mysql?: { readonly value: LiveValue; readonly source: string };
    readonly notes?: readonly string[];
  };
  readonly results: readonly { readonly diagnostics: readonly { readonly ruleId: string; readonly message: string }[] }[];
}

interface LiveValue {
  readonly server: string;
  readonly uptime: number;
  readonly variables: Record<string, string>;
  readonly status: Record<string, string>;
  readonly engines?: readonly { engine: string; tables: number; dataBytes: number; indexBytes: number }[];
}

const tools = {
  mariadbd: findTool('mariadbd'),
  installDb: findTool('mariadb-install-db'),
  client: findTool('mariadb'),
};
const missing = Object.entries(tools).find(([, found]) => found === undefined)?.[0];
if (missing !== undefined && inCI) throw new Error(`CI=true but the oracle is missing: ${missing} is not installed (.ci/run installs it)`);

const PASSWORD = 'tl-s3cret-Pw';
/** Runtime rules judge at once here: the private server is seconds old. */
const YOUNG_COUNTERS = ['MY2014', 'MY2015'].map((id) => `  ${id}: [warn, { minUptime: 0 }]`).join('\n');

function diagnostics(report: Report): { ruleId: string; message: string }[] {
  return report.results.flatMap((result) => result.diagnostics);
}

describe(
  'live MariaDB: the running server asked over its socket',
  { skip: missing === undefined ? false : `${missing} is not installed` },
  () => {
    let db: PrivateMariadb;
    const stops: (() => Promise<void>)[] = [];
    let version = '';

    before(async () => {
      db = await startMariadb(
        tools as { mariadbd: string; installDb: string; client: string },
        ['max_connections = 12', 'key_buffer_size = 8M', 'thread_cache_size = 4'],
        (stop) => stops.push(stop),
      );
      version = /Ver (\d+\.\d+\.\d+)/.exec(spawnSync(tools.mariadbd as string, ['--version'], { encoding: 'utf8' }).stdout)?.[1] ?? '';
      db.sql(
        [
          'CREATE DATABASE app',
          'CREATE TABLE app.pages (id INT PRIMARY KEY, body TEXT) ENGINE=InnoDB',
          'CREATE TABLE app.sessions (id INT PRIMARY KEY) ENGINE=InnoDB',
          'CREATE TABLE app.legacy (id INT PRIMARY KEY, KEY by_id (id)) ENGINE=MyISAM',
          'INSERT INTO app.legacy VALUES (1), (2), (3)',
          `CREATE USER 'tl'@'localhost' IDENTIFIED BY '${PASSWORD}'`,
          `CREATE USER 'app'@'localhost' IDENTIFIED BY 'app'`,
          'SET GLOBAL key_buffer_size = 16777216',
          'SET GLOBAL max_connections = 10',
        ].join(';'),
      );
      // Five failed logins: Aborted_connects and Access_denied_errors count them.
      for (let attempt = 0; attempt < 5; attempt++) {
        spawnSync(tools.client as string, ['--no-defaults', `--socket=${db.socket}`, '-u', 'tl', '-pwrong', '-e', 'SELECT 1'], {
          timeout: 10_000,
        });
      }
      // Ten sessions of an account without SUPER hold max_connections 10 (MariaDB's least); the eleventh is refused.
      const { createConnection } = await import('mysql2/promise');
      const open = () => createConnection({ socketPath: db.socket, user: 'app', password: 'app' });
      const sessions = await Promise.all(Array.from({ length: 10 }, open));
      await assert.rejects(open(), /Too many connections/);
      await Promise.all(sessions.map((session) => session.end()));
      // A hundred good logins, so that the six failures are a share MY2014 judges (it waits for 100 connections).
      for (let login = 0; login < 100; login++) await (await open()).end();
    });

    after(async () => {
      for (const stop of stops.reverse()) await stop();
    });

    const lint = (
      args: readonly string[],
      options: { file?: string; home?: string } = {},
    ): { report: Report; stdout: string; stderr: string; status: number | null } => {
      // No OOM kills: the kernel log is the machine's (a container's is often its host's), not this test's.
      fs.writeFileSync(path.join(db.root, '.tune-lint.yaml'), `host:\n  oomKills: []\nrules:\n${YOUNG_COUNTERS}\n`);
      const run = runCli([options.file ?? db.optionFile, '--host-ram', '4G', '--format', 'json', ...args], {
        cwd: db.root,
        ...(options.home === undefined ? {} : { env: { HOME: options.home } }),
      });
      return { report: JSON.parse(run.stdout) as Report, stdout: run.stdout, stderr: run.stderr, status: run.status };
    };

    it('reads version, variables, counters and tables per engine as root by unix_socket, and settles the product', () => {
      const { report } = lint([]);
      const mysql = report.live?.mysql;
      assert.ok(mysql !== undefined, JSON.stringify(report.live));
      assert.equal(mysql.value.server, `mariadb=${version}`);
      assert.match(mysql.source, new RegExp(`via ${db.socket.replace(/[.]/g, '\\.')} as root`));
      assert.equal(mysql.value.variables.max_connections, '10');
      // The five failed logins and the refused session.
      assert.equal(mysql.value.status.aborted_connects, '6');
      assert.equal(mysql.value.status.access_denied_errors, '5');
      assert.ok(Number(mysql.value.status.max_used_connections) >= 10);
      const engines = Object.fromEntries((mysql.value.engines ?? []).map((entry) => [entry.engine, entry.tables]));
      assert.deepEqual(engines, { InnoDB: 2, MyISAM: 1 });
      const myisam = mysql.value.engines?.find((entry) => entry.engine === 'MyISAM');
      assert.ok(myisam !== undefined && myisam.indexBytes > 0);
    });

    it('compares the file with the running server both ways, and judges the counters', () => {
      const found = diagnostics(lint([]).report);
      const messages = (id: string) => found.filter((entry) => entry.ruleId === id).map((entry) => entry.message);
      assert.deepEqual(messages('MY1010'), [
        'max_connections = 12 here, but the running server has 10; expected a restart, or SET GLOBAL max_connections = 12',
        'key_buffer_size = 8M here, but the running server has 16777216; expected a restart, or SET GLOBAL key_buffer_size = 8M',
      ]);
      assert.deepEqual(messages('MY1011'), []);
      assert.match(messages('MY2014')[0] ?? '', /^\d+(\.\d)? % of connection attempts failed \(6 of \d+\)/);
      assert.match(messages('MY2015')[0] ?? '', /^1\d connections were open at once, max_connections 10 itself/);
    });

    it('logs in with a password from --mysql-defaults-file and never prints it', () => {
      const defaults = path.join(db.root, 'client.cnf');
      fs.writeFileSync(defaults, `[client]\nuser = tl\npassword = ${PASSWORD}\nsocket = ${db.socket}\n`, { mode: 0o600 });
      const run = lint(['--mysql-defaults-file', defaults]);
      assert.match(run.report.live?.mysql?.source ?? '', /as tl; account from .*client\.cnf \[client\]/);
      // tl may see no table: no sizes per engine rather than "no MyISAM here", and a note saying why.
      assert.equal(run.report.live?.mysql?.value.engines, undefined);
      assert.ok(run.report.live?.notes?.some((note) => note.startsWith('data size per engine not used: the account has no SELECT on *.*')));
      assert.ok(!run.stdout.includes(PASSWORD) && !run.stderr.includes(PASSWORD));
      const stylish = runCli([db.optionFile, '--host-ram', '4G', '--mysql-defaults-file', defaults], { cwd: db.root });
      assert.match(stylish.stdout, /Live servers:\n {2}MariaDB \d+\.\d+\.\d+ up /);
      assert.match(
        stylish.stdout,
        /^ {4}counters cover only \d+ (s|min \d+ s): the runtime rules \(MY2008-MY2016, MY2004's use of them\) give no verdict before a day of uptime/m,
      );
      assert.ok(!stylish.stdout.includes(PASSWORD));
    });

    it('a wrong password, a dead socket and a server that never answers are one note each; the lint completes', async () => {
      const wrong = path.join(db.root, 'wrong.cnf');
      fs.writeFileSync(wrong, `[client]\nuser = tl\npassword = nope\nsocket = ${db.socket}\n`);
      const denied = lint(['--mysql-defaults-file', wrong]);
      assert.equal(denied.report.live?.mysql, undefined);
      assert.deepEqual(
        denied.report.live?.notes?.filter((note) => note.startsWith('MySQL')),
        [`MySQL/MariaDB at ${db.socket} as tl not asked: Access denied for user 'tl'@'localhost' (using password: YES)`],
      );
      assert.ok(!denied.stdout.includes('nope'));

      // A socket the account's file names that no running server listens on: not asked at all, not another socket instead.
      const dead = path.join(db.root, 'dead.cnf');
      fs.writeFileSync(dead, `[client]\nsocket = ${path.join(db.root, 'no.sock')}\n`);
      assert.match(
        lint(['--mysql-defaults-file', dead]).report.live?.notes?.join('\n') ?? '',
        /MySQL\/MariaDB not asked: the socket \S*no\.sock that \S*dead\.cnf \[client\] names is not one a running server listens on/,
      );

      // A server of root's that accepts and never answers: asked, and given up after the statement timeout.
      const hanging = await startImpostor('mariadbd', { socketName: 'mysqld.sock', asRoot: true, silent: true });
      try {
        const hung = path.join(db.root, 'hung.cnf');
        fs.writeFileSync(hung, `[client]\nsocket = ${hanging.socket}\n`);
        const started = Date.now();
        const run = await new Promise<{ stdout: string; status: number | null }>((resolve) => {
          const child = spawnCli(['--mysql-defaults-file', hung]);
          let stdout = '';
          child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
          child.on('close', (status) => resolve({ stdout, status }));
        });
        assert.ok(Date.now() - started < 15_000);
        const report = JSON.parse(run.stdout) as Report;
        assert.match(report.live?.notes?.join('\n') ?? '', /mysqld\.sock as \w+ not asked: .*(ETIMEDOUT|timeout|timed out)/i);
        assert.ok(run.status === 0 || run.status === 1);
      } finally {
        await hanging.stop();
      }
    });

    describe('on a shared host: the login goes to the running server and nowhere else', { skip: impostorUnavailable() ?? false }, () => {
      let impostor: Impostor;
      let home: string;
      before(async () => {
        impostor = await startImpostor('mariadbd', { socketName: 'mysql.sock' });
        home = fs.mkdtempSync(path.join(db.root, 'home-'));
      });
      after(async () => {
        await impostor.stop();
      });
      const homeFile = (text: string) => fs.writeFileSync(path.join(home, '.my.cnf'), text, { mode: 0o600 });

      it("root's ~/.my.cnf password never reaches a local user's look-alike, whatever the linted tree names", () => {
        homeFile(`[client]\nuser = tl\npassword = ${PASSWORD}\n`);
        // The tree names the look-alike's socket for the client and for the server, and includes a file with another account.
        const tree = path.join(db.root, 'tree.cnf');
        const included = path.join(db.root, 'included.cnf');
        fs.writeFileSync(included, `[client]\nuser = app\npassword = app\nsocket = ${impostor.socket}\n`);
        fs.writeFileSync(tree, `[client]\nsocket = ${impostor.socket}\n[mysqld]\nsocket = ${impostor.socket}\n!include ${included}\n`);
        const { report, stdout } = lint([], { file: tree, home });
        assert.equal(impostor.received(), '', 'the look-alike was connected to');
        assert.match(report.live?.mysql?.source ?? '', new RegExp(`as tl; account from \\S*\\.my\\.cnf \\[client\\]`));
        assert.doesNotMatch(report.live?.mysql?.source ?? '', /impostor/);
        assert.ok(!stdout.includes(PASSWORD));
        assert.ok(!(report.live?.notes?.some((note) => note.includes('impostor')) ?? false), JSON.stringify(report.live?.notes));
      });

      it("an account file that names the look-alike's socket is not used at all", () => {
        homeFile(`[client]\nuser = tl\npassword = ${PASSWORD}\nsocket = ${impostor.socket}\n`);
        const { report } = lint([], { home });
        assert.equal(impostor.received(), '');
        assert.equal(report.live?.mysql, undefined);
        assert.ok(
          report.live?.notes?.some((note) => note.includes(`the socket ${impostor.socket} that`)),
          JSON.stringify(report.live?.notes),
        );
      });

      it('host= in ~/.my.cnf names another server: no local server is asked with that account', () => {
        homeFile(`[client]\nhost = db.example.com\nuser = tl\npassword = ${PASSWORD}\n`);
        const { report } = lint([], { home });
        assert.equal(report.live?.mysql, undefined);
        assert.ok(
          report.live?.notes?.includes(
            `MySQL/MariaDB not asked: ${path.relative(db.root, path.join(home, '.my.cnf'))} [client] names host db.example.com: its account is for that server, not this machine's`,
          ),
          JSON.stringify(report.live?.notes),
        );
      });

      it("a ~/.my.cnf that others may write, or that is another user's, is not read", () => {
        homeFile(`[client]\nuser = tl\npassword = ${PASSWORD}\n`);
        fs.chmodSync(path.join(home, '.my.cnf'), 0o666);
        const writable = lint([], { home });
        assert.equal(writable.report.live?.mysql, undefined);
        assert.ok(writable.report.live?.notes?.some((note) => note.endsWith('not used: others may write it (mode 666)')));
        fs.chmodSync(path.join(home, '.my.cnf'), 0o600);
        fs.chownSync(path.join(home, '.my.cnf'), NOBODY, NOBODY);
        const foreign = lint([], { home });
        assert.ok(
          foreign.report.live?.notes?.some((note) => note.endsWith(`not used: it belongs to uid ${NOBODY}, not to this user or root`)),
        );
      });
    });

    it('--no-live asks nothing, and --no-probe implies it', () => {
      for (const flag of ['--no-live', '--no-probe']) {
        const { report } = lint([flag]);
        assert.equal(report.live?.mysql, undefined, flag);
      }
    });

    const spawnCli = (args: readonly string[]) =>
      spawn(CLI_NODE, [CLI, db.optionFile, '--host-ram', '4G', '--format', 'json', ...args], {
        cwd: db.root,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
  },
);
