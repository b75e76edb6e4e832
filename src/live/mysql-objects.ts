import { createHash } from 'node:crypto';
import type { EngineUse, LiveAccount, LiveTables, TableNames } from '../host/facts.js';

type Connection = import('mysql2/promise').Connection;
type Row = Record<string, unknown>;
type Product = 'mariadb' | 'mysql';

/** Schemas of the server itself, not the application's data; `mysql` is still counted, its tables fill the definition cache too. */
const SERVER_SCHEMAS = new Set(['information_schema', 'performance_schema', 'sys']);
/** How many names a list of tables keeps: the report names some, the count says how many. */
const LIVE_TABLE_NAMES = 50;
/** A statement given less than this is not sent: it could not finish. */
const LEAST_STATEMENT_MS = 50;

/**
 * Passwords every scanner tries first (MySQLTuner's dictionary starts the
 * same way). Compared as mysql_native_password hashes, here: the hash never
 * leaves the reader and no password is sent to the server to try it.
 */
const COMMON_PASSWORDS = [
  'password',
  'Password',
  'passw0rd',
  'P@ssw0rd',
  '123456',
  '12345678',
  '123456789',
  '1234',
  '12345',
  'qwerty',
  'abc123',
  'letmein',
  'welcome',
  'secret',
  'changeme',
  'admin',
  'root',
  'toor',
  'mysql',
  'mariadb',
  'test',
  'guest',
  'default',
  'pass',
];

/** `*` and the upper-case SHA1 of the SHA1: what mysql_native_password stores for a password. */
function nativeHash(password: string): string {
  const inner = createHash('sha1').update(password, 'utf8').digest();
  return `*${createHash('sha1').update(inner).digest('hex').toUpperCase()}`;
}

function isCommonPassword(user: string, hash: string): boolean {
  if (!/^\*[0-9A-F]{40}$/i.test(hash)) return false;
  const wanted = hash.toUpperCase();
  return [...COMMON_PASSWORDS, user, `${user}1`, `${user}123`].some((password) => nativeHash(password) === wanted);
}

/** A column read as text: NULL as empty. */
function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** The plugins whose stored string is a password hash; with an empty one, an empty password logs in. */
const PASSWORD_PLUGINS = new Set(['', 'mysql_native_password', 'caching_sha2_password', 'sha256_password', 'mysql_old_password']);

interface AuthMethod {
  readonly plugin: string;
  readonly secret: string;
}

function account(user: string, host: string, methods: readonly AuthMethod[], locked: boolean): LiveAccount {
  return {
    user,
    host,
    plugin: [...new Set(methods.map((method) => method.plugin || 'mysql_native_password'))].join(' or '),
    passwordless: methods.some((method) => PASSWORD_PLUGINS.has(method.plugin) && method.secret === ''),
    commonPassword: methods.some((method) => method.plugin !== 'mysql_old_password' && isCommonPassword(user, method.secret)),
    locked,
  };
}

/** MariaDB 10.4 and later: one JSON document per account, alternatives in `auth_or` (`{}` stands for the main method). */
export function globalPrivAccount(row: Row): LiveAccount | undefined {
  // mysql2 parses a JSON column itself; MariaDB declares Priv LONGTEXT with a JSON check, which arrives as text.
  const priv = (typeof row.Priv === 'string' ? JSON.parse(row.Priv) : (row.Priv ?? {})) as {
    plugin?: string;
    authentication_string?: string;
    account_locked?: boolean;
    is_role?: boolean;
    auth_or?: { plugin?: string; authentication_string?: string }[];
  };
  if (priv.is_role === true) return undefined;
  const main: AuthMethod = { plugin: priv.plugin ?? '', secret: priv.authentication_string ?? '' };
  const methods =
    priv.auth_or === undefined
      ? [main]
      : priv.auth_or.map((entry) =>
          entry.plugin === undefined ? main : { plugin: entry.plugin, secret: entry.authentication_string ?? '' },
        );
  return account(String(row.User), String(row.Host), methods, priv.account_locked === true);
}

/**
 * The accounts, read-only: mysql.global_priv (MariaDB 10.4+), else
 * mysql.user (MySQL 5.7+, older MariaDB). Needs SELECT on the mysql schema;
 * without it, a note. Hashes are compared here and dropped.
 */
export async function readAccounts(connection: Connection, timeoutMs: number, notes: string[]): Promise<LiveAccount[] | undefined> {
  try {
    const [rows] = await connection.query({ sql: 'SELECT User, Host, Priv FROM mysql.global_priv', timeout: timeoutMs });
    return (rows as Row[]).map(globalPrivAccount).filter((entry) => entry !== undefined);
  } catch (error) {
    if ((error as { code?: string }).code !== 'ER_NO_SUCH_TABLE') {
      notes.push(`accounts not read: ${firstLine(error)}`);
      return undefined;
    }
  }
  try {
    const [rows] = await connection.query({
      sql: 'SELECT User, Host, plugin, authentication_string, account_locked FROM mysql.user',
      timeout: timeoutMs,
    });
    return (rows as Row[]).map((row) =>
      account(
        String(row.User),
        String(row.Host),
        [{ plugin: text(row.plugin), secret: text(row.authentication_string) }],
        String(row.account_locked) === 'Y',
      ),
    );
  } catch (error) {
    notes.push(`accounts not read: ${firstLine(error)}`);
    return undefined;
  }
}

