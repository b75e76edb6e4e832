import * as fs from 'node:fs';
import * as path from 'node:path';
import type { MemoryCgroup } from './cgroup.js';
import { runCommand, sleep, startBackground, stopBackground } from './processes.js';
import type { BackgroundProcess } from './processes.js';

export const MARIADBD = '/usr/sbin/mariadbd';
const INSTALL_DB = '/usr/bin/mariadb-install-db';
const CLIENT = '/usr/bin/mariadb';
const ADMIN = '/usr/bin/mariadb-admin';

/** Credentials the page uses; the account can only read the proof's own schema, over the socket. */
export const PAGE_ACCOUNT = { user: 'proof', password: 'proof', database: 'proof' };

/** One private data directory and socket, shared by the stock and tuned option files (runs never overlap). */
export interface DatabaseDir {
  root: string;
  datadir: string;
  socket: string;
  pidFile: string;
  errorLog: string;
}

export function databaseDir(root: string): DatabaseDir {
  return {
    root,
    datadir: path.join(root, 'data'),
    socket: path.join(root, 'run', 'mysqld.sock'),
    pidFile: path.join(root, 'run', 'mysqld.pid'),
    errorLog: path.join(root, 'run', 'error.log'),
  };
}

/**
 * Debian 12's server settings (/etc/mysql/mariadb.conf.d/50-server.cnf: memory
 * and connections left at their defaults) with private paths, and no TCP at
 * all: the page connects over the Unix socket.
 */
export function writeDatabaseConfig(file: string, dir: DatabaseDir): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 });
  fs.writeFileSync(
    file,
    `# Private MariaDB of tune-lint's proof (bench/proof --with-mariadb): Debian's
# stock server settings, a private datadir, a Unix socket and no TCP at all.
[mysqld]
user                    = mysql
pid-file                = ${dir.pidFile}
socket                  = ${dir.socket}
basedir                 = /usr
datadir                 = ${dir.datadir}
tmpdir                  = /tmp
skip-networking
log-error               = ${dir.errorLog}
expire_logs_days        = 10
character-set-server    = utf8mb4
collation-server        = utf8mb4_general_ci
`,
    { mode: 0o644 },
  );
}

async function client(dir: DatabaseDir, sql: string): Promise<void> {
  const result = await runCommand(CLIENT, ['--no-defaults', `--socket=${dir.socket}`, '-u', 'root', '-e', sql], { timeoutMs: 60_000 });
  if (result.code !== 0) throw new Error(`mariadb client failed: ${result.stderr.trim()}`);
}

function errorLogTail(dir: DatabaseDir): string {
  try {
    return fs.readFileSync(dir.errorLog, 'utf8').trim().split('\n').slice(-5).join('\n');
  } catch {
    return '(no error log)';
  }
}

/**
 * Starts mariadbd with an option file, inside the cgroup when one is given (a
 * shell writes its own PID into cgroup.procs and execs the server), and waits
 * until it answers a ping on its socket.
 */
export async function startDatabase(configFile: string, dir: DatabaseDir, cgroup: MemoryCgroup | undefined): Promise<BackgroundProcess> {
  const server = cgroup
    ? startBackground('/bin/sh', [
        '-c',
        'echo $$ > "$1" && exec "$2" --defaults-file="$3"',
        'proof',
        cgroup.procsFile,
        MARIADBD,
        configFile,
      ])
    : startBackground(MARIADBD, [`--defaults-file=${configFile}`]);
  let exited = false;
  void server.exited.then(() => (exited = true));
  const deadline = Date.now() + 60_000;
  // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- set when the server exits, between the awaits
  for (let attempt = 0; attempt < 600 && Date.now() < deadline && !exited; attempt++) {
    const ping = await runCommand(ADMIN, ['--no-defaults', `--socket=${dir.socket}`, '-u', 'root', 'ping'], { timeoutMs: 10_000 });
    if (ping.code === 0) return server;
    await sleep(100);
  }
  await stopDatabase(server);
  throw new Error(`mariadbd did not answer on ${dir.socket} within 60 s: ${server.output().trim()}\n${errorLogTail(dir)}`);
}

