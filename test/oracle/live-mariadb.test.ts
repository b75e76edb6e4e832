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
  readonly results: readonly {
    readonly diagnostics: readonly {
      readonly ruleId: string;
      readonly message: string;
      readonly severity: string;
      readonly detail?: string;
    }[];
  }[];
}

interface LiveValue {
  readonly server: string;
  readonly accounts?: readonly { user: string; host: string; passwordless: boolean; commonPassword: boolean; locked: boolean }[];
  readonly tables?: { total: number; myisam: { count: number; names: string[] }; withoutPrimaryKey: { count: number; names: string[] } };
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

function diagnostics(report: Report): { ruleId: string; message: string; severity: string; detail?: string }[] {
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
        ['max_connections = 12', 'key_buffer_size = 8M', 'thread_cache_size = 4', 'table_definition_cache = 400'],
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
          'CREATE TABLE app.log_lines (message TEXT) ENGINE=InnoDB',
          // Past table_definition_cache 400 (its least) with the server's own tables: MEMORY tables cost only a definition each.
          'CREATE DATABASE many',
          ...Array.from({ length: 380 }, (_, index) => `CREATE TABLE many.t${index} (id INT PRIMARY KEY) ENGINE=MEMORY`),
          "CREATE USER ''@'localhost'",
          "CREATE USER 'nopw'@'%'",
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
      options: { file?: string; home?: string; rules?: string } = {},
    ): { report: Report; stdout: string; stderr: string; status: number | null } => {
      // No OOM kills: the kernel log is the machine's (a container's is often its host's), not this test's.
      fs.writeFileSync(path.join(db.root, '.tune-lint.yaml'), `host:\n  oomKills: []\nrules:\n${options.rules ?? YOUNG_COUNTERS}\n`);
      const run = runCli([options.file ?? db.optionFile, '--host-ram', '4G', '--format', 'json', ...args], {
        cwd: db.root,
        ...(options.home === undefined ? {} : { env: { HOME: options.home } }),
      });
      if (run.stdout === '') throw new Error(`tune-lint printed nothing (exit ${run.status}): ${run.stderr}`);
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
      assert.deepEqual(engines, { InnoDB: 3, MyISAM: 1, MEMORY: 380 });
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

    it('names the accounts and tables behind its findings, gives early verdicts with the uptime, and changes nothing', () => {
      const state = () =>
        db.sql(
          'SELECT User, Host, Priv FROM mysql.global_priv ORDER BY User, Host; SHOW GLOBAL VARIABLES; ' +
            'SELECT TABLE_SCHEMA, TABLE_NAME, ENGINE, CREATE_OPTIONS FROM information_schema.TABLES ORDER BY 1, 2',
        );
      const before = state();
      const { report, stdout } = lint([], { rules: '  MY4005: off' });
      assert.equal(state(), before, 'the lint changed the server');
      const found = diagnostics(report);
      const byRule = (id: string) => found.filter((entry) => entry.ruleId === id);
      assert.deepEqual(
        byRule('MY3001').map((entry) => entry.message),
        ["anonymous account ''@'localhost' on the running server; expected none: DROP USER ''@'localhost'"],
      );
      assert.match(byRule('MY3002')[0]?.message ?? '', /^account 'nopw'@'%' logs in with an empty password from any host;/);
      // 'app' has the password app: its hash is compared here, and neither it nor the hash is printed.
      assert.match(byRule('MY3003')[0]?.message ?? '', /^account 'app'@'localhost' has a password scanners try first;/);
      assert.ok(!stdout.includes('*5BCB3E6AC345B435C7C2E6B7949A04CE6F6563D3'));
      // root logs in by unix_socket only (its password hash is "invalid"), mariadb.sys is locked: neither is named.
      assert.ok(!found.some((entry) => /'root'|mariadb\.sys/.test(entry.message)));
      assert.match(byRule('MY2018')[0]?.message ?? '', /^1 MyISAM table: app\.legacy;/);
      assert.match(byRule('MY2019')[0]?.message ?? '', /^1 InnoDB table without a primary key: app\.log_lines;/);
      const tables = report.live?.mysql?.value.tables;
      assert.ok(tables !== undefined && tables.total > 400, JSON.stringify(tables));
      assert.deepEqual(tables.myisam, { count: 1, names: ['app.legacy'] });
      assert.equal(
        byRule('MY2017')[0]?.message,
        `table_definition_cache 400 holds fewer definitions than the ${tables.total} tables; expected table_definition_cache ${Math.ceil((tables.total * 1.1) / 100) * 100}`,
      );
      assert.match(byRule('MY2020')[0]?.message ?? '', /^the slow query log is off;/);
    });

    it('judges a server seconds old with early verdicts that state its uptime, and reads within --live-read-time', () => {
      const found = diagnostics(lint([], { rules: '  MY4005: off' }).report);
      const byRule = (id: string) => found.filter((entry) => entry.ruleId === id);
      // Seconds old: MY2014 and MY2015 judge, as early verdicts that say how young the counters are: notes.
      const aborted = byRule('MY2014')[0];
      assert.equal(aborted?.severity, 'info');
      assert.match(
        aborted.detail ?? '',
        /in the \d+ (s|min \d+ s) since the server started \([^)]*\), an early verdict: counters younger than 1 d 0 h/,
      );
      assert.equal(byRule('MY2015')[0]?.severity, 'info');
      assert.match(byRule('MY2015')[0]?.message ?? '', /^1\d connections were open at once/);
      // No time to read the tables: each schema is named as unread, and no partial sum per engine stands in for the whole.
      const rushed = lint(['--live-read-time', '0s']).report;
      assert.equal(rushed.live?.mysql?.value.engines, undefined);
      assert.ok(
        rushed.live?.notes?.some((note) => note.startsWith('tables of 3 schemas: app, many, mysql not read within 0 s (--live-read-time)')),
        JSON.stringify(rushed.live?.notes),
      );
      // A lowered threshold is a firm verdict, and the Live servers section does not say otherwise.
      const firm = runCli([db.optionFile, '--host-ram', '4G', '--min-uptime', '0s'], { cwd: db.root });
      assert.doesNotMatch(firm.stdout, /early verdict|counters cover only/);
      assert.match(firm.stdout, /MY2014 aborted-connections/);
    });

