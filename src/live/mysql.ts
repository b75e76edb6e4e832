import type { Fact, MysqlLive } from '../host/facts.js';
import { parseDatabaseVersion } from '../host/servers.js';
import type { MysqlAccount, ServerSocket } from './mysql-client.js';
import { errorLogPath, readErrorLog } from './mysql-log.js';
import { firstLine, readAccounts, readTables, type TablesRead } from './mysql-objects.js';

/** Connecting, and each statement: a server that accepts and never answers costs the lint at most this. */
const STATEMENT_TIMEOUT_MS = 2_000;
/** information_schema opens every table on MariaDB: the default time all schemas' tables may take to read (--live-read-time). */
export const TABLES_READ_TIME_MS = 5_000;

type Connection = import('mysql2/promise').Connection;

/**
 * Reads the running server over its own socket: version, SHOW GLOBAL
 * VARIABLES, SHOW GLOBAL STATUS, the tables schema by schema within
 * `tablesReadMs`, the accounts, and its error log's tail. Only SHOW and
 * SELECT are sent, and nothing is changed. Never throws: whatever cannot be read is a note, and the
 * lint goes on without it. mysql2 is loaded here, only when a server is asked.
 */
export async function askMysql(
  account: MysqlAccount,
  socket: ServerSocket,
  tablesReadMs: number,
  notes: string[],
): Promise<Fact<MysqlLive> | undefined> {
  const where = `${socket.path} as ${account.user}`;
  let connection: Connection | undefined;
  try {
    const [{ createConnection }, { authPlugins }] = await Promise.all([import('mysql2/promise'), import('mysql2')]);
    connection = await createConnection({
      socketPath: socket.path,
      user: account.user,
      ...(account.password === undefined ? {} : { password: account.password }),
      authPlugins: passwordOnlyToTheServer(authPlugins),
      connectTimeout: STATEMENT_TIMEOUT_MS,
      // Values as the server prints them: sizes above 2^53 and decimals stay exact.
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
    });
    const variables = await nameValueRows(connection, 'SHOW GLOBAL VARIABLES');
    const status = await nameValueRows(connection, 'SHOW GLOBAL STATUS');
    const version = parseDatabaseVersion(`Ver ${variables.version ?? ''} ${variables.version_comment ?? ''}`);
    if (version === undefined) {
      notes.push(`MySQL/MariaDB at ${where}: no version in SHOW GLOBAL VARIABLES; its figures were not used`);
      return undefined;
    }
    const read = await tablesOf(connection, version.product, tablesReadMs, notes);
    const accounts = await readAccounts(connection, STATEMENT_TIMEOUT_MS, notes);
    const logFile = errorLogPath(variables);
    if (logFile === undefined)
      notes.push('MySQL/MariaDB error log not read: the server writes it to its standard error or syslog (journalctl has it)');
    const errorLog = logFile === undefined ? undefined : await readErrorLog(logFile, socket.pid, notes);
    const live: MysqlLive = {
      server: `${version.product}=${version.version}`,
      uptime: Number(status.uptime ?? 0),
      variables,
      status,
      ...(read?.engines === undefined ? {} : { engines: read.engines }),
      ...(read === undefined ? {} : { tables: read.tables }),
      ...(accounts === undefined ? {} : { accounts }),
      ...(errorLog === undefined ? {} : { errorLog }),
    };
    return { value: live, source: `live (${variables.version ?? version.version} via ${where}; account from ${account.source})` };
  } catch (error) {
    notes.push(`MySQL/MariaDB at ${where} not asked: ${firstLine(error)}`);
    return undefined;
  } finally {
    connection?.destroy();
  }
}

type AuthPlugins = (typeof import('mysql2'))['authPlugins'];
type AuthPlugin = NonNullable<import('mysql2').ConnectionOptions['authPlugins']>[string];

/**
 * The authentication plugins. The password goes only to the socket a
 * trusted server holds (mysql-client.ts checked it): caching_sha2_password's
 * full authentication sends it there as MySQL's own client does, since
 * MySQL takes a unix socket for a secure channel and refuses the RSA
 * exchange on one (MySQL 9.7 answers it "Access denied":
 * test/oracle/mysql9-oracle.test.ts). sha256_password encrypts it with the
 * server's RSA key. mysql_clear_password, the plugin that hands it to PAM
 * or LDAP, is refused outright.
 */
function passwordOnlyToTheServer(plugins: AuthPlugins): Record<string, AuthPlugin> {
  return {
    caching_sha2_password: plugins.caching_sha2_password({}),
    sha256_password: plugins.sha256_password({}),
    mysql_clear_password: () => () => {
      throw new Error('the server asked for the password in clear text (mysql_clear_password), which tune-lint never sends');
    },
  };
}

async function nameValueRows(connection: Connection, sql: string): Promise<Record<string, string>> {
  const [rows] = await connection.query({ sql, timeout: STATEMENT_TIMEOUT_MS, rowsAsArray: true });
  const values: Record<string, string> = {};
  for (const row of rows as unknown as (string | number | null)[][]) {
    const [name, value] = row;
    values[String(name).toLowerCase()] = value === null || value === undefined ? '' : String(value);
  }
  return values;
}

/** The tables, when the account sees them all: information_schema shows an account only the tables it may use, and sizes read so would say "no MyISAM" of a server full of it. */
async function tablesOf(
  connection: Connection,
  product: 'mariadb' | 'mysql',
  budgetMs: number,
  notes: string[],
): Promise<TablesRead | undefined> {
  if (!(await seesEveryTable(connection))) {
    notes.push('tables not read: the account has no SELECT on *.*, so information_schema shows only its own tables');
    return undefined;
  }
  try {
    return await readTables(connection, product, budgetMs, notes);
  } catch (error) {
    notes.push(`tables not read: ${firstLine(error)}`);
    return undefined;
  }
}

/** Whether the account's grants cover every table: ALL PRIVILEGES or SELECT on *.*. */
async function seesEveryTable(connection: Connection): Promise<boolean> {
  try {
    const [rows] = await connection.query({ sql: 'SHOW GRANTS', timeout: STATEMENT_TIMEOUT_MS, rowsAsArray: true });
    return (rows as unknown as unknown[][]).some((row) =>
      /^GRANT (ALL PRIVILEGES|[^`]*\bSELECT\b[^`]*) ON \*\.\* TO/i.test(String(row[0])),
    );
  } catch {
    return false;
  }
}
