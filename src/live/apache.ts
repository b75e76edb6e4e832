import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ApacheLive, ApacheStatus, Fact, LogEvidence } from '../host/facts.js';
import type { ApacheConfig, ApacheDirectiveUse } from '../languages/apache/model.js';

/** A status page that does not answer within this is a note; the lint does not wait longer. */
const STATUS_TIMEOUT_MS = 1_000;
/** `?auto` is a few hundred bytes, plus one character per scoreboard slot. */
const STATUS_MAX_BYTES = 256 * 1024;
/** The end of the error log is read: the latest lines, whatever the log's size. */
const ERROR_LOG_TAIL_BYTES = 8 * 1024 * 1024;

/**
 * What the running Apache says about itself: its `mod_status` page, asked
 * only on a loopback address and only when the config serves it there, and
 * the "server reached MaxRequestWorkers" lines of its main error log.
 */
export async function askApache(config: ApacheConfig, notes: string[]): Promise<Fact<ApacheLive> | undefined> {
  const sources: string[] = [];
  const live: { status?: ApacheStatus; maxWorkersReached?: LogEvidence } = {};
  const url = statusUrl(config, notes);
  if (url !== undefined) {
    const status = await readStatus(url, notes);
    if (status !== undefined) {
      live.status = status;
      sources.push(url);
    }
  }
  const log = errorLogPath(config, notes);
  if (log !== undefined) {
    const evidence = maxWorkersLines(log, notes);
    if (evidence !== undefined) live.maxWorkersReached = evidence;
    sources.push(log);
  }
  if (sources.length === 0) return undefined;
  return { value: live, source: `live (${sources.join(', ')})` };
}

/** `http://127.0.0.1:80/server-status?auto` when mod_status is loaded, a `<Location>` hands to it, and some Listen takes loopback connections. */
function statusUrl(config: ApacheConfig, notes: string[]): string | undefined {
  if (!config.hasModule('status_module')) return undefined;
  const handler = config
    .named('sethandler')
    .find((use) => use.args[0]?.toLowerCase() === 'server-status' && use.parent?.name === 'location');
  const location = handler?.parent?.args[0];
  if (!location?.startsWith('/')) {
    notes.push('Apache status not asked: mod_status is loaded but no <Location> hands a path to server-status');
    return undefined;
  }
  const address = config
    .named('listen')
    .map(loopbackAddress)
    .find((found) => found !== undefined);
  if (address === undefined) {
    notes.push('Apache status not asked: no plain-HTTP Listen takes connections on a loopback address');
    return undefined;
  }
  return `http://${address}${location}?auto`;
}

/** Where a Listen line can be reached on loopback: `127.0.0.1:80`, `[::1]:8080`; undefined for HTTPS or another address. */
function loopbackAddress(use: ApacheDirectiveUse): string | undefined {
  const [socket, protocol] = use.args;
  if (socket === undefined || (protocol !== undefined && protocol.toLowerCase() !== 'http')) return undefined;
  const match = /^(?:(\[[^\]]*\]|[^:]*):)?(\d+)$/.exec(socket);
  if (match === null) return undefined;
  const host = match[1];
  const port = match[2] as string;
  if (protocol === undefined && port === '443') return undefined;
  if (host?.startsWith('127.')) return `${host}:${port}`;
  if (host === undefined || host === '' || host === '*' || host === '0.0.0.0') return `127.0.0.1:${port}`;
  if (host === '[::]' || host === '[::1]') return `[::1]:${port}`;
  return undefined;
}

async function readStatus(url: string, notes: string[]): Promise<ApacheStatus | undefined> {
  const http = await import('node:http');
  return new Promise((resolve) => {
    const done = (status: ApacheStatus | undefined, note?: string): void => {
      if (note !== undefined) notes.push(`Apache status ${url} not read: ${note}`);
      resolve(status);
    };
    const request = http.get(url, { timeout: STATUS_TIMEOUT_MS, headers: { 'User-Agent': 'tune-lint' } }, (response) => {
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
    });
    request.on('timeout', () => request.destroy(new Error(`no answer within ${STATUS_TIMEOUT_MS / 1000} s`)));
    request.on('error', (error) => done(undefined, error.message));
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

/** Counts the lines of the log's last 8 MiB that say the server ran out of workers, with the first and last date. */
export function maxWorkersLines(file: string, notes: string[]): LogEvidence | undefined {
  let text: string;
  try {
    text = readTail(file, ERROR_LOG_TAIL_BYTES);
  } catch (error) {
    notes.push(`Apache error log ${file} not read: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
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

function readTail(file: string, bytes: number): string {
  const handle = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(handle).size;
    const length = Math.min(size, bytes);
    const buffer = Buffer.alloc(length);
    fs.readSync(handle, buffer, 0, length, size - length);
    return buffer.toString('latin1');
  } finally {
    fs.closeSync(handle);
  }
}