/** The server's own time limit on one SELECT (MariaDB's max_statement_time, MySQL's MAX_EXECUTION_TIME). */
function limited(select: string, product: Product, milliseconds: number): string {
  return product === 'mariadb'
    ? `SET STATEMENT max_statement_time = ${milliseconds / 1000} FOR ${select}`
    : select.replace(/^SELECT/, `SELECT /*+ MAX_EXECUTION_TIME(${milliseconds}) */`);
}

class NameList {
  count = 0;
  readonly names: string[] = [];
  add(name: string): void {
    this.count++;
    if (this.names.length < LIVE_TABLE_NAMES) this.names.push(name);
  }
  done(): TableNames {
    return { count: this.count, names: this.names };
  }
}

export interface TablesRead {
  readonly tables: LiveTables;
  /** Per engine, of the application's schemas; only when every schema was read (a partial sum would say "no MyISAM" of one that has). */
  readonly engines?: EngineUse[];
}

/**
 * The tables schema by schema: two bounded statements each (the tables with
 * engine and sizes, then which have a primary key), each told by the server
 * to stop at what is left of `budgetMs`, so that a server with thousands of
 * tables gives what it can in the time and the rest is named as unread.
 */
export async function readTables(connection: Connection, product: Product, budgetMs: number, notes: string[]): Promise<TablesRead> {
  const deadline = Date.now() + budgetMs;
  const [schemaRows] = await connection.query({
    sql: 'SHOW DATABASES',
    timeout: Math.max(budgetMs, LEAST_STATEMENT_MS),
    rowsAsArray: true,
  });
  const schemas = (schemaRows as unknown as unknown[][]).map((row) => String(row[0])).filter((name) => !SERVER_SCHEMAS.has(name));
  // The application's schemas first, the server's own last: when time runs out, what is left unread matters least.
  schemas.sort((a, b) => Number(a === 'mysql') - Number(b === 'mysql') || (a < b ? -1 : 1));
  const myisam = new NameList();
  const withoutPrimaryKey = new NameList();
  const engines = new Map<string, EngineUse>();
  const unread: string[] = [];
  let total = 0;
  for (const schema of schemas) {
    const read = await readSchema(connection, product, schema, deadline);
    if (read === undefined) {
      unread.push(schema);
      continue;
    }
    total += read.length;
    if (schema === 'mysql') continue;
    for (const table of read) {
      const name = `${schema}.${table.name}`;
      if (table.engine === 'MyISAM') myisam.add(name);
      if (table.engine === 'InnoDB' && !table.primaryKey) withoutPrimaryKey.add(name);
      const sum = engines.get(table.engine) ?? { engine: table.engine, tables: 0, dataBytes: 0, indexBytes: 0 };
      engines.set(table.engine, {
        engine: table.engine,
        tables: sum.tables + 1,
        dataBytes: sum.dataBytes + table.dataBytes,
        indexBytes: sum.indexBytes + table.indexBytes,
      });
    }
  }
  if (unread.length > 0) {
    notes.push(
      `tables of ${unread.length === 1 ? 'schema' : `${unread.length} schemas:`} ${unread.join(', ')} not read within ${budgetMs / 1000} s (--live-read-time): ` +
        'the table count, the lists of tables and the data size per engine leave them out',
    );
  }
  const tables: LiveTables = { total, myisam: myisam.done(), withoutPrimaryKey: withoutPrimaryKey.done(), unread };
  return unread.length === 0 ? { tables, engines: [...engines.values()] } : { tables };
}

interface TableRow {
  readonly name: string;
  readonly engine: string;
  readonly dataBytes: number;
  readonly indexBytes: number;
  readonly primaryKey: boolean;
}

async function readSchema(connection: Connection, product: Product, schema: string, deadline: number): Promise<TableRow[] | undefined> {
  const ask = async (select: string): Promise<Row[] | undefined> => {
    const left = deadline - Date.now();
    if (left < LEAST_STATEMENT_MS) return undefined;
    try {
      const [rows] = await connection.query({ sql: limited(select, product, Math.ceil(left)), values: [schema], timeout: left + 250 });
      return rows as Row[];
    } catch {
      return undefined;
    }
  };
  const tables = await ask(
    'SELECT TABLE_NAME AS name, ENGINE AS engine, COALESCE(DATA_LENGTH, 0) AS data, COALESCE(INDEX_LENGTH, 0) AS indexes ' +
      "FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE'",
  );
  if (tables === undefined) return undefined;
  const keys = await ask(
    "SELECT DISTINCT TABLE_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND INDEX_NAME = 'PRIMARY'",
  );
  if (keys === undefined) return undefined;
  const withKey = new Set(keys.map((row) => String(row.name)));
  return tables
    .filter((row) => row.engine !== null)
    .map((row) => ({
      name: String(row.name),
      engine: String(row.engine),
      dataBytes: Number(row.data),
      indexBytes: Number(row.indexes),
      primaryKey: withKey.has(String(row.name)),
    }));
}

export function firstLine(error: unknown): string {
  if (typeof error === 'object' && error !== null) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    const text = typeof message === 'string' ? message.split('\n')[0] : undefined;
    if (text !== undefined && text !== '') return text;
    if (typeof code === 'string') return code;
  }
  return String(error);
}
