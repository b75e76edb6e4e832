import * as fs from 'node:fs';
import type { OomKill } from './facts.js';

/** The servers whose OOM kills are evidence for their limits: Apache, php-fpm (`php-fpm8.2`, `php-fpm: pool www`), MySQL and MariaDB. */
const SERVER_PROCESS = /^(apache2|httpd|php-fpm|php\d[\d.]*-fpm|mysqld|mariadbd)/;
/** `Out of memory: Killed process 1234 (apache2) total-vm:...`, and the memory cgroup's `Memory cgroup out of memory: Killed process ...`. */
const KILLED = /Killed process (\d+) \(([^)]*)\)/;
/** The kernel ring buffer is a few MiB at most; a bound all the same, for a log that keeps growing while read. */
const MAX_RECORDS = 200_000;

/**
 * OOM kills of server processes in the kernel log (`/dev/kmsg`, as `dmesg`
 * reads it: root, or any user when kernel.dmesg_restrict is 0). Undefined
 * with a note when the log cannot be read.
 */
export function readOomKills(notes: string[], device = '/dev/kmsg', uptimeFile = '/proc/uptime'): OomKill[] | undefined {
  let uptime: number;
  try {
    uptime = Number(fs.readFileSync(uptimeFile, 'utf8').split(' ')[0]);
  } catch (error) {
    notes.push(`${uptimeFile} unreadable (${(error as NodeJS.ErrnoException).code ?? String(error)}): OOM kills not checked`);
    return undefined;
  }
  let handle: number;
  try {
    handle = fs.openSync(device, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    notes.push(`kernel log ${device} unreadable (${(error as NodeJS.ErrnoException).code ?? String(error)}): OOM kills not checked`);
    return undefined;
  }
  const kills: OomKill[] = [];
  // One record per read; a record is at most about 8 KiB (the kernel's line limit).
  const buffer = Buffer.alloc(16 * 1024);
  try {
    for (let records = 0; records < MAX_RECORDS; records++) {
      let length: number;
      try {
        length = fs.readSync(handle, buffer, 0, buffer.length, null);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        // EPIPE: records were overwritten while reading; the next read goes on from the oldest one left.
        if (code === 'EPIPE') continue;
        break;
      }
      if (length === 0) break;
      // A read of /dev/kmsg is one record; a plain file (a probe of a saved tree) gives many lines at once.
      for (const line of buffer.toString('utf8', 0, length).split('\n')) {
        const kill = parseKmsgRecord(line, uptime);
        if (kill !== undefined) kills.push(kill);
      }
    }
  } finally {
    fs.closeSync(handle);
  }
  return kills;
}

/** `3,1234,5140900123,-;Out of memory: Killed process 42 (apache2) ...`: a kill of a server process, or undefined; `uptime` is now, in seconds since boot. */
export function parseKmsgRecord(record: string, uptime: number): OomKill | undefined {
  const semicolon = record.indexOf(';');
  if (semicolon < 0) return undefined;
  const match = KILLED.exec(record.slice(semicolon + 1));
  if (match === null) return undefined;
  const process = match[2] as string;
  if (!SERVER_PROCESS.test(process)) return undefined;
  const microseconds = Number(record.slice(0, semicolon).split(',')[2]);
  const secondsAfterBoot = Number.isFinite(microseconds) ? microseconds / 1e6 : uptime;
  return { process, pid: Number(match[1]), secondsAgo: Math.max(0, Math.round(uptime - secondsAfterBoot)) };
}
