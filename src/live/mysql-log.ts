import * as fs from 'node:fs';
import * as path from 'node:path';
import type { LoggedMessage, MysqlErrorLog } from '../host/facts.js';
import { readTail, withTimeout } from './log-tail.js';

/** The end of the error log is read: the latest lines, whatever the log's size. */
const TAIL_BYTES = 4 * 1024 * 1024;
const READ_TIMEOUT_MS = 1_000;
/** How many distinct messages the fact keeps. */
const TOP_MESSAGES = 5;

/**
 * `2026-12-06 20:25:30 9 [Warning] Access denied ...` (MariaDB) and
 * `2026-12-06T20:25:30.123456Z 9 [Warning] [MY-010055] [Server] ...` (MySQL 8).
 */
const LOG_LINE = /^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)\S*\s+\d+\s+\[(ERROR|Warning)\]\s+(?:\[MY-\d+\]\s+\[\w+\]\s+)?(.*)$/;

/**
 * Where the server writes its log: `log_error` as it runs, relative to the
 * datadir when not absolute; undefined when it writes to its standard error
 * (journald's, on systemd hosts) or to syslog.
 */
export function errorLogPath(variables: Readonly<Record<string, string>>): string | undefined {
  const file = variables.log_error ?? '';
  if (file === '' || file === 'stderr' || variables.log_syslog === 'ON') return undefined;
  return path.isAbsolute(file) ? file : path.join(variables.datadir ?? '', file);
}

/**
 * Reads the log's last 4 MiB when it is a regular file of the server's user
 * or root (the path comes from the server, never from a linted file, and is
 * read through /proc/PID/root, the server's own view of the files) and
 * counts its errors and warnings. Never throws: what cannot be read is a note.
 */
export async function readErrorLog(file: string, serverPid: number, notes: string[]): Promise<MysqlErrorLog | undefined> {
  let text: string;
  try {
    const serverUid = fs.statSync(`/proc/${serverPid}`).uid;
    // The path is the server's: through its own root, so a server in a chroot or a container is read where it writes.
    text = await withTimeout(readTail(`/proc/${serverPid}/root${file}`, TAIL_BYTES, [0, serverUid]), READ_TIMEOUT_MS);
  } catch (error) {
    notes.push(`MySQL/MariaDB error log ${file} not read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    return undefined;
  }
  return countMessages(file, text);
}

export function countMessages(file: string, text: string): MysqlErrorLog {
  const byMessage = new Map<string, { -readonly [K in keyof LoggedMessage]: LoggedMessage[K] }>();
  let errors = 0;
  let warnings = 0;
  for (const line of text.split('\n')) {
    const match = LOG_LINE.exec(line);
    if (match === null) continue;
    const [, date = '', severity, message = ''] = match;
    const level = severity === 'ERROR' ? 'error' : 'warning';
    if (level === 'error') errors++;
    else warnings++;
    // Connection ids, counts and sizes differ from line to line; the message is the same.
    const masked = message.replace(/\d+/g, 'N').trim();
    const key = `${level} ${masked}`;
    const seen = byMessage.get(key);
    if (seen === undefined) byMessage.set(key, { level, message: masked, count: 1, last: date });
    else {
      seen.count++;
      seen.last = date;
    }
  }
  const top = [...byMessage.values()]
    .sort((a, b) => b.count - a.count || Number(b.level === 'error') - Number(a.level === 'error'))
    .slice(0, TOP_MESSAGES);
  return { file, bytesRead: Buffer.byteLength(text, 'latin1'), errors, warnings, top };
}
