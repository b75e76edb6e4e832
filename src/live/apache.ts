import * as path from 'node:path';
import type { ApacheLive, ApacheStatus, Fact, LogEvidence } from '../host/facts.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../languages/apache/model.js';
import type { ProcessInfo, ProcReader } from '../host/proc.js';
import { readTail, withTimeout } from './log-tail.js';
import { canonicalIpv6, socketInodes, tcpListeners, type TcpListener } from '../host/sockets.js';

/** A status page that does not answer within this is a note; the lint does not wait longer. */
const STATUS_TIMEOUT_MS = 1_000;
/** `?auto` is a few hundred bytes, plus one character per scoreboard slot. */
const STATUS_MAX_BYTES = 256 * 1024;
/** The end of the error log is read: the latest lines, whatever the log's size. */
const ERROR_LOG_TAIL_BYTES = 8 * 1024 * 1024;
/** The log is a local file: a read that takes longer is a hung network mount, and the lint does not wait for it. */
const LOG_TIMEOUT_MS = STATUS_TIMEOUT_MS;

/**
 * What the running Apache says about itself: its `mod_status` page, asked
 * only on a loopback address and a port the running server itself listens
 * on, and only when the config serves the page; and the "server reached
 * MaxRequestWorkers" lines of its main error log.
 */
export async function askApache(
  config: ApacheConfig,
  reader: ProcReader,
  parents: readonly ProcessInfo[],
  notes: string[],
): Promise<Fact<ApacheLive> | undefined> {
  const sources: string[] = [];
  const live: { status?: ApacheStatus; maxWorkersReached?: LogEvidence } = {};
  const target = statusTarget(config, reader, parents, notes);
  if (target !== undefined) {
    const status = await readStatus(target, notes);
    if (status !== undefined) {
      live.status = status;
      sources.push(status.url);
    }
  }
  const log = errorLogPath(config, notes);
  if (log !== undefined) {
    const evidence = await maxWorkersLines(log, notes);
    if (evidence !== undefined) live.maxWorkersReached = evidence;
    sources.push(log);
  }
  if (sources.length === 0) return undefined;
  return { value: live, source: `live (${sources.join(', ')})` };
}

/** Where the status page is asked: an IP literal on loopback, a port, a path; never a URL a file wrote. */
interface StatusTarget {
  readonly address: string;
  readonly family: 4 | 6;
  readonly port: number;
  readonly path: string;
}

/** How the request is shown: `http://127.0.0.1:80/server-status?auto`. */
function shownUrl(target: StatusTarget): string {
  return `http://${target.family === 6 ? `[${target.address}]` : target.address}:${target.port}${target.path}`;
}

/** A path a `<Location>` hands to server-status that can go on a request line as it is. */
const PLAIN_PATH = /^\/[A-Za-z0-9._~!$&'()*+,;=:@%/-]*$/;

/**
 * The status page's address when mod_status is loaded, a `<Location>` hands
 * a plain path to it, and a plain-HTTP Listen takes loopback connections on
 * a port the running Apache holds open.
 */
function statusTarget(
  config: ApacheConfig,
  reader: ProcReader,
  parents: readonly ProcessInfo[],
  notes: string[],
): StatusTarget | undefined {
  if (!config.hasModule('status_module')) return undefined;
  const handler = config
    .named('sethandler')
    .find((use) => use.args[0]?.toLowerCase() === 'server-status' && use.parent?.name === 'location');
  const location = handler?.parent?.args[0];
  if (location === undefined || !PLAIN_PATH.test(location)) {
    notes.push('Apache status not asked: mod_status is loaded but no <Location> hands a plain path to server-status');
    return undefined;
  }
  const listening = apacheListeners(reader, parents);
  const candidates = config
    .named('listen')
    .map(loopbackAddress)
    .filter((found) => found !== undefined);
  if (candidates.length === 0) {
    notes.push('Apache status not asked: no plain-HTTP Listen takes connections on a loopback address');
    return undefined;
  }
  const served = candidates.find((candidate) => listening.some((listener) => reaches(listener, candidate)));
  if (served === undefined) {
    notes.push(
      `Apache status not asked: the running Apache${parents.length === 0 ? ' (none of root runs)' : ''} listens on none of the loopback ports its config names (${candidates.map((candidate) => candidate.port).join(', ')})`,
    );
    return undefined;
  }
  return { ...served, path: `${location}?auto` };
}

/** The TCP sockets the Apache parents hold open and listen on. */
function apacheListeners(reader: ProcReader, parents: readonly ProcessInfo[]): TcpListener[] {
  const inodes = new Set(parents.flatMap((parent) => [...socketInodes(reader, parent.pid)]));
  return tcpListeners(reader).filter((listener) => inodes.has(listener.inode));
}

/** Whether a connection to the loopback address reaches this listening socket: same port, its address or a wildcard that takes it. */
function reaches(listener: TcpListener, target: Omit<StatusTarget, 'path'>): boolean {
  if (listener.port !== target.port) return false;
  if (listener.address === target.address || listener.address === '::') return true;
  return target.family === 4 && listener.address === '0.0.0.0';
}

/**
 * Where a Listen line can be reached on loopback: an IPv4 literal in
 * 127.0.0.0/8 or `[::1]` as written, the wildcard addresses as 127.0.0.1 or
 * ::1; undefined for HTTPS, a host name or any other address.
 */
function loopbackAddress(use: ApacheDirectiveUse): Omit<StatusTarget, 'path'> | undefined {
  const [socket, protocol] = use.args;
  if (socket === undefined || (protocol !== undefined && protocol.toLowerCase() !== 'http')) return undefined;
  const match = /^(?:(\d{1,3}(?:\.\d{1,3}){3}|\[[0-9A-Fa-f:.]+\]|\*):)?(\d{1,5})$/.exec(socket);
  if (match === null) return undefined;
  const host = match[1];
  const port = Number(match[2]);
  if (port < 1 || port > 65535 || (protocol === undefined && port === 443)) return undefined;
  if (host === undefined || host === '*' || host === '0.0.0.0') return { address: '127.0.0.1', family: 4, port };
  if (!host.startsWith('[')) return isLoopbackIpv4(host) ? { address: host, family: 4, port } : undefined;
  const address = canonicalIpv6(host.slice(1, -1));
  return address === '::1' || address === '::' ? { address: '::1', family: 6, port } : undefined;
}

function isLoopbackIpv4(address: string): boolean {
  const octets = address.split('.').map(Number);
  return octets[0] === 127 && octets.every((octet) => octet <= 255);
}

async function readStatus(target: StatusTarget, notes: string[]): Promise<ApacheStatus | undefined> {
  const http = await import('node:http');
  const url = shownUrl(target);
  return new Promise((resolve) => {
    const done = (status: ApacheStatus | undefined, note?: string): void => {
      if (note !== undefined) notes.push(`Apache status ${url} not read: ${note}`);
      resolve(status);
    };
    const request = http.request(
      {
        host: target.address,
        family: target.family,
        port: target.port,
        path: target.path,
        method: 'GET',
        agent: false,
        timeout: STATUS_TIMEOUT_MS,
        headers: { 'User-Agent': 'tune-lint' },
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          done(undefined, `HTTP ${response.statusCode ?? '?'}`);
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > STATUS_MAX_BYTES) request.destroy(new Error(`more than ${STATUS_MAX_BYTES} bytes`));
          else chunks.push(chunk);
        });
        response.on('end', () => {
          const status = parseStatusPage(url, Buffer.concat(chunks).toString('latin1'));
          done(status, status === undefined ? 'not a mod_status ?auto page' : undefined);
        });
      },
    );
    request.on('timeout', () => request.destroy(new Error(`no answer within ${STATUS_TIMEOUT_MS / 1000} s`)));
    request.on('error', (error) => done(undefined, error.message));
    request.end();
  });
}

