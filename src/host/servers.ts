import { execFile } from 'node:child_process';
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

/** What the servers' binaries said: the facts, and a note for each that said nothing usable. */
export interface ServerVersions {
  readonly facts: { httpdVersion?: Fact<string>; databaseServer?: Fact<string> };
  readonly notes: readonly string[];
}

/**
 * The release of the httpd and the database server of this host: the binary
 * of the running process when there is one (it is what serves), else the one
 * installed. Only the system's own binaries are run, with a clean
 * environment and a time limit; a binary that says nothing usable is a note.
 * Both run at once: each takes 15-30 ms to print its version, which one
 * after the other was most of what a probe waited for.
 */
export async function probeServerVersions(
  reader: ProcReader,
  running: { readonly apache: readonly ProcessInfo[]; readonly mysql: readonly ProcessInfo[] },
): Promise<ServerVersions> {
  const httpd = binaryOf(reader, running.apache, ['apache2', 'httpd']);
  const database = binaryOf(reader, running.mysql, ['mariadbd', 'mysqld']);
  const [httpdRun, databaseRun] = await Promise.all([
    httpd === undefined ? undefined : runForVersion(httpd.path, ['-v'], parseHttpdVersion),
    database === undefined ? undefined : runForVersion(database.path, ['--version'], parseDatabaseVersion),
  ]);
  const facts: { httpdVersion?: Fact<string>; databaseServer?: Fact<string> } = {};
  const notes: string[] = [];
  if (httpd !== undefined && httpdRun !== undefined) {
    if (httpdRun.value !== undefined) facts.httpdVersion = { value: httpdRun.value, source: `probe (${httpd.path} -v${httpd.pid})` };
    else notes.push(httpdRun.note);
  }
  if (database !== undefined && databaseRun !== undefined) {
    const server = databaseRun.value;
    if (server !== undefined) {
      facts.databaseServer = { value: `${server.product}=${server.version}`, source: `probe (${database.path} --version${database.pid})` };
    } else notes.push(databaseRun.note);
  }
  return { facts, notes };
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

/** What a binary printed, parsed, or why nothing could be. */
type VersionRun<T> = { readonly value: T; readonly note?: undefined } | { readonly value: undefined; readonly note: string };

/** Output past this is no version line: the rest of it is not kept. */
const VERSION_OUTPUT_BYTES = 64 * 1024;

function runForVersion<T>(binary: string, args: readonly string[], parse: (output: string) => T | undefined): Promise<VersionRun<T>> {
  return new Promise((resolve) => {
    const child = execFile(
      binary,
      args,
      { encoding: 'utf8', timeout: VERSION_TIMEOUT_MS, maxBuffer: VERSION_OUTPUT_BYTES, env: { PATH: SERVER_TOOL_PATH, LANG: 'C' } },
      (error, stdout, stderr) => {
        const parsed = parse(`${stdout}\n${stderr}`);
        if (parsed !== undefined) resolve({ value: parsed });
        else resolve({ value: undefined, note: `${binary} ${args.join(' ')} said no version (${failureOf(error)})` });
      },
    );
    child.stdin?.end();
  });
}

/** How a run ended, for a note: the error, the signal that ended it, or its exit status. */
function failureOf(error: (Error & { code?: unknown; signal?: unknown; killed?: boolean }) | null): string {
  if (error === null) return 'exit 0';
  if (error.killed === true) return `no answer in ${VERSION_TIMEOUT_MS} ms`;
  if (typeof error.code === 'number') return `exit ${error.code}`;
  if (typeof error.signal === 'string') return `exit ${error.signal}`;
  return error.message;
}
