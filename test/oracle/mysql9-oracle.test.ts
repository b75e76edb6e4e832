import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { after, describe, it } from 'node:test';
import { builtinRules } from '../../rules/index.js';
import { parseTargetSpec } from '../../src/core/targets.js';
import { selectRules } from '../../src/engine/selection.js';
import { lint } from '../../src/lint.js';
import { askMysql } from '../../src/live/mysql.js';
import { MYSQL_BINARY_OPTION_LISTS } from '../../src/languages/mycnf/mysql-binary-options.js';
import { repoPath } from '../helpers/paths.js';
import { realWorldServerOptions } from '../helpers/real-world-options.js';
import { inCI } from '../helpers/tools.js';

/*
 * MySQL 9.x, today's series, as the oracle: Debian's unstable suite ships
 * it, and .ci/run puts its mysql-server-core in a chroot made with
 * mmdebstrap (TUNE_LINT_MYSQL_CHROOT, default /var/cache/tune-lint/sid-mysql).
 * - The 9.7 option table is what that mysqld says now (the generator's --check).
 * - Every [mysqld] option the MySQL trees of fixtures/real-world set: tune-lint
 *   says MySQL 9.7 refuses it exactly when `mysqld --validate-config` answers
 *   "unknown variable".
 * - The live reader logs in to a running MySQL 9.7 (started in the chroot on a
 *   socket of its own, stopped by PID) with a caching_sha2_password account on
 *   a cold cache, and reads its accounts and tables with MySQL's SQL.
 */
const CHROOT = process.env.TUNE_LINT_MYSQL_CHROOT ?? '/var/cache/tune-lint/sid-mysql';
const present = fs.existsSync(path.join(CHROOT, 'usr', 'sbin', 'mysqld'));
const reason = `no MySQL 9 chroot at ${CHROOT} (.ci/run makes it with mmdebstrap)`;
if (!present && inCI) throw new Error(`CI=true but the oracle is missing: ${reason}`);

const MYSQL_TREES = [
  'docker-mysql8',
  'mysql-community-rpm',
  'percona-server-rpm',
  'percona-gr57',
  'rhel-kamipo-mysql',
  'mysql-cluster76',
  'dotdeb-mysql55',
  'mysql-test-55',
  'percona-pxc8',
];
const SERVER_GROUPS = new Set(['mysqld', 'server']);

