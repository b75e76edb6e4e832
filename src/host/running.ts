import { listProcesses, type ProcessInfo, type ProcReader } from './proc.js';
import { DATABASE_ACCOUNTS, impostorNote, splitByOwner, trustedUsers } from './trust.js';

/*
 * The server processes of this host that tune-lint believes: found by name,
 * kept by owner (trust.ts). The probe measures them and the live mode asks
 * them; both go through here, so neither ever takes a local user's program
 * called `mariadbd` or `apache2` for the server.
 */

const APACHE_NAMES = /^(apache2|httpd)([.-](prefork|worker|event|itk))?$/;
const MYSQL_NAMES = new Set(['mysqld', 'mariadbd']);
/** php-fpm's master is `php-fpm8.2` (Debian) or `php-fpm` (RHEL); its children, the pools' workers, carry the same name. */
const PHP_FPM_NAMES = /^php-fpm(\d+(\.\d+)?)?$/;

/** A server's processes: the parents (trusted), their children, and a note on look-alikes left out. */
export interface ServerProcesses {
  readonly parents: readonly ProcessInfo[];
  readonly children: readonly ProcessInfo[];
  readonly impostorNote: string | undefined;
}

/**
 * A process tree of one server: parents are processes of the name whose
 * parent is not; they must run as root or as the user tune-lint runs as (a
 * parent that binds port 80 and switches users is root). Children are taken
 * only from a trusted parent, whatever user they switched to (Apache's
 * `User`, a pool's `user`).
 */
function serverTree(
  reader: ProcReader,
  processes: readonly ProcessInfo[],
  named: (name: string) => boolean,
  server: string,
): ServerProcesses {
  const all = processes.filter((entry) => named(entry.name));
  const pids = new Set(all.map((entry) => entry.pid));
  const { trusted, impostors } = splitByOwner(
    reader,
    all.filter((entry) => !pids.has(entry.ppid)),
    trustedUsers(reader),
  );
  const parentPids = new Set(trusted.map((entry) => entry.pid));
  return {
    parents: trusted,
    children: all.filter((entry) => parentPids.has(entry.ppid)),
    impostorNote: impostorNote(reader, impostors, server, 'root or this user'),
  };
}

export function apacheProcesses(reader: ProcReader, processes: readonly ProcessInfo[]): ServerProcesses {
  return serverTree(reader, processes, (name) => APACHE_NAMES.test(name), 'Apache server');
}

export function phpFpmProcesses(reader: ProcReader, processes: readonly ProcessInfo[]): ServerProcesses {
  return serverTree(reader, processes, (name) => PHP_FPM_NAMES.test(name), 'php-fpm master');
}

/**
 * The database servers: processes named `mysqld` or `mariadbd` that serve
 * (not a `--help --verbose` or `--version` run) and run as root, as the user
 * tune-lint runs as, or as the `mysql` account.
 */
export function databaseProcesses(reader: ProcReader, processes: readonly ProcessInfo[]): ServerProcesses {
  const serving = processes.filter((entry) => MYSQL_NAMES.has(entry.name) && !isOneShotInvocation(reader, entry.pid));
  const { trusted, impostors } = splitByOwner(reader, serving, trustedUsers(reader, DATABASE_ACCOUNTS));
  return { parents: trusted, children: [], impostorNote: impostorNote(reader, impostors, 'database server', 'root, this user or mysql') };
}

/** The trusted database servers of this machine now, for the live mode, which asks them after the probe. */
export function runningDatabases(reader: ProcReader): ServerProcesses | undefined {
  const processes = listProcesses(reader);
  return processes === undefined ? undefined : databaseProcesses(reader, processes);
}

/** The trusted Apache parents of this machine now, for the live mode. */
export function runningApaches(reader: ProcReader): ServerProcesses | undefined {
  const processes = listProcesses(reader);
  return processes === undefined ? undefined : apacheProcesses(reader, processes);
}

/** Arguments that make the server print and exit instead of serving. */
const ONE_SHOT_ARGUMENTS = new Set(['--help', '-?', '--version', '-V', '--print-defaults']);

function isOneShotInvocation(reader: ProcReader, pid: number): boolean {
  const cmdline = reader.read(`/proc/${pid}/cmdline`);
  return cmdline.ok && cmdline.text.split('\0').some((argument) => ONE_SHOT_ARGUMENTS.has(argument));
}