/** mariadbd flushes and exits on TERM; 30 s before it is killed. */
export async function stopDatabase(server: BackgroundProcess): Promise<void> {
  await stopBackground(server, 30_000);
}

/**
 * A fresh data directory with the schema the page reads: 5,000 articles, an
 * account that may only SELECT from them. Runs outside any cap: this is setup.
 */
export async function initialiseDatabase(configFile: string, dir: DatabaseDir): Promise<void> {
  for (const sub of ['data', 'run']) fs.mkdirSync(path.join(dir.root, sub), { recursive: true });
  fs.chmodSync(dir.root, 0o755);
  // The page (www-data) reaches the socket through run/; the data stays the server's own.
  fs.chmodSync(path.join(dir.root, 'run'), 0o755);
  const chown = await runCommand('/bin/chown', ['-R', 'mysql:mysql', path.join(dir.root, 'data'), path.join(dir.root, 'run')], {
    timeoutMs: 10_000,
  });
  if (chown.code !== 0) throw new Error(`chown mysql failed: ${chown.stderr.trim()}`);
  const install = await runCommand(
    INSTALL_DB,
    [`--defaults-file=${configFile}`, '--auth-root-authentication-method=socket', '--skip-test-db'],
    { timeoutMs: 120_000 },
  );
  if (install.code !== 0)
    throw new Error(`mariadb-install-db failed: ${(install.stderr || install.stdout).trim().split('\n').slice(-5).join('\n')}`);
  const server = await startDatabase(configFile, dir, undefined);
  try {
    const { user, password, database } = PAGE_ACCOUNT;
    await client(
      dir,
      [
        `CREATE DATABASE ${database}`,
        `USE ${database}`,
        `CREATE TABLE ${database}.article (id INT PRIMARY KEY, title CHAR(40) NOT NULL, created INT NOT NULL, KEY by_created (created)) ENGINE=InnoDB`,
        // seq_1_to_5000 is MariaDB's Sequence engine, resolved in the current database.
        `INSERT INTO article SELECT seq, CONCAT('article ', LPAD(seq, 8, '0')), (seq * 7919) % 100000 FROM seq_1_to_5000`,
        `CREATE USER '${user}'@'localhost' IDENTIFIED BY '${password}'`,
        `GRANT SELECT ON ${database}.* TO '${user}'@'localhost'`,
      ].join('; '),
    );
  } finally {
    await stopDatabase(server);
  }
}

/** Options of the sizing model that matter for memory and connections, as the report shows them. */
const REPORTED_OPTIONS = new Set([
  'max_connections',
  'innodb_buffer_pool_size',
  'key_buffer_size',
  'tmp_table_size',
  'max_heap_table_size',
  'sort_buffer_size',
  'join_buffer_size',
  'read_buffer_size',
  'read_rnd_buffer_size',
  'thread_stack',
  'table_open_cache',
  'innodb_log_buffer_size',
  'performance_schema',
]);

/**
 * The reported options set in the [mysqld] group of the proof's own single-file
 * my.cnf, last one wins, names with dashes or underscores. The file is ours and
 * has no includes, so a line scan is exact here; it is not a general reader.
 */
export function readMysqldOptions(file: string): Record<string, string> {
  const options: Record<string, string> = {};
  let inMysqld = false;
  for (const line of fs.readFileSync(file, 'utf8').split(/\r?\n/)) {
    const group = /^\s*\[\s*([^\]]+?)\s*\]/.exec(line);
    if (group) {
      inMysqld = (group[1] ?? '').toLowerCase() === 'mysqld';
      continue;
    }
    const option = /^\s*([A-Za-z][\w-]*)\s*(?:=\s*(\S+))?\s*$/.exec(line);
    const name = option?.[1]?.replace(/-/g, '_').toLowerCase();
    if (inMysqld && name !== undefined && REPORTED_OPTIONS.has(name)) options[name] = option?.[2] ?? 'ON';
  }
  return options;
}
