import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigFileSystem } from '../core/file-system.js';
import type { DatabaseTarget } from '../core/targets.js';
import type { ProcReader } from '../host/proc.js';
import { processOwner } from '../host/trust.js';
import { socketInodes, unixListeners } from '../host/sockets.js';
import { groupKey } from '../languages/mycnf/groups.js';
import { loadMycnf, type MycnfConfig } from '../languages/mycnf/model.js';

/*
 * Where the live mode's login comes from and where it may go. The account
 * (user, password) is read from one file the user running tune-lint chose:
 * `--mysql-defaults-file`, else their own `~/.my.cnf`; never from the files
 * being linted, which may be a repository's or a tree's that includes
 * anything. The socket is always one the running server itself listens on,
 * found from /proc; a socket a file names is used only when it is that one.
 */

/** The account to log in with, and where it came from. The password is never shown. */
export interface MysqlAccount {
  readonly user: string;
  readonly password: string | undefined;
  /** `socket=` of the account's file: the one of the servers' sockets to use; the account is for no other. */
  readonly socket: { readonly path: string; readonly source: string } | undefined;
  /** `/root/.my.cnf [client]`, `--mysql-defaults-file /etc/mysql/debian.cnf [client]`, `login name`. */
  readonly source: string;
}

/** The groups the `mysql` command-line client reads, MySQL's and MariaDB's: later ones win within a file. */
const CLIENT_GROUPS = new Set(['client', 'client-server', 'client-mariadb', 'mysql'].map(groupKey));

/** Hosts the `mysql` client reaches this machine's server on: the account is for the local server. */
const LOCAL_HOSTS = new Set(['', 'localhost', '127.0.0.1', '::1']);

/**
 * The account the `mysql` client would use here: the `[client]` groups of
 * `--mysql-defaults-file` (which replaces the search, as `--defaults-file`
 * does) or of `~/.my.cnf`, else the login name without a password, which lets
 * root in by `unix_socket` on a stock Debian or Ubuntu. A string says why no
 * local server is asked with it: the file names another host, or it is not a
 * file the user could have meant (someone else's, or world-writable).
 */
export function mysqlAccount(defaultsFile: string | undefined, target: DatabaseTarget): MysqlAccount | string {
  const file = defaultsFile ?? path.join(os.homedir(), '.my.cnf');
  const shown = defaultsFile === undefined ? file : `--mysql-defaults-file ${defaultsFile}`;
  if (defaultsFile === undefined && !fs.existsSync(file))
    return { user: loginName(), password: undefined, socket: undefined, source: 'login name' };
  const refused = untrustedOptionFile(file);
  if (refused !== undefined) return `${shown} not used: ${refused}`;
  const values = clientValues(readOptionFile(file, target));
  const host = values.get('host');
  if (host !== undefined && !LOCAL_HOSTS.has(host.value.toLowerCase())) {
    return `${host.source} names host ${host.value}: its account is for that server, not this machine's`;
  }
  const user = values.get('user');
  const password = values.get('password');
  const socket = values.get('socket');
  return {
    user: user?.value ?? loginName(),
    password: password?.value,
    socket: socket === undefined ? undefined : { path: socket.value, source: socket.source },
    source: user?.source ?? (password === undefined ? 'login name' : `login name, password from ${password.source}`),
  };
}

/**
 * Why an option file is not one the user running tune-lint chose, if it is
 * not: it must be theirs or root's and writable by no one else (the client
 * itself ignores a world-writable one).
 */
