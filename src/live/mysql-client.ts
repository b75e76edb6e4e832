import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigFileSystem } from '../core/file-system.js';
import type { DatabaseTarget } from '../core/targets.js';
import { groupKey } from '../languages/mycnf/groups.js';
import { loadMycnf, type MycnfConfig } from '../languages/mycnf/model.js';

/** How to reach the local server, and where each part came from. The password is never shown. */
export interface MysqlLogin {
  readonly socket: string | undefined;
  readonly user: string;
  readonly password: string | undefined;
  /** Where the socket and the account were found: `/etc/mysql/debian.cnf [client]`, `default`. */
  readonly socketSource: string;
  readonly userSource: string;
}

/** The groups the `mysql` command-line client reads, MySQL's and MariaDB's: later ones win within a file. */
const CLIENT_GROUPS = new Set(['client', 'client-server', 'client-mariadb', 'mysql'].map(groupKey));

/** Where the distributions put the server's socket when no file says: Debian/Ubuntu, then RHEL/Fedora, then the compiled-in default. */
const DEFAULT_SOCKETS = ['/run/mysqld/mysqld.sock', '/var/run/mysqld/mysqld.sock', '/var/lib/mysql/mysql.sock', '/tmp/mysql.sock'];

interface ClientValues {
  socket?: { value: string; source: string };
  user?: { value: string; source: string };
  password?: string;
}

/**
 * The login the `mysql` client would use on this host: `[client]` and
 * `[mysql]` of the option files linted, then `~/.my.cnf`; or only the file
 * given with `--mysql-defaults-file` (as `--defaults-file` replaces the
 * search). The socket falls back to the server's own `socket` option, then to
 * the distributions' paths that exist; the user to the login name, as the
 * client does, which lets root in by `unix_socket` on stock Debian/Ubuntu.
 */
export function mysqlLogin(linted: MycnfConfig | undefined, target: DatabaseTarget, defaultsFile: string | undefined): MysqlLogin {
  const values: ClientValues = {};
  const files = defaultsFile === undefined ? [linted, homeOptionFile(target)] : [readOptionFile(defaultsFile, target)];
  for (const config of files) if (config !== undefined) takeClientValues(config, values);
  const serverSocket = linted?.effective('socket');
  const socket =
    values.socket ??
    (serverSocket?.value === undefined
      ? undefined
      : { value: serverSocket.value, source: `${serverSocket.file.displayPath} [${serverSocket.group}]` }) ??
    defaultSocket();
  const user = values.user ?? { value: loginName(), source: 'login name' };
  return {
    socket: socket?.value,
    socketSource: socket?.source ?? 'none found',
    user: user.value,
    userSource: user.source,
    password: values.password,
  };
}

function takeClientValues(config: MycnfConfig, values: ClientValues): void {
  for (const use of config.otherOptions) {
    if (!CLIENT_GROUPS.has(groupKey(use.group)) || use.value === undefined) continue;
    const source = `${use.file.displayPath} [${use.group}]`;
    const value = use.value;
    if (use.name.key === 'socket') values.socket = { value, source };
    else if (use.name.key === 'user') values.user = { value, source };
    else if (use.name.key === 'password') values.password = value;
  }
}

function homeOptionFile(target: DatabaseTarget): MycnfConfig | undefined {
  const home = os.homedir();
  const file = path.join(home, '.my.cnf');
  return fs.existsSync(file) ? readOptionFile(file, target) : undefined;
}

function readOptionFile(file: string, target: DatabaseTarget): MycnfConfig {
  return loadMycnf(path.resolve(file), { fs: new ConfigFileSystem({ cwd: process.cwd() }), target });
}

function defaultSocket(): { value: string; source: string } | undefined {
  const found = DEFAULT_SOCKETS.find((candidate) => {
    try {
      return fs.statSync(candidate).isSocket();
    } catch {
      return false;
    }
  });
  return found === undefined ? undefined : { value: found, source: 'the distribution default' };
}

function loginName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return 'root';
  }
}