    it('logs in with a password from --mysql-defaults-file and never prints it', () => {
      const defaults = path.join(db.root, 'client.cnf');
      fs.writeFileSync(defaults, `[client]\nuser = tl\npassword = ${PASSWORD}\nsocket = ${db.socket}\n`, { mode: 0o600 });
      const run = lint(['--mysql-defaults-file', defaults]);
      assert.match(run.report.live?.mysql?.source ?? '', /as tl; account from .*client\.cnf \[client\]/);
      // tl may see no table: no sizes per engine rather than "no MyISAM here", and a note saying why; nor the accounts.
      assert.equal(run.report.live?.mysql?.value.engines, undefined);
      assert.equal(run.report.live?.mysql?.value.accounts, undefined);
      assert.ok(run.report.live?.notes?.some((note) => note.startsWith('tables not read: the account has no SELECT on *.*')));
      assert.ok(
        run.report.live?.notes?.some((note) => /^accounts not read: .*denied/i.test(note)),
        JSON.stringify(run.report.live?.notes),
      );
      assert.ok(!run.stdout.includes(PASSWORD) && !run.stderr.includes(PASSWORD));
      const stylish = runCli([db.optionFile, '--host-ram', '4G', '--mysql-defaults-file', defaults], { cwd: db.root });
      assert.match(stylish.stdout, /Live servers:\n {2}MariaDB \d+\.\d+\.\d+ up /);
      assert.match(
        stylish.stdout,
        /^ {4}counters cover only \d+ (s|min \d+ s), less than the 1 d 0 h firm verdicts wait for \(--min-uptime\): the runtime rules' verdicts are early ones/m,
      );
      assert.match(stylish.stdout, /^ {4}reached so far: globals [\d.]+ MiB \+ Max_used_connections 1\d x [\d.]+ MiB = /m);
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
        assert.match(
          report.live?.mysql?.source ?? JSON.stringify(report.live?.notes),
          new RegExp(`as tl; account from \\S*\\.my\\.cnf \\[client\\]`),
        );
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

    it('probe --yaml on the live host is read back by --profile: the live facts, accounts and tables included', () => {
      const probed = runCli(['probe', '--yaml', db.optionFile], { cwd: db.root });
      assert.equal(probed.status, 0, probed.stderr);
      const profile = path.join(db.root, 'probed.yaml');
      fs.writeFileSync(profile, probed.stdout);
      const run = runCli([db.optionFile, '--profile', profile, '--format', 'json'], { cwd: db.root });
      assert.ok(run.status === 0 || run.status === 1, run.stderr);
      const live = (JSON.parse(run.stdout) as Report).live?.mysql;
      assert.ok(live !== undefined, run.stdout.slice(0, 400));
      assert.equal(live.source, `profile ${profile}`);
      assert.equal(live.value.variables.max_connections, '10');
      assert.ok(live.value.accounts?.some((account) => account.user === 'nopw' && account.passwordless) === true);
      assert.deepEqual(live.value.tables?.myisam.names, ['app.legacy']);
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