describe('MySQL 9.7 (Debian unstable) as the oracle', { skip: present ? false : reason }, () => {
  const work = path.join(CHROOT, 'tmp', `tune-lint-${process.pid}`);
  after(() => fs.rmSync(work, { recursive: true, force: true }));

  it('reads a running MySQL 9.7 as a caching_sha2_password account on a cold cache: accounts and tables', async (t) => {
    const inside = `/tmp/tune-lint-live-${process.pid}`;
    const dir = path.join(CHROOT, inside);
    fs.mkdirSync(dir, { recursive: true });
    const mysqld = (args: readonly string[]) =>
      ['chroot', [CHROOT, '/usr/sbin/mysqld', '--no-defaults', '--user=root', `--datadir=${inside}/data`, ...args]] as const;
    const [command, initialise] = mysqld(['--initialize-insecure', '--secure-file-priv=']);
    assert.equal(spawnSync(command, initialise, { encoding: 'utf8', timeout: 120_000 }).status, 0);
    const [, serve] = mysqld([
      '--socket=' + `${inside}/mysql.sock`,
      '--skip-networking',
      '--skip-mysqlx',
      '--secure-file-priv=',
      `--log-error=${inside}/error.log`,
    ]);
    const server = spawn(command, serve, { stdio: 'ignore' });
    const pid = server.pid as number;
    const exited = new Promise<void>((resolve) => server.once('exit', () => resolve()));
    // The server this test started, by its PID; its directory goes once it has stopped writing there.
    t.after(async () => {
      if (server.exitCode === null) process.kill(pid, 'SIGTERM');
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const socket = path.join(dir, 'mysql.sock');
    const { createConnection } = await import('mysql2/promise');
    const deadline = Date.now() + 60_000;
    let root: import('mysql2/promise').Connection | undefined;
    while (root === undefined) {
      try {
        root = await createConnection({ socketPath: socket, user: 'root', multipleStatements: true });
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
    await root.query(
      [
        'CREATE DATABASE app',
        'CREATE TABLE app.legacy (id INT PRIMARY KEY) ENGINE=MyISAM',
        'CREATE TABLE app.log_lines (message TEXT) ENGINE=InnoDB',
        "CREATE USER 'tl'@'localhost' IDENTIFIED WITH caching_sha2_password BY 'tl-s3cret-Pw'",
        "GRANT SELECT, PROCESS ON *.* TO 'tl'@'localhost'",
        "CREATE USER 'nopw'@'%'",
        // Empties the cache of password hashes: the next login is caching_sha2_password's full authentication.
        'FLUSH PRIVILEGES',
      ].join(';'),
    );
    await root.end();
    const notes: string[] = [];
    const fact = await askMysql(
      { user: 'tl', password: 'tl-s3cret-Pw', socket: undefined, source: 'test' },
      { path: socket, pid },
      5_000,
      notes,
    );
    assert.ok(fact !== undefined, notes.join('; '));
    assert.match(fact.value.server, /^mysql=9\.\d+\.\d+$/);
    const accounts = fact.value.accounts ?? [];
    assert.ok(accounts.some((account) => account.user === 'nopw' && account.host === '%' && account.passwordless));
    assert.ok(accounts.some((account) => account.user === 'tl' && account.plugin === 'caching_sha2_password' && !account.passwordless));
    const tables = fact.value.tables;
    assert.ok(tables !== undefined, notes.join('; '));
    assert.deepEqual(tables.myisam, { count: 1, names: ['app.legacy'] });
    assert.deepEqual(tables.withoutPrimaryKey, { count: 1, names: ['app.log_lines'] });
    // The server's own path, read through /proc/PID/root: the server runs in the chroot.
    assert.equal(fact.value.errorLog?.file, `${inside}/error.log`, notes.join('; '));
  });

  it("the 9.7 option table is what the chroot's mysqld says now", (t) => {
    const version = spawnSync('chroot', [CHROOT, '/usr/sbin/mysqld', '--version'], { encoding: 'utf8' }).stdout;
    const release = MYSQL_BINARY_OPTION_LISTS['9.7']?.release ?? 'none';
    // Debian's release moves: the table is checked against the release it was made from, the refusals below against any.
    if (!version.includes(`Ver ${release} `) && !version.includes(`Ver ${release}-`)) {
      t.skip(`the table is of mysqld ${release}, the chroot has ${version.trim()}: node scripts/gen-mysql-binary-options.mjs ${CHROOT}`);
      return;
    }
    const check = spawnSync(process.execPath, [repoPath('scripts', 'gen-mysql-binary-options.mjs'), CHROOT, '--check'], {
      encoding: 'utf8',
      timeout: 600_000,
    });
    assert.equal(check.status, 0, check.stderr);
  });

  it('refuses exactly the real-world server options mysqld --validate-config does not know', async () => {
    const options = realWorldServerOptions(SERVER_GROUPS, MYSQL_TREES);
    assert.ok(options.size > 50, `${options.size} options`);
    fs.mkdirSync(work, { recursive: true });
    const file = path.join(work, 'my.cnf');
    const lines = [...options].map(([name, value]) => (value === '' ? name : `${name} = ${value}`));
    fs.writeFileSync(file, `[mysqld]\n${lines.join('\n')}\n`);
    const result = await lint({
      paths: [file],
      targets: parseTargetSpec('mysql=9.7.4'),
      rules: selectRules(builtinRules, 'recommended', new Map()),
      fixType: 'none',
    });
    const refusedByLint = new Set(
      result.diagnostics
        .filter((diagnostic) => diagnostic.severity === 'error' && diagnostic.message.includes('refuse'))
        .map((diagnostic) => lines[diagnostic.start.line - 2]?.split(/\s*=\s*/)[0]),
    );
    // mysqld stops at the first option it cannot take: ask again without it until it takes the rest.
    const unknown = new Set<string>();
    const otherwise: string[] = [];
    let remaining = [...lines];
    // Each round leaves out the line mysqld named (asserted below), so the rounds end.
    while (remaining.length > 0) {
      fs.writeFileSync(file, `[mysqld]\n${remaining.join('\n')}\n`);
      const inside = `/tmp/${path.basename(work)}/my.cnf`;
      const run = spawnSync(
        'chroot',
        [CHROOT, '/usr/sbin/mysqld', `--defaults-file=${inside}`, '--user=root', '--secure-file-priv=', '--validate-config'],
        {
          encoding: 'utf8',
        },
      );
      if (run.status === 0) break;
      const said = `${run.stdout}${run.stderr}`;
      const errors = said
        .split('\n')
        .filter((line) => line.includes('[ERROR]') && !line.includes('Aborting'))
        .join('\n');
      const name = /unknown (?:variable|option) '-*([^'=]+)/.exec(errors)?.[1]?.replaceAll('-', '_');
      const keyOf = (line: string) => (line.split(/\s*=\s*/)[0] ?? '').replaceAll('-', '_');
      // Another complaint (a value, a path of the tree's host) is about the value, not the name: that line leaves the comparison.
      const mentioned = (key: string) => new RegExp(`\\b(${key}|${key.replaceAll('_', '-')})\\b`).test(errors);
      const culprit = name ?? keyOf(remaining.find((line) => mentioned(keyOf(line))) ?? '');
      if (name !== undefined) unknown.add(name);
      else otherwise.push(culprit);
      const before = remaining.length;
      remaining = remaining.filter((line) => keyOf(line) !== culprit);
      assert.ok(remaining.length < before, `mysqld refused what the test cannot place: ${errors.slice(-400)}`);
    }
    const compared = (names: Set<string | undefined>) =>
      [...names].filter((name): name is string => name !== undefined && !otherwise.includes(name)).sort();
    assert.ok(unknown.size > 0, 'the trees set options MySQL 9.7 no longer has (query_cache_size, expire_logs_days, ...)');
    // Galera's and NDB's options: Oracle's mysqld refuses them, the builds those files are for take them, so they are warnings.
    const forVariants = (name: string) => /^(wsrep|pxc|ndb)/.test(name);
    const warned = new Set(
      result.diagnostics
        .filter((diagnostic) => diagnostic.ruleId === 'MY1006' && diagnostic.severity === 'warn')
        .map((diagnostic) => lines[diagnostic.start.line - 2]?.split(/\s*=\s*/)[0]),
    );
    for (const name of [...unknown].filter(forVariants)) assert.ok(warned.has(name), `${name} is neither refused nor warned of`);
    assert.deepEqual(
      compared(refusedByLint),
      compared(unknown).filter((name) => !forVariants(name)),
    );
  });
});
