import * as path from 'node:path';
import { SERVER_TOOL_PATH } from '../util/system-tools.js';
import { matchNear, searchRodata, type BinaryRead, type RodataSearch } from './binary-version.js';
import type { Fact } from './facts.js';
import type { ProcessInfo, ProcReader } from './proc.js';
import { isSystemFile } from './trust.js';

/** A database server's product and release. */
export interface DatabaseServer {
  readonly product: 'mariadb' | 'mysql';
  /** `10.11.19`, `8.0.36`. */
  readonly version: string;
}

/** Where distributions install the servers: RHEL's mysqld is in /usr/libexec. */
const SERVER_DIRECTORIES = [...SERVER_TOOL_PATH.split(':'), '/usr/libexec'];

/**
 * The version a server reports (`SELECT VERSION()` with `version_comment`, or
 * `mysqld --version`): the product is MariaDB when the text says so.
 */
export function parseDatabaseVersion(output: string): DatabaseServer | undefined {
  const match = /\bVer (\d+\.\d+\.\d+)(\S*)/.exec(output);
  if (match === null) return undefined;
  const product = /mariadb/i.test(match[2] ?? '') || /mariadb/i.test(output) ? 'mariadb' : 'mysql';
  return { product, version: match[1] as string };
}

/** httpd's AP_SERVER_BASEVERSION, `Apache/2.4.71`, the string `apache2 -v` prints. */
const findHttpdVersion: RodataSearch<string> = (chunk) => matchNear(chunk, 'Apache/', /Apache\/(\d+\.\d+\.\d+)/)?.[1];

/**
 * MariaDB's MYSQL_SERVER_VERSION is `10.11.19-MariaDB`. MySQL's is a bare
 * `9.7.4`, so its series comes first from MYSQL_BASE_VERSION, the option
 * group `mysqld-9.7` (which MariaDB has too, followed by its own
 * `mariadb-10.11`), and then the release from the first `9.7.N` string.
 */
function databaseVersionSearch(): RodataSearch<DatabaseServer> {
  let series: { readonly version: string; readonly mariadb: boolean } | undefined;
  return (chunk) => {
    const mariadb = matchNear(chunk, '-MariaDB', /(?:^|[^\d.])(\d+\.\d+\.\d+)-MariaDB/)?.[1];
    if (mariadb !== undefined) return { product: 'mariadb', version: mariadb };
    if (series === undefined) {
      const group = matchNear(chunk, '\0mysqld-', /\0mysqld-(\d+\.\d+)\0(mariadb-)?/, 0);
      if (group !== undefined) series = { version: group[1] as string, mariadb: group[2] !== undefined };
    }
    if (series === undefined || series.mariadb) return undefined;
    const escaped = series.version.replace('.', '\\.');
    const release = matchNear(chunk, `${series.version}.`, new RegExp(`(?:^|[^\\d.])(${escaped}\\.\\d+)(?!\\d)`), 1, 8)?.[1];
    return release === undefined ? undefined : { product: 'mysql', version: release };
  };
}

/** What the servers' binaries say: the facts, and a note for each binary whose version could not be read. */
export interface ServerVersions {
  readonly facts: { httpdVersion?: Fact<string>; databaseServer?: Fact<string> };
  readonly notes: readonly string[];
}

/**
 * The release of the httpd and the database server of this host, read from
 * the binary: the running process's (`/proc/PID/exe`, which is what serves,
 * even when an upgrade has replaced the file), else the installed one. The
 * processes given are the trusted ones only (trust.ts); an installed binary
 * counts only when root owns it and every directory above it. Nothing is run.
 */
export async function probeServerVersions(
  reader: ProcReader,
  running: { readonly apache: readonly ProcessInfo[]; readonly mysql: readonly ProcessInfo[] },
): Promise<ServerVersions> {
  const httpd = binaryOf(reader, running.apache, ['apache2', 'httpd']);
  const database = binaryOf(reader, running.mysql, ['mariadbd', 'mysqld']);
  const [httpdRead, databaseRead] = await Promise.all([
    httpd === undefined ? undefined : searchRodata(httpd.file, findHttpdVersion),
    database === undefined ? undefined : searchRodata(database.file, databaseVersionSearch()),
  ]);
  const facts: { httpdVersion?: Fact<string>; databaseServer?: Fact<string> } = {};
  const notes: string[] = [];
  const take = <T>(
    binary: { shown: string; file: string } | undefined,
    read: BinaryRead<T> | undefined,
    use: (value: T, source: string) => void,
  ) => {
    if (binary === undefined || read === undefined) return;
    if (read.found) use(read.value, `probe (version in ${binary.shown})`);
    else notes.push(`no version read from ${binary.shown}: ${read.why}`);
  };
  take(httpd, httpdRead, (value, source) => (facts.httpdVersion = { value, source }));
  take(database, databaseRead, (server, source) => {
    facts.databaseServer = { value: `${server.product}=${server.version}`, source };
  });
  return { facts, notes };
}

/**
 * The running process's executable, read through `/proc/PID/exe` (named in
 * messages by where the link points), else the first installed binary of
 * these names that root owns.
 */
function binaryOf(
  reader: ProcReader,
  running: readonly ProcessInfo[],
  names: readonly string[],
): { file: string; shown: string } | undefined {
  for (const process of running) {
    const link = `/proc/${process.pid}/exe`;
    const exe = reader.link(link);
    // A binary replaced by a package upgrade reads `/usr/sbin/mariadbd (deleted)`; the link still opens the running one.
    if (exe !== undefined) return { file: reader.path(link), shown: `${exe.replace(/ \(deleted\)$/, '')}, PID ${process.pid}` };
  }
  // None runs (or none can be seen): the installed binary is what the configs are for. Under the probe's root, as /proc is.
  for (const name of names) {
    for (const directory of SERVER_DIRECTORIES) {
      const file = reader.path(path.posix.join(directory, name));
      if (isSystemFile(file, reader.root)) return { file, shown: `${path.posix.join(directory, name)}, installed` };
    }
  }
  return undefined;
}
