import type { HostFacts } from '../host/facts.js';
import { ProcReader } from '../host/proc.js';
import { runningApaches, runningDatabases } from '../host/running.js';
import type { ConfigSet } from '../core/language.js';
import type { MycnfConfig } from '../languages/mycnf/model.js';
import type { DatabaseTarget } from '../core/targets.js';
import { askApache } from './apache.js';
import { askMysql, TABLES_READ_TIME_MS } from './mysql.js';
import { mysqlAccount, serverSocket } from './mysql-client.js';

export interface LiveOptions {
  /** `--mysql-defaults-file`: the only option file the account is read from (Debian's debian.cnf, say). */
  readonly mysqlDefaultsFile?: string;
  /** How long the database's tables may take to read, schema by schema (--live-read-time). */
  readonly tablesReadMs?: number;
  /** Where /proc is read from; tests point it elsewhere. */
  readonly procRoot?: string;
}

/**
 * Asks the servers this machine runs, read-only, over the sockets and the
 * loopback ports those very processes listen on: the database server's
 * variables, counters and data sizes, and Apache's status page and error
 * log. Only processes of root, of this user or of the server's own account
 * are asked (host/running.ts). A fact a profile or config already gives is
 * not asked again. Never throws; what could not be read is a note.
 */
export async function askServers(host: HostFacts, configs: ConfigSet, target: DatabaseTarget, options: LiveOptions): Promise<HostFacts> {
  const reader = new ProcReader(options.procRoot ?? '/');
  const notes: string[] = [];
  const asked: { -readonly [K in keyof HostFacts]: HostFacts[K] } = {};
  const tasks: Promise<void>[] = [];
  if (host.mysqlLive === undefined && (host.mysqlRunning?.value === true || options.mysqlDefaultsFile !== undefined)) {
    tasks.push(
      askDatabase(reader, configs.first('mycnf'), target, options, notes).then((fact) => {
        if (fact !== undefined) asked.mysqlLive = fact;
      }),
    );
  }
  const apache = configs.first('apache');
  if (host.apacheLive === undefined && host.apacheRunning?.value === true && apache !== undefined) {
    const running = runningApaches(reader);
    tasks.push(
      askApache(apache, reader, running?.parents ?? [], notes).then((fact) => {
        if (fact !== undefined) asked.apacheLive = fact;
      }),
    );
  }
  await Promise.all(tasks);
  return notes.length > 0 ? { ...asked, notes } : asked;
}

async function askDatabase(
  reader: ProcReader,
  linted: MycnfConfig | undefined,
  target: DatabaseTarget,
  options: LiveOptions,
  notes: string[],
): ReturnType<typeof askMysql> {
  const servers = runningDatabases(reader);
  if (servers === undefined || servers.parents.length === 0) {
    notes.push(
      `MySQL/MariaDB not asked: no mysqld or mariadbd of root, this user or mysql runs here${servers?.impostorNote === undefined ? '' : ` (${servers.impostorNote})`}`,
    );
    return undefined;
  }
  const account = mysqlAccount(options.mysqlDefaultsFile, target);
  if (typeof account === 'string') {
    notes.push(`MySQL/MariaDB not asked: ${account}`);
    return undefined;
  }
  // The linted files may name the socket of the instance they configure; that only picks among the servers' own sockets.
  const socket = serverSocket(reader, servers.parents, account, linted?.effective('socket')?.value);
  if (typeof socket === 'string') {
    notes.push(`MySQL/MariaDB not asked: ${socket}`);
    return undefined;
  }
  return askMysql(account, socket, options.tablesReadMs ?? TABLES_READ_TIME_MS, notes);
}
