import type { EngineUse, Fact, MysqlLive } from '../host/facts.js';
import { parseDatabaseVersion } from '../host/servers.js';
import type { MysqlAccount, ServerSocket } from './mysql-client.js';

/** Connecting, and each statement: a server that accepts and never answers costs the lint at most this. */
const STATEMENT_TIMEOUT_MS = 2_000;
/** information_schema.TABLES opens tables on MariaDB; with tens of thousands of them the sizes are skipped rather than waited for. */
const TABLE_SIZES_TIMEOUT_MS = 500;
/** Schemas of the server itself, not the application's data. */
const SYSTEM_SCHEMAS = ['mysql', 'information_schema', 'performance_schema', 'sys'];

type Connection = import('mysql2/promise').Connection;
type Row = Record<string, unknown>;

/**
 * Reads the running server over its own socket: version, SHOW GLOBAL
 * VARIABLES, SHOW GLOBAL STATUS and the data size per engine. Only SHOW and
 * SELECT are sent. Never throws: whatever cannot be read is a note, and the
 * lint goes on without it. mysql2 is loaded here, only when a server is asked.
 */
export async function askMysql(account: MysqlAccount, socket: ServerSocket, notes: string[]): Promise<Fact<MysqlLive> | undefined> {
  const where = `${socket.path} as ${account.user}`;
  let connection: Connection | undefined;
  try {
    const [{ createConnection }, { authPlugins }] = await Promise.all([import('mysql2/promise'), import('mysql2')]);
    connection = await createConnection({
      socketPath: socket.path,
      user: account.user,
      ...(account.password === undefined ? {} : { password: account.password }),
      authPlugins: passwordNeverInClear(authPlugins),
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
    const engines = await engineSizes(connection, version.product, notes);
    const live: MysqlLive = {
      server: `${version.product}=${version.version}`,
      uptime: Number(status.uptime ?? 0),
      variables,
      status,
      ...(engines === undefined ? {} : { engines }),
    };
    return { value: live, source: `live (${variables.version ?? version.version} via ${where}; account from ${account.source})` };
  } catch (error) {
    notes.push(`MySQL/MariaDB at ${where} not asked: ${reason(error)}`);
    return undefined;
  } finally {
    connection?.destroy();
  }
}

type AuthPlugins = (typeof import('mysql2'))['authPlugins'];
type AuthPlugin = NonNullable<import('mysql2').ConnectionOptions['authPlugins']>[string];

/**
 * The authentication plugins, set so that no password ever crosses the
 * socket in clear. mysql2 answers caching_sha2_password's full
 * authentication, and sha256_password, with the bare password on any unix
 * socket, taking the socket for a secure channel; here both encrypt it with
 * the server's RSA key instead (asked of the server, as the `mysql` client
 * does with --get-server-public-key). Naming them also keeps mysql2 from
 * putting a clear password in its first answer when the server asks for
 * them by default. mysql_clear_password is refused outright.
 */
function passwordNeverInClear(plugins: AuthPlugins): Record<string, AuthPlugin> {
  return {
    caching_sha2_password: plugins.caching_sha2_password({ overrideIsSecure: false }),
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

/**
 * Tables, data and index bytes per engine. The server is told to give up
 * after half a second (MariaDB's max_statement_time, MySQL's
 * MAX_EXECUTION_TIME) and the client waits no longer either; a skipped
 * query is a note, not a stalled lint.
 */
async function engineSizes(connection: Connection, product: 'mariadb' | 'mysql', notes: string[]): Promise<EngineUse[] | undefined> {
  // information_schema shows an account only the tables it may use: sizes read so would say "no MyISAM" of a server full of it.
  if (!(await seesEveryTable(connection))) {
    notes.push('data size per engine not used: the account has no SELECT on *.*, so information_schema.TABLES shows only its own tables');
    return undefined;
  }
  const select =
    `SELECT ENGINE AS engine, COUNT(*) AS tables, COALESCE(SUM(DATA_LENGTH), 0) AS data, COALESCE(SUM(INDEX_LENGTH), 0) AS ` +
    `indexes FROM information_schema.TABLES WHERE TABLE_TYPE = 'BASE TABLE' AND TABLE_SCHEMA NOT IN (${SYSTEM_SCHEMAS.map((name) => `'${name}'`).join(', ')}) GROUP BY ENGINE`;
  const seconds = TABLE_SIZES_TIMEOUT_MS / 1000;
  const sql =
    product === 'mariadb'
      ? `SET STATEMENT max_statement_time = ${seconds} FOR ${select}`
      : select.replace(/^SELECT/, `SELECT /*+ MAX_EXECUTION_TIME(${TABLE_SIZES_TIMEOUT_MS}) */`);
  try {
    const [rows] = await connection.query({ sql, timeout: TABLE_SIZES_TIMEOUT_MS + 250 });
    return (rows as Row[])
      .filter((row) => row.engine !== null)
      .map((row) => ({
        engine: String(row.engine),
        tables: Number(row.tables),
        dataBytes: Number(row.data),
        indexBytes: Number(row.indexes),
      }));
  } catch (error) {
    notes.push(`data size per engine skipped: information_schema.TABLES did not answer within ${seconds} s (${reason(error)})`);
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

function reason(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    const text = typeof message === 'string' ? message.split('\n')[0] : undefined;
    if (text !== undefined && text !== '') return text;
    if (typeof code === 'string') return code;
  }
  return String(error);
}
