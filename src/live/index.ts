import type { HostFacts } from '../host/facts.js';
import type { ApacheConfig } from '../languages/apache/model.js';
import type { MycnfConfig } from '../languages/mycnf/model.js';
import type { DatabaseTarget } from '../core/targets.js';
import { askApache } from './apache.js';
import { askMysql } from './mysql.js';
import { mysqlLogin } from './mysql-client.js';

export interface LiveOptions {
  /** `--mysql-defaults-file`: the only option file the login is read from (Debian's debian.cnf, say). */
  readonly mysqlDefaultsFile?: string;
}

/**
 * Asks the servers the probe saw running, read-only, over local sockets and
 * loopback: the database server's variables, counters and data sizes, and
 * Apache's status page and error log. A fact a profile or config already
 * gives is not asked again. Never throws; what could not be read is a note.
 */
export async function askServers(
  host: HostFacts,
  configs: { readonly apache: readonly ApacheConfig[]; readonly mycnf: MycnfConfig | undefined },
  target: DatabaseTarget,
  options: LiveOptions,
): Promise<HostFacts> {
  const notes: string[] = [];
  const asked: { -readonly [K in keyof HostFacts]: HostFacts[K] } = {};
  const tasks: Promise<void>[] = [];
  if (host.mysqlLive === undefined && (host.mysqlRunning?.value === true || options.mysqlDefaultsFile !== undefined)) {
    const login = mysqlLogin(configs.mycnf, target, options.mysqlDefaultsFile);
    tasks.push(
      askMysql(login, notes).then((fact) => {
        if (fact !== undefined) asked.mysqlLive = fact;
      }),
    );
  }
  const apache = configs.apache[0];
  if (host.apacheLive === undefined && host.apacheRunning?.value === true && apache !== undefined) {
    tasks.push(
      askApache(apache, notes).then((fact) => {
        if (fact !== undefined) asked.apacheLive = fact;
      }),
    );
  }
  await Promise.all(tasks);
  return notes.length > 0 ? { ...asked, notes } : asked;
}