function untrustedOptionFile(file: string): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    return `cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (!stat.isFile()) return 'not a regular file';
  const own = process.geteuid?.();
  if (stat.uid !== 0 && stat.uid !== own) return `it belongs to uid ${stat.uid}, not to this user or root`;
  if ((stat.mode & 0o022) !== 0) return `others may write it (mode ${(stat.mode & 0o777).toString(8)})`;
  return undefined;
}

function clientValues(config: MycnfConfig): Map<string, { value: string; source: string }> {
  const values = new Map<string, { value: string; source: string }>();
  for (const use of config.otherOptions) {
    if (!CLIENT_GROUPS.has(groupKey(use.group)) || use.value === undefined) continue;
    // As the client reads its own options: not through the server's names, where `host` abbreviates host_cache_size.
    const name = use.name.normalised.replace(/^loose_/, '');
    if (['user', 'password', 'socket', 'host'].includes(name))
      values.set(name, { value: use.value, source: `${use.file.displayPath} [${use.group}]` });
  }
  return values;
}

function readOptionFile(file: string, target: DatabaseTarget): MycnfConfig {
  return loadMycnf(path.resolve(file), { fs: new ConfigFileSystem({ cwd: process.cwd() }), target });
}

function loginName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'root';
  }
}

/** A socket a running server listens on, checked to be its own. */
export interface ServerSocket {
  readonly path: string;
  readonly pid: number;
}

/**
 * The socket to log in over: one the running servers hold open as listening
 * sockets (their descriptors matched to /proc/net/unix by inode), whose file
 * belongs to the server's user or root, in directories no one else can
 * change (or sticky ones, like /tmp, where no one else can remove it). A
 * socket the account's file names must be one of them; else the one the
 * linted config names, else the first. A string says why there is none.
 */
export function serverSocket(
  reader: ProcReader,
  servers: readonly { readonly pid: number }[],
  account: MysqlAccount,
  linted: string | undefined,
): ServerSocket | string {
  const listeners = unixListeners(reader);
  const candidates: ServerSocket[] = [];
  const refusals: string[] = [];
  for (const { pid } of servers) {
    const owner = processOwner(reader, pid);
    const inodes = socketInodes(reader, pid);
    for (const listener of listeners) {
      if (!inodes.has(listener.inode) || !path.isAbsolute(listener.path)) continue;
      const refused = owner === undefined ? 'its owner cannot be read' : unsafeSocketFile(listener.path, owner.effective);
      if (refused === undefined) candidates.push({ path: listener.path, pid });
      else refusals.push(`${listener.path} (PID ${pid}): ${refused}`);
    }
  }
  if (candidates.length === 0) {
    return refusals.length > 0
      ? `no socket of the running server is safe to send a login to: ${refusals.join('; ')}`
      : `the running server (PID ${servers.map((server) => server.pid).join(', ')}) listens on no unix socket this user can see`;
  }
  if (account.socket !== undefined) {
    const wanted = account.socket;
    const named = candidates.find((candidate) => sameFile(candidate.path, wanted.path));
    if (named !== undefined) return named;
    return `the socket ${wanted.path} that ${wanted.source} names is not one a running server listens on (${candidates.map((candidate) => candidate.path).join(', ')})`;
  }
  return candidates.find((candidate) => linted !== undefined && sameFile(candidate.path, linted)) ?? (candidates[0] as ServerSocket);
}

/** Why a socket file is not safe to log in over, if it is not. */
function unsafeSocketFile(file: string, serverUid: number): string | undefined {
  let stat: fs.Stats;
  try {
    stat = fs.lstatSync(file);
  } catch (error) {
    return `cannot be seen (${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
  if (!stat.isSocket()) return 'not a socket';
  if (stat.uid !== serverUid && stat.uid !== 0) return `the file belongs to uid ${stat.uid}, not to the server's uid ${serverUid}`;
  for (let directory = path.dirname(file); ; directory = path.dirname(directory)) {
    let dir: fs.Stats;
    try {
      dir = fs.statSync(directory);
    } catch {
      return `${directory} cannot be seen`;
    }
    const sticky = (dir.mode & 0o1000) !== 0;
    if (dir.uid !== 0 && dir.uid !== serverUid) return `${directory} belongs to uid ${dir.uid}`;
    if ((dir.mode & 0o022) !== 0 && !sticky) return `others may replace it in ${directory} (mode ${(dir.mode & 0o777).toString(8)})`;
    if (directory === path.dirname(directory)) return undefined;
  }
}

function sameFile(a: string, b: string): boolean {
  try {
    const first = fs.statSync(a);
    const second = fs.statSync(b);
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return false;
  }
}
