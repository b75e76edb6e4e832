import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { findServerTool, SERVER_TOOL_PATH } from '../util/system-tools.js';
import type { Fact } from './facts.js';
import type { ProcessInfo, ProcReader } from './proc.js';

/** A database server's product and release, as its binary names them. */
export interface DatabaseServer {
  readonly product: 'mariadb' | 'mysql';
  /** `10.11.19`, `8.0.36`. */
  readonly version: string;
}

/** How long a server binary may take to say its version. */
const VERSION_TIMEOUT_MS = 5_000;

/** Where distributions install the servers, besides PATH: RHEL's mysqld is in /usr/libexec. */
const SERVER_DIRECTORIES = [...SERVER_TOOL_PATH.split(':'), '/usr/libexec'];

/**
 * `Server version: Apache/2.4.71 (Debian)` from `apache2 -v`; the release,
 * or undefined when the text is not httpd's.
 */
export function parseHttpdVersion(output: string): string | undefined {
  return /^Server version: Apache\/(\d+\.\d+\.\d+)/m.exec(output)?.[1];
}

/**
 * `mariadbd  Ver 10.11.19-MariaDB-0+deb12u1 for debian-linux-gnu` or
 * `/usr/sbin/mysqld  Ver 8.0.36 for Linux on x86_64 (MySQL Community Server - GPL)`
 * from `--version`: the product is MariaDB when the version says so.
 */
export function parseDatabaseVersion(output: string): DatabaseServer | undefined {
  const match = /\bVer (\d+\.\d+\.\d+)(\S*)/.exec(output);
  if (match === null) return undefined;
  const product = /mariadb/i.test(match[2] ?? '') || /mariadb/i.test(output) ? 'mariadb' : 'mysql';
  return { product, version: match[1] as string };
}

/**
 * The release of the httpd and the database server of this host: the binary
 * of the running process when there is one (it is what serves), else the one
 * installed. Only the system's own binaries are run, with a clean
 * environment and a time limit; a binary that says nothing usable is a note.
 */
export function probeServerVersions(
  reader: ProcReader,
  running: { readonly apache: readonly ProcessInfo[]; readonly mysql: readonly ProcessInfo[] },
  notes: string[],
): { httpdVersion?: Fact<string>; databaseServer?: Fact<string> } {
  const facts: { httpdVersion?: Fact<string>; databaseServer?: Fact<string> } = {};
  const httpd = binaryOf(reader, running.apache, ['apache2', 'httpd']);
  if (httpd !== undefined) {
    const version = runForVersion(httpd.path, ['-v'], notes, parseHttpdVersion);
    if (version !== undefined) facts.httpdVersion = { value: version, source: `probe (${httpd.path} -v${httpd.pid})` };
  }
  const database = binaryOf(reader, running.mysql, ['mariadbd', 'mysqld']);
  if (database !== undefined) {
    const server = runForVersion(database.path, ['--version'], notes, parseDatabaseVersion);
    if (server !== undefined) {
      facts.databaseServer = { value: `${server.product}=${server.version}`, source: `probe (${database.path} --version${database.pid})` };
    }
  }
  return facts;
}

/** The running process's executable, else the installed binary of the first name found. */
function binaryOf(
  reader: ProcReader,
  running: readonly ProcessInfo[],
  names: readonly string[],
): { path: string; pid: string } | undefined {
  for (const process of running) {
    const exe = reader.link(`/proc/${process.pid}/exe`);
    // A binary replaced by a package upgrade reads `/usr/sbin/mariadbd (deleted)`: its path runs the new one.
    if (exe !== undefined) return { path: exe.replace(/ \(deleted\)$/, ''), pid: `, PID ${process.pid}` };
  }
  // None runs (or none can be seen): the installed binary is what the configs are for. Under the probe's root, as /proc is.
  const directories = SERVER_DIRECTORIES.map((directory) => (reader.root === '/' ? directory : path.join(reader.root, directory)));
  for (const name of names) {
    const found = findServerTool(name, directories);
    if (found !== undefined) return { path: found, pid: ', installed' };
  }
  return undefined;
}

function runForVersion<T>(
  binary: string,
  args: readonly string[],
  notes: string[],
  parse: (output: string) => T | undefined,
): T | undefined {
  const run = spawnSync(binary, args, {
    encoding: 'utf8',
    timeout: VERSION_TIMEOUT_MS,
    env: { PATH: SERVER_TOOL_PATH, LANG: 'C' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const parsed = parse(`${run.stdout}\n${run.stderr}`);
  if (parsed === undefined)
    notes.push(`${binary} ${args.join(' ')} said no version (${run.error?.message ?? `exit ${run.status ?? run.signal}`})`);
  return parsed;
}