/** The `Key: value` lines of `?auto`; undefined when the scoreboard or worker counts are missing. */
export function parseStatusPage(url: string, text: string): ApacheStatus | undefined {
  const values = new Map<string, string>();
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) values.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const busy = Number(values.get('BusyWorkers'));
  const idle = Number(values.get('IdleWorkers'));
  const scoreboard = values.get('Scoreboard');
  if (!Number.isInteger(busy) || !Number.isInteger(idle) || scoreboard === undefined) return undefined;
  const accesses = Number(values.get('Total Accesses'));
  const uptime = Number(values.get('ServerUptimeSeconds') ?? values.get('Uptime'));
  const mpm = values.get('ServerMPM');
  return {
    url,
    busyWorkers: busy,
    idleWorkers: idle,
    scoreboardSlots: scoreboard.length,
    ...(Number.isInteger(accesses) ? { totalAccesses: accesses } : {}),
    ...(Number.isInteger(uptime) ? { uptime } : {}),
    ...(mpm === undefined ? {} : { mpm }),
  };
}

/** The main server's ErrorLog as a file path (relative ones are under ServerRoot); pipes and syslog are notes. */
function errorLogPath(config: ApacheConfig, notes: string[]): string | undefined {
  const main = config.named('errorlog').filter((use) => !insideVirtualHost(use));
  const last = main[main.length - 1];
  if (last === undefined) return undefined;
  const target = last.args[0];
  if (target === undefined || last.unresolved.length > 0) return undefined;
  if (target.startsWith('|') || target.startsWith('syslog')) {
    notes.push(`Apache error log not read: ErrorLog ${target} goes to a program or syslog, not a file`);
    return undefined;
  }
  return path.isAbsolute(target) ? target : path.join(config.serverRoot, target);
}

function insideVirtualHost(use: ApacheDirectiveUse): boolean {
  for (let section = use.parent; section !== undefined; section = section.parent) if (section.name === 'virtualhost') return true;
  return false;
}

/** AH00161 (prefork) and AH00484 (worker, event): "server reached MaxRequestWorkers setting". */
const MAX_WORKERS_REACHED = /\b(AH00161|AH00484)\b/;
const LOG_DATE = /^\[([^\]]+)\]/;

/**
 * Counts the lines of the log's last 8 MiB that say the server ran out of
 * workers, with the first and last date. Only a regular file is read: it is
 * opened without blocking (a FIFO named as the log would otherwise wait for
 * a writer forever), and a read that takes longer than the status page may
 * is given up.
 */
export async function maxWorkersLines(file: string, notes: string[]): Promise<LogEvidence | undefined> {
  let text: string;
  try {
    text = await withTimeout(readTail(file, ERROR_LOG_TAIL_BYTES), LOG_TIMEOUT_MS);
  } catch (error) {
    notes.push(`Apache error log ${file} not read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    return undefined;
  }
  let count = 0;
  let first = '';
  let last = '';
  for (const line of text.split('\n')) {
    if (!MAX_WORKERS_REACHED.test(line)) continue;
    const date = LOG_DATE.exec(line)?.[1] ?? '';
    if (count === 0) first = date;
    last = date;
    count++;
  }
  return count === 0 ? undefined : { file, count, first, last };
}
